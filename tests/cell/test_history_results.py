"""History replay of what JSON cannot spell (NaN, infinities) and of failed tool results.

Root prompt blobs are compared as text written by hand; turn steps as bytes written
from field numbers (a tag is ``field << 3 | wire_type``): ConversationStep{2 tool_call},
ToolCall{15 mcp_tool_call (tag 0x7a), 57 tool_call_id (tag 0xca 0x03)},
McpToolCall{1 args, 2 result}, McpArgs{1 name, 2 args map entry{1 key, 2 Value bytes},
3 tool_call_id, 4 provider_identifier, 5 tool_name}, McpToolResult{1 success, 2 error},
McpToolError{1 error}, google.protobuf.Value{1 null_value, 3 string_value}.
"""

from __future__ import annotations

import json
import math
from typing import Any

import pytest

from nodecode_cursor._proto import agent_pb2
from nodecode_cursor.core.blobs import BlobStore
from nodecode_cursor.core.history import build_history, json_bytes
from nodecode_cursor.wire.values import finite

SYSTEM = b'{"role":"system","content":"sys"}'


def call(call_id: str, name: str, arguments: Any) -> dict[str, object]:
    """Return a chat tool call."""
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def blobs(store: BlobStore, ids: tuple[bytes, ...]) -> list[bytes]:
    """Return the blobs' bytes."""
    found = [store.get(blob_id) for blob_id in ids]
    assert all(blob is not None for blob in found)
    return [blob for blob in found if blob is not None]


def steps(store: BlobStore, turn_id: bytes) -> list[bytes]:
    """Return the step blobs of one turn."""
    turn = agent_pb2.ConversationTurnStructure.FromString(store.get(turn_id) or b"")
    return blobs(store, tuple(turn.agent_conversation_turn.steps))


def strict_json(blob: bytes) -> Any:
    """Return BLOB parsed as JSON proper: NaN, Infinity and -Infinity are refused."""

    def refuse(constant: str) -> Any:
        raise AssertionError(f"not JSON: {constant}")

    return json.loads(blob, parse_constant=refuse)


# --- non-finite numbers --------------------------------------------------------------------


@pytest.mark.parametrize(
    "arguments",
    [
        {"x": float("nan"), "y": [float("inf"), 1], "z": {"w": float("-inf")}},
        '{"x": NaN, "y": [Infinity, 1], "z": {"w": -Infinity}}',  # Python's reader takes these
    ],
)
def test_non_finite_arguments_replay_as_null_in_every_blob(arguments: Any) -> None:
    messages = [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": None, "tool_calls": [call("c1", "t", arguments)]},
        {"role": "tool", "tool_call_id": "c1", "content": "ok"},
        {"role": "user", "content": "next"},
    ]
    store = BlobStore()
    history = build_history(messages, "sys", store)
    root = blobs(store, history.root_ids)
    assert root[2] == (
        b'{"role":"assistant","content":[{"type":"tool-call","toolCallId":"c1","toolName":"t",'
        b'"args":{"x":null,"y":[null,1],"z":{"w":null}}}]}'
    )
    for blob in root:
        strict_json(blob)
    # The step's Values: x is Value{1 null_value} = 08 00; y a list of null and 1.0.
    (step,) = steps(store, history.turn_ids[0])
    parsed = agent_pb2.ConversationStep.FromString(step)
    values = parsed.tool_call.mcp_tool_call.args.args
    assert values["x"] == b"\x08\x00"
    # Value{6 ListValue{1 Value{1 null}, 1 Value{2 double 1.0}}}
    assert (
        values["y"] == b"\x32\x0f" + b"\x0a\x02\x08\x00" + b"\x0a\x09\x11" + bytes(6) + b"\xf0\x3f"
    )
    # Value{5 Struct{1 entry{1 "w", 2 Value{1 null}}}}
    assert values["z"] == b"\x2a\x09" + b"\x0a\x07" + b"\x0a\x01w" + b"\x12\x02\x08\x00"


def test_a_non_finite_argument_step_is_the_exact_bytes() -> None:
    messages = [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": "", "tool_calls": [call("c1", "t", '{"x": NaN}')]},
    ]
    store = BlobStore()
    history = build_history(messages, None, store)
    (step,) = steps(store, history.turn_ids[0])
    entry = b"\x0a\x01x" + b"\x12\x02\x08\x00"  # {1 "x", 2 Value{1 null_value}}
    args = b"\x0a\x01t" + b"\x12\x07" + entry + b"\x1a\x02c1" + b"\x22\x08pi-agent" + b"\x2a\x01t"
    mcp = b"\x0a\x1d" + args  # no result held: no field 2
    tool_call = b"\x7a\x1f" + mcp + b"\xca\x03\x02c1"
    assert step == b"\x12\x26" + tool_call


def test_json_bytes_never_writes_nan() -> None:
    assert json_bytes({"a": [math.nan, math.inf, -math.inf, 1.5]}) == b'{"a":[null,null,null,1.5]}'
    assert json_bytes({"a": 1.5}) == b'{"a":1.5}'


def test_finite_copies_only_what_changed() -> None:
    kept = {"a": [1, 2.5, "x"], "b": {"c": None}}
    assert finite(kept) is kept
    mixed = {"a": [1, math.nan], "b": {"c": 2}}
    out = finite(mixed)
    assert out == {"a": [1, None], "b": {"c": 2}}
    assert out["b"] is mixed["b"]  # untouched branches are shared, not copied
    assert math.isnan(mixed["a"][1])  # the original is left as it was
    assert finite((math.inf,)) == (None,)


