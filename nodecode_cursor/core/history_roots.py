"""The root prompt's blobs: each history message as compact JSON in the Vercel AI SDK's shape.

``root_prompt_messages_json`` carries the system prompt and every history
message before the action, each a JSON blob the model reads (``root_ids``):
a user message's text and images, an assistant's reasoning (when it replays),
text and calls, each tool result right after the round that called it, and a
result with no call as assistant text. The JSON is written as JavaScript's
``JSON.stringify`` writes it (``json_bytes``), with one encoder made once; each
blob is memoised in the ``BlobStore`` on a key of the host's own strings.

Pure: no I/O. Which messages are sent (the fold) and the turns beside them are
``history.py``'s and ``history_turns.py``'s; reading the messages is
``history_read.py``'s.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Hashable, Iterable, Mapping
from json.encoder import c_make_encoder, encode_basestring  # type: ignore[attr-defined]
from typing import Any

from ..wire.values import finite
from .blobs import BlobStore
from .history_read import (
    Call,
    HistoryRead,
    Items,
    failed_result,
    items_text,
    normalize_call_id,
    tool_call_id,
)

__all__ = [
    "DEFAULT_SYSTEM_PROMPT",
    "ThinkingReplay",
    "json_bytes",
    "orphan_text",
    "root_ids",
    "system_blob_ids",
    "transcript_json",
    "visible_text",
]

# What the root prompt's system blob says when the host gave no system prompt.
DEFAULT_SYSTEM_PROMPT = "You are a helpful assistant."

# One encoder for every blob: json.dumps with options builds a new one per call.
# allow_nan=False: a blob is JSON, and JSON has no NaN or Infinity (see json_bytes).
_JSON = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False)
# The same encoder's C core, made once: JSONEncoder.encode makes a new one per call.
# Without the markers table a cycle ends in RecursionError, as the retry through
# ``finite`` ends it anyway. The root blobs' fixed shapes are written around
# ``_quote`` (the encoder's own string escaping), their open parts by ``_json_text``.
_ENCODE = (
    c_make_encoder(None, _JSON.default, encode_basestring, None, ":", ",", False, False, False)
    if c_make_encoder is not None
    else None
)
_quote = encode_basestring
_IS_ERROR = ',"isError":true'

_SURROGATE = re.compile("[\ud800-\udfff]")

# Per assistant message: the model name its thinking replays under, or None.
ThinkingReplay = Callable[[Mapping[str, Any]], str | None]


def json_bytes(obj: Any) -> bytes:
    """Return OBJ as compact, deterministic UTF-8 JSON (insertion order, no ASCII escaping).

    Matches JavaScript's JSON.stringify, which omp uses: non-ASCII stays as
    itself, a lone surrogate is written as a ``\\uXXXX`` escape, and a NaN or an
    infinity is written as ``null`` (Python would write ``NaN``, which is not JSON).
    """
    return _utf8(_json_text(obj))


def _json_text(obj: Any) -> str:
    """Return OBJ as compact JSON text (NaN and the infinities as null; see json_bytes)."""
    try:
        return "".join(_ENCODE(obj, 0)) if _ENCODE is not None else _JSON.encode(obj)
    except ValueError:  # a non-finite number somewhere: rare, so only then the copy
        return _JSON.encode(finite(obj))


def _utf8(text: str) -> bytes:
    """Return JSON TEXT as UTF-8, a lone surrogate in it written as a ``\\uXXXX`` escape."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text).encode("utf-8")


def _prompt_content(items: Items) -> list[str]:
    """Return user content as the root prompt's JSON parts: trimmed non-empty text, images.

    ``{"type":"text","text":…}`` and ``{"type":"image","image":"data:…",
    "mediaType":…}`` (an image as its data URL).
    """
    if isinstance(items, str):
        text = items.strip()
        return [f'{{"type":"text","text":{_quote(text)}}}'] if text else []
    parts: list[str] = []
    for item in items:
        if item[0] == "text":
            text = item[1].strip()
            if text:
                parts.append(f'{{"type":"text","text":{_quote(text)}}}')
        else:
            url = _quote(f"data:{item[1]};base64,{item[2]}")
            parts.append(f'{{"type":"image","image":{url},"mediaType":{_quote(item[1])}}}')
    return parts


def visible_text(content: Any) -> str:
    """Return an assistant message's visible text (text parts joined)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            part["text"]
            for part in content
            if isinstance(part, dict)
            and part.get("type") == "text"
            and isinstance(part.get("text"), str)
        )
    return ""


def system_blob_ids(store: BlobStore, system: str | None) -> tuple[bytes, ...]:
    """Store the system prompt's JSON blob and return its id (as a one-element tuple)."""
    content = system if isinstance(system, str) and system.strip() else DEFAULT_SYSTEM_PROMPT
    return (
        store.cached(
            ("sys", content), lambda: _utf8(f'{{"role":"system","content":{_quote(content)}}}')
        ),
    )


def orphan_text(items: Items, failed: bool = False) -> str:
    """Return a tool result with no call as assistant text (``[Tool Error]`` when it failed)."""
    text = items_text(items, images=True)
    head = "[Tool Error]" if failed else "[Tool Result]"
    return f"{head}\n{text if text else '(empty result)'}"


