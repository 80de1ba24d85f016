"""Named constants: timeouts, retry counts, periods and caps, each with its reason.

Everything tunable about the wire lives here so that one file answers "why this
number". Nothing here does I/O.
"""

from __future__ import annotations

import os

# The CLI build whose protocol we mirror. Cursor gates features on this header,
# and a stale value is the most common breakage, so the environment can override it.
# The newest public build peers pin: the one Cursor's installer served on 2026-10-01
# (1jehuang/jcode #399; decolua/9router PR #525; knoxwh/ccextra docs/design.md).
DEFAULT_CLIENT_VERSION = "cli-2026.10.01-e373342"
CLIENT_VERSION_ENV = "CURSOR_CLIENT_VERSION"
# An installed Cursor CLI's version is read at most this often (the answer is kept in
# the home): the CLI updates itself daily at most, and reading it may start a process.
CLIENT_VERSION_CHECK_SECONDS = 24 * 3600.0

# What the kit's unary calls name themselves as (h1conn.H1Pool.unary): a caller's own
# user-agent wins. Cursor's web endpoints may refuse a request that names no client.
UNARY_USER_AGENT = "nodecode-cursor/0.1"
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
RUN_TRANSPORTS = ("auto", "sse", "poll", "http2")
DEFAULT_RUN_TRANSPORT = "auto"

# One append may carry a large request; give it a base and 1 s per 128 KiB on top.
APPEND_BASE_TIMEOUT_SECONDS = 60.0
APPEND_BYTES_PER_EXTRA_SECOND = 128 * 1024

# Decoded batches (one per network read) the run's reader may hold ahead of the lane
# before it stops reading: a stream faster than the host renders waits in the socket,
# so a long answer is held once (by the fold), not twice.
RUN_INBOX_BATCHES = 16
# And the messages those batches may hold together: one read of small frames can carry
# thousands of messages, and the lane's work (and memory) goes by messages, not reads.
RUN_INBOX_MESSAGES = 4096

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
# Exchanging a dashboard API key for a session token is the same kind of call as a
# token refresh (one small JSON POST a round waits on): the same bound.
KEY_EXCHANGE_TIMEOUT_SECONDS = REFRESH_TIMEOUT_SECONDS

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

# A run that breaks after the service sent a checkpoint is resumed from it (a new
# run whose action is resume_action), as oh-my-pi 18.4.5 does, after this short
# wait (oh-my-pi waits 500 ms): long enough for a blip to pass, short enough that
# a person watching the stream barely notices.
RESUME_WAIT_SECONDS = 0.5
# Resumed runs after the first run of a round, at most: a stream that keeps
# breaking is failing, not blipping, and the host should hear of it (oh-my-pi's
# own cap is not public; five keeps the worst case to a few seconds of waiting).
MAX_RESUMES = 5

# A conversation Cursor refuses with a bare resource_exhausted gets a new wire id
# at most this many times in all (counted on disk, across processes): one refused again
# and again is not going to be accepted, and rotating forever would hide that from
# the person (oh-my-pi has no numeric cap; its fork code-yeongyu/senpi caps it at 3).
MAX_ROTATIONS = 3

# Conversations (blob stores, checkpoints) kept in memory; evicted ones rebuild from history.
MAX_CONVERSATIONS = 128
# Digests of long history messages the cell remembers between rounds (core/continuity.py's
# DigestMemo), so a long session's history is not hashed again every round: a 500-call
# session needs about 500, and an entry is about 300 bytes (about 10 MiB at most).
DIGEST_MEMO_ENTRIES = 32 * 1024
# Sessions whose history the cell remembers as their last round read it (core/history_memo.py),
# so a round reads only its new messages: a memo holds a copy of each message's dicts and
# lists (not its text), about 1 KiB a message, so a few sessions of 20 000 messages each.
HISTORY_MEMO_SESSIONS = 8

# The writer table forgets everything past this many rounds rather than grow forever.
MAX_WRITER_ENTRIES = 4096

# How much of a Connect error's details (debug text, ErrorInfo, ErrorDetails words) a
# generic message is followed by: enough to say what failed, one line, as oh-my-pi bounds it.
ERROR_DETAIL_CHARS = 400

# Cursor's OAuth client id for the CLI.
OAUTH_CLIENT_ID = "KbZUR41cY7W6zRSdpSUJ7I7mLYBKOCmB"


