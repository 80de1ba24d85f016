"""The host's chat history as Cursor's conversation state: root prompt blobs and turns.

Cursor's run request carries the whole conversation each time, twice over:

* ``root_prompt_messages_json``: the system prompt and every history message
  before the active user message, each a compact JSON blob in the shape of the
  Vercel AI SDK's core messages (this is what the model reads);
* ``turns``: for each earlier user message, a ConversationTurnStructure blob of
  its UserMessage blob and its step blobs (assistant text, thinking when it may
  replay, one MCP tool-call step per call with its result).

The trailing user message (text and inline images) is the run's action, not
history; a history that ends otherwise resumes. Every blob goes into the
conversation's :class:`~nodecode_cursor.core.blobs.BlobStore` and is referenced by
its SHA-256. Blobs are memoised on keys made of the host's own strings, so a
message seen in an earlier round costs a dict lookup, not a JSON encode and a
hash: request building grows linearly with what is new.

Pure: no I/O, no clock. The run request around these ids is ``request.py``'s;
which rounds may replay thinking is ``writers.py``'s policy, passed in.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import re
import uuid
from bisect import bisect_right
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from itertools import chain
from json.encoder import c_make_encoder, encode_basestring  # type: ignore[attr-defined]
from typing import Any

from ..wire.pbwire import field, map_order, text_field, varint
from ..wire.values import encode_value, finite
from .blobs import BlobStore
from .budget import HistoryBudget
from .fold_history import Fold, fold_units
from .history_read import (
    Call,
    HistoryRead,
    Items,
    content_items,
    failed_result,
    history_role,
    items_text,
    normalize_call_id,
    parse_data_url,
    tool_call_id,
)
from .surrogates import valid_unicode

__all__ = [
    "DEFAULT_SYSTEM_PROMPT",
    "PROVIDER_IDENTIFIER",
    "ActiveUser",
    "HistoryBlobs",
    "NativeReplay",
    "ThinkingReplay",
    "build_history",
    "failed_result",
    "json_bytes",
    "normalize_call_id",
    "parse_data_url",
    "system_blob_ids",
    "valid_unicode",
    "visible_text",
]

# What the root prompt's system blob says when the host gave no system prompt.
DEFAULT_SYSTEM_PROMPT = "You are a helpful assistant."

# The MCP server name the host's tools ride under (omp's; the service accepts it).
# The one definition: answers.py declares the tools under it, history replays calls.
PROVIDER_IDENTIFIER = "pi-agent"
_PROVIDER_FIELD = b"\x22" + varint(len(PROVIDER_IDENTIFIER)) + PROVIDER_IDENTIFIER.encode()

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

# Our namespace for the deterministic UserMessage / image ids of history turns.
_MESSAGE_NAMESPACE = uuid.UUID("9e3c1a52-7d4b-5f08-8a61-2c5e9b7d4f13")
_NAMESPACE_BYTES = _MESSAGE_NAMESPACE.bytes

# Per assistant message: the model name its thinking replays under, or None.
ThinkingReplay = Callable[[Mapping[str, Any]], str | None]
# Per call id: the builder of a bridged native call's step from the host's result
# (text, failed), or None for a call that replays as an MCP call (bridge.py).
NativeReplay = Callable[[str], Callable[[str, bool], bytes] | None]


@dataclass(frozen=True, slots=True)
class ActiveUser:
    """The trailing user message the run's action carries: its text and inline images."""

    text: str
    images: tuple[tuple[str, bytes], ...]


@dataclass(frozen=True, slots=True)
class HistoryBlobs:
    """What the history became: blob ids for the state, and the action's user message."""

    system_ids: tuple[bytes, ...]
    root_ids: tuple[bytes, ...]
    turn_ids: tuple[bytes, ...]
    active: ActiveUser | None
    # Every blob id the state names, directly or through a turn (user message and
    # step blobs included): what the store must keep while this request is current.
    blob_ids: frozenset[bytes] = frozenset()
    # How many history messages were folded into the transcript blob (0: none), and why.
    folded: int = 0
    fold_reason: str = ""


