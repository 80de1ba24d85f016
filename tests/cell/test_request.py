"""The run request, against bytes written by hand from the field numbers.

Tag byte = field << 3 | wire type (2 = length-delimited, 0 = varint). Lengths
are written out (or, for the blob ids and hand-written JSON, taken with len()
of the literal pieces); nothing here uses the package's encoders.
"""

from __future__ import annotations

import hashlib

import pytest
from protobytes import ld, text

from nodecode_cursor._proto import agent_pb2
from nodecode_cursor.core.blobs import Conversation
from nodecode_cursor.core.budget import HistoryBudget
from nodecode_cursor.core.conversations import Conversations
from nodecode_cursor.core.request import build_run_request, resume_request
from nodecode_cursor.core.request_context import tool_definitions
from nodecode_cursor.core.writers import WriterTable
from nodecode_cursor.errors import ConfigError
from nodecode_cursor.models.routing import WireModel

CONVERSATION_ID = "00000000-0000-4000-8000-000000000001"
GPT = WireModel("gpt-5", "gpt-5-high", (("reasoning", "high"),), False)
SYSTEM_JSON = b'{"role":"system","content":"You are a helpful assistant."}'


def fixed_ids() -> object:
    """Return an id factory that answers m-1, m-2, ..."""
    counter = iter(range(1, 1000))
    return lambda: f"m-{next(counter)}"


def test_one_message_history_is_the_hand_written_run_request() -> None:
    conversation = Conversation(CONVERSATION_ID)
    build = build_run_request(
        [{"role": "user", "content": "hello"}],
        None,
        GPT,
        "gpt-5",
        "GPT-5",
        conversation,
        new_id=fixed_ids(),  # type: ignore[arg-type]
    )
    system_id = hashlib.sha256(SYSTEM_JSON).digest()
    # ConversationStateStructure{1 root_prompt_messages_json: the system blob id}
    state = b"\x0a\x20" + system_id
    # UserMessage{1 text "hello", 2 message_id "m-1"}
    user_message = b"\x0a\x05hello" + b"\x12\x03m-1"
    # UserMessageAction{1 user_message}
    user_action = b"\x0a\x0c" + user_message
    # ConversationAction{1 user_message_action}
    action = b"\x0a\x0e" + user_action
    # ModelDetails{1 "gpt-5-high", 3 "gpt-5", 4 "GPT-5"} (max_mode 7 absent: off)
    details = b"\x0a\x0agpt-5-high" + b"\x1a\x05gpt-5" + b"\x22\x05GPT-5"
    # RequestedModel{1 "gpt-5", 3 {1 "reasoning", 2 "high"}}
    parameter = b"\x0a\x09reasoning" + b"\x12\x04high"
    requested = b"\x0a\x05gpt-5" + b"\x1a\x11" + parameter
    run = (
        b"\x0a\x22"
        + state
        + b"\x12\x10"
        + action
        + b"\x1a\x1a"
        + details
        + b"\x22\x00"  # 4 mcp_tools: McpTools{} present though empty, as the CLI sends it
        + b"\x2a\x24"
        + CONVERSATION_ID.encode()
        + b"\x4a\x1a"
        + requested
    )
    assert len(run) == 0x96
    # AgentClientMessage{1 run_request}: length 150 = varint 0x96 0x01
    expected = b"\x0a\x96\x01" + run
    assert build.data == expected
    assert conversation.blobs.get(system_id) == SYSTEM_JSON
    assert build.history.root_ids == (system_id,)
    assert build.history.turn_ids == ()
    assert build.conversation_id == CONVERSATION_ID


def test_max_mode_is_written_in_both_model_fields_when_on() -> None:
    wire = WireModel("claude-x", "claude-x-max", (), True)
    build = build_run_request(
        [{"role": "user", "content": "hi"}], "s", wire, "claude-x", "Claude X", Conversation("c")
    )
    run = build.message.run_request
    # ModelDetails{1 "claude-x-max", 3 "claude-x", 4 "Claude X", 7 true}
    assert run.model_details.SerializeToString() == (
        b"\x0a\x0cclaude-x-max" + b"\x1a\x08claude-x" + b"\x22\x08Claude X" + b"\x38\x01"
    )
    # RequestedModel{1 "claude-x", 2 true}
    assert run.requested_model.SerializeToString() == b"\x0a\x08claude-x" + b"\x10\x01"


