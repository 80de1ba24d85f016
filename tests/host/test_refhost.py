"""The reference host in-process: cell discovery and loading, veto, start/stop, the turn loop.

The cell here is a tiny one written by the test into a drop-in folder (a
``cell.toml`` and a module), whose lane plays scripted messages, so the loop's
own rules (tool results appended, rounds counted, usage summed, calls returned
unrun) are checked without a network. Whole rounds on the real cell are
``test_cli.py``'s.
"""

from __future__ import annotations

import json
import sys
import textwrap
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from nodecode_cursor.host import Host, TextDelta
from nodecode_host.cell_sources import ENTRY_POINT_GROUP, discover_cells
from nodecode_host.errors import HostConfigError
from nodecode_host.host_tools import HostTools
from nodecode_host.refhost import ReferenceHost
from nodecode_host.toolbox import FileTools, Toolbox
from nodecode_host.turn import Conversation, TurnObserver

TOY_CELL = """
from nodecode_cursor.host import RoundResult, StreamStart, TextDelta, Usage


class Command:
    def run(self, argline):
        return "toy: " + argline

    def complete(self, prefix):
        return [v for v in ("on", "off") if v.startswith(prefix)]


class Toy:
    provider = "toy"

    def __init__(self):
        self.host = None
        self.stopped = 0
        self.script = []
        self.seen = []

    def start(self, host):
        self.host = host
        host.notice("toy is on", key="toy")

    def stop(self):
        self.stopped += 1
        self.host = None

    @property
    def lanes(self):
        return {"toy": self.round} if self.host else {}

    @property
    def commands(self):
        return {"toy": Command()} if self.host else {}

    async def round(self, ctx):
        self.seen.append([dict(m) for m in ctx.messages])
        message = self.script.pop(0)
        ctx.on_part(StreamStart("toy-1"))
        if message.get("content"):
            ctx.on_part(TextDelta(message["content"]))
        reason = "tool_calls" if message.get("tool_calls") else "stop"
        return RoundResult(message, Usage(input=10, output=2), reason, wire_model="toy-1")


cell = Toy()
"""


def tool_call(name: str, arguments: dict[str, Any], call_id: str = "call_1") -> dict[str, Any]:
    """Return an assistant message asking for one tool call."""
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": call_id,
                "type": "function",
                "function": {"name": name, "arguments": json.dumps(arguments)},
            }
        ],
    }


