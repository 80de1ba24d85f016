"""Tools declared where the service looks, every query answered, an abort ends the round.

Whole rounds of the ``cursor`` lane over real sockets against the simulator
(docs/protocol.md §5, §6): the host's tools in run request field 4, calls under
the names Cursor renders, interaction queries of every member answered, an
``exec_server_control`` abort, and what a stall on heartbeats says.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest
from protobytes import ld, vi
from protobytes import text as s
from runs import LIST_FILES, answer, play, round_context, run_request, run_settings

from cursor_simulator import Simulator
from cursor_simulator.steps import (
    AskQuery,
    AskRequestContext,
    Checkpoint,
    End,
    ExecAbort,
    Heartbeat,
    KvRead,
    Raw,
    StepCompleted,
    Text,
    ToolCall,
    TurnEnded,
)
from nodecode_cursor._proto import agent_pb2
from nodecode_cursor.core.asks import SERVICE_ABORTED
from nodecode_cursor.core.tool_names import declared_name
from nodecode_cursor.errors import ProviderError, StreamIncomplete
from nodecode_cursor.lanes import lane
from nodecode_cursor.state import CellState
from nodecode_cursor.transports.sse import SseRun
from nodecode_cursor.wire import connect

pytestmark = pytest.mark.sim_answer_timeout(5.0)

TOKEN = "tok-queries-secret"


def context(sim: Simulator, prompt: str = "hello", **overrides: Any) -> Any:
    """Return this file's round for SIM: list_files offered, a long request timeout."""
    overrides.setdefault("request_timeout", 60.0)
    return round_context(sim.url, TOKEN, prompt, **overrides)


def ended(*steps: Any) -> list[Any]:
    """Return STEPS after the context asks, then the end of a whole turn."""
    return [
        AskRequestContext(),
        KvRead(),
        *steps,
        StepCompleted(),
        TurnEnded(10, 2),
        Checkpoint(),
        End(),
    ]


# --- the names a call comes back under ---------------------------------------------------


def test_a_rendered_name_maps_back_only_onto_a_declared_tool() -> None:
    declared = {"list_files", "read"}
    assert declared_name("list_files", declared) == "list_files"
    assert declared_name("pi-agent-list_files", declared) == "list_files"
    assert declared_name("mcp_pi-agent_list_files", declared) == "list_files"
    assert declared_name("other-list_files", declared) is None
    assert declared_name("mcp_other_list_files", declared) is None
    assert declared_name("pi-agent-write", declared) is None
    assert declared_name("list", declared) is None


@pytest.mark.parametrize(("style", "sent"), [("dash", "pi-agent-"), ("mcp", "mcp_pi-agent_")])
def test_a_call_under_a_rendered_name_reaches_the_host_under_the_declared_name(
    sim: Simulator, state: CellState, style: str, sent: str
) -> None:
    sim.agent.render_tool_names = style
    sim.agent.script(ended(Text("Looking."), ToolCall("list_files", {"path": "src"}, "call_1")))
    result = lane.stream_round_sync(context(sim, "look"), state)

    (call,) = result.message["tool_calls"]
    assert call["id"] == "call_1"
    assert call["function"] == {"name": "list_files", "arguments": '{"path":"src"}'}
    run = sim.agent.run()
    assert run.violations == []
    assert run.handoffs == ["call_1"]
    # The model called the tool by its rendered name; the handoff answered that ask.
    assert run.called == [sent + "list_files"]
    assert [t.name for t in run.tools] == ["list_files"]
    (ask,) = [a for a in run.answers.values() if a[-1].exec_client_message.HasField("mcp_result")]
    assert ask[-1].exec_client_message.mcp_result.HasField("success")


def test_an_undeclared_name_is_refused_and_not_filed(
    sim: Simulator, state: CellState, caplog: pytest.LogCaptureFixture
) -> None:
    sim.agent.script(
        ended(ToolCall("delete_everything", {"path": "/"}, "call_9"), Text("It is not there."))
    )
    result = lane.stream_round_sync(context(sim, "go"), state)

    assert "tool_calls" not in result.message
    assert result.finish_reason == "stop"
    assert result.message["content"] == "It is not there."
    run = sim.agent.run()
    assert run.violations == [] and run.handoffs == []
    (answer,) = [
        a[-1].exec_client_message.mcp_result
        for a in run.answers.values()
        if a[-1].exec_client_message.HasField("mcp_result")
    ]
    # McpResult{5 tool_not_found{1 name, 2 available_tools}}
    assert answer.SerializeToString() == ld(5, s(1, "delete_everything"), s(2, "list_files"))
    assert "delete_everything" in caplog.text


# --- field 4 -----------------------------------------------------------------------------


