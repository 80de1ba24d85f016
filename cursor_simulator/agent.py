"""Simulator routes: Cursor's agent service — ``Run`` over HTTP/2, RunSSE, RunPoll, BidiAppend.

A run here behaves as docs/protocol.md §4 and §4b say Cursor's does: over
HTTP/1.1 RunSSE (or RunPoll) opens with a framed request id and streams
``AgentServerMessage`` frames while every client message arrives as its own
``BidiAppend`` numbered from 0; over HTTP/2 one ``Run`` stream carries both
halves. ``AgentService`` checks what it receives (headers, content types, the
seqno order) and answers a violation with a Connect error, recording it in
``records.RunRecord.violations`` so a test can assert there were none.

``AgentService`` is also the service's state: the scripts queued per test with
``AgentService.script`` (the steps of ``steps.py``), every run seen, and the
knobs. Each run's script is played by ``player.Player``; with nothing queued,
``scripted_model.scripted_model``. What is left here is how a played stream
reaches the client: as it is, gzip-compressed, or as RunPoll's poll frames.
"""

from __future__ import annotations

import base64
import gzip
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator

from nodecode_cursor._proto import agent_pb2, aiserver_pb2
from nodecode_cursor.wire import connect

from . import workers
from .accounts import (
    LIMIT_DETAIL,
    LIMIT_ERROR,
    LIMIT_TITLE,
    USAGE_PRICING_DETAIL,
    USAGE_PRICING_ERROR,
    USAGE_PRICING_TITLE,
    SimAccount,
)
from .catalog import CatalogState
from .exchange import SimRequest, SimResponse
from .family import RouteHost, connect_error
from .models import ModelsState
from .player import Player, Script
from .records import AppendRecord, RunRecord
from .scripted_model import MISREAD_IMAGE_BYTES, scripted_model
from .steps import EndError, RejectRun, Step

__all__ = [
    "APPEND_PATH",
    "BIDI_RUN_PATH",
    "POLL_PATH",
    "RUN_PATH",
    "AgentService",
    "install",
]

