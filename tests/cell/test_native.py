"""Cursor's own tools run in place: each kind answered in its typed result over real sockets.

The simulator asks for each native kind over the exec channel and checks the answer's
shape; a runner written here stands in for the host. Expected result bytes are written
by hand from field numbers (tests/protobytes.py) for read, ls and shell.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import uuid
from typing import Any

import pytest
from protobytes import ld, text, vi
from standin import gone

from cursor_simulator import Simulator
from cursor_simulator.steps import (
    AskRequestContext,
    Checkpoint,
    End,
    KvRead,
    Native,
    StepCompleted,
    Text,
    TurnEnded,
)
from nodecode_cursor._proto import agent_pb2
from nodecode_cursor.host import (
    NativeCall,
    NativeOutcome,
    ResolvedCallResult,
    ResolvedCallStart,
    RoundContext,
    StreamPart,
)
from nodecode_cursor.lanes import lane

pytestmark = pytest.mark.sim_answer_timeout(5.0)

ALL_KINDS = frozenset({"read", "ls", "grep", "glob", "shell", "write", "edit", "delete"})


def ctx(sim: Simulator, messages: list[dict[str, Any]], **kw: Any) -> RoundContext:
    fields: dict[str, Any] = {
        "model": "claude-4.5-sonnet",
        "messages": messages,
        "credential": "t",
        "base_url": sim.url,
        "session_id": f"s-{uuid.uuid4()}",
        "cwd": "/work",
    }
    fields.update(kw)
    return RoundContext(**fields)


def script(*steps: Any) -> list[Any]:
    """Return a run that asks STEPS between the usual opening and a complete end."""
    return [
        AskRequestContext(),
        KvRead(),
        *steps,
        Text("done"),
        StepCompleted(),
        TurnEnded(input=10, output=2),
        Checkpoint(),
        End(),
    ]


class Runner:
    """A host's runner: answers from a table, remembering every call it was given."""

    def __init__(self, outcomes: dict[str, NativeOutcome]) -> None:
        self.outcomes = outcomes
        self.calls: list[NativeCall] = []

    async def __call__(self, call: NativeCall) -> NativeOutcome:
        self.calls.append(call)
        return self.outcomes[call.kind]


def native_asks(sim: Simulator) -> list[int]:
    """Return the ids of the run's native asks, in order (the request context's left out)."""
    answers = sim.agent.run().answers
    return [
        ask
        for ask in sorted(answers)
        if not answers[ask][-1].exec_client_message.HasField("request_context_result")
    ]


def exec_answer(sim: Simulator, index: int) -> tuple[int, list[bytes]]:
    """Return (ask id, the exec client messages serialized) of the run's INDEXth native ask."""
    ask = native_asks(sim)[index]
    return ask, [
        message.exec_client_message.SerializeToString()
        for message in sim.agent.run().answers[ask]
        if message.HasField("exec_client_message")
    ]


def head(ask: int) -> bytes:
    """Return an ExecClientMessage's id field (1) for ASK."""
    return vi(1, ask)


def exec_id(ask: int) -> bytes:
    return text(15, f"exec-{ask}")


# --- each kind, its typed success, by hand where the brief asks ------------------------------


def test_read_is_answered_in_place_with_its_success_shape(sim: Simulator) -> None:
    sim.agent.script(
        script(Native("read_args", {"path": "notes.txt", "tool_call_id": "call_r", "offset": 2}))
    )
    runner = Runner(
        {"read": NativeOutcome.done("two\n", content="two\n", total_lines=3, file_size=14)}
    )
    parts: list[StreamPart] = []
    result = lane.stream_round_sync(
        ctx(
            sim,
            [{"role": "user", "content": "read it"}],
            run_native=runner,
            native_kinds=ALL_KINDS,
            on_part=parts.append,
        )
    )
    assert runner.calls == [NativeCall("read", "call_r", path="notes.txt", offset=2)]
    # ExecClientMessage{1 id, 7 read_result{1 success{1 path, 2 content, 3 total_lines,
    # 4 file_size, 8 range_applied}}, 15 exec_id}
    success = ld(1, text(1, "notes.txt"), text(2, "two\n"), vi(3, 3), vi(4, 14), vi(8, 1))
    ask, got = exec_answer(sim, 0)
    assert got == [head(ask) + ld(7, success) + exec_id(ask)]
    assert sim.agent.violations() == []
    # The record: the resolved call and its result before the last message.
    call, tool, last = result.messages
    assert call["tool_calls"] == [
        {
            "id": "call_r",
            "type": "function",
            "function": {"name": "read", "arguments": '{"path":"notes.txt","offset":2}'},
            "resolved": True,
        }
    ]
    assert tool == {"role": "tool", "tool_call_id": "call_r", "content": "two\n", "resolved": True}
    assert last is result.message and last["content"] == "done"
    assert result.finish_reason == "stop"
    started = [p for p in parts if isinstance(p, ResolvedCallStart)]
    finished = [p for p in parts if isinstance(p, ResolvedCallResult)]
    assert started == [
        ResolvedCallStart("call_r", "read", '{"path":"notes.txt","offset":2}', "host")
    ]
    assert finished == [ResolvedCallResult("call_r", "read", "two\n", False)]


