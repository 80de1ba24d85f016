"""OpenAI's Responses API read into the cell's terms: a ``POST /v1/responses`` body in, a round out.

Pure translation, no sockets: ``parse_responses_request`` reads the body
(``input`` as a string or items: messages, ``function_call``,
``function_call_output``, ``reasoning``, ``item_reference``; ``instructions``;
function ``tools``; ``tool_choice``; ``previous_response_id``;
``reasoning.effort``; ``text.format``; ``store``) into a ``ResponsesAsk``: a
``RoundRequest`` with chat-shaped messages and what the response echoes. Tools
that are not functions (web search, namespaces, custom grammars) are accepted
and not offered: Cursor's models cannot run them here.

A ``previous_response_id`` or an ``item_reference`` is looked up in the
server's ``responses_store.ResponseStore``, which keeps them; the answer (the
``response`` object and its typed events) is ``responses_reply.py``'s. The
route is ``routes.py``'s, the HTTP side ``http_server.py``'s.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from . import limits as host_limits
from .api_round import EFFORT_NONE, MODEL_PREFIX, ApiError, RoundRequest
from .openai_api import output_demand, tool_demand
from .responses_store import Kept, ResponseStore

__all__ = [
    "ResponsesAsk",
    "input_messages",
    "parse_responses_request",
]


def _invalid(message: str, code: str = "invalid_request") -> ApiError:
    return ApiError(400, message, code=code)


@dataclass(slots=True)
class ResponsesAsk:
    """A Responses request, read: the round it asks for and what its response echoes."""

    round: RoundRequest
    id: str
    created_at: int
    store: bool
    previous_response_id: str | None
    instructions: str | None
    tools: list[dict[str, Any]] = field(default_factory=list)
    tool_choice: Any = "auto"
    reasoning: dict[str, Any] | None = None
    text_format: dict[str, Any] | None = None
    metadata: dict[str, Any] | None = None


# Input ----------------------------------------------------------------------------------------


def _text_parts(content: Any, where: str) -> list[dict[str, Any]]:
    """Return CONTENT (a string or input/output parts) as chat content parts."""
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    if not isinstance(content, list):
        raise _invalid(f"{where}: 'content' must be a string or a list of parts")
    parts: list[dict[str, Any]] = []
    for index, part in enumerate(content):
        spot = f"{where}.content[{index}]"
        kind = part.get("type") if isinstance(part, Mapping) else None
        if kind in ("input_text", "output_text", "text", "summary_text", "reasoning_text"):
            text = part.get("text") if isinstance(part, Mapping) else None
            if not isinstance(text, str):
                raise _invalid(f"{spot}: a text part needs a string 'text'")
            parts.append({"type": "text", "text": text})
        elif kind == "refusal":
            parts.append({"type": "text", "text": str(part.get("refusal") or "")})
        elif kind == "input_image":
            url = part.get("image_url")
            if not isinstance(url, str) or not url.startswith("data:"):
                raise _invalid(f"{spot}: only data: URLs are supported for images")
            parts.append({"type": "image_url", "image_url": {"url": url}})
        else:
            raise _invalid(f"{spot}: unsupported content part type {kind!r}")
    return parts


def _joined(parts: list[dict[str, Any]]) -> str:
    """Return the text of chat content PARTS, joined."""
    return "".join(p["text"] for p in parts if p.get("type") == "text")


def _content(parts: list[dict[str, Any]]) -> str | list[dict[str, Any]]:
    """Return PARTS as a chat message's content: plain text when there is no image."""
    if all(p.get("type") == "text" for p in parts):
        return _joined(parts)
    return parts