# --- arguments as text ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("arguments", "args"),
    [
        ('{"path":"a"}', b'{"path":"a"}'),
        (' \n{"path": "a"}\t ', b'{"path":"a"}'),  # whitespace around the object is JSON too
        ('{"path":"a"} x', b"{}"),  # anything after it is not
        ('{"path":"a"}{"b":1}', b"{}"),
        ('["a"]', b"{}"),  # arguments are an object
        ("", b"{}"),
    ],
)
def test_call_arguments_are_read_as_one_json_object(arguments: str, args: bytes) -> None:
    messages = [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": None, "tool_calls": [call("c1", "t", arguments)]},
        {"role": "user", "content": "next"},
    ]
    store = BlobStore()
    root = blobs(store, build_history(messages, "sys", store).root_ids)
    assert root[2] == (
        b'{"role":"assistant","content":[{"type":"tool-call","toolCallId":"c1","toolName":"t",'
        b'"args":' + args + b"}]}"
    )


# --- failed tool results -------------------------------------------------------------------


def failed_round(flag: Any) -> list[dict[str, Any]]:
    """Return a round whose tool result carries FLAG as is_error (None: no key)."""
    result: dict[str, Any] = {"role": "tool", "tool_call_id": "c1", "content": "no such file"}
    if flag is not None:
        result["is_error"] = flag
    return [
        {"role": "user", "content": "read a"},
        {"role": "assistant", "content": None, "tool_calls": [call("c1", "read", '{"path":"a"}')]},
        result,
        {"role": "user", "content": "and now?"},
    ]


# McpArgs{1 "read", 2 {"path": Value{3 "a"}}, 3 "c1", 4 "pi-agent", 5 "read"}: 39 bytes
READ_ARGS = (
    b"\x0a\x04read"
    + b"\x12\x0b"
    + b"\x0a\x04path\x12\x03\x1a\x01a"
    + b"\x1a\x02c1"
    + b"\x22\x08pi-agent"
    + b"\x2a\x04read"
)


def test_a_failed_result_replays_as_an_error_in_root_json_and_turn_step() -> None:
    store = BlobStore()
    history = build_history(failed_round(True), "sys", store)
    assert blobs(store, history.root_ids)[3] == (
        b'{"role":"tool","id":"c1","content":[{"type":"tool-result","toolName":"read",'
        b'"toolCallId":"c1","result":"no such file","isError":true}]}'
    )
    (step,) = steps(store, history.turn_ids[0])
    # McpToolResult{2 McpToolError{1 "no such file"}}
    result = b"\x12\x0e" + b"\x0a\x0cno such file"
    mcp = b"\x0a\x27" + READ_ARGS + b"\x12\x10" + result
    tool_call = b"\x7a\x3b" + mcp + b"\xca\x03\x02c1"
    assert step == b"\x12\x42" + tool_call


@pytest.mark.parametrize("flag", [None, False, "true", 1])
def test_a_result_not_flagged_true_replays_as_success_as_before(flag: Any) -> None:
    store = BlobStore()
    history = build_history(failed_round(flag), "sys", store)
    assert blobs(store, history.root_ids)[3] == (
        b'{"role":"tool","id":"c1","content":[{"type":"tool-result","toolName":"read",'
        b'"toolCallId":"c1","result":"no such file"}]}'
    )
    (step,) = steps(store, history.turn_ids[0])
    # McpToolResult{1 McpSuccess{1 content{1 text{1 "no such file"}}}}
    item = b"\x0a\x0e" + b"\x0a\x0cno such file"
    result = b"\x0a\x12" + b"\x0a\x10" + item
    mcp = b"\x0a\x27" + READ_ARGS + b"\x12\x14" + result
    assert step == b"\x12\x46" + b"\x7a\x3f" + mcp + b"\xca\x03\x02c1"


def test_success_and_failure_of_one_call_are_different_blobs_in_one_store() -> None:
    store = BlobStore()
    ok = build_history(failed_round(None), "sys", store)
    failed = build_history(failed_round(True), "sys", store)
    assert ok.root_ids[3] != failed.root_ids[3]
    assert ok.turn_ids != failed.turn_ids


def test_a_failed_empty_result_is_still_an_error() -> None:
    messages = failed_round(True)
    messages[2]["content"] = ""
    store = BlobStore()
    history = build_history(messages, "sys", store)
    (step,) = steps(store, history.turn_ids[0])
    # McpToolResult{2 McpToolError{}}: the member set, with nothing in it
    mcp = b"\x0a\x27" + READ_ARGS + b"\x12\x02" + b"\x12\x00"
    assert step == b"\x12\x34" + b"\x7a\x2d" + mcp + b"\xca\x03\x02c1"


def test_a_failed_result_with_no_call_is_tool_error_text() -> None:
    messages = [
        {"role": "user", "content": "hi"},
        {"role": "tool", "tool_call_id": "ghost", "content": "boom", "is_error": True},
        {"role": "user", "content": "next"},
    ]
    store = BlobStore()
    history = build_history(messages, "sys", store)
    assert blobs(store, history.root_ids)[2] == (
        b'{"role":"assistant","content":[{"type":"text","text":"[Tool Error]\\nboom"}]}'
    )
    (step,) = steps(store, history.turn_ids[0])
    # ConversationStep{1 AssistantMessage{1 text}}
    assert step == b"\x0a\x13" + b"\x0a\x11[Tool Error]\nboom"