def client_version(configured: str | None = None, installed: str | None = None) -> str:
    """Return the client version header value (see ``client_version_choice``)."""
    return client_version_choice(configured, installed)[0]


def client_version_choice(
    configured: str | None = None, installed: str | None = None
) -> tuple[str, str]:
    """Return the header value and where it came from: "env", "setting", "installed", "default".

    The env override wins, then CONFIGURED (the setting), then INSTALLED (the
    version of Cursor's CLI on this machine, found by the caller) when its date is
    later than the pin's, then the pin. The first two are trimmed, and one that is
    empty or only whitespace counts as unset: a stray space in a shell profile must
    not become the header Cursor gates on.
    """
    override = os.environ.get(CLIENT_VERSION_ENV, "").strip()
    if override:
        return override, "env"
    setting = (configured or "").strip()
    if setting:
        return setting, "setting"
    found = version_date(installed or "")
    if installed and found is not None and found > (version_date(DEFAULT_CLIENT_VERSION) or ""):
        return installed, "installed"
    return DEFAULT_CLIENT_VERSION, "default"


def version_date(version: str) -> str | None:
    """Return the ``YYYY.MM.DD`` a CLI build names (``cli-2026.10.01-e373342``), or None."""
    head = version.strip().removeprefix("cli-")[:10]
    parts = head.split(".")
    digits = head.replace(".", "")
    if [len(p) for p in parts] == [4, 2, 2] and digits.isascii() and digits.isdigit():
        return head
    return None


# Blobs the service hands a conversation over KV set (what its checkpoints point at)
# are kept up to this many bytes each conversation, least recently used dropped
# first: a checkpoint names only the recent ones, and 128 conversations times this
# bounds the process (the history's own blobs are bounded by the history itself).
MAX_SERVICE_BLOB_BYTES = 8 * 1024 * 1024

# Images a run carries (core/images.py). Peers that talk to the live service cap an
# image at 1 MiB and a message at 12 images, and scale one to a longest edge of at
# most 2000 px (lidge-jun/opencodex src/adapters/cursor/images.ts: MAX_CURSOR_IMAGE_BYTES,
# MAX_CURSOR_IMAGES, CURSOR_VISION_MAX_EDGE, "Cursor staff guidance"); a large PNG was
# misread live where the same picture as a small JPEG was read right (same file).
# An image over either bound is re-encoded as a JPEG at the first of these qualities
# that fits the byte cap (85 first: the peers' first try, and no visible loss).
MAX_IMAGE_BYTES = 1024 * 1024
MAX_IMAGES_PER_MESSAGE = 12
MAX_IMAGE_EDGE = 2000
IMAGE_JPEG_QUALITIES = (85, 70, 55, 40)

# The model catalog (AvailableModels) says which parameters each sibling slug stands for.
# A round waits this long for it (the first round of an account, or one after it aged):
# the catalog is small and oh-my-pi gives the call 2 s; past the wait the round goes
# with what it has (the aged catalog, else the bundled shape) and the fetch lands later.
CATALOG_TIMEOUT_SECONDS = 5.0
CATALOG_WAIT_SECONDS = 3.0
# Cursor adds models and variants over days, not minutes: a catalog this old is
# asked again by the next round, which keeps the old one if the new one cannot be had.
CATALOG_MAX_AGE_SECONDS = 30 * 60.0

# The cursor-agent lane (agent_lane.py) ------------------------------------------------------

# A cursor-agent turn that prints nothing for this long is stopped: the CLI runs tools
# itself (a build, a test run), so it may be silent far longer than a Cursor run is.
AGENT_IDLE_TIMEOUT_SECONDS = 600.0
# After the CLI's process exits, how long its process group gets to end after SIGTERM
# before SIGKILL: a tool it started must not outlive the round.
AGENT_KILL_GRACE_SECONDS = 2.0
# Once the CLI has exited, its stdout is read this much longer (what it printed is already
# in the pipe: milliseconds), then the turn is over: a background process it left (a dev
# server) may hold the pipe open for ever.
AGENT_READ_AFTER_EXIT_SECONDS = 2.0
# Once the CLI's stdout has ended, it gets this long to exit before its group is ended:
# a CLI that closed its output and lingers must not hold a finished turn.
AGENT_EXIT_AFTER_EOF_SECONDS = 2.0
# `cursor-agent --version` for /cursor status answers in well under this.
AGENT_VERSION_TIMEOUT_SECONDS = 5.0
# An ``agent`` on the PATH that is not known to be Cursor's (the Grok CLI ships one too)
# is asked its version with this short a leash: an unknown program gets little time.
AGENT_IDENTIFY_TIMEOUT_SECONDS = 3.0
# One stream-json line longer than this is dropped (a tool result can be a whole file,
# but not an unbounded one).
AGENT_MAX_LINE_BYTES = 32 * 1024 * 1024
# What the lane keeps of the CLI's stderr for an error line: its end says why it failed.
AGENT_STDERR_TAIL_BYTES = 8192
# Host sessions the on-disk table remembers (agent_sessions.py); the oldest go first.
MAX_AGENT_SESSIONS = 1024
# How long a turn waits for another process's hold on that table.
AGENT_SESSIONS_LOCK_SECONDS = 10.0

