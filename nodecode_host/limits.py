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

# list_directory names at most this many entries (a node_modules must not flood the turn).
LIST_MAX_ENTRIES = 500

# How often `nodecode-cursor login` looks at the sign-in's progress while it waits.
LOGIN_PROGRESS_SECONDS = 0.25

# How long `nodecode-cursor login` waits, once the sign-in has ended, for the line saying
# how it went (the cell says it from its background thread just after).
LOGIN_SAY_SECONDS = 5.0
