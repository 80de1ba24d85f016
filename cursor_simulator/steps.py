"""The script language of the simulated agent service: the steps a test queues for a run.

What a run streams is a script: a sequence of small steps (``Text``,
``Thinking``, ``ToolCall``, ``AskRequestContext``, ``KvRead``, ``TurnEnded``,
``EndError``, ``CutStream``, ...) queued per test with ``agent.AgentService.script``,
or a generator of steps that may look at the run as it goes (``player.Script``).
Each step is a frozen value saying what to send or what to wait for; playing
them onto a stream is ``player.Player``'s job, and nothing here does I/O.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "AskQuery",
    "AskRequestContext",
    "Checkpoint",
    "CutStream",
    "End",
    "EndError",
    "Exec",
    "ExecAbort",
    "GrpcEnd",
    "Heartbeat",
    "KvRead",
    "KvWrite",
    "Native",
    "Raw",
    "RefuseAppends",
    "RejectRun",
    "Sleep",
    "Step",
    "StepCompleted",
    "StepStarted",
    "Text",
    "Thinking",
    "ThinkingDone",
    "TokenDelta",
    "ToolCall",
    "TurnEnded",
]


@dataclass(frozen=True)
class Text:
    """Stream assistant text (one text_delta)."""

    text: str


@dataclass(frozen=True)
class Thinking:
    """Stream thinking text (one thinking_delta)."""

    text: str


@dataclass(frozen=True)
class ThinkingDone:
    """Send thinking_completed."""


@dataclass(frozen=True)
class ToolCall:
    """An MCP call of the host's tool NAME.

    ``stream`` sends tool_call_started and a partial update of half the
    argument text; ``complete`` sends tool_call_completed; ``exec`` asks for the
    call over the exec channel and waits for the answer (the handoff).
    """

    name: str
    args: dict[str, Any] = field(default_factory=dict)
    call_id: str | None = None
    stream: bool = True
    complete: bool = True
    exec: bool = True
    approval_only: bool = False


@dataclass(frozen=True)
class AskRequestContext:
    """Ask for the request context over exec and record the rules and tools answered."""


@dataclass(frozen=True)
class AskQuery:
    """Send an interaction query and wait for its answer, as the service does.

    MEMBER names the InteractionQuery member (``setup_vm_environment_args``,
    ``web_search_request_query``, ...; ARGS its message, or None for an empty one);
    NUMBER instead sends a member our schema does not know under that field number
    (BODY its bytes). The service waits for the answer with heartbeats alone, BEAT
    seconds apart: a query the client leaves unanswered stalls the run until the
    client gives up (a violation once ``answer_timeout`` passes). The answer is kept
    in ``RunRecord.query_answers``.
    """

    member: str | None = None
    args: Any = None
    number: int | None = None
    body: bytes = b""
    beat: float = 0.05


@dataclass(frozen=True)
class ExecAbort:
    """Send exec_server_control_message{abort{id}}: the service stops the run."""

    ask_id: int = 0


@dataclass(frozen=True)
class KvRead:
    """Ask the client for a blob by id (None: every root prompt blob of the run request)."""

    blob_id: bytes | None = None


@dataclass(frozen=True)
class KvWrite:
    """Hand the client a blob to keep (set_blob_args) and wait for its acknowledgement."""

    data: bytes


@dataclass(frozen=True)
class Exec:
    """Send any exec ask (ExecServerMessage member MEMBER with ARGS) and wait for its answer."""

    member: str
    args: Any = None
    wait: bool = True


@dataclass(frozen=True)
class Native:
    """Ask for one of Cursor's own tools over exec and wait for its typed result.

    MEMBER names the ask (``read_args``, ``ls_args``, ``grep_args``, ``shell_args``,
    ``shell_stream_args``, ``write_args``, ``delete_args``, a ``pi_*_args``); ARGS is
    its message, or a dict of its fields. The result is checked against the member
    the ask must be answered with: a wrong or missing member, a result with no case
    set, or an exec id not copied ends the run with an error in the stream, as the
    service answers a malformed result. A good result is kept in
    ``RunRecord.native_results`` for the script to continue from.
    """

    member: str
    args: Any = None
    # Seconds between server heartbeats sent while the client has not answered (0: none).
    beat: float = 0.0


@dataclass(frozen=True)
class TokenDelta:
    """Send a token_delta of TOKENS."""

    tokens: int


@dataclass(frozen=True)
class StepStarted:
    """Send step_started."""


@dataclass(frozen=True)
class StepCompleted:
    """Send step_completed."""

    step_id: int = 1


@dataclass(frozen=True)
class TurnEnded:
    """Send turn_ended with these counters (input includes cache, as Cursor counts it)."""

    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_write: int = 0
    reasoning: int = 0


@dataclass(frozen=True)
class Checkpoint:
    """Send a conversation checkpoint: STATE bytes, else the run request's state echoed."""

    state: bytes | None = None


@dataclass(frozen=True)
class End:
    """End the stream successfully (end frame ``{}``)."""


@dataclass(frozen=True)
class EndError:
    """End the stream with a Connect error trailer, with an ErrorDetails entry when ERROR is set."""

    code: str
    message: str = ""
    error: int | None = None
    title: str = ""
    detail: str = ""
    retryable: bool = False
    # A detail entry's plain-string ``debug`` and a google.rpc.ErrorInfo (reason, domain).
    debug: str | None = None
    info: tuple[str, str] | None = None


@dataclass(frozen=True)
class CutStream:
    """Cut the connection mid-answer (``reset`` aborts with a TCP reset)."""

    reset: bool = False


@dataclass(frozen=True)
class Sleep:
    """Stay silent for SECONDS (stops early when the client goes away)."""

    seconds: float


@dataclass(frozen=True)
class Raw:
    """Write these bytes onto the stream as they are.

    With ``ends`` they end the stream: the player adds no end frame of its own after
    them (a test writing the end frame, and what follows it, by hand); the steps after
    them still play (a pause, to see what the client sends after the end).
    """

    data: bytes
    ends: bool = False


@dataclass(frozen=True)
class GrpcEnd:
    """End the stream with gRPC trailers and no Connect end frame.

    ``grpc-status`` STATUS and ``grpc-message`` MESSAGE, percent-encoded as gRPC
    carries it: over HTTP/2 a trailing HEADERS frame, over HTTP/1.1 the chunked
    body's trailer section.
    """

    status: int
    message: str = ""


@dataclass(frozen=True)
class Heartbeat:
    """Send COUNT server heartbeats, INTERVAL seconds apart."""

    count: int = 1
    interval: float = 0.0


@dataclass(frozen=True)
class RefuseAppends:
    """Refuse every later append of this run with a Connect error."""

    status: int = 403
    code: str = "permission_denied"
    message: str = "append refused"


@dataclass(frozen=True)
class RejectRun:
    """Answer RunSSE itself with a non-200 Connect error (must be the script's first step)."""

    status: int = 503
    code: str = "unavailable"
    message: str = "the agent service is unavailable"


Step = (
    Text
    | Thinking
    | ThinkingDone
    | ToolCall
    | AskRequestContext
    | AskQuery
    | ExecAbort
    | KvRead
    | KvWrite
    | Exec
    | Native
    | TokenDelta
    | StepStarted
    | StepCompleted
    | TurnEnded
    | Checkpoint
    | End
    | EndError
    | CutStream
    | Sleep
    | Raw
    | GrpcEnd
    | Heartbeat
    | RefuseAppends
    | RejectRun
)
