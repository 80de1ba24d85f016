"""Answers to the service's asks, checked against bytes written by hand.

Asks are spelled from field numbers and parsed with the generated classes;
each answer is compared byte for byte with the AgentClientMessage written out
by hand (a tag is ``field << 3 | wire_type``; fields in number order, as the
protobuf runtime writes them). AgentServerMessage: 2 exec_server_message
{1 id, 15 exec_id, the ask's member}, 4 kv_server_message{1 id, 2 get{1 blob_id},
3 set{1 blob_id, 2 data}}, 5 exec_server_control_message, 7 interaction_query
{1 id, member}. AgentClientMessage: 2 exec_client_message{1 id, 15 exec_id,
the result's member}, 3 kv_client_message, 5 exec_client_control_message
{1 stream_close{1 id}, 2 throw{1 id, 2 error, 4 error_code}}, 6 interaction_response.
"""

from __future__ import annotations

import json
import struct
from typing import Any

import pytest
from answering import Answering, new_id
from google.protobuf.message import DecodeError
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from protobytes import ld, vi
from protobytes import text as s

from nodecode_cursor._proto import agent_pb2
from nodecode_cursor.core import schema
from nodecode_cursor.core.answers import Answerer, handoff_text
from nodecode_cursor.errors import CursorError

# --- hand encoding -----------------------------------------------------------------------


ID = 7
EXEC_ID = "x9"
CWD = "/round/cwd"
NA = "Tool not available"


def ask(member: int, args: bytes = b"") -> agent_pb2.AgentServerMessage:
    """An ExecServerMessage ask with id 7, exec_id "x9"."""
    return agent_pb2.AgentServerMessage.FromString(
        ld(2, vi(1, ID), ld(member, args), s(15, EXEC_ID))
    )


def reply(member: int, result: bytes) -> bytes:
    """The ExecClientMessage answer, fields in number order."""
    fields = sorted([(1, vi(1, ID)), (member, ld(member, result)), (15, s(15, EXEC_ID))])
    return ld(2, *(f for _, f in fields))


CLOSE = ld(5, ld(1, vi(1, ID)))


def throw(error: str, code: str) -> bytes:
    return ld(5, ld(2, vi(1, ID), s(2, error), s(4, code)))


class Blobs:
    def __init__(self) -> None:
        self.held: dict[bytes, bytes] = {}

    def get(self, blob_id: bytes) -> bytes | None:
        return self.held.get(blob_id)

    def set(self, blob_id: bytes, data: bytes) -> None:
        self.held[blob_id] = data


TOOLS: list[dict[str, Any]] = [
    {
        "type": "function",
        "function": {
            "name": "search",
            "description": "Find it",
            "parameters": {"type": "object", "properties": {"q": {"type": "string"}}},
        },
    },
    {"type": "function", "function": {"name": "write", "description": "W", "parameters": None}},
    {"type": "function", "function": {"name": "bash", "description": "B"}},
    {"type": "function", "function": {"name": "read"}},
]


def answerer(tools: list[dict[str, Any]] | None = None, system: str = "Be brief.") -> Answering:
    return Answering(
        Answerer(
            tools=TOOLS if tools is None else tools,
            system_prompt=system,
            cwd=CWD,
            blobs=Blobs(),
            project_schemas=False,
            new_id=new_id,
        )
    )


def answer_bytes(a: Answering, msg: agent_pb2.AgentServerMessage) -> list[bytes]:
    return [m.SerializeToString() for m in a.answer(msg)]


# google.protobuf.Value of {"type":"object","properties":{"q":{"type":"string"}}}:
# struct 5 { entries 1 { key 1, value 2 } }, string 3.
def v_entry(key: str, value: bytes) -> bytes:
    return ld(1, s(1, key), ld(2, value))


