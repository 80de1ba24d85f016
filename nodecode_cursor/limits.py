"""Named constants: timeouts, retry counts, periods and caps, each with its reason.

Everything tunable about the wire lives here so that one file answers "why this
number". Nothing here does I/O.
"""

from __future__ import annotations

import os

# The CLI build whose protocol we mirror. Cursor gates features on this header,
# and a stale value is the most common breakage, so the environment can override it.
DEFAULT_CLIENT_VERSION = "cli-2026.09.02-c22c1a3"
CLIENT_VERSION_ENV = "CURSOR_CLIENT_VERSION"

DEFAULT_BASE_URL = "https://api2.cursor.sh"
DEFAULT_WEB_URL = "https://cursor.com"

# A Connect frame larger than this is refused: the service never sends one, and
# trusting a corrupt length would let a bad byte allocate gigabytes.
MAX_FRAME_BYTES = 64 * 1024 * 1024

# The service keeps a run open only while the client shows life; omp sends one every 5 s.
# Any append counts: a heartbeat goes only after this long without one.
HEARTBEAT_SECONDS = 5.0

# Which route streams a run's answer (the "transport" setting): RunSSE, RunPoll, or
# RunSSE with RunPoll taking over when RunSSE is not served.
RUN_TRANSPORTS = ("auto", "sse", "poll")
DEFAULT_RUN_TRANSPORT = "auto"

# One append may carry a large request; give it a base and 1 s per 128 KiB on top.
APPEND_BASE_TIMEOUT_SECONDS = 60.0
APPEND_BYTES_PER_EXTRA_SECOND = 128 * 1024

# Decoded batches (one per network read) the run's reader may hold ahead of the lane
# before it stops reading: a stream faster than the host renders waits in the socket,
# so a long answer is held once (by the fold), not twice.
RUN_INBOX_BATCHES = 16

# No message from RunSSE but heartbeats for this long ends the round as incomplete.
# Heartbeats keep the connection open but never the round: a stream of nothing else
# would otherwise hold the host forever.
DEFAULT_REQUEST_TIMEOUT_SECONDS = 120.0

# Connecting is separate from the "no data" budget: a dead address should fail
# fast, while a model may legitimately think for a long time between frames.
CONNECT_TIMEOUT_SECONDS = 15.0

# After turn_ended the service sends its checkpoint and the end frame at once; a
# stream that stays open and silent this long after the turn is over is treated
# as ended (the turn is complete) rather than waiting out the request timeout.
# The grace never exceeds the round's own request timeout.
TURN_END_GRACE_SECONDS = 5.0

# Unary calls that a person waits on (roster, profile) must answer quickly.
ROSTER_TIMEOUT_SECONDS = 5.0
PROFILE_TIMEOUT_SECONDS = 3.0
REFRESH_TIMEOUT_SECONDS = 15.0

# Sign-in polling, as Cursor's own CLI paces it.
POLL_FIRST_DELAY_SECONDS = 1.0
POLL_BACKOFF = 1.2
POLL_MAX_DELAY_SECONDS = 10.0
POLL_MAX_ATTEMPTS = 150
POLL_MAX_CONSECUTIVE_ERRORS = 3
# One poll that hangs this long counts as no answer, so a dead network ends the
# sign-in after three of them rather than hanging it.
POLL_REQUEST_TIMEOUT_SECONDS = 10.0

# A kept token is treated as expiring 5 min before its JWT says, and a round
# refreshes it when it is due within a minute.
EXPIRY_MARGIN_SECONDS = 300
REFRESH_WHEN_DUE_WITHIN_SECONDS = 60
FALLBACK_TOKEN_LIFETIME_SECONDS = 3600

# Conversations (blob stores, checkpoints) kept in memory; evicted ones rebuild from history.
MAX_CONVERSATIONS = 128

# The writer table forgets everything past this many rounds rather than grow forever.
MAX_WRITER_ENTRIES = 4096

# Cursor's OAuth client id for the CLI.
OAUTH_CLIENT_ID = "KbZUR41cY7W6zRSdpSUJ7I7mLYBKOCmB"


def client_version(configured: str | None = None) -> str:
    """Return the client version header value: env override, then config, then the pin.

    Both are trimmed, and one that is empty or only whitespace counts as unset: a
    stray space in a shell profile must not become the header Cursor gates on.
    """
    override = os.environ.get(CLIENT_VERSION_ENV, "").strip()
    return override or (configured or "").strip() or DEFAULT_CLIENT_VERSION


# Blobs the service hands a conversation over KV set (what its checkpoints point at)
# are kept up to this many bytes each conversation, least recently used dropped
# first: a checkpoint names only the recent ones, and 128 conversations times this
# bounds the process (the history's own blobs are bounded by the history itself).
MAX_SERVICE_BLOB_BYTES = 8 * 1024 * 1024

# A round's text, thinking and tool-call updates together may not pass this many bytes
# (config ``cursor.max_reply_bytes``): an endless stream must not grow the client without
# bound, and no real answer comes near it.
MAX_REPLY_BYTES = 64 * 1024 * 1024
