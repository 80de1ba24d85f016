"""The agents people point at such a server, installed from npm as their users install them:
Claude Code (``claude -p``, Anthropic's Messages API) and Codex CLI (``codex exec``, the
Responses API), each against ``serve`` backed by the simulator.

In a temp folder holding a note, the simulator's scripted model asks for one of
the agent's own tools (Claude Code's ``Read``, Codex's ``exec_command``) with
arguments that read the note; the agent runs it and sends the result back; the
model answers from the result, and the agent prints that answer.

Nothing leaves the machine: the proxy variables point at a closed loopback
port (with loopback exempt), Claude Code's non-essential traffic and
auto-updater are off, and Codex checks for no update. The README's test command,
``tools/test.py`` (which ``.ci/run`` calls), installs the agents pinned in
``.ci/node/package.json`` into ``.ci/node`` and names them in ``NODECODE_CLAUDE_BIN``
and ``NODECODE_CODEX_BIN``; without them these tests fail saying how to install,
never skip.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from served import served

from cursor_simulator import Simulator
from cursor_simulator.agent import (
    AskRequestContext,
    Checkpoint,
    End,
    KvRead,
    RunRecord,
    StepCompleted,
    StepStarted,
    Text,
    ToolCall,
    TurnEnded,
)

ROOT = Path(__file__).resolve().parents[2]
NODE_BIN = ROOT / ".ci" / "node" / "node_modules" / ".bin"
INSTALL = (
    "the README's test command, .venv/bin/python tools/test.py (it runs npm ci --prefix .ci/node)"
)
SECRET = "the secret word is pineapple"
AGENT_TIMEOUT = 120


def agent_binary(env_name: str, name: str) -> str:
    """Return the agent's executable: $ENV_NAME, else .ci/node's; fail saying how to install."""
    given = os.environ.get(env_name)
    path = Path(given) if given else NODE_BIN / name
    if not path.exists():
        pytest.fail(f"{name} is not installed ({path} is missing): run {INSTALL}", pytrace=False)
    return str(path)


def closed_port() -> int:
    """Return a loopback port nothing listens on (the proxy nothing can pass through)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def offline_env(home: Path, **extra: str) -> dict[str, str]:
    """Return an environment in which any non-loopback request meets a closed proxy."""
    proxy = f"http://127.0.0.1:{closed_port()}"
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "LANG": "C.UTF-8",
        "HTTP_PROXY": proxy,
        "HTTPS_PROXY": proxy,
        "http_proxy": proxy,
        "https_proxy": proxy,
        "NO_PROXY": "127.0.0.1,localhost",
        "no_proxy": "127.0.0.1,localhost",
    }
    env.update(extra)
    return env


def tool_result(history: list[dict[str, Any]]) -> str | None:
    """Return the text of the last tool result in HISTORY (None before any)."""
    found = None
    for message in history:
        if message.get("role") != "tool":
            continue
        for part in message.get("content") or []:
            if isinstance(part, dict) and part.get("type") == "tool-result":
                result = part.get("result")
                found = result if isinstance(result, str) else json.dumps(result)
    return found


def agent_model(tool: str, args: dict[str, Any], seen: list[list[str]]) -> Any:
    """Return the scripted model: call TOOL with ARGS when offered, then answer from its result.

    Every run goes through it (an agent may make side requests, such as a
    title, that offer no tools: those get a plain "ok").
    """

    def play(run: RunRecord) -> Iterator[Any]:
        yield AskRequestContext()
        yield KvRead()
        history = run.root_messages()
        names = [t.tool_name or t.name for t in run.tools]
        seen.append(names)
        yield StepStarted()
        result = tool_result(history)
        if result is not None:
            yield Text(f"From the tool: {result.strip()}")
        elif tool in names:
            yield ToolCall(tool, args)
        else:
            yield Text("ok")
        yield StepCompleted()
        yield TurnEnded(200, 12, 0)
        yield Checkpoint()
        yield End()

    return play


def run_agent(argv: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        argv,
        env=env,
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=AGENT_TIMEOUT,
    )


def test_claude_code_reads_a_file_through_serve(
    sim: Simulator, home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    claude = agent_binary("NODECODE_CLAUDE_BIN", "claude")
    work = tmp_path / "work"
    work.mkdir()
    note = work / "note.txt"
    note.write_text(SECRET + "\n")
    seen: list[list[str]] = []
    sim.agent.default = agent_model("Read", {"file_path": str(note)}, seen)
    agent_home = tmp_path / "claude-home"
    agent_home.mkdir()
    with served(sim, home, monkeypatch, api_key="client-key") as api:
        env = offline_env(
            agent_home,
            ANTHROPIC_BASE_URL=api.root,
            ANTHROPIC_API_KEY="client-key",
            CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
            DISABLE_AUTOUPDATER="1",
            DISABLE_TELEMETRY="1",
        )
        done = run_agent(
            [claude, "-p", "Read note.txt and tell me the secret word", "--model", "sonnet"],
            env,
            work,
        )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "From the tool:" in done.stdout and "pineapple" in done.stdout, done.stdout
    assert any("Read" in names and "Bash" in names for names in seen), seen
    assert not sim.agent.violations()


def test_codex_runs_a_command_through_serve(
    sim: Simulator, home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    codex = agent_binary("NODECODE_CODEX_BIN", "codex")
    work = tmp_path / "work"
    work.mkdir()
    (work / "note.txt").write_text(SECRET + "\n")
    seen: list[list[str]] = []
    sim.agent.default = agent_model("exec_command", {"cmd": "cat note.txt"}, seen)
    codex_home = tmp_path / "codex-home"
    codex_home.mkdir()
    with served(sim, home, monkeypatch, api_key="client-key") as api:
        (codex_home / "config.toml").write_text(
            "\n".join(
                [
                    'model = "composer-2.5"',
                    'model_provider = "nodecode"',
                    "check_for_update_on_startup = false",
                    "[model_providers.nodecode]",
                    'name = "nodecode-cursor serve"',
                    f'base_url = "{api.url}"',
                    'wire_api = "responses"',
                    'env_key = "NODECODE_SERVE_API_KEY"',
                    "",
                ]
            )
        )
        env = offline_env(
            codex_home, CODEX_HOME=str(codex_home), NODECODE_SERVE_API_KEY="client-key"
        )
        done = run_agent(
            [codex, "exec", "--skip-git-repo-check", "Read note.txt and tell me the secret word"],
            env,
            work,
        )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "From the tool:" in done.stdout and "pineapple" in done.stdout, done.stdout
    assert any("exec_command" in names for names in seen), seen
    assert not sim.agent.violations()
