"""OpenAI's chat-completions API in terms of the cell's rounds: requests in, answers and chunks out.

Pure translation, no sockets: ``parse_chat_request`` reads a
``POST /v1/chat/completions`` body into a ``ChatRequest`` (the model without its
``cursor/`` prefix, the messages, the system prompt, the function tools, the
effort, the session), which ``ChatRequest.context`` turns into the lane's
``RoundContext``. ``completion_object`` turns a ``RoundResult`` into a
``chat.completion``; ``ChunkStream`` turns the lane's stream parts into
``chat.completion.chunk`` objects as they arrive, and ``sse_event`` frames one
for Server-Sent Events. ``models_object`` answers ``GET /v1/models`` from a
roster; ``error_object`` and ``error_for`` give OpenAI's error shape.

The lane already speaks OpenAI-shaped messages and tools, so the messages pass
through after a shape check. Running the round, streaming and
disconnects are ``routes.py``'s; the HTTP side (h11, asyncio, the API key)
``http_server.py``'s.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from . import contract
from .api_round import (
    EFFORT_NONE,
    MODEL_PREFIX,
    ApiError,
    OutputDemand,
    RoundRequest,
    ToolDemand,
    error_for,
    error_object,
    internal_error,
)

if TYPE_CHECKING:
    from nodecode_cursor.host import RoundResult, StreamPart, Usage

__all__ = [
    "DONE_EVENT",
    "MODEL_PREFIX",
    "ApiError",
    "ChatReply",
    "ChatRequest",
    "ChunkStream",
    "RoundRequest",
    "completion_id",
    "completion_object",
    "error_for",
    "error_object",
    "internal_error",
    "model_object",
    "models_object",
    "output_demand",
    "parse_chat_request",
    "sse_event",
    "tool_demand",
    "usage_object",
]

OWNER = "cursor"
ROLES = ("system", "developer", "user", "assistant", "tool")
DONE_EVENT = b"data: [DONE]\n\n"

# Requests ------------------------------------------------------------------------------------


# A chat request is a round request: the other APIs read theirs into the same shape.
ChatRequest = RoundRequest


def _invalid(message: str, code: str = "invalid_request") -> ApiError:
    return ApiError(400, message, code=code)


def _text_of(content: Any, where: str) -> str:
    """Return the text of a system message's CONTENT (a string or text parts)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts: list[str] = []
        for part in content:
            if not isinstance(part, Mapping) or part.get("type") != "text":
                raise _invalid(f"{where}: a system message takes only text parts")
            text = part.get("text")
            if not isinstance(text, str):
                raise _invalid(f"{where}: a text part needs a string 'text'")
            texts.append(text)
        return "\n".join(texts)
    raise _invalid(f"{where}: 'content' must be a string or a list of parts")


def _check_parts(content: Any, where: str) -> None:
    """Raise ApiError unless CONTENT is a string, null, or a list of text/image parts."""
    if content is None or isinstance(content, str):
        return
    if not isinstance(content, list):
        raise _invalid(f"{where}: 'content' must be a string or a list of parts")
    for index, part in enumerate(content):
        spot = f"{where}.content[{index}]"
        if not isinstance(part, Mapping):
            raise _invalid(f"{spot}: a content part must be an object")
        kind = part.get("type")
        if kind == "text":
            if not isinstance(part.get("text"), str):
                raise _invalid(f"{spot}: a text part needs a string 'text'")
        elif kind == "image_url":
            image = part.get("image_url")
            url = image.get("url") if isinstance(image, Mapping) else image
            if not isinstance(url, str) or not url.startswith("data:"):
                raise _invalid(f"{spot}: only data: URLs are supported for images")
        else:
            raise _invalid(f"{spot}: unsupported content part type {kind!r}")


def _check_message(message: Any, index: int) -> dict[str, Any]:
    """Return MESSAGE as a plain dict after checking its shape; ApiError when it is not one."""
    where = f"messages[{index}]"
    if not isinstance(message, Mapping):
        raise _invalid(f"{where}: a message must be an object")
    role = message.get("role")
    if role not in ROLES:
        raise _invalid(f"{where}: unsupported role {role!r} (use one of {', '.join(ROLES)})")
    content = message.get("content")
    if role in ("system", "developer"):
        _text_of(content, where)
    elif role == "user":
        if content is None:
            raise _invalid(f"{where}: a user message needs 'content'")
        _check_parts(content, where)
    elif role == "tool":
        if not isinstance(message.get("tool_call_id"), str):
            raise _invalid(f"{where}: a tool message needs a string 'tool_call_id'")
        _check_parts(content, where)
    else:
        _check_parts(content, where)
        calls = message.get("tool_calls")
        if calls is not None:
            if not isinstance(calls, list):
                raise _invalid(f"{where}: 'tool_calls' must be a list")
            for spot, call in enumerate(calls):
                function = call.get("function") if isinstance(call, Mapping) else None
                if (
                    not isinstance(call, Mapping)
                    or not isinstance(call.get("id"), str)
                    or not isinstance(function, Mapping)
                    or not isinstance(function.get("name"), str)
                ):
                    raise _invalid(
                        f"{where}.tool_calls[{spot}]: needs 'id' and 'function' with 'name'"
                    )
    return dict(message)


