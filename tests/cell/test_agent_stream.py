"""cursor-agent's stream-json into stream parts and resolved calls; the prompt; the cost estimate.

The transcripts are the stand-in's (tests/agent_standin/transcripts/, each citing its sources
in its header); here they are fed to the pure translator line by line, with no process.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from nodecode_cursor.core.cost import round_cost
from nodecode_cursor.host import (
    ReasoningDelta,
    ResolvedCallResult,
    ResolvedCallStart,
    StreamPart,
    TextDelta,
    Usage,
)
from nodecode_cursor.lanes.agent_prompt import build_prompt
from nodecode_cursor.lanes.agent_stream import AgentStream, valid_session_id
from nodecode_cursor.models import catalog

TRANSCRIPTS = Path(__file__).resolve().parents[1] / "agent_standin" / "transcripts"


def replay(name: str) -> tuple[AgentStream, list[StreamPart]]:
    """Return the translator after every line of transcript NAME, and the parts it gave."""
    stream = AgentStream()
    parts: list[StreamPart] = []
    for line in (TRANSCRIPTS / name).read_text("utf-8").splitlines():
        if line.startswith("#"):
            continue
        parts += stream.feed(line)
    return stream, parts


def test_write_then_read_turn_streams_text_once_and_resolves_both_calls() -> None:
    stream, parts = replay("write_then_read.ndjson")
    text = "".join(p.text for p in parts if isinstance(p, TextDelta))
    # The whole-message repeats (model_call_id, and the final one without timestamp_ms) add nothing.
    assert text == "Writing notes.txt.\n\nThe file says alpha and beta."
    assert stream.text == text
    assert "".join(p.text for p in parts if isinstance(p, ReasoningDelta)) == (
        "I will write the file, then read it."
    )
    starts = [p for p in parts if isinstance(p, ResolvedCallStart)]
    results = [p for p in parts if isinstance(p, ResolvedCallResult)]
    assert [(p.id, p.name) for p in starts] == [
        ("toolu_write_1", "write"),
        ("toolu_read_2", "read"),
    ]
    assert [(p.id, p.failed) for p in results] == [
        ("toolu_write_1", False),
        ("toolu_read_2", False),
    ]
    # Each call is shown once: its start before its result.
    kinds = [
        type(p).__name__ for p in parts if isinstance(p, ResolvedCallStart | ResolvedCallResult)
    ]
    assert kinds == ["ResolvedCallStart", "ResolvedCallResult"] * 2
    assert json.loads(starts[0].arguments) == {"path": "notes.txt", "fileText": "alpha\nbeta\n"}
    assert results[1].content == "alpha\nbeta\n"
    assert json.loads(results[0].content)["linesCreated"] == 2
    assert stream.session_id == "5f1c2a9e-0d3b-4c7a-9e21-6b8f0a1d2c3e"
    assert stream.end is not None and not stream.end.is_error
    assert stream.end.usage == Usage(input=1200, output=80, cache_read=3000, cache_write=0)
    assert stream.message() == {
        "role": "assistant",
        "content": text,
        "reasoning_content": "I will write the file, then read it.",
    }


def test_resolved_calls_are_openai_tool_calls_with_their_tool_messages() -> None:
    stream, _ = replay("write_then_read.ndjson")
    messages = stream.resolved_messages()
    assert [m["role"] for m in messages] == ["assistant", "tool", "assistant", "tool"]
    call = messages[2]["tool_calls"][0]
    assert call == {
        "id": "toolu_read_2",
        "type": "function",
        "function": {"name": "read", "arguments": json.dumps({"path": "notes.txt"})},
        "resolved": True,
    }
    assert messages[2]["resolved"] is True and messages[2]["content"] is None
    assert messages[3] == {
        "role": "tool",
        "tool_call_id": "toolu_read_2",
        "content": "alpha\nbeta\n",
        "resolved": True,
    }


def test_malformed_lines_are_skipped_never_raised() -> None:
    stream, parts = replay("malformed.ndjson")
    assert "".join(p.text for p in parts if isinstance(p, TextDelta)) == "Hello world"
    # Not JSON, a list, null, a type that is not a string, a truncated line: five unreadable.
    assert stream.unreadable == 5
    assert stream.end is not None and stream.end.usage is None
    assert stream.session_id == "77777777-3333-4444-8555-966677778888"


@pytest.mark.parametrize(
    "line",
    [
        b"\xff\xfe not utf-8",
        '{"type":"tool_call","subtype":"completed","tool_call":{"shellToolCall":{"result":5}}}',
        '{"type":"tool_call","subtype":"completed","tool_call":{"function":{"name":"f","arguments":"{bad"}}}',
        '{"type":"result","is_error":"yes","session_id":"-rf"}',
        '{"type":"system","subtype":"init","session_id":["x"]}',
        "[" * 100_000,
    ],
)
def test_odd_lines_do_not_raise(line: str | bytes) -> None:
    stream = AgentStream()
    stream.feed(line)
    assert stream.session_id is None  # "-rf" is not a session id: it would read as a flag


def test_a_shell_call_keeps_its_exit_code_and_a_failure_is_an_error() -> None:
    stream = AgentStream()
    done = stream.feed(
        '{"type":"tool_call","subtype":"completed","call_id":"s1","tool_call":{"shellToolCall":'
        '{"args":{"command":"ls","parsingResult":{"x":1}},"result":{"success":'
        '{"exitCode":0,"stdout":"a.txt\\n","stderr":""}}}}}'
    )
    assert [type(p).__name__ for p in done] == ["ResolvedCallStart", "ResolvedCallResult"]
    start, result = done
    assert isinstance(start, ResolvedCallStart) and json.loads(start.arguments) == {"command": "ls"}
    assert isinstance(result, ResolvedCallResult)
    assert (result.content, result.failed) == ("exit code 0\na.txt", False)
    failed = stream.feed(
        '{"type":"tool_call","subtype":"completed","call_id":"s2","tool_call":{"shellToolCall":'
        '{"result":{"rejected":{"command":"rm x","reason":"not allowed"}}}}}'
    )
    assert isinstance(failed[1], ResolvedCallResult)
    assert (failed[1].content, failed[1].failed) == ("rejected: not allowed", True)
    # A completed frame seen again adds nothing.
    assert (
        stream.feed(
            '{"type":"tool_call","subtype":"completed","call_id":"s2","tool_call":{"shellToolCall":{}}}'
        )
        == []
    )


def test_without_partial_output_each_whole_message_is_new_text() -> None:
    stream = AgentStream()
    for line in (
        '{"type":"assistant","message":{"content":[{"type":"text","text":"First."}]},'
        '"model_call_id":"m1","timestamp_ms":1}',
        '{"type":"tool_call","subtype":"started","call_id":"c","tool_call":{"lsToolCall":{"args":{}}}}',
        '{"type":"assistant","message":{"content":[{"type":"text","text":"Second."}]}}',
    ):
        stream.feed(line)
    assert stream.text == "First.\n\nSecond."


def test_session_id_shape() -> None:
    assert valid_session_id("5f1c2a9e-0d3b-4c7a-9e21-6b8f0a1d2c3e") is not None
    for bad in ("", "-x", "a b", "x" * 300, None, 5):
        assert valid_session_id(bad) is None


def test_first_turn_prompt_carries_system_and_history_then_only_the_new_text() -> None:
    messages = [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Hi"},
        {"role": "assistant", "content": "Hello!"},
        {"role": "user", "content": [{"type": "text", "text": "Line one\nline two"}]},
    ]
    first = build_prompt(messages, None, resumed=False)
    assert first == (
        "System instructions:\nBe brief.\n\n"
        "The conversation so far:\nUser: Hi\n\nAssistant: Hello!\n\n"
        "The new message:\nLine one\nline two"
    )
    assert build_prompt(messages, "Other rules", resumed=False).startswith(
        "System instructions:\nOther rules\n\n"
    )
    assert build_prompt(messages, None, resumed=True) == "Line one\nline two"
    assert build_prompt([{"role": "user", "content": "just this"}], None, resumed=False) == (
        "just this"
    )
    assert build_prompt(messages[:3], None, resumed=True) == ""


def test_cost_is_priced_from_the_bundled_rows_and_never_invented() -> None:
    usage = Usage(input=1_000_000, output=100_000, cache_read=2_000_000, cache_write=0)
    row = catalog.find_model("gpt-5.4")
    assert row is not None and row.price is not None
    # By hand from models.json's gpt-5.4 row: 2.5 in, 15 out, 0.25 cache read per million.
    assert round_cost("gpt-5.4", usage) == pytest.approx(2.5 + 1.5 + 0.5)
    # Above the long-context threshold the long-context rates apply: gpt-5.6-sol 8 / 20 / 0.8.
    big = Usage(input=300_000, output=1_000_000, cache_read=0, cache_write=0)
    assert round_cost("gpt-5.6-sol", big) == pytest.approx(0.3 * 8 + 20)
    assert round_cost("gpt-5.6-sol", Usage(input=1_000_000 - 800_000)) == pytest.approx(0.8)
    assert round_cost("auto", usage) is None  # not a bundled row
    assert round_cost("default", usage) is None  # priced at zero: a plan's allowance


def test_a_content_that_is_not_a_list_of_blocks_is_skipped() -> None:
    # Without --stream-partial-output every whole message is new text, so a content of
    # the wrong shape would be appended to the answer were it read as text.
    stream = AgentStream()
    for content in (
        '"not a list"',
        "7",
        '{"text": "an object"}',
        '[{"type":"text","text":"Good answer."}]',
    ):
        message = {"role": "assistant", "content": json.loads(content)}
        stream.feed(json.dumps({"type": "assistant", "message": message}))
    assert stream.text == "Good answer."
    assert stream.recognized == 4 and stream.unreadable == 0
