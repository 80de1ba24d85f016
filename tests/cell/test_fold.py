"""Folding a run's server messages into the round's message, over bytes written by hand.

Every server message here is spelled out from field numbers (a tag is
``field << 3 | wire_type``; wire type 0 = varint, 2 = length-delimited) and
parsed with the generated class, never built with our own code. Numbers used:
AgentServerMessage 1 interaction_update, 2 exec_server_message,
3 conversation_checkpoint_update, 4 kv_server_message. InteractionUpdate
1 text_delta{1 text}, 2 tool_call_started{1 call_id, 2 tool_call},
3 tool_call_completed{1 call_id, 2 tool_call}, 4 thinking_delta{1 text},
7 partial_tool_call{1 call_id, 3 args_text_delta}, 8 token_delta{1 tokens},
13 heartbeat, 14 turn_ended{1 input, 2 output, 3 cache read, 4 cache write,
5 reasoning}, 17 step_completed{1 step_id}, 24 routed_model{1 model_id}.
ToolCall 15 mcp_tool_call{1 args = McpArgs{1 name, 2 args (map entries
{1 key, 2 Value bytes}), 3 tool_call_id, 4 provider_identifier, 5 tool_name}}.
google.protobuf.Value: 2 number (fixed64 double), 3 string, 4 bool,
5 struct{1 entries{1 key, 2 value}}, 6 list{1 values}.
"""

from __future__ import annotations

import contextlib
import json
import struct
import uuid
from typing import Any

import pytest
from google.protobuf.message import DecodeError
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from protobytes import ld, vi
from protobytes import text as st_

from nodecode_cursor._proto import agent_pb2
from nodecode_cursor.core.call_args import merge_arguments, rewritten_snapshot
from nodecode_cursor.core.fold import Fold
from nodecode_cursor.errors import CursorError
from nodecode_cursor.host import (
    ReasoningDelta,
    StreamPart,
    TextDelta,
    ToolCallArgsDelta,
    ToolCallStart,
)

# --- hand encoding -----------------------------------------------------------------------


# google.protobuf.Value bytes
def v_str(text: str) -> bytes:
    return st_(3, text)


def v_num(x: float) -> bytes:
    return bytes([0x11]) + struct.pack("<d", x)


V_TRUE = bytes([0x20, 0x01])


def v_obj(**items: bytes) -> bytes:
    return ld(5, *(ld(1, st_(1, k), ld(2, v)) for k, v in items.items()))


def v_list(*items: bytes) -> bytes:
    return ld(6, *(ld(1, item) for item in items))


def update(member: int, payload: bytes = b"") -> bytes:
    return ld(1, ld(member, payload))


def text(t: str) -> bytes:
    return update(1, st_(1, t))


def thinking(t: str) -> bytes:
    return update(4, st_(1, t))


def mcp_call(call_id: str, name: str, **args: bytes) -> bytes:
    """A ToolCall{15 McpToolCall{1 McpArgs}} (the ToolCall's own bytes)."""
    entries = b"".join(ld(2, st_(1, k), ld(2, v)) for k, v in args.items())
    mcp_args = st_(1, name) + entries + st_(3, call_id) + st_(4, "pi-agent") + st_(5, name)
    return ld(15, ld(1, mcp_args))


def started(envelope: str, tool_call: bytes) -> bytes:
    return update(2, st_(1, envelope) + ld(2, tool_call))


def partial(envelope: str, snapshot: str) -> bytes:
    return update(7, st_(1, envelope) + st_(3, snapshot))


def completed(envelope: str, tool_call: bytes) -> bytes:
    return update(3, st_(1, envelope) + ld(2, tool_call))


STEP_COMPLETED = update(17, vi(1, 1))
HEARTBEAT = update(13)
THINKING_COMPLETED = update(5)


def turn_ended(i: int, o: int, read: int = 0, write: int = 0, reasoning: int = 0) -> bytes:
    body = vi(1, i) + vi(2, o)
    if read:
        body += vi(3, read)
    if write:
        body += vi(4, write)
    if reasoning:
        body += vi(5, reasoning)
    return update(14, body)


def token_delta(n: int) -> bytes:
    return update(8, vi(1, n))