def test_ls_is_answered_with_a_directory_tree(sim: Simulator) -> None:
    sim.agent.script(script(Native("ls_args", {"path": "src", "tool_call_id": "call_l"})))
    runner = Runner({"ls": NativeOutcome.done("a.py\nlib/", entries=("a.py", "lib/"))})
    lane.stream_round_sync(
        ctx(sim, [{"role": "user", "content": "list"}], run_native=runner, native_kinds=ALL_KINDS)
    )
    # LsResult{1 success{1 directory_tree_root{1 abs_path, 2 children_dirs{1 abs_path},
    # 3 children_files{1 name}, 4 children_were_processed, 6 num_files}}} as member 8.
    root = ld(
        1,
        text(1, "src"),
        ld(2, text(1, "src/lib")),
        ld(3, text(1, "a.py")),
        vi(4, 1),
        vi(6, 1),
    )
    ask, got = exec_answer(sim, 0)
    assert got == [head(ask) + ld(8, ld(1, root)) + exec_id(ask)]
    assert sim.agent.violations() == []


def test_shell_is_answered_with_success_and_a_failing_exit_with_failure(sim: Simulator) -> None:
    sim.agent.script(
        script(
            Native("shell_args", {"command": "echo hi", "tool_call_id": "c1"}),
            Native("shell_args", {"command": "false", "working_directory": "/tmp"}),
        )
    )
    outcomes = iter(
        [
            NativeOutcome.done("hi\n", exit_code=0, stdout="hi\n", duration_ms=5),
            NativeOutcome.done("", exit_code=1, stdout="", stderr="no", duration_ms=1),
        ]
    )

    async def runner(call: NativeCall) -> NativeOutcome:
        return next(outcomes)

    result = lane.stream_round_sync(
        ctx(sim, [{"role": "user", "content": "run"}], run_native=runner, native_kinds=ALL_KINDS)
    )
    # ShellResult{1 success{1 command, 2 working_directory (the round's cwd), 5 stdout,
    # 7 execution_time}} as member 2.
    success = ld(1, text(1, "echo hi"), text(2, "/work"), text(5, "hi\n"), vi(7, 5))
    ask, got = exec_answer(sim, 0)
    assert got == [head(ask) + ld(2, success) + exec_id(ask)]
    # ShellResult{2 failure{1 command, 2 working_directory, 3 exit_code, 6 stderr,
    # 7 execution_time}}
    failure = ld(2, text(1, "false"), text(2, "/tmp"), vi(3, 1), text(6, "no"), vi(7, 1))
    ask, got = exec_answer(sim, 1)
    assert got == [head(ask) + ld(2, failure) + exec_id(ask)]
    assert sim.agent.violations() == []
    # An ask with no tool call id gets one made from its exec id.
    ids = [m["tool_calls"][0]["id"] for m in result.messages if m.get("tool_calls")]
    assert ids == ["c1", f"native_exec-{native_asks(sim)[1]}"]