@pytest.fixture
def toy_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Return a home holding the toy cell as a drop-in folder (a fresh module name per test)."""
    monkeypatch.setattr(sys, "path", list(sys.path))
    module = f"toycell_{uuid.uuid4().hex[:8]}"
    folder = tmp_path / "home" / "cells" / "toy"
    folder.mkdir(parents=True)
    (folder / f"{module}.py").write_text(TOY_CELL)
    (folder / "cell.toml").write_text(
        textwrap.dedent(
            f"""
            name = "toy-cell"
            entry = "{module}:cell"
            [config.toy]
            greeting = "hello"
            mood = "calm"
            """
        )
    )
    yield tmp_path / "home"
    sys.modules.pop(module, None)


def started(home: Path, **kwargs: Any) -> ReferenceHost:
    """Return a host on HOME with its folder cells started (entry points ignored)."""
    host = ReferenceHost(home, say=lambda _: None, **kwargs)
    host.start(entry_points=False)
    return host


def test_a_folder_cell_is_loaded_started_and_stopped(toy_home: Path) -> None:
    host = started(toy_home)
    assert isinstance(host, Host)
    (loaded,) = host.cells
    assert loaded.source.origin == "folder" and loaded.source.name == "toy-cell"
    assert loaded.started and loaded.module_file is not None
    assert Path(loaded.module_file).parent == toy_home / "cells" / "toy"
    assert set(host.lanes) == {"toy"}
    assert host.command("toy").run("on") == "toy: on"
    assert [n.text for n in host.notices()] == ["toy is on"]
    host.stop()
    assert loaded.cell.stopped == 1 and not loaded.started
    assert host.lanes == {} and host.commands == {} and host.notices() == []
    with pytest.raises(HostConfigError, match="no cell gives the toy lane"):
        host.lane("toy")


def test_config_layers_manifest_then_file_then_overrides(toy_home: Path) -> None:
    (toy_home / "config.json").write_text(json.dumps({"toy": {"mood": "bright", "x": 1}}))
    host = started(toy_home, overrides={"toy": {"x": 2}})
    try:
        assert dict(host.config("toy")) == {"greeting": "hello", "mood": "bright", "x": 2}
        assert dict(host.config("absent")) == {}
    finally:
        host.stop()


def test_a_config_veto_keeps_the_cell_out(toy_home: Path) -> None:
    (toy_home / "config.json").write_text(json.dumps({"toy": {"enabled": False}}))
    host = started(toy_home)
    try:
        (loaded,) = host.cells
        assert not loaded.started and loaded.vetoed_by == "toy"
        assert loaded.cell.host is None  # never started
        assert host.lanes == {} and host.commands == {} and host.notices() == []
        with pytest.raises(HostConfigError, match="disabled"):
            host.lane("toy")
        with pytest.raises(HostConfigError, match="disabled"):
            host.command("toy")
    finally:
        host.stop()
    assert loaded.cell.stopped == 0


def test_a_broken_manifest_is_reported_not_fatal(toy_home: Path) -> None:
    broken = toy_home / "cells" / "broken"
    broken.mkdir()
    (broken / "cell.toml").write_text("entry = 'no colon here'\n")
    host = started(toy_home)
    try:
        assert set(host.lanes) == {"toy"}
        assert len(host.problems) == 1 and "module:attr" in host.problems[0]
    finally:
        host.stop()


def test_a_cell_that_fails_to_import_is_reported(tmp_path: Path) -> None:
    folder = tmp_path / "cells" / "bad"
    folder.mkdir(parents=True)
    (folder / "cell.toml").write_text('entry = "module_that_is_not_there_xyz:cell"\n')
    host = started(tmp_path)
    assert host.cells == [] and "failed to load" in host.problems[0]
    with pytest.raises(HostConfigError, match="failed to load"):
        host.lane("cursor")


def test_the_installed_distribution_declares_the_entry_point(tmp_path: Path) -> None:
    sources, problems = discover_cells(tmp_path, entry_points=True)
    assert problems == []
    points = {(s.name, s.entry) for s in sources if s.origin == "entry point"}
    assert ("cursor", "nodecode_cursor.cell:cell") in points
    assert ENTRY_POINT_GROUP == "nodecode.cells"
    assert discover_cells(tmp_path, entry_points=False) == ([], [])


class Recorder(TurnObserver):
    def __init__(self) -> None:
        self.events: list[str] = []

    def part(self, part: Any) -> None:
        if isinstance(part, TextDelta):
            self.events.append(f"text:{part.text}")

    def tool_call(self, call: dict[str, Any]) -> None:
        self.events.append(f"call:{call['function']['name']}")

    def tool_result(self, call: dict[str, Any], text: str) -> None:
        self.events.append(f"result:{text}")


def test_the_turn_loop_runs_tools_until_the_model_stops(toy_home: Path, tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    (work / "only.txt").touch()
    host = started(toy_home)
    try:
        cell = host.cells[0].cell
        cell.script = [
            tool_call("list_directory", {}),
            {"role": "assistant", "content": "I see only.txt"},
        ]
        conversation = Conversation(model="m", messages=[{"role": "user", "content": "look"}])
        conversation.provider = "toy"
        seen = Recorder()
        outcome = host.run_turn(conversation, HostTools(work), observer=seen)
    finally:
        host.stop()
    assert outcome.finish_reason == "stop" and outcome.rounds == 2 and not outcome.interrupted
    assert outcome.message == {"role": "assistant", "content": "I see only.txt"}
    assert (outcome.usage.input, outcome.usage.output, outcome.usage.total) == (20, 4, 24)
    assert outcome.wire_model == "toy-1"
    assert [m["role"] for m in conversation.messages] == ["user", "assistant", "tool", "assistant"]
    assert conversation.messages[2] == {
        "role": "tool",
        "tool_call_id": "call_1",
        "content": "only.txt",
    }
    # Round 2 was asked with the tool's result in its history.
    assert cell.seen[1][-1]["content"] == "only.txt"
    assert seen.events == ["call:list_directory", "result:only.txt", "text:I see only.txt"]


def test_max_rounds_returns_the_calls_unrun(toy_home: Path, tmp_path: Path) -> None:
    host = started(toy_home)
    try:
        cell = host.cells[0].cell
        cell.script = [tool_call("run_command", {"command": "touch x"})]
        conversation = Conversation(model="m", messages=[{"role": "user", "content": "go"}])
        conversation.provider = "toy"
        tools = HostTools(tmp_path, assume_yes=True)
        outcome = host.run_turn(conversation, tools, max_rounds=1)
    finally:
        host.stop()
    assert outcome.finish_reason == "tool_calls" and outcome.rounds == 1
    assert [c["function"]["name"] for c in outcome.unrun] == ["run_command"]
    assert not (tmp_path / "x").exists()
    assert conversation.messages[-1]["role"] == "assistant"


@pytest.mark.parametrize(
    "tools", [Toolbox(), FileTools([{"type": "function", "function": {"name": "ext"}}])]
)
def test_calls_the_host_does_not_run_are_returned(toy_home: Path, tools: Toolbox) -> None:
    host = started(toy_home)
    try:
        host.cells[0].cell.script = [tool_call("ext", {"a": 1})]
        conversation = Conversation(model="m", messages=[{"role": "user", "content": "go"}])
        conversation.provider = "toy"
        outcome = host.run_turn(conversation, tools)
    finally:
        host.stop()
    assert outcome.finish_reason == "tool_calls" and outcome.rounds == 1
    assert outcome.unrun[0]["function"]["arguments"] == '{"a": 1}'


def test_a_call_to_a_tool_the_host_lacks_gets_an_error_result(
    toy_home: Path, tmp_path: Path
) -> None:
    host = started(toy_home)
    try:
        cell = host.cells[0].cell
        two = tool_call("list_directory", {})
        two["tool_calls"].append(
            {"id": "call_2", "type": "function", "function": {"name": "fly", "arguments": "{}"}}
        )
        cell.script = [two, {"role": "assistant", "content": "done"}]
        conversation = Conversation(model="m", messages=[{"role": "user", "content": "go"}])
        conversation.provider = "toy"
        outcome = host.run_turn(conversation, HostTools(tmp_path))
    finally:
        host.stop()
    assert outcome.rounds == 2
    results = {
        m["tool_call_id"]: m["content"] for m in conversation.messages if m["role"] == "tool"
    }
    assert results["call_2"] == "error: unknown tool 'fly'"


def test_a_tool_that_refuses_or_fails_gets_a_result_marked_is_error(
    toy_home: Path, tmp_path: Path
) -> None:
    (tmp_path / "here.txt").write_text("hello\n")
    host = started(toy_home)
    try:
        cell = host.cells[0].cell
        calls = tool_call("read_file", {"path": "here.txt"})
        calls["tool_calls"] += [
            {
                "id": "call_2",
                "type": "function",
                "function": {"name": "read_file", "arguments": "{}"},
            },
            {"id": "call_3", "type": "function", "function": {"name": "fly", "arguments": "{}"}},
            {
                "id": "call_4",
                "type": "function",
                "function": {"name": "read_file", "arguments": '{"path": "missing.txt"}'},
            },
        ]
        cell.script = [calls, {"role": "assistant", "content": "done"}]
        conversation = Conversation(model="m", messages=[{"role": "user", "content": "go"}])
        conversation.provider = "toy"
        host.run_turn(conversation, HostTools(tmp_path))
    finally:
        host.stop()
    results = [m for m in conversation.messages if m["role"] == "tool"]
    # The result that worked carries no flag at all: exactly what a host sent before.
    assert set(results[0]) == {"role", "tool_call_id", "content"}
    # Refused (no path), unknown tool, and an error while running: each marked failed.
    assert [m.get("is_error") for m in results] == [None, True, True, True]
    assert results[1]["content"] == "error: path must be a non-empty string"
    # The next round was asked with the flag in its history.
    assert [m.get("is_error") for m in cell.seen[1] if m["role"] == "tool"] == [
        None,
        True,
        True,
        True,
    ]
    json.dumps(conversation.messages)  # still plain JSON