def checkpoint(used_tokens: int = 0) -> bytes:
    body = ld(1, b"\x01" * 32) + ld(8, b"\x02" * 32)
    if used_tokens:
        body += ld(5, vi(1, used_tokens), vi(2, 200_000))
    return ld(3, body)


def exec_read(path: str) -> bytes:
    return ld(2, vi(1, 4), ld(7, st_(1, path)), st_(15, "e4"))


def new_id() -> str:
    return str(uuid.uuid4())


def fold_all(*frames: bytes) -> tuple[Fold, list[StreamPart]]:
    parts: list[StreamPart] = []
    fold = Fold(new_id=new_id)
    for frame in frames:
        parts += fold.feed(agent_pb2.AgentServerMessage.FromString(frame))
    return fold, parts


def arguments(fold: Fold, index: int = 0) -> str:
    value: str = fold.message()["tool_calls"][index]["function"]["arguments"]
    return value


# --- text and thinking ---------------------------------------------------------------------


def test_the_hand_bytes_are_what_the_schema_reads() -> None:
    msg = agent_pb2.AgentServerMessage.FromString(text("hi"))
    assert msg.interaction_update.text_delta.text == "hi"
    assert text("hi") == bytes([0x0A, 0x06, 0x0A, 0x04, 0x0A, 0x02, 0x68, 0x69])


def test_text_and_thinking_interleave_into_their_own_fields_and_stream_in_order() -> None:
    fold, parts = fold_all(
        thinking("Let me "),
        thinking("think."),
        text("Hello"),
        thinking(" more"),
        text(", world"),
    )
    assert fold.message() == {
        "role": "assistant",
        "content": "Hello, world",
        "reasoning_content": "Let me think. more",
    }
    assert parts == [
        ReasoningDelta("Let me "),
        ReasoningDelta("think."),
        TextDelta("Hello"),
        ReasoningDelta(" more"),
        TextDelta(", world"),
    ]
    assert fold.finish_reason == "stop"
    assert fold.saw_output


def test_no_text_gives_content_none_and_no_reasoning_key() -> None:
    fold, parts = fold_all(HEARTBEAT)
    assert fold.message() == {"role": "assistant", "content": None}
    assert parts == []
    assert not fold.saw_output


def test_the_message_has_only_chat_keys() -> None:
    fold, _ = fold_all(
        thinking("t"),
        text("x"),
        started("env1", mcp_call("call_1", "search")),
        completed("env1", mcp_call("call_1", "search", q=v_str("a"))),
        turn_ended(100, 20, 10),
        update(24, st_(1, "routed-x")),
    )
    message = fold.message()
    assert set(message) == {"role", "content", "reasoning_content", "tool_calls"}
    (call,) = message["tool_calls"]
    assert set(call) == {"id", "type", "function"}
    assert set(call["function"]) == {"name", "arguments"}
    assert call["type"] == "function"
    json.dumps(message)  # plain JSON, nothing of the cell's own
    assert fold.routed_model == "routed-x"


# --- tool calls ----------------------------------------------------------------------------


def test_partial_args_are_cumulative_and_only_the_suffix_streams() -> None:
    fold, parts = fold_all(
        text("Looking."),
        started("env1", mcp_call("call_1", "search")),
        partial("env1", '{"q"'),
        partial("env1", '{"q": "x"'),
        partial("env1", '{"q": "x"'),  # a repeat carries nothing new
        partial("env1", '{"q": "x"}'),
        completed("env1", mcp_call("call_1", "search", q=v_str("x"))),
    )
    assert parts[1:] == [
        ToolCallStart(0, "call_1", "search"),
        ToolCallArgsDelta(0, '{"q"'),
        ToolCallArgsDelta(0, ': "x"'),
        ToolCallArgsDelta(0, "}"),
    ]
    assert fold.message()["tool_calls"] == [
        {
            "id": "call_1",
            "type": "function",
            "function": {"name": "search", "arguments": '{"q":"x"}'},
        }
    ]
    assert fold.finish_reason == "tool_calls"