# Map entries come in key order (the Value is serialized deterministically).
SEARCH_SCHEMA = ld(
    5,
    v_entry("properties", ld(5, v_entry("q", ld(5, v_entry("type", s(3, "string")))))),
    v_entry("type", s(3, "object")),
)
# the schema-less `write`: {"type":"object","properties":{},"required":[]}
EMPTY_SCHEMA = ld(
    5, v_entry("properties", ld(5)), v_entry("required", ld(6)), v_entry("type", s(3, "object"))
)


def definition(name: str, description: str, schema: bytes) -> bytes:
    """McpToolDefinition{1 name, 2 description, 3 input_schema, 4 provider, 5 tool_name}."""
    return s(1, name) + s(2, description) + ld(3, schema) + s(4, "pi-agent") + s(5, name)


SEARCH_DEF = definition("search", "Find it", SEARCH_SCHEMA)

# CursorRule{1 full_path, 2 content, 3 type{1 global{}}, 4 source = 2 (USER)}
RULE = s(1, "/nodecode/system-prompt.mdc") + s(2, "Be brief.") + ld(3, ld(1)) + vi(4, 2)


# --- request context ------------------------------------------------------------------


def test_request_context_offers_every_tool_a_native_name_under_its_wire_name() -> None:
    # write, bash and read collide with Cursor's native names: host_write, host_bash,
    # host_read (McpToolDefinition 1 name and 5 tool_name), in the host's order.
    expected = reply(
        10,
        ld(
            1,
            ld(
                1,
                ld(2, RULE),
                ld(7, SEARCH_DEF),
                ld(7, definition("host_write", "W", EMPTY_SCHEMA)),
                ld(7, definition("host_bash", "B", EMPTY_SCHEMA)),
                ld(
                    7,
                    s(1, "host_read") + ld(3, EMPTY_SCHEMA) + s(4, "pi-agent") + s(5, "host_read"),
                ),
            ),
        ),
    )
    assert answer_bytes(answerer(), ask(10)) == [expected]


def test_a_wire_name_the_host_uses_itself_gets_a_number() -> None:
    tools = [
        {"type": "function", "function": {"name": "read"}},
        {"type": "function", "function": {"name": "host_read"}},
    ]
    expected = reply(
        10,
        ld(
            1,
            ld(
                1,
                ld(
                    7,
                    s(1, "host_read_2")
                    + ld(3, EMPTY_SCHEMA)
                    + s(4, "pi-agent")
                    + s(5, "host_read_2"),
                ),
                ld(
                    7,
                    s(1, "host_read") + ld(3, EMPTY_SCHEMA) + s(4, "pi-agent") + s(5, "host_read"),
                ),
            ),
        ),
    )
    assert answer_bytes(answerer(tools, system=""), ask(10)) == [expected]


def test_a_call_of_a_wire_name_is_filed_under_the_host_tools_own_name() -> None:
    a = answerer()
    a.answer(ask(11, s(1, "host_read") + s(3, "call_9") + s(5, "host_read")))
    calls = a.fold.message()["tool_calls"]
    assert [(c["id"], c["function"]["name"]) for c in calls] == [("call_9", "read")]


def test_projected_schemas_go_through_schema_projection() -> None:
    tools = [
        {
            "type": "function",
            "function": {
                "name": "pick",
                "parameters": {
                    "type": "object",
                    "anyOf": [
                        {"type": "object", "properties": {"a": {"type": "string"}}},
                        {"type": "object", "properties": {"b": {"type": "string"}}},
                    ],
                },
            },
        }
    ]
    a = Answerer(
        tools=tools, system_prompt="", cwd=CWD, blobs=Blobs(), project_schemas=True, new_id=new_id
    )
    (message,) = a.answer(ask(10)).replies
    (tool,) = message.exec_client_message.request_context_result.success.request_context.tools
    from nodecode_cursor.wire.values import decode_value

    projected = decode_value(tool.input_schema)
    assert projected == schema.project_schema(tools[0]["function"]["parameters"])
    assert "anyOf" not in json.dumps(projected)


# --- the MCP handoff ------------------------------------------------------------------


