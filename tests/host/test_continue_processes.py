"""A tool turn finished across processes: ``ask`` twice, ``serve`` restarted, a host split in two.

Every round here runs in a process of its own against the simulator (which lives
in the test process and records what each run carried); what one process knows
of the conversation reaches the next only through the home's
``cursor-conversations.sqlite``. None of them may redo the finished tool call.
"""

from __future__ import annotations

import json
import socket
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from cli_run import RUN_TIMEOUT, cli_env, json_object, run_cli, running_serve

from cursor_simulator import Simulator
from nodecode_cursor.storage.conversation_store import FILE_NAME

SECRET = "the secret word is heliotrope"
PROMPT = 'Use read_file with {"path": "notes.txt"}'
# ConversationAction{2 resume_action{}}
RESUME = b"\x12\x00"
# Cursor's own model, which resumes after tool results (an external one goes on with a
# user message of ours: docs/protocol.md §7b): what these tests follow is the resume.
MODEL = "composer-2.5-fast"


def action(sim: Simulator, index: int = -1) -> bytes:
    """Return the action bytes of a run the simulator saw."""
    request = sim.agent.run(index).run_request
    assert request is not None
    return bytes(request.action.SerializeToString())


def wire_id(sim: Simulator, index: int = -1) -> str:
    """Return the conversation id a run the simulator saw carried."""
    request = sim.agent.run(index).run_request
    assert request is not None
    return str(request.conversation_id)


def ask(sim: Simulator, home: Path, cwd: Path, *args: str) -> dict[str, Any]:
    """Return what ``ask --json --max-rounds 1 ARGS`` printed, run as a process of its own."""
    done = run_cli(
        "--base-url",
        sim.url,
        "ask",
        "--model",
        MODEL,
        "--json",
        "--max-rounds",
        "1",
        *args,
        env=cli_env(home),
        cwd=cwd,
    )
    assert done.returncode == 0, done.stderr + done.stdout
    return json_object(done.stdout)


def no_text_on_disk(home: Path, *texts: str) -> None:
    """Check the conversation table is 0600 and holds none of TEXTS."""
    path = home / FILE_NAME
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    data = path.read_bytes()
    for said in texts:
        assert said.encode() not in data


@pytest.mark.parametrize("session", [None, "s1"])
def test_the_readmes_scripted_resume_finishes_in_one_more_process(
    sim: Simulator, home: Path, tmp_path: Path, session: str | None
) -> None:
    (tmp_path / "notes.txt").write_text(SECRET + "\n")
    given = ["--session", session] if session else []
    first = ask(sim, home, tmp_path, *given, PROMPT)
    assert first["finish_reason"] == "tool_calls"
    [call] = first["message"]["tool_calls"]
    # The script runs the tool and appends its result, as the README says.
    history = [
        {"role": "user", "content": PROMPT},
        *first["messages"],
        {"role": "tool", "tool_call_id": call["id"], "content": SECRET},
    ]
    (tmp_path / "h.json").write_text(json.dumps(history))
    second = ask(sim, home, tmp_path, *given, "--history", str(tmp_path / "h.json"))
    assert second["finish_reason"] == "stop"
    assert second["message"]["content"] == f"read_file returned: {SECRET}"
    # The new process resumed the conversation the first one ran: the same wire id.
    assert action(sim) == RESUME
    assert wire_id(sim, -1) == wire_id(sim, -2)
    assert len(sim.agent.runs) == 2
    assert sim.agent.violations() == []
    no_text_on_disk(home, PROMPT, SECRET, "notes.txt", "heliotrope")


# A host that runs one session's rounds in separate processes: each process starts the
# cell on a MemoryHost in the same home and runs one round of the lane.
HOST_ROUND = """
import asyncio, json, sys
from pathlib import Path
from nodecode_cursor.cell import CursorCell
from nodecode_cursor.host import MemoryHost, RoundContext

home, url, session = sys.argv[1], sys.argv[2], sys.argv[3]
messages = json.loads(sys.stdin.read())
tools = [{"type": "function", "function": {"name": "read_file", "description": "read a file",
          "parameters": {"type": "object", "properties": {"path": {"type": "string"}},
                         "required": ["path"]}}}]
cell = CursorCell()
assert cell.start(MemoryHost(Path(home), {"cursor": {"base_url": url}}))
ctx = RoundContext(model="composer-2.5-fast", messages=messages, tools=tools, session_id=session,
                   credential="sim-token-host-rounds")
from nodecode_cursor.errors import CursorError
try:
    result = asyncio.run(cell.stream_round(ctx))
except CursorError as exc:
    print(json.dumps({"error": type(exc).__name__, "code": exc.code}))
else:
    print(json.dumps({"message": result.message, "finish_reason": result.finish_reason}))
cell.stop()
"""


