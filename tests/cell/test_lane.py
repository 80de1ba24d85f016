"""Whole rounds of the ``cursor`` lane over real sockets against the simulator."""

from __future__ import annotations

import asyncio
import hashlib
import json
import threading
import time
import uuid
from typing import Any

import pytest
from probes import open_sockets, threads_left
from runs import LIST_FILES, round_context

from cursor_simulator import Simulator
from cursor_simulator.steps import (
    AskRequestContext,
    Checkpoint,
    CutStream,
    End,
    EndError,
    Heartbeat,
    KvRead,
    KvWrite,
    RefuseAppends,
    RejectRun,
    Sleep,
    StepCompleted,
    Text,
    Thinking,
    TokenDelta,
    ToolCall,
    TurnEnded,
)
from nodecode_cursor._proto import agent_pb2
from nodecode_cursor.core.answers import handoff_text
from nodecode_cursor.core.continuation import RESULTS_CONTINUATION
from nodecode_cursor.errors import ConfigError, ProviderError, StreamIncomplete
from nodecode_cursor.host import (
    Finish,
    MemoryHost,
    ReasoningDelta,
    RoundContext,
    RoundResult,
    StreamPart,
    StreamStart,
    TextDelta,
    ToolCallStart,
)
from nodecode_cursor.lanes import lane
from nodecode_cursor.models import routing
from nodecode_cursor.state import CellState
from nodecode_cursor.wire.values import decode_value

pytestmark = pytest.mark.sim_answer_timeout(5.0)

TOKEN = "tok-lane-secret"
MODEL = "claude-4.5-sonnet"
TOOLS = [LIST_FILES]


def context(sim: Simulator, prompt: str = "hello", **overrides: Any) -> RoundContext:
    """Return this file's round for SIM: its token, one user PROMPT, list_files offered."""
    return round_context(sim.url, TOKEN, prompt, **overrides)


def handoff_script() -> list[Any]:
    return [
        AskRequestContext(),
        KvRead(),
        Thinking("Looking "),
        Thinking("around."),
        Text("Let me "),
        Text("check."),
        ToolCall("list_files", {"path": "src"}, call_id="call_1"),
        StepCompleted(),
        TurnEnded(100, 20, 10),
        Checkpoint(),
        End(),
    ]


def test_a_round_with_text_thinking_and_a_handed_off_call(sim: Simulator, state: CellState) -> None:
    sim.agent.script(handoff_script())
    parts: list[StreamPart] = []
    result = lane.stream_round_sync(context(sim, "look around", on_part=parts.append), state)

    assert result.message == {
        "role": "assistant",
        "content": "Let me check.",
        "reasoning_content": "Looking around.",
        "tool_calls": [
            {
                "id": "call_1",
                "type": "function",
                "function": {"name": "list_files", "arguments": '{"path":"src"}'},
            }
        ],
    }
    assert result.finish_reason == "tool_calls"
    usage = result.usage
    assert (usage.input, usage.output, usage.cache_read) == (90, 20, 10)
    assert isinstance(parts[0], StreamStart) and parts[-1] == Finish("tool_calls")
    assert [p.text for p in parts if isinstance(p, TextDelta)] == ["Let me ", "check."]
    assert [p.text for p in parts if isinstance(p, ReasoningDelta)] == ["Looking ", "around."]
    assert [p.id for p in parts if isinstance(p, ToolCallStart)] == ["call_1"]

    run = sim.agent.run()
    assert run.violations == []
    for name, value in {
        "authorization": f"Bearer {TOKEN}",
        "x-cursor-client-type": "cli",
        "x-cursor-client-version": "cli-lane-test",
        "x-ghost-mode": "true",
        "content-type": "application/connect+proto",
        "connect-protocol-version": "1",
        "x-request-id": run.request_id,
        "x-cursor-streaming": "true",
    }.items():
        assert run.headers.get(name) == value, name
    for append in run.appends:
        assert append.headers["content-type"] == "application/proto"
        assert append.headers["x-request-id"] == run.request_id
        assert append.headers["authorization"] == f"Bearer {TOKEN}"
        assert append.headers["x-cursor-client-version"] == "cli-lane-test"
    assert [a.seqno for a in run.appends] == list(range(len(run.appends)))
    assert run.appends[0].message.HasField("run_request")
    assert result.request == run.appends[0].message.SerializeToString()
    # Every root blob was served and hashed to its id; the system prompt is the first.
    root = list(run.run_request.conversation_state.root_prompt_messages_json)  # type: ignore[union-attr]
    assert root and set(run.served) == {blob.hex() for blob in root}
    assert all(hashlib.sha256(run.served[b.hex()]).digest() == b for b in root)
    assert b"Be terse." in run.served[root[0].hex()]
    # The request context carried the rules and tools; the handoff was answered.
    assert [t.name for t in run.tools] == ["list_files"]
    assert [r.content for r in run.rules] == ["Be terse."]
    assert run.handoffs == ["call_1"]
    answers = [
        m.exec_client_message.mcp_result.success.content[0].text.text
        for msgs in run.answers.values()
        for m in msgs
        if m.exec_client_message.HasField("mcp_result")
    ]
    assert answers == [handoff_text()]
    assert run.prompt() == "look around"


def test_a_two_round_loop_hands_off_then_answers_from_the_result(
    sim: Simulator, state: CellState
) -> None:
    ctx = context(sim, "please list the files in src")
    first = lane.stream_round_sync(ctx, state)
    assert first.finish_reason == "tool_calls"
    [call] = first.message["tool_calls"]
    assert call["function"]["name"] == "list_files"
    # The host runs the tool and calls the lane again with the result in the history.
    history = [
        *ctx.messages,
        first.message,
        {"role": "tool", "tool_call_id": call["id"], "content": "main.py util.py"},
    ]
    second = lane.stream_round_sync(
        context(sim, messages=history, session_id=ctx.session_id), state
    )
    assert second.finish_reason == "stop"
    assert "main.py util.py" in second.message["content"]
    assert "tool_calls" not in second.message
    assert sim.agent.violations() == []
    second_run = sim.agent.run(-1)
    assert second_run.run_request is not None
    # Claude is an external model: it goes on with a user message of ours, not resume
    # (docs/protocol.md §7b; test_continuation.py covers both shapes).
    assert second_run.prompt() == RESULTS_CONTINUATION
    # The first round's checkpoint lends the second request its other state.
    assert second_run.run_request.conversation_state.token_details.used_tokens == 100


