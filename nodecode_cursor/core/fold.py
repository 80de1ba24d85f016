"""Fold one run's server messages into the round's chat-completions assistant message.

``Fold.feed`` takes every ``AgentServerMessage`` of the stream in order and
returns the stream parts it produced (the caller shows them to the host), and
keeps: the text and the thinking, the
host's tool calls (MCP calls, variant 15 of ``ToolCall``) with their arguments
(carried whole by ``tool_call_started``, streamed as cumulative snapshots, laid
over by the completion or the exec ask) merged as docs/protocol.md §8 says, the
usage, whether the turn is complete, the latest checkpoint and the routed model.
``apply`` takes what ``answers.Answerer`` decided about the round's calls: a
``FiledCall`` the service asked for over the exec channel (``file_mcp_call``) and
a ``ResolvedCall`` (a native tool run in place or refused, ``native.py``), which
closes the message so far (``resolve``); calls the service runs itself are
resolved here on their completion; ``messages`` gives them all.

One Fold folds every run of a round: when the lane resumes a broken run from
the newest checkpoint, ``resume()`` readies the fold for the new stream, which
may say again what was already delivered after that checkpoint: text and
thinking that repeat it are skipped, and a call already filed is not filed
twice (one still open picks up its arguments where they stood).

Pure: no sockets, no clock, no threads, no randomness (a call the service
named no id for gets one from the ``new_id`` factory the caller passes).
Answering the service's asks is ``answers.py``'s job; reading frames, showing
the parts to the host and deciding what to raise when the stream ends is the
lane's (it reads ``complete`` and ``end_error_ignored`` here).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from .._proto import agent_pb2
from ..errors import ProtocolError
from ..host import (
    ReasoningDelta,
    ResolvedCallResult,
    ResolvedCallStart,
    StreamPart,
    TextDelta,
    ToolCallArgsDelta,
    ToolCallStart,
    Usage,
)
from ..wire.values import decode_value, finite
from .native import resolved_messages, service_call
from .tool_names import declared_call

__all__ = [
    "EXEC_CALL_BLOCKS",
    "MCP_VARIANT",
    "SERVICE_RESOLVED_VARIANTS",
    "FiledCall",
    "Fold",
    "ResolvedCall",
    "decode_mcp_arg",
    "decode_mcp_args",
    "mcp_call_name",
    "merge_arguments",
    "rewritten_snapshot",
]

# ToolCall variants by member name (the `tool` oneof of agent.v1.ToolCall).
MCP_VARIANT = "mcp_tool_call"
# The service settles these itself (todos, edit, hosted fetch, web fetch, connect_scm):
# they stay open until their completion but are not ours to run.
SERVICE_RESOLVED_VARIANTS = frozenset(
    {
        "update_todos_tool_call",
        "read_todos_tool_call",
        "edit_tool_call",
        "fetch_tool_call",
        "web_fetch_tool_call",
        "connect_scm_tool_call",
        "web_search_tool_call",
    }
)
# Exec asks oh-my-pi files as a call block of the round; we file none of them (they are
# refused), but a stream that ends after one did not end on answer text.
EXEC_CALL_BLOCKS = frozenset(
    {
        "shell_args",
        "write_args",
        "delete_args",
        "grep_args",
        "read_args",
        "ls_args",
        "diagnostics_args",
        "shell_stream_args",
        "pi_read_args",
        "pi_bash_args",
        "pi_edit_args",
        "pi_write_args",
        "pi_grep_args",
        "pi_find_args",
        "pi_ls_args",
        "mini_swe_agent_bash_args",
        "conversation_search_args",
    }
)

_Kind = Literal["text", "thinking", "tool"] | None

# The JSON whitespace a value may sit between.
_JSON_SPACE = " \t\n\r"


@dataclass(slots=True)
class _Call:
    """One tool call of the round's message."""

    index: int
    id: str
    name: str
    # The arguments tool_call_started carried whole (McpArgs.args), when it carried any.
    started: dict[str, Any] | None = None
    # The argument text streamed so far (the cumulative snapshot as we rebuilt it).
    streamed: str = ""
    # Set once the arguments settled to a JSON object (a completion or an exec ask).
    settled: dict[str, Any] | None = None
    # Whether the host was handed the whole arguments in one ToolCallArgsDelta.
    shown: bool = False
    # Picked up again by a resumed stream: a snapshot shorter than what we hold is old news.
    resumed: bool = False