def test_history_without_a_trailing_user_message_resumes() -> None:
    messages = [
        {"role": "user", "content": "go"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "ls", "arguments": "{}"}}
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "a b"},
    ]
    conversation = Conversation("c")
    conversation.seen = True  # a run on it was accepted before: the service knows it
    build = build_run_request(messages, "", GPT, "gpt-5", "GPT-5", conversation)
    # ConversationAction{2 resume_action{}}
    assert build.message.run_request.action.SerializeToString() == b"\x12\x00"
    # the trailing tool result is history: system, user, assistant, tool
    assert len(build.history.root_ids) == 4
    assert len(build.history.turn_ids) == 1


TOOL_TAIL = [
    {"role": "user", "content": "first"},
    {"role": "assistant", "content": "ok"},
    {"role": "user", "content": "go"},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "ls", "arguments": "{}"}}
        ],
    },
    {"role": "tool", "tool_call_id": "c1", "content": "a b"},
]


def test_a_conversation_the_service_never_ran_starts_with_its_finished_tool_work() -> None:
    conversation = Conversation("c")
    assert not conversation.seen
    build = build_run_request(
        TOOL_TAIL,
        "",
        GPT,
        "gpt-5",
        "GPT-5",
        conversation,
        new_id=fixed_ids(),  # type: ignore[arg-type]
    )
    run = build.message.run_request
    # ConversationAction{1 user_message_action{1 UserMessage{1 CONTINUATION, 2 "m-1"}}}:
    # it cannot be resumed, so it is started, with the whole history as the state.
    said = "Continue from where the conversation left off."
    assert run.action.SerializeToString() == ld(1, ld(1, text(1, said), text(2, "m-1")))
    root = [bytes(i) for i in run.conversation_state.root_prompt_messages_json]
    # system, "first", "ok", "go", the call, its result: the finished work is what it reads
    call = (
        b'{"role":"assistant","content":[{"type":"tool-call","toolCallId":"c1",'
        b'"toolName":"ls","args":{}}]}'
    )
    result = (
        b'{"role":"tool","id":"c1","content":[{"type":"tool-result","toolName":"ls",'
        b'"toolCallId":"c1","result":"a b"}]}'
    )
    go = b'{"role":"user","content":[{"type":"text","text":"go"}]}'
    assert root[3:] == [hashlib.sha256(b).digest() for b in (go, call, result)]
    assert [conversation.blobs.get(i) for i in root[3:]] == [go, call, result]
    # The last turn ("go") holds the call with its result as a completed step:
    # ConversationStep{2 ToolCall{15 McpToolCall{1 McpArgs{1 "ls", 3 "c1", 4 "pi-agent",
    # 5 "ls"}, 2 McpToolResult{1 McpSuccess{1 item{1 McpTextContent{1 "a b"}}}}}, 57 "c1"}}
    args = text(1, "ls") + text(3, "c1") + text(4, "pi-agent") + text(5, "ls")
    outcome = ld(1, ld(1, ld(1, text(1, "a b"))))
    step = ld(2, ld(15, ld(1, args), ld(2, outcome)) + text(57, "c1"))
    turns = [bytes(i) for i in run.conversation_state.turns]
    assert len(turns) == 2
    last = conversation.blobs.get(turns[1])
    assert last is not None
    turn = agent_pb2.ConversationTurnStructure.FromString(last).agent_conversation_turn
    assert [bytes(i) for i in turn.steps] == [hashlib.sha256(step).digest()]
    assert conversation.blobs.get(hashlib.sha256(step).digest()) == step


def test_a_conversation_the_service_ran_resumes_the_same_whole_history() -> None:
    ran = Conversation("c")
    ran.seen = True
    resumed = build_run_request(TOOL_TAIL, "", GPT, "gpt-5", "GPT-5", ran)
    started = build_run_request(TOOL_TAIL, "", GPT, "gpt-5", "GPT-5", Conversation("c"))
    state = resumed.message.run_request.conversation_state
    # only the action differs: ConversationAction{2 resume_action{}}
    assert resumed.message.run_request.action.SerializeToString() == b"\x12\x00"
    assert state == started.message.run_request.conversation_state