def test_model_not_found_before_output_retries_once_with_the_discovery_id(
    sim: Simulator, state: CellState
) -> None:
    sim.agent.script([EndError("not_found", "unknown model")])
    sim.agent.script([Text("hi"), TurnEnded(5, 1), End()])
    result = lane.stream_round_sync(context(sim, model="gpt-5.4", effort="high"), state)
    assert result.message["content"] == "hi"
    first, second = sim.agent.runs
    assert first.run_request is not None and second.run_request is not None
    assert first.run_request.requested_model.model_id == "gpt-5.4"
    assert [(p.id, p.value) for p in first.run_request.requested_model.parameters] == [
        ("reasoning", "high")
    ]
    assert second.run_request.requested_model.model_id == "gpt-5.4-high"
    assert list(second.run_request.requested_model.parameters) == []
    assert result.wire_model == "gpt-5.4-high"


def test_bad_model_name_details_also_retry(sim: Simulator, state: CellState) -> None:
    sim.agent.script([EndError("invalid_argument", "no", error=5, title="Bad model")])
    sim.agent.script([EndError("invalid_argument", "no", error=5, title="Bad model")])
    with pytest.raises(ProviderError) as caught:
        lane.stream_round_sync(context(sim, model="gpt-5.4", effort="high"), state)
    assert caught.value.status == 404
    assert len(sim.agent.runs) == 2  # once, not forever


def test_a_404_that_is_not_about_the_model_is_not_retried(sim: Simulator, state: CellState) -> None:
    # ErrorDetails USER_NOT_FOUND (6) is a 404 too, but says nothing about the model.
    sim.agent.script([EndError("not_found", "no", error=6, title="No such user")])
    with pytest.raises(ProviderError) as caught:
        lane.stream_round_sync(context(sim, model="gpt-5.4", effort="high"), state)
    assert caught.value.status == 404 and caught.value.code == "USER_NOT_FOUND"
    assert len(sim.agent.runs) == 1


def test_model_not_found_after_output_is_not_retried(sim: Simulator, state: CellState) -> None:
    sim.agent.script([Text("partial"), EndError("not_found", "gone")])
    with pytest.raises(ProviderError) as caught:
        lane.stream_round_sync(context(sim, model="gpt-5.4", effort="high"), state)
    assert caught.value.status == 404
    assert len(sim.agent.runs) == 1


def test_a_stream_cut_on_an_open_call_is_incomplete(sim: Simulator, state: CellState) -> None:
    sim.agent.script(
        [
            Text("Calling."),
            ToolCall("list_files", {"path": "a"}, complete=False, exec=False),
            CutStream(),
        ]
    )
    with pytest.raises(StreamIncomplete) as caught:
        lane.stream_round_sync(context(sim), state)
    assert caught.value.retryable


def test_a_stream_cut_after_step_completed_following_text_is_complete(
    sim: Simulator, state: CellState
) -> None:
    sim.agent.script([Text("All done."), StepCompleted(), CutStream(reset=True)])
    parts: list[StreamPart] = []
    result = lane.stream_round_sync(context(sim, on_part=parts.append), state)
    assert result.message == {"role": "assistant", "content": "All done."}
    assert result.finish_reason == "stop"
    assert parts[-1] == Finish("stop")


def test_an_end_frame_before_the_turn_ended_is_incomplete(sim: Simulator, state: CellState) -> None:
    sim.agent.script([Text("half"), End()])
    with pytest.raises(StreamIncomplete):
        lane.stream_round_sync(context(sim), state)


def test_an_end_error_after_turn_ended_and_a_checkpoint_is_ignored(
    sim: Simulator, state: CellState
) -> None:
    sim.agent.script([Text("ok"), TurnEnded(10, 2), Checkpoint(), EndError("internal", "late")])
    result = lane.stream_round_sync(context(sim), state)
    assert result.message["content"] == "ok"


def test_an_end_error_before_the_turn_is_raised_classified(
    sim: Simulator, state: CellState
) -> None:
    sim.agent.script([Text("ok"), EndError("unavailable", "overloaded")])
    with pytest.raises(ProviderError) as caught:
        lane.stream_round_sync(context(sim), state)
    assert caught.value.status == 503 and caught.value.retryable
    assert "overloaded" in str(caught.value)


def test_resource_exhausted_is_429_and_rotates_once_per_streak(
    sim: Simulator, state: CellState
) -> None:
    # Cursor's own model: a third party's refused again in the streak would be read as
    # its pool being spent (test_causes.py), not as the same poisoned id.
    session, own = f"rot-{uuid.uuid4()}", "composer-2.5"
    ok = [Text("fine"), TurnEnded(3, 1), End()]
    for script in ([EndError("resource_exhausted", "")], [EndError("resource_exhausted", "")], ok):
        sim.agent.script(script)
    for _ in range(2):
        with pytest.raises(ProviderError) as caught:
            lane.stream_round_sync(context(sim, session_id=session, model=own), state)
        assert caught.value.status == 429 and caught.value.code == "resource_exhausted"
    lane.stream_round_sync(context(sim, session_id=session, model=own), state)
    sim.agent.script([EndError("resource_exhausted", "")])
    with pytest.raises(ProviderError):
        lane.stream_round_sync(context(sim, session_id=session, model=own), state)
    lane.stream_round_sync(context(sim, session_id=session, model=own), state)  # default
    ids = [r.run_request.conversation_id for r in sim.agent.runs]  # type: ignore[union-attr]
    first, rotated, again, completed, after = ids[0], ids[1], ids[2], ids[3], ids[4]
    assert rotated != first  # the bare refusal rotated the wire id
    assert again == rotated and completed == rotated  # once per failure streak
    assert after != completed  # a rotated id that completed a turn may rotate again


