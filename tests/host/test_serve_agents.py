"""The agents people point at such a server, installed from npm as their users install them:
Claude Code (``claude -p``, Anthropic's Messages API), Codex CLI (``codex exec``, the
Responses API), opencode (``opencode run``, an OpenAI-compatible provider), pi-coding-agent
(``pi -p``, chat completions) and the Vercel AI SDK (``generateText`` over
``@ai-sdk/openai``'s Responses provider, a script in ``node/``), each against ``serve``
backed by the simulator.

In a temp folder holding two notes, the simulator's scripted model calls one of the
agent's own tools by the name it is offered under (``host_read`` for a tool named
``read``), then asks for one of Cursor's own tools over exec, as Cursor's models do
(a native read, or a native shell): ``serve`` bridges that ask to the agent's own
tool. The agent runs both and sends the results back; the model answers from them,
and the agent prints that answer.

Nothing leaves the machine: the proxy variables point at a closed loopback port
(with loopback exempt), and each agent's telemetry and update checks are off. The
README's test command, ``tools/test.py`` (which ``.ci/run`` calls), installs what
``.ci/node/package.json`` pins into ``.ci/node``; ``NODECODE_CLAUDE_BIN``,
``NODECODE_CODEX_BIN``, ``NODECODE_OPENCODE_BIN``, ``NODECODE_PI_BIN``,
``NODECODE_NODE_BIN`` and ``NODECODE_NODE_MODULES`` name others. Without them these
tests fail saying how to install, never skip.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from served import served

from cursor_simulator import Simulator
from cursor_simulator.records import RunRecord
from cursor_simulator.steps import (
    AskRequestContext,
    Checkpoint,
    End,
    KvRead,
    Native,
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
SECOND = "the second word is mango"
AI_SDK_SCRIPT = Path(__file__).resolve().parent / "node" / "ai_sdk_agent.cjs"
AGENT_TIMEOUT = 120


def node_modules() -> Path:
    """Return the node_modules the npm agents come from: $NODECODE_NODE_MODULES, else .ci/node's."""
    return Path(os.environ.get("NODECODE_NODE_MODULES") or NODE_BIN.parent)


def agent_binary(env_name: str, name: str) -> str:
    """Return the agent's executable: $ENV_NAME, else the node_modules' own (``node_modules``);
    fail saying how to install."""
    given = os.environ.get(env_name)
    path = Path(given) if given else node_modules() / ".bin" / name
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


def tool_results(history: list[dict[str, Any]]) -> list[str]:
    """Return the text of every tool result in HISTORY, in order."""
    found = []
    for message in history:
        if message.get("role") != "tool":
            continue
        for part in message.get("content") or []:
            if isinstance(part, dict) and part.get("type") == "tool-result":
                result = part.get("result")
                found.append(result if isinstance(result, str) else json.dumps(result))
    return found


# One move of the scripted model: a call of one of the offered tools (by its offered
# name), or one of Cursor's own tools asked over exec, as Cursor's models ask.
Move = ToolCall | Native


def agent_model(moves: list[Move], seen: list[list[str]]) -> Any:
    """Return the scripted model: make MOVES one a round, then answer from all their results.

    Every run goes through it (an agent may make side requests, such as a title,
    that offer no tools: those get a plain "ok"). A native ask the server hands to
    one of the agent's tools is answered with the handoff, and the model ends its
    turn; the agent runs its tool and the next round carries the result.
    """

    def play(run: RunRecord) -> Iterator[Any]:
        yield AskRequestContext()
        yield KvRead()
        history = run.root_messages()
        names = [t.tool_name or t.name for t in run.tools]
        seen.append(names)
        yield StepStarted()
        results = tool_results(history)
        if not names:
            yield Text("ok")
        elif len(results) < len(moves):
            yield moves[len(results)]
        else:
            yield Text("From the tools: " + " | ".join(r.strip() for r in results))
        yield StepCompleted()
        yield TurnEnded(200, 12, 0)
        yield Checkpoint()
        yield End()

    return play