def input_messages(raw: Any) -> list[dict[str, Any]]:
    """Return the chat messages a Responses ``input`` (a string or a list of items) spells.

    Function calls join the assistant message before them; a reasoning item's
    summary becomes the next assistant message's reasoning.
    """
    if isinstance(raw, str):
        return [{"role": "user", "content": raw}]
    if not isinstance(raw, list):
        raise _invalid("'input' must be a string or a list of items")
    messages: list[dict[str, Any]] = []
    reasoning: list[str] = []

    def assistant() -> dict[str, Any]:
        last = messages[-1] if messages else None
        if last is None or last.get("role") != "assistant":
            last = {"role": "assistant", "content": None}
            messages.append(last)
        if reasoning:
            last["reasoning_content"] = "\n".join(reasoning)
            reasoning.clear()
        return last

    for index, item in enumerate(raw):
        where = f"input[{index}]"
        if not isinstance(item, Mapping):
            raise _invalid(f"{where}: an input item must be an object")
        kind = item.get("type") or ("message" if "role" in item else None)
        if kind == "message":
            role = item.get("role")
            parts = _text_parts(item.get("content"), where)
            if role in ("system", "developer"):
                messages.append({"role": role, "content": _joined(parts)})
            elif role == "user":
                messages.append({"role": "user", "content": _content(parts)})
            elif role == "assistant":
                message = assistant()
                if message.get("tool_calls"):
                    message = {"role": "assistant", "content": None}
                    messages.append(message)
                message["content"] = (message.get("content") or "") + _joined(parts)
            else:
                raise _invalid(f"{where}: unsupported role {role!r}")
        elif kind in ("function_call", "custom_tool_call"):
            call_id = item.get("call_id")
            name = item.get("name")
            if not isinstance(call_id, str) or not isinstance(name, str):
                raise _invalid(f"{where}: a {kind} needs string 'call_id' and 'name'")
            arguments = item.get("arguments")
            if kind == "custom_tool_call":
                arguments = json.dumps({"input": item.get("input", "")})
            message = assistant()
            message.setdefault("tool_calls", []).append(
                {
                    "id": call_id,
                    "type": "function",
                    "function": {"name": name, "arguments": str(arguments or "{}")},
                }
            )
        elif kind in ("function_call_output", "custom_tool_call_output"):
            call_id = item.get("call_id")
            if not isinstance(call_id, str):
                raise _invalid(f"{where}: a {kind} needs a string 'call_id'")
            output = item.get("output")
            content: Any = output if isinstance(output, str) else None
            if content is None:
                content = _content(_text_parts(output or "", where))
            messages.append({"role": "tool", "tool_call_id": call_id, "content": content})
        elif kind == "reasoning":
            for part in item.get("summary") or []:
                if isinstance(part, Mapping) and isinstance(part.get("text"), str):
                    reasoning.append(part["text"])
        # Other items (web_search_call, local shell calls, compaction markers) are the
        # client's own business: Cursor's models never made them here, so they are left out.
    return messages


def _split_system(messages: list[dict[str, Any]]) -> tuple[list[str], list[dict[str, Any]]]:
    """Return (the leading system/developer texts, the messages after them)."""
    start = 0
    while start < len(messages) and messages[start].get("role") in ("system", "developer"):
        start += 1
    return [str(m.get("content") or "") for m in messages[:start]], messages[start:]


def _function_tools(raw: Any) -> list[dict[str, Any]]:
    """Return the Responses function tools in RAW (other tool types are left out)."""
    if raw is None:
        return []
    if not isinstance(raw, list):
        raise _invalid("'tools' must be a list")
    tools: list[dict[str, Any]] = []
    for index, tool in enumerate(raw):
        if not isinstance(tool, Mapping):
            raise _invalid(f"tools[{index}]: a tool must be an object")
        if tool.get("type") != "function":
            continue
        name = tool.get("name")
        parameters = tool.get("parameters")
        if not isinstance(name, str) or not name:
            raise _invalid(f"tools[{index}]: a function tool needs a 'name'")
        if parameters is not None and not isinstance(parameters, Mapping):
            raise _invalid(f"tools[{index}]: 'parameters' must be a JSON Schema object")
        tools.append(dict(tool))
    return tools


def _chat_tool(tool: Mapping[str, Any]) -> dict[str, Any]:
    """Return a Responses function tool as a chat function tool."""
    function: dict[str, Any] = {"name": tool["name"]}
    if isinstance(tool.get("description"), str):
        function["description"] = tool["description"]
    function["parameters"] = dict(tool.get("parameters") or {"type": "object", "properties": {}})
    return {"type": "function", "function": function}


def _chat_choice(choice: Any) -> Any:
    """Return a Responses ``tool_choice`` in chat's spelling."""
    if isinstance(choice, Mapping) and choice.get("type") == "function":
        return {"type": "function", "function": {"name": choice.get("name")}}
    if isinstance(choice, Mapping) and choice.get("type") == "allowed_tools":
        return "required" if choice.get("mode") == "required" else "auto"
    return choice


def _referenced(raw: Any, store: ResponseStore, budget: int) -> Any:
    """Return the input RAW with each ``item_reference`` replaced by the kept item it names.

    ApiError 400 names a reference to an item this server does not hold: one never
    answered here, one forgotten, or one of a response sent with ``store: false``.
    The items resolved may weigh BUDGET bytes together (what the request's body left
    of its cap), else ApiError 413: a few bytes of reference must not stand for
    more than a body could carry.
    """
    if not isinstance(raw, list):
        return raw
    out: list[Any] = []
    resolved = 0
    for index, item in enumerate(raw):
        if not (isinstance(item, Mapping) and item.get("type") == "item_reference"):
            out.append(item)
            continue
        item_id = item.get("id")
        where = f"input[{index}]"
        if not isinstance(item_id, str) or not item_id:
            raise _invalid(f"{where}: an item_reference needs a string 'id'")
        found = store.item(item_id)
        if found is not None:
            resolved += store.item_size(item_id)
            if resolved > budget:
                limit = host_limits.SERVE_MAX_BODY_BYTES // (1024 * 1024)
                raise ApiError(
                    413,
                    f"{where}: the request with its item references resolved passes the "
                    f"{limit} MiB a request may carry; send fewer references",
                    code="request_too_large",
                )
            out.append(found)
        elif store.unstored(item_id):
            raise _invalid(
                f"{where}: item {item_id!r} came in a response sent with store: false, so it "
                "was not kept; send the item itself, or store the response",
                "item_not_found",
            )
        else:
            raise _invalid(
                f"{where}: item {item_id!r} is not kept here (the server keeps the output "
                f"items of the last {store.capacity} stored responses, in memory); send the "
                "item itself",
                "item_not_found",
            )
    return out