def test_resource_exhausted_after_a_token_delta_does_not_rotate(
    sim: Simulator, state: CellState
) -> None:
    session = f"tok-{uuid.uuid4()}"
    sim.agent.script([TokenDelta(4), EndError("resource_exhausted", "")])
    with pytest.raises(ProviderError) as caught:
        lane.stream_round_sync(context(sim, session_id=session), state)
    assert caught.value.status == 429
    lane.stream_round_sync(context(sim, session_id=session), state)
    first, second = (r.run_request.conversation_id for r in sim.agent.runs)  # type: ignore[union-attr]
    assert first == second


def test_run_sse_refused_is_a_provider_error_with_its_status(
    sim: Simulator, state: CellState
) -> None:
    sim.agent.script([RejectRun(403, "permission_denied", "agents are off for this team")])
    with pytest.raises(ProviderError) as caught:
        lane.stream_round_sync(context(sim), state)
    assert caught.value.status == 403
    assert "agents are off" in str(caught.value)


def test_a_refused_append_fails_the_round_with_the_services_error(
    sim: Simulator, state: CellState
) -> None:
    sim.agent.script([RefuseAppends(409, "aborted", "run was superseded"), AskRequestContext()])
    started = time.monotonic()
    with pytest.raises(ProviderError) as caught:
        lane.stream_round_sync(context(sim), state)
    # The script's ask would wait 30 s for an answer: the refusal ended the round.
    assert time.monotonic() - started < 15
    assert caught.value.status == 409
    assert "run was superseded" in str(caught.value)


def test_silence_past_the_request_timeout_is_incomplete(sim: Simulator, state: CellState) -> None:
    sim.agent.script([Text("thinking..."), Sleep(10)])
    with pytest.raises(StreamIncomplete):
        lane.stream_round_sync(context(sim, request_timeout=0.3), state)


def test_no_credential_is_the_not_signed_in_error_before_any_network(
    sim: Simulator,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Any,
    state: CellState,
) -> None:
    monkeypatch.delenv("CURSOR_ACCESS_TOKEN", raising=False)
    monkeypatch.delenv("CURSOR_API_KEY", raising=False)
    host = MemoryHost(tmp_path)
    with pytest.raises(ConfigError) as caught:
        lane.stream_round_sync(context(sim, credential=None, host=host), state)
    assert "not signed in" in str(caught.value)
    assert caught.value.code == "not_signed_in"
    assert sim.requests == []


@pytest.mark.parametrize("token", ["abc s3cr3t-part\n", "t\u00f8ken-s3cr3t"])
def test_a_credential_no_header_can_carry_is_one_clear_line(
    sim: Simulator, token: str, state: CellState
) -> None:
    with pytest.raises(ConfigError) as caught:
        lane.stream_round_sync(context(sim, credential=token), state)
    line = str(caught.value)
    assert "characters a token cannot hold" in line and "\n" not in line
    assert caught.value.code == "bad_token"
    assert "s3cr3t" not in line and "s3cr3t" not in repr(caught.value)
    assert sim.requests == []


def test_an_unknown_model_is_a_config_error_before_any_run(
    sim: Simulator, state: CellState
) -> None:
    with pytest.raises(ConfigError) as caught:
        lane.stream_round_sync(context(sim, model="no-such-model"), state)
    assert caught.value.code == "unknown_model"
    # Only the roster was asked (the model might have been one only it lists).
    assert [r.path for r in sim.requests] == ["/agent.v1.AgentService/GetUsableModels"]
    with pytest.raises(ConfigError) as caught:
        lane.stream_round_sync(context(sim, model="gpt-5.4", effort="ultra"), state)
    assert caught.value.code == "unsupported_effort"
    assert len(sim.requests) == 1


def test_the_round_records_its_writer(sim: Simulator, state: CellState) -> None:
    result = lane.stream_round_sync(context(sim), state)
    assert state.writers.writer_of(result.message) == MODEL


def test_cancelling_mid_stream_leaves_no_thread_task_or_socket(
    sim: Simulator, state: CellState
) -> None:
    sim.agent.script([Text("partial "), Sleep(30), Text("never")])
    threads_before = set(threading.enumerate())
    sockets_before = open_sockets()
    parts: list[StreamPart] = []
    leftover: list[asyncio.Task[Any]] = []

    async def main() -> None:
        seen = asyncio.Event()

        def on_part(part: StreamPart) -> None:
            parts.append(part)
            if isinstance(part, TextDelta):
                seen.set()

        task = asyncio.create_task(lane.stream_round(context(sim, on_part=on_part), state))
        await asyncio.wait_for(seen.wait(), 60)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        leftover.extend(t for t in asyncio.all_tasks() if t is not asyncio.current_task())

    started = time.monotonic()
    asyncio.run(main())
    assert time.monotonic() - started < 15  # the script's 30 s sleep was not waited out
    assert leftover == []
    assert [p.text for p in parts if isinstance(p, TextDelta)] == ["partial "]
    assert not any(isinstance(p, Finish) for p in parts)
    assert threads_left(threads_before) == []  # the simulator saw us leave
    assert open_sockets() <= sockets_before


def test_stream_round_sync_works_inside_a_running_loop(sim: Simulator, state: CellState) -> None:
    async def main() -> str:
        return str(lane.stream_round_sync(context(sim), state).message["content"])

    assert "hello" in asyncio.run(main())