def _split_system(messages: list[dict[str, Any]]) -> tuple[str | None, list[dict[str, Any]]]:
    """Return (the leading system/developer messages' text, the messages after them)."""
    texts: list[str] = []
    start = 0
    for message in messages:
        if message.get("role") not in ("system", "developer"):
            break
        texts.append(_text_of(message.get("content"), "messages"))
        start += 1
    system = "\n\n".join(t for t in texts if t) or None
    return system, messages[start:]


def _check_tools(raw: Any, choice: Any) -> list[dict[str, Any]]:
    """Return the tools offered: none for ``tool_choice: "none"``, only a named one's when named."""
    if raw is None:
        return []
    if not isinstance(raw, list):
        raise _invalid("'tools' must be a list")
    tools: list[dict[str, Any]] = []
    for index, tool in enumerate(raw):
        where = f"tools[{index}]"
        if not isinstance(tool, Mapping) or tool.get("type") != "function":
            raise _invalid(f"{where}: only function tools are supported")
        function = tool.get("function")
        if not isinstance(function, Mapping) or not isinstance(function.get("name"), str):
            raise _invalid(f"{where}: a function tool needs 'function' with a 'name'")
        parameters = function.get("parameters")
        if parameters is not None and not isinstance(parameters, Mapping):
            raise _invalid(f"{where}: 'parameters' must be a JSON Schema object")
        tools.append(dict(tool))
    demand = tool_demand(choice, [t["function"]["name"] for t in tools])
    if choice == "none":
        return []
    if demand is not None and demand.name is not None:
        return [t for t in tools if t["function"]["name"] == demand.name]
    return tools


def tool_demand(choice: Any, names: list[str]) -> ToolDemand | None:
    """Return the demand ``tool_choice`` makes (None for auto/none/absent); 400 when malformed."""
    if choice is None or choice in ("auto", "none"):
        return None
    if choice == "required":
        if not names:
            raise _invalid("tool_choice 'required' needs 'tools'", "invalid_tool_choice")
        return ToolDemand()
    function = choice.get("function") if isinstance(choice, Mapping) else None
    name = function.get("name") if isinstance(function, Mapping) else None
    if not isinstance(choice, Mapping) or choice.get("type") != "function" or not name:
        raise _invalid(
            "'tool_choice' must be 'auto', 'none', 'required' or "
            '{"type": "function", "function": {"name": ...}}',
            "invalid_tool_choice",
        )
    if name not in names:
        raise _invalid(f"tool_choice names {name!r}, which 'tools' does not offer")
    return ToolDemand(str(name))


def output_demand(raw: Any, where: str = "response_format") -> OutputDemand | None:
    """Return the demand ``response_format`` makes (None for text/absent); 400 when malformed."""
    if raw is None:
        return None
    kind = raw.get("type") if isinstance(raw, Mapping) else None
    if kind == "text":
        return None
    if kind == "json_object":
        return OutputDemand()
    if kind == "json_schema":
        # Chat nests the schema under json_schema; the Responses API's text.format does not.
        spec = raw.get("json_schema", raw)
        schema = spec.get("schema") if isinstance(spec, Mapping) else None
        if not isinstance(schema, Mapping):
            raise _invalid(f"{where}: a json_schema format needs a 'schema' object")
        name = spec.get("name")
        return OutputDemand(dict(schema), name if isinstance(name, str) and name else "answer")
    raise _invalid(f"{where}: 'type' must be text, json_object or json_schema")


def _effort(raw: Any) -> str | None:
    """Return the round's effort from ``reasoning_effort`` (None when absent or off)."""
    if raw is None:
        return None
    if not isinstance(raw, str):
        raise _invalid("'reasoning_effort' must be a string", "unsupported_effort")
    effort = raw.strip().lower()
    return None if effort == EFFORT_NONE or not effort else effort