def test_the_completion_wins_but_never_downgrades_an_object_or_array_to_a_string() -> None:
    fold, _ = fold_all(
        started("env1", mcp_call("c1", "edit")),
        partial("env1", '{"opts": {"deep": 1}, "ids": [1, 2], "n": 1, "keep": "s"}'),
        completed(
            "env1",
            mcp_call(
                "c1",
                "edit",
                opts=v_str('{"deep": 1'),  # a string: cannot replace the object
                ids=v_str("1,2"),  # a string: cannot replace the array
                n=v_num(2),  # wins
                extra=V_TRUE,  # added
            ),
        ),
    )
    assert json.loads(arguments(fold)) == {
        "opts": {"deep": 1},
        "ids": [1, 2],
        "n": 2,
        "keep": "s",
        "extra": True,
    }


def test_a_structured_completion_replaces_a_streamed_scalar() -> None:
    fold, _ = fold_all(
        started("env1", mcp_call("c1", "t")),
        partial("env1", '{"a": "flat"}'),
        completed("env1", mcp_call("c1", "t", a=v_obj(b=v_list(v_num(1))))),
    )
    assert json.loads(arguments(fold)) == {"a": {"b": [1]}}


def test_a_rewritten_snapshot_takes_the_completion_alone() -> None:
    fold, parts = fold_all(
        started("env1", mcp_call("c1", "t")),
        partial("env1", '{"a": 1}'),
        partial("env1", '{"b": 2}'),  # does not extend the first: rewritten
        completed("env1", mcp_call("c1", "t", c=v_num(3))),
    )
    assert parts[-1] == ToolCallArgsDelta(0, '{"b": 2}')
    assert json.loads(arguments(fold)) == {"c": 3}


def test_a_cut_short_buffer_stays_as_it_came() -> None:
    fold, _ = fold_all(
        started("env1", mcp_call("c1", "t")),
        partial("env1", '{"path": "/a'),
        completed("env1", mcp_call("c1", "t", path=v_str("/abc"))),
    )
    assert arguments(fold) == '{"path": "/a'


def test_a_call_with_no_streamed_args_takes_the_completion_and_streams_it_once() -> None:
    fold, parts = fold_all(
        started("env1", mcp_call("c1", "t")),
        completed("env1", mcp_call("c1", "t", n=v_num(1.5), s=v_str("x"))),
    )
    assert json.loads(arguments(fold)) == {"n": 1.5, "s": "x"}
    assert parts == [ToolCallStart(0, "c1", "t"), ToolCallArgsDelta(0, '{"n":1.5,"s":"x"}')]


def test_a_call_that_never_completes_keeps_its_streamed_text_or_an_empty_object() -> None:
    fold, _ = fold_all(started("e1", mcp_call("c1", "t")), partial("e1", '{"a": 1}'))
    assert arguments(fold) == '{"a": 1}'
    fold, _ = fold_all(started("e1", mcp_call("c1", "t")))
    assert arguments(fold) == "{}"


def test_an_mcp_call_without_an_id_gets_a_uuid_and_tool_name_falls_back_to_name() -> None:
    tool_call = ld(15, ld(1, st_(1, "fallback_name")))
    fold, parts = fold_all(started("e1", tool_call))
    (call,) = fold.message()["tool_calls"]
    assert call["function"]["name"] == "fallback_name"
    assert len(call["id"]) == 36 and call["id"].count("-") == 4
    assert parts == [ToolCallStart(0, call["id"], "fallback_name")]


def test_two_calls_take_indexes_in_order_and_partials_find_their_own() -> None:
    fold, _ = fold_all(
        started("e1", mcp_call("c1", "a")),
        started("e2", mcp_call("c2", "b")),
        partial("e1", '{"x": 1}'),
        partial("e2", '{"y": 2}'),
        completed("e2", mcp_call("c2", "b")),
        completed("e1", mcp_call("c1", "a")),
    )
    calls = fold.message()["tool_calls"]
    assert [c["id"] for c in calls] == ["c1", "c2"]
    assert [json.loads(c["function"]["arguments"]) for c in calls] == [{"x": 1}, {"y": 2}]


@pytest.mark.parametrize("variant", [20, 21, 61, 62, 63, 64, 65, 66, 67])
def test_exec_owned_variants_are_filed_nowhere(variant: int) -> None:
    tool_call = ld(variant, b"")
    fold, parts = fold_all(
        text("hi"), started("e1", tool_call), completed("e1", tool_call), STEP_COMPLETED
    )
    assert "tool_calls" not in fold.message()
    assert parts == [TextDelta("hi")]
    assert fold.finish_reason == "stop"