def mcp_args(call_id: str, name: str, approval_only: bool = False, **args: bytes) -> bytes:
    entries = b"".join(ld(2, s(1, k), ld(2, v)) for k, v in args.items())
    body = s(1, name) + entries + s(3, call_id) + s(4, "pi-agent") + s(5, name)
    return body + (vi(7, 1) if approval_only else b"")


def test_an_mcp_ask_is_handed_off_and_filed_on_the_round() -> None:
    a = answerer()
    number = bytes([0x11]) + struct.pack("<d", 3.0)
    msg = ask(11, mcp_args("call_9", "search", q=s(3, "cats"), n=number))
    # McpResult{1 success{1 content{1 text{1 the handoff}}}}
    expected = reply(11, ld(1, ld(1, ld(1, s(1, handoff_text())))))
    assert answer_bytes(a, msg) == [expected]
    assert a.handed_off
    assert a.fold.message()["tool_calls"] == [
        {
            "id": "call_9",
            "type": "function",
            "function": {"name": "search", "arguments": '{"n":3,"q":"cats"}'},
        }
    ]


def test_the_handoff_text_says_to_end_the_turn() -> None:
    text = handoff_text().lower()
    assert "end your turn" in text and "next request" in text


def test_an_approval_probe_is_refused_and_files_nothing() -> None:
    a = answerer()
    msg = ask(11, mcp_args("call_9", "search", approval_only=True))
    reason = 'Tool "search" is not approved to run without asking.'
    assert answer_bytes(a, msg) == [reply(11, ld(3, s(1, reason)))]
    assert not a.handed_off
    assert "tool_calls" not in a.fold.message()


# --- native asks, each refused in its own typed result -----------------------------------------


@pytest.mark.parametrize(
    ("member", "variant"),
    [(7, 3), (8, 3), (9, 3), (3, 6), (4, 6)],
    ids=["read", "ls", "diag", "write", "delete"],
)
def test_path_asks_are_refused_with_path_and_reason(member: int, variant: int) -> None:
    expected = reply(member, ld(variant, s(1, "/p"), s(2, NA)))
    assert answer_bytes(answerer(), ask(member, s(1, "/p"))) == [expected]


def test_grep_is_an_error_and_an_empty_pattern_says_a_pattern_is_required() -> None:
    assert answer_bytes(answerer(), ask(5, s(1, "foo"))) == [reply(5, ld(2, s(1, NA)))]
    (raw,) = answer_bytes(answerer(), ask(5, s(1, "  ") + s(3, "*.py")))
    result = agent_pb2.AgentClientMessage.FromString(raw).exec_client_message.grep_result
    assert "pattern" in result.error.error and '"*.py"' in result.error.error
    assert "ls" in result.error.error


SHELL_REJECTED = s(1, "make") + s(2, "/w") + s(3, NA)
SHELL_REJECTED_CWD = s(1, "make") + s(2, CWD) + s(3, NA)


def test_shell_is_rejected_naming_its_directory_else_the_rounds() -> None:
    assert answer_bytes(answerer(), ask(2, s(1, "make") + s(2, "/w"))) == [
        reply(2, ld(4, SHELL_REJECTED))
    ]
    assert answer_bytes(answerer(), ask(2, s(1, "make"))) == [reply(2, ld(4, SHELL_REJECTED_CWD))]


def test_shell_stream_refusal_is_five_messages() -> None:
    assert answer_bytes(answerer(), ask(14, s(1, "make"))) == [
        reply(14, ld(4)),  # start
        reply(14, ld(5, SHELL_REJECTED_CWD)),  # rejected
        reply(14, ld(3, vi(1, 1), s(2, CWD))),  # exit code 1
        reply(2, ld(4, SHELL_REJECTED_CWD)),  # the plain shell result
        CLOSE,
    ]


def test_mini_swe_agent_bash_answers_as_member_55() -> None:
    assert answer_bytes(answerer(), ask(52, s(1, "make"))) == [reply(55, ld(4, SHELL_REJECTED_CWD))]


