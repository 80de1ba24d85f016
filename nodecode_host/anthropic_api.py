"""Anthropic's Messages API in terms of the cell's rounds: requests in, messages and events out.

Pure translation, no sockets: ``parse_messages_request`` reads a
``POST /v1/messages`` body (``system`` as a string or blocks, ``messages`` with
text, image, ``tool_use``, ``tool_result`` and ``thinking`` blocks, ``tools``
with ``input_schema``, ``tool_choice``, ``thinking``/``output_config`` as an
effort) into a ``RoundRequest`` with chat-shaped messages. ``MessagesReply``
answers the round as one ``message`` or as the API's SSE events
(``message_start``, ``content_block_start``/``delta``/``stop`` for text,
thinking and tool use, ``message_delta``, ``message_stop``; ``error``).
``cursor_model`` maps the Claude names Anthropic's clients send by default to a
Cursor model; ``count_tokens`` estimates; ``error_body`` is Anthropic's error
shape. The route is ``routes.py``'s; the HTTP side
(``x-api-key`` included) is ``http_server.py``'s and ``serve_gate.py``'s.
"""

from __future__ import annotations

import hashlib
import json
import re
import uuid
from collections.abc import Collection, Mapping
from typing import TYPE_CHECKING, Any

from . import contract
from .api_round import MODEL_PREFIX, ApiError, RoundRequest, ToolDemand

if TYPE_CHECKING:
    from nodecode_cursor.host import RoundResult, StreamPart, Usage

__all__ = [
    "MessagesReply",
    "count_tokens",
    "cursor_model",
    "effort_of_budget",
    "error_body",
    "message_object",
    "parse_messages_request",
]

# Anthropic's error "type" per HTTP status (anything else 5xx is api_error).
_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    422: "invalid_request_error",
    429: "rate_limit_error",
    529: "overloaded_error",
}
_STOP_REASONS = {"stop": "end_turn", "tool_calls": "tool_use"}
# Blocks a client replays that carry nothing a Cursor model can read again.
_DROPPED_BLOCKS = ("redacted_thinking", "server_tool_use", "web_search_tool_result")
# Claude's families, as Anthropic names its models (claude-sonnet-4-5-20250929, …).
FAMILIES = ("opus", "sonnet", "haiku")
# Thinking budgets (tokens) up to each effort; beyond the last, "xhigh".
_BUDGET_EFFORTS = ((2048, "low"), (8192, "medium"), (32768, "high"))


def error_body(error: ApiError) -> dict[str, Any]:
    """Return ERROR as Anthropic's ``{"type": "error", "error": {...}}`` object."""
    kind = _ERROR_TYPES.get(
        error.status, "api_error" if error.status >= 500 else "invalid_request_error"
    )
    return {"type": "error", "error": {"type": kind, "message": error.message}}


def _invalid(message: str) -> ApiError:
    return ApiError(400, message, code="invalid_request")


def _load(body: bytes) -> dict[str, Any]:
    """Return BODY as a JSON object; ApiError 400 when it is not one."""
    try:
        data = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise ApiError(400, "the request body is not valid JSON", code="invalid_json") from None
    if not isinstance(data, dict):
        raise _invalid("the request body must be a JSON object")
    return data


def effort_of_budget(budget: Any) -> str | None:
    """Return the effort a ``thinking.budget_tokens`` maps to (None for none)."""
    if not isinstance(budget, int) or isinstance(budget, bool) or budget <= 0:
        return None
    for limit, effort in _BUDGET_EFFORTS:
        if budget <= limit:
            return effort
    return "xhigh"


# Requests -------------------------------------------------------------------------------------


def _system_text(raw: Any, where: str = "system") -> str:
    """Return the text of ``system`` (a string or text blocks; cache_control is ignored)."""
    if raw is None:
        return ""
    if isinstance(raw, str):
        return raw
    if not isinstance(raw, list):
        raise _invalid(f"'{where}' must be a string or a list of text blocks")
    texts = []
    for index, block in enumerate(raw):
        if not isinstance(block, Mapping) or block.get("type") != "text":
            raise _invalid(f"{where}[{index}]: only text blocks are supported")
        text = block.get("text")
        if not isinstance(text, str):
            raise _invalid(f"{where}[{index}]: a text block needs a string 'text'")
        texts.append(text)
    return "\n\n".join(texts)