def parse_chat_request(body: bytes, *, session_header: str | None = None) -> ChatRequest:
    """Return the ChatRequest BODY spells; ApiError 400 when it is not JSON or not well-formed.

    The session is ``session_header`` (the ``x-session-id`` header) when given,
    else the ``user`` field, else none (an ephemeral round).
    """
    try:
        data = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise _invalid("the request body is not valid JSON", "invalid_json") from None
    if not isinstance(data, dict):
        raise _invalid("the request body must be a JSON object")
    model = data.get("model")
    if not isinstance(model, str) or not model.strip():
        raise _invalid("'model' is required (a Cursor model id, e.g. cursor/composer-2.5)")
    raw_messages = data.get("messages")
    if not isinstance(raw_messages, list) or not raw_messages:
        raise _invalid("'messages' must be a non-empty list")
    messages = [_check_message(m, i) for i, m in enumerate(raw_messages)]
    system, rest = _split_system(messages)
    if not rest:
        raise _invalid("'messages' needs a user message after the system prompt")
    n = data.get("n", 1)
    if n not in (1, None):
        raise _invalid("only n=1 is supported")
    stream = data.get("stream", False)
    if not isinstance(stream, bool | None):
        raise _invalid("'stream' must be a boolean")
    options = data.get("stream_options")
    include_usage = isinstance(options, Mapping) and options.get("include_usage") is True
    user = data.get("user")
    session = (session_header or "").strip() or (
        user.strip() if isinstance(user, str) and user.strip() else None
    )
    name = model.strip()
    tools = _check_tools(data.get("tools"), data.get("tool_choice"))
    return ChatRequest(
        model=name.removeprefix(MODEL_PREFIX),
        messages=rest,
        system=system,
        tools=tools,
        effort=_effort(data.get("reasoning_effort")),
        stream=bool(stream),
        include_usage=include_usage,
        session_id=session,
        requested_model=name,
        tool_demand=None if not tools else tool_demand(data.get("tool_choice"), _names(tools)),
        output_demand=output_demand(data.get("response_format")),
    )


def _names(tools: list[dict[str, Any]]) -> list[str]:
    """Return the names of chat function TOOLS."""
    return [str(t["function"]["name"]) for t in tools]


# Answers -------------------------------------------------------------------------------------


def completion_id() -> str:
    """Return a fresh chat-completion id."""
    return f"chatcmpl-{uuid.uuid4().hex}"


def usage_object(usage: Usage) -> dict[str, Any]:
    """Return OpenAI's usage object: prompt tokens count cache reads and writes."""
    prompt = usage.input + usage.cache_read + usage.cache_write
    return {
        "prompt_tokens": prompt,
        "completion_tokens": usage.output,
        "total_tokens": prompt + usage.output,
        "prompt_tokens_details": {"cached_tokens": usage.cache_read},
        "completion_tokens_details": {"reasoning_tokens": usage.reasoning},
    }


def _answer_message(message: Mapping[str, Any]) -> dict[str, Any]:
    """Return the assistant message as OpenAI answers it (content null when it is empty)."""
    out: dict[str, Any] = {"role": "assistant", "content": message.get("content") or None}
    if message.get("reasoning_content"):
        out["reasoning_content"] = message["reasoning_content"]
    calls = message.get("tool_calls")
    if calls:
        out["tool_calls"] = [dict(call) for call in calls]
    return out


def _whole_answer(result: RoundResult) -> dict[str, Any]:
    """Return the round as one assistant message: every message's text, the host's calls.

    A round may close its message on resolved calls (Cursor's own tools refused mid-run,
    ``RoundResult.messages``); an API client gets the whole text, as it streamed.
    """
    said = [m for m in getattr(result, "messages", None) or [] if m.get("role") == "assistant"]
    if len(said) <= 1:
        return dict(result.message)
    whole = dict(result.message)
    whole["content"] = "".join(str(m.get("content") or "") for m in said) or None
    thinking = [m["reasoning_content"] for m in said if "reasoning_content" in m]
    if thinking:
        whole["reasoning_content"] = "".join(str(t) for t in thinking)
    return whole


def completion_object(result: RoundResult, *, id: str, model: str, created: int) -> dict[str, Any]:
    """Return the ``chat.completion`` answer to a round that returned RESULT."""
    return {
        "id": id,
        "object": "chat.completion",
        "created": created,
        "model": model,
        "system_fingerprint": None,
        "choices": [
            {
                "index": 0,
                "message": _answer_message(_whole_answer(result)),
                "logprobs": None,
                "finish_reason": result.finish_reason,
            }
        ],
        "usage": usage_object(result.usage),
    }


