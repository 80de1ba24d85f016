"""The steps of a script played onto a run's stream, each checked against the client's answer.

``StepPlayer`` turns each step of a script (``steps.py``) into its Connect
frames: text, thinking, tokens, the turn's end and usage, heartbeats,
checkpoints (kept per conversation, for a resume to name), an MCP tool call
started, streamed, completed and asked over the exec channel (its name rendered
as the service renders it when ``render_tool_names`` says so), Cursor's own
tools asked and their typed results checked, the request context, interaction
queries, key-value reads and writes of blobs (each checked against its hash),
aborts, cuts, raw bytes and gRPC ends. Whatever the client answers wrong is
recorded as a violation on the run (``records.RunRecord``).

Pure play: the frames and waits are ``run_stream.RunStream``'s; which runs are
refused before any step, and the external workers' own continuations, are
``player.Player``'s.
"""

from __future__ import annotations

import base64
import hashlib
import json
import queue
import time
import urllib.parse
from collections.abc import Iterator
from typing import Any

from nodecode_cursor._proto import agent_pb2, aiserver_pb2
from nodecode_cursor.wire import connect, pbwire, values

from .exchange import Cut, Trailers
from .run_stream import GiveUp, RunStream, kv_answer
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

__all__ = ["PROVIDER_IDENTIFIER", "StepPlayer"]


PROVIDER_IDENTIFIER = "pi-agent"


class StepPlayer(RunStream):
    """Plays a script's steps onto the run's stream, checking each answer the client gives."""

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
            self._wait(kv_answer(ask))
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
                raise GiveUp
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
            answer = self._wait(kv_answer(ask)).kv_client_message
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


# The result member each native ask is answered with, where it is not MEMBER's own name
# with _result for _args (the pi_* family is answered one member higher: same name).
_NATIVE_RESULTS = {
    "shell_stream_args": "shell_result",
    "mini_swe_agent_bash_args": "mini_swe_agent_bash_result",
}


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