def test_without_a_context_credential_the_cells_ladder_is_asked(
    sim: Simulator,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Any,
    state: CellState,
) -> None:
    monkeypatch.setenv("CURSOR_ACCESS_TOKEN", "tok-from-env")
    lane.stream_round_sync(context(sim, credential=None, host=MemoryHost(tmp_path)), state)
    assert sim.agent.run().headers["authorization"] == "Bearer tok-from-env"


def test_the_client_version_header_follows_the_environment(
    sim: Simulator,
    monkeypatch: pytest.MonkeyPatch,
    state: CellState,
) -> None:
    monkeypatch.setenv("CURSOR_CLIENT_VERSION", "cli-2099.01.01-env")
    lane.stream_round_sync(context(sim), state)
    assert sim.agent.run().headers["x-cursor-client-version"] == "cli-2099.01.01-env"
    assert all(
        a.headers["x-cursor-client-version"] == "cli-2099.01.01-env"
        for a in sim.agent.run().appends
    )


def test_a_stream_left_open_after_the_turn_ended_completes_after_a_grace(
    sim: Simulator, state: CellState
) -> None:
    sim.agent.script([Text("done"), TurnEnded(4, 1), Checkpoint(), Sleep(60)])
    started = time.monotonic()
    result = lane.stream_round_sync(context(sim, request_timeout=0.4), state)
    assert time.monotonic() - started < 30  # the grace, not the stream's 60 s
    assert result.message["content"] == "done"
    assert result.usage.input == 4


def test_a_number_no_double_can_hold_does_not_fail_the_round(
    sim: Simulator, state: CellState
) -> None:
    huge = "1" + "0" * 400  # valid JSON; float() overflows on it
    tools = [
        {
            "type": "function",
            "function": {
                "name": "count",
                "description": "Count up to a limit",
                "parameters": {
                    "type": "object",
                    "properties": {"n": {"type": "integer", "maximum": int(huge)}},
                },
            },
        }
    ]
    call = {"id": "call_9", "type": "function", "function": {"name": "count"}}
    call["function"]["arguments"] = '{"n": ' + huge + "}"  # type: ignore[index]
    history = [
        {"role": "user", "content": "count"},
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "call_9", "content": "counted"},
        {"role": "user", "content": "thanks"},
    ]
    sim.agent.script([AskRequestContext(), KvRead(), Text("ok"), TurnEnded(3, 1), End()])
    session = f"huge-{uuid.uuid4()}"
    # Cursor's own model: its turns replay the call as an MCP step (the RESUME shape).
    result = lane.stream_round_sync(
        context(sim, messages=history, tools=tools, session_id=session, model="composer-2.5-fast"),
        state,
    )
    assert result.message["content"] == "ok"
    run = sim.agent.run()
    assert run.run_request is not None
    (turn_id,) = run.run_request.conversation_state.turns
    blobs = state.conversations.get(session).blobs
    turn = agent_pb2.ConversationTurnStructure.FromString(blobs.get(turn_id) or b"")
    steps = [blobs.get(i) or b"" for i in turn.agent_conversation_turn.steps]
    assert any(huge.encode() in step for step in steps)  # the argument, as its digits
    assert [tool.name for tool in run.tools] == ["count"]
    schema = decode_value(run.tools[0].input_schema)
    assert schema["properties"]["n"]["maximum"] == huge  # sent as its digits


def test_leading_system_messages_are_the_system_prompt_sent_once(
    sim: Simulator, state: CellState
) -> None:
    history = [
        {"role": "system", "content": "Be terse."},
        {"role": "user", "content": "one"},
        {"role": "assistant", "content": "two"},
        {"role": "user", "content": "three"},
    ]
    sim.agent.script([AskRequestContext(), KvRead(), Text("ok"), TurnEnded(3, 1), End()])
    lane.stream_round_sync(context(sim, messages=history, system=None), state)
    run = sim.agent.run()
    assert run.run_request is not None
    roots = run.root_messages()
    assert [m for m in roots if m["role"] == "system"] == [
        {"role": "system", "content": "Be terse."}
    ]
    assert "Be terse." not in str([m for m in roots if m["role"] != "system"])
    assert len(run.run_request.conversation_state.turns) == 1
    assert run.prompt() == "three"

    # A system prompt given in the context wins; the history's opening one is dropped.
    sim.agent.script([AskRequestContext(), KvRead(), Text("ok"), TurnEnded(3, 1), End()])
    lane.stream_round_sync(context(sim, messages=history, system="Given."), state)
    run = sim.agent.run()
    assert run.run_request is not None
    assert "Be terse." not in str(run.root_messages())
    assert len(run.run_request.conversation_state.turns) == 1


def test_heartbeats_from_the_first_frame_end_by_the_request_timeout(
    sim: Simulator, state: CellState
) -> None:
    sim.agent.script([Heartbeat(3000, 0.02)])  # 60 s of them
    started = time.monotonic()
    with pytest.raises(StreamIncomplete) as caught:
        lane.stream_round_sync(context(sim, request_timeout=0.5), state)
    assert time.monotonic() - started < 30
    assert "only heartbeats" in str(caught.value)


def test_heartbeats_after_the_turn_ended_do_not_stretch_the_grace(
    sim: Simulator, state: CellState
) -> None:
    sim.agent.script([Text("done"), TurnEnded(4, 1), Heartbeat(3000, 0.02)])  # 60 s of them
    started = time.monotonic()
    result = lane.stream_round_sync(context(sim, request_timeout=0.5), state)
    assert time.monotonic() - started < 30
    assert result.message["content"] == "done"