def test_a_rotated_conversation_is_unseen_and_starts_again() -> None:
    conversation = Conversation("c", new_id=lambda: "rot-1")
    conversation.seen = True
    assert conversation.poison()
    assert not conversation.seen
    build = build_run_request(TOOL_TAIL, "", GPT, "gpt-5", "GPT-5", conversation)
    assert build.message.run_request.action.WhichOneof("action") == "user_message_action"


def test_the_resume_request_carries_the_checkpoint_as_it_came_and_resume_action() -> None:
    conversation = Conversation(CONVERSATION_ID)
    first = build_run_request(
        [{"role": "user", "content": "hi"}], None, GPT, "gpt-5", "GPT-5", conversation
    )
    # A checkpoint with a root id, a turn id and an unknown field 99 (varint 7).
    raw = b"\x0a\x02r1" + b"\x42\x02t1" + b"\x98\x06\x07"
    checkpoint = agent_pb2.ConversationStateStructure.FromString(raw)
    data = resume_request(first, checkpoint)
    # The first run's model fields: ModelDetails{1 "gpt-5-high", 3 "gpt-5", 4 "GPT-5"},
    # RequestedModel{1 "gpt-5", 3 {1 "reasoning", 2 "high"}}.
    details = b"\x0a\x0agpt-5-high" + b"\x1a\x05gpt-5" + b"\x22\x05GPT-5"
    requested = b"\x0a\x05gpt-5" + b"\x1a\x11" + b"\x0a\x09reasoning" + b"\x12\x04high"
    conversation_id = CONVERSATION_ID.encode()
    # AgentClientMessage{1 AgentRunRequest{1 state, 2 {2 resume_action{}}, 3, 4 {}, 5, 9}}
    body = (
        bytes([0x0A, len(raw)])
        + raw
        + b"\x12\x02\x12\x00"
        + bytes([0x1A, len(details)])
        + details
        + b"\x22\x00"  # the first run's McpTools{}, kept though empty
        + bytes([0x2A, len(conversation_id)])
        + conversation_id
        + bytes([0x4A, len(requested)])
        + requested
    )
    assert data == bytes([0x0A, len(body)]) + body


def test_images_of_the_trailing_user_message_ride_inline() -> None:
    messages = [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "what is this"},
                {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAEC"}},
            ],
        }
    ]
    build = build_run_request(
        messages,
        None,
        GPT,
        "gpt-5",
        "GPT-5",
        Conversation("c"),
        new_id=fixed_ids(),  # type: ignore[arg-type]
    )
    user = build.message.run_request.action.user_message_action.user_message
    # SelectedImage{2 uuid "m-2", 7 mime "image/png", 8 data 00 01 02}
    image = b"\x12\x03m-2" + b"\x3a\x09image/png" + b"\x42\x03\x00\x01\x02"
    # UserMessage{1 text, 2 id, 3 SelectedContext{1 image}}
    assert user.SerializeToString() == (
        b"\x0a\x0cwhat is this" + b"\x12\x03m-1" + b"\x1a\x17" + b"\x0a\x15" + image
    )


def test_blank_text_resumes_a_conversation_that_ran_and_goes_on_in_a_new_one() -> None:
    ran = Conversation("c")
    ran.seen = True
    blank = build_run_request(
        [{"role": "user", "content": "   "}], None, GPT, "gpt-5", "GPT-5", ran
    )
    assert blank.message.run_request.action.WhichOneof("action") == "resume_action"
    fresh = build_run_request(
        [{"role": "user", "content": "   "}], None, GPT, "gpt-5", "GPT-5", Conversation("c")
    )
    # a resume of an id the service never ran would be refused: it is started instead
    action = fresh.message.run_request.action
    assert action.user_message_action.user_message.text.startswith("Continue from where")