def test_every_run_request_declares_the_tools_in_field_4(sim: Simulator, state: CellState) -> None:
    sim.agent.script(ended(Text("ok")))
    lane.stream_round_sync(context(sim), state)
    sim.agent.script(ended(Text("ok")))
    lane.stream_round_sync(context(sim, tools=[]), state)

    with_tools, without = sim.agent.run(-2), sim.agent.run(-1)
    assert sim.agent.violations() == []
    assert with_tools.run_request is not None and without.run_request is not None
    declared = list(with_tools.run_request.mcp_tools.mcp_tools)
    assert declared == with_tools.tools  # the request context's own definitions
    assert [t.name for t in declared] == [LIST_FILES["function"]["name"]]
    assert without.run_request.HasField("mcp_tools")
    assert len(without.run_request.mcp_tools.mcp_tools) == 0


def test_the_simulator_records_a_run_request_without_field_4(sim: Simulator) -> None:
    message = agent_pb2.AgentClientMessage.FromString(run_request())
    message.run_request.ClearField("mcp_tools")
    sim.agent.script([AskRequestContext(), KvRead(), Text("hi"), TurnEnded(1, 1), End()])

    async def main() -> None:
        async with SseRun(run_settings(sim.url, TOKEN), "run-no-tools") as run:
            run.send(message.SerializeToString())
            async for asked in run.messages():
                reply = answer(asked)
                if reply is not None:
                    run.send(reply)

    asyncio.run(main())
    assert sim.agent.run().violations == ["the run request does not declare mcp_tools (field 4)"]


# --- interaction queries -----------------------------------------------------------------


def test_a_run_that_asks_setup_vm_finishes_without_waiting(
    sim: Simulator, state: CellState
) -> None:
    sim.agent.script([AskQuery("setup_vm_environment_args"), *ended(Text("ready"))])
    result = lane.stream_round_sync(context(sim), state)

    assert result.message["content"] == "ready"
    run = sim.agent.run()
    assert run.violations == []
    (answer,) = run.query_answers
    # InteractionResponse{1 id 1, 8 setup_vm_environment_result{1 success{}}}
    assert answer.SerializeToString() == vi(1, 1) + ld(8, ld(1))


def test_a_query_of_an_unknown_member_gets_its_bare_response(
    sim: Simulator, state: CellState
) -> None:
    sim.agent.script([AskQuery(number=23, body=s(1, "new")), *ended(Text("went on"))])
    result = lane.stream_round_sync(context(sim), state)

    assert result.message["content"] == "went on"
    run = sim.agent.run()
    assert run.violations == []
    (answer,) = run.query_answers
    assert answer.SerializeToString() == vi(1, 1)  # InteractionResponse{1 id} alone


def test_a_query_left_unanswered_stalls_on_heartbeats(sim: Simulator) -> None:
    # runs.play answers only key-value reads and the request context, never a query.
    sim.agent.answer_timeout = 0.5
    sim.agent.script([AskQuery("setup_vm_environment_args", beat=0.05), Text("never")])

    async def main() -> list[Any]:
        async with SseRun(run_settings(sim.url, TOKEN), "run-stall") as run:
            return await play(run)

    messages = asyncio.run(main())
    kinds = [m.interaction_update.WhichOneof("message") for m in messages[1:]]
    assert messages[0].HasField("interaction_query")
    assert kinds and set(kinds) == {"heartbeat"}
    assert sim.agent.run().violations == ["interaction query 1 was never answered"]


# --- an abort, and a stall ---------------------------------------------------------------


def test_an_exec_abort_ends_the_round_at_once(sim: Simulator, state: CellState) -> None:
    sim.agent.script(
        [AskRequestContext(), KvRead(), Text("partial"), ExecAbort(7), Heartbeat(600, 0.05)]
    )
    started = time.monotonic()
    with pytest.raises(ProviderError) as caught:
        lane.stream_round_sync(context(sim, request_timeout=60.0), state)
    # The heartbeats would last 30 s and the idle limit 60 s: the abort ended it.
    assert time.monotonic() - started < 10
    error = caught.value
    assert not isinstance(error, StreamIncomplete)
    assert error.code == SERVICE_ABORTED and not error.retryable
    assert "stopped the run" in str(error)


def test_a_stall_names_the_ask_left_unanswered(sim: Simulator, state: CellState) -> None:
    # KvServerMessage{1 id 50, 9 a member our schema does not know}: nothing answers it.
    unknown_kv = connect.encode_frame(ld(4, vi(1, 50), ld(9, b"")))
    sim.agent.script([AskRequestContext(), KvRead(), Raw(unknown_kv), Heartbeat(400, 0.02)])
    with pytest.raises(StreamIncomplete) as caught:
        lane.stream_round_sync(context(sim, request_timeout=0.5), state)
    said = str(caught.value)
    assert "only heartbeats" in said
    assert "after asking for key-value ask member 9 (id 50)" in said
    assert "could not answer" in said


def test_a_stall_after_an_answered_ask_says_so(sim: Simulator, state: CellState) -> None:
    sim.agent.script([AskQuery("setup_vm_environment_args"), Heartbeat(400, 0.02)])
    with pytest.raises(StreamIncomplete) as caught:
        lane.stream_round_sync(context(sim, request_timeout=0.5), state)
    assert "after asking for interaction query setup_vm_environment_args (id 1) (answered)" in (
        str(caught.value)
    )
