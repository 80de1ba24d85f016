"""Simulator routes: Cursor's agent service, ``RunSSE`` + ``BidiAppend``, driven by per-run scripts.

A run here behaves as PROTOCOL.md §4 says Cursor's does: RunSSE opens with a
framed ``BidiRequestId`` and streams ``AgentServerMessage`` frames; every
client message arrives as its own ``BidiAppend`` numbered from 0. The
simulator checks what it receives (headers, content types, the seqno order,
the blobs' SHA-256) and answers a violation with a Connect error, recording it
in ``RunRecord.violations`` so a test can assert there were none.

What a run streams is a script: a sequence of small steps (``Text``,
``Thinking``, ``ToolCall``, ``AskRequestContext``, ``KvRead``, ``TurnEnded``,
``EndError``, ``CutStream``, ...) queued per test with ``sim.agent.script``,
or a generator of steps that may look at the run as it goes. With nothing
queued a run plays ``scripted_model``: a tiny deterministic "model" for tests
and the offline demo. It answers text; when the host offered tools and the
prompt asks for one, it calls it over the exec channel (the handoff); on the
next round it reads the tool's result from the history blobs and answers with
it. Nothing here is Cursor's code or text.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import json
import queue
import re
import threading
import time
import urllib.parse
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from google.protobuf import json_format

from nodecode_cursor import connect, values
from nodecode_cursor._proto import agent_pb2, aiserver_pb2

from .catalog import CatalogState
from .exchange import Cut, SimRequest, SimResponse, Trailers
from .family import RouteHost, connect_error

__all__ = [
    "APPEND_PATH",
    "BIDI_RUN_PATH",
    "POLL_PATH",
    "RUN_PATH",
    "AgentService",
    "AppendRecord",
    "AskRequestContext",
    "Checkpoint",
    "CutStream",
    "End",
    "EndError",
    "Exec",
    "GrpcEnd",
    "Heartbeat",
    "KvRead",
    "KvWrite",
    "Native",
    "Raw",
    "RefuseAppends",
    "RejectRun",
    "RunRecord",
    "Sleep",
    "StepCompleted",
    "StepStarted",
    "Text",
    "Thinking",
    "ThinkingDone",
    "TokenDelta",
    "ToolCall",
    "TurnEnded",
    "handed_off",
    "install",
    "scripted_model",
]

RUN_PATH = "/agent.v1.AgentService/RunSSE"
POLL_PATH = "/agent.v1.AgentService/RunPoll"
# The HTTP/2 route: one bidi stream carries both halves (h2server.py serves it).
BIDI_RUN_PATH = "/agent.v1.AgentService/Run"
APPEND_PATH = "/aiserver.v1.BidiService/BidiAppend"

# What the service answers a run it refuses as a whole (a bare Connect error, no details).
BARE_REFUSAL = {"code": "resource_exhausted", "message": "Error"}
# The simulator's stand-in for a resume of a conversation it has never seen (the real
# service's answer is not public; see docs/protocol.md).
UNKNOWN_CONVERSATION = {"code": "failed_precondition", "message": "unknown conversation"}
PROVIDER_IDENTIFIER = "pi-agent"


# --- the script steps -------------------------------------------------------------


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
Script = Iterable[Step] | Callable[["RunRecord"], Iterable[Step]]


# --- what the simulator records ---------------------------------------------------


@dataclass
class AppendRecord:
    """One accepted BidiAppend: its seqno, headers and decoded AgentClientMessage."""

    seqno: int
    headers: dict[str, str]
    message: agent_pb2.AgentClientMessage


@dataclass
class RunRecord:
    """Everything one run received and did; read it after the round (or under ``lock``)."""

    request_id: str
    headers: dict[str, str] = field(default_factory=dict)
    appends: list[AppendRecord] = field(default_factory=list)
    run_request: agent_pb2.AgentRunRequest | None = None
    rules: list[agent_pb2.CursorRule] = field(default_factory=list)
    tools: list[agent_pb2.McpToolDefinition] = field(default_factory=list)
    served: dict[str, bytes] = field(default_factory=dict)
    answers: dict[int, list[agent_pb2.AgentClientMessage]] = field(default_factory=dict)
    handoffs: list[str] = field(default_factory=list)
    # Each Native step's ask member and the result message it was answered with.
    native_results: list[tuple[str, Any]] = field(default_factory=list)
    usage: list[TurnEnded] = field(default_factory=list)
    heartbeats: int = 0
    after_end: int = 0
    violations: list[str] = field(default_factory=list)
    refusal: RefuseAppends | None = None
    streamed: bool = False
    ended: bool = False
    # "sse" or "poll": which route streams this run (None until one registers it).
    route: str | None = None
    # Appends the service lost because they came before RunSSE registered the run.
    lost_appends: int = 0
    # The run x-original-request-id names (a resume of a broken run), the text the
    # checkpoint it resumes from had already said, and the text this run streamed.
    original: RunRecord | None = None
    resumed_text: str | None = None
    # The streamed text's pieces, joined on reading: a long answer appended to one
    # string would copy all of it per delta.
    text_parts: list[str] = field(default_factory=list, repr=False)
    inbox: queue.Queue[agent_pb2.AgentClientMessage] = field(default_factory=queue.Queue)
    lock: threading.Lock = field(default_factory=threading.Lock)
    next_id: int = 1

    def messages(self) -> list[agent_pb2.AgentClientMessage]:
        """Return the client messages received so far, in seqno order."""
        with self.lock:
            return [a.message for a in self.appends]

    def root_messages(self) -> list[dict[str, Any]]:
        """Return the root prompt messages the client served, parsed, in request order."""
        if self.run_request is None:
            return []
        found = []
        for blob_id in self.run_request.conversation_state.root_prompt_messages_json:
            data = self.served.get(blob_id.hex())
            if data is None:
                continue
            try:
                found.append(json.loads(data))
            except ValueError:
                continue
        return found

    def prompt(self) -> str:
        """Return the text of the run request's user message ('' for a resume)."""
        if self.run_request is None:
            return ""
        action = self.run_request.action
        if action.HasField("user_message_action"):
            return str(action.user_message_action.user_message.text)
        return ""

    @property
    def text(self) -> str:
        """Return the text this run streamed."""
        return "".join(self.text_parts)


