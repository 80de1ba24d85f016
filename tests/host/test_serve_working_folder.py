"""Bridged asks run in the folder the `serve` client works in, never serve's own.

`serve` is started in one folder and the client works in another: a native read of
a relative path and a native shell are handed to the client's own tools, over raw
HTTP against `serve` on the simulator. The client says its folder in a header or
in its prompt; when it says none, paths stay relative and no folder is named.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from served import served

from cursor_simulator import Simulator
from nodecode_host.working_folder import client_folder

MODEL = "composer-2.5"
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "read",
            "description": "Read a file",
            "parameters": {
                "type": "object",
                "properties": {"path": {"type": "string"}},
                "required": ["path"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "shell",
            "description": "Run a command",
            "parameters": {
                "type": "object",
                "properties": {"command": {"type": "string"}, "workdir": {"type": "string"}},
                "required": ["command"],
            },
        },
    },
]


@pytest.fixture
def folders(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """Return (serve's folder, the client's folder); the test runs in serve's."""
    serve_dir, client_dir = tmp_path / "serve-here", tmp_path / "project"
    serve_dir.mkdir()
    client_dir.mkdir()
    monkeypatch.chdir(serve_dir)
    return serve_dir, client_dir


def bridged_call(
    sim: Simulator,
    home: Path,
    monkeypatch: pytest.MonkeyPatch,
    prompt: str,
    *,
    system: str | None = None,
    headers: dict[str, str] | None = None,
) -> dict[str, Any]:
    """Return the arguments of the one tool call `serve` answers PROMPT with."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": prompt}]
    if system is not None:
        messages.insert(0, {"role": "system", "content": system})
    body = {"model": MODEL, "messages": messages, "tools": TOOLS}
    with served(sim, home, monkeypatch) as api, httpx.Client(timeout=60) as client:
        answer = client.post(api.url + "/chat/completions", json=body, headers=headers or {})
    assert answer.status_code == 200, answer.text
    (call,) = answer.json()["choices"][0]["message"]["tool_calls"]
    arguments: dict[str, Any] = json.loads(call["function"]["arguments"])
    return arguments


def test_a_relative_read_resolves_in_the_folder_claude_codes_prompt_names(
    sim: Simulator, home: Path, monkeypatch: pytest.MonkeyPatch, folders: tuple[Path, Path]
) -> None:
    _, client_dir = folders
    system = f"You are Claude Code.\n<env>\nWorking directory: {client_dir}\n</env>"
    arguments = bridged_call(
        sim, home, monkeypatch, 'native read {"path": "notes.txt"}', system=system
    )
    assert arguments == {"path": str(client_dir / "notes.txt")}


def test_a_shell_runs_in_the_folder_the_header_names(
    sim: Simulator, home: Path, monkeypatch: pytest.MonkeyPatch, folders: tuple[Path, Path]
) -> None:
    _, client_dir = folders
    arguments = bridged_call(
        sim,
        home,
        monkeypatch,
        'native shell {"command": "ls"}',
        headers={"x-working-directory": str(client_dir)},
    )
    assert arguments["command"] == "ls"
    assert arguments["workdir"] == str(client_dir)


def test_without_a_folder_paths_stay_relative_and_no_folder_is_named(
    sim: Simulator, home: Path, monkeypatch: pytest.MonkeyPatch, folders: tuple[Path, Path]
) -> None:
    serve_dir, _ = folders
    read = bridged_call(sim, home, monkeypatch, 'native read {"path": "notes.txt"}')
    assert read == {"path": "notes.txt"}
    shell = bridged_call(sim, home, monkeypatch, 'native shell {"command": "ls"}')
    assert shell["command"] == "ls"
    assert "workdir" not in shell
    assert str(serve_dir) not in json.dumps([read, shell])


def test_each_clients_way_of_saying_its_folder(tmp_path: Path) -> None:
    folder = str(tmp_path)
    said = {
        "claude code / opencode": f"<env>\n  Working directory: {folder}\n</env>",
        "pi": f"Current working directory: {folder}",
        "qwen-code": f"I'm currently working in the directory: {folder}",
        "codex": f"<environment_context>\n  <cwd>{folder}</cwd>\n</environment_context>",
    }
    for client, text in said.items():
        assert client_folder({}, None, [{"role": "user", "content": text}]) == folder, client
    # The header wins; a folder that does not exist, or holds a control character, is no
    # folder; nothing said is "".
    other = tmp_path / "other"
    other.mkdir()
    text = said["pi"]
    assert client_folder({"x-working-directory": str(other)}, text, []) == str(other)
    assert client_folder({}, "Working directory: /no/such/folder/here", []) == ""
    assert client_folder({"x-working-directory": f"{folder}\n/etc"}, None, []) == ""
    assert client_folder({}, None, [{"role": "assistant", "content": text}]) == ""
    assert client_folder({}, "You are a helpful assistant.", []) == ""
