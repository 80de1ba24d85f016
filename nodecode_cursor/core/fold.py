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
The tool calls' own folding is ``fold_calls.CallFold``'s, which ``Fold`` builds
on, and their arguments ``call_args.py``'s. Answering the service's asks is
``answers.py``'s job; reading frames, showing
the parts to the host and deciding what to raise when the stream ends is the
lane's (it reads ``complete`` and ``end_error_ignored`` here).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from .._proto import agent_pb2
from ..host import ReasoningDelta, StreamPart, TextDelta, Usage
from .fold_calls import CallFold, arguments_text

__all__ = [
    "EXEC_CALL_BLOCKS",
    "FiledCall",
    "Fold",
    "ResolvedCall",
]


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


class Fold(CallFold):
    """The round's message as the stream builds it. Feed it every server message, in order.

    NEW_ID makes an id for a call the service named none for; HOST_NAMES maps a
    tool's wire name to the host tool's own name, for tools offered renamed
    (``bridge.py``). DECLARED, the wire names of the tools the run declared, maps
    a call's rendered name back (``tool_names.py``) and leaves a call no declared
    tool goes by unfiled (None: every name is taken as it comes). The calls
    themselves are folded by ``CallFold``.
    """

    # Slots: the per-delta path reads and writes several of these once a frame.
    __slots__ = (
        "_checkpoint_after_turn",
        "_closed",
        "_mark",
        "_repeat_text",
        "_repeat_thinking",
        "_spans",
        "_step_latest",
        "checkpoint",
        "routed_model",
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
        super().__init__(new_id=new_id, host_names=host_names, declared=declared)
        self.usage = Usage()
        self.turn_ended = False
        self.checkpoint: agent_pb2.ConversationStateStructure | None = None
        self.routed_model: str | None = None
        self.saw_token_delta = False
        self._spans = _Spans()
        self._step_latest = False
        self._checkpoint_after_turn = False
        self._mark = _Mark()
        # What a resumed stream may repeat and is skipped (empty when not resuming).
        self._repeat_text = ""
        self._repeat_thinking = ""
        # Resolved calls so far: each an assistant message and its tool message, in order.
        self._closed: list[dict[str, Any]] = []

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
                    "function": {"name": call.name, "arguments": arguments_text(call)},
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