NOT_IMPL = "Not implemented"
BY_CLIENT = "not implemented by this client"


@pytest.mark.parametrize(
    ("member", "args", "expected"),
    [
        (
            16,
            s(1, "sleep 9") + s(2, "/bg"),
            reply(16, ld(3, s(1, "sleep 9") + s(2, "/bg") + s(3, NOT_IMPL))),
        ),
        (17, b"", reply(17, ld(1))),
        (18, s(1, "srv") + s(2, "res://x"), reply(18, ld(4, s(1, "res://x")))),
        (20, s(1, "https://e.x"), reply(20, ld(2, s(1, "https://e.x") + s(2, NOT_IMPL)))),
        (21, b"", reply(21, ld(4, s(1, "Not implemented by this client")))),
        (22, b"", reply(22, ld(2, s(1, "Not implemented by this client")))),
        (23, b"", reply(23, ld(2, s(1, NOT_IMPL)))),
        (
            29,
            s(1, "/secret"),
            reply(29, ld(2, s(1, "/secret") + s(2, f"Secret redaction is {BY_CLIENT}"))),
        ),
        (28, b"", reply(28, ld(2, s(2, f"Subagents are {BY_CLIENT}")))),
        (30, b"", reply(30, vi(1, 2))),
        (31, b"", reply(31, vi(1, 2))),
        (37, s(1, "agent-3"), reply(37, ld(3, s(1, "agent-3")))),
        (38, b"", reply(38, ld(2, s(1, f"Smart-mode classification is {BY_CLIENT}")))),
        (
            40,
            s(1, "/c"),
            reply(40, ld(2, s(1, "/c") + s(2, f"Canvas diagnostics are {BY_CLIENT}"))),
        ),
        (41, b"", reply(41, b"")),
        (42, b"", reply(42, b"")),
        (43, b"", reply(43, b"")),
        (53, b"", reply(53, ld(2, s(1, f"Conversation search is {BY_CLIENT}")))),
        (54, b"", reply(54, ld(2, s(1, f"Agent store conflicts are {BY_CLIENT}")))),
    ],
)
def test_every_other_ask_gets_its_typed_refusal(member: int, args: bytes, expected: bytes) -> None:
    assert answer_bytes(answerer(), ask(member, args)) == [expected]


@pytest.mark.parametrize(
    ("member", "result"),
    [
        (45, ld(2, s(1, NA))),
        (46, ld(2, s(1, NA))),
        (47, ld(3, s(1, NA))),
        (48, ld(3, s(1, NA))),
        (49, ld(2, s(1, NA))),
        (50, ld(2, s(1, NA))),
        (51, ld(2, s(1, NA))),
    ],
)
def test_pi_asks_answer_one_member_higher(member: int, result: bytes) -> None:
    assert answer_bytes(answerer(), ask(member, s(1, "x"))) == [reply(member + 1, result)]


# --- mcp state and hooks ---------------------------------------------------------------------


SERVER = ld(
    1,
    s(1, "pi-agent")
    + s(2, "pi-agent")
    + ld(5, SEARCH_DEF)
    + ld(5, definition("host_write", "W", EMPTY_SCHEMA))
    + ld(5, definition("host_bash", "B", EMPTY_SCHEMA))
    + ld(5, s(1, "host_read") + ld(3, EMPTY_SCHEMA) + s(4, "pi-agent") + s(5, "host_read"))
    + s(7, "connected"),
)


def test_mcp_state_lists_our_server_when_we_advertise_tools() -> None:
    assert answer_bytes(answerer(), ask(36)) == [reply(36, ld(1, SERVER))]
    assert answer_bytes(answerer(), ask(36, s(1, "pi-agent"))) == [reply(36, ld(1, SERVER))]


def test_mcp_state_is_empty_for_other_servers_or_no_tools() -> None:
    assert answer_bytes(answerer(), ask(36, s(1, "someone-else"))) == [reply(36, ld(1))]
    assert answer_bytes(answerer(tools=[]), ask(36)) == [reply(36, ld(1))]