def _tool_result_blob(
    store: BlobStore, items: Items, name: str, call_id: str, failed: bool
) -> bytes:
    """Store the root JSON blob of a tool result (ITEMS, of call CALL_ID of NAME); return its id."""
    key = ("root-tool", call_id, name, items, failed)
    known = store.recall(key)
    if known is not None:
        return known
    # {"role":"tool","id":…,"content":[{"type":"tool-result","toolName":…,
    # "toolCallId":…,"result":…[,"isError":true]}]}: ``isError`` only when it
    # failed, as omp has it.
    quoted = _quote(call_id)
    data = _utf8(
        f'{{"role":"tool","id":{quoted},"content":[{{"type":"tool-result",'
        f'"toolName":{_quote(name)},"toolCallId":{quoted},'
        f'"result":{_quote(items if isinstance(items, str) else items_text(items, images=True))}'
        f"{_IS_ERROR if failed else ''}}}]}}"
    )
    return store.remember(key, data)


def _assistant_blob(
    store: BlobStore, message: Mapping[str, Any], calls: list[Call], writer: str | None
) -> bytes | None:
    """Store an assistant message's root JSON blob and return its id (None when it says nothing)."""
    reasoning = message.get("reasoning_content")
    thinking = (
        reasoning if writer is not None and isinstance(reasoning, str) and reasoning else None
    )
    content = message.get("content")
    text_key: Hashable
    if isinstance(content, str):
        text = text_key = content
    else:
        text = visible_text(content)
        text_key = None if content is None else text
    if not thinking and not text and not calls:
        return None
    key = (
        "root-assistant",
        thinking,
        writer if thinking else None,
        text_key,
        tuple([call.key for call in calls]) if calls else (),
    )
    known = store.recall(key)
    return (
        store.remember(key, _assistant_json(thinking, writer, text, calls))
        if known is None
        else known
    )


def _assistant_json(
    thinking: str | None, writer: str | None, text: str, calls: list[Call]
) -> bytes:
    """Return an assistant message's root JSON blob.

    ``{"role":"assistant","content":[…]}`` with its parts in order: the
    reasoning (``{"type":"reasoning","text":…,"providerOptions":{"cursor":
    {"modelName":…}}}``), the text (``{"type":"text","text":…}``), and each
    call (``{"type":"tool-call","toolCallId":…,"toolName":…,"args":{…}}``).
    """
    parts: list[str] = []
    if thinking:
        parts.append(
            f'{{"type":"reasoning","text":{_quote(thinking)},'
            f'"providerOptions":{{"cursor":{{"modelName":{_json_text(writer)}}}}}}}'
        )
    if text:
        parts.append(f'{{"type":"text","text":{_quote(text)}}}')
    for call in calls:
        parts.append(
            f'{{"type":"tool-call","toolCallId":{_quote(call.call_id)},'
            f'"toolName":{_quote(call.name)},"args":{_json_text(call.arguments_object())}}}'
        )
    return _utf8(f'{{"role":"assistant","content":[{",".join(parts)}]}}')


def _orphan_json(items: Items, failed: bool = False) -> bytes:
    """Return the root JSON blob of a tool result with no call: assistant text."""
    text = _quote(orphan_text(items, failed))
    return _utf8(f'{{"role":"assistant","content":[{{"type":"text","text":{text}}}]}}')


def root_ids(
    store: BlobStore, indexes: Iterable[int], pairing: HistoryRead, replay: ThinkingReplay
) -> list[bytes]:
    """Return the root prompt blob ids of the messages at INDEXES (an assistant's, its results)."""
    rows, roles, content = pairing.rows, pairing.roles, pairing.content
    names = pairing.names
    recall, remember = store.recall, store.remember
    ids: list[bytes] = []
    emitted: set[int] = set()
    for index in indexes:
        role = roles[index]
        if role == "user":
            items = content[index]
            key: tuple[Hashable, ...] = ("root-user", items)
            known = recall(key)
            if known is None:
                known = remember(key, _user_json(items))
            if known:
                ids.append(known)
        elif role == "assistant":
            message = rows[index]
            calls = pairing.calls[index]
            blob = _assistant_blob(store, message, calls, replay(message))
            if blob is not None:
                ids.append(blob)
            # each result right after its round, in call order (the result's own
            # call id is the call's, which is how they paired)
            for call in calls:
                result_index = call.result
                if result_index is None:
                    continue
                name = names.get(call.raw_id, "")
                items = content[result_index]
                ids.append(_tool_result_blob(store, items, name, call.call_id, call.failed))
                emitted.add(result_index)
        elif role == "tool":
            if index in emitted or index in pairing.answering:
                continue
            items = content[index]
            if index in pairing.orphans:
                failed = failed_result(rows[index])
                key = ("root-orphan", items, failed)
                known = recall(key)
                ids.append(remember(key, _orphan_json(items, failed)) if known is None else known)
            else:
                # a second result for a call already answered: its call is in
                # the history, so it stands where the host put it
                raw_id = tool_call_id(rows[index])
                name = names.get(raw_id, "")
                call_id = normalize_call_id(raw_id)
                failed = failed_result(rows[index])
                ids.append(_tool_result_blob(store, items, name, call_id, failed))
    return ids


def _user_json(items: Items) -> bytes | None:
    """Return a user message's root JSON blob bytes, or None when it has no content."""
    content = _prompt_content(items)
    if not content:
        return None
    return _utf8(f'{{"role":"user","content":[{",".join(content)}]}}')


def transcript_json(text: str) -> bytes:
    """Return the root JSON blob of a folded history's transcript: a user message of TEXT.

    It rides as a user message: the system blob stays the one prompt a checkpoint
    is keyed on.
    """
    return _utf8(f'{{"role":"user","content":[{{"type":"text","text":{_quote(text)}}}]}}')
