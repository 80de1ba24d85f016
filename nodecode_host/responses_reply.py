"""The Responses API's answer to one round: a ``response`` object, or its typed events.

``ResponsesReply`` turns a finished round into the ``response`` object, or the
round's stream parts into the API's typed Server-Sent Events
(``response.created`` … ``response.output_text.delta`` … ``response.completed``),
and files the answered conversation in the server's ``ResponseStore`` when the
client stores it. Pure translation, no sockets.

Reading the request is ``responses_api.py``'s; keeping answered responses is
``responses_store.py``'s; sending the bytes is ``routes.py``'s and
``http_server.py``'s.
"""

from __future__ import annotations

import copy
import json
import uuid
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from . import contract
from .api_round import ApiError
from .responses_store import Kept, ResponseStore

if TYPE_CHECKING:
    from nodecode_cursor.host import RoundResult, StreamPart, Usage

    from .responses_api import ResponsesAsk

__all__ = ["ResponsesReply", "output_items", "response_usage"]


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
            Kept(
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