def checkpoint_bytes(system_id: bytes) -> bytes:
    """Return a checkpoint written by hand: root ids, a turn, todos, token details, field 99."""
    return (
        b"\x0a\x20"
        + system_id  # 1 root_prompt_messages_json
        + b"\x42\x03old"  # 8 turns
        + b"\x1a\x04todo"  # 3 todos
        + b"\x2a\x04\x08\x07\x10\x09"  # 5 token_details{1 used 7, 2 max 9}
        + b"\x98\x06\x2a"  # 99 (unknown to us): varint 42
    )


def test_a_checkpoint_lends_every_field_but_prompt_and_turns_while_the_system_is_unchanged() -> (
    None
):
    conversation = Conversation("c")
    system_json = b'{"role":"system","content":"be brief"}'
    checkpoint = agent_pb2.ConversationStateStructure()
    checkpoint.ParseFromString(checkpoint_bytes(hashlib.sha256(system_json).digest()))
    conversation.keep_checkpoint(checkpoint)
    build = build_run_request(
        [{"role": "user", "content": "hi"}], "be brief", GPT, "gpt-5", "GPT-5", conversation
    )
    assert build.reused_checkpoint
    state = build.message.run_request.conversation_state.SerializeToString()
    system_id = hashlib.sha256(system_json).digest()
    assert state == (
        b"\x0a\x20" + system_id + b"\x1a\x04todo" + b"\x2a\x04\x08\x07\x10\x09" + b"\x98\x06\x2a"
    )

    changed = build_run_request(
        [{"role": "user", "content": "hi"}], "be verbose", GPT, "gpt-5", "GPT-5", conversation
    )
    assert not changed.reused_checkpoint
    other_state = changed.message.run_request.conversation_state.SerializeToString()
    new_id = hashlib.sha256(b'{"role":"system","content":"be verbose"}').digest()
    assert other_state == b"\x0a\x20" + new_id


def test_poisoned_conversation_rebuilds_without_its_checkpoint_under_a_new_id() -> None:
    ids = iter(["rot-1", "rot-2"])
    conversation = Conversations(new_id=lambda: next(ids)).get("session")
    system_id = hashlib.sha256(SYSTEM_JSON).digest()
    checkpoint = agent_pb2.ConversationStateStructure()
    checkpoint.ParseFromString(checkpoint_bytes(system_id))
    conversation.keep_checkpoint(checkpoint)
    assert conversation.poison()
    build = build_run_request(
        [{"role": "user", "content": "hi"}], None, GPT, "gpt-5", "GPT-5", conversation
    )
    assert build.conversation_id == "rot-1"
    assert not build.reused_checkpoint
    assert build.message.run_request.conversation_state.SerializeToString() == (
        b"\x0a\x20" + system_id
    )


def test_k3_refusal_comes_before_any_request() -> None:
    table = WriterTable()
    answer = {"role": "assistant", "content": "hello"}
    table.record(answer, "gpt-5")
    messages = [{"role": "user", "content": "hi"}, answer, {"role": "user", "content": "more"}]
    with pytest.raises(ConfigError) as caught:
        build_run_request(
            messages, None, GPT, "kimi-k3-high", "Kimi K3", Conversation("c"), writers=table
        )
    assert "start a new session" in str(caught.value)
    assert caught.value.status == 400


def test_building_the_next_round_hashes_only_what_is_new() -> None:
    conversation = Conversation("c")
    # A 1 MiB result is over the default history budget and would fold; this test is
    # about memoised hashing of what stays, so its budget holds the whole history.
    roomy = HistoryBudget(bytes=8 << 20)
    big = "x" * (1 << 20)
    messages: list[dict[str, object]] = [{"role": "user", "content": "read it"}]
    messages.append(
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "read", "arguments": "{}"}}
            ],
        }
    )
    messages.append({"role": "tool", "tool_call_id": "c1", "content": big})
    messages.append({"role": "user", "content": "and?"})
    first = build_run_request(messages, None, GPT, "gpt-5", "GPT-5", conversation, budget=roomy)
    after_first = conversation.blobs.hashed_bytes
    assert after_first > 2 * len(big)  # the result is in a root blob and a step blob
    messages[-1:] = [
        {"role": "user", "content": "and?"},
        {"role": "assistant", "content": "it is x"},
        {"role": "user", "content": "thanks"},
    ]
    second = build_run_request(messages, None, GPT, "gpt-5", "GPT-5", conversation, budget=roomy)
    # the 1 MiB result was not encoded or hashed again: only the small new blobs
    assert conversation.blobs.hashed_bytes - after_first < 4096
    assert second.history.root_ids[: len(first.history.root_ids)] == first.history.root_ids
    assert second.history.turn_ids[0] == first.history.turn_ids[0]