@pytest.mark.parametrize("variant", [9, 10, 12, 24, 37, 68])
def test_service_resolved_variants_are_filed_nowhere_but_stay_open_until_completed(
    variant: int,
) -> None:
    tool_call = ld(variant, b"")
    fold, _ = fold_all(started("e1", tool_call), text("done"), STEP_COMPLETED)
    assert "tool_calls" not in fold.message()
    assert not fold.complete  # the service's own call is still open
    fold.feed(agent_pb2.AgentServerMessage.FromString(completed("e1", tool_call)))
    fold.feed(agent_pb2.AgentServerMessage.FromString(text(".")))
    fold.feed(agent_pb2.AgentServerMessage.FromString(STEP_COMPLETED))
    assert fold.complete


def test_an_exec_mcp_ask_files_the_call_unless_the_stream_did() -> None:
    fold, parts = fold_all(started("e1", mcp_call("c1", "search")))
    parts += fold.file_mcp_call("c1", "search", {"q": "again"})
    parts += fold.file_mcp_call("c2", "other", {"n": 1})
    calls = fold.message()["tool_calls"]
    assert [(c["id"], c["function"]["name"]) for c in calls] == [("c1", "search"), ("c2", "other")]
    assert calls[1]["function"]["arguments"] == '{"n":1}'
    assert parts[-2:] == [ToolCallStart(1, "c2", "other"), ToolCallArgsDelta(1, '{"n":1}')]
    assert fold.finish_reason == "tool_calls"


def test_a_non_finite_number_in_arguments_still_gives_valid_json() -> None:
    fold = Fold(new_id=new_id)
    fold.file_mcp_call("c1", "t", {"x": float("nan"), "y": [float("inf")]})
    assert json.loads(arguments(fold)) == {"x": None, "y": [None]}


def test_merge_and_snapshot_rules_directly() -> None:
    assert merge_arguments({"a": [1]}, {"a": "s", "b": 1}) == {"a": [1], "b": 1}
    assert merge_arguments(None, None) == {}
    assert rewritten_snapshot('{"a":1}{"a":2}')
    assert rewritten_snapshot(' {"a":1} x')
    assert not rewritten_snapshot('{"a":1}  ')
    assert not rewritten_snapshot('{"a":')
    assert not rewritten_snapshot("")


# --- usage -----------------------------------------------------------------------------------


def test_turn_ended_usage_excludes_cache_from_input() -> None:
    fold, _ = fold_all(text("x"), token_delta(7), turn_ended(100, 20, 10))
    assert (fold.usage.input, fold.usage.output, fold.usage.cache_read) == (90, 20, 10)
    assert fold.usage.total == 120
    fold, _ = fold_all(turn_ended(100, 20, 10, write=5, reasoning=3))
    usage = fold.usage
    assert (usage.input, usage.cache_read, usage.cache_write, usage.reasoning) == (85, 10, 5, 3)


def test_token_deltas_add_to_output_until_turn_ended_replaces_it() -> None:
    fold, _ = fold_all(token_delta(3), token_delta(4))
    assert fold.usage.output == 7
    assert fold.saw_token_delta and fold.saw_output
    fold.feed(agent_pb2.AgentServerMessage.FromString(turn_ended(50, 12)))
    assert fold.usage.output == 12
    assert fold.usage.input == 50


def test_a_zero_counter_in_turn_ended_leaves_the_estimate() -> None:
    fold, _ = fold_all(token_delta(9), update(14, b""))
    assert fold.usage.output == 9
    assert fold.turn_ended and fold.complete


# --- completeness ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("frames", "complete"),
    [
        ((text("a"), STEP_COMPLETED), True),
        ((text("a"), STEP_COMPLETED, HEARTBEAT), True),
        ((text("a"), STEP_COMPLETED, checkpoint()), True),
        ((text("a"), STEP_COMPLETED, text("b")), False),
        ((text("a"),), False),
        ((thinking("a"), STEP_COMPLETED), False),
        ((thinking("a"), THINKING_COMPLETED, STEP_COMPLETED), False),
        ((started("e1", mcp_call("c1", "t")), STEP_COMPLETED), False),
        ((text("a"), started("e1", mcp_call("c1", "t")), STEP_COMPLETED), False),
        (
            (
                started("e1", mcp_call("c1", "t")),
                completed("e1", mcp_call("c1", "t")),
                text("after"),
                STEP_COMPLETED,
            ),
            True,
        ),
        ((text("a"), exec_read("/x"), STEP_COMPLETED), False),
        ((text("a"), STEP_COMPLETED, exec_read("/x")), False),
        ((text("a"), turn_ended(1, 1)), True),
        ((started("e1", mcp_call("c1", "t")), turn_ended(1, 1)), True),
    ],
)
def test_the_completeness_rule(frames: tuple[bytes, ...], complete: bool) -> None:
    fold, _ = fold_all(*frames)
    assert fold.complete is complete


