"""OpenAI's Responses API in terms of the cell's rounds: requests in, responses and events out.

Pure translation, no sockets: ``parse_responses_request`` reads a
``POST /v1/responses`` body (``input`` as a string or items: messages,
``function_call``, ``function_call_output``, ``reasoning``; ``instructions``;
function ``tools``; ``tool_choice``; ``previous_response_id``;
``reasoning.effort``; ``text.format``; ``store``) into a ``RoundRequest`` with
chat-shaped messages. ``ResponsesReply`` answers the round as one ``response``
object or as the API's typed Server-Sent Events (``response.created`` …
``response.output_text.delta`` … ``response.completed``), and files the
answered conversation in a ``ResponseStore`` so a later request can continue it
by ``previous_response_id``. Tools that are not functions (web search,
namespaces, custom grammars) are accepted and not offered: Cursor's models
cannot run them here. The route is ``routes.py``'s, the HTTP
side ``http_server.py``'s.
"""

from __future__ import annotations

import copy
import json
import time
import uuid
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from . import contract
from . import limits as host_limits
from .api_round import EFFORT_NONE, MODEL_PREFIX, ApiError, RoundRequest
from .openai_api import output_demand, tool_demand

if TYPE_CHECKING:
    from nodecode_cursor.host import RoundResult, StreamPart, Usage

__all__ = [
    "ResponseStore",
    "ResponsesAsk",
    "ResponsesReply",
    "input_messages",
    "parse_responses_request",
    "response_usage",
]

# How many answered conversations are kept for previous_response_id (oldest forgotten first).
KEPT_RESPONSES = 256


def _invalid(message: str, code: str = "invalid_request") -> ApiError:
    return ApiError(400, message, code=code)


@dataclass(slots=True)
class _Kept:
    """One answered response's conversation: its messages (answer included), system, session."""

    messages: list[dict[str, Any]]
    system: str | None
    session_id: str
    # Its output items by id, for item_reference.
    items: dict[str, dict[str, Any]] = field(default_factory=dict)
    # What it weighs, as JSON: its whole (``size``) and each item's (set by the store).
    size: int = 0
    item_sizes: dict[str, int] = field(default_factory=dict)


def _weight(value: Any) -> int:
    """Return how many bytes VALUE takes as JSON (what the store and the budgets count)."""
    return len(json.dumps(value, ensure_ascii=False, default=str).encode("utf-8"))


class ResponseStore:
    """Answered responses by id, for ``previous_response_id``; bounded, oldest forgotten first.

    Their output items are kept by id too (``item``), for ``item_reference``; the ids of
    a ``store: false`` response's items are remembered only to say so (``unstored``).
    """

    def __init__(
        self,
        capacity: int = KEPT_RESPONSES,
        max_bytes: int = host_limits.RESPONSES_STORE_MAX_BYTES,
    ) -> None:
        self.capacity = capacity
        self.max_bytes = max_bytes
        self.bytes = 0  # what the kept responses weigh together (``_weight``)
        self._kept: OrderedDict[str, _Kept] = OrderedDict()
        # item id -> the id of the kept response it came in
        self._owner: dict[str, str] = {}
        # item ids of responses not stored, newest last (bounded like the responses)
        self._unstored: OrderedDict[str, None] = OrderedDict()

    def item(self, item_id: str) -> dict[str, Any] | None:
        """Return the kept output item ITEM_ID (None when unknown or forgotten)."""
        owner = self._owner.get(item_id)
        kept = self._kept.get(owner) if owner is not None else None
        return kept.items.get(item_id) if kept is not None else None

    def item_size(self, item_id: str) -> int:
        """Return what the kept item ITEM_ID weighs as JSON (0 when unknown)."""
        owner = self._owner.get(item_id)
        kept = self._kept.get(owner) if owner is not None else None
        return kept.item_sizes.get(item_id, 0) if kept is not None else 0

    def unstored(self, item_id: str) -> bool:
        """Return whether ITEM_ID came in a response sent with ``store: false``."""
        return item_id in self._unstored

    def forget_items(self, items: list[dict[str, Any]]) -> None:
        """Remember that ITEMS (a ``store: false`` response's) were not kept."""
        for item in items:
            if isinstance(item.get("id"), str):
                self._unstored[item["id"]] = None
        while len(self._unstored) > self.capacity * 16:
            self._unstored.popitem(last=False)

    def __len__(self) -> int:
        return len(self._kept)

    def get(self, response_id: str) -> _Kept | None:
        """Return the kept conversation of RESPONSE_ID (None when unknown or forgotten)."""
        kept = self._kept.get(response_id)
        if kept is not None:
            self._kept.move_to_end(response_id)
        return kept

    def put(self, response_id: str, kept: _Kept) -> None:
        """Keep KEPT under RESPONSE_ID, forgetting the oldest past the capacity or the bytes.

        The newest is kept whatever it weighs: the next turn builds on it.
        """
        kept.item_sizes = {item_id: _weight(item) for item_id, item in kept.items.items()}
        kept.size = _weight(kept.messages) + sum(kept.item_sizes.values())
        old = self._kept.pop(response_id, None)
        if old is not None:
            self.bytes -= old.size
        self._kept[response_id] = kept
        self.bytes += kept.size
        for item_id in kept.items:
            self._owner[item_id] = response_id
        while len(self._kept) > 1 and (
            len(self._kept) > self.capacity or self.bytes > self.max_bytes
        ):
            _, gone = self._kept.popitem(last=False)
            self.bytes -= gone.size
            for item_id in gone.items:
                self._owner.pop(item_id, None)


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
    kept: _Kept | None = None
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