def test_a_sliding_window_keeps_only_the_blobs_the_current_request_names() -> None:
    conversation = Conversation("c")
    history: list[dict[str, object]] = []
    sizes, memo = [], []
    for n in range(40):
        history.append({"role": "user", "content": f"question {n}"})
        history.append(
            {
                "role": "assistant",
                "content": f"looking {n}",
                "tool_calls": [
                    {
                        "id": f"c{n}",
                        "type": "function",
                        "function": {"name": "read", "arguments": f'{{"n":{n}}}'},
                    }
                ],
            }
        )
        history.append({"role": "tool", "tool_call_id": f"c{n}", "content": f"result {n}"})
        del history[:-9]
        build = build_run_request(
            [*history, {"role": "user", "content": "go on"}],
            "sys",
            GPT,
            "gpt-5",
            "GPT-5",
            conversation,
        )
        store = conversation.blobs
        # Every blob the request names is held (the service may ask for any)...
        assert all(blob in store for blob in build.history.blob_ids)
        turn = agent_pb2.ConversationTurnStructure.FromString(
            store.get(build.history.turn_ids[-1]) or b""
        )
        assert turn.agent_conversation_turn.user_message in store
        assert all(step in store for step in turn.agent_conversation_turn.steps)
        # ...and nothing else.
        assert len(store) == len(build.history.blob_ids)
        sizes.append(len(store))
        memo.append(store.memo_size())
    assert max(sizes[10:]) == min(sizes[10:])  # flat, not growing with the rounds
    assert max(memo[10:]) <= 2 * max(sizes[10:])


def test_field_4_declares_the_request_contexts_tools_and_the_resume_keeps_them() -> None:
    tools = [
        {
            "type": "function",
            "function": {"name": "look", "description": "Look", "parameters": {"type": "object"}},
        }
    ]
    first = build_run_request(
        [{"role": "user", "content": "hi"}],
        None,
        GPT,
        "gpt-5",
        "GPT-5",
        Conversation("c"),
        mcp_tools=tool_definitions(tools, project_schemas=False),
    )
    # google.protobuf.Value of {"type":"object"}: struct 5 {1 entry {1 "type", 2 {3 "object"}}}
    schema = ld(5, ld(1, text(1, "type"), ld(2, text(3, "object"))))
    # McpToolDefinition{1 name, 2 description, 3 input_schema, 4 provider_identifier, 5 tool_name}
    definition = (
        text(1, "look") + text(2, "Look") + ld(3, schema) + text(4, "pi-agent") + text(5, "look")
    )
    # AgentRunRequest field 4: McpTools{1 repeated McpToolDefinition}
    field_4 = ld(4, ld(1, definition))
    run = first.message.run_request
    assert run.mcp_tools.SerializeToString() == ld(1, definition)
    assert field_4 in first.data
    resumed = resume_request(first, agent_pb2.ConversationStateStructure())
    assert field_4 in resumed


def test_field_4_is_sent_empty_when_there_are_no_tools() -> None:
    build = build_run_request(
        [{"role": "user", "content": "hi"}], None, GPT, "gpt-5", "GPT-5", Conversation("c")
    )
    run = build.message.run_request
    assert run.HasField("mcp_tools")
    # The tag of field 4 (4 << 3 | 2 = 0x22) with length 0, between fields 3 and 5.
    details = run.model_details.SerializeToString()
    assert bytes([0x1A, len(details)]) + details + b"\x22\x00\x2a" in build.data
    resumed = agent_pb2.AgentClientMessage.FromString(
        resume_request(build, agent_pb2.ConversationStateStructure())
    )
    assert resumed.run_request.HasField("mcp_tools")
    assert resumed.run_request.mcp_tools.SerializeToString() == b""