def test_a_streamed_shell_opens_streams_exits_answers_and_closes(sim: Simulator) -> None:
    sim.agent.script(script(Native("shell_stream_args", {"command": "ls"})))
    runner = Runner({"shell": NativeOutcome.done("a\n", exit_code=0, stdout="a\n")})
    lane.stream_round_sync(
        ctx(sim, [{"role": "user", "content": "ls"}], run_native=runner, native_kinds=ALL_KINDS)
    )
    members = [
        (m.exec_client_message.WhichOneof("message"), m.exec_client_message.shell_stream)
        if m.HasField("exec_client_message")
        else ("close", None)
        for m in sim.agent.run().messages()
        if m.HasField("exec_client_message") or m.HasField("exec_client_control_message")
    ]
    kinds = [
        name if name != "shell_stream" or stream is None else stream.WhichOneof("event")
        for name, stream in members
    ]
    assert kinds[1:] == ["start", "stdout", "exit", "shell_result", "close"]
    assert sim.agent.violations() == []


def test_grep_glob_write_edit_delete_answer_in_their_success_shapes(sim: Simulator) -> None:
    edit = agent_pb2.PiEditReplacement(old_text="a", new_text="b")
    sim.agent.script(
        script(
            Native("grep_args", {"pattern": "Name", "path": "src"}),
            Native("grep_args", {"pattern": "Name", "output_mode": "files_with_matches"}),
            Native("pi_find_args", {"pattern": "*.py"}),
            Native("write_args", {"path": "n.txt", "file_text": "x\ny\n"}),
            Native("pi_edit_args", {"path": "n.txt", "edits": [edit]}),
            Native("delete_args", {"path": "n.txt"}),
        )
    )
    runner = Runner(
        {
            "grep": NativeOutcome.done(
                "src/a.py:3: Name = 1", matches=(("src/a.py", 3, "Name = 1"),)
            ),
            "glob": NativeOutcome.done("a.py\nb.py", entries=("a.py", "b.py")),
            "write": NativeOutcome.done("wrote n.txt", file_size=4),
            "edit": NativeOutcome.done("edited n.txt", diff="-a\n+b\n"),
            "delete": NativeOutcome.done("deleted n.txt", file_size=4, content="x\ny\n"),
        }
    )
    lane.stream_round_sync(
        ctx(sim, [{"role": "user", "content": "go"}], run_native=runner, native_kinds=ALL_KINDS)
    )
    assert sim.agent.violations() == []
    results = dict(sim.agent.run().native_results)
    grep = sim.agent.run().native_results[0][1]
    union = grep.success.workspace_results["src"]
    assert union.content.matches[0].file == "src/a.py"
    assert union.content.matches[0].matches[0].line_number == 3
    assert union.content.total_matched_lines == 1
    files = sim.agent.run().native_results[1][1].success.workspace_results["."]
    assert list(files.files.files) == ["src/a.py"] and files.files.total_files == 1
    assert results["pi_find_args"].success.output == "a.py\nb.py"
    written = results["write_args"].success
    assert (written.path, written.lines_created, written.file_size) == ("n.txt", 2, 4)
    assert results["pi_edit_args"].success.diff == "-a\n+b\n"
    deleted = results["delete_args"].success
    assert (deleted.deleted_file, deleted.prev_content) == ("n.txt", "x\ny\n")
    kinds = [call.kind for call in runner.calls]
    assert kinds == ["grep", "grep", "glob", "write", "edit", "delete"]
    assert runner.calls[4].edits == (("a", "b"),)


def test_a_failure_and_a_refusal_answer_in_the_error_and_rejected_shapes(sim: Simulator) -> None:
    sim.agent.script(
        script(
            Native("read_args", {"path": "gone.txt"}),
            Native("write_args", {"path": "/etc/x", "file_text": "x"}),
        )
    )
    runner = Runner(
        {
            "read": NativeOutcome.failed("no such file: gone.txt"),
            "write": NativeOutcome.refused("the person declined"),
        }
    )
    result = lane.stream_round_sync(
        ctx(sim, [{"role": "user", "content": "go"}], run_native=runner, native_kinds=ALL_KINDS)
    )
    # ReadResult{2 error{1 path, 2 error}} as member 7; WriteResult{6 rejected{1 path, 2 reason}}
    failed = ld(7, ld(2, text(1, "gone.txt"), text(2, "no such file: gone.txt")))
    ask, got = exec_answer(sim, 0)
    assert got == [head(ask) + failed + exec_id(ask)]
    refused = ld(3, ld(6, text(1, "/etc/x"), text(2, "the person declined")))
    ask, got = exec_answer(sim, 1)
    assert got == [head(ask) + refused + exec_id(ask)]
    tools = [m for m in result.messages if m["role"] == "tool"]
    assert [t["is_error"] for t in tools] == [True, True]
    assert [t["content"] for t in tools] == ["no such file: gone.txt", "the person declined"]