# --- small pure pieces --------------------------------------------------------------


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


def _unbase64(data: str) -> bytes | None:
    """Return the bytes base64 DATA spells, or None when it does not decode."""
    try:
        return base64.b64decode(data, validate=False)
    except (binascii.Error, ValueError):
        return None


def _items_images(items: Items) -> tuple[tuple[str, bytes], ...]:
    """Return the images of ITEMS as (mime, bytes), leaving out those that do not decode."""
    if isinstance(items, str):
        return ()
    out = []
    for item in items:
        if item[0] == "image":
            data = _unbase64(item[2])
            if data is not None:
                out.append((item[1], data))
    return tuple(out)


def _content_key(items: Items) -> str:
    """Return the key a user message's id derives from: its trimmed text, or a digest of parts."""
    if isinstance(items, str):
        return items.strip()
    hasher = hashlib.sha256()
    for item in items:
        for piece in item:
            hasher.update(piece.encode("utf-8", "surrogatepass"))
    return hasher.hexdigest()


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


def _uuid5(name: str) -> str:
    """Return ``str(uuid.uuid5(_MESSAGE_NAMESPACE, NAME))``, without making a UUID object.

    One per history turn: the SHA-1 of the namespace and NAME, its first 16 bytes
    with the version (5) and the RFC 4122 variant set, in the 8-4-4-4-12 form.
    """
    digest = bytearray(hashlib.sha1(_NAMESPACE_BYTES + name.encode("utf-8")).digest()[:16])
    digest[6] = digest[6] & 0x0F | 0x50
    digest[8] = digest[8] & 0x3F | 0x80
    hexed = digest.hex()
    return f"{hexed[:8]}-{hexed[8:12]}-{hexed[12:16]}-{hexed[16:20]}-{hexed[20:]}"


def _message_id(turn_index: int, items: Items) -> str:
    """Return the deterministic message id of the history turn TURN_INDEX's user message."""
    return _uuid5(f"u:{turn_index}:{_content_key(items)}")


# --- the blobs ------------------------------------------------------------------------
#
# The protobuf blobs (steps, user messages, turns) are written by hand with
# ``pbwire``: upb's deterministic bytes, in fewer steps than building a message
# and serializing it. A large payload (a tool result, an image) is copied once,
# into the join that makes the blob: the heads around it are sized, not nested.


def system_blob_ids(store: BlobStore, system: str | None) -> tuple[bytes, ...]:
    """Store the system prompt's JSON blob and return its id (as a one-element tuple)."""
    content = system if isinstance(system, str) and system.strip() else DEFAULT_SYSTEM_PROMPT
    return (
        store.cached(
            ("sys", content), lambda: _utf8(f'{{"role":"system","content":{_quote(content)}}}')
        ),
    )


def _user_message(text: str, message_id: str, images: tuple[tuple[str, bytes], ...]) -> bytes:
    """Return the bytes of a UserMessage with IMAGES inline (image ids from the message id).

    UserMessage{1 text, 2 message_id, 3 selected_context: SelectedContext{1
    selected_images: SelectedImage{2 uuid, 7 mime_type, 8 data}}}; ``data`` is a
    oneof member, written even when empty.
    """
    head = text_field(b"\x0a", text) + text_field(b"\x12", message_id)
    if not images:
        return head
    parts: list[bytes] = []
    size = 0
    for index, (mime, data) in enumerate(images):
        fields = text_field(b"\x12", _uuid5(f"{message_id}:image:{index}")) + text_field(
            b"\x3a", mime
        )
        data_head = b"\x42" + varint(len(data))
        image_size = len(fields) + len(data_head) + len(data)
        image_head = b"\x0a" + varint(image_size)
        parts += (image_head, fields, data_head, data)
        size += len(image_head) + image_size
    return b"".join((head, b"\x1a", varint(size), *parts))