def test_kimi_k3_replays_its_own_thinking_and_refuses_another_models_history(
    sim: Simulator,
    state: CellState,
) -> None:
    k3 = "kimi-k3-high"
    session = f"k3-{uuid.uuid4()}"
    sim.agent.script([Thinking("private plan"), Text("first"), TurnEnded(3, 1), End()])
    first = lane.stream_round_sync(context(sim, "one", model=k3, session_id=session), state)
    history = [
        {"role": "user", "content": "one"},
        first.message,
        {"role": "user", "content": "two"},
    ]
    lane.stream_round_sync(context(sim, model=k3, messages=history, session_id=session), state)
    served = b"".join(sim.agent.run().served.values())
    assert b"private plan" in served and k3.encode() in served  # replayed, naming its writer

    other = lane.stream_round_sync(context(sim, "one"), state)  # written by MODEL, not K3
    mixed = [{"role": "user", "content": "one"}, other.message, {"role": "user", "content": "go"}]
    runs_before = len(sim.agent.runs)
    with pytest.raises(ConfigError) as caught:
        lane.stream_round_sync(context(sim, model=k3, messages=mixed), state)
    assert "new session" in str(caught.value)
    assert caught.value.code == "history_conflict"
    assert len(sim.agent.runs) == runs_before  # refused before any network


def test_a_blob_the_service_set_is_served_next_round_while_dropped_history_is_pruned(
    sim: Simulator,
    state: CellState,
) -> None:
    session = f"prune-{uuid.uuid4()}"
    summary = b"the service's own summary blob"
    sim.agent.script(
        [KvWrite(summary), KvRead(), Text("one"), TurnEnded(3, 1), Checkpoint(), End()]
    )
    opening = [
        {"role": "user", "content": "first question"},
        {"role": "assistant", "content": "an early answer"},
        {"role": "user", "content": "go"},
    ]
    first = lane.stream_round_sync(context(sim, messages=opening, session_id=session), state)
    first_request = sim.agent.run().run_request
    assert first_request is not None
    first_root = list(first_request.conversation_state.root_prompt_messages_json)
    # The host's window drops round one entirely.
    window = [{"role": "user", "content": "second question"}, first.message]
    window.append({"role": "user", "content": "third question"})
    sim.agent.script(
        [KvRead(hashlib.sha256(summary).digest()), KvRead(), Text("two"), TurnEnded(3, 1), End()]
    )
    lane.stream_round_sync(context(sim, messages=window, session_id=session), state)
    run = sim.agent.run()
    assert run.violations == []
    assert run.served[hashlib.sha256(summary).hexdigest()] == summary
    store = state.conversations.get(session).blobs
    # The first round's history blobs are named by no request any more: pruned.
    dropped = sorted(first_request_blob(sim, blob) for blob in first_root if blob not in store)
    assert dropped == [
        b'{"role":"assistant","content":[{"type":"text","text":"an early answer"}]}',
        b'{"role":"user","content":[{"type":"text","text":"first question"}]}',
    ]
    assert all(bytes(blob) in store for blob in run.run_request.conversation_state.turns)  # type: ignore[union-attr]


def first_request_blob(sim: Simulator, blob: bytes) -> bytes:
    """Return the bytes the simulator was served for BLOB in the first run."""
    return sim.agent.runs[0].served[blob.hex()]


def test_the_rosters_max_mode_marker_routes_a_model_whose_row_is_silent(
    sim: Simulator, state: CellState
) -> None:
    from cursor_simulator.models import RosterEntry
    from nodecode_cursor.models import listing

    model = "gpt-5.2-codex"  # its bundled row says nothing about max mode
    asyncio.run(lane.stream_round(context(sim, model=model), state))
    before = sim.agent.runs[-1].run_request
    assert before is not None
    assert before.requested_model.max_mode is False

    sim.models.roster = [RosterEntry(model, "Codex", max_mode=True)]
    asyncio.run(listing.fetch_roster(TOKEN, sim.url, state=state))
    asyncio.run(lane.stream_round(context(sim, model=model), state))
    after = sim.agent.runs[-1].run_request
    assert after is not None
    assert after.requested_model.max_mode is True
    assert after.model_details.max_mode is True


def test_a_kept_sign_in_passed_as_the_credential_is_renewed_when_due(
    sim: Simulator,
    tmp_path: Any,
    state: CellState,
) -> None:
    """A host passing ``cell.credential("cursor")`` still gets the due sign-in renewed (B8)."""
    from cursor_simulator.auth import make_token
    from nodecode_cursor.account.store import AuthStore, TokenEntry
    from nodecode_cursor.cell import CursorCell

    kept = make_token(lifetime=3600)
    AuthStore(tmp_path).save_entry(TokenEntry(kept, "refresh-kept", time.time() + 30, "me@x"))
    host = MemoryHost(tmp_path, {"cursor": {"base_url": sim.url}})
    cell = CursorCell()
    assert cell.start(host)
    try:
        credential = cell.credential("cursor")
        assert credential == kept and sim.auth.refresh_calls == 0  # the resolver never renews
        lane.stream_round_sync(context(sim, credential=credential, host=host), state)
    finally:
        cell.stop()
    assert sim.auth.refresh_calls == 1
    [renewed] = sim.auth.refreshed
    assert renewed != kept
    [run_sse] = [r for r in sim.requests if r.path.endswith("/RunSSE")]
    assert run_sse.headers["authorization"] == f"Bearer {renewed}"
    assert AuthStore(tmp_path).entry().access_token == renewed  # type: ignore[union-attr]


def test_a_credential_that_is_not_the_kept_sign_in_is_sent_as_it_is(
    sim: Simulator,
    tmp_path: Any,
    state: CellState,
) -> None:
    from cursor_simulator.auth import make_token
    from nodecode_cursor.account.store import AuthStore, TokenEntry

    AuthStore(tmp_path).save_entry(
        TokenEntry(make_token(), "refresh-kept", time.time() + 30, "me@x")
    )
    lane.stream_round_sync(context(sim, credential=TOKEN, host=MemoryHost(tmp_path)), state)
    assert sim.auth.refresh_calls == 0
    assert sim.agent.run().headers["authorization"] == f"Bearer {TOKEN}"


