"""The player of the simulated agent service: plays one run's script onto its stream.

``Player`` waits for the run request, refuses what the service refuses as a
whole (the resume of a conversation it never saw, a catalog variant's bare
sibling slug, both model fields when ``both_model_fields_refused``, a model the
roster does not list or, while the third-party pool is spent, any model not Cursor's
own, and after hydrating the root blobs over KV a history past the model's context
window; a simulator account's own roster, spent pool and conversation ids are its own),
lets an external worker refuse or ignore a continuation as
``external_continuation`` says (``workers.py``), then turns each step of the script
(``steps.py``) into Connect frames, waiting for the client's answer wherever a
step asks something, and records what it saw on the run (``records.RunRecord``).
It sees the agent service through ``PlayerHost`` — the knobs and what every run shares — so it
never imports ``agent.py``, which starts it; how its frames reach the client
(SSE, poll frames, HTTP/2, gzip) is the routes' business.
"""

from __future__ import annotations

import base64
import hashlib
import json
import queue
import threading
import time
import urllib.parse
from collections.abc import Callable, Generator, Iterable, Iterator
from typing import Any, Protocol

from nodecode_cursor._proto import agent_pb2, aiserver_pb2
from nodecode_cursor.wire import connect, pbwire, values

from . import plan, workers
from .catalog import CatalogState
from .exchange import Cut, SimRequest, Trailers
from .family import RouteHost
from .models import ModelsState
from .records import RunRecord
from .steps import (
    AskQuery,
    AskRequestContext,
    Checkpoint,
    CutStream,
    End,
    EndError,
    Exec,
    ExecAbort,
    GrpcEnd,
    Heartbeat,
    KvRead,
    KvWrite,
    Native,
    Raw,
    RefuseAppends,
    RejectRun,
    Sleep,
    Step,
    StepCompleted,
    StepStarted,
    Text,
    Thinking,
    ThinkingDone,
    TokenDelta,
    ToolCall,
    TurnEnded,
)

__all__ = [
    "BARE_REFUSAL",
    "PROVIDER_IDENTIFIER",
    "ROOT_LIMIT_REFUSAL",
    "UNKNOWN_CONVERSATION",
    "Player",
    "PlayerHost",
    "Script",
]

# What the service answers a run it refuses as a whole (a bare Connect error, no details).
BARE_REFUSAL = {"code": "resource_exhausted", "message": "Error"}
# The simulator's stand-in for a resume of a conversation it has never seen (the real
# service's answer is not public; see docs/protocol.md).
UNKNOWN_CONVERSATION = {"code": "failed_precondition", "message": "unknown conversation"}
PROVIDER_IDENTIFIER = "pi-agent"
# What the service ends a run over the root limit with (its words are not public; the
# code and the empty token count are what peers saw).
ROOT_LIMIT_REFUSAL = {"code": "invalid_argument", "message": "Error"}

# What a test queues for a run: its steps, or a function of the run yielding them.
Script = Iterable[Step] | Callable[["RunRecord"], Iterable[Step]]


class PlayerHost(Protocol):
    """The agent service as a player sees it: its knobs, and what every run shares."""

    sim: RouteHost
    lock: threading.Lock
    by_id: dict[str, RunRecord]
    conversations: set[tuple[str, str]]
    checkpoints: dict[str, list[tuple[bytes, str]]]
    catalog: CatalogState | None
    roster: ModelsState | None
    blob_sizes: dict[bytes, int]
    context_windows: dict[str, int]
    answer_timeout: float
    frame_delay: float
    first_token_delay: float
    refuse_unknown_resume: bool
    refuse_bare_siblings: bool
    root_limit: int | None
    require_mcp_tools: bool
    render_tool_names: str | None
    external_continuation: str
    both_model_fields_refused: bool
    refuse_past_window: bool
    refuse_unlisted_models: bool
    pool_empty: bool


class _GiveUp(Exception):
    """The client went away (or the server is stopping): stop playing."""