def test_an_end_error_is_ignored_only_after_turn_ended_and_then_a_checkpoint() -> None:
    fold, _ = fold_all(text("a"), turn_ended(1, 1))
    assert not fold.end_error_ignored
    fold.feed(agent_pb2.AgentServerMessage.FromString(checkpoint()))
    assert fold.end_error_ignored
    fold, _ = fold_all(checkpoint(), turn_ended(1, 1))
    assert not fold.end_error_ignored


# --- checkpoint -----------------------------------------------------------------------------------


def test_the_latest_checkpoint_is_kept_with_its_unknown_fields() -> None:
    unknown = ld(99, b"keep me")
    fold, _ = fold_all(checkpoint(), ld(3, ld(1, b"\x03" * 32) + ld(5, vi(1, 4242)) + unknown))
    assert fold.checkpoint is not None
    assert list(fold.checkpoint.root_prompt_messages_json) == [b"\x03" * 32]
    assert fold.checkpoint.SerializeToString().endswith(unknown)
    assert fold.usage.context_tokens == 4242


def test_no_checkpoint_means_none() -> None:
    fold, _ = fold_all(text("a"))
    assert fold.checkpoint is None
    assert fold.usage.context_tokens is None


# --- robustness -----------------------------------------------------------------------------------


@settings(max_examples=400, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(st.lists(st.binary(max_size=200), max_size=12))
def test_random_bytes_never_break_the_fold(frames: list[bytes]) -> None:
    fold = Fold(new_id=new_id)
    for raw in frames:
        try:
            msg = agent_pb2.AgentServerMessage.FromString(raw)
        except DecodeError:
            continue
        with contextlib.suppress(CursorError):
            fold.feed(msg)
    message = fold.message()
    assert json.loads(json.dumps(message, allow_nan=False)) == message
    for call in message.get("tool_calls", []):
        assert isinstance(call["function"]["arguments"], str)
    assert fold.finish_reason in ("stop", "tool_calls")


_STRUCTURED = st.recursive(
    st.none() | st.booleans() | st.text(max_size=8) | st.integers(-1000, 1000),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=8,
)


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.text(max_size=5), _STRUCTURED, max_size=4), st.integers(0, 60))
def test_any_prefix_of_streamed_arguments_settles_to_valid_chat_json(
    args: dict[str, Any], cut: int
) -> None:
    whole = json.dumps(args)
    frames = [started("e1", mcp_call("c1", "t"))]
    frames += [partial("e1", whole[:n]) for n in range(0, min(cut, len(whole)) + 1, 3)]
    frames.append(partial("e1", whole))
    frames.append(completed("e1", mcp_call("c1", "t")))
    fold, _ = fold_all(*frames)
    assert json.loads(arguments(fold)) == args


# --- arguments carried whole by tool_call_started ------------------------------------------


def test_arguments_carried_whole_by_the_started_frame_are_the_call_s_arguments() -> None:
    # No deltas and no completion after it: the started map is all there is (omp #9479).
    frame = started("e1", mcp_call("c1", "list_files", path=v_str("src"), n=v_num(2)))
    fold, parts = fold_all(frame)
    assert arguments(fold) == '{"n":2,"path":"src"}'
    assert parts == [
        ToolCallStart(0, "c1", "list_files"),
        ToolCallArgsDelta(0, '{"n":2,"path":"src"}'),
    ]
    assert fold.finish_reason == "tool_calls"


def test_started_arguments_survive_the_exec_ask_that_hands_the_call_off() -> None:
    fold, parts = fold_all(started("e1", mcp_call("c1", "t", q=v_str("x"))))
    parts += fold.file_mcp_call("c1", "t", {})  # an exec ask with no map of its own
    assert arguments(fold) == '{"q":"x"}'
    assert len(fold.message()["tool_calls"]) == 1
    assert parts[-1] == ToolCallArgsDelta(0, '{"q":"x"}')  # shown once, not twice