def test_a_corrupt_auth_file_leaves_the_rounds_credential_as_it_is(
    sim: Simulator,
    tmp_path: Any,
    state: CellState,
) -> None:
    (tmp_path / "auth.json").write_text("{not json")
    lane.stream_round_sync(context(sim, credential=TOKEN, host=MemoryHost(tmp_path)), state)
    assert sim.agent.run().headers["authorization"] == f"Bearer {TOKEN}"


# Models only the account's roster names --------------------------------------------------

ROSTER_PATH = "/agent.v1.AgentService/GetUsableModels"


def test_a_model_only_the_roster_lists_is_routed_from_its_slug(
    sim: Simulator, state: CellState
) -> None:
    assert "gpt-5.4-high" not in routing.known_models()
    result = lane.stream_round_sync(context(sim, model="gpt-5.4-high"), state)
    assert result.finish_reason == "stop"
    request = sim.agent.run().run_request
    assert request is not None
    # An OpenAI sibling slug collapses as the bundled ones do.
    assert request.requested_model.model_id == "gpt-5.4"
    assert [(p.id, p.value) for p in request.requested_model.parameters] == [("reasoning", "high")]
    assert request.model_details.model_id == "gpt-5.4-high"
    assert len(sim.requests_to(ROSTER_PATH)) == 1
    # The roster is asked once per process and base URL.
    lane.stream_round_sync(context(sim, model="gpt-5.4-high"), state)
    assert len(sim.requests_to(ROSTER_PATH)) == 1
    assert sim.agent.violations() == []


def test_a_bundled_model_never_asks_the_roster(sim: Simulator, state: CellState) -> None:
    lane.stream_round_sync(context(sim, model="gpt-5.4", effort="high"), state)
    lane.stream_round_sync(context(sim), state)
    assert sim.requests_to(ROSTER_PATH) == []


def test_a_roster_only_model_takes_its_max_mode_from_the_roster(
    sim: Simulator, state: CellState
) -> None:
    from cursor_simulator.models import RosterEntry

    sim.models.roster = [RosterEntry("claude-opus-9-thinking", "Opus 9", max_mode=True)]
    lane.stream_round_sync(context(sim, model="claude-opus-9-thinking", effort="high"), state)
    request = sim.agent.run().run_request
    assert request is not None
    assert request.requested_model.model_id == "claude-opus-9-thinking"
    assert list(request.requested_model.parameters) == []  # no effort rides along
    assert request.requested_model.max_mode is True
    assert request.model_details.model_id == "claude-opus-9-thinking"


def test_a_model_neither_bundled_nor_on_the_roster_names_near_matches_from_both(
    sim: Simulator,
    state: CellState,
) -> None:
    from cursor_simulator.models import RosterEntry

    sim.models.roster = [RosterEntry("zeta-coder-7", "Zeta")]
    with pytest.raises(ConfigError) as caught:
        lane.stream_round_sync(context(sim, model="zeta-coder-8"), state)
    assert caught.value.code == "unknown_model" and caught.value.status == 400
    assert "zeta-coder-7" in str(caught.value)
    with pytest.raises(ConfigError) as caught:
        lane.stream_round_sync(context(sim, model="claude-4.5-sonet"), state)
    assert "claude-4.5-sonnet" in str(caught.value)
    assert len(sim.requests_to(ROSTER_PATH)) == 1
    assert sim.requests_to("/agent.v1.AgentService/RunSSE") == []


def test_an_unknown_model_says_when_the_roster_could_not_be_checked(
    sim: Simulator, state: CellState
) -> None:
    sim.models.refuse(403, "permission_denied")
    with pytest.raises(ConfigError) as caught:
        lane.stream_round_sync(context(sim, model="gpt-5.4-high"), state)
    line = str(caught.value)
    assert caught.value.code == "unknown_model"
    assert "live roster could not be checked" in line and "HTTP 403" in line
    assert TOKEN not in line
    # A refusal is not kept: the next round asks again.
    sim.models.refusal = None
    lane.stream_round_sync(context(sim, model="gpt-5.4-high"), state)
    assert len(sim.requests_to(ROSTER_PATH)) == 2


@pytest.mark.parametrize("model", ["composer-2.5", "gpt-5.4-high"])
def test_an_unknown_effort_name_fails_the_round_before_any_run(
    sim: Simulator, model: str, state: CellState
) -> None:
    with pytest.raises(ConfigError) as caught:
        lane.stream_round_sync(context(sim, model=model, effort="bogus"), state)
    assert caught.value.code == "unsupported_effort"
    assert "Known efforts:" in str(caught.value)
    assert sim.requests == []


def test_a_known_effort_on_a_model_that_does_not_reason_asks_none(
    sim: Simulator, state: CellState
) -> None:
    lane.stream_round_sync(context(sim, model="composer-2.5", effort="high"), state)
    request = sim.agent.run().run_request
    assert request is not None
    assert request.requested_model.model_id == "composer-2.5"
    assert [(p.id, p.value) for p in request.requested_model.parameters] == [("fast", "false")]


@pytest.mark.parametrize(("effort", "slug"), [("low", "gpt-5.4-low"), ("high", "gpt-5.4-high")])
def test_the_result_names_the_routed_sibling_slug(
    sim: Simulator, effort: str, slug: str, state: CellState
) -> None:
    parts: list[StreamPart] = []
    result = lane.stream_round_sync(
        context(sim, model="gpt-5.4", effort=effort, on_part=parts.append), state
    )
    request = sim.agent.run().run_request
    assert request is not None and request.requested_model.model_id == "gpt-5.4"
    assert result.wire_model == slug == request.model_details.model_id
    assert parts[0] == StreamStart(slug)