def _image_part(block: Mapping[str, Any], where: str) -> dict[str, Any]:
    """Return an image block as a chat image part (base64 sources only)."""
    source = block.get("source")
    if not isinstance(source, Mapping) or source.get("type") != "base64":
        raise _invalid(f"{where}: only base64 image sources are supported")
    media = source.get("media_type")
    data = source.get("data")
    if not isinstance(media, str) or not isinstance(data, str):
        raise _invalid(f"{where}: an image source needs 'media_type' and 'data'")
    return {"type": "image_url", "image_url": {"url": f"data:{media};base64,{data}"}}


def _result_content(block: Mapping[str, Any], where: str) -> Any:
    """Return a tool_result's content as a chat tool message's content."""
    content = block.get("content")
    parts: list[dict[str, Any]] = []
    if content is None:
        parts = []
    elif isinstance(content, str):
        parts = [{"type": "text", "text": content}]
    elif isinstance(content, list):
        for index, item in enumerate(content):
            spot = f"{where}.content[{index}]"
            kind = item.get("type") if isinstance(item, Mapping) else None
            if kind == "text" and isinstance(item, Mapping):
                parts.append({"type": "text", "text": str(item.get("text") or "")})
            elif kind == "image" and isinstance(item, Mapping):
                parts.append(_image_part(item, spot))
            else:
                raise _invalid(f"{spot}: unsupported tool_result content type {kind!r}")
    else:
        raise _invalid(f"{where}: 'content' must be a string or a list of blocks")
    if block.get("is_error") is True:
        # Cursor's models have no error flag on a tool result: the text says it.
        parts.insert(0, {"type": "text", "text": "[the tool reported an error] "})
    if all(p["type"] == "text" for p in parts):
        return "".join(p["text"] for p in parts)
    return parts


def _user_messages(content: Any, where: str) -> list[dict[str, Any]]:
    """Return the chat messages of one user turn: its tool results first, then its text."""
    if isinstance(content, str):
        return [{"role": "user", "content": content}]
    if not isinstance(content, list):
        raise _invalid(f"{where}: 'content' must be a string or a list of blocks")
    results: list[dict[str, Any]] = []
    parts: list[dict[str, Any]] = []
    for index, block in enumerate(content):
        spot = f"{where}.content[{index}]"
        kind = block.get("type") if isinstance(block, Mapping) else None
        if not isinstance(block, Mapping):
            raise _invalid(f"{spot}: a content block must be an object")
        if kind == "text":
            text = block.get("text")
            if not isinstance(text, str):
                raise _invalid(f"{spot}: a text block needs a string 'text'")
            parts.append({"type": "text", "text": text})
        elif kind == "image":
            parts.append(_image_part(block, spot))
        elif kind == "tool_result":
            call_id = block.get("tool_use_id")
            if not isinstance(call_id, str):
                raise _invalid(f"{spot}: a tool_result needs a string 'tool_use_id'")
            content_of = _result_content(block, spot)
            results.append({"role": "tool", "tool_call_id": call_id, "content": content_of})
        elif kind in _DROPPED_BLOCKS:
            continue
        else:
            raise _invalid(f"{spot}: unsupported content block type {kind!r}")
    out = list(results)
    if parts:
        plain = all(p["type"] == "text" for p in parts)
        out.append(
            {"role": "user", "content": "\n\n".join(p["text"] for p in parts) if plain else parts}
        )
    return out


def _assistant_message(content: Any, where: str) -> dict[str, Any]:
    """Return one assistant turn as a chat assistant message (thinking as its reasoning)."""
    if isinstance(content, str):
        return {"role": "assistant", "content": content}
    if not isinstance(content, list):
        raise _invalid(f"{where}: 'content' must be a string or a list of blocks")
    texts: list[str] = []
    thinking: list[str] = []
    calls: list[dict[str, Any]] = []
    for index, block in enumerate(content):
        spot = f"{where}.content[{index}]"
        kind = block.get("type") if isinstance(block, Mapping) else None
        if not isinstance(block, Mapping):
            raise _invalid(f"{spot}: a content block must be an object")
        if kind == "text":
            texts.append(str(block.get("text") or ""))
        elif kind == "thinking":
            thinking.append(str(block.get("thinking") or ""))
        elif kind == "tool_use":
            call_id, name = block.get("id"), block.get("name")
            if not isinstance(call_id, str) or not isinstance(name, str):
                raise _invalid(f"{spot}: a tool_use block needs string 'id' and 'name'")
            arguments = json.dumps(block.get("input") or {}, ensure_ascii=False)
            calls.append(
                {
                    "id": call_id,
                    "type": "function",
                    "function": {"name": name, "arguments": arguments},
                }
            )
        elif kind in _DROPPED_BLOCKS:
            continue
        else:
            raise _invalid(f"{spot}: unsupported content block type {kind!r}")
    message: dict[str, Any] = {"role": "assistant", "content": "".join(texts) or None}
    if thinking:
        message["reasoning_content"] = "".join(thinking)
    if calls:
        message["tool_calls"] = calls
    return message