# HTTP/2 Run (h2conn.py). The receive windows are large so a long answer streams
# without waiting for WINDOW_UPDATEs (bytes are given back as the run consumes them,
# so a slow consumer holds the service back, not memory): 4 MiB a stream, 16 MiB
# for the connection shared by concurrent rounds.
H2_STREAM_WINDOW = 4 * 1024 * 1024
H2_CONNECTION_WINDOW = 16 * 1024 * 1024
# A PING every 15 s finds a dead connection while the model thinks in silence; one
# unanswered for 20 s ends the connection (its runs are cut, the next round dials anew).
H2_PING_SECONDS = 15.0
H2_PING_TIMEOUT_SECONDS = 20.0
# A pooled connection with no stream for a minute is closed at the next round
# (oh-my-pi's pool evicts after the same 60 s).
H2_IDLE_SECONDS = 60.0
# Cursor's GetServerConfig (server_config.py), asked when HTTP/2 fails to negotiate:
# 5 s to answer (else "unspecified"), an answer kept 30 s per base URL and account,
# and a body past 1 MiB is not read -- oh-my-pi's server-config.ts bounds.
SERVER_CONFIG_TIMEOUT_SECONDS = 5.0
SERVER_CONFIG_TTL_SECONDS = 30.0
SERVER_CONFIG_MAX_BYTES = 1024 * 1024
# Every unary call (unary.unary) has one deadline for its whole answer, head and body: its
# timeout. Issue 36 saw endless `102 Processing` heads and a body trickled a byte at a
# time hold `models` for ever on a 5 s timeout. An answer may carry a few interim (1xx)
# heads before its own (RFC 9110 §15.2); past this many it is refused, whatever the clock.
MAX_INTERIM_HEADS = 16
# What a unary answer may weigh before it is read no further (issue 36: a 300 MiB roster
# peaked at 936 MiB). A roster or a catalog names tens of models in a few hundred bytes
# each (the catalog's rows carry descriptions and parameters, hence its larger cap); the
# dashboard's JSON answers are a few numbers and names. Our choice: each cap leaves
# room for a list a hundred times today's, and ends a flood long before memory does.
ROSTER_MAX_BYTES = 4 * 1024 * 1024
CATALOG_MAX_BYTES = 8 * 1024 * 1024
DASHBOARD_MAX_BYTES = 1024 * 1024

# Pooled HTTP/1.1 clients (clients.py): idle connections kept per loop and proxy for the
# next round's stream and appends, and how long an idle one is trusted (httpx's default
# 5 s would close it between most rounds of a chat).
POOL_KEEPALIVE_CONNECTIONS = 32
POOL_KEEPALIVE_SECONDS = 60.0
# Two reads of an HTTP/1.1 body less than this apart, the second small, are a burst
# (the service writes small frames faster than they are read); in a burst the socket
# is left unread until this long after the last read came, so the next read takes
# what came meanwhile at once. A model's tokens come milliseconds apart and are read
# as each comes (h1conn.H1Response.chunks). A read of 8 KiB or more already carries
# enough to pay for itself; gathering those too kept 64 KiB reads, and a 50 MiB
# answer then peaked at 1.5x its size instead of 1.04x (glibc's mmap threshold moved).
H1_BURST_SECONDS = 0.001
H1_GATHER_SECONDS = 0.0005
H1_BURST_READ_BYTES = 8192
# After a stream's end frame the body ends at once (its terminating chunk); a run waits
# this long for it so the connection goes back to the pool, else lets it close.
DRAIN_SECONDS = 0.5