def test_a_lone_surrogate_in_the_history_is_sent_as_the_replacement_character(
    sim: Simulator,
    caplog: pytest.LogCaptureFixture,
    state: CellState,
) -> None:
    history = [
        {"role": "user", "content": "first \udc80 words"},
        {"role": "assistant", "content": "ok \ud83d\ude00"},  # a pair spelled as two halves
        {"role": "user", "content": "bad \ud800 text"},
    ]
    with caplog.at_level("DEBUG", logger="nodecode_cursor.lanes.round_history"):
        result = lane.stream_round_sync(
            context(sim, messages=history, system="sys \udfff", tools=[]), state
        )
    assert result.finish_reason == "stop"
    run = sim.agent.run()
    assert run.prompt() == "bad \ufffd text"
    served = b"".join(run.served.values())
    assert "first \ufffd words".encode() in served
    assert "ok \U0001f600".encode() in served  # the pair joined, not replaced
    assert "sys \ufffd".encode() in served
    assert any("lone surrogate" in r.getMessage() for r in caplog.records)
    # The host's own history is left as it was.
    assert history[2]["content"] == "bad \ud800 text"


def test_a_round_logs_its_start_and_end_at_debug_without_secrets(
    sim: Simulator,
    caplog: pytest.LogCaptureFixture,
    state: CellState,
) -> None:
    with caplog.at_level("DEBUG", logger="nodecode_cursor"):
        result = lane.stream_round_sync(
            context(sim, "secret-prompt-words", model="gpt-5.4", effort="high"), state
        )
    run = sim.agent.run()
    lines = [r.getMessage() for r in caplog.records if r.name.startswith("nodecode_cursor.lanes.")]
    [start] = [line for line in lines if line.startswith("round start")]
    for part in (
        "model=gpt-5.4",
        "effort=high",
        "slug=gpt-5.4-high",
        "requested=gpt-5.4",
        "max_mode=False",
        f"request_id={run.request_id}",
        "messages=1",
        f"bytes={len(result.request)}",
    ):
        assert part in start, part
    assert "session=session-" in start and "conversation=" in start
    [end] = [line for line in lines if line.startswith("round end")]
    assert "finish=stop" in end and "frames=" in end and "duration=" in end
    assert f"output={result.usage.output}" in end
    everything = "\n".join(r.getMessage() for r in caplog.records)
    assert TOKEN not in everything and "secret-prompt-words" not in everything


def test_a_refused_append_is_logged_at_debug(
    sim: Simulator,
    caplog: pytest.LogCaptureFixture,
    state: CellState,
) -> None:
    sim.agent.script([RefuseAppends(409, "aborted", "run was superseded"), AskRequestContext()])
    with caplog.at_level("DEBUG", logger="nodecode_cursor"), pytest.raises(ProviderError):
        lane.stream_round_sync(context(sim), state)
    refused = [
        r.getMessage()
        for r in caplog.records
        if r.name == "nodecode_cursor.transports.sse" and "refused" in r.getMessage()
    ]
    assert refused and "append #" in refused[0] and "run was superseded" in refused[0]
    assert all(TOKEN not in r.getMessage() for r in caplog.records)


def test_the_kept_sign_in_as_the_credential_is_sent_even_beside_a_saved_key(
    sim: Simulator,
    tmp_path: Any,
    state: CellState,
) -> None:
    """The host chose the kept sign-in: a saved API key never takes its place."""
    from nodecode_cursor.account.store import AuthStore, TokenEntry

    AuthStore(tmp_path).save_entry(TokenEntry("oauth-T", "refresh-kept", time.time() + 86400))
    saved = json.loads((tmp_path / "auth.json").read_text())
    saved["api_keys"] = {"cursor": {"key": "apikey-1"}}
    (tmp_path / "auth.json").write_text(json.dumps(saved))
    lane.stream_round_sync(context(sim, credential="oauth-T", host=MemoryHost(tmp_path)), state)
    [run_sse] = sim.requests_to("/agent.v1.AgentService/RunSSE")
    assert run_sse.headers["authorization"] == "Bearer oauth-T"
    assert sim.auth.refresh_calls == 0


def test_a_due_kept_sign_in_beside_a_saved_key_is_renewed_and_sent(
    sim: Simulator,
    tmp_path: Any,
    state: CellState,
) -> None:
    from cursor_simulator.auth import make_token
    from nodecode_cursor.account.store import AuthStore, TokenEntry

    kept = make_token(lifetime=3600)
    AuthStore(tmp_path).save_entry(TokenEntry(kept, "refresh-kept", time.time() + 30))
    saved = json.loads((tmp_path / "auth.json").read_text())
    saved["api_keys"] = {"cursor": {"key": "apikey-1"}}
    (tmp_path / "auth.json").write_text(json.dumps(saved))
    lane.stream_round_sync(context(sim, credential=kept, host=MemoryHost(tmp_path)), state)
    [renewed] = sim.auth.refreshed
    [run_sse] = sim.requests_to("/agent.v1.AgentService/RunSSE")
    assert run_sse.headers["authorization"] == f"Bearer {renewed}"


def test_a_roster_only_model_asks_the_roster_through_the_rounds_proxy(
    sim: Simulator, state: CellState
) -> None:
    far = context(sim, model="gpt-5.4-high", base_url="http://cursor.invalid", proxy=sim.url)
    assert lane.stream_round_sync(far, state).finish_reason == "stop"
    [roster] = sim.requests_to(ROSTER_PATH)
    assert roster.target == "http://cursor.invalid" + ROSTER_PATH


@pytest.mark.usefixtures("bad_proxy_environment")
def test_a_roster_only_model_through_an_unusable_proxy_is_a_config_error(
    sim: Simulator, state: CellState
) -> None:
    with pytest.raises(ConfigError) as caught:
        lane.stream_round_sync(context(sim, model="gpt-5.4-high"), state)
    assert caught.value.code == "bad_proxy"
    assert "s3cr3t" not in repr(caught.value) and "s3cr3t" not in str(caught.value)
    assert sim.requests == []


