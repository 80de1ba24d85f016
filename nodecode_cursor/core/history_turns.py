"""The turns' blobs: each earlier user message and what answered it as protobuf blobs.

``turns`` carries, for each user message before the action, a
ConversationTurnStructure blob naming its UserMessage blob (text, inline images,
a deterministic id) and its step blobs: assistant text, thinking when it
replays, one MCP tool-call step per call with its result, a bridged native
call in its own typed shape (``turn_ids``). The bytes are written by hand with
``pbwire`` (upb's deterministic bytes) and memoised in the ``BlobStore`` on keys
of the host's own strings.

Pure: no I/O. Which messages are sent (the fold) is ``history.py``'s; the root
prompt's JSON beside them is ``history_roots.py``'s.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import uuid
from bisect import bisect_right
from collections.abc import Callable, Hashable, Sequence
from functools import partial

from ..wire.pbwire import field, map_order, text_field, varint
from ..wire.values import encode_value
from .blobs import BlobStore
from .history_read import Call, HistoryRead, Items, failed_result, items_text
from .history_roots import ThinkingReplay, orphan_text, visible_text

__all__ = ["PROVIDER_IDENTIFIER", "NativeReplay", "items_images", "turn_ids"]

# The MCP server name the host's tools ride under (omp's; the service accepts it).
# The one definition: answers.py declares the tools under it, history replays calls.
PROVIDER_IDENTIFIER = "pi-agent"
_PROVIDER_FIELD = b"\x22" + varint(len(PROVIDER_IDENTIFIER)) + PROVIDER_IDENTIFIER.encode()

# Our namespace for the deterministic UserMessage / image ids of history turns.
_MESSAGE_NAMESPACE = uuid.UUID("9e3c1a52-7d4b-5f08-8a61-2c5e9b7d4f13")
_NAMESPACE_BYTES = _MESSAGE_NAMESPACE.bytes

# Per call id: the builder of a bridged native call's step from the host's result
# (text, failed), or None for a call that replays as an MCP call (bridge.py).
NativeReplay = Callable[[str], Callable[[str, bool], bytes] | None]


def _unbase64(data: str) -> bytes | None:
    """Return the bytes base64 DATA spells, or None when it does not decode."""
    try:
        return base64.b64decode(data, validate=False)
    except (binascii.Error, ValueError):
        return None


def items_images(items: Items) -> tuple[tuple[str, bytes], ...]:
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
        items_text(items).strip(), _message_id(turn_index, items), items_images(items)
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


def turn_ids(
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
                    known = remember(key, _text_step(orphan_text(orphan, failed)))
                steps.append(known)
        step_ids = tuple(steps)
        named.append(user_id)
        named += step_ids
        key = ("turn", user_id, step_ids)
        known = recall(key)
        turns.append(remember(key, _turn(user_id, step_ids)) if known is None else known)
    return turns