class ChunkStream:
    """Turns one round's stream parts into ``chat.completion.chunk`` objects, in order.

    The role chunk is held back until the first delta that says something, so a
    round that fails before any output can still be answered with an HTTP error
    instead of a stream already begun.
    """

    def __init__(self, *, id: str, model: str, created: int, include_usage: bool = False):
        self.id = id
        self.model = model
        self.created = created
        self.include_usage = include_usage
        self._role_sent = False

    def _chunk(
        self, delta: dict[str, Any], finish: str | None = None, *, usage: Any = None
    ) -> dict[str, Any]:
        chunk: dict[str, Any] = {
            "id": self.id,
            "object": "chat.completion.chunk",
            "created": self.created,
            "model": self.model,
            "system_fingerprint": None,
            "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}],
        }
        if self.include_usage:
            chunk["usage"] = usage
        return chunk

    def _with_role(self, delta: dict[str, Any]) -> list[dict[str, Any]]:
        """Return the chunks for DELTA, the role chunk first when it has not been sent."""
        out: list[dict[str, Any]] = []
        if not self._role_sent:
            self._role_sent = True
            out.append(self._chunk({"role": "assistant", "content": ""}))
        out.append(self._chunk(delta))
        return out

    def part(self, part: StreamPart) -> list[dict[str, Any]]:
        """Return the chunks PART becomes (none for the stream's start and finish markers)."""
        if isinstance(part, contract.TextDelta):
            return self._with_role({"content": part.text}) if part.text else []
        if isinstance(part, contract.ReasoningDelta):
            return self._with_role({"reasoning_content": part.text}) if part.text else []
        if isinstance(part, contract.ToolCallStart):
            call = {
                "index": part.index,
                "id": part.id,
                "type": "function",
                "function": {"name": part.name, "arguments": ""},
            }
            return self._with_role({"tool_calls": [call]})
        if isinstance(part, contract.ToolCallArgsDelta):
            if not part.delta:
                return []
            call = {"index": part.index, "function": {"arguments": part.delta}}
            return self._with_role({"tool_calls": [call]})
        if isinstance(part, contract.StreamStart | contract.Finish):
            return []
        return []  # pragma: no cover - every StreamPart is handled above

    def finish(self, result: RoundResult) -> list[dict[str, Any]]:
        """Return the closing chunks: the finish reason, then usage when it was asked for."""
        out: list[dict[str, Any]] = []
        if not self._role_sent:
            self._role_sent = True
            out.append(self._chunk({"role": "assistant", "content": ""}))
        out.append(self._chunk({}, result.finish_reason))
        if self.include_usage:
            usage = self._chunk({}, usage=usage_object(result.usage))
            usage["choices"] = []
            out.append(usage)
        return out


def sse_event(obj: Mapping[str, Any]) -> bytes:
    """Return OBJ as one Server-Sent Events ``data:`` event."""
    text = json.dumps(obj, ensure_ascii=False, separators=(",", ":"))
    return b"data: " + text.encode("utf-8") + b"\n\n"


class ChatReply:
    """How chat completions answers one round: a ``chat.completion``, or its chunks as SSE."""

    def __init__(self, request: RoundRequest) -> None:
        self.id = completion_id()
        self.model = request.requested_model
        self.created = int(time.time())
        self.chunks = ChunkStream(
            id=self.id, model=self.model, created=self.created, include_usage=request.include_usage
        )

    def answer(self, result: RoundResult) -> dict[str, Any]:
        """Return the ``chat.completion`` of RESULT."""
        return completion_object(result, id=self.id, model=self.model, created=self.created)

    def events(self, part: StreamPart) -> list[bytes]:
        """Return the chunk events PART becomes."""
        return [sse_event(chunk) for chunk in self.chunks.part(part)]

    def closing(self, result: RoundResult) -> list[bytes]:
        """Return the closing chunks and ``[DONE]``."""
        return [*(sse_event(chunk) for chunk in self.chunks.finish(result)), DONE_EVENT]

    def failed(self, error: ApiError) -> bytes:
        """Return the error event that ends a begun stream (without ``[DONE]``)."""
        return sse_event(error.body())

    def error_body(self, error: ApiError) -> dict[str, Any]:
        """Return OpenAI's error object."""
        return error.body()


# Models --------------------------------------------------------------------------------------


def model_object(
    model_id: str, name: str, window: int, extra: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """Return OpenAI's model object (``GET /v1/models/{id}``) for one row.

    EXTRA holds what the account's model catalog says of it (the max-mode window,
    images, thinking, parameter axes), each field only when known.
    """
    found = {
        "id": model_id,
        "object": "model",
        "created": 0,
        "owned_by": OWNER,
        "name": name,
        "context_window": window,
    }
    found.update({key: value for key, value in (extra or {}).items() if value is not None})
    return found


def models_object(
    rows: Iterable[tuple[str, str, int, Mapping[str, Any] | None]],
) -> dict[str, Any]:
    """Return the ``GET /v1/models`` answer for ROWS of (id, name, window, catalog extras)."""
    return {"object": "list", "data": [model_object(*row) for row in rows]}