def test_concurrent_cold_rounds_share_one_roster_call(sim: Simulator, state: CellState) -> None:
    async def main() -> list[RoundResult]:
        rounds = [
            lane.stream_round(context(sim, prompt=f"hello {i}", model="gpt-5.4-high"), state)
            for i in range(20)
        ]
        return await asyncio.gather(*rounds)

    results = asyncio.run(main())
    assert [r.finish_reason for r in results] == ["stop"] * 20
    assert sim.models.calls == 1
    assert len(sim.requests_to(ROSTER_PATH)) == 1
    # Another account's round asks for its own roster, once.
    lane.stream_round_sync(
        context(sim, model="gpt-5.4-high", credential="tok-other-account"), state
    )
    lane.stream_round_sync(
        context(sim, model="gpt-5.4-high", credential="tok-other-account"), state
    )
    assert sim.models.calls == 2
    assert [r.headers["authorization"] for r in sim.requests_to(ROSTER_PATH)] == [
        f"Bearer {TOKEN}",
        "Bearer tok-other-account",
    ]


def test_a_due_sign_in_is_renewed_through_the_rounds_proxy(
    sim: Simulator, tmp_path: Any, state: CellState
) -> None:
    """The refresh goes the round's way (cursor.proxy), not only the proxy environment's."""
    from cursor_simulator.auth import make_token
    from nodecode_cursor.account.store import AuthStore, TokenEntry

    kept = make_token(lifetime=3600)
    AuthStore(tmp_path).save_entry(TokenEntry(kept, "refresh-kept", time.time() + 30))
    far = "http://cursor.invalid"
    host = MemoryHost(tmp_path)
    lane.stream_round_sync(
        context(sim, credential=kept, host=host, base_url=far, proxy=sim.url), state
    )
    [renewed] = sim.auth.refreshed
    [refresh] = sim.requests_to("/oauth/token")
    assert refresh.target == far + "/oauth/token"
    [run_sse] = sim.requests_to("/agent.v1.AgentService/RunSSE")
    assert run_sse.target == far + "/agent.v1.AgentService/RunSSE"
    assert run_sse.headers["authorization"] == f"Bearer {renewed}"


def test_a_round_resolving_its_own_credential_renews_through_its_proxy(
    sim: Simulator,
    tmp_path: Any,
    monkeypatch: pytest.MonkeyPatch,
    state: CellState,
) -> None:
    from cursor_simulator.auth import make_token
    from nodecode_cursor.account.store import AuthStore, TokenEntry

    for name in ("CURSOR_ACCESS_TOKEN", "CURSOR_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    AuthStore(tmp_path).save_entry(TokenEntry(make_token(), "refresh-kept", time.time() + 30))
    far = "http://cursor.invalid"
    ctx = context(sim, credential=None, host=MemoryHost(tmp_path), base_url=far, proxy=sim.url)
    lane.stream_round_sync(ctx, state)
    [renewed] = sim.auth.refreshed
    assert [r.target for r in sim.requests_to("/oauth/token")] == [far + "/oauth/token"]
    assert sim.agent.run().headers["authorization"] == f"Bearer {renewed}"


def test_another_accounts_max_mode_marker_does_not_route_this_accounts_round(
    sim: Simulator,
    state: CellState,
) -> None:
    from cursor_simulator.models import RosterEntry
    from nodecode_cursor.models import listing

    model = "gpt-5.2-codex"  # its bundled row says nothing about max mode
    sim.models.roster = [RosterEntry(model, "Codex", max_mode=True)]
    asyncio.run(listing.fetch_roster("tok-another-account", sim.url, state=state))
    asyncio.run(lane.stream_round(context(sim, model=model), state))
    request = sim.agent.runs[-1].run_request
    assert request is not None
    assert request.requested_model.max_mode is False


def test_stop_then_start_leaves_nothing_from_before(sim: Simulator, tmp_path: Any) -> None:
    """A restarted cell keeps no conversation, writer, roster or marker of its last run."""
    from cursor_simulator.models import RosterEntry
    from nodecode_cursor.cell import CursorCell

    session = f"restart-{uuid.uuid4()}"
    sim.models.roster = [RosterEntry("gpt-5.4-high", "GPT-5.4 High", max_mode=True)]
    cell = CursorCell()
    assert cell.start(MemoryHost(tmp_path, {"cursor": {"base_url": sim.url}}))
    before = cell.state
    assert before is not None
    result = asyncio.run(cell.stream_round(context(sim, session_id=session, model="gpt-5.4-high")))
    assert session in before.conversations
    assert before.writers.writer_of(result.message) == "gpt-5.4-high"
    assert before.models.rosters and before.models.markers
    cell.stop()
    assert cell.state is None
    assert before.closed and session not in before.conversations
    assert not before.models.rosters and not before.models.markers and len(before.writers) == 0

    assert cell.start(MemoryHost(tmp_path, {"cursor": {"base_url": sim.url}}))
    try:
        after = cell.state
        assert after is not None and after is not before
        assert session not in after.conversations and len(after.writers) == 0
        assert not after.models.rosters and not after.models.markers
        asyncio.run(cell.stream_round(context(sim, session_id=session, model="gpt-5.4-high")))
    finally:
        cell.stop()
    # The restarted cell asked the roster again: nothing of the first run was kept.
    assert sim.models.calls == 2


def test_the_cell_object_is_what_a_host_uses_of_a_cell() -> None:
    from nodecode_cursor.cell import CursorCell, cell
    from nodecode_cursor.host import Cell

    typed: Cell = cell  # mypy checks every member's signature against the protocol
    assert isinstance(typed, Cell)
    assert not isinstance(object(), Cell)
    assert isinstance(CursorCell(), Cell)
