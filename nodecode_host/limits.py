"""The reference host's named limits: turn rounds, tool bounds and timeouts, each with its reason.

The cell's own wire limits live in ``nodecode_cursor.limits``; these belong to
the host (its turn loop and tools) and no cell reads them.
"""

from __future__ import annotations

# A turn that keeps asking for tools is stopped after this many rounds, so a model
# stuck in a loop cannot run the host's tools forever.
MAX_ROUNDS = 25

# run_command stops a command after this long: the round waits on it, and a command
# that reads stdin or serves forever must not hang the chat.
COMMAND_TIMEOUT_SECONDS = 60.0
COMMAND_MAX_TIMEOUT_SECONDS = 600.0

# A tool result rides in every later request of the conversation, so the host bounds
# what one tool returns (characters; head and tail kept, the middle elided).
TOOL_OUTPUT_CHARS = 32_000

# search_files stops after this many matching lines, and skips files larger than this
# (generated or binary blobs, whose matches would only flood the result).
SEARCH_MAX_MATCHES = 200
SEARCH_MAX_FILE_BYTES = 2 * 1024 * 1024

# read_file returns at most this many bytes of a file in one call: a 3 GiB file must not
# be read into memory. A bigger file is read a part at a time, by start_line/end_line
# (streamed through, so the host holds only the part asked for).
READ_FILE_MAX_BYTES = 1024 * 1024

# run_command keeps this much of a command's output from its start and from its end
# while it streams (the middle is counted and dropped), so the host's memory stays flat
# whatever a command prints.
COMMAND_OUTPUT_HEAD_BYTES = 64 * 1024
COMMAND_OUTPUT_TAIL_BYTES = 32 * 1024

# search_files gives up after this many seconds in all (walking, reading and matching):
# a regular expression such as (a+)+$ can backtrack for ever, and the regex engine's
# own timeout stops it mid-match.
SEARCH_BUDGET_SECONDS = 10.0

# list_directory names at most this many entries (a node_modules must not flood the turn).
LIST_MAX_ENTRIES = 500

# How often `nodecode-cursor login` looks at the sign-in's progress while it waits.
LOGIN_PROGRESS_SECONDS = 0.25

# How long `nodecode-cursor login` waits, once the sign-in has ended, for the line saying
# how it went (the cell says it from its background thread just after).
LOGIN_SAY_SECONDS = 5.0

# `serve`'s connection layer: what one client may hold before it has said who it is.
# Request headers past this size are answered 431 (h11 buffers a head whole).
SERVE_MAX_HEADER_BYTES = 32 * 1024
# A request's head must arrive within this long of its first byte (or of the accept).
SERVE_HEADER_TIMEOUT_SECONDS = 10.0
# A request's whole body must arrive within this long of its head.
SERVE_BODY_TIMEOUT_SECONDS = 30.0
# A kept-alive connection with no new request for this long is closed.
SERVE_IDLE_TIMEOUT_SECONDS = 30.0
# Connections served at once; one more is answered 503 and closed.
SERVE_MAX_CONNECTIONS = 64
# A request body past this is refused rather than held in memory: a chat request with
# inline images can be large. A Responses request's item references, resolved, count
# against the same budget (issue 36: 300 references to one 1 MiB item in a 21 KiB
# request cost +1.2 GiB).
SERVE_MAX_BODY_BYTES = 64 * 1024 * 1024
# What the Responses store (previous_response_id, item_reference) may hold, counted as
# the JSON of each kept conversation and its items; past it the oldest are forgotten
# (the newest is always kept). Its 256 responses alone could hold 256 x 64 MiB. Our
# choice: four full-size requests' worth, where a usual conversation keeps its last
# hundreds of turns.
RESPONSES_STORE_MAX_BYTES = 256 * 1024 * 1024

# After killing a timed-out command's group, how long the host waits for the leader to be
# reaped; a child that left the session may hold the output pipe, and is not waited for.
COMMAND_REAP_SECONDS = 1.0

# What a connection may send past its request while its round runs (a pipelined
# request's worth); more closes it and cancels the round, so nothing grows unbounded.
SERVE_MAX_PENDING_BYTES = 64 * 1024
# A connection turned away at the cap: what is read and dropped after its 503, and
# for how long, so closing it is not a reset that destroys the answer.
SERVE_LINGER_BYTES = 64 * 1024 * 1024
SERVE_LINGER_SECONDS = 5.0
# How long stopping `serve` waits for its connections and the rounds they hold to end
# once cancelled (half of it, then they are cancelled once more: a task can swallow a
# cancel); past it the sockets still open are aborted and the stop goes on regardless.
SERVE_CLOSE_SECONDS = 5.0