def host_round(sim: Simulator, home: Path, session: str, messages: list[Any]) -> dict[str, Any]:
    """Return one round of the lane run by a host process of its own on SESSION."""
    done = subprocess.run(
        [sys.executable, "-c", HOST_ROUND, str(home), sim.url, session],
        input=json.dumps(messages),
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT,
    )
    assert done.returncode == 0, done.stderr
    return json_object(done.stdout)


def test_a_host_running_one_sessions_rounds_in_two_processes_goes_on(
    sim: Simulator, home: Path
) -> None:
    opening = [{"role": "user", "content": PROMPT}]
    first = host_round(sim, home, "shared", opening)
    assert first["finish_reason"] == "tool_calls"
    [call] = first["message"]["tool_calls"]
    history = [
        *opening,
        first["message"],
        {"role": "tool", "tool_call_id": call["id"], "content": SECRET},
    ]
    second = host_round(sim, home, "shared", history)
    assert second["finish_reason"] == "stop"
    assert second["message"]["content"] == f"read_file returned: {SECRET}"
    assert action(sim) == RESUME and wire_id(sim, -1) == wire_id(sim, -2)
    # A side request on the same session (its earlier messages differ) is a conversation
    # of its own and leaves the session's as it was.
    side = host_round(sim, home, "shared", [{"role": "user", "content": "a title, please"}])
    assert side["finish_reason"] == "stop"
    assert wire_id(sim) != wire_id(sim, -2)
    later = [*history, second["message"], {"role": "user", "content": "thanks"}]
    host_round(sim, home, "shared", later)
    assert wire_id(sim) == wire_id(sim, -3)
    assert sim.agent.violations() == []


def free_port() -> int:
    """Return a loopback port nobody listens on now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


READ_FILE = {
    "type": "function",
    "function": {
        "name": "read_file",
        "description": "read a file",
        "parameters": {
            "type": "object",
            "properties": {"path": {"type": "string"}},
            "required": ["path"],
        },
    },
}


def served_completion(
    sim: Simulator, home: Path, messages: list[Any], headers: dict[str, str]
) -> Any:
    """Return the openai SDK's chat completion from a ``serve`` process started for it alone."""
    from openai import OpenAI

    port = free_port()
    with running_serve(sim, home, "--port", str(port)):
        client = OpenAI(base_url=f"http://127.0.0.1:{port}/v1", api_key="unused", max_retries=0)
        return client.chat.completions.create(
            model=f"cursor/{MODEL}",
            messages=messages,
            tools=[READ_FILE],  # type: ignore[list-item]
            extra_headers=headers,
        )


@pytest.mark.parametrize("session", [None, "client-7"])
def test_serve_restarted_between_a_tool_call_and_its_result_goes_on(
    sim: Simulator, home: Path, session: str | None
) -> None:
    headers = {"x-session-id": session} if session else {}
    messages: list[Any] = [{"role": "user", "content": PROMPT}]
    first = served_completion(sim, home, messages, headers)
    choice = first.choices[0]
    assert choice.finish_reason == "tool_calls"
    assert choice.message.tool_calls is not None
    [call] = choice.message.tool_calls
    messages += [
        choice.message.model_dump(exclude_none=True),
        {"role": "tool", "tool_call_id": call.id, "content": SECRET},
    ]
    # a new serve process on the same home, the client sending the whole history
    second = served_completion(sim, home, messages, headers)
    assert second.choices[0].finish_reason == "stop"
    assert second.choices[0].message.content == f"read_file returned: {SECRET}"
    assert action(sim) == RESUME and wire_id(sim, -1) == wire_id(sim, -2)
    assert sim.agent.violations() == []
    no_text_on_disk(home, PROMPT, SECRET)


def test_rotations_and_their_cap_count_across_processes(sim: Simulator, home: Path) -> None:
    from cursor_simulator.steps import EndError

    hello = [{"role": "user", "content": "hello"}]
    for _ in range(3):  # limits.MAX_ROTATIONS, each in processes of their own
        sim.agent.script([EndError("resource_exhausted", "")])
        assert host_round(sim, home, "capped", hello)["error"] == "ResourceExhausted"
        refused = wire_id(sim)
        # The next process goes out under the id the last one rotated to: one the
        # service never ran, so it is started, not resumed.
        assert host_round(sim, home, "capped", hello)["finish_reason"] == "stop"
        assert wire_id(sim) != refused and sim.agent.run().prompt() == "hello"
    ids = [r.run_request.conversation_id for r in sim.agent.runs]  # type: ignore[union-attr]
    assert len(set(ids)) == 4  # the first id and three rotations, not three per process
    sim.agent.script([EndError("resource_exhausted", "")])
    assert host_round(sim, home, "capped", hello)["code"] == "conversation_refused"
    assert host_round(sim, home, "capped", hello)["finish_reason"] == "stop"
    assert wire_id(sim) == ids[-1]  # no fourth rotation