def test_deltas_after_started_arguments_extend_them() -> None:
    fold, parts = fold_all(
        started("e1", mcp_call("c1", "t", path=v_str("src"))),
        partial("e1", '{"depth": 2'),
        partial("e1", '{"depth": 2}'),
    )
    assert json.loads(arguments(fold)) == {"path": "src", "depth": 2}
    # The host had the whole map at once; text after it would corrupt its copy.
    assert parts == [ToolCallStart(0, "c1", "t"), ToolCallArgsDelta(0, '{"path":"src"}')]
    parts += fold.feed(
        agent_pb2.AgentServerMessage.FromString(
            completed("e1", mcp_call("c1", "t", depth=v_num(3)))
        )
    )
    # The completion is laid over both and wins.
    assert json.loads(arguments(fold)) == {"path": "src", "depth": 3}


def test_a_completion_is_laid_over_started_arguments() -> None:
    fold, parts = fold_all(
        started("e1", mcp_call("c1", "t", a=v_str("1"), b=v_obj(c=V_TRUE))),
        completed("e1", mcp_call("c1", "t", a=v_str("2"), b=v_str('{"c"'))),
    )
    # a is replaced; b, an object, is never downgraded to a string.
    assert json.loads(arguments(fold)) == {"a": "2", "b": {"c": True}}
    assert parts[1:] == [ToolCallArgsDelta(0, '{"a":"1","b":{"c":true}}')]


def test_a_non_finite_started_argument_is_null() -> None:
    fold, _ = fold_all(started("e1", mcp_call("c1", "t", x=v_num(float("nan")))))
    assert arguments(fold) == '{"x":null}'


def test_an_exec_ask_settles_a_streamed_call_with_its_own_map() -> None:
    # The stream filed the call with no arguments; the exec ask says what runs.
    fold, _ = fold_all(started("e1", mcp_call("c1", "t")))
    fold.file_mcp_call("c1", "t", {"q": "x"})
    assert arguments(fold) == '{"q":"x"}'
    # Over a buffer cut short, too: the exec map is what the service runs.
    fold, _ = fold_all(started("e1", mcp_call("c1", "t")), partial("e1", '{"q": "x'))
    fold.file_mcp_call("c1", "t", {"q": "xyz"})
    assert arguments(fold) == '{"q":"xyz"}'


# --- a resumed stream ------------------------------------------------------------------------


def feed(fold: Fold, *frames: bytes) -> list[StreamPart]:
    parts: list[StreamPart] = []
    for frame in frames:
        parts += fold.feed(agent_pb2.AgentServerMessage.FromString(frame))
    return parts


def test_a_resumed_stream_skips_what_it_repeats_after_the_checkpoint() -> None:
    fold, parts = fold_all(thinking("hm"), text("one "), checkpoint(), thinking("ok"), text("two"))
    fold.resume()
    # The resumed stream says again what came after the checkpoint, then goes on.
    parts += feed(
        fold, thinking("o"), thinking("k, so"), text("tw"), text("o three"), turn_ended(3, 2)
    )
    assert fold.message() == {
        "role": "assistant",
        "content": "one two three",
        "reasoning_content": "hmok, so",
    }
    assert [p.text for p in parts if isinstance(p, TextDelta)] == ["one ", "two", " three"]
    assert [p.text for p in parts if isinstance(p, ReasoningDelta)] == ["hm", "ok", ", so"]


def test_a_resumed_stream_that_says_something_else_is_delivered_from_the_difference() -> None:
    fold, _ = fold_all(text("a"), checkpoint(), text("bc"))
    fold.resume()
    feed(fold, text("bX"), text("bc"))
    # "b" repeats; from "X" on the stream is news, and nothing more is skipped.
    assert fold.message()["content"] == "abcXbc"


def test_a_checkpoint_taken_while_repeating_keeps_what_is_still_to_repeat() -> None:
    fold, _ = fold_all(checkpoint(), text("abcdef"))
    fold.resume()
    feed(fold, text("ab"), checkpoint())  # the service is behind: "cdef" still to repeat
    fold.resume()
    feed(fold, text("cdefg"))
    assert fold.message()["content"] == "abcdefg"