class AgentService:
    """The agent service's state: queued scripts, every run seen, and timing knobs."""

    def __init__(self, sim: RouteHost) -> None:
        self.sim = sim
        self.runs: list[RunRecord] = []
        self.by_id: dict[str, RunRecord] = {}
        self.scripts: deque[Script] = deque()
        self.default: Script = scripted_model
        self.lock = threading.Lock()
        # How long a script waits for the client's answer before giving up.
        self.answer_timeout = 30.0
        # A pause between streamed frames, to make a "slow" stream.
        self.frame_delay = 0.0
        # A pause before each append is answered, to make a slow (or timed-out) append.
        self.append_delay = 0.0
        # The model's think time: a pause before a run's first token (text, thinking or a
        # tool call), after the context asks; benchmarks set a realistic one (0.3 s).
        self.first_token_delay = 0.0
        # Lose the appends that reach a run before its RunSSE registered it (a poll run
        # is registered by its first append, as its client sends append 0 first).
        self.drop_early_appends = True
        # Refuse a catalog variant's sibling slug sent with no parameters, as Cursor does.
        self.refuse_bare_siblings = True
        # Refuse a resume action on a conversation no run has started here.
        self.refuse_unknown_resume = True
        # Answer RunSSE with this (status, code, message) instead of streaming.
        self.sse_refusal: tuple[int, str, str] | None = None
        # Compress the stream's frames (gzip) when the client offers gzip.
        self.compress = False
        # The catalog whose variants refuse_bare_siblings reads (set by install).
        self.catalog: CatalogState | None = None
        # Conversation ids a run has started (user message) or resumed here.
        self.conversations: set[str] = set()
        # Per conversation id, every checkpoint sent: (its bytes, the text said up to it).
        self.checkpoints: dict[str, list[tuple[bytes, str]]] = {}

    def script(self, steps: Script) -> None:
        """Queue STEPS (a list of steps or a function of the run) for the next run."""
        with self.lock:
            self.scripts.append(steps if callable(steps) else list(steps))

    def run(self, index: int = -1) -> RunRecord:
        """Return a run seen so far (the last by default)."""
        with self.lock:
            return self.runs[index]

    def violations(self) -> list[str]:
        """Return every protocol violation any run recorded."""
        with self.lock:
            runs = list(self.runs)
        return [v for run in runs for v in run.violations]

    def _record(self, request_id: str) -> RunRecord:
        """Return the run with REQUEST_ID, made on first sight (an append may beat RunSSE)."""
        with self.lock:
            run = self.by_id.get(request_id)
            if run is None:
                run = RunRecord(request_id)
                self.by_id[request_id] = run
                self.runs.append(run)
                limit = self.sim.max_records
                if limit is not None and len(self.runs) > limit:
                    for old in self.runs[: len(self.runs) - limit]:
                        self.by_id.pop(old.request_id, None)
                    del self.runs[: len(self.runs) - limit]
            return run

    def _next_script(self) -> Script:
        with self.lock:
            return self.scripts.popleft() if self.scripts else self.default

    # --- the two routes -----------------------------------------------------------

    def handle_run(self, request: SimRequest) -> SimResponse:
        """Serve RunSSE: check the call, then stream the next script."""
        if request.method != "POST":
            return connect_error(405, "unimplemented", "RunSSE takes POST")
        if self.sse_refusal is not None:
            status, code, message = self.sse_refusal
            return connect_error(status, code, message)
        refused = self.sim.check_bearer(request)
        if refused is not None:
            return refused
        problem = _header_problem(request.headers, "application/connect+proto")
        if problem is None and request.headers.get("x-cursor-streaming") != "true":
            problem = "x-cursor-streaming must be true"
        if problem is not None:
            return connect_error(400, "invalid_argument", problem)
        frames = connect.FrameDecoder().feed(request.body)
        if len(frames) != 1 or frames[0].end_stream:
            return connect_error(400, "invalid_argument", "RunSSE takes one framed BidiRequestId")
        try:
            run_id = aiserver_pb2.BidiRequestId.FromString(frames[0].payload).request_id
        except Exception:
            return connect_error(400, "invalid_argument", "RunSSE body is not a BidiRequestId")
        if not run_id:
            return connect_error(400, "invalid_argument", "RunSSE names no request id")
        if request.headers.get("x-request-id") != run_id:
            return connect_error(400, "invalid_argument", "x-request-id must be the run's id")
        run = self._record(run_id)
        with run.lock:
            if run.streamed:
                return connect_error(409, "already_exists", "this run is already streaming")
            run.streamed = True
            run.route = "sse"
            run.headers = dict(request.headers)
            if self.drop_early_appends and run.appends:
                # The appends came before the run was registered: the service never saw them.
                run.lost_appends = len(run.appends)
                run.violations.append(
                    f"{run.lost_appends} append(s) arrived before RunSSE registered the run"
                )
                run.appends.clear()
                while not run.inbox.empty():
                    run.inbox.get_nowait()
        return self._stream(run, request, poll=False)

    def handle_poll(self, request: SimRequest) -> SimResponse:
        """Serve RunPoll: check the call, then stream the next script as poll frames."""
        if request.method != "POST":
            return connect_error(405, "unimplemented", "RunPoll takes POST")
        refused = self.sim.check_bearer(request)
        if refused is not None:
            return refused
        problem = _header_problem(request.headers, "application/connect+proto")
        if problem is not None:
            return connect_error(400, "invalid_argument", problem)
        frames = connect.FrameDecoder().feed(request.body)
        if len(frames) != 1 or frames[0].end_stream:
            return connect_error(400, "invalid_argument", "RunPoll takes one framed request")
        try:
            run_id = aiserver_pb2.BidiPollRequest.FromString(frames[0].payload).request_id
        except Exception:
            return connect_error(400, "invalid_argument", "RunPoll body is not a BidiPollRequest")
        if not run_id.request_id:
            return connect_error(400, "invalid_argument", "RunPoll names no request id")
        run = self._record(run_id.request_id)
        with run.lock:
            if run.streamed:
                return connect_error(409, "already_exists", "this run is already streaming")
            if not run.appends:
                run.violations.append("RunPoll opened before append 0 was accepted")
            run.streamed = True
            run.route = "poll"
            run.headers = dict(request.headers)
        return self._stream(run, request, poll=True)

    def handle_bidi(self, request: SimRequest) -> tuple[SimResponse, Callable[[bytes], None]]:
        """Serve Run over HTTP/2: the answer, and the sink taking the client's framed messages."""

        def nothing(data: bytes) -> None:
            return None

        if request.method != "POST":
            return connect_error(405, "unimplemented", "Run takes POST"), nothing
        refused = self.sim.check_bearer(request)
        if refused is not None:
            return refused, nothing
        problem = _header_problem(request.headers, "application/connect+proto")
        if problem is None and request.headers.get("te") != "trailers":
            problem = "te must be trailers"
        if problem is not None:
            return connect_error(400, "invalid_argument", problem), nothing
        run = self._record(request.headers["x-request-id"])
        with run.lock:
            if run.streamed:
                return connect_error(
                    409, "already_exists", "this run is already streaming"
                ), nothing
            run.streamed = True
            run.route = "http2"
            run.headers = dict(request.headers)
        decoder = connect.FrameDecoder()

        def sink(data: bytes) -> None:
            # Each Connect frame of the request body is one client message, in order:
            # what a BidiAppend carries over HTTP/1.1, with the seqno implied.
            try:
                frames = decoder.feed(data)
            except Exception as exc:
                run.violations.append(f"the Run body is not Connect frames: {exc}")
                return
            for frame in frames:
                try:
                    message = agent_pb2.AgentClientMessage.FromString(frame.payload)
                except Exception:
                    run.violations.append("a Run body frame is not an AgentClientMessage")
                    continue
                self._take(run, request.headers, message)

        return self._stream(run, request, poll=False), sink

    def _take(
        self, run: RunRecord, headers: dict[str, str], message: agent_pb2.AgentClientMessage
    ) -> None:
        """Record MESSAGE as RUN's next client message and hand it to the script."""
        with run.lock:
            expected = len(run.appends)
            if run.ended:
                run.after_end += 1
            if expected == 0 and not message.HasField("run_request"):
                run.violations.append("append 0 is not the run request")
            run.appends.append(AppendRecord(expected, dict(headers), message))
            if message.HasField("client_heartbeat"):
                run.heartbeats += 1
        run.inbox.put(message)

    def _stream(self, run: RunRecord, request: SimRequest, *, poll: bool) -> SimResponse:
        """Return the streamed answer of RUN: the next script played, as SSE or poll frames."""
        script = self._next_script()
        steps = script(run) if callable(script) else script
        iterator = iter(steps)
        first = next(iterator, None)
        if isinstance(first, RejectRun):
            return connect_error(first.status, first.code, first.message)
        rest = _chain(first, iterator)
        body: Iterable[bytes] = _Player(self, run, request).play(rest)
        headers = {"content-type": "application/connect+proto"}
        if self.compress and "gzip" in request.headers.get("connect-accept-encoding", ""):
            body = _gzipped(body)
            headers["connect-content-encoding"] = "gzip"
        if poll:
            body = _as_poll_frames(body)
        return SimResponse(200, headers, body)

    def handle_append(self, request: SimRequest) -> SimResponse:
        """Serve BidiAppend: check headers and seqno order, hand the message to its run."""
        if request.method != "POST":
            return connect_error(405, "unimplemented", "BidiAppend takes POST")
        refused = self.sim.check_bearer(request)
        if refused is not None:
            return refused
        problem = _header_problem(request.headers, "application/proto")
        if problem is not None:
            return connect_error(400, "invalid_argument", problem)
        try:
            append = aiserver_pb2.BidiAppendRequest.FromString(request.body)
        except Exception:
            return connect_error(400, "invalid_argument", "body is not a BidiAppendRequest")
        run_id = append.request_id.request_id
        if not run_id:
            return connect_error(400, "invalid_argument", "BidiAppend names no request id")
        if append.data:
            return connect_error(
                400, "invalid_argument", "data (hex) is not used; send data_binary"
            )
        if request.headers.get("x-request-id") != run_id:
            return connect_error(400, "invalid_argument", "x-request-id must be the run's id")
        try:
            message = agent_pb2.AgentClientMessage.FromString(append.data_binary)
        except Exception:
            return connect_error(
                400, "invalid_argument", "data_binary is not an AgentClientMessage"
            )
        if self.append_delay:
            time.sleep(self.append_delay)
        run = self._record(run_id)
        with run.lock:
            if run.refusal is not None:
                r = run.refusal
                return connect_error(r.status, r.code, r.message)
            expected = len(run.appends)
            if append.append_seqno != expected:
                what = "duplicate" if append.append_seqno < expected else "gap"
                run.violations.append(
                    f"append seqno {append.append_seqno} ({what}): expected {expected}"
                )
                return connect_error(
                    400,
                    "invalid_argument",
                    f"append seqno {append.append_seqno} out of order: expected {expected}",
                )
            if run.ended:
                # Not a violation by itself: an append already on its way when the
                # end frame left is a race the client cannot see. Tests bound it.
                run.after_end += 1
            if expected == 0 and not message.HasField("run_request"):
                run.violations.append("append 0 is not the run request")
            run.appends.append(AppendRecord(expected, dict(request.headers), message))
            if message.HasField("client_heartbeat"):
                run.heartbeats += 1
        run.inbox.put(message)
        return SimResponse(200, {"content-type": "application/proto"}, b"")