@dataclass(slots=True)
class _Open:
    """A streamed call waiting for its completion: ``call`` is None for a service-resolved one."""

    envelope_id: str
    call: _Call | None


@dataclass(slots=True)
class _Spans:
    """The text and thinking gathered so far.

    The text is one string grown in place as it comes (``_grow``), not a list
    joined at the end: a list and its join cost twice a long answer, plus an
    object per delta. Thinking is rarely long: a list joined at the end.
    """

    text: str = ""
    thinking: list[str] = field(default_factory=list)
    thinking_seen: bool = False


@dataclass(slots=True)
class _Mark:
    """Where the newest checkpoint left the text and thinking, to skip what a resume repeats.

    ``text`` counts the characters of text and ``thinking`` the thinking parts
    delivered before it; the
    ``*_unrepeated`` strings are what a resumed stream had still to repeat when
    it came (a checkpoint taken while skipping is behind what was delivered).
    """

    text: int = 0
    thinking: int = 0
    text_unrepeated: str = ""
    thinking_unrepeated: str = ""


@dataclass(frozen=True, slots=True)
class FiledCall:
    """An MCP call the service asked for over the exec channel, to file on the round's message.

    ``arguments`` are the ones the service runs the call with (``Fold.file_mcp_call``).
    """

    call_id: str
    name: str
    arguments: dict[str, Any]


@dataclass(frozen=True, slots=True)
class ResolvedCall:
    """A call resolved during the round (run in place or refused), to close the message on.

    ``entry`` is its assistant ``tool_calls`` entry and ``result`` its tool message
    (``Fold.resolve``); ``parts`` are what the host is shown of it, in order.
    """

    entry: dict[str, Any]
    result: dict[str, Any]
    parts: tuple[StreamPart, ...]


def decode_mcp_arg(raw: bytes) -> Any:
    """Return one MCP argument as JSON: its Value, a JSON-looking string parsed, else its text."""
    try:
        value = decode_value(raw)
    except ProtocolError:
        return _parse_or_text(raw.decode("utf-8", "replace"))
    if isinstance(value, str) and value.lstrip(_JSON_SPACE)[:1] in ("{", "[", '"'):
        # Some models double-encode structured arguments as a JSON string.
        return _parse_or_text(value)
    return value


def _parse_or_text(text: str) -> Any:
    """Return ``text`` parsed as JSON when it is, else ``text`` itself."""
    stripped = text.strip(_JSON_SPACE)
    if not stripped:
        return text
    try:
        return json.loads(stripped)
    except (ValueError, RecursionError):
        return text


def decode_mcp_args(args: Mapping[str, bytes]) -> dict[str, Any]:
    """Return an McpArgs argument map (each value a serialized Value) as a JSON object.

    Keys come sorted: a protobuf map keeps no order, and the same call should always
    spell the same argument text.
    """
    return {key: decode_mcp_arg(args[key]) for key in sorted(args)}


def mcp_call_name(args: agent_pb2.McpArgs) -> str:
    """Return the tool an McpArgs names: its tool_name, else its name."""
    return args.tool_name or args.name


def merge_arguments(
    streamed: Mapping[str, Any] | None, completion: Mapping[str, Any] | None
) -> dict[str, Any]:
    """Return the completion's arguments laid over the streamed ones.

    The completion wins, except it never downgrades an object or array to a string
    (some completions carry structured values re-serialized as text).
    """
    merged: dict[str, Any] = dict(streamed or {})
    for key, value in (completion or {}).items():
        if isinstance(value, str) and isinstance(merged.get(key), dict | list):
            continue
        merged[key] = value
    return merged


def rewritten_snapshot(text: str) -> bool:
    """Return whether ``text`` holds a whole JSON value followed by more (``{…}{…}``)."""
    decoder = json.JSONDecoder()
    start = len(text) - len(text.lstrip(_JSON_SPACE))
    if start >= len(text):
        return False
    try:
        _, end = decoder.raw_decode(text, start)
    except (ValueError, RecursionError):
        return False
    return bool(text[end:].strip(_JSON_SPACE))