def _result_content(items: Items) -> tuple[list[bytes], int]:
    """Return a tool result's McpSuccess content items (text and images) as parts and their size.

    McpSuccess{1 content: McpToolResultContentItem{1 text: McpTextContent{1 text},
    2 image: McpImageContent{1 data, 2 mime_type}}}: each item its head, then its
    payload, so a large one is copied only by the caller's join.
    """
    if isinstance(items, str):  # one text item (the common case)
        data = items.encode("utf-8")
        inner = b"\x0a" + varint(len(data)) if data else b""  # McpTextContent{1 text}
        item_head = b"\x0a" + varint(len(inner) + len(data))  # McpToolResultContentItem{1 text}
        head = b"\x0a" + varint(len(item_head) + len(inner) + len(data)) + item_head + inner
        return [head, data], len(head) + len(data)
    parts: list[bytes] = []
    size = 0
    for item in items:
        if item[0] == "text":
            data = item[1].encode("utf-8")
            inner = b"\x0a" + varint(len(data)) if data else b""
            body = len(inner) + len(data)  # McpTextContent
            tail = b""
            item_tag = b"\x0a"
        else:
            data = _unbase64(item[2]) or b""
            inner = b"\x0a" + varint(len(data)) if data else b""
            tail = text_field(b"\x12", item[1])
            body = len(inner) + len(data) + len(tail)  # McpImageContent
            item_tag = b"\x12"
        item_head = item_tag + varint(body)
        head = b"\x0a" + varint(len(item_head) + body) + item_head + inner
        parts += (head, data, tail)
        size += len(head) + len(data) + len(tail)
    return parts, size


def _call_args(call: Call) -> bytes:
    """Return the McpArgs bytes of CALL: its name, arguments (as Values), ids, provider.

    McpArgs{1 name, 2 args: map<string, bytes> (each a serialized Value), 3
    tool_call_id, 4 provider_identifier, 5 tool_name}. An argument whose value is
    not JSON is left out; the last of two keys that read the same as text wins.
    """
    values: dict[str, bytes] = {}
    for key, value in call.arguments_object().items():
        if type(value) is str and value.isascii():
            # Value{3 string_value}, byte for byte what encode_value writes: the
            # common argument, spared its checks for the other kinds
            values[str(key)] = field(b"\x1a", value.encode("ascii"))
            continue
        try:
            values[str(key)] = encode_value(value)
        except TypeError:
            continue
    name = text_field(b"\x0a", call.name)
    return b"".join(
        [
            name,
            *[
                field(b"\x12", field(b"\x0a", key.encode("utf-8")) + field(b"\x12", values[key]))
                for key in (map_order(values) if len(values) > 1 else values)
            ],
            text_field(b"\x1a", call.call_id),
            _PROVIDER_FIELD,
            b"\x2a" + name[1:] if name else b"",  # 5 tool_name: the name again, its own tag
        ]
    )