@pytest.mark.parametrize("case", [1, 2, 3, 4, 5, 6, 7, 8, 9, 11])
def test_a_hook_gets_a_neutral_answer_on_its_own_case(case: int) -> None:
    # ExecuteHookArgs{1 request{case {}}} -> ExecuteHookResult{1 response{case {}}}
    assert answer_bytes(answerer(), ask(27, ld(1, ld(case)))) == [reply(27, ld(1, ld(case)))]


def test_an_unset_hook_throws_and_closes() -> None:
    assert answer_bytes(answerer(), ask(27)) == [
        throw("Unknown hook request", "unknown_hook_request"),
        CLOSE,
    ]


def test_git_diff_throws_unsupported_and_closes() -> None:
    assert answer_bytes(answerer(), ask(44)) == [
        throw(f"Exec ask git_diff_request is {BY_CLIENT}", "exec_variant_unsupported"),
        CLOSE,
    ]


def test_an_unknown_or_unset_exec_member_throws_and_closes() -> None:
    unknown = agent_pb2.AgentServerMessage.FromString(ld(2, vi(1, ID), ld(99, b""), s(15, EXEC_ID)))
    expected = [throw("Unknown exec message variant", "unknown_exec_variant"), CLOSE]
    assert answer_bytes(answerer(), unknown) == expected
    bare = agent_pb2.AgentServerMessage.FromString(ld(2, vi(1, ID), s(15, EXEC_ID)))
    assert answer_bytes(answerer(), bare) == expected


def test_an_exec_abort_and_stream_updates_ask_nothing() -> None:
    abort = agent_pb2.AgentServerMessage.FromString(ld(5, ld(1, vi(1, ID))))
    assert answerer().answer(abort) == []
    update = agent_pb2.AgentServerMessage.FromString(ld(1, ld(1, s(1, "hi"))))
    assert answerer().answer(update) == []


# --- interaction queries --------------------------------------------------------------------


def query(member: int, body: bytes = b"") -> agent_pb2.AgentServerMessage:
    return agent_pb2.AgentServerMessage.FromString(ld(7, vi(1, 12), ld(member, body)))


def response(member: int, body: bytes) -> bytes:
    return ld(6, vi(1, 12), ld(member, body))


@pytest.mark.parametrize("member", [2, 5, 6, 9])
def test_searches_and_fetches_are_approved(member: int) -> None:
    assert answer_bytes(answerer(), query(member)) == [response(member, ld(1))]


def test_questions_mode_switches_and_plans_are_refused() -> None:
    assert answer_bytes(answerer(), query(3)) == [
        response(3, ld(1, ld(3, s(1, f"Interactive questions are {BY_CLIENT}"))))
    ]
    assert answer_bytes(answerer(), query(4)) == [
        response(4, ld(2, s(1, f"Mode switches are {BY_CLIENT}")))
    ]
    assert answer_bytes(answerer(), query(7)) == [
        response(7, ld(1, ld(2, s(1, f"Plan files are {BY_CLIENT}"))))
    ]


def test_vm_setup_gets_an_empty_success() -> None:
    # InteractionResponse{1 id, 8 setup_vm_environment_result{1 success{}}}
    query_body = s(2, "npm ci") + s(3, "npm start")
    assert answer_bytes(answerer(), query(8, query_body)) == [response(8, ld(1))]


def test_an_unknown_query_gets_the_bare_response_with_its_id() -> None:
    # Only InteractionResponse{1 id}: no result guessed for a member we do not know.
    assert answer_bytes(answerer(), query(23, s(1, "new"))) == [ld(6, vi(1, 12))]
    bare = agent_pb2.AgentServerMessage.FromString(ld(7, vi(1, 12)))
    assert answer_bytes(answerer(), bare) == [ld(6, vi(1, 12))]


# --- key-value ----------------------------------------------------------------------------------


def kv(body: bytes) -> agent_pb2.AgentServerMessage:
    return agent_pb2.AgentServerMessage.FromString(ld(4, vi(1, 5), body))


