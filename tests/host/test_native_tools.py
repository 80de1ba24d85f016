"""The reference host runs Cursor's own tools in place: ask, chat, the turn loop, the runner.

Every test drives the real CLI or the real lane against the simulator on loopback;
the simulator's scripted model asks for a native tool with ``native KIND {args}``.
"""

from __future__ import annotations

import asyncio
import json
import os
import uuid
from pathlib import Path
from typing import Any

import pytest
from cli_run import ask_json, cli_env, close_chat, run_main, spawn_chat

from cursor_simulator import Simulator
from cursor_simulator.agent import RUN_PATH
from nodecode_cursor.host import NativeCall, RoundContext
from nodecode_cursor.lanes import lane
from nodecode_host.host_tools import HostTools
from nodecode_host.native_tools import NativeTools


def resolved(answer: dict[str, Any]) -> list[dict[str, Any]]:
    """Return the resolved tool messages of an ``ask --json`` answer, in order."""
    return [m for m in answer["messages"] if m["role"] == "tool" and m.get("resolved") is True]


def test_ask_reads_in_place_in_one_round(sim: Simulator, home: Path, tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("alpha\nbeta\n")
    answer = ask_json(sim, home, 'native read {"path": "notes.txt"}', cwd=tmp_path)
    assert answer["rounds"] == 1
    call, tool, last = answer["messages"]
    entry = call["tool_calls"][0]
    assert entry["resolved"] is True and entry["function"]["name"] == "read"
    assert json.loads(entry["function"]["arguments"]) == {"path": "notes.txt"}
    assert tool["content"] == "alpha\nbeta\n" and "is_error" not in tool
    assert last == answer["message"]
    # The service saw the typed success and continued the same run from it.
    success = sim.agent.run().native_results[0][1].success
    assert (success.content, success.total_lines, success.file_size) == ("alpha\nbeta\n", 2, 11)
    assert '"content":"alpha\\nbeta\\n"' in answer["message"]["content"]
    assert sim.agent.violations() == []


def test_ask_with_native_tools_off_hands_a_native_read_to_its_own_read_file(
    sim: Simulator, home: Path, tmp_path: Path
) -> None:
    (tmp_path / "notes.txt").write_text("alpha\n")
    answer = ask_json(
        sim, home, "--native-tools", "off", 'native read {"path": "notes.txt"}', cwd=tmp_path
    )
    # Not run in place: handed to the host's own read_file (bridge.py), which its loop ran.
    assert not resolved(answer)
    calls = [c for m in answer["messages"] for c in m.get("tool_calls") or []]
    assert [c["function"]["name"] for c in calls] == ["read_file"]
    assert "external client" in sim.agent.runs[0].native_results[0][1].rejected.reason
    assert "alpha" in answer["messages"][-1]["content"]


def test_tools_from_none_leave_native_tools_off_unless_asked(
    sim: Simulator, home: Path, tmp_path: Path
) -> None:
    (tmp_path / "n.txt").write_text("x")
    off = ask_json(sim, home, "--tools", "none", 'native read {"path": "n.txt"}', cwd=tmp_path)
    assert resolved(off)[0]["content"] == "Tool not available"
    on = ask_json(
        sim,
        home,
        "--tools",
        "none",
        "--native-tools",
        "on",
        'native read {"path": "n.txt"}',
        cwd=tmp_path,
    )
    assert resolved(on)[0]["content"] == "x"


def test_the_config_setting_turns_them_off(sim: Simulator, home: Path, tmp_path: Path) -> None:
    (home / "config.json").write_text(json.dumps({"native_tools": "off"}))
    (tmp_path / "n.txt").write_text("x")
    answer = ask_json(sim, home, 'native read {"path": "n.txt"}', cwd=tmp_path)
    # Not run in place (that would be a resolved call): handed to the host's read_file.
    assert not resolved(answer)
    calls = [c for m in answer["messages"] for c in m.get("tool_calls") or []]
    assert [c["function"]["name"] for c in calls] == ["read_file"]
    (home / "config.json").write_text(json.dumps({"native_tools": True}))
    done = run_main("--base-url", sim.url, "ask", "hi", env=cli_env(home), cwd=tmp_path)
    assert done.returncode == 2
    assert '"native_tools"' in done.stderr and "not true or false" in done.stderr


def test_writes_need_a_yes_and_stay_inside_the_folder(
    sim: Simulator, home: Path, tmp_path: Path
) -> None:
    prompt = 'native write {"path": "out.txt", "content": "made\\n"}'
    refused = ask_json(sim, home, prompt, cwd=tmp_path)
    assert "nobody can be asked" in resolved(refused)[0]["content"]
    assert not (tmp_path / "out.txt").exists()
    assert sim.agent.run().native_results[0][1].HasField("rejected")
    allowed = ask_json(sim, home, "--yes", prompt, cwd=tmp_path)
    assert (tmp_path / "out.txt").read_text() == "made\n"
    assert resolved(allowed)[0]["content"] == "wrote 5 bytes to out.txt"
    outside = ask_json(sim, home, 'native delete {"path": "../elsewhere.txt"}', cwd=tmp_path)
    assert "outside the working directory" in resolved(outside)[0]["content"]


def test_grep_glob_ls_edit_and_delete_run_on_the_host_tools(
    sim: Simulator, home: Path, tmp_path: Path
) -> None:
    tmp_path = tmp_path / "work"  # the home lives beside it, not in it
    tmp_path.mkdir()
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.py").write_text("Name = 1\nother = 2\n")
    (tmp_path / "b.txt").write_text("old words\n")
    grep = ask_json(sim, home, 'native grep {"pattern": "Name"}', cwd=tmp_path)
    assert resolved(grep)[0]["content"] == "src/a.py:1: Name = 1"
    union = sim.agent.run().native_results[0][1].success.workspace_results["."]
    assert union.content.matches[0].file == "src/a.py"
    glob = ask_json(sim, home, 'native glob {"pattern": "*.py"}', cwd=tmp_path)
    assert resolved(glob)[0]["content"] == "src/a.py"
    listing = ask_json(sim, home, 'native ls {"path": "."}', cwd=tmp_path)
    assert resolved(listing)[0]["content"] == "b.txt\nsrc/"
    edit = ask_json(
        sim,
        home,
        "--yes",
        'native edit {"path": "b.txt", "old": "old", "new": "new"}',
        cwd=tmp_path,
    )
    assert (tmp_path / "b.txt").read_text() == "new words\n"
    assert resolved(edit)[0]["content"] == "edited b.txt (1 change)"
    gone = ask_json(sim, home, "--yes", 'native delete {"path": "b.txt"}', cwd=tmp_path)
    assert not (tmp_path / "b.txt").exists()
    assert sim.agent.run().native_results[0][1].success.prev_content == "new words\n"
    assert "deleted b.txt" in resolved(gone)[0]["content"]


def test_a_failing_read_answers_the_error_shape(sim: Simulator, home: Path, tmp_path: Path) -> None:
    answer = ask_json(sim, home, 'native read {"path": "missing.txt"}', cwd=tmp_path)
    [tool] = resolved(answer)
    assert tool["is_error"] is True and "missing.txt" in tool["content"]
    assert sim.agent.run().native_results[0][1].error.path == "missing.txt"


def test_the_turn_loop_keeps_resolved_calls_and_replays_them_next_turn(
    sim: Simulator, home: Path, tmp_path: Path
) -> None:
    (tmp_path / "n.txt").write_text("kept")
    first = ask_json(sim, home, 'native read {"path": "n.txt"}', cwd=tmp_path)
    history = tmp_path / "history.json"
    history.write_text(
        json.dumps(
            [{"role": "user", "content": 'native read {"path": "n.txt"}'}, *first["messages"]]
        )
    )
    second = ask_json(sim, home, "--history", str(history), "what now?", cwd=tmp_path)
    # One round, nothing run again: the resolved call replays as a completed step.
    assert second["rounds"] == 1 and resolved(second) == []
    roots = sim.agent.run().root_messages()
    results = [m for m in roots if m["role"] == "tool"]
    assert results[0]["content"][0]["result"] == "kept"
    assert results[0]["content"][0]["toolName"] == "read"


def test_a_host_that_ignores_the_flag_still_holds_a_valid_history(
    sim: Simulator, tmp_path: Path
) -> None:
    # A host knowing nothing of "resolved": it appends the round's messages and goes on.
    (tmp_path / "n.txt").write_text("v")
    runner = NativeTools(HostTools(tmp_path))
    session = f"s-{uuid.uuid4()}"

    def round_(messages: list[dict[str, Any]], **kw: Any) -> Any:
        return lane.stream_round_sync(
            RoundContext(
                model="claude-4.5-sonnet",
                messages=messages,
                credential="t",
                base_url=sim.url,
                session_id=session,
                cwd=str(tmp_path),
                **kw,
            )
        )

    history: list[dict[str, Any]] = [{"role": "user", "content": 'native read {"path": "n.txt"}'}]
    first = round_(history, run_native=runner, native_kinds=runner.kinds)
    history.extend(first.messages)
    # Every tool_calls entry is answered by the tool message right after it.
    for index, message in enumerate(history):
        for call in message.get("tool_calls") or []:
            assert history[index + 1] == {**history[index + 1], "tool_call_id": call["id"]}
    assert first.finish_reason == "stop" and "tool_calls" not in first.message
    history.append({"role": "user", "content": "thanks"})
    second = round_(history)
    assert second.message["content"] == "Simulated Cursor here. You said: thanks"
    assert sim.agent.violations() == []


def test_cancelling_a_command_stops_its_process_group(sim: Simulator, tmp_path: Path) -> None:
    runner = NativeTools(HostTools(tmp_path, assume_yes=True))
    marker = tmp_path / "pid"
    os.mkfifo(marker)  # reading it waits for the command to write its pid
    call = NativeCall(
        "shell", "c1", command=f"echo $$ > {marker}; exec sleep 30", cwd=str(tmp_path)
    )

    async def main() -> int:
        task = asyncio.create_task(runner(call))
        pid = int(await asyncio.to_thread(marker.read_text))
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        return pid

    pid = asyncio.run(main())
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


def test_chat_confirms_and_declines_a_native_command(
    sim: Simulator, home: Path, tmp_path: Path
) -> None:
    child = spawn_chat(sim, home, tmp_path)
    try:
        child.expect("> ")
        child.sendline('native shell {"command": "echo native-$((6*7))"}')
        child.expect(r"shell\(.*\) \(run in place\)")
        child.expect(r"the model asks to run this command:\r?\n  echo native-\$\(\(6\*7\)\)")
        child.expect(r"run it\? \[y/N\]")
        child.sendline("y")
        child.expect("exit code 0")
        child.expect("shell gave:")
        child.expect("native-42")
        child.expect(r"context 100 / [\d,]+")
        child.expect("> ")
        child.sendline('native shell {"command": "echo never"}')
        child.expect(r"the model asks to run this command:\r?\n  echo never")
        child.expect(r"run it\? \[y/N\]")
        child.sendline("n")
        child.expect("the person declined")
        child.expect("> ")
        close_chat(child)
    finally:
        child.close(force=True)
    # One round per turn: the command ran in place, not handed off.
    assert len(sim.requests_to(RUN_PATH)) == 2
    declined = sim.agent.run().native_results[0][1]
    assert declined.rejected.reason == "the person declined"


def test_chat_shows_a_waiting_line_while_a_native_command_runs(
    sim: Simulator, home: Path, tmp_path: Path
) -> None:
    fifo = tmp_path / "gate"
    os.mkfifo(fifo)
    child = spawn_chat(sim, home, tmp_path)
    try:
        child.expect("> ")
        child.sendline(f'native shell {{"command": "cat {fifo}"}}')
        child.expect(r"run it\? \[y/N\]")
        child.sendline("y")
        # cat waits on the FIFO until the test writes it: the line shows meanwhile.
        child.expect(r"running shell… \d+s")
        with open(fifo, "w") as gate:
            gate.write("gate-opened\n")
        child.expect(r"\r +\r")
        child.expect("gate-opened")
        child.expect("> ")
        close_chat(child)
    finally:
        child.close(force=True)