def two_notes(tmp_path: Path) -> tuple[Path, Path]:
    """Return (a work folder holding note.txt and second.txt, its note.txt)."""
    work = tmp_path / "work"
    work.mkdir()
    note = work / "note.txt"
    note.write_text(SECRET + "\n")
    (work / "second.txt").write_text(SECOND + "\n")
    return work, note


def native_read(path: str, call_id: str) -> Native:
    """Cursor's own read of PATH, as its models ask for it (ReadArgs{1 path, 2 tool_call_id})."""
    return Native("read_args", {"path": path, "tool_call_id": call_id})


def native_shell(command: str, cwd: Path, call_id: str) -> Native:
    """Cursor's own shell, as its models ask for it (ShellArgs{1 command, 2 cwd, 4 id})."""
    return Native(
        "shell_args",
        {"command": command, "working_directory": str(cwd), "tool_call_id": call_id},
    )


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
    work, note = two_notes(tmp_path)
    seen: list[list[str]] = []
    # Its own Read, called by name; then Cursor's native read, bridged to that Read.
    moves: list[Move] = [
        ToolCall("Read", {"file_path": str(note)}),
        native_read(str(work / "second.txt"), "toolu_native_read_1"),
    ]
    sim.agent.default = agent_model(moves, seen)
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
    assert "From the tools:" in done.stdout, done.stdout
    assert "pineapple" in done.stdout and "mango" in done.stdout, done.stdout
    assert any("Read" in names and "Bash" in names for names in seen), seen
    assert not sim.agent.violations()