RUN_PATH = "/agent.v1.AgentService/RunSSE"
POLL_PATH = "/agent.v1.AgentService/RunPoll"
# The HTTP/2 route: one bidi stream carries both halves (h2server.py serves it).
BIDI_RUN_PATH = "/agent.v1.AgentService/Run"
APPEND_PATH = "/aiserver.v1.BidiService/BidiAppend"


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
        # The scripted model misreads an image past this many bytes (None: reads any),
        # as Cursor's models do (scripted_model.MISREAD_IMAGE_BYTES has the source).
        self.misread_images_over: int | None = MISREAD_IMAGE_BYTES
        # End a run whose root_prompt_messages_json holds more blobs than this, as Cursor
        # does: it hydrates a few, then ends with invalid_argument and a checkpoint of
        # used_tokens 0 (lidge-jun/opencodex src/adapters/cursor/protobuf-request.ts,
        # "observed at 208 roots with usedTokens=0"). None: no limit.
        self.root_limit: int | None = 208
        # Record a violation for a run request without AgentRunRequest.mcp_tools (field 4):
        # Cursor's CLI always sends it, even empty, and peers saw the host's tools reported
        # unavailable without it (lidge-jun/opencodex commit 80b510f5; knoxwh/ccextra
        # docs/design.md; docs/protocol.md §5).
        self.require_mcp_tools = True
        # How the model names a host tool it calls: as declared (None), "dash"
        # ({provider}-{name}) or "mcp" (mcp_{provider}_{name}), as peers saw models call
        # the names Cursor shows them (opencodex commit 93408728; ccextra design.md).
        self.render_tool_names: str | None = None
        # How an external model's worker takes a continuation after tool results
        # (workers.py): "opencodex" as lidge-jun/opencodex saw live on 2026-08-20 (MCP or
        # thinking steps in the turns end invalid_argument; a resume ignores the results),
        # "omp" as can1357/oh-my-pi sends (both work). The sources conflict: the stricter
        # is the default, and the tests run the cell against both.
        self.external_continuation = workers.OPENCODEX
        # Refuse a request naming both model_details and requested_model for an external
        # model (invalid_argument before any token), as opencodex reports; oh-my-pi sends
        # both, and the cell does first (docs/protocol.md §7b). Off by default: with it on,
        # every model's first round in every test would pay one refused run.
        self.both_model_fields_refused = False
        # Refuse bare (resource_exhausted, no details, before any token) a run whose
        # root prompt blobs, as tokens (bytes / 4), are past the model's context window,
        # as Cursor does (senpi #996/#1037, PR #1120: "178,626 accumulated tokens on a
        # 1,048,576-token window" was refused). The player hydrates the roots over KV
        # first, as the service must. ``context_windows`` overrides a slug's window.
        self.refuse_past_window = True
        self.context_windows: dict[str, int] = {}
        # Refuse bare a run on a model the account's roster does not list, as Cursor
        # refused a model the plan did not allow (opencodex commit f3a7cd4a: a 20-token
        # prompt refused); the roster is ``roster`` (models.py), set by install.
        self.refuse_unlisted_models = True
        self.roster: ModelsState | None = None
        # The account's pool for third-party models is spent: every model that is not
        # Cursor's own is refused bare while Composer and Auto still answer (the
        # 2026-08-25 incident, senpi #996/#1037). Off unless a test turns it on.
        self.pool_empty = False
        # The size of every root blob a run hydrated, by id: a blob (content-addressed)
        # is asked for once, not again on every round of a long session.
        self.blob_sizes: dict[bytes, int] = {}
        # Answer RunSSE with this (status, code, message) instead of streaming.
        self.sse_refusal: tuple[int, str, str] | None = None
        # Compress the stream's frames (gzip) when the client offers gzip.
        self.compress = False
        # The catalog whose variants refuse_bare_siblings reads (set by install).
        self.catalog: CatalogState | None = None
        # Conversation ids a run has started (user message) or resumed here, each with
        # the email of the simulator account that ran it ("" for the single account).
        self.conversations: set[tuple[str, str]] = set()
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
                run = RunRecord(request_id, misread_images_over=self.misread_images_over)
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
        """Return the streamed answer of RUN: the next script played, as SSE or poll frames.

        A run of an account whose usage limit is reached (``SimAccount.limited``) or
        that needs usage-based pricing (``usage_pricing``) is refused the way Cursor
        refuses it, and the queued script waits for the next run.
        """
        account = self.sim.accounts.of_request(request)
        if account is not None:
            with self.lock:
                account.runs.append(request.headers.get("authorization", ""))
        run.account = account
        steps: Iterable[Step]
        refusal = _account_refusal(account)
        if refusal is not None:
            steps = [refusal]
        else:
            script = self._next_script()
            steps = script(run) if callable(script) else script
        iterator = iter(steps)
        first = next(iterator, None)
        if isinstance(first, RejectRun):
            return connect_error(first.status, first.code, first.message)
        rest = _chain(first, iterator)
        body: Iterable[bytes] = Player(self, run, request).play(rest)
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


def install(
    sim: RouteHost,
    *,
    catalog: CatalogState | None = None,
    roster: ModelsState | None = None,
) -> AgentService:
    """Serve RunSSE, RunPoll and BidiAppend on ``sim``; return the service's state.

    CATALOG, when given, is what ``refuse_bare_siblings`` reads the variants from;
    ROSTER, what ``refuse_unlisted_models`` reads the account's models from.
    """
    service = AgentService(sim)
    service.catalog = catalog
    service.roster = roster
    sim.route(RUN_PATH, service.handle_run)
    sim.route(POLL_PATH, service.handle_poll)
    sim.route(APPEND_PATH, service.handle_append)
    sim.server.h2.route_bidi(BIDI_RUN_PATH, service.handle_bidi)
    return service


def _account_refusal(account: SimAccount | None) -> EndError | None:
    """Return the end frame ACCOUNT's runs are refused with (its switches), or None."""
    if account is None:
        return None
    if account.limited:
        return EndError(
            "resource_exhausted", "Error", error=LIMIT_ERROR, title=LIMIT_TITLE, detail=LIMIT_DETAIL
        )
    if account.usage_pricing:
        return EndError(
            "resource_exhausted",
            "Error",
            error=USAGE_PRICING_ERROR,
            title=USAGE_PRICING_TITLE,
            detail=USAGE_PRICING_DETAIL,
        )
    return None