def test_a_resumed_stream_picks_up_an_open_call_without_filing_it_twice() -> None:
    call = mcp_call("call_1", "ls")
    fold, parts = fold_all(started("e1", call), partial("e1", '{"pa'), checkpoint())
    fold.resume()
    done = mcp_call("call_1", "ls", path=v_str("src"))
    parts += feed(fold, started("e2", call), partial("e2", '{"pa'), partial("e2", '{"path":"src"}'))
    parts += feed(fold, completed("e2", done))
    assert arguments(fold) == '{"path":"src"}'
    assert [p for p in parts if isinstance(p, ToolCallStart)] == [ToolCallStart(0, "call_1", "ls")]
    assert [p.delta for p in parts if isinstance(p, ToolCallArgsDelta)] == ['{"pa', 'th":"src"}']


# --- feed_delta: the fast path for text and thinking deltas -------------------------------


def fast_fold_all(*frames: bytes, room: int = 1 << 30) -> tuple[Fold, list[StreamPart], list[int]]:
    """Fold FRAMES as the lane does: feed_delta first, feed when it declines."""
    parts: list[StreamPart] = []
    fold = Fold(new_id=new_id)
    sizes = []
    for frame in frames:
        message = agent_pb2.AgentServerMessage.FromString(frame)
        size, part = fold.feed_delta(message, room)
        sizes.append(size)
        if part is not None:
            parts.append(part)
        if size < 0:
            parts += fold.feed(message)
    return fold, parts, sizes


def test_feed_delta_folds_text_and_thinking_like_feed_and_returns_utf8_sizes() -> None:
    frames = (text("héllo "), thinking("why"), text("数据"), update(13), turn_ended(1, 2))
    fast, fast_parts, sizes = fast_fold_all(*frames)
    slow, slow_parts = fold_all(*frames)
    assert sizes == [7, 3, 6, -1, -1]  # é is 2 bytes, each CJK character 3; others declined
    assert fast.message() == slow.message()
    assert fast_parts == slow_parts
    assert fast.complete is slow.complete is True


def test_feed_delta_declines_empty_deltas_and_other_members() -> None:
    _, parts, sizes = fast_fold_all(text(""), thinking(""), checkpoint(5), exec_read("a"))
    assert sizes == [-1, -1, -1, -1]
    assert parts == []


def test_feed_delta_over_room_measures_without_folding() -> None:
    fold, parts, sizes = fast_fold_all(text("abcd"), room=3)
    assert sizes == [4]
    assert parts == []
    assert fold.message()["content"] is None


def test_feed_delta_skips_what_a_resumed_stream_repeats() -> None:
    fold, parts, _ = fast_fold_all(checkpoint(1), text("ab"))
    fold.resume()
    for frame in (text("a"), text("bc")):
        size, part = fold.feed_delta(agent_pb2.AgentServerMessage.FromString(frame), 100)
        assert size > 0
        if part is not None:
            parts.append(part)
    assert fold.message()["content"] == "abc"
    assert [p.text for p in parts if isinstance(p, TextDelta)] == ["ab", "c"]


def test_a_long_text_built_as_it_comes_is_the_same_text_and_resumes_at_its_checkpoint() -> None:
    # The text is written into one buffer as it comes (no list joined at the end):
    # asked for twice it is the same, and a resume still skips exactly what came
    # after the checkpoint.
    words = [f"w{index} " for index in range(2500)]  # many chunks of parts
    fold, parts, _ = fast_fold_all(*(text(word) for word in words[:1500]), checkpoint(1))
    fast_parts = [p.text for p in parts if isinstance(p, TextDelta)]
    assert fast_parts == words[:1500]
    for word in words[1500:2200]:
        fold.feed_delta(agent_pb2.AgentServerMessage.FromString(text(word)), 1 << 30)
    fold.resume()
    shown = []
    for word in words[1500:]:
        _, part = fold.feed_delta(agent_pb2.AgentServerMessage.FromString(text(word)), 1 << 30)
        if part is not None:
            shown.append(part)
    assert fold.message()["content"] == "".join(words)
    assert fold.message()["content"] == "".join(words)  # asked again: the same text
    assert [p.text for p in shown if isinstance(p, TextDelta)] == words[2200:]