def _parse_object(text: str) -> dict[str, Any] | None:
    """Return ``text`` parsed as a JSON object, or None when it is not one."""
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


class Fold:
    """The round's message as the stream builds it. Feed it every server message, in order.

    NEW_ID makes an id for a call the service named none for; HOST_NAMES maps a
    tool's wire name to the host tool's own name, for tools offered renamed
    (``bridge.py``). DECLARED, the wire names of the tools the run declared, maps
    a call's rendered name back (``tool_names.py``) and leaves a call no declared
    tool goes by unfiled (None: every name is taken as it comes).
    """

    # Slots: the per-delta path reads and writes several of these once a frame.
    __slots__ = (
        "_by_id",
        "_calls",
        "_checkpoint_after_turn",
        "_closed",
        "_current",
        "_last_kind",
        "_mark",
        "_new_id",
        "_open",
        "_out",
        "_repeat_text",
        "_repeat_thinking",
        "_spans",
        "_step_latest",
        "checkpoint",
        "declared",
        "host_names",
        "routed_model",
        "saw_output",
        "saw_token_delta",
        "turn_ended",
        "usage",
    )

    def __init__(
        self,
        *,
        new_id: Callable[[], str],
        host_names: Mapping[str, str] | None = None,
        declared: Collection[str] | None = None,
    ) -> None:
        self._new_id = new_id
        self.host_names: dict[str, str] = dict(host_names or {})
        self.declared = declared
        self.usage = Usage()
        self.turn_ended = False
        self.checkpoint: agent_pb2.ConversationStateStructure | None = None
        self.routed_model: str | None = None
        self.saw_output = False
        self.saw_token_delta = False
        self._spans = _Spans()
        self._calls: list[_Call] = []
        self._by_id: dict[str, _Call] = {}
        # Streamed calls waiting for their completion, by envelope call id, and the latest one.
        self._open: dict[str, _Open] = {}
        self._current: _Open | None = None
        self._last_kind: _Kind = None
        self._step_latest = False
        self._checkpoint_after_turn = False
        self._mark = _Mark()
        # What a resumed stream may repeat and is skipped (empty when not resuming).
        self._repeat_text = ""
        self._repeat_thinking = ""
        # Resolved calls so far: each an assistant message and its tool message, in order.
        self._closed: list[dict[str, Any]] = []
        # The parts the message being fed produced so far (feed and apply return it).
        self._out: list[StreamPart] = []

    # --- results -------------------------------------------------------------------

    @property
    def complete(self) -> bool:
        """Return whether the stream so far said all of the turn.

        True once turn_ended arrived, or when the latest message was a step_completed
        after answer text with no call left open.
        """
        if self.turn_ended:
            return True
        return (
            self._step_latest
            and self._last_kind == "text"
            and self._current is None
            and not self._open
        )

    @property
    def end_error_ignored(self) -> bool:
        """Return whether an end-stream error now is moot: turn_ended, then a checkpoint."""
        return self.turn_ended and self._checkpoint_after_turn

    @property
    def finish_reason(self) -> Literal["stop", "tool_calls"]:
        """Return ``tool_calls`` when the round filed any call, else ``stop``."""
        return "tool_calls" if self._calls else "stop"

    def message(self) -> dict[str, Any]:
        """Return the round as a plain chat-completions assistant message (nothing else)."""
        content = self._spans.text
        message: dict[str, Any] = {"role": "assistant", "content": content or None}
        if self._spans.thinking_seen:
            message["reasoning_content"] = "".join(self._spans.thinking)
        if self._calls:
            message["tool_calls"] = [
                {
                    "id": call.id,
                    "type": "function",
                    "function": {"name": call.name, "arguments": _arguments(call)},
                }
                for call in self._calls
            ]
        return message

    @property
    def resolved_calls(self) -> int:
        """Return how many calls the round resolved so far (run in place, refused, by Cursor)."""
        return len(self._closed) // 2

    def messages(self) -> list[dict[str, Any]]:
        """Return every message of the round: the resolved calls, then ``message()``."""
        return [*self._closed, self.message()]

    def resolve(self, entry: dict[str, Any], result: dict[str, Any]) -> None:
        """Close the message so far on resolved call ENTRY and its tool message RESULT.

        The text and thinking streamed so far go on that assistant message, so the
        round's order is kept; the host's own calls stay on the last message.
        """
        spans = self._spans
        closed: dict[str, Any] = {"role": "assistant", "content": spans.text or None}
        if spans.thinking_seen:
            closed["reasoning_content"] = "".join(spans.thinking)
        closed["tool_calls"] = [entry]
        self._closed.extend((closed, result))
        self._spans = _Spans()

    # --- feeding -------------------------------------------------------------------

    def feed(self, server_msg: agent_pb2.AgentServerMessage) -> list[StreamPart]:
        """Fold one server message into the round; return the stream parts it produced.

        Asks are answered elsewhere (``answers.py``); the caller shows the parts.
        """
        out: list[StreamPart] = []
        self._out = out
        member = server_msg.WhichOneof("message")
        if member == "interaction_update":
            update = server_msg.interaction_update
            kind = update.WhichOneof("message")
            if kind == "text_delta":
                chunk = update.text_delta.text
                self._step_latest = False
                self._last_kind = "text"
                if chunk and self._repeat_text:
                    chunk, self._repeat_text = _unrepeated(chunk, self._repeat_text)
                if chunk:
                    self.saw_output = True
                    _grow(self._spans, chunk)
                    out.append(TextDelta(chunk))
                return out
            if kind != "heartbeat":
                self._step_latest = kind == "step_completed"
            self._update(kind, update)
            return out
        if member == "conversation_checkpoint_update":
            self._checkpoint(server_msg.conversation_checkpoint_update)
            return out
        if member == "kv_server_message":
            return out
        self._step_latest = False
        if member == "exec_server_message":
            self._exec(server_msg.exec_server_message)
        return out

    def feed_delta(
        self, server_msg: agent_pb2.AgentServerMessage, room: int
    ) -> tuple[int, StreamPart | None]:
        """Return (the UTF-8 size of a text or thinking delta, the part it produced) after folding.

        The parsed twin of ``feed_text`` and ``feed_thinking``, for a delta
        ``wire.stream`` did not read by hand; ``(-1, None)`` means nothing was
        folded and ``feed`` takes the message. An unset member reads as its
        empty default, so a non-empty text is a text delta without asking the
        oneofs which member is set; an empty one goes to ``feed``, which tells
        an empty delta from the other members.
        """
        update = server_msg.interaction_update
        chunk = update.text_delta.text
        if chunk:
            return self.feed_text(chunk, room)
        chunk = update.thinking_delta.text
        if not chunk:
            return _NOT_A_DELTA
        return self.feed_thinking(chunk, room)

    def feed_text(self, chunk: str, room: int) -> tuple[int, StreamPart | None]:
        """Return (CHUNK's UTF-8 size, the part it produced) after folding a text delta of CHUNK.

        The hot path of a long answer: one call per frame. CHUNK is not empty. A
        delta larger than ROOM bytes is measured but not folded (the caller stops
        the round), and a delta a resumed stream only repeats produces no part.
        """
        size = len(chunk) if chunk.isascii() else len(chunk.encode("utf-8"))
        if size > room:
            return size, None
        self._step_latest = False
        self._last_kind = "text"
        if self._repeat_text:
            chunk, self._repeat_text = _unrepeated(chunk, self._repeat_text)
            if not chunk:
                return size, None
        self.saw_output = True
        # _grow inlined: this runs once per frame of a long answer.
        spans = self._spans
        text = spans.text
        spans.text = ""  # the local holds the only reference: += grows it in place
        text += chunk
        spans.text = text
        return size, TextDelta(chunk)

    def feed_thinking(self, chunk: str, room: int) -> tuple[int, StreamPart | None]:
        """Return (CHUNK's UTF-8 size, the part it produced) after folding a thinking delta.

        As ``feed_text``, for the reasoning; CHUNK is not empty.
        """
        size = len(chunk) if chunk.isascii() else len(chunk.encode("utf-8"))
        if size > room:
            return size, None
        self._step_latest = False
        return size, self._thinking(str(chunk))

    def apply(self, calls: Iterable[FiledCall | ResolvedCall]) -> list[StreamPart]:
        """Lay CALLS (an answer's, ``answers.Answer.calls``) on the round; return the parts to show.

        A filed call goes on the message (``file_mcp_call``); a resolved one closes
        the message so far (``resolve``), its own parts shown first.
        """
        out: list[StreamPart] = []
        for call in calls:
            if isinstance(call, FiledCall):
                out += self.file_mcp_call(call.call_id, call.name, call.arguments)
            else:
                out += call.parts
                self.resolve(call.entry, call.result)
        return out

    def resume(self) -> None:
        """Ready the fold for a stream that resumes from the newest checkpoint.

        What was delivered after that checkpoint may come again: it is skipped
        while the new stream repeats it (from the first difference on, the new
        stream is delivered). Calls the broken stream left open are dropped from
        tracking until the new stream starts them again.
        """
        mark = self._mark
        self._repeat_text = mark.text_unrepeated + self._spans.text[mark.text :]
        self._repeat_thinking = mark.thinking_unrepeated + "".join(
            self._spans.thinking[mark.thinking :]
        )
        self._open.clear()
        self._current = None
        self._step_latest = False

    def file_mcp_call(self, call_id: str, name: str, args: dict[str, Any]) -> list[StreamPart]:
        """File an MCP call the exec channel asked for; return the stream parts it produced.

        The exec ask's arguments are the ones the service runs the call with, so they
        settle a streamed call's arguments too (over what streamed, even when that was
        cut short); a call is never filed twice.
        """
        out: list[StreamPart] = []
        self._out = out
        filed = self._by_id.get(call_id) if call_id else None
        if filed is not None:
            if args:
                self._settle(filed, dict(args), authoritative=True)
            return out
        call = self._open_call(call_id or self._new_id(), name)
        call.settled = dict(args)
        self._emit_args(call, _arguments(call))
        return out

    # --- the interaction updates --------------------------------------------------------

    def _thinking(self, text: str) -> ReasoningDelta | None:
        """Return the part a thinking delta produced after folding it (None: nothing new)."""
        self._last_kind = "thinking"
        self._spans.thinking_seen = True
        if text and self._repeat_thinking:
            text, self._repeat_thinking = _unrepeated(text, self._repeat_thinking)
        if not text:
            return None
        self.saw_output = True
        self._spans.thinking.append(text)
        return ReasoningDelta(text)

    def _update(self, kind: str | None, update: agent_pb2.InteractionUpdate) -> None:
        if kind == "thinking_delta":
            part = self._thinking(update.thinking_delta.text)
            if part is not None:
                self._out.append(part)
        elif kind == "tool_call_started":
            self._started(update.tool_call_started)
        elif kind == "partial_tool_call":
            self._partial(update.partial_tool_call)
        elif kind == "tool_call_completed":
            self._completed(update.tool_call_completed)
        elif kind == "token_delta":
            tokens = update.token_delta.tokens
            self.saw_token_delta = True
            self.saw_output = True
            self.usage.output += max(0, tokens)
        elif kind == "turn_ended":
            self.turn_ended = True
            self._turn_usage(update.turn_ended)
        elif kind == "routed_model":
            self.routed_model = update.routed_model.model_id or self.routed_model
        # thinking_completed, step_started, step_completed, heartbeat and the rest
        # change nothing of the message.

    def _started(self, started: agent_pb2.ToolCallStartedUpdate) -> None:
        tool_call = started.tool_call
        variant = _variant(tool_call)
        self._last_kind = "tool"
        if variant == MCP_VARIANT:
            args = tool_call.mcp_tool_call.args
            call_id = args.tool_call_id or self._new_id()
            known = self._by_id.get(call_id)
            if known is not None:
                if known.settled is None:
                    # Started again by a resumed stream: its arguments carry on.
                    known.resumed = True
                    self._retain(started.call_id, known)
                return
            declared = self.declared
            name = mcp_call_name(args) if declared is None else declared_call(args, declared)
            if name is None:
                # No declared tool goes by this name: its exec ask is refused
                # (answers.py) and nothing is filed; its updates are skipped.
                self._retain(started.call_id, None)
                return
            self.saw_output = True
            call = self._open_call(call_id, name)
            # Cursor may send the whole argument map here and no deltas after it
            # (oh-my-pi #9479): those are the call's arguments until more arrives.
            whole = decode_mcp_args(args.args)
            if whole:
                call.started = whole
                self._emit_args(call, _arguments(call))
            self._retain(started.call_id, call)
        elif variant in SERVICE_RESOLVED_VARIANTS:
            self._retain(started.call_id, None)
        # The rest (MCP resources and the pi_* family belong to the exec channel): nothing filed.

    def _partial(self, partial: agent_pb2.PartialToolCallUpdate) -> None:
        entry = self._resolve(partial.call_id)
        if entry is None or entry.call is None:
            return
        call = entry.call
        snapshot = partial.args_text_delta
        current = call.streamed
        if call.resumed and current.startswith(snapshot):
            return  # a resumed stream repeating arguments already streamed
        # The delta is cumulative: only the new suffix is news. A snapshot that does not
        # extend what we hold was rewritten; keep it after the old one so the
        # completion can tell (see rewritten_snapshot).
        chunk = snapshot[len(current) :] if snapshot.startswith(current) else snapshot
        if chunk:
            self.saw_output = True
            call.streamed = current + chunk
            # After the started frame's whole arguments were shown, more text would
            # corrupt the host's copy; the message still gets what the deltas add.
            if not call.shown:
                self._out.append(ToolCallArgsDelta(call.index, chunk))

    def _completed(self, completed: agent_pb2.ToolCallCompletedUpdate) -> None:
        entry = self._resolve(completed.call_id)
        if entry is None:
            return
        call = entry.call
        if call is not None:
            tool_call = completed.tool_call
            completion: dict[str, Any] | None = None
            if _variant(tool_call) == MCP_VARIANT:
                completion = decode_mcp_args(tool_call.mcp_tool_call.args.args) or None
            self._settle(call, completion)
        elif _variant(completed.tool_call) != MCP_VARIANT:  # an MCP one: a name refused
            self._service_resolved(completed.call_id, completed.tool_call)
        self._release(entry)

    def _service_resolved(self, call_id: str, tool_call: agent_pb2.ToolCall) -> None:
        """Record a call the service ran itself (a todo update, a hosted search) as resolved."""
        found = service_call(tool_call)
        if found is None:
            return
        name, arguments, text = found
        cid = call_id or tool_call.tool_call_id or self._new_id()
        entry, result = resolved_messages(cid, name, arguments, text, failed=False)
        self._out.append(ResolvedCallStart(cid, name, entry["function"]["arguments"], "cursor"))
        self._out.append(ResolvedCallResult(cid, name, text, False))
        self.resolve(entry, result)

    def _settle(
        self, call: _Call, completion: dict[str, Any] | None, *, authoritative: bool = False
    ) -> None:
        """Settle CALL's arguments: started, streamed, settled before, COMPLETION, in that order.

        Each layer goes over the one before by ``merge_arguments``. AUTHORITATIVE
        (the exec ask's map) also settles over a streamed buffer that does not parse.
        """
        buffer = call.streamed
        streamed = _parse_object(buffer) if buffer else None
        if (
            buffer
            and streamed is None
            and not (completion and (authoritative or rewritten_snapshot(buffer)))
        ):
            # A buffer cut short stays as it came: the host refuses it rather than run
            # a call that may lack what was cut.
            return
        merged = merge_arguments(merge_arguments(call.started, streamed), call.settled)
        call.settled = merge_arguments(merged, completion)
        self._emit_args(call, _arguments(call))

    def _turn_usage(self, ended: agent_pb2.TurnEndedUpdate) -> None:
        # The turn's own counters replace the streamed estimate; a zero leaves it be.
        read = max(0, ended.cache_read_tokens)
        write = max(0, ended.cache_write_tokens)
        usage = self.usage
        if ended.input_tokens > 0:
            usage.input = max(0, ended.input_tokens - read - write)
        if ended.output_tokens > 0:
            usage.output = ended.output_tokens
        if read:
            usage.cache_read = read
        if write:
            usage.cache_write = write
        if ended.reasoning_tokens > 0:
            usage.reasoning = ended.reasoning_tokens

    # --- the other members -------------------------------------------------------------

    def _checkpoint(self, state: agent_pb2.ConversationStateStructure) -> None:
        kept = agent_pb2.ConversationStateStructure()
        kept.CopyFrom(state)
        self.checkpoint = kept
        spans = self._spans
        self._mark = _Mark(
            len(spans.text), len(spans.thinking), self._repeat_text, self._repeat_thinking
        )
        self._checkpoint_after_turn = self.turn_ended
        if state.HasField("token_details") and state.token_details.used_tokens:
            self.usage.context_tokens = state.token_details.used_tokens

    def _exec(self, exec_msg: agent_pb2.ExecServerMessage) -> None:
        member = exec_msg.WhichOneof("message")
        if member is None:
            return
        if member not in EXEC_CALL_BLOCKS:
            return
        if member == "grep_args" and not exec_msg.grep_args.pattern.strip():
            # Refused for want of a pattern before it ever became a call.
            return
        self._last_kind = "tool"

    # --- calls ---------------------------------------------------------------------------

    def _open_call(self, call_id: str, name: str) -> _Call:
        call = _Call(index=len(self._calls), id=call_id, name=self.host_names.get(name, name))
        self._calls.append(call)
        self._by_id[call_id] = call
        self._last_kind = "tool"
        self.saw_output = True
        self._out.append(ToolCallStart(call.index, call.id, call.name))
        return call

    def _emit_args(self, call: _Call, text: str) -> None:
        # Only when nothing streamed and nothing was shown whole: a host cannot take
        # back deltas it already shows.
        if call.streamed or call.shown:
            return
        call.shown = True
        self._out.append(ToolCallArgsDelta(call.index, text))

    def _retain(self, envelope_id: str, call: _Call | None) -> None:
        entry = _Open(envelope_id, call)
        if envelope_id:
            self._open[envelope_id] = entry
        self._current = entry

    def _resolve(self, envelope_id: str) -> _Open | None:
        """Return the open call a streamed update addresses, or None."""
        current = self._current
        if not envelope_id:
            return current
        entry = self._open.get(envelope_id)
        if entry is not None:
            return entry
        if current is not None and not current.envelope_id:
            return current
        return None

    def _release(self, entry: _Open) -> None:
        if entry.envelope_id:
            self._open.pop(entry.envelope_id, None)
        if self._current is entry:
            self._current = None