def _chain(first: Step | None, rest: Iterator[Step]) -> Iterator[Step]:
    if first is not None:
        yield first
    yield from rest


def _header_problem(headers: dict[str, str], content_type: str) -> str | None:
    """Return what is wrong with a run call's headers, or None."""
    wanted = {
        "content-type": content_type,
        "x-cursor-client-type": "cli",
        "x-ghost-mode": "true",
        "connect-protocol-version": "1",
    }
    for name, value in wanted.items():
        if headers.get(name) != value:
            return f"{name} must be {value}"
    if not headers.get("x-cursor-client-version"):
        return "x-cursor-client-version is missing"
    if not headers.get("x-request-id"):
        return "x-request-id is missing"
    return None


class _GiveUp(Exception):
    """The client went away (or the server is stopping): stop playing."""


class _Player:
    """Plays one run's script onto its stream, waiting for the client's answers."""

    def __init__(self, service: AgentService, run: RunRecord, request: SimRequest) -> None:
        self.service = service
        self.run = run
        self.request = request

    def play(self, steps: Iterator[Step]) -> Iterator[bytes]:
        """Yield the stream's bytes: wait for the run request, then each step's frames."""
        try:
            first = self._wait(lambda m: True)
            if not first.HasField("run_request"):
                self.run.violations.append("the first client message is not the run request")
            self.run.run_request = first.run_request
            refusal = self._refusal(first.run_request)
            if refusal is not None:
                yield self._end({"error": refusal})
                return
            delay = self.service.first_token_delay
            for step in steps:
                if delay and isinstance(step, (Text, Thinking, ToolCall)):
                    self._sleep(delay)
                    delay = 0.0
                yield from self._step(step)
                if self.run.ended and not isinstance(step, Raw):
                    return
            if not self.run.ended:
                yield self._end({})
        except _GiveUp:
            return

    def _refusal(self, request: agent_pb2.AgentRunRequest) -> dict[str, Any] | None:
        """Return the Connect error the service answers REQUEST with, or None to run it."""
        service = self.service
        original = self.run.headers.get("x-original-request-id")
        if original is not None and original not in service.by_id:
            self.run.violations.append(f"x-original-request-id names no earlier run: {original}")
        conversation = request.conversation_id
        resuming = request.action.HasField("resume_action")
        if original is not None and resuming:
            self._resumed(service, conversation, original, request)
        with service.lock:
            known = conversation in service.conversations
            if not resuming or known or not service.refuse_unknown_resume:
                service.conversations.add(conversation)
        if resuming and not known and service.refuse_unknown_resume:
            return dict(UNKNOWN_CONVERSATION)
        requested = request.requested_model
        bare = service.refuse_bare_siblings and not requested.parameters
        catalog = service.catalog
        if bare and catalog is not None and catalog.variant(requested.model_id) is not None:
            return dict(BARE_REFUSAL)
        return None

    def _resumed(
        self,
        service: AgentService,
        conversation: str,
        original: str,
        request: agent_pb2.AgentRunRequest,
    ) -> None:
        """Note what a resumed run resumes: its first run, and the checkpoint's text."""
        state = request.conversation_state.SerializeToString()
        with service.lock:
            self.run.original = service.by_id.get(original)
            sent = list(service.checkpoints.get(conversation, ()))
        said = next((text for raw, text in reversed(sent) if raw == state), None)
        if said is None:
            self.run.violations.append("a resumed run's state is not a checkpoint sent here")
        self.run.resumed_text = said

    # --- waiting for the client ---------------------------------------------------

    def _alive(self) -> None:
        if self.service.sim.server.stopping or self.request.client_gone():
            raise _GiveUp

    def _wait(
        self, wanted: Callable[[agent_pb2.AgentClientMessage], bool]
    ) -> agent_pb2.AgentClientMessage:
        """Return the next client message WANTED, skipping heartbeats; give up on silence."""
        deadline = time.monotonic() + self.service.answer_timeout
        while time.monotonic() < deadline:
            self._alive()
            try:
                message = self.run.inbox.get(timeout=0.02)
            except queue.Empty:
                continue
            if message.HasField("client_heartbeat"):
                continue
            if wanted(message):
                return message
        self.run.violations.append("the client never answered")
        raise _GiveUp

    def _next_id(self) -> int:
        with self.run.lock:
            value = self.run.next_id
            self.run.next_id += 1
            return value

    def _exec_answer(self, ask_id: int) -> list[agent_pb2.AgentClientMessage]:
        """Wait for the answer to exec ask ASK_ID: its result, or a throw and its close."""
        got: list[agent_pb2.AgentClientMessage] = []

        def ours(message: agent_pb2.AgentClientMessage) -> bool:
            if message.HasField("exec_client_message"):
                return int(message.exec_client_message.id) == ask_id
            if message.HasField("exec_client_control_message"):
                control = message.exec_client_control_message
                inner = control.stream_close if control.HasField("stream_close") else control.throw
                return int(inner.id) == ask_id
            return False

        while True:
            message = self._wait(ours)
            got.append(message)
            if message.HasField("exec_client_message"):
                break
            control = message.exec_client_control_message
            if control.HasField("stream_close"):
                break
        self.run.answers[ask_id] = got
        return got

    # --- frames -------------------------------------------------------------------

    def _frame(self, **member: Any) -> bytes:
        if self.service.frame_delay:
            self._sleep(self.service.frame_delay)
        message = agent_pb2.AgentServerMessage(**member)
        return connect.encode_frame(message.SerializeToString())

    def _update(self, **member: Any) -> bytes:
        return self._frame(interaction_update=agent_pb2.InteractionUpdate(**member))

    def _end(self, trailer: dict[str, Any]) -> bytes:
        with self.run.lock:
            self.run.ended = True
        payload = json.dumps(trailer, separators=(",", ":")).encode()
        return connect.encode_frame(payload, flags=connect.FLAG_END_STREAM)

    def _sleep(self, seconds: float) -> None:
        deadline = time.monotonic() + seconds
        while True:
            self._alive()
            left = deadline - time.monotonic()
            if left <= 0:
                return
            time.sleep(min(left, 0.02))

    # --- one step -----------------------------------------------------------------

    def _step(self, step: Step) -> Iterator[bytes]:
        if isinstance(step, Text):
            self.run.text_parts.append(step.text)
            yield self._update(text_delta=agent_pb2.TextDeltaUpdate(text=step.text))
        elif isinstance(step, Thinking):
            yield self._update(thinking_delta=agent_pb2.ThinkingDeltaUpdate(text=step.text))
        elif isinstance(step, ThinkingDone):
            yield self._update(thinking_completed=agent_pb2.ThinkingCompletedUpdate())
        elif isinstance(step, TokenDelta):
            yield self._update(token_delta=agent_pb2.TokenDeltaUpdate(tokens=step.tokens))
        elif isinstance(step, StepStarted):
            yield self._update(step_started=agent_pb2.StepStartedUpdate())
        elif isinstance(step, StepCompleted):
            yield self._update(step_completed=agent_pb2.StepCompletedUpdate(step_id=step.step_id))
        elif isinstance(step, TurnEnded):
            self.run.usage.append(step)
            yield self._update(
                turn_ended=agent_pb2.TurnEndedUpdate(
                    input_tokens=step.input,
                    output_tokens=step.output,
                    cache_read_tokens=step.cache_read,
                    cache_write_tokens=step.cache_write,
                    reasoning_tokens=step.reasoning,
                )
            )
        elif isinstance(step, Heartbeat):
            for index in range(step.count):
                if index and step.interval:
                    self._sleep(step.interval)
                yield self._update(heartbeat=agent_pb2.HeartbeatUpdate())
        elif isinstance(step, Checkpoint):
            state = self._checkpoint(step)
            if self.run.run_request is not None:
                said = (self.run.resumed_text or "") + self.run.text
                with self.service.lock:
                    sent = self.service.checkpoints.setdefault(
                        self.run.run_request.conversation_id, []
                    )
                    sent.append((state.SerializeToString(), said))
            yield self._frame(conversation_checkpoint_update=state)
        elif isinstance(step, ToolCall):
            yield from self._tool_call(step)
        elif isinstance(step, AskRequestContext):
            yield from self._request_context()
        elif isinstance(step, KvRead):
            yield from self._kv_read(step)
        elif isinstance(step, KvWrite):
            blob_id = hashlib.sha256(step.data).digest()
            ask = self._next_id()
            yield self._frame(
                kv_server_message=agent_pb2.KvServerMessage(
                    id=ask,
                    set_blob_args=agent_pb2.SetBlobArgs(blob_id=blob_id, blob_data=step.data),
                )
            )
            self._wait(_kv_answer(ask))
        elif isinstance(step, Exec):
            ask = self._next_id()
            exec_message = agent_pb2.ExecServerMessage(id=ask, exec_id=f"exec-{ask}")
            getattr(exec_message, step.member).CopyFrom(
                step.args if step.args is not None else type(getattr(exec_message, step.member))()
            )
            yield self._frame(exec_server_message=exec_message)
            if step.wait:
                self._exec_answer(ask)
        elif isinstance(step, Native):
            yield from self._native(step)
        elif isinstance(step, End):
            yield self._end({})
        elif isinstance(step, EndError):
            yield self._end({"error": _error_object(step)})
        elif isinstance(step, CutStream):
            raise Cut(reset=step.reset)
        elif isinstance(step, Sleep):
            self._sleep(step.seconds)
        elif isinstance(step, Raw):
            if step.ends:
                with self.run.lock:
                    self.run.ended = True
            yield step.data
        elif isinstance(step, GrpcEnd):
            with self.run.lock:
                self.run.ended = True
            trailers = {"grpc-status": str(step.status)}
            if step.message:
                trailers["grpc-message"] = urllib.parse.quote(step.message, safe="")
            raise Trailers(trailers)
        elif isinstance(step, RefuseAppends):
            with self.run.lock:
                self.run.refusal = step
        elif isinstance(step, RejectRun):
            self.run.violations.append("RejectRun must be the script's first step")
        else:  # pragma: no cover - the Step union is closed
            raise TypeError(f"unknown script step {step!r}")

    def _checkpoint(self, step: Checkpoint) -> agent_pb2.ConversationStateStructure:
        state = agent_pb2.ConversationStateStructure()
        if step.state is not None:
            state.ParseFromString(step.state)
        elif self.run.run_request is not None:
            state.CopyFrom(self.run.run_request.conversation_state)
            state.token_details.used_tokens = 100
            state.token_details.max_tokens = 200_000
        return state

    def _tool_call(self, step: ToolCall) -> Iterator[bytes]:
        call_id = step.call_id or f"call_sim_{self._next_id()}"
        bare = agent_pb2.McpArgs(
            name=step.name,
            tool_name=step.name,
            tool_call_id=call_id,
            provider_identifier=PROVIDER_IDENTIFIER,
        )
        full = agent_pb2.McpArgs()
        full.CopyFrom(bare)
        for key, value in step.args.items():
            full.args[key] = values.encode_value(value)
        if step.approval_only:
            full.smart_mode_approval_only = True

        def tool_call(args: agent_pb2.McpArgs) -> agent_pb2.ToolCall:
            return agent_pb2.ToolCall(
                mcp_tool_call=agent_pb2.McpToolCall(args=args), tool_call_id=call_id
            )

        if step.stream:
            yield self._update(
                tool_call_started=agent_pb2.ToolCallStartedUpdate(
                    call_id=call_id, tool_call=tool_call(bare)
                )
            )
            text = json.dumps(step.args, separators=(",", ":"))
            half = text[: len(text) // 2]
            for cumulative in (half, text) if step.complete else (half,):
                yield self._update(
                    partial_tool_call=agent_pb2.PartialToolCallUpdate(
                        call_id=call_id, tool_call=tool_call(bare), args_text_delta=cumulative
                    )
                )
        if step.complete:
            yield self._update(
                tool_call_completed=agent_pb2.ToolCallCompletedUpdate(
                    call_id=call_id, tool_call=tool_call(full)
                )
            )
        if step.exec:
            ask = self._next_id()
            yield self._frame(
                exec_server_message=agent_pb2.ExecServerMessage(
                    id=ask, exec_id=f"exec-{ask}", mcp_args=full
                )
            )
            answer = self._exec_answer(ask)[-1]
            result = answer.exec_client_message
            if not result.HasField("mcp_result"):
                self.run.violations.append(f"the MCP ask {ask} was not answered with an mcp_result")
            elif result.exec_id != f"exec-{ask}":
                self.run.violations.append(f"the MCP answer {ask} did not copy the exec id")
            elif result.mcp_result.HasField("success") and not step.approval_only:
                self.run.handoffs.append(call_id)

    def _native(self, step: Native) -> Iterator[bytes]:
        ask = self._next_id()
        exec_message = agent_pb2.ExecServerMessage(id=ask, exec_id=f"exec-{ask}")
        member = getattr(exec_message, step.member)
        if isinstance(step.args, dict):
            member.SetInParent()
            for key, value in step.args.items():
                if isinstance(value, list):
                    getattr(member, key).extend(value)
                else:
                    setattr(member, key, value)
        elif step.args is not None:
            member.CopyFrom(step.args)
        else:
            member.SetInParent()
        yield self._frame(exec_server_message=exec_message)
        if step.beat > 0:
            # The service waits for the tool; its heartbeats say it is still there.
            deadline = time.monotonic() + self.service.answer_timeout
            while self.run.inbox.empty() and time.monotonic() < deadline:
                self._sleep(step.beat)
                yield self._update(heartbeat=agent_pb2.HeartbeatUpdate())
        problem, result = self._native_result(ask, step.member)
        if problem is not None:
            self.run.violations.append(f"native ask {ask} ({step.member}): {problem}")
            yield self._end({"error": {"code": "invalid_argument", "message": problem}})
            return
        self.run.native_results.append((step.member, result))

    def _native_result(self, ask: int, member: str) -> tuple[str | None, Any]:
        """Return (what is wrong with the answer to native ASK or None, its result message)."""
        expected = _NATIVE_RESULTS.get(member, member.replace("_args", "_result"))
        streaming = member == "shell_stream_args"
        final: Any = None
        while True:
            answer = self._exec_answer(ask)
            last = answer[-1]
            for message in answer:
                control = message.exec_client_control_message
                if message.HasField("exec_client_control_message") and control.HasField("throw"):
                    return f"answered with a throw: {control.throw.error}", None
            if last.HasField("exec_client_control_message"):
                if streaming and final is not None:
                    return None, final
                return "the exec stream closed without a result", None
            reply = last.exec_client_message
            if reply.exec_id != f"exec-{ask}":
                return "the answer did not copy the exec id", None
            got = reply.WhichOneof("message")
            if streaming and got == "shell_stream":
                continue
            if got != expected:
                return f"answered with {got}, not {expected}", None
            result = getattr(reply, got)
            if result.WhichOneof("result") is None:
                return f"{got} has no result case set", None
            if not streaming:
                return None, result
            final = result

    def _request_context(self) -> Iterator[bytes]:
        ask = self._next_id()
        yield self._frame(
            exec_server_message=agent_pb2.ExecServerMessage(
                id=ask, exec_id=f"exec-{ask}", request_context_args=agent_pb2.RequestContextArgs()
            )
        )
        answer = self._exec_answer(ask)[-1]
        result = answer.exec_client_message
        if not result.HasField("request_context_result") or not (
            result.request_context_result.HasField("success")
        ):
            self.run.violations.append("the request context was not answered with a success")
            return
        context = result.request_context_result.success.request_context
        self.run.rules = list(context.rules)
        self.run.tools = list(context.tools)

    def _kv_read(self, step: KvRead) -> Iterator[bytes]:
        if step.blob_id is not None:
            wanted = [step.blob_id]
        elif self.run.run_request is not None:
            wanted = list(self.run.run_request.conversation_state.root_prompt_messages_json)
        else:
            wanted = []
        for blob_id in wanted:
            ask = self._next_id()
            yield self._frame(
                kv_server_message=agent_pb2.KvServerMessage(
                    id=ask, get_blob_args=agent_pb2.GetBlobArgs(blob_id=blob_id)
                )
            )
            answer = self._wait(_kv_answer(ask)).kv_client_message
            if not answer.HasField("get_blob_result"):
                self.run.violations.append(f"kv ask {ask} was not answered with a get_blob_result")
                continue
            data = bytes(answer.get_blob_result.blob_data)
            if not answer.get_blob_result.HasField("blob_data"):
                self.run.violations.append(f"the client does not hold blob {blob_id.hex()}")
                continue
            if hashlib.sha256(data).digest() != blob_id:
                self.run.violations.append(f"blob {blob_id.hex()} does not hash to its id")
                continue
            self.run.served[blob_id.hex()] = data


def _gzipped(frames: Iterable[bytes]) -> Iterator[bytes]:
    """Yield FRAMES with every data frame's payload gzip-compressed (flag 0x01)."""
    decoder = connect.FrameDecoder()
    for chunk in frames:
        for frame in decoder.feed(chunk):
            if frame.end_stream:
                yield connect.encode_frame(frame.payload, flags=frame.flags)
            else:
                packed = gzip.compress(frame.payload, mtime=0)
                yield connect.encode_frame(packed, flags=connect.FLAG_COMPRESSED)


def _as_poll_frames(frames: Iterable[bytes]) -> Iterator[bytes]:
    """Yield FRAMES as RunPoll sends them: each message base64 in a numbered poll frame.

    Data frames become ``BidiPollResponse{seqno, data}`` (seqno from 0, +1 each);
    the end frame is preceded by one ``{seqno, eof: true}`` and passes as it is.
    """
    decoder = connect.FrameDecoder()
    seqno = 0
    for chunk in frames:
        for frame in decoder.feed(chunk):
            if frame.end_stream:
                eof = aiserver_pb2.BidiPollResponse(seqno=seqno, eof=True)
                yield connect.encode_frame(eof.SerializeToString())
                yield connect.encode_frame(frame.payload, flags=frame.flags)
                return
            payload = frame.payload
            if frame.flags & connect.FLAG_COMPRESSED:
                payload = gzip.decompress(payload)
            data = base64.b64encode(payload).decode()
            message = aiserver_pb2.BidiPollResponse(seqno=seqno, data=data)
            yield connect.encode_frame(message.SerializeToString())
            seqno += 1


# The result member each native ask is answered with, where it is not MEMBER's own name
# with _result for _args (the pi_* family is answered one member higher: same name).
_NATIVE_RESULTS = {
    "shell_stream_args": "shell_result",
    "mini_swe_agent_bash_args": "mini_swe_agent_bash_result",
}


def _kv_answer(ask: int) -> Callable[[agent_pb2.AgentClientMessage], bool]:
    """Return a test for the client's answer to kv ask ASK."""

    def wanted(message: agent_pb2.AgentClientMessage) -> bool:
        return message.HasField("kv_client_message") and int(message.kv_client_message.id) == ask

    return wanted


def _error_object(step: EndError) -> dict[str, Any]:
    """Return the Connect error object of an EndError step."""
    error: dict[str, Any] = {"code": step.code, "message": step.message}
    if step.error is not None:
        details = aiserver_pb2.ErrorDetails(error=step.error)  # type: ignore[arg-type]
        details.details.title = step.title
        details.details.detail = step.detail
        details.details.is_retryable = step.retryable
        value = base64.b64encode(details.SerializeToString()).decode().rstrip("=")
        entry: dict[str, Any] = {"type": "aiserver.v1.ErrorDetails", "value": value}
        if step.debug is not None:
            entry["debug"] = step.debug
        error["details"] = [entry]
    elif step.debug is not None:
        error["details"] = [{"type": "aiserver.v1.ErrorDetails", "value": "", "debug": step.debug}]
    if step.info is not None:
        reason, domain = step.info
        # google.rpc.ErrorInfo{1 reason, 2 domain}, written by hand: our proto lacks it.
        raw = _text_field(1, reason) + _text_field(2, domain)
        value = base64.b64encode(raw).decode().rstrip("=")
        error.setdefault("details", []).append({"type": "google.rpc.ErrorInfo", "value": value})
    return error


def _text_field(number: int, text: str) -> bytes:
    """Return a protobuf string field NUMBER holding TEXT (short texts only)."""
    data = text.encode()
    if len(data) > 127:
        raise ValueError("only short texts are written by hand")
    return bytes([number << 3 | 2, len(data)]) + data


# --- the scripted model -----------------------------------------------------------

_TOOL_WORDS = ("use a tool", "use the tool", "call", "list", "read", "run")


def _tool_schema(tool: agent_pb2.McpToolDefinition) -> dict[str, Any]:
    try:
        schema = values.decode_value(bytes(tool.input_schema))
    except Exception:
        return {}
    return schema if isinstance(schema, dict) else {}


def _pick_tool(prompt: str, tools: list[agent_pb2.McpToolDefinition]) -> str | None:
    """Return the tool the prompt asks for: one it names, else one a verb of it suggests."""
    lower = prompt.lower()
    names = [t.tool_name or t.name for t in tools]
    for name in names:
        if re.search(rf"\b{re.escape(name.lower())}\b", lower):
            return name
    if not any(word in lower for word in _TOOL_WORDS):
        return None
    for verb in ("list", "read", "run"):
        if verb in lower:
            for name in names:
                if verb in name.lower() or (verb == "list" and name.lower() == "ls"):
                    return name
    return names[0] if names else None


def _arguments(prompt: str, schema: dict[str, Any]) -> dict[str, Any]:
    """Return arguments for a call: a JSON object in the prompt, else ones made from the schema."""
    match = re.search(r"\{.*\}", prompt, re.S)
    if match:
        try:
            parsed = json.loads(match.group(0))
        except ValueError:
            parsed = None
        if isinstance(parsed, dict):
            return parsed
    properties = schema.get("properties")
    required = schema.get("required")
    if not isinstance(properties, dict) or not isinstance(required, list):
        return {}
    args: dict[str, Any] = {}
    for name in required:
        spec = properties.get(name)
        kind = spec.get("type") if isinstance(spec, dict) else None
        if kind in ("integer", "number"):
            args[name] = 1
        elif kind == "boolean":
            args[name] = False
        elif any(word in str(name).lower() for word in ("path", "dir", "file")):
            args[name] = "."
        else:
            args[name] = prompt
    return args


def _tool_result(history: list[dict[str, Any]]) -> tuple[str, str] | None:
    """Return (tool name, result text) of the tool result the history ends on, else None.

    A model reads its whole history: results it has not reported yet are the ones
    after its last word, whether the run resumed or started with a new message.
    """
    for message in reversed(history):
        if message.get("role") != "tool":
            return None
        for part in reversed(message.get("content") or []):
            if isinstance(part, dict) and part.get("type") == "tool-result":
                result = part.get("result")
                text = result if isinstance(result, str) else json.dumps(result)
                return (str(part.get("toolName") or "the tool"), text)
    return None


# "native KIND": the exec ask each kind of the scripted model's own tools is asked as.
_NATIVE_ASKS = {
    "read": "read_args",
    "ls": "ls_args",
    "grep": "grep_args",
    "glob": "pi_find_args",
    "shell": "shell_args",
    "shell-stream": "shell_stream_args",
    "write": "write_args",
    "edit": "pi_edit_args",
    "delete": "delete_args",
}


def _native_ask(prompt: str) -> tuple[str, Native] | None:
    """Return (kind, step) when PROMPT is ``native KIND {json arguments}``, else None."""
    match = re.match(r"\s*native\s+([a-z-]+)\s*(\{.*\})?\s*$", prompt, re.S)
    if match is None or match.group(1) not in _NATIVE_ASKS:
        return None
    kind = match.group(1)
    try:
        args = json.loads(match.group(2) or "{}")
    except ValueError:
        return None
    if not isinstance(args, dict):
        return None
    if kind == "edit":
        replacement = agent_pb2.PiEditReplacement(
            old_text=str(args.get("old", "")), new_text=str(args.get("new", ""))
        )
        args = {"path": str(args.get("path", "")), "edits": [replacement]}
    elif kind == "write" and "content" in args:
        args = {"path": str(args.get("path", "")), "file_text": str(args["content"])}
    return kind, Native(_NATIVE_ASKS[kind], args)


def handed_off(run: RunRecord) -> bool:
    """Return whether the last native ask was answered by telling the model to end its turn.

    A client that hands Cursor's own tool to a tool of its own answers the ask as
    refused with a text saying so; the model, as Cursor's do, ends its turn.
    """
    if not run.native_results:
        return False
    _, result = run.native_results[-1]
    said = json.dumps(json_format.MessageToDict(result)).lower()
    return "end your turn" in said or "end the turn" in said


def _native_summary(run: RunRecord) -> str:
    """Return the last native result as compact JSON (its case and fields)."""
    if not run.native_results:
        return "nothing"
    _, result = run.native_results[-1]
    return json.dumps(json_format.MessageToDict(result), separators=(",", ":"), sort_keys=True)


def _estimate(text: str) -> int:
    return max(1, len(text) // 4)


def _unsaid(reply: str, said: str) -> str:
    """Return what of REPLY is left to say after SAID (all of it when SAID is not its start)."""
    return reply[len(said) :] if reply.startswith(said) else reply


def scripted_model(run: RunRecord) -> Iterator[Step]:
    """Play the demo "model": ask for context, read the history, answer or call a tool."""
    yield AskRequestContext()
    yield KvRead()
    history = run.root_messages()
    # A run resuming a broken one answers its first run's prompt, from where the
    # checkpoint it resumes from had got to (the text said before it is not said again).
    prompt = run.prompt() or (run.original.prompt() if run.original is not None else "")
    said = run.resumed_text or ""
    reading = json.dumps(history) + prompt
    yield StepStarted()
    tool = _pick_tool(prompt, run.tools) if prompt and run.tools else None
    # A result the history ends on is answered unless the new message asks for a tool.
    result = _tool_result(history) if tool is None else None
    native = _native_ask(prompt)
    if native is not None:
        # "native KIND {json}": one of Cursor's own tools over exec, then report its result.
        kind, step = native
        yield Thinking(f"This needs my own {kind} tool.")
        yield ThinkingDone()
        yield step
        if run.ended:
            return
        if handed_off(run):
            reply = ""  # told to end its turn: the client runs the call, as for an MCP handoff
        else:
            reply = f"{kind} gave: {_native_summary(run)}"
            yield Text(reply)
    elif result is not None:
        name, text = result
        reply = f"{name} returned: {text}"
        if not said:
            yield Thinking(f"The result of {name} is in the history; reporting it.")
            yield ThinkingDone()
        yield Text(_unsaid(reply, said))
    elif tool is not None:
        schema = next((_tool_schema(t) for t in run.tools if (t.tool_name or t.name) == tool), {})
        yield Thinking(f"The request needs the tool {tool}; calling it.")
        yield ThinkingDone()
        yield ToolCall(tool, _arguments(prompt, schema))
        reply = ""
    else:
        reply = f"Simulated Cursor here. You said: {prompt}" if prompt else "Nothing to add."
        yield Text(_unsaid(reply, said))
    yield StepCompleted()
    yield TurnEnded(input=_estimate(reading), output=_estimate(reply) + 8)
    yield Checkpoint()
    yield End()


def install(sim: RouteHost, *, catalog: CatalogState | None = None) -> AgentService:
    """Serve RunSSE, RunPoll and BidiAppend on ``sim``; return the service's state.

    CATALOG, when given, is what ``refuse_bare_siblings`` reads the variants from.
    """
    service = AgentService(sim)
    service.catalog = catalog
    sim.route(RUN_PATH, service.handle_run)
    sim.route(POLL_PATH, service.handle_poll)
    sim.route(APPEND_PATH, service.handle_append)
    sim.server.h2.route_bidi(BIDI_RUN_PATH, service.handle_bidi)
    return service