def _tool_call_step(call: Call, result: Items | None, failed: bool = False) -> bytes:
    """Return the ConversationStep bytes of one MCP call, with its result when held.

    ConversationStep{2 tool_call: ToolCall{15 mcp_tool_call: McpToolCall{1 args,
    2 result: McpToolResult{1 success | 2 error}}, 57 tool_call_id}}. A FAILED
    result goes as ``error`` (McpToolError{1 error: its text}), as oh-my-pi
    replays one, written even when its text is empty; any other as ``success``
    with its content (none at all for a result with no content items). A tool
    result may be hundreds of KiB: it is copied once, by the final join.
    """
    args = _call_args(call)
    parts: list[bytes] = [b"\x0a" + varint(len(args)) + args]  # McpToolCall{1 args}
    if result is not None and failed:
        error = text_field(b"\x0a", items_text(result, images=True))  # McpToolError
        outcome = b"\x12" + varint(len(error)) + error  # McpToolResult{2 error}
        parts += (b"\x12" + varint(len(outcome)), outcome)
    elif result is not None and (isinstance(result, str) or result):
        content, content_size = _result_content(result)
        success = b"\x0a" + varint(content_size)  # McpToolResult{1 success}
        parts.append(b"\x12" + varint(len(success) + content_size) + success)
        parts += content
    mcp_size = sum(map(len, parts))
    data = call.call_id.encode("utf-8")
    call_id = b"\xca\x03" + varint(len(data)) + data  # ToolCall{57 tool_call_id}, optional
    mcp_head = b"\x7a" + varint(mcp_size)  # ToolCall{15 mcp_tool_call}
    tool_size = len(mcp_head) + mcp_size + len(call_id)
    return b"".join((b"\x12", varint(tool_size), mcp_head, *parts, call_id))


def _orphan_text(items: Items, failed: bool = False) -> str:
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
    text = _quote(_orphan_text(items, failed))
    return _utf8(f'{{"role":"assistant","content":[{{"type":"text","text":{text}}}]}}')