def parse_responses_request(
    body: bytes, store: ResponseStore, *, session_header: str | None = None
) -> ResponsesAsk:
    """Return the ResponsesAsk BODY spells; ApiError 400 when it is not JSON or not well-formed.

    A ``previous_response_id`` puts the kept conversation before the new input
    and keeps its Cursor session; otherwise the session is ``session_header``,
    else ``prompt_cache_key`` (Codex sends one per conversation), else a new one
    for a response that is stored, else none.
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
    if "input" not in data:
        raise _invalid("'input' is required")
    budget = host_limits.SERVE_MAX_BODY_BYTES - len(body)
    new = input_messages(_referenced(data.get("input"), store, budget))
    response_id = f"resp_{uuid.uuid4().hex}"
    previous = data.get("previous_response_id")
    kept: Kept | None = None
    if previous is not None:
        if not isinstance(previous, str):
            raise _invalid("'previous_response_id' must be a string")
        kept = store.get(previous)
        if kept is None:
            raise _invalid(
                f"previous response {previous!r} is not kept here (the server keeps the last "
                f"{store.capacity} stored responses, in memory)",
                "previous_response_not_found",
            )
    instructions = data.get("instructions")
    if instructions is not None and not isinstance(instructions, str):
        raise _invalid("'instructions' must be a string")
    leading, rest = _split_system(new)
    if kept is not None:
        # Instructions are not carried over from the previous response (as OpenAI's are not).
        messages = [*kept.messages, *new]
        system_parts = [instructions] if instructions else []
    else:
        messages = rest
        system_parts = [t for t in (instructions, *leading) if t]
    if not messages or not any(m.get("role") in ("user", "tool") for m in messages):
        raise _invalid("'input' needs a user message or a function call output")
    raw_tools = _function_tools(data.get("tools"))
    tools = [_chat_tool(t) for t in raw_tools]
    choice = _chat_choice(data.get("tool_choice"))
    names = [t["function"]["name"] for t in tools]
    demand = tool_demand(choice, names) if tools else None
    if choice == "none":
        tools = []
    elif demand is not None and demand.name is not None:
        tools = [t for t in tools if t["function"]["name"] == demand.name]
    reasoning = data.get("reasoning")
    effort: str | None = None
    if isinstance(reasoning, Mapping) and reasoning.get("effort") is not None:
        raw_effort = reasoning.get("effort")
        if not isinstance(raw_effort, str):
            raise _invalid("'reasoning.effort' must be a string", "unsupported_effort")
        effort = raw_effort.strip().lower() or None
        if effort == EFFORT_NONE:
            effort = None
    text = data.get("text")
    text_format = text.get("format") if isinstance(text, Mapping) else None
    stored = data.get("store", True) is not False
    cache_key = data.get("prompt_cache_key")
    session = (
        (kept.session_id if kept else None)
        or (session_header or "").strip()
        or (cache_key.strip() if isinstance(cache_key, str) and cache_key.strip() else None)
        or (f"responses:{response_id}" if stored else None)
    )
    stream = data.get("stream", False)
    if not isinstance(stream, bool | None):
        raise _invalid("'stream' must be a boolean")
    name = model.strip()
    request = RoundRequest(
        model=name.removeprefix(MODEL_PREFIX),
        messages=messages,
        system="\n\n".join(system_parts) or (kept.system if kept else None),
        tools=tools,
        effort=effort,
        stream=bool(stream),
        session_id=session,
        requested_model=name,
        tool_demand=demand,
        output_demand=output_demand(text_format, "text.format"),
        lenient_effort=True,
    )
    metadata = data.get("metadata")
    return ResponsesAsk(
        round=request,
        id=response_id,
        created_at=int(time.time()),
        store=stored,
        previous_response_id=previous,
        instructions=instructions,
        tools=raw_tools,
        tool_choice=data.get("tool_choice") or "auto",
        reasoning=dict(reasoning) if isinstance(reasoning, Mapping) else None,
        text_format=dict(text_format) if isinstance(text_format, Mapping) else None,
        metadata=dict(metadata) if isinstance(metadata, Mapping) else None,
    )


# Output ---------------------------------------------------------------------------------------