def response_usage(usage: Usage) -> dict[str, Any]:
    """Return the Responses usage object: input counts cache reads and writes."""
    prompt = usage.input + usage.cache_read + usage.cache_write
    return {
        "input_tokens": prompt,
        "input_tokens_details": {"cached_tokens": usage.cache_read},
        "output_tokens": usage.output,
        "output_tokens_details": {"reasoning_tokens": usage.reasoning},
        "total_tokens": prompt + usage.output,
    }


def _item_id(prefix: str) -> str:
    return f"{prefix}_{uuid.uuid4().hex}"


def _reasoning_item(item_id: str, text: str) -> dict[str, Any]:
    summary = [{"type": "summary_text", "text": text}] if text else []
    return {"type": "reasoning", "id": item_id, "summary": summary, "encrypted_content": None}


def _text_part(text: str) -> dict[str, Any]:
    return {"type": "output_text", "text": text, "annotations": [], "logprobs": []}


def _message_item(item_id: str, text: str, status: str = "completed") -> dict[str, Any]:
    content = [_text_part(text)] if status == "completed" else []
    return {
        "type": "message",
        "id": item_id,
        "status": status,
        "role": "assistant",
        "content": content,
    }


def _call_item(
    item_id: str, call_id: str, name: str, arguments: str, status: str
) -> dict[str, Any]:
    return {
        "type": "function_call",
        "id": item_id,
        "call_id": call_id,
        "name": name,
        "arguments": arguments,
        "status": status,
    }


def output_items(result: RoundResult) -> list[dict[str, Any]]:
    """Return the output items of RESULT: reasoning, then the message, then function calls."""
    message = result.message
    items: list[dict[str, Any]] = []
    if message.get("reasoning_content"):
        items.append(_reasoning_item(_item_id("rs"), str(message["reasoning_content"])))
    if message.get("content"):
        items.append(_message_item(_item_id("msg"), str(message["content"])))
    for call in message.get("tool_calls") or []:
        function = call.get("function") or {}
        items.append(
            _call_item(
                _item_id("fc"),
                str(call.get("id")),
                str(function.get("name")),
                str(function.get("arguments") or ""),
                "completed",
            )
        )
    return items


@dataclass(slots=True)
class _Open:
    """The output item being streamed: its kind, index, id and text so far."""

    kind: str  # "reasoning" | "message" | "function_call"
    index: int
    item: dict[str, Any]
    text: str = ""
    call_index: int | None = None