def test_a_kind_not_served_is_refused_as_today_and_recorded(sim: Simulator) -> None:
    sim.agent.script(script(Native("read_args", {"path": "a", "tool_call_id": "r1"})))
    runner = Runner({})
    parts: list[StreamPart] = []
    result = lane.stream_round_sync(
        ctx(
            sim,
            [{"role": "user", "content": "go"}],
            run_native=runner,
            native_kinds=frozenset({"shell"}),
            on_part=parts.append,
        )
    )
    assert runner.calls == []
    # Today's refusal, byte for byte: ReadResult{3 rejected{1 path, 2 reason}}.
    rejected = ld(7, ld(3, text(1, "a"), text(2, "Tool not available")))
    ask, got = exec_answer(sim, 0)
    assert got == [head(ask) + rejected + exec_id(ask)]
    assert result.messages[0]["tool_calls"][0]["resolved"] is True
    assert result.messages[1] == {
        "role": "tool",
        "tool_call_id": "r1",
        "content": "Tool not available",
        "resolved": True,
        "is_error": True,
    }
    assert [p.by for p in parts if isinstance(p, ResolvedCallStart)] == ["cell"]


def test_text_before_a_resolved_call_stays_before_it(sim: Simulator) -> None:
    sim.agent.script(
        [
            AskRequestContext(),
            KvRead(),
            Text("Let me look. "),
            Native("read_args", {"path": "a", "tool_call_id": "r1"}),
            Text("It says hi."),
            StepCompleted(),
            TurnEnded(input=10, output=2),
            Checkpoint(),
            End(),
        ]
    )
    runner = Runner({"read": NativeOutcome.done("hi")})
    result = lane.stream_round_sync(
        ctx(sim, [{"role": "user", "content": "go"}], run_native=runner, native_kinds=ALL_KINDS)
    )
    assert [m.get("content") for m in result.messages] == ["Let me look. ", "hi", "It says hi."]
    assert result.message == {"role": "assistant", "content": "It says hi."}


def test_a_runner_that_raises_fails_the_call_not_the_round(sim: Simulator) -> None:
    sim.agent.script(script(Native("read_args", {"path": "a"})))

    async def runner(call: NativeCall) -> NativeOutcome:
        raise RuntimeError("disk on fire")

    result = lane.stream_round_sync(
        ctx(sim, [{"role": "user", "content": "go"}], run_native=runner, native_kinds=ALL_KINDS)
    )
    answer = sim.agent.run().native_results[0][1]
    assert answer.error.error == "RuntimeError: disk on fire"
    assert result.messages[1]["is_error"] is True


def test_a_slow_tool_does_not_run_out_the_idle_deadline(sim: Simulator) -> None:
    # While the tool runs the service only beats; the run stays open past the request
    # timeout, since the deadline waits for the tool (heartbeats alone would end it).
    sim.agent.script(script(Native("read_args", {"path": "a"}, beat=0.1)))

    async def runner(call: NativeCall) -> NativeOutcome:
        await asyncio.sleep(1.2)  # the slow tool is what is tested: twice the idle timeout
        return NativeOutcome.done("late")

    result = lane.stream_round_sync(
        ctx(
            sim,
            [{"role": "user", "content": "go"}],
            run_native=runner,
            native_kinds=ALL_KINDS,
            request_timeout=0.6,
        )
    )
    assert result.messages[1]["content"] == "late"
    assert sim.agent.violations() == []


# --- cancellation -------------------------------------------------------------------------------


