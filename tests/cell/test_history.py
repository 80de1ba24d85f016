"""History -> root prompt JSON blobs (compared as text) and turn blobs (bytes by hand)."""

from __future__ import annotations

import hashlib
import uuid

from nodecode_cursor._proto import agent_pb2
from nodecode_cursor.core.blobs import BlobStore
from nodecode_cursor.core.history import build_history, json_bytes, normalize_call_id

SYSTEM = b'{"role":"system","content":"sys"}'


def call(call_id: str, name: str, arguments: str) -> dict[str, object]:
    """Return a chat tool call."""
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


TOOL_ROUND = [
    {"role": "user", "content": "read a"},
    {
        "role": "assistant",
        "content": "checking",
        "reasoning_content": "hidden thought",
        "tool_calls": [call("call:1", "read", '{"path":"a.txt"}')],
    },
    {"role": "tool", "tool_call_id": "call:1", "content": "A"},
    {"role": "user", "content": "thanks"},
]


def roots(store: BlobStore, ids: tuple[bytes, ...]) -> list[bytes]:
    """Return the root blobs' bytes."""
    blobs = [store.get(blob_id) for blob_id in ids]
    assert all(blob is not None for blob in blobs)
    return [blob for blob in blobs if blob is not None]


def test_tool_round_root_blobs_are_the_exact_json() -> None:
    store = BlobStore()
    history = build_history(TOOL_ROUND, "sys", store)
    assert roots(store, history.root_ids) == [
        SYSTEM,
        b'{"role":"user","content":[{"type":"text","text":"read a"}]}',
        b'{"role":"assistant","content":[{"type":"text","text":"checking"},'
        b'{"type":"tool-call","toolCallId":"call_1","toolName":"read","args":{"path":"a.txt"}}]}',
        b'{"role":"tool","id":"call_1","content":[{"type":"tool-result","toolName":"read",'
        b'"toolCallId":"call_1","result":"A"}]}',
    ]
    # each id is the raw SHA-256 of its blob
    assert history.root_ids[0] == hashlib.sha256(SYSTEM).digest()
    assert history.active is not None and history.active.text == "thanks"


def test_tool_round_turn_is_user_message_text_step_and_call_step_with_its_result() -> None:
    store = BlobStore()
    history = build_history(TOOL_ROUND, "sys", store)
    assert len(history.turn_ids) == 1
    turn = store.get(history.turn_ids[0])
    assert turn is not None
    parsed = agent_pb2.ConversationTurnStructure()
    parsed.ParseFromString(turn)
    user_id = parsed.agent_conversation_turn.user_message
    text_id, call_id = parsed.agent_conversation_turn.steps
    # ConversationTurnStructure{1 AgentConversationTurnStructure{1 user, 2 step, 2 step}}
    assert (
        turn == b"\x0a\x66" + b"\x0a\x20" + user_id + b"\x12\x20" + text_id + b"\x12\x20" + call_id
    )

    user = store.get(user_id)
    assert user is not None
    message_id = agent_pb2.UserMessage.FromString(user).message_id
    uuid.UUID(message_id)  # a UUID, and the same on every build (below)
    # UserMessage{1 "read a", 2 message id}
    assert user == b"\x0a\x06read a" + b"\x12\x24" + message_id.encode()

    # ConversationStep{1 AssistantMessage{1 "checking"}}; no thinking step: no replay
    assert store.get(text_id) == b"\x0a\x0a" + b"\x0a\x08checking"

    value = b"\x1a\x05a.txt"  # google.protobuf.Value{3 string_value}
    entry = b"\x0a\x04path" + b"\x12\x07" + value  # map entry {1 key, 2 value bytes}
    args = (
        b"\x0a\x04read"  # 1 name
        + b"\x12\x0f"
        + entry  # 2 args
        + b"\x1a\x06call_1"  # 3 tool_call_id
        + b"\x22\x08pi-agent"  # 4 provider_identifier
        + b"\x2a\x04read"  # 5 tool_name
    )
    item = b"\x0a\x03" + b"\x0a\x01A"  # McpToolResultContentItem{1 text{1 "A"}}
    result = b"\x0a\x07" + b"\x0a\x05" + item  # McpToolResult{1 success{1 content}}
    mcp = b"\x0a\x2f" + args + b"\x12\x09" + result  # McpToolCall{1 args, 2 result}
    # ToolCall{15 mcp_tool_call (tag 0x7a), 57 tool_call_id (tag 0xca 0x03)}
    tool_call = b"\x7a\x3c" + mcp + b"\xca\x03\x06call_1"
    # ConversationStep{2 tool_call}
    assert store.get(call_id) == b"\x12\x47" + tool_call

    again = BlobStore()
    assert build_history(TOOL_ROUND, "sys", again).turn_ids == history.turn_ids