def test_kv_set_keeps_the_blob_and_get_serves_it() -> None:
    a = answerer()
    blob_id = bytes(range(32))
    assert answer_bytes(a, kv(ld(3, ld(1, blob_id), ld(2, b"\x00data")))) == [
        ld(3, vi(1, 5), ld(3))
    ]
    assert a.blobs.get(blob_id) == b"\x00data"
    assert answer_bytes(a, kv(ld(2, ld(1, blob_id)))) == [
        ld(3, vi(1, 5), ld(2, ld(1, b"\x00data")))
    ]


def test_kv_get_of_an_unknown_blob_is_an_empty_result() -> None:
    assert answer_bytes(answerer(), kv(ld(2, ld(1, b"\xff" * 32)))) == [ld(3, vi(1, 5), ld(2))]


def test_kv_get_of_a_key_that_is_no_sha256_answers_the_key_itself() -> None:
    # KvServerMessage{1 id 5, 2 get_blob_args{1 blob_id "{...}"}}: a 19-byte key carries
    # its content (ccextra's design note); the answer is KvClientMessage{1 id 5,
    # 2 get_blob_result{1 blob_data <the same bytes>}} in AgentClientMessage field 3.
    key = b'{"role":"user"}\x00ab'
    assert answer_bytes(
        answerer(), kv(b"\x12" + bytes([len(key) + 2]) + b"\x0a" + bytes([len(key)]) + key)
    ) == [
        b"\x1a"
        + bytes([len(key) + 6])
        + b"\x08\x05"
        + b"\x12"
        + bytes([len(key) + 2])
        + b"\x0a"
        + bytes([len(key)])
        + key
    ]
    # One kept under such a key still wins over the echo.
    a = answerer()
    a.blobs.set(key, b"kept")
    assert answer_bytes(a, kv(ld(2, ld(1, key)))) == [ld(3, vi(1, 5), ld(2, ld(1, b"kept")))]


# --- robustness -----------------------------------------------------------------------------


@settings(max_examples=500, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(st.binary(max_size=300))
def test_random_bytes_never_break_the_answers(raw: bytes) -> None:
    try:
        msg = agent_pb2.AgentServerMessage.FromString(raw)
    except DecodeError:
        return
    a = answerer()
    try:
        a.fold.feed(msg)
        answers = a.answer(msg)
    except CursorError:
        return
    for message in answers:
        assert isinstance(message, agent_pb2.AgentClientMessage)
        message.SerializeToString()
    built = a.fold.message()
    assert json.loads(json.dumps(built, allow_nan=False)) == built


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(st.integers(min_value=1, max_value=60), st.binary(max_size=80))
def test_random_ask_bodies_are_answered_with_the_asks_id(member: int, body: bytes) -> None:
    raw = ld(2, vi(1, ID), ld(member, body), s(15, EXEC_ID))
    try:
        msg = agent_pb2.AgentServerMessage.FromString(raw)
    except DecodeError:
        return
    answers = answerer().answer(msg)
    assert answers, "every exec ask is answered"
    for message in answers:
        kind = message.WhichOneof("message")
        if kind == "exec_client_message":
            assert message.exec_client_message.id == ID
            assert message.exec_client_message.exec_id == EXEC_ID
        else:
            control = message.exec_client_control_message
            assert getattr(control, control.WhichOneof("message")).id == ID


def test_the_mcp_server_name_is_defined_once() -> None:
    import ast
    import inspect

    from nodecode_cursor.core import answers, history

    assert answers.PROVIDER_IDENTIFIER == history.PROVIDER_IDENTIFIER == "pi-agent"
    assigned = [
        node
        for node in ast.walk(ast.parse(inspect.getsource(answers)))
        if isinstance(node, ast.Assign)
        and any(getattr(t, "id", None) == "PROVIDER_IDENTIFIER" for t in node.targets)
    ]
    assert assigned == []  # answers.py takes history.py's, never a copy of its own