def _root_ids(
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


def _thinking_step(text: str) -> bytes:
    """Return the ConversationStep bytes of replayed thinking.

    ConversationStep{3 thinking_message: ThinkingMessage{1 text}}.
    """
    return field(b"\x1a", text_field(b"\x0a", text))


def _text_step(text: str) -> bytes:
    """Return the ConversationStep bytes of assistant text.

    ConversationStep{1 assistant_message: AssistantMessage{1 text}}.
    """
    data = text.encode("utf-8")
    inner = b"\x0a" + varint(len(data)) + data if data else b""  # AssistantMessage{1 text}
    return b"\x0a" + varint(len(inner)) + inner


def _user_step(items: Items, turn_index: int) -> bytes:
    """Return the UserMessage bytes of history turn TURN_INDEX's user message."""
    if isinstance(items, str):  # the common case: no parts, no images
        text = items.strip()
        return _user_message(text, _uuid5(f"u:{turn_index}:{text}"), ())
    return _user_message(
        items_text(items).strip(), _message_id(turn_index, items), _items_images(items)
    )


# Each step of a turn: AgentConversationTurnStructure{2 steps}, a 32-byte blob id.
_STEP_FIELD = b"\x12\x20"


def _turn(user_id: bytes, step_ids: tuple[bytes, ...]) -> bytes:
    """Return the ConversationTurnStructure bytes of one agent turn of blob ids.

    ConversationTurnStructure{1 agent_conversation_turn:
    AgentConversationTurnStructure{1 user_message, 2 steps (repeated)}}. Every id
    is a blob id (32 bytes), so each step's head is the same two bytes.
    """
    user = field(b"\x0a", user_id) if user_id else b""
    steps = _STEP_FIELD + _STEP_FIELD.join(step_ids) if step_ids else b""
    return field(b"\x0a", user + steps)


def _assistant_steps(
    store: BlobStore,
    index: int,
    pairing: HistoryRead,
    replay: ThinkingReplay,
    native: NativeReplay | None = None,
    mcp_steps: bool = True,
) -> list[bytes]:
    """Return the step blob ids of the assistant message at INDEX.

    Without MCP_STEPS its MCP tool-call and thinking steps are left out (the
    MESSAGE continuation shape, ``continuation.py``): the root JSON keeps them.
    """
    recall, remember = store.recall, store.remember
    step = pairing.rows[index]
    steps: list[bytes] = []
    key: tuple[Hashable, ...]
    reasoning = step.get("reasoning_content")
    if mcp_steps and isinstance(reasoning, str) and reasoning and replay(step) is not None:
        key = ("step-thinking", reasoning)
        known = recall(key)
        steps.append(remember(key, _thinking_step(reasoning)) if known is None else known)
    content = step.get("content")
    text = content if isinstance(content, str) else visible_text(content)
    if text:
        key = ("step-text", text)
        known = recall(key)
        steps.append(remember(key, _text_step(text)) if known is None else known)
    for call in pairing.calls[index]:
        result = None if call.result is None else pairing.content[call.result]
        failed = call.failed
        bridged = native(call.raw_id) if native is not None and result is not None else None
        if bridged is not None and result is not None:
            # A native ask a host tool ran: its step in the ask's own typed shape.
            text = items_text(result, images=True)
            native_key = ("step-native", call.call_id, result, failed)
            steps.append(store.cached(native_key, partial(bridged, text, failed)))
            continue
        if not mcp_steps:
            continue
        key = ("step-call", call.key, result, failed)
        known = recall(key)
        if known is None:
            known = remember(key, _tool_call_step(call, result, failed))
        steps.append(known)
    return steps


def _turn_ids(
    store: BlobStore,
    read: HistoryRead,
    replay: ThinkingReplay,
    named: list[bytes],
    visible: Sequence[int],
    native: NativeReplay | None = None,
    mcp_steps: bool = True,
) -> list[bytes]:
    """Return the turn blob ids of each user message among VISIBLE and what answered it.

    VISIBLE are the indexes of the history's messages that are not folded, in
    order. A turn's steps are its visible messages before the next user message,
    folded or not; a folded user message's turn is left out (the root prompt holds
    those of its messages it kept), and a turn's index counts folded turns too, so
    the turns that stay keep their bytes. The user message and step ids each turn
    names are added to NAMED. MCP_STEPS goes to ``_assistant_steps``.
    """
    roles, content, users, turn_of = read.roles, read.content, read.users, read.turn_of
    end = len(roles)
    recall, remember = store.recall, store.remember
    turns: list[bytes] = []
    key: tuple[Hashable, ...]
    at, count = 0, len(visible)
    while at < count:
        index = visible[at]
        at += 1
        turn_index = turn_of.get(index) if roles[index] == "user" else None
        if turn_index is None:  # not a user message, or one with nothing in it
            continue
        after = bisect_right(users, index)
        next_user = users[after] if after < len(users) else end
        items = content[index]
        key = ("turn-user", turn_index, items)
        user_id = recall(key)
        if user_id is None:
            user_id = remember(key, _user_step(items, turn_index))
        steps: list[bytes] = []
        while at < count and visible[at] < next_user:
            index = visible[at]
            at += 1
            role = roles[index]
            if role == "assistant":
                steps += _assistant_steps(store, index, read, replay, native, mcp_steps)
            elif role == "tool" and index in read.orphans:
                orphan = content[index]
                failed = failed_result(read.rows[index])
                key = ("step-orphan", orphan, failed)
                known = recall(key)
                if known is None:
                    known = remember(key, _text_step(_orphan_text(orphan, failed)))
                steps.append(known)
        step_ids = tuple(steps)
        named.append(user_id)
        named += step_ids
        key = ("turn", user_id, step_ids)
        known = recall(key)
        turns.append(remember(key, _turn(user_id, step_ids)) if known is None else known)
    return turns


def _fold(
    store: BlobStore,
    read: HistoryRead,
    replay: ThinkingReplay,
    budget: HistoryBudget,
    system_ids: tuple[bytes, ...],
    ends_on_user: bool,
) -> tuple[list[bytes], Fold]:
    """Return the root ids of the history READ within BUDGET, and how it folded.

    Pinned (never folded): when the history does not end on the action's user
    message, its last user message and the last round after it (``fold_history``).
    """
    units = read.units
    pinned: set[int] = set()
    if not ends_on_user:
        last_user = read.last_user_unit
        if last_user >= 0:
            pinned.add(last_user)
        if read.last_round_unit > last_user:
            pinned.add(read.last_round_unit)
    system = len(store.get(system_ids[0]) or b"")
    fold = fold_units(
        units,
        pinned,
        lambda unit: _root_ids(store, units[unit][:1], read, replay),
        lambda blob: len(store.get(blob) or b""),
        read.rows,
        read.names,
        budget=budget,
        fixed=(len(system_ids), system),
        transcripts=read.transcript,
    )
    if not fold.folded:
        return [*system_ids, *fold.kept_ids], fold
    # The transcript rides as a user message (the system blob stays the one prompt a
    # checkpoint is keyed on).
    text = fold.transcript
    transcript = store.cached(
        ("fold", text),
        lambda: _utf8(f'{{"role":"user","content":[{{"type":"text","text":{_quote(text)}}}]}}'),
    )
    return [*system_ids, transcript, *fold.kept_ids], fold


def _no_replay(message: Mapping[str, Any]) -> str | None:
    """Return None: no round's thinking replays."""
    return None


def build_history(
    messages: Sequence[Mapping[str, Any]],
    system: str | None,
    store: BlobStore,
    replay: ThinkingReplay | None = None,
    *,
    tool_names: Mapping[str, str] | None = None,
    native: NativeReplay | None = None,
    budget: HistoryBudget | None = None,
    mcp_steps: bool = True,
    memo: HistoryRead | None = None,
) -> HistoryBlobs:
    """Store the history's blobs in STORE and return their ids and the action's user message.

    MESSAGES are OpenAI chat messages (system/developer/user/assistant/tool).
    The trailing user message, when there is one, is the action and stays out
    of the history; REPLAY says, per assistant message, the model name its
    thinking replays under (None: it does not replay). TOOL_NAMES maps host tool
    names to the wire names they are offered under (``bridge.wire_names``); NATIVE
    says which calls were native asks a host tool ran (``bridge.BridgedCalls.replay``),
    replayed as those native steps. Within BUDGET (None: no bound) the oldest
    messages the request cannot carry are folded into one transcript blob after
    the system prompt's (``fold_history.py``). Without MCP_STEPS the turns carry
    no MCP tool-call and no thinking steps (``_assistant_steps``). The ids returned name
    every blob the state needs (``blob_ids``); pruning the rest is the caller's
    call (``BlobStore.retain``). MEMO is the history as an earlier round of the
    session read it (``history_read.HistoryRead``): only newer messages are read.
    """
    policy = replay or _no_replay
    end = len(messages)
    active: ActiveUser | None = None
    last = messages[-1] if messages else None
    if isinstance(last, Mapping) and history_role(last) == "user":
        end -= 1
        items = content_items(last.get("content"))
        text = items.strip() if isinstance(items, str) else items_text(items)
        images = _items_images(items)
        if text.strip() or images:
            active = ActiveUser(text, images)
    system_ids = system_blob_ids(store, system)
    read = memo if memo is not None else HistoryRead()
    read.read(messages, end, tool_names or {})
    read.finish()
    fold: Fold | None = None
    visible: Sequence[int] = range(end)
    if budget is None:
        root = list(system_ids) + _root_ids(store, range(end), read, policy)
    else:
        root, fold = _fold(store, read, policy, budget, system_ids, end < len(messages))
        if fold.folded:
            units = read.units
            visible = sorted(chain.from_iterable(units[unit] for unit in fold.kept_units))
    named: list[bytes] = []
    turns = _turn_ids(store, read, policy, named, visible, native, mcp_steps)
    blob_ids = frozenset((*root, *turns, *named))
    if fold is not None and fold.built_ids:
        # the folded units counted against the budget: kept, so the next round's
        # count finds them built (they are not sent)
        blob_ids |= fold.built_ids
    return HistoryBlobs(
        system_ids,
        tuple(root),
        tuple(turns),
        active,
        blob_ids,
        folded=len(fold.folded) if fold is not None else 0,
        fold_reason=fold.reason if fold is not None else "",
    )
