"""The agents people point at such a server, installed from npm as their users install them,
at their current releases: Claude Code (``claude -p``, Anthropic's Messages API), Codex CLI
(``codex exec``, the Responses API), opencode (``opencode run``, an OpenAI-compatible
provider), pi-coding-agent (``pi -p``, chat completions), qwen-code (``qwen -p``, its
OpenAI-compatible auth), Continue's ``cn`` (``cn -p``, an ``openai`` model in its
config.yaml) and the Vercel AI SDK 7 (``generateText`` over ``@ai-sdk/openai``'s Responses
provider, a script in ``node/``), each against ``serve`` backed by the simulator.

Each agent runs with its default configuration plus only what points it at ``serve``
(the README's line for it), and gives a plain answer. Then, in a temp folder holding
two notes, the simulator's scripted model calls the agent's own read tool by the name
it is offered under (``host_read`` for a tool named ``read``), then asks for Cursor's
own shell over exec with no folder, as Cursor's models ask: ``serve`` bridges that ask
to the agent's own shell tool, in the folder the agent says it works in. ``serve`` is
started in another folder holding a decoy ``second.txt``, so a command run in
``serve``'s folder shows. The agent runs both and sends the results back; the model
answers from them, and the agent prints that answer.

Two agents need one permission their headless mode asks for: qwen-code offers no shell
tool to a ``-p`` run unless its settings allow ``run_shell_command`` (a user's
``permissions.allow`` rule). The others run ``cat`` under their defaults.

Nothing leaves the machine: the proxy variables point at a closed loopback port
(with loopback exempt), and each agent's telemetry and update checks are off. The
README's test command, ``tools/test.py`` (which ``.ci/run`` calls), installs what
``.ci/node/package.json`` pins into ``.ci/node`` (Node.js 22 from the npm registry
included: Claude Code, qwen-code and the AI SDK 7 need it) and puts that Node first on
the PATH. ``NODECODE_CLAUDE_BIN``, ``NODECODE_CODEX_BIN``, ``NODECODE_OPENCODE_BIN``,
``NODECODE_PI_BIN``, ``NODECODE_QWEN_BIN``, ``NODECODE_CN_BIN``, ``NODECODE_NODE_BIN``
and ``NODECODE_NODE_MODULES`` name others. Without them these tests fail saying how to
install, never skip.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from served import RunningServer, served

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
DECOY = "the second word is decoy"
PLAIN = "Plain answer from the scripted model"
AI_SDK_SCRIPT = Path(__file__).resolve().parent / "node" / "ai_sdk_agent.cjs"
AGENT_TIMEOUT = 120
MODEL = "composer-2.5"


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


def agent_node() -> str:
    """Return the Node.js the agents run on: $NODECODE_NODE_BIN, else the Node 22 .ci/node
    installs from npm; fail saying how to install."""
    given = os.environ.get("NODECODE_NODE_BIN")
    path = Path(given) if given else NODE_BIN.parent / "node" / "bin" / "node"
    if not path.exists():
        pytest.fail(f"Node.js for the agents is missing ({path}): run {INSTALL}", pytrace=False)
    return str(path)


def offline_env(home: Path, **extra: str) -> dict[str, str]:
    """Return an environment in which any non-loopback request meets a closed proxy, with
    the agents' Node first on the PATH (their ``#!/usr/bin/env node`` finds it)."""
    proxy = f"http://127.0.0.1:{closed_port()}"
    path = os.environ.get("PATH", "/usr/bin:/bin")
    env = {
        "PATH": os.pathsep.join([str(Path(agent_node()).parent), path]),
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


def native_shell(command: str, call_id: str, cwd: Path | None = None) -> Native:
    """Cursor's own shell, as its models ask for it (ShellArgs{1 command, 2 cwd, 4 id});
    without CWD it names no folder, and the round's folder (the client's) applies."""
    fields: dict[str, Any] = {"command": command, "tool_call_id": call_id}
    if cwd is not None:
        fields["working_directory"] = str(cwd)
    return Native("shell_args", fields)


def plain_model() -> Any:
    """Return the scripted model that answers every run with PLAIN and calls no tool."""

    def play(run: RunRecord) -> Iterator[Any]:
        yield AskRequestContext()
        yield KvRead()
        yield StepStarted()
        yield Text(PLAIN)
        yield StepCompleted()
        yield TurnEnded(200, 12, 0)
        yield Checkpoint()
        yield End()

    return play


def serve_elsewhere(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Return the folder this test (and so ``serve``) now runs in: not the agent's, and
    holding a decoy second.txt that a command run in the wrong folder would print."""
    folder = tmp_path / "serve-here"
    folder.mkdir()
    (folder / "second.txt").write_text(DECOY + "\n")
    monkeypatch.chdir(folder)
    return folder


def run_agent(argv: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """Return the finished run of ARGV in CWD (stdin closed, output captured)."""
    return subprocess.run(
        argv,
        env=env,
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=AGENT_TIMEOUT,
    )


# How one agent is pointed at serve: given the server and a fresh home for the agent,
# return (its argv without the prompt, which goes last; its extra environment).
Setup = Callable[[RunningServer, Path], tuple[list[str], dict[str, str]]]


@dataclass(frozen=True)
class Agent:
    """One npm agent: how to run it against serve, and how the model calls its tools."""

    name: str
    env_name: str  # the variable naming another executable
    binary: str  # its name in node_modules/.bin
    setup: Setup
    read: Callable[[Path], ToolCall]  # a call of its own read tool (or shell) on a file
    tools: tuple[str, ...]  # its read and shell tools, as serve offers them
    call_prefix: str = "call_"  # how its API spells a tool call's id


def claude_setup(api: RunningServer, agent_home: Path) -> tuple[list[str], dict[str, str]]:
    """Claude Code: its base URL and key (the README's line), nothing else."""
    env = {
        "ANTHROPIC_BASE_URL": api.root,
        "ANTHROPIC_API_KEY": "client-key",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_AUTOUPDATER": "1",
        "DISABLE_TELEMETRY": "1",
    }
    return ["-p"], env


def codex_setup(api: RunningServer, agent_home: Path) -> tuple[list[str], dict[str, str]]:
    """Codex CLI: a model provider in $CODEX_HOME/config.toml."""
    (agent_home / "config.toml").write_text(
        "\n".join(
            [
                f'model = "{MODEL}"',
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
    env = {"CODEX_HOME": str(agent_home), "NODECODE_SERVE_API_KEY": "client-key"}
    return ["exec", "--skip-git-repo-check"], env


def opencode_setup(api: RunningServer, agent_home: Path) -> tuple[list[str], dict[str, str]]:
    """opencode: an OpenAI-compatible provider in its opencode.json."""
    config = agent_home / "opencode.json"
    config.write_text(
        json.dumps(
            {
                "autoupdate": False,
                "share": "disabled",
                "model": f"nodecode/{MODEL}",
                "permission": {"bash": "allow", "read": "allow", "edit": "allow"},
                "provider": {
                    "nodecode": {
                        "npm": "@ai-sdk/openai-compatible",
                        "name": "nodecode-cursor serve",
                        "options": {"baseURL": api.url, "apiKey": "client-key"},
                        "models": {MODEL: {"name": "Composer 2.5"}},
                    }
                },
            }
        )
    )
    env = {
        "OPENCODE_CONFIG": str(config),
        "XDG_CONFIG_HOME": str(agent_home / "config"),
        "XDG_DATA_HOME": str(agent_home / "data"),
        "XDG_CACHE_HOME": str(agent_home / "cache"),
        "XDG_STATE_HOME": str(agent_home / "state"),
        "OPENCODE_DISABLE_AUTOUPDATE": "1",
        "OPENCODE_DISABLE_MODELS_FETCH": "1",
        "OPENCODE_DISABLE_LSP_DOWNLOAD": "1",
        "OPENCODE_DISABLE_DEFAULT_PLUGINS": "1",
        "OPENCODE_DISABLE_SHARE": "1",
    }
    return ["run", "--model", f"nodecode/{MODEL}"], env


def pi_setup(api: RunningServer, agent_home: Path) -> tuple[list[str], dict[str, str]]:
    """pi-coding-agent: a provider in its models.json."""
    agent_dir = agent_home / "agent"
    agent_dir.mkdir()
    provider = {
        "baseUrl": api.url,
        "api": "openai-completions",
        "apiKey": "client-key",
        "models": [{"id": MODEL}],
    }
    (agent_dir / "models.json").write_text(json.dumps({"providers": {"nodecode": provider}}))
    env = {
        "PI_CODING_AGENT_DIR": str(agent_dir),
        "PI_OFFLINE": "1",
        "PI_SKIP_VERSION_CHECK": "1",
        "PI_TELEMETRY": "0",
    }
    return ["-p", "--provider", "nodecode", "--model", MODEL], env


def qwen_setup(api: RunningServer, agent_home: Path) -> tuple[list[str], dict[str, str]]:
    """qwen-code: its OpenAI-compatible auth from the environment; its settings turn
    usage statistics, telemetry and updates off and allow its shell, which a ``-p``
    run is otherwise not offered (its headless mode leaves out tools that would ask)."""
    settings = agent_home / ".qwen"
    settings.mkdir()
    (settings / "settings.json").write_text(
        json.dumps(
            {
                "privacy": {"usageStatisticsEnabled": False},
                "telemetry": {"enabled": False},
                "general": {"enableAutoUpdate": False},
                "permissions": {"allow": ["run_shell_command"]},
            }
        )
    )
    env = {"OPENAI_BASE_URL": api.url, "OPENAI_API_KEY": "client-key", "OPENAI_MODEL": MODEL}
    return ["-p"], env


def cn_setup(api: RunningServer, agent_home: Path) -> tuple[list[str], dict[str, str]]:
    """Continue's cn: an ``openai`` model in its config.yaml."""
    config = agent_home / "config.yaml"
    config.write_text(
        "\n".join(
            [
                "name: nodecode-cursor serve",
                "version: 1.0.0",
                "schema: v1",
                "models:",
                "  - name: Composer 2.5",
                "    provider: openai",
                f"    model: {MODEL}",
                f"    apiBase: {api.url}",
                "    apiKey: client-key",
                "    roles: [chat]",
                "",
            ]
        )
    )
    env = {
        "CONTINUE_GLOBAL_DIR": str(agent_home / ".continue"),
        "CONTINUE_CLI_ENABLE_TELEMETRY": "0",
        "CONTINUE_METRICS_ENABLED": "0",
    }
    return ["-p", "--config", str(config)], env


AGENTS = [
    Agent(
        "claude-code",
        "NODECODE_CLAUDE_BIN",
        "claude",
        claude_setup,
        lambda note: ToolCall("Read", {"file_path": str(note)}),
        ("Read", "Bash"),
        call_prefix="toolu_",
    ),
    # Codex reads with its shell: its exec_command runs cat in its own folder.
    Agent(
        "codex",
        "NODECODE_CODEX_BIN",
        "codex",
        codex_setup,
        lambda note: ToolCall("exec_command", {"cmd": f"cat {note.name}"}),
        ("exec_command",),
    ),
    # opencode's and pi's read and bash collide with Cursor's names: host_read, host_bash.
    Agent(
        "opencode",
        "NODECODE_OPENCODE_BIN",
        "opencode",
        opencode_setup,
        lambda note: ToolCall("host_read", {"filePath": str(note)}),
        ("host_read", "host_bash"),
    ),
    Agent(
        "pi",
        "NODECODE_PI_BIN",
        "pi",
        pi_setup,
        lambda note: ToolCall("host_read", {"path": str(note)}),
        ("host_read", "host_bash"),
    ),
    Agent(
        "qwen-code",
        "NODECODE_QWEN_BIN",
        "qwen",
        qwen_setup,
        lambda note: ToolCall("read_file", {"file_path": str(note)}),
        ("read_file", "run_shell_command"),
    ),
    Agent(
        "cn",
        "NODECODE_CN_BIN",
        "cn",
        cn_setup,
        lambda note: ToolCall("Read", {"filepath": str(note)}),
        ("Read", "Bash"),
    ),
]


def drive(
    agent: Agent,
    sim: Simulator,
    home: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    prompt: str,
) -> subprocess.CompletedProcess[str]:
    """Return AGENT's finished run of PROMPT in tmp_path/work, against serve started in
    another folder (the simulator's model must be set already)."""
    binary = agent_binary(agent.env_name, agent.binary)
    serve_elsewhere(tmp_path, monkeypatch)
    agent_home = tmp_path / f"{agent.name}-home"
    agent_home.mkdir()
    with served(sim, home, monkeypatch, api_key="client-key") as api:
        argv, extra = agent.setup(api, agent_home)
        env = offline_env(agent_home, **extra)
        return run_agent([binary, *argv, prompt], env, tmp_path / "work")


@pytest.mark.parametrize("agent", AGENTS, ids=lambda agent: agent.name)
def test_an_agent_answers_plainly_through_serve(
    agent: Agent, sim: Simulator, home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    two_notes(tmp_path)
    sim.agent.default = plain_model()
    done = drive(agent, sim, home, tmp_path, monkeypatch, "Say hello")
    assert done.returncode == 0, done.stdout + done.stderr
    assert PLAIN in done.stdout, done.stdout + done.stderr
    assert not sim.agent.violations()


@pytest.mark.parametrize("agent", AGENTS, ids=lambda agent: agent.name)
def test_an_agent_reads_a_file_and_runs_a_command_in_its_folder_through_serve(
    agent: Agent, sim: Simulator, home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, note = two_notes(tmp_path)
    seen: list[list[str]] = []
    # Its own read by the name serve offers it under; then Cursor's native shell with
    # no folder, bridged to its own shell tool and run in the agent's folder.
    moves: list[Move] = [
        agent.read(note),
        native_shell("cat second.txt", f"{agent.call_prefix}native_shell_1"),
    ]
    sim.agent.default = agent_model(moves, seen)
    done = drive(agent, sim, home, tmp_path, monkeypatch, "Read note.txt, then run a command")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "From the tools:" in done.stdout, done.stdout + done.stderr
    assert "pineapple" in done.stdout and "mango" in done.stdout, done.stdout
    assert "decoy" not in done.stdout, done.stdout
    assert any(set(agent.tools) <= set(names) for names in seen), seen
    assert not sim.agent.violations()


def test_the_ai_sdks_responses_provider_loops_tools_and_chats_through_serve(
    sim: Simulator, home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    node = agent_node()
    modules = node_modules()
    if not (modules / "ai").exists():
        pytest.fail(f"the AI SDK is not installed ({modules / 'ai'}): run {INSTALL}", pytrace=False)
    work, _ = two_notes(tmp_path)
    serve_elsewhere(tmp_path, monkeypatch)
    seen: list[list[str]] = []
    # The script's own read and bash: its read by name, then Cursor's native shell,
    # bridged to its bash; then it answers, and answers again in the chat's second turn.
    moves: list[Move] = [
        ToolCall("host_read", {"path": "note.txt"}),
        native_shell("cat second.txt", "call_native_shell_1", work),
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