class Player:
    """Plays one run's script onto its stream, waiting for the client's answers."""

    def __init__(self, service: PlayerHost, run: RunRecord, request: SimRequest) -> None:
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
            if self.service.require_mcp_tools and not first.run_request.HasField("mcp_tools"):
                self.run.violations.append("the run request does not declare mcp_tools (field 4)")
            refusal = self._refusal(first.run_request)
            if refusal is None:
                refusal = yield from self._window_refusal(first.run_request)
            if refusal is not None:
                yield self._end({"error": refusal})
                return
            if self._over_root_limit(first.run_request):
                yield from self._late_refusal(first.run_request)
                return
            worker = yield from self._worker(first.run_request)
            if worker is not None:
                steps = iter(worker)
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
        # A conversation id is known only on the account that ran it (opencodex #2568).
        account = self.run.account
        owned = (account.email if account is not None else "", conversation)
        with service.lock:
            known = owned in service.conversations
            if not resuming or known or not service.refuse_unknown_resume:
                service.conversations.add(owned)
        if resuming and not known and service.refuse_unknown_resume:
            return dict(UNKNOWN_CONVERSATION)
        requested = request.requested_model
        bare = service.refuse_bare_siblings and not requested.parameters
        catalog = service.catalog
        if bare and catalog is not None and catalog.variant(requested.model_id) is not None:
            return dict(BARE_REFUSAL)
        if (
            service.both_model_fields_refused
            and request.HasField("model_details")
            and workers.is_external(requested.model_id)
        ):
            code, message = workers.REFUSED_FIELDS
            return {"code": code, "message": message}
        slugs = _slugs(request)
        roster = service.roster
        own_roster = account.lists(*slugs) if account is not None else None
        if own_roster is not None:
            unlisted = own_roster is False  # the account's own roster, not the simulator's
        else:
            unlisted = roster is not None and roster.lists(*slugs) is False
        if slugs and service.refuse_unlisted_models and unlisted:
            return dict(BARE_REFUSAL)
        spent = service.pool_empty or (account is not None and account.pool_empty)
        if slugs and spent and not any(plan.cursor_own(s) for s in slugs):
            return dict(BARE_REFUSAL)
        return None

    def _over_root_limit(self, request: agent_pb2.AgentRunRequest) -> bool:
        """Return whether REQUEST names more root blobs than the service takes."""
        limit = self.service.root_limit
        roots = request.conversation_state.root_prompt_messages_json
        return limit is not None and len(roots) > limit

    def _late_refusal(self, request: agent_pb2.AgentRunRequest) -> Iterator[bytes]:
        """Yield what the service answers a run over the root limit: late, after hydrating.

        It asks for a few of the roots over KV (as a model reading its history does),
        sends a checkpoint whose token count is 0, then ends with invalid_argument.
        """
        roots = list(request.conversation_state.root_prompt_messages_json)
        for blob_id in roots[:3]:
            yield from self._kv_read(KvRead(blob_id=bytes(blob_id)))
        state = agent_pb2.ConversationStateStructure()
        state.CopyFrom(request.conversation_state)
        state.token_details.used_tokens = 0
        yield from self._step(Checkpoint(state=state.SerializeToString()))
        yield self._end({"error": dict(ROOT_LIMIT_REFUSAL)})

    def _worker(
        self, request: agent_pb2.AgentRunRequest
    ) -> Generator[bytes, None, list[Step] | None]:
        """Yield the KV asks an external worker reads the turns with; return steps of its own.

        Under ``external_continuation = "opencodex"`` an external model's worker
        refuses turns with an MCP call or thinking step (``step_completed``, then
        ``invalid_argument``) and, resumed after tool results, asks again for the
        call they answer. None: the script plays as queued.
        """
        if self.service.external_continuation != workers.OPENCODEX or not workers.is_external(
            request.requested_model.model_id
        ):
            return None
        if request.action.HasField("resume_action"):
            yield from self._kv_read(KvRead())
            call = workers.last_finished_call(self.run.root_messages())
            if call is not None:
                return workers.repeat_call(*call)
        turns = [bytes(turn) for turn in request.conversation_state.turns]
        for turn in turns:
            yield from self._kv_read(KvRead(turn))
        steps = [step for turn in turns for step in workers.step_ids(self._served(turn))]
        for step in steps:
            yield from self._kv_read(KvRead(step))
        if workers.refused_turn_steps([self._served(step) for step in steps]):
            return workers.refused(workers.REFUSED_TURNS, step_first=True)
        return None

    def _served(self, blob_id: bytes) -> bytes:
        """Return the blob the client served for BLOB_ID (empty when it did not)."""
        return self.run.served.get(blob_id.hex(), b"")

    def _window_refusal(
        self, request: agent_pb2.AgentRunRequest
    ) -> Generator[bytes, None, dict[str, Any] | None]:
        """Yield the KV asks that hydrate REQUEST's roots; return the refusal when past the window.

        Only a run on a model whose window is known is measured; a blob the client
        does not hold counts as empty. The asks take ids of their own, so the exec
        ids a script's steps get stay as they were.
        """
        service = self.service
        slugs = _slugs(request)
        given = service.context_windows
        known = next((given[s] for s in slugs if s in given), None)
        window = known if known is not None else plan.context_window(*slugs)
        roots = list(request.conversation_state.root_prompt_messages_json)
        if not service.refuse_past_window or window is None or not roots:
            return None
        with service.lock:
            missing = [bytes(b) for b in dict.fromkeys(roots) if bytes(b) not in service.blob_sizes]
        for index, blob_id in enumerate(missing):
            ask = _HYDRATE_IDS + index
            yield self._frame(
                kv_server_message=agent_pb2.KvServerMessage(
                    id=ask, get_blob_args=agent_pb2.GetBlobArgs(blob_id=blob_id)
                )
            )
            answer = self._wait(_kv_answer(ask)).kv_client_message
            data = bytes(answer.get_blob_result.blob_data)
            if answer.HasField("get_blob_result") and hashlib.sha256(data).digest() == blob_id:
                with service.lock:
                    service.blob_sizes[blob_id] = len(data)
        with service.lock:
            size = sum(service.blob_sizes.get(bytes(b), 0) for b in roots)
        self.run.root_tokens = size // 4
        return dict(BARE_REFUSAL) if size // 4 > window else None

    def _resumed(
        self,
        service: PlayerHost,
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
                message = self.run.inbox.get(timeout=self.request.poll_seconds)
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
        """Wait SECONDS, giving up as soon as the client leaves or the server stops."""
        deadline = time.monotonic() + seconds
        while True:
            self._alive()
            left = deadline - time.monotonic()
            if left <= 0:
                return
            # Woken when an HTTP/2 client leaves (its stream's end, or the connection's
            # when the server stops); over HTTP/1.1 a short sleep, then a look.
            if self.request.wait_gone(left):
                raise _GiveUp

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
        elif isinstance(step, AskQuery):
            yield from self._query(step)
        elif isinstance(step, ExecAbort):
            abort = agent_pb2.ExecServerControlMessage(
                abort=agent_pb2.ExecServerAbort(id=step.ask_id)
            )
            yield self._frame(exec_server_control_message=abort)
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

    def _tool_name(self, name: str) -> str:
        """Return NAME as the model calls it: as declared, or rendered as the service shows it."""
        style = self.service.render_tool_names
        if style is None:
            return name
        request = self.run.run_request
        declared = list(request.mcp_tools.mcp_tools) if request is not None else []
        provider = next(
            (t.provider_identifier for t in declared + self.run.tools if t.name == name),
            PROVIDER_IDENTIFIER,
        )
        return f"{provider}-{name}" if style == "dash" else f"mcp_{provider}_{name}"

    def _tool_call(self, step: ToolCall) -> Iterator[bytes]:
        call_id = step.call_id or f"call_sim_{self._next_id()}"
        name = self._tool_name(step.name)
        self.run.called.append(name)
        bare = agent_pb2.McpArgs(
            name=name,
            tool_name=name,
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

    def _query(self, step: AskQuery) -> Iterator[bytes]:
        """Send STEP's interaction query, then wait for its answer with heartbeats alone."""
        ask = self._next_id()
        if step.number is not None:
            # A member our schema does not know, written by hand: InteractionQuery{1 id,
            # NUMBER body}, as AgentServerMessage field 7.
            tag = pbwire.varint(step.number << 3 | 2)
            inner = b"\x08" + pbwire.varint(ask) + pbwire.field(tag, step.body)
            data = pbwire.field(b"\x3a", inner)
            yield connect.encode_frame(data)
        else:
            query = agent_pb2.InteractionQuery(id=ask)
            if step.member is not None:
                member = getattr(query, step.member)
                if step.args is not None:
                    member.CopyFrom(step.args)
                member.SetInParent()
            yield self._frame(interaction_query=query)

        def ours(message: agent_pb2.AgentClientMessage) -> bool:
            return message.HasField("interaction_response") and (
                int(message.interaction_response.id) == ask
            )

        # The service's agent waits for the answer; only heartbeats say it is there.
        deadline = time.monotonic() + self.service.answer_timeout
        beat_at = time.monotonic() + step.beat
        while True:
            self._alive()
            now = time.monotonic()
            if now >= deadline:
                self.run.violations.append(f"interaction query {ask} was never answered")
                raise _GiveUp
            if now >= beat_at:
                beat_at = now + step.beat
                yield self._update(heartbeat=agent_pb2.HeartbeatUpdate())
            try:
                message = self.run.inbox.get(timeout=max(0.001, min(beat_at, deadline) - now))
            except queue.Empty:
                continue
            if ours(message):
                self.run.query_answers.append(message.interaction_response)
                return

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


# The KV ask ids a run's hydration of its roots takes: far above the ids its script's
# asks count up from, so those stay as they were before hydration existed.
_HYDRATE_IDS = 1 << 30


def _slugs(request: agent_pb2.AgentRunRequest) -> list[str]:
    """Return the model ids REQUEST names: ModelDetails' slug, then RequestedModel's id."""
    found = (request.model_details.model_id, request.requested_model.model_id)
    return [slug for slug in dict.fromkeys(found) if slug]


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