def _tools(raw: Any) -> list[dict[str, Any]]:
    """Return the client tools (name, description, input_schema) as chat function tools.

    Anthropic's server tools (a ``type`` such as ``web_search_20250305``) are left
    out: a Cursor model cannot reach them here.
    """
    if raw is None:
        return []
    if not isinstance(raw, list):
        raise _invalid("'tools' must be a list")
    tools = []
    for index, tool in enumerate(raw):
        if not isinstance(tool, Mapping):
            raise _invalid(f"tools[{index}]: a tool must be an object")
        if tool.get("type") not in (None, "custom"):
            continue
        name = tool.get("name")
        schema = tool.get("input_schema")
        if not isinstance(name, str) or not name:
            raise _invalid(f"tools[{index}]: a tool needs a 'name'")
        if not isinstance(schema, Mapping):
            raise _invalid(f"tools[{index}]: a tool needs an 'input_schema' object")
        function: dict[str, Any] = {"name": name, "parameters": dict(schema)}
        if isinstance(tool.get("description"), str):
            function["description"] = tool["description"]
        tools.append({"type": "function", "function": function})
    return tools


def _choice(raw: Any, names: list[str]) -> tuple[ToolDemand | None, bool]:
    """Return (the demand of ``tool_choice``, whether tools are withheld) for NAMES offered."""
    if raw is None:
        return None, False
    kind = raw.get("type") if isinstance(raw, Mapping) else None
    if kind == "auto" or (kind == "any" and not names):
        return None, False
    if kind == "none":
        return None, True
    if kind == "any":
        return ToolDemand(), False
    if kind == "tool" and isinstance(raw, Mapping):
        name = raw.get("name")
        if not isinstance(name, str) or name not in names:
            raise _invalid(f"tool_choice names {name!r}, which 'tools' does not offer")
        return ToolDemand(name), False
    raise _invalid("'tool_choice' must be of type auto, any, tool or none")


def _effort(data: Mapping[str, Any]) -> str | None:
    """Return the effort ``thinking`` and ``output_config.effort`` ask for (None: off)."""
    thinking = data.get("thinking")
    kind = thinking.get("type") if isinstance(thinking, Mapping) else None
    if kind in (None, "disabled"):
        return None
    config = data.get("output_config")
    said = config.get("effort") if isinstance(config, Mapping) else None
    if isinstance(said, str) and said.strip():
        return said.strip().lower()
    if kind == "enabled" and isinstance(thinking, Mapping):
        return effort_of_budget(thinking.get("budget_tokens"))
    return "medium" if kind == "adaptive" else None


def parse_messages_request(body: bytes, *, session_header: str | None = None) -> RoundRequest:
    """Return the RoundRequest a Messages BODY spells; ApiError 400 when it is not well-formed.

    The session is ``session_header`` (``x-session-id``) when given, else
    ``metadata.user_id`` (Claude Code puts its session there), else none.
    """
    data = _load(body)
    model = data.get("model")
    if not isinstance(model, str) or not model.strip():
        raise _invalid("'model' is required")
    raw_messages = data.get("messages")
    if not isinstance(raw_messages, list) or not raw_messages:
        raise _invalid("'messages' must be a non-empty list")
    system_parts = [_system_text(data.get("system"))]
    messages: list[dict[str, Any]] = []
    for index, message in enumerate(raw_messages):
        where = f"messages[{index}]"
        if not isinstance(message, Mapping):
            raise _invalid(f"{where}: a message must be an object")
        role = message.get("role")
        content = message.get("content")
        if role == "user":
            messages += _user_messages(content, where)
        elif role == "assistant":
            messages.append(_assistant_message(content, where))
        elif role == "system":
            text = _system_text(content, f"{where}.content")
            if not messages:
                system_parts.append(text)
            else:
                messages.append({"role": "system", "content": text})
        else:
            raise _invalid(f"{where}: unsupported role {role!r} (use user or assistant)")
    if not any(m["role"] in ("user", "tool") for m in messages):
        raise _invalid("'messages' needs a user message")
    tools = _tools(data.get("tools"))
    names = [t["function"]["name"] for t in tools]
    demand, withheld = _choice(data.get("tool_choice"), names)
    if withheld:
        tools = []
    elif demand is not None and demand.name is not None:
        tools = [t for t in tools if t["function"]["name"] == demand.name]
    stream = data.get("stream", False)
    if not isinstance(stream, bool | None):
        raise _invalid("'stream' must be a boolean")
    metadata = data.get("metadata")
    user = metadata.get("user_id") if isinstance(metadata, Mapping) else None
    session = (session_header or "").strip() or (
        user.strip() if isinstance(user, str) and user.strip() else None
    )
    name = model.strip()
    return RoundRequest(
        model=name.removeprefix(MODEL_PREFIX),
        messages=messages,
        system="\n\n".join(t for t in system_parts if t) or None,
        tools=tools,
        effort=_effort(data),
        stream=bool(stream),
        session_id=session,
        requested_model=name,
        tool_demand=demand,
        lenient_effort=True,
    )


