"""cursor-agent's stream-json read line by line: stream parts, resolved calls, session, end.

``cursor-agent -p --output-format stream-json`` writes one JSON object per line
(docs/protocol.md, "cursor-agent's stream-json"): ``system`` (subtype ``init``:
the CLI's session id and model), ``user`` (the prompt echoed), ``thinking``
(``delta`` text, then ``completed``), ``assistant`` (message text; with
``--stream-partial-output`` small deltas plus whole-message repeats),
``tool_call`` (``started`` then ``completed`` per call; the tool's kind is the
single key of ``tool_call``, such as ``readToolCall``, with ``args`` and, once
done, ``result``) and ``result`` (the end: ``is_error``, ``result`` text,
``session_id`` and a ``usage`` token block).

``AgentStream.feed`` turns one line into the host's stream parts and keeps what
the round returns: the answer text, the reasoning, the calls the CLI ran itself
(as OpenAI-shaped resolved-call messages), the session id and the end. It never
raises on a line it cannot read: a line that is not a JSON object, or a field of
an unexpected type, is set aside (kept, bounded, for the plain-text salvage) or
skipped. Running the CLI is ``agent_lane.py``'s job.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from ..core.growing_text import GrowingText
from ..host import (
    ReasoningDelta,
    ResolvedCallResult,
    ResolvedCallStart,
    StreamPart,
    TextDelta,
    Usage,
)

__all__ = [
    "MAX_RESULT_CHARS",
    "AgentEnd",
    "AgentStream",
    "ResolvedCall",
    "valid_session_id",
]

# A resolved call's result as the record keeps it: a file the CLI read can be
# large, and the host only needs enough to show and audit the call.
MAX_RESULT_CHARS = 32_000
# Lines that were not stream-json, kept for the plain-text salvage, at most this much.
MAX_PLAIN_CHARS = 1_000_000

# How far back (in whole-message lengths) a whole message is looked for as a repeat.
_REPEAT_WINDOW = 4

# What a CLI session id may look like before it goes back on a command line
# (``--resume ID``): a leading "-" would read as a flag.
_SESSION_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:-]{0,255}")
_TOOL_SUFFIX = "ToolCall"
# Argument fields that are the CLI's own bookkeeping, not what the model asked for:
# the call id (already the call's id) and the shell parser's breakdown of the command.
_BOOKKEEPING_ARGS = frozenset({"toolCallId", "parsingResult"})


def valid_session_id(value: object) -> str | None:
    """Return VALUE when it is a session id safe to pass back as ``--resume``, else None."""
    if isinstance(value, str) and _SESSION_ID.fullmatch(value):
        return value
    return None


@dataclass(slots=True)
class ResolvedCall:
    """One tool call the CLI ran itself: its kind, arguments and (once done) its result."""

    id: str
    name: str
    arguments: str
    content: str | None = None  # None until the call completed
    is_error: bool = False


@dataclass(slots=True)
class AgentEnd:
    """The ``result`` event: how the turn ended."""

    is_error: bool
    subtype: str
    text: str
    session_id: str | None
    usage: Usage | None


@dataclass(slots=True)
class AgentStream:
    """The state of one turn's stream-json, fed a line at a time."""

    init_session_id: str | None = None
    model: str | None = None
    end: AgentEnd | None = None
    calls: list[ResolvedCall] = field(default_factory=list)
    recognized: int = 0  # lines that were stream-json events
    unreadable: int = 0  # lines that were not (malformed JSON, not an object, no type)
    plain: list[str] = field(default_factory=list)
    _plain_chars: int = 0
    _by_id: dict[str, ResolvedCall] = field(default_factory=dict)
    # Text sent since the last whole-message repeat or tool call, and whether the CLI
    # sends deltas at all (--stream-partial-output): then whole messages are repeats.
    _segment: GrowingText = field(default_factory=GrowingText)
    _partial: bool = False
    _after_tool: bool = False
    # The answer and the reasoning, grown by pieces (a flood of deltas stays linear).
    _answer: GrowingText = field(default_factory=GrowingText)
    _reasoning: GrowingText = field(default_factory=GrowingText)
    # UTF-8 bytes of the calls' arguments and results, for the reply cap.
    _call_bytes: int = 0

    @property
    def text(self) -> str:
        """Return the answer text so far."""
        return str(self._answer)

    @text.setter
    def text(self, value: str) -> None:
        """Make VALUE the whole answer text (a salvaged or result-carried reply)."""
        self._answer = GrowingText(value)

    @property
    def thinking(self) -> str:
        """Return the reasoning so far."""
        return str(self._reasoning)

    @property
    def reply_bytes(self) -> int:
        """Return the UTF-8 bytes of the answer, reasoning, calls' arguments and results."""
        return self._answer.utf8_bytes + self._reasoning.utf8_bytes + self._call_bytes

    @property
    def session_id(self) -> str | None:
        """Return the CLI's session id: the result's, else the init event's (None: neither)."""
        if self.end is not None and self.end.session_id:
            return self.end.session_id
        return self.init_session_id

    def feed(self, line: str | bytes) -> list[StreamPart]:
        """Return the stream parts one line of stdout becomes (never raises)."""
        if isinstance(line, bytes):
            line = line.decode("utf-8", errors="replace")
        stripped = line.strip()
        if not stripped:
            return []
        try:
            event = json.loads(stripped)
        except (ValueError, RecursionError):
            event = None
        kind = event.get("type") if isinstance(event, dict) else None
        if not isinstance(event, dict) or not isinstance(kind, str):
            self._keep_plain(line.rstrip("\r\n"))
            return []
        self.recognized += 1
        handler = _HANDLERS.get(kind)
        return handler(self, event) if handler is not None else []

    def salvage(self) -> str:
        """Return what the CLI printed that was not stream-json, as one reply text."""
        return "\n".join(self.plain).strip()

    def message(self) -> dict[str, Any]:
        """Return the round's assistant message: the answer text and the reasoning."""
        message: dict[str, Any] = {"role": "assistant", "content": self.text or None}
        if self._reasoning:
            message["reasoning_content"] = self.thinking
        return message

    def resolved_messages(self) -> list[dict[str, Any]]:
        """Return every call the CLI ran as an assistant tool_calls message and its tool message."""
        out: list[dict[str, Any]] = []
        for call in self.calls:
            content = call.content if call.content is not None else "the call did not finish"
            entry = {
                "id": call.id,
                "type": "function",
                "function": {"name": call.name, "arguments": call.arguments},
                "resolved": True,
            }
            out.append(
                {"role": "assistant", "content": None, "tool_calls": [entry], "resolved": True}
            )
            out.append(
                {"role": "tool", "tool_call_id": call.id, "content": content, "resolved": True}
            )
        return out

    # One handler per event type ------------------------------------------------------------

    def _system(self, event: dict[str, Any]) -> list[StreamPart]:
        """Return nothing; keep the init event's session id and model."""
        if event.get("subtype") == "init":
            self.init_session_id = valid_session_id(event.get("session_id")) or self.init_session_id
            model = event.get("model")
            self.model = model if isinstance(model, str) else self.model
        return []

    def _thinking(self, event: dict[str, Any]) -> list[StreamPart]:
        """Return the reasoning delta a thinking event carries."""
        text = event.get("text")
        if event.get("subtype", "delta") != "delta" or not isinstance(text, str) or not text:
            return []
        self._reasoning.add(text)
        return [ReasoningDelta(text)]

    def _assistant(self, event: dict[str, Any]) -> list[StreamPart]:
        """Return the answer text an assistant event adds (repeats of sent text add none)."""
        text = _content_text(event.get("message"))
        if not text:
            return []
        # With --stream-partial-output the deltas carry a timestamp and no model call id;
        # an event with a model call id, or without a timestamp, is a whole message.
        whole = "model_call_id" in event or "timestamp_ms" not in event
        if not whole:
            self._partial = True
            return self._emit(text)
        if not self._partial:
            return self._emit(text)  # without deltas each whole message is new text
        missing = self._missing(text)
        self._segment = GrowingText()
        return self._emit(missing) if missing else []

    def _tool_call(self, event: dict[str, Any]) -> list[StreamPart]:
        """Return the resolved-call start, or its result, a tool_call event brings."""
        body = event.get("tool_call")
        if not isinstance(body, dict):
            return []
        name, detail = _tool_kind(body)
        args = detail.get("args") if isinstance(detail.get("args"), dict) else None
        call_id = _call_id(event, args) or f"cursor-agent-call-{len(self.calls) + 1}"
        self._segment = GrowingText()
        self._after_tool = True
        parts: list[StreamPart] = []
        call = self._by_id.get(call_id)
        if call is None:
            call = ResolvedCall(call_id, name, _arguments(args))
            self._call_bytes += _utf8_size(call.arguments)
            self._by_id[call_id] = call
            self.calls.append(call)
            parts.append(ResolvedCallStart(call.id, call.name, call.arguments))
        elif args and call.arguments == "{}":
            call.arguments = _arguments(args)
            self._call_bytes += _utf8_size(call.arguments)
        if event.get("subtype") == "completed" and call.content is None:
            call.content, call.is_error = _outcome(detail.get("result"))
            self._call_bytes += _utf8_size(call.content)
            parts.append(ResolvedCallResult(call.id, call.name, call.content, call.is_error))
        return parts

    def _result(self, event: dict[str, Any]) -> list[StreamPart]:
        """Return nothing; keep how the turn ended."""
        subtype = event.get("subtype") if isinstance(event.get("subtype"), str) else "success"
        text = event.get("result") if isinstance(event.get("result"), str) else ""
        is_error = event.get("is_error") is True or subtype != "success"
        self.end = AgentEnd(
            is_error=is_error,
            subtype=str(subtype),
            text=str(text),
            session_id=valid_session_id(event.get("session_id")),
            usage=_usage(event.get("usage")),
        )
        return []

    # Helpers ---------------------------------------------------------------------------------

    def _emit(self, text: str) -> list[StreamPart]:
        """Return TEXT as a delta (after a blank line when it follows a tool call), kept."""
        answer = self._answer
        if self._after_tool and answer and not answer.endswith("\n"):
            # Messages around a tool call are separate paragraphs, not one run-on line.
            text = "\n\n" + text
        self._after_tool = False
        answer.add(text)
        self._segment.add(text)
        return [TextDelta(text)]

    def _missing(self, whole: str) -> str:
        """Return the part of a whole message the deltas did not already send.

        Each comparison reads at most a few times the whole message's length of the
        answer (its end), never all of it: a stream of whole messages costs what it
        carries, not the answer's size each time.
        """
        answer, segment, size = self._answer, self._segment, len(whole)
        sent = str(segment)  # joined once: the segment starts anew after this message
        if whole == sent or answer.endswith(whole):
            return ""
        # A re-rendering repeats recent text: it is looked for near the answer's end.
        if whole in answer.tail(_REPEAT_WINDOW * size + len(sent)):
            return ""
        if len(answer) <= _REPEAT_WINDOW * size and _squash(whole) == _squash(str(answer)):
            return ""  # the whole answer again, joined differently
        if sent and whole.startswith(sent):
            return whole[len(sent) :]
        if answer and len(answer) <= size and whole.startswith(str(answer)):
            return whole[len(answer) :]
        # Text the deltas never carried is new; anything else is a re-rendering of sent text.
        return whole if not segment else ""

    def _keep_plain(self, line: str) -> None:
        """Keep a line that was not stream-json, up to the salvage bound."""
        self.unreadable += 1
        if self._plain_chars + len(line) <= MAX_PLAIN_CHARS:
            self.plain.append(line)
            self._plain_chars += len(line) + 1

    def note_overlong_line(self) -> None:
        """Count a line the reader dropped for its size (returns nothing)."""
        self.unreadable += 1