def test_codex_runs_a_command_through_serve(
    sim: Simulator, home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    codex = agent_binary("NODECODE_CODEX_BIN", "codex")
    work, _ = two_notes(tmp_path)
    seen: list[list[str]] = []
    # Its own exec_command, called by name; then Cursor's native read, which Codex has
    # no read tool for: bridged to exec_command running cat.
    moves: list[Move] = [
        ToolCall("exec_command", {"cmd": "cat note.txt"}),
        native_read(str(work / "second.txt"), "call_native_read_1"),
    ]
    sim.agent.default = agent_model(moves, seen)
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
    assert "From the tools:" in done.stdout, done.stdout
    assert "pineapple" in done.stdout and "mango" in done.stdout, done.stdout
    assert any("exec_command" in names for names in seen), seen
    assert not sim.agent.violations()


def test_opencode_reads_a_file_and_runs_a_command_through_serve(
    sim: Simulator, home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    opencode = agent_binary("NODECODE_OPENCODE_BIN", "opencode")
    work, note = two_notes(tmp_path)
    seen: list[list[str]] = []
    # opencode's read and bash collide with Cursor's names: offered as host_read and
    # host_bash. Its read by that name, then Cursor's native shell, bridged to its bash.
    moves: list[Move] = [
        ToolCall("host_read", {"filePath": str(note)}),
        native_shell("cat second.txt", work, "call_native_shell_1"),
    ]
    sim.agent.default = agent_model(moves, seen)
    agent_home = tmp_path / "opencode-home"
    agent_home.mkdir()
    with served(sim, home, monkeypatch, api_key="client-key") as api:
        config = agent_home / "opencode.json"
        config.write_text(
            json.dumps(
                {
                    "autoupdate": False,
                    "share": "disabled",
                    "model": "nodecode/composer-2.5",
                    "permission": {"bash": "allow", "read": "allow", "edit": "allow"},
                    "provider": {
                        "nodecode": {
                            "npm": "@ai-sdk/openai-compatible",
                            "name": "nodecode-cursor serve",
                            "options": {"baseURL": api.url, "apiKey": "client-key"},
                            "models": {"composer-2.5": {"name": "Composer 2.5"}},
                        }
                    },
                }
            )
        )
        env = offline_env(
            agent_home,
            OPENCODE_CONFIG=str(config),
            XDG_CONFIG_HOME=str(agent_home / "config"),
            XDG_DATA_HOME=str(agent_home / "data"),
            XDG_CACHE_HOME=str(agent_home / "cache"),
            XDG_STATE_HOME=str(agent_home / "state"),
            OPENCODE_DISABLE_AUTOUPDATE="1",
            OPENCODE_DISABLE_MODELS_FETCH="1",
            OPENCODE_DISABLE_LSP_DOWNLOAD="1",
            OPENCODE_DISABLE_DEFAULT_PLUGINS="1",
            OPENCODE_DISABLE_SHARE="1",
        )
        done = run_agent(
            [opencode, "run", "--model", "nodecode/composer-2.5", "Read note.txt, run a command"],
            env,
            work,
        )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "From the tools:" in done.stdout, done.stdout + done.stderr
    assert "pineapple" in done.stdout and "mango" in done.stdout, done.stdout
    assert any("host_read" in names and "host_bash" in names for names in seen), seen
    assert not sim.agent.violations()


def test_pi_reads_a_file_and_runs_a_command_through_serve(
    sim: Simulator, home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pi = agent_binary("NODECODE_PI_BIN", "pi")
    work, note = two_notes(tmp_path)
    seen: list[list[str]] = []
    # pi's read and bash go as host_read and host_bash; its read by that name, then
    # Cursor's native shell, bridged to its bash.
    moves: list[Move] = [
        ToolCall("host_read", {"path": str(note)}),
        native_shell("cat second.txt", work, "call_native_shell_1"),
    ]
    sim.agent.default = agent_model(moves, seen)
    agent_home = tmp_path / "pi-home"
    agent_dir = agent_home / "agent"
    agent_dir.mkdir(parents=True)
    with served(sim, home, monkeypatch, api_key="client-key") as api:
        (agent_dir / "models.json").write_text(
            json.dumps(
                {
                    "providers": {
                        "nodecode": {
                            "baseUrl": api.url,
                            "api": "openai-completions",
                            "apiKey": "client-key",
                            "models": [{"id": "composer-2.5"}],
                        }
                    }
                }
            )
        )
        env = offline_env(
            agent_home,
            PI_CODING_AGENT_DIR=str(agent_dir),
            PI_OFFLINE="1",
            PI_SKIP_VERSION_CHECK="1",
            PI_TELEMETRY="0",
        )
        done = run_agent(
            [
                pi,
                "-p",
                "--provider",
                "nodecode",
                "--model",
                "composer-2.5",
                "Read note.txt, then run a command",
            ],
            env,
            work,
        )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "From the tools:" in done.stdout, done.stdout + done.stderr
    assert "pineapple" in done.stdout and "mango" in done.stdout, done.stdout
    assert any("host_read" in names and "host_bash" in names for names in seen), seen
    assert not sim.agent.violations()


def test_the_ai_sdks_responses_provider_loops_tools_and_chats_through_serve(
    sim: Simulator, home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    node = os.environ.get("NODECODE_NODE_BIN") or shutil.which("node")
    if node is None:
        pytest.fail("node is not on the PATH (the npm agents need it too)", pytrace=False)
    modules = node_modules()
    if not (modules / "ai").exists():
        pytest.fail(f"the AI SDK is not installed ({modules / 'ai'}): run {INSTALL}", pytrace=False)
    work, _ = two_notes(tmp_path)
    seen: list[list[str]] = []
    # The script's own read and bash: its read by name, then Cursor's native shell,
    # bridged to its bash; then it answers, and answers again in the chat's second turn.
    moves: list[Move] = [
        ToolCall("host_read", {"path": "note.txt"}),
        native_shell("cat second.txt", work, "call_native_shell_1"),
    ]
    sim.agent.default = agent_model(moves, seen)
    with served(sim, home, monkeypatch, api_key="client-key") as api:
        env = offline_env(tmp_path, NODE_PATH=str(modules))
        done = run_agent(
            [node, str(AI_SDK_SCRIPT), str(modules), api.url, "client-key", str(work)],
            env,
            work,
        )
    assert done.returncode == 0, done.stdout + done.stderr
    turns = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    assert [t["turn"] for t in turns] == [1, 2], done.stdout
    first, second = turns
    assert first["steps"] == 3 and second["steps"] == 1, turns
    for turn in turns:
        assert "pineapple" in turn["text"] and "mango" in turn["text"], turns
    assert any("host_read" in names and "host_bash" in names for names in seen), seen
    assert not sim.agent.violations()