def count_tokens(body: bytes) -> dict[str, Any]:
    """Return ``{"input_tokens": N}``: an estimate (a quarter of the JSON's characters).

    Cursor's service offers no tokenizer, so this is said to be an estimate in
    the README; it is close enough for a client deciding when to compact.
    """
    data = _load(body)
    counted = {k: data.get(k) for k in ("system", "messages", "tools") if k in data}
    text = json.dumps(counted, ensure_ascii=False, separators=(",", ":"))
    return {"input_tokens": max(1, len(text) // 4)}


# Models ---------------------------------------------------------------------------------------


def _version(model_id: str) -> tuple[int, ...]:
    """Return the version numbers in a model id (claude-opus-4-8 → (4, 8))."""
    return tuple(int(n) for n in re.findall(r"\d+", model_id))


def _newest(candidates: list[str]) -> str | None:
    """Return the newest of CANDIDATES: highest version, then a plain id over a -fast/-max one."""
    if not candidates:
        return None

    def rank(model_id: str) -> tuple[tuple[int, ...], int, int]:
        special = int(model_id.endswith(("-fast", "-max")) or "-max-" in model_id)
        return (_version(model_id), -special, -len(model_id))

    return max(candidates, key=rank)


def cursor_model(name: str, listed: Collection[str], aliases: Mapping[str, str]) -> str:
    """Return the Cursor model that serves NAME, a model id as an Anthropic client sent it.

    A configured alias (the whole name, or a family word: ``opus``, ``sonnet``,
    ``haiku``) wins; then a Cursor id is itself; then an Anthropic name
    (``claude-…-opus|sonnet|haiku…``) is the newest LISTED Claude model of its
    family, else the newest listed Claude model. Anything else is left as it is
    (the round then refuses it by name).
    """
    bare = name.removeprefix(MODEL_PREFIX)
    if bare in aliases:
        return aliases[bare]
    if bare in listed:
        return bare
    lower = bare.lower()
    family = next((f for f in FAMILIES if f in lower), None)
    if not lower.startswith("claude") or family is None:
        return bare
    if family in aliases:
        return aliases[family]
    claude = [m for m in listed if m.lower().startswith("claude")]
    return _newest([m for m in claude if family in m.lower()]) or _newest(claude) or bare


# Answers --------------------------------------------------------------------------------------


def _signature(thinking: str) -> str:
    """Return the signature a thinking block carries (clients replay it; nothing checks it)."""
    return "nodecode-" + hashlib.sha256(thinking.encode("utf-8")).hexdigest()[:32]


def _usage(usage: Usage) -> dict[str, Any]:
    """Return Anthropic's usage: input excludes cache reads and writes, as Anthropic counts."""
    return {
        "input_tokens": usage.input,
        "output_tokens": usage.output,
        "cache_read_input_tokens": usage.cache_read,
        "cache_creation_input_tokens": usage.cache_write,
    }


def _input_of(arguments: str) -> Any:
    """Return a tool call's arguments as the ``input`` object (an empty one when unreadable)."""
    try:
        value = json.loads(arguments) if arguments else {}
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def message_object(result: RoundResult, *, id: str, model: str) -> dict[str, Any]:
    """Return the ``message`` answer to a round that returned RESULT."""
    message = result.message
    content: list[dict[str, Any]] = []
    if message.get("reasoning_content"):
        thought = str(message["reasoning_content"])
        content.append({"type": "thinking", "thinking": thought, "signature": _signature(thought)})
    if message.get("content"):
        content.append({"type": "text", "text": str(message["content"])})
    for call in message.get("tool_calls") or []:
        function = call.get("function") or {}
        content.append(
            {
                "type": "tool_use",
                "id": str(call.get("id")),
                "name": str(function.get("name")),
                "input": _input_of(str(function.get("arguments") or "")),
            }
        )
    return {
        "id": id,
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": _STOP_REASONS.get(result.finish_reason, "end_turn"),
        "stop_sequence": None,
        "usage": _usage(result.usage),
    }


def _event(kind: str, data: Mapping[str, Any]) -> bytes:
    """Return one SSE event of KIND (its data carries the type too, as Anthropic's do)."""
    text = json.dumps({"type": kind, **data}, ensure_ascii=False, separators=(",", ":"))
    return f"event: {kind}\ndata: {text}\n\n".encode()


class MessagesReply:
    """How the Messages API answers one round: a ``message``, or its stream of events."""

    def __init__(self, request: RoundRequest) -> None:
        self.id = f"msg_{uuid.uuid4().hex}"
        self.model = request.requested_model
        self._began = False
        self._block = -1  # the index of the open content block (-1: none)
        self._kind: str | None = None  # its kind: text, thinking or tool_use
        self._thinking = ""
        self._calls: dict[int, int] = {}  # tool call index -> its block index

    def answer(self, result: RoundResult) -> dict[str, Any]:
        """Return the ``message`` of RESULT."""
        return message_object(result, id=self.id, model=self.model)

    def error_body(self, error: ApiError) -> dict[str, Any]:
        """Return Anthropic's error object."""
        return error_body(error)

    def _begin(self) -> list[bytes]:
        if self._began:
            return []
        self._began = True
        shell: dict[str, Any] = {
            "id": self.id,
            "type": "message",
            "role": "assistant",
            "model": self.model,
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": {"input_tokens": 0, "output_tokens": 0},
        }
        return [_event("message_start", {"message": shell}), _event("ping", {})]

    def _stop(self) -> list[bytes]:
        """Return the events that close the open block, if one is open."""
        if self._kind is None:
            return []
        out = []
        if self._kind == "thinking":
            delta = {"type": "signature_delta", "signature": _signature(self._thinking)}
            out.append(_event("content_block_delta", {"index": self._block, "delta": delta}))
        out.append(_event("content_block_stop", {"index": self._block}))
        self._kind = None
        return out

    def _open(self, kind: str, block: dict[str, Any]) -> list[bytes]:
        out = self._stop()
        self._block += 1
        self._kind = kind
        out.append(_event("content_block_start", {"index": self._block, "content_block": block}))
        return out

    def events(self, part: StreamPart) -> list[bytes]:
        """Return the events PART becomes."""
        out: list[bytes] = []
        if isinstance(part, contract.ReasoningDelta) and part.text:
            out += self._begin()
            if self._kind != "thinking":
                out += self._open("thinking", {"type": "thinking", "thinking": "", "signature": ""})
                self._thinking = ""
            self._thinking += part.text
            delta = {"type": "thinking_delta", "thinking": part.text}
            out.append(_event("content_block_delta", {"index": self._block, "delta": delta}))
        elif isinstance(part, contract.TextDelta) and part.text:
            out += self._begin()
            if self._kind != "text":
                out += self._open("text", {"type": "text", "text": ""})
            delta = {"type": "text_delta", "text": part.text}
            out.append(_event("content_block_delta", {"index": self._block, "delta": delta}))
        elif isinstance(part, contract.ToolCallStart):
            out += self._begin()
            block = {"type": "tool_use", "id": part.id, "name": part.name, "input": {}}
            out += self._open("tool_use", block)
            self._calls[part.index] = self._block
        elif isinstance(part, contract.ToolCallArgsDelta) and part.delta:
            index = self._calls.get(part.index)
            if index is not None:
                delta = {"type": "input_json_delta", "partial_json": part.delta}
                out.append(_event("content_block_delta", {"index": index, "delta": delta}))
        return out

    def closing(self, result: RoundResult) -> list[bytes]:
        """Return the events that end the stream: the open block's stop, the stop reason, usage."""
        out = self._begin()
        out += self._stop()
        delta = {
            "stop_reason": _STOP_REASONS.get(result.finish_reason, "end_turn"),
            "stop_sequence": None,
        }
        out.append(_event("message_delta", {"delta": delta, "usage": _usage(result.usage)}))
        out.append(_event("message_stop", {}))
        return out

    def failed(self, error: ApiError) -> bytes:
        """Return the ``error`` event that ends a begun stream."""
        return _event("error", {"error": error_body(error)["error"]})