_HANDLERS = {
    "system": AgentStream._system,
    "thinking": AgentStream._thinking,
    "assistant": AgentStream._assistant,
    "tool_call": AgentStream._tool_call,
    "result": AgentStream._result,
}


def _content_text(message: object) -> str:
    """Return the text of a message's content blocks (blocks that are not text are skipped)."""
    if not isinstance(message, dict):
        return ""
    content = message.get("content")
    # Only a list of blocks is the documented shape (message.content[].text): a string
    # or anything else is a malformed event, skipped like a malformed block.
    if not isinstance(content, list):
        return ""
    pieces = []
    for block in content:
        if isinstance(block, dict) and block.get("type", "text") == "text":
            text = block.get("text")
            if isinstance(text, str):
                pieces.append(text)
    return "".join(pieces)


def _tool_kind(body: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """Return (the call's name, its detail) from a tool_call body keyed by its kind."""
    for key, value in body.items():
        if key.endswith(_TOOL_SUFFIX) and isinstance(value, dict):
            return key[: -len(_TOOL_SUFFIX)] or key, value
    function = body.get("function")
    if isinstance(function, dict) and isinstance(function.get("name"), str):
        # Cursor's docs name this shape for other tools: a name and its arguments.
        arguments = function.get("arguments")
        if isinstance(arguments, str):
            try:
                arguments = json.loads(arguments)
            except (ValueError, RecursionError):
                arguments = {"arguments": arguments}
        args = arguments if isinstance(arguments, dict) else {}
        return function["name"], {"args": args, "result": body.get("result")}
    keys = [key for key in body if isinstance(key, str)]
    return (keys[0] if keys else "tool"), {}


def _call_id(event: dict[str, Any], args: dict[str, Any] | None) -> str | None:
    """Return the call's id: the event's call_id, else the one inside its arguments."""
    for value in (event.get("call_id"), (args or {}).get("toolCallId")):
        if isinstance(value, str) and value.strip():
            return value
    return None


def _arguments(args: dict[str, Any] | None) -> str:
    """Return the call's arguments as JSON text, without the CLI's bookkeeping fields."""
    kept = {k: v for k, v in (args or {}).items() if k not in _BOOKKEEPING_ARGS}
    return json.dumps(kept, ensure_ascii=False)


def _outcome(result: object) -> tuple[str, bool]:
    """Return (the result as text, whether it failed) for a completed call's result."""
    if not isinstance(result, dict) or not result:
        return "", False
    if "success" in result:
        return _bounded(_success_text(result.get("success"))), False
    outcome = next(iter(result))
    payload = result[outcome]
    reason = ""
    if isinstance(payload, dict):
        for key in ("error", "reason", "message", "stderr"):
            if isinstance(payload.get(key), str) and payload[key].strip():
                reason = payload[key].strip()
                break
        if not reason and payload:
            reason = json.dumps(payload, ensure_ascii=False)
    elif isinstance(payload, str):
        reason = payload
    return _bounded(f"{outcome}: {reason}" if reason else str(outcome)), True


def _success_text(payload: object) -> str:
    """Return a successful result as the text a person (or model) would read."""
    if isinstance(payload, str):
        return payload
    if not isinstance(payload, dict):
        return json.dumps(payload, ensure_ascii=False)
    if isinstance(payload.get("content"), str):
        return str(payload["content"])  # a file read
    if "exitCode" in payload:  # a shell command
        lines = [f"exit code {payload.get('exitCode')}"]
        for stream in ("stdout", "stderr"):
            value = payload.get(stream)
            if isinstance(value, str) and value:
                lines.append(value.rstrip("\n"))
        return "\n".join(lines)
    if isinstance(payload.get("diffString"), str):
        return str(payload["diffString"])  # an edit
    return json.dumps(payload, ensure_ascii=False)


def _bounded(text: str) -> str:
    """Return TEXT cut to MAX_RESULT_CHARS, saying how much was left out."""
    if len(text) <= MAX_RESULT_CHARS:
        return text
    return text[:MAX_RESULT_CHARS] + f"\n… ({len(text) - MAX_RESULT_CHARS} more characters)"


def _count(value: object) -> int:
    """Return VALUE as a token count (0 for anything that is not a non-negative integer)."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def _usage(block: object) -> Usage | None:
    """Return the result's usage block as Usage (None when there is none)."""
    if not isinstance(block, dict):
        return None
    return Usage(
        input=_count(block.get("inputTokens")),
        output=_count(block.get("outputTokens")),
        cache_read=_count(block.get("cacheReadTokens")),
        cache_write=_count(block.get("cacheWriteTokens")),
    )


def _utf8_size(text: str) -> int:
    """Return TEXT's size in UTF-8 bytes."""
    return len(text) if text.isascii() else len(text.encode("utf-8", errors="replace"))


def _squash(text: str) -> str:
    """Return TEXT without any whitespace (to compare two joins of the same answer)."""
    return "".join(text.split())