def test_thinking_replays_only_when_the_policy_names_a_writer() -> None:
    store = BlobStore()
    history = build_history(TOOL_ROUND, "sys", store, lambda message: "kimi-k3-high")
    assistant = store.get(history.root_ids[2])
    assert assistant == (
        b'{"role":"assistant","content":[{"type":"reasoning","text":"hidden thought",'
        b'"providerOptions":{"cursor":{"modelName":"kimi-k3-high"}}},'
        b'{"type":"text","text":"checking"},'
        b'{"type":"tool-call","toolCallId":"call_1","toolName":"read","args":{"path":"a.txt"}}]}'
    )
    turn = agent_pb2.ConversationTurnStructure.FromString(store.get(history.turn_ids[0]) or b"")
    first_step = store.get(turn.agent_conversation_turn.steps[0])
    # ConversationStep{3 ThinkingMessage{1 text}}
    assert first_step == b"\x1a\x10" + b"\x0a\x0ehidden thought"


def test_a_result_with_no_call_becomes_assistant_text() -> None:
    messages = [
        {"role": "user", "content": "hi"},
        {"role": "tool", "tool_call_id": "ghost", "content": "stale"},
        {"role": "tool", "tool_call_id": "ghost2", "content": ""},
        {"role": "user", "content": "next"},
    ]
    store = BlobStore()
    history = build_history(messages, "sys", store)
    assert roots(store, history.root_ids)[2:] == [
        b'{"role":"assistant","content":[{"type":"text","text":"[Tool Result]\\nstale"}]}',
        b'{"role":"assistant","content":[{"type":"text","text":"[Tool Result]\\n(empty result)"}]}',
    ]
    turn = agent_pb2.ConversationTurnStructure.FromString(store.get(history.turn_ids[0]) or b"")
    step = store.get(turn.agent_conversation_turn.steps[0])
    assert step == b"\x0a\x15" + b"\x0a\x13[Tool Result]\nstale"