class ResponsesReply:
    """How the Responses API answers one round: a ``response`` object, or its typed events."""

    def __init__(self, ask: ResponsesAsk, store: ResponseStore) -> None:
        self.ask = ask
        self.store = store
        self._sequence = 0
        self._began = False
        self._items: list[dict[str, Any]] = []
        self._open: _Open | None = None
        self._calls: dict[int, _Open] = {}

    # Whole answers ----------------------------------------------------------------------------

    def response(
        self, status: str, output: list[dict[str, Any]], usage: Usage | None = None
    ) -> dict[str, Any]:
        """Return the ``response`` object in STATUS with OUTPUT (and USAGE when it is known)."""
        ask = self.ask
        text = ask.text_format or {"type": "text"}
        effort = (ask.reasoning or {}).get("effort")
        return {
            "id": ask.id,
            "object": "response",
            "created_at": ask.created_at,
            "status": status,
            "background": False,
            "error": None,
            "incomplete_details": None,
            "instructions": ask.instructions,
            "max_output_tokens": None,
            "metadata": ask.metadata or {},
            "model": ask.round.requested_model,
            "output": output,
            "parallel_tool_calls": True,
            "previous_response_id": ask.previous_response_id,
            "reasoning": {"effort": effort, "summary": None},
            "store": ask.store,
            "temperature": None,
            "text": {"format": text},
            "tool_choice": ask.tool_choice,
            "tools": ask.tools,
            "top_p": None,
            "truncation": "disabled",
            "usage": response_usage(usage) if usage is not None else None,
            "user": None,
        }

    def _keep(self, result: RoundResult, items: list[dict[str, Any]]) -> None:
        """File the answered conversation and its output ITEMS (when the client stores it)."""
        if not self.ask.store:
            self.store.forget_items(items)
            return
        request = self.ask.round
        answered = dict(result.message)
        self.store.put(
            self.ask.id,
            _Kept(
                messages=[*request.messages, answered],
                system=request.system,
                session_id=request.session_id or f"responses:{self.ask.id}",
                items={str(item["id"]): copy.deepcopy(item) for item in items if item.get("id")},
            ),
        )

    def answer(self, result: RoundResult) -> dict[str, Any]:
        """Return the completed ``response`` of RESULT."""
        items = output_items(result)
        self._keep(result, items)
        return self.response("completed", items, result.usage)

    def error_body(self, error: ApiError) -> dict[str, Any]:
        """Return OpenAI's error object."""
        return error.body()

    # Events ------------------------------------------------------------------------------------

    def _event(self, kind: str, **fields: Any) -> bytes:
        """Return one typed SSE event (its sequence number the next)."""
        data = {"type": kind, "sequence_number": self._sequence, **fields}
        self._sequence += 1
        text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
        return f"event: {kind}\ndata: {text}\n\n".encode()

    def _begin(self) -> list[bytes]:
        """Return the opening events, once (held back until the round says something)."""
        if self._began:
            return []
        self._began = True
        shell = self.response("in_progress", [])
        return [
            self._event("response.created", response=shell),
            self._event("response.in_progress", response=shell),
        ]

    def _close(self) -> list[bytes]:
        """Return the events that finish the open item, if one is open."""
        item, self._open = self._open, None
        if item is None:
            return []
        at = {"item_id": item.item["id"], "output_index": item.index}
        out: list[bytes] = []
        if item.kind == "reasoning":
            part = {"type": "summary_text", "text": item.text}
            out.append(
                self._event(
                    "response.reasoning_summary_text.done", **at, summary_index=0, text=item.text
                )
            )
            out.append(
                self._event(
                    "response.reasoning_summary_part.done", **at, summary_index=0, part=part
                )
            )
            item.item["summary"] = [part]
        elif item.kind == "message":
            out.append(
                self._event(
                    "response.output_text.done", **at, content_index=0, text=item.text, logprobs=[]
                )
            )
            out.append(
                self._event(
                    "response.content_part.done", **at, content_index=0, part=_text_part(item.text)
                )
            )
            item.item.update(status="completed", content=[_text_part(item.text)])
        else:
            item.item.update(status="completed", arguments=item.text)
            out.append(
                self._event(
                    "response.function_call_arguments.done",
                    **at,
                    name=item.item["name"],
                    arguments=item.text,
                )
            )
        out.append(
            self._event("response.output_item.done", output_index=item.index, item=item.item)
        )
        return out

    def _start(self, kind: str, item: dict[str, Any]) -> list[bytes]:
        """Return the events that open a new output item of KIND."""
        out = self._close()
        self._open = _Open(kind, len(self._items), item)
        self._items.append(item)
        added = dict(item)
        out.append(
            self._event("response.output_item.added", output_index=self._open.index, item=added)
        )
        at = {"item_id": item["id"], "output_index": self._open.index}
        if kind == "reasoning":
            part = {"type": "summary_text", "text": ""}
            out.append(
                self._event(
                    "response.reasoning_summary_part.added", **at, summary_index=0, part=part
                )
            )
        elif kind == "message":
            out.append(
                self._event(
                    "response.content_part.added", **at, content_index=0, part=_text_part("")
                )
            )
        return out

    def events(self, part: StreamPart) -> list[bytes]:
        """Return the typed events PART becomes."""
        out: list[bytes] = []
        if isinstance(part, contract.ReasoningDelta) and part.text:
            out += self._begin()
            if self._open is None or self._open.kind != "reasoning":
                out += self._start("reasoning", _reasoning_item(_item_id("rs"), ""))
            assert self._open is not None
            self._open.text += part.text
            at = {"item_id": self._open.item["id"], "output_index": self._open.index}
            out.append(
                self._event(
                    "response.reasoning_summary_text.delta", **at, summary_index=0, delta=part.text
                )
            )
        elif isinstance(part, contract.TextDelta) and part.text:
            out += self._begin()
            if self._open is None or self._open.kind != "message":
                out += self._start("message", _message_item(_item_id("msg"), "", "in_progress"))
            assert self._open is not None
            self._open.text += part.text
            at = {"item_id": self._open.item["id"], "output_index": self._open.index}
            out.append(
                self._event(
                    "response.output_text.delta",
                    **at,
                    content_index=0,
                    delta=part.text,
                    logprobs=[],
                )
            )
        elif isinstance(part, contract.ToolCallStart):
            out += self._begin()
            item = _call_item(_item_id("fc"), part.id, part.name, "", "in_progress")
            out += self._start("function_call", item)
            assert self._open is not None
            self._open.call_index = part.index
            self._calls[part.index] = self._open
        elif isinstance(part, contract.ToolCallArgsDelta) and part.delta:
            call = self._calls.get(part.index)
            if call is not None:
                call.text += part.delta
                at = {"item_id": call.item["id"], "output_index": call.index}
                out.append(
                    self._event("response.function_call_arguments.delta", **at, delta=part.delta)
                )
        return out

    def closing(self, result: RoundResult) -> list[bytes]:
        """Return the events that end the stream: the open item's end, ``response.completed``."""
        out = self._begin()
        # The result's arguments are the whole ones (a delta may have been cut short).
        final = {
            str(c.get("id")): str((c.get("function") or {}).get("arguments") or "")
            for c in result.message.get("tool_calls") or []
        }
        if self._open is not None and self._open.kind == "function_call":
            self._open.text = final.get(self._open.item["call_id"], self._open.text)
        out += self._close()
        for call in self._calls.values():
            call.item["arguments"] = final.get(call.item["call_id"], call.item["arguments"])
        self._keep(result, self._items)
        done = self.response("completed", self._items, result.usage)
        out.append(self._event("response.completed", response=done))
        return out

    def failed(self, error: ApiError) -> bytes:
        """Return ``response.failed`` carrying ERROR (the stream had begun)."""
        shell = self.response("failed", self._items)
        shell["error"] = {"code": error.code or "server_error", "message": error.message}
        return self._event("response.failed", response=shell)