def _grow(spans: _Spans, chunk: str) -> None:
    """Add CHUNK to the text of SPANS, growing its one string in place.

    CPython grows a string in place (a realloc, no copy) when ``+=`` adds to a
    local holding its only reference, so the text's reference is dropped first.
    """
    text = spans.text
    spans.text = ""
    text += chunk
    spans.text = text


# What feed_delta returns for a message that is no text or thinking delta.
_NOT_A_DELTA: tuple[int, StreamPart | None] = (-1, None)


def _unrepeated(chunk: str, repeat: str) -> tuple[str, str]:
    """Return (the part of CHUNK not repeating REPEAT, what REPEAT still has to repeat).

    A chunk that is all repetition is dropped; at the first difference the rest
    of the chunk is news and nothing more is skipped.
    """
    same = 0
    limit = min(len(chunk), len(repeat))
    while same < limit and chunk[same] == repeat[same]:
        same += 1
    if same == len(chunk):
        return "", repeat[same:]
    return chunk[same:], ""


def _variant(tool_call: agent_pb2.ToolCall) -> str | None:
    """Return the member name of a ToolCall's tool variant, or None when unset or unnamed."""
    member: str | None = tool_call.WhichOneof("tool")
    return member


def _arguments(call: _Call) -> str:
    """Return a call's arguments as the chat message's JSON string.

    Settled arguments first; else the streamed text (over the started map when
    both are objects); else the started map; else ``{}``.
    """
    if call.settled is not None:
        return _json_text(call.settled)
    if call.streamed:
        streamed = _parse_object(call.streamed) if call.started else None
        if streamed is not None:
            return _json_text(merge_arguments(call.started, streamed))
        return call.streamed
    if call.started:
        return _json_text(call.started)
    return "{}"


def _json_text(arguments: dict[str, Any]) -> str:
    """Return ARGUMENTS as compact JSON text; a NaN or an infinity is written as null."""
    try:
        return json.dumps(arguments, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    except ValueError:
        # A Value may hold NaN or an infinity, which JSON cannot spell: null them.
        return json.dumps(finite(arguments), separators=(",", ":"), ensure_ascii=False)