def test_results_follow_their_round_and_images_in_results_become_items() -> None:
    messages = [
        {"role": "user", "content": "shoot"},
        {"role": "assistant", "content": "", "tool_calls": [call("s", "shot", "not json")]},
        {"role": "user", "content": "interjection"},
        {
            "role": "tool",
            "tool_call_id": "s",
            "content": [
                {"type": "text", "text": "here"},
                {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAE="}},
            ],
        },
        {"role": "user", "content": "ok"},
    ]
    store = BlobStore()
    history = build_history(messages, None, store)
    texts = roots(store, history.root_ids)
    assert texts[0] == b'{"role":"system","content":"You are a helpful assistant."}'
    assert texts[2] == (
        b'{"role":"assistant","content":[{"type":"tool-call","toolCallId":"s",'
        b'"toolName":"shot","args":{}}]}'
    )
    # the result sits right after its round, before the later user message
    assert texts[3] == (
        b'{"role":"tool","id":"s","content":[{"type":"tool-result","toolName":"shot",'
        b'"toolCallId":"s","result":"here\\n[image/png image]"}]}'
    )
    assert texts[4] == b'{"role":"user","content":[{"type":"text","text":"interjection"}]}'
    turn = agent_pb2.ConversationTurnStructure.FromString(store.get(history.turn_ids[0]) or b"")
    step = agent_pb2.ConversationStep.FromString(
        store.get(turn.agent_conversation_turn.steps[0]) or b""
    )
    items = step.tool_call.mcp_tool_call.result.success.content
    # McpToolResultContentItem{2 McpImageContent{1 data, 2 mime}}
    assert items[1].SerializeToString() == b"\x12\x0f" + b"\x0a\x02\x00\x01" + b"\x12\x09image/png"
    assert items[0].text.text == "here"


def test_user_images_in_the_root_prompt_and_developer_messages_as_user() -> None:
    messages = [
        {"role": "developer", "content": "  be nice  "},
        {
            "role": "user",
            "content": [
                {"type": "text", "text": " look "},
                {"type": "image_url", "image_url": {"url": "data:image/jpeg;base64,/9j/"}},
                {"type": "image_url", "image_url": {"url": "https://example.invalid/x.png"}},
            ],
        },
        {"role": "assistant", "content": "a cat"},
        {"role": "user", "content": "thanks"},
    ]
    store = BlobStore()
    history = build_history(messages, "sys", store)
    texts = roots(store, history.root_ids)
    assert texts[1] == b'{"role":"user","content":[{"type":"text","text":"be nice"}]}'
    assert texts[2] == (
        b'{"role":"user","content":[{"type":"text","text":"look"},'
        b'{"type":"image","image":"data:image/jpeg;base64,/9j/","mediaType":"image/jpeg"}]}'
    )
    assert len(history.turn_ids) == 2


def test_call_ids_are_normalised_the_same_in_json_and_steps() -> None:
    long_id = "toolu_" + "é/" * 40
    assert normalize_call_id("a.b:c") == "a_b_c"
    assert normalize_call_id(long_id) == ("toolu_" + "__" * 40)[:64]
    messages = [
        {"role": "user", "content": "x"},
        {"role": "assistant", "content": None, "tool_calls": [call(long_id, "t", "{}")]},
        {"role": "tool", "tool_call_id": long_id, "content": "r"},
        {"role": "user", "content": "y"},
    ]
    store = BlobStore()
    history = build_history(messages, "", store)
    normalised = normalize_call_id(long_id)
    assert f'"toolCallId":"{normalised}"'.encode() in (store.get(history.root_ids[2]) or b"")
    assert f'"id":"{normalised}"'.encode() in (store.get(history.root_ids[3]) or b"")
    turn = agent_pb2.ConversationTurnStructure.FromString(store.get(history.turn_ids[0]) or b"")
    step = agent_pb2.ConversationStep.FromString(
        store.get(turn.agent_conversation_turn.steps[0]) or b""
    )
    assert step.tool_call.tool_call_id == normalised
    assert step.tool_call.mcp_tool_call.args.tool_call_id == normalised


def test_json_is_compact_unescaped_and_survives_lone_surrogates() -> None:
    assert json_bytes({"b": "ü", "a": [1, 2]}) == '{"b":"ü","a":[1,2]}'.encode()
    assert json_bytes({"t": "\ud800x"}) == b'{"t":"\\ud800x"}'


def test_valid_unicode_replaces_lone_surrogates_and_copies_only_what_changed() -> None:
    from nodecode_cursor.core.history import valid_unicode

    clean = [{"role": "user", "content": "caf\u00e9"}]
    assert valid_unicode(clean) == (clean, 0)
    assert valid_unicode(clean)[0] is clean
    dirty = [clean[0], {"role": "user", "content": [{"type": "text", "text": "a\ud800b"}]}]
    fixed, changed = valid_unicode(dirty)
    assert changed == 1
    assert fixed[1]["content"][0]["text"] == "a\ufffdb"
    assert fixed[0] is clean[0]
    assert dirty[1]["content"][0]["text"] == "a\ud800b"
    assert valid_unicode(("\ud83d\ude00", 5, None)) == (("\U0001f600", 5, None), 1)
    assert valid_unicode("\udc80\ud800") == ("\ufffd\ufffd", 1)