def test_cancelling_the_round_mid_tool_stops_the_tool_and_leaves_nothing(
    sim: Simulator,
) -> None:
    sim.agent.script(script(Native("shell_args", {"command": "sleep 30"})))
    pids: list[int] = []
    started = asyncio.Event()
    cancelled: list[bool] = []

    async def runner(call: NativeCall) -> NativeOutcome:
        process = await asyncio.create_subprocess_exec("sleep", "30", start_new_session=True)
        pids.append(process.pid)
        started.set()
        try:
            await process.wait()
        except asyncio.CancelledError:
            cancelled.append(True)
            os.killpg(process.pid, signal.SIGKILL)
            await process.wait()
            raise
        return NativeOutcome.done("never")

    async def main() -> None:
        round_task = asyncio.create_task(
            lane.stream_round(
                ctx(
                    sim,
                    [{"role": "user", "content": "go"}],
                    run_native=runner,
                    native_kinds=ALL_KINDS,
                )
            )
        )
        await asyncio.wait_for(started.wait(), 60)  # only stops a hung test
        round_task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await round_task

    asyncio.run(main())
    assert cancelled == [True]
    (pid,) = pids
    assert gone(pid), "the tool's process outlived the round"
    # The leak check (conftest) fails the test if any task or thread is left behind.


# --- the record across rounds ------------------------------------------------------------------


def test_resolved_calls_replay_next_round_as_completed_steps(sim: Simulator) -> None:
    sim.agent.script(script(Native("read_args", {"path": "a.txt", "tool_call_id": "r1"})))
    runner = Runner({"read": NativeOutcome.done("alpha")})
    session = f"s-{uuid.uuid4()}"
    first = lane.stream_round_sync(
        ctx(
            sim,
            [{"role": "user", "content": "read a.txt"}],
            run_native=runner,
            native_kinds=ALL_KINDS,
            session_id=session,
        )
    )
    history = [{"role": "user", "content": "read a.txt"}, *first.messages]
    history.append({"role": "user", "content": "and now?"})
    second = lane.stream_round_sync(ctx(sim, history, session_id=session))
    assert second.finish_reason == "stop"
    roots = sim.agent.run().root_messages()
    call = next(m for m in roots if m["role"] == "assistant" and len(m["content"]) == 1)
    assert call["content"][0] == {
        "type": "tool-call",
        "toolCallId": "r1",
        "toolName": "read",
        "args": {"path": "a.txt"},
    }
    result = next(m for m in roots if m["role"] == "tool")
    assert result["content"][0]["result"] == "alpha"
    assert second.messages[-1] is second.message
    assert json.loads(first.messages[0]["tool_calls"][0]["function"]["arguments"]) == {
        "path": "a.txt"
    }


def test_an_answer_that_is_no_typed_result_ends_the_run_with_an_error(sim: Simulator) -> None:
    # The cell answers an ask it does not know with a throw: not the result the service
    # waits for, so the simulator ends the stream with an error, as the service would.
    from nodecode_cursor.errors import CursorError

    sim.agent.script(script(Native("git_diff_request")))
    with pytest.raises(CursorError) as caught:
        lane.stream_round_sync(ctx(sim, [{"role": "user", "content": "go"}]))
    assert "answered with a throw" in str(caught.value)
    assert any("git_diff_request" in v for v in sim.agent.violations())


def test_a_call_asked_again_is_answered_from_its_first_run(sim: Simulator) -> None:
    # After a resumed run the service may ask the same call again: a command must not
    # run twice, so the repeat gets the first outcome.
    ask = {"command": "touch once", "tool_call_id": "c-once"}
    sim.agent.script(script(Native("shell_args", ask), Native("shell_args", ask)))
    runner = Runner({"shell": NativeOutcome.done("", exit_code=0, stdout="", duration_ms=3)})
    parts: list[StreamPart] = []
    lane.stream_round_sync(
        ctx(
            sim,
            [{"role": "user", "content": "run"}],
            run_native=runner,
            native_kinds=ALL_KINDS,
            on_part=parts.append,
        )
    )
    assert [call.command for call in runner.calls] == ["touch once"]  # ran once
    first, again = (exec_answer(sim, index) for index in (0, 1))
    # The same result, each under its own ask id and exec id.
    assert first[1][0].removeprefix(head(first[0])).replace(exec_id(first[0]), b"") == (
        again[1][0].removeprefix(head(again[0])).replace(exec_id(again[0]), b"")
    )
    assert sum(isinstance(p, ResolvedCallStart) for p in parts) == 1
    assert sim.agent.violations() == []