# A round's text, thinking and tool-call updates together may not pass this many bytes
# (config ``cursor.max_reply_bytes``): an endless stream must not grow the client without
# bound, and no real answer comes near it.
MAX_REPLY_BYTES = 64 * 1024 * 1024

# The history budget of one run request (issue 32). Cursor ends a run whose
# root_prompt_messages_json holds about 208 blobs with invalid_argument after the
# stream started (lidge-jun/opencodex src/adapters/cursor/protobuf-request.ts,
# "observed at 208 roots with usedTokens=0"); that peer bounds its assembled set at
# 192 roots and 512 KiB of root JSON (its PR #2865). We take the same figures: the
# root count keeps clear of the observed wall, the bytes keep a request well inside
# every model's context window. ``cursor.history_budget`` and the environment
# variable below override them.
HISTORY_BUDGET_ROOTS = 192
HISTORY_BUDGET_BYTES = 512 * 1024
HISTORY_BUDGET_ENV = "CURSOR_HISTORY_BUDGET"

# How a history over its budget is folded (core/fold_history.py). The transcript of the
# folded messages takes at most this many bytes (or an eighth of the budget, when that
# is less): enough for a few dozen shortened messages, little next to what stays whole.
FOLD_TRANSCRIPT_BYTES = 32 * 1024
# Each folded message keeps at most this many bytes in the transcript: its head (three
# quarters) and tail, with a marker saying how many bytes were cut between them.
FOLD_MESSAGE_BYTES = 1024
# The number of folded units is rounded up to a step of at most this many units, so the
# transcript (and the prefix Cursor caches) changes once every several rounds.
FOLD_STEP_UNITS = 16
# A bridged grep's result replays in the next round as Cursor's typed grep step
# (core/bridge.py): at most this many matches (or counted files) go in it, marked
# client-truncated past them. Issue 36: a 16-byte count line ``big.log:20000000`` grew
# to millions of entries (+1.5 GiB). Our choice: a model reads no more lines than this
# from one search; a capped result says so, as Cursor's own capped grep does.
MAX_REPLAYED_MATCHES = 2000

# What tells apart the causes of a bare refusal (docs/protocol.md §9). A request's
# tokens are estimated as its bytes over this (the rule of thumb senpi PR #1120 and
# opencodex use); the wall on root blobs is where opencodex saw runs end
# invalid_argument with no tokens (protobuf-request.ts, "observed at 208 roots"), and a
# late invalid_argument on a request at this share (percent) of the root budget or
# past the wall is read as that wall.
BYTES_PER_TOKEN = 4
ROOT_WALL = 208
ROOT_WALL_SHARE = 90

# A kept checkpoint older than this is not sent: the service keeps checkpoints for a
# limited time, about 30 minutes by knoxwh/ccextra docs/design.md, while
# lidge-jun/opencodex expires its own after 15 (src/adapters/cursor/checkpoint-store.ts,
# PR #2277). We take the shorter: a checkpoint not sent costs a rebuild from the
# history, one the service forgot costs a refused run.
CHECKPOINT_MAX_AGE_SECONDS = 15 * 60.0

# Several accounts (docs/protocol.md §11b, lanes/failover.py). An account stops being
# chosen for a round once its dashboard says this percent of its plan's included usage
# is used (``cursor.account_threshold``): before Cursor refuses it, since a refused run
# costs a round trip and, once output started, the round itself. 95: the last few
# percent are worth less than a round that never starts.
ACCOUNT_THRESHOLD_PERCENT = 95.0
# An account's usage is read from the dashboard at most this often (kept in memory and
# under the home, so other processes share it): three small calls each time, and a
# plan's percent moves slowly against a day's rounds.
ACCOUNT_USAGE_MAX_AGE_SECONDS = 10 * 60.0
# A round waits at most this long (and never past its own timeout) for an account's
# usage to arrive; a slower read finishes for the next round. The dashboard answers in
# well under a second; a round's first token must not wait on an optional fact.
ACCOUNT_USAGE_WAIT_SECONDS = 2.0
# An account Cursor refused for a cause another account mends (a limit, usage pricing,
# the pool) is not chosen for this long: Cursor gives no time a rate limit lifts, and
# a round a minute refused first costs more than waiting; after it, the dashboard
# (the threshold) decides, and a still-limited account is refused once more.
ACCOUNT_REFUSED_SECONDS = 10 * 60.0
