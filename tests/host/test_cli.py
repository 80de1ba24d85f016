"""The reference host's command line, driven as a subprocess against the simulator.

Every test runs the real ``nodecode-cursor`` (``python -m nodecode_host.cli``)
in its own process with a temporary NODECODE_HOME, ``--base-url`` pointing at
the simulator on 127.0.0.1, and a token in ``CURSOR_ACCESS_TOKEN``; the
simulator runs in the test process so each test can read what it received.
"""

from __future__ import annotations

import contextlib
import io
import json
import logging
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from cursor_simulator import Simulator
from cursor_simulator.agent import RUN_PATH, Sleep, StepStarted, Text
from nodecode_host.cli import TokenRedactor

REPO = Path(__file__).resolve().parents[2]
TOKEN = "sim-token-for-cli-tests"
# A subprocess start-up plus a round on loopback takes well under this.
RUN_TIMEOUT = 60
CLI = [sys.executable, "-m", "nodecode_host.cli"]
ENV_STATUS = "cursor: not signed in; a token from the environment (CURSOR_ACCESS_TOKEN) is used"


def cli_env(home: Path, *, signed_out: bool = False, **extra: str) -> dict[str, str]:
    """Return the environment of a CLI run: the temp home, a token, no colours, no other token.

    ``signed_out`` leaves the token out, so only a kept sign-in (or none) is used.
    """
    env = {k: v for k, v in os.environ.items() if not k.startswith("CURSOR_")}
    env.update(NODECODE_HOME=str(home), NO_COLOR="1")
    if not signed_out:
        env["CURSOR_ACCESS_TOKEN"] = TOKEN
    env.update(extra)
    return env


def start_login(sim: Simulator, env: dict[str, str]) -> subprocess.Popen[str]:
    """Return a running ``nodecode-cursor login`` against the simulator, its pipes open."""
    return subprocess.Popen(
        [*CLI, "--base-url", sim.url, "--web-url", sim.url, "login"],
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def run_cli(
    *args: str, env: dict[str, str], cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    """Return the finished run of ``nodecode-cursor ARGS``."""
    return subprocess.run(
        [sys.executable, "-m", "nodecode_host.cli", *args],
        env=env,
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT,
    )


def ask_json(sim: Simulator, home: Path, *args: str, cwd: Path | None = None) -> dict[str, Any]:
    """Return the JSON object ``ask --json ARGS`` printed (and check it exited 0)."""
    done = run_cli("--base-url", sim.url, "ask", "--json", *args, env=cli_env(home), cwd=cwd)
    assert done.returncode == 0, done.stderr + done.stdout
    answer: dict[str, Any] = json.loads(done.stdout)
    return answer


def test_version_still_answers() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "nodecode_host.cli", "--version"],
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT,
    )
    assert done.returncode == 0
    assert done.stdout.strip() == "nodecode-cursor 0.1.0"


def test_ask_json_text_round(sim: Simulator, home: Path, tmp_path: Path) -> None:
    answer = ask_json(sim, home, "--tools", "none", "hello from the cli", cwd=tmp_path)
    assert answer["message"] == {
        "role": "assistant",
        "content": "Simulated Cursor here. You said: hello from the cli",
    }
    assert answer["finish_reason"] == "stop"
    assert answer["rounds"] == 1
    assert answer["model"] == "composer-2.5"
    assert answer["wire_model"] == "composer-2.5"
    assert set(answer["usage"]) >= {"input", "output", "cache_read", "cache_write", "total"}
    assert answer["usage"]["output"] > 0
    runs = sim.requests_to(RUN_PATH)
    assert len(runs) == 1
    assert runs[0].headers["authorization"] == f"Bearer {TOKEN}"
    assert sim.agent.run().prompt() == "hello from the cli"


def test_ask_json_tool_round_returns_calls_unrun(
    sim: Simulator, home: Path, tmp_path: Path
) -> None:
    (tmp_path / "notes.txt").write_text("the secret word is heliotrope\n")
    answer = ask_json(
        sim,
        home,
        "--max-rounds",
        "1",
        'Use read_file with {"path": "notes.txt"}',
        cwd=tmp_path,
    )
    assert answer["finish_reason"] == "tool_calls"
    assert answer["rounds"] == 1
    calls = answer["message"]["tool_calls"]
    assert [c["function"]["name"] for c in calls] == ["read_file"]
    assert json.loads(calls[0]["function"]["arguments"]) == {"path": "notes.txt"}
    assert calls[0]["type"] == "function" and calls[0]["id"]
    # One round only: the call came back unrun, nothing went back to the service.
    assert len(sim.requests_to(RUN_PATH)) == 1


def test_ask_full_tool_turn_with_default_tools(sim: Simulator, home: Path, tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("the secret word is heliotrope\n")
    answer = ask_json(sim, home, 'Use read_file with {"path": "notes.txt"}', cwd=tmp_path)
    assert answer["finish_reason"] == "stop"
    assert answer["rounds"] == 2
    assert answer["message"]["role"] == "assistant"
    assert "the secret word is heliotrope" in answer["message"]["content"]
    assert answer["message"]["content"].startswith("read_file returned:")
    assert len(sim.requests_to(RUN_PATH)) == 2


def test_ask_default_tools_refuse_a_path_outside_the_folder(
    sim: Simulator, home: Path, tmp_path: Path
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    (tmp_path / "outside.txt").write_text("not for the model\n")
    answer = ask_json(sim, home, 'Use read_file with {"path": "../outside.txt"}', cwd=work)
    content = answer["message"]["content"]
    assert "outside the working directory" in content
    assert "not for the model" not in content


def test_ask_history_that_ends_on_a_tool_result_resumes(
    sim: Simulator, home: Path, tmp_path: Path
) -> None:
    history = [
        {"role": "user", "content": "what is in the box?"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "open_box", "arguments": "{}"},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": "a brass key"},
    ]
    path = tmp_path / "history.json"
    path.write_text(json.dumps(history))
    answer = ask_json(sim, home, "--tools", "none", "--history", str(path), cwd=tmp_path)
    assert answer["finish_reason"] == "stop"
    assert "a brass key" in answer["message"]["content"]


def test_ask_tools_from_a_file_are_returned_not_run(
    sim: Simulator, home: Path, tmp_path: Path
) -> None:
    tools = [
        {
            "type": "function",
            "function": {
                "name": "lookup_weather",
                "description": "The weather in a city",
                "parameters": {
                    "type": "object",
                    "properties": {"city": {"type": "string"}},
                    "required": ["city"],
                },
            },
        }
    ]
    path = tmp_path / "tools.json"
    path.write_text(json.dumps(tools))
    answer = ask_json(
        sim, home, "--tools", str(path), 'Use lookup_weather with {"city": "Oslo"}', cwd=tmp_path
    )
    assert answer["finish_reason"] == "tool_calls"
    assert answer["rounds"] == 1
    (call,) = answer["message"]["tool_calls"]
    assert call["function"]["name"] == "lookup_weather"
    assert json.loads(call["function"]["arguments"]) == {"city": "Oslo"}


def test_ask_plain_streams_the_answer_to_stdout(sim: Simulator, home: Path, tmp_path: Path) -> None:
    done = run_cli(
        "--base-url", sim.url, "ask", "--tools", "none", "plain words", env=cli_env(home)
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == "Simulated Cursor here. You said: plain words\n"


def test_unknown_model_names_the_nearest(sim: Simulator, home: Path) -> None:
    done = run_cli(
        "--base-url", sim.url, "ask", "--json", "--model", "gpt-5.9", "hi", env=cli_env(home)
    )
    assert done.returncode == 2
    error = json.loads(done.stdout)["error"]
    assert error["status"] == 400
    assert "gpt-5.9" in error["message"] and "gpt-5.5" in error["message"]
    assert not sim.requests_to(RUN_PATH)


def test_the_nearest_models_are_named_once_each(home: Path) -> None:
    from nodecode_cursor.errors import ConfigError
    from nodecode_host.cli import resolve_model
    from nodecode_host.refhost import ReferenceHost

    with ReferenceHost(home) as host:
        host.start()
        # After /models the chat passes the roster's ids too; they repeat the catalog's.
        with pytest.raises(ConfigError) as caught:
            resolve_model(host, "gpt-9", ["gpt-5.4", "gpt-5.5"])
    found = re.search(r"Nearest supported: (.*?)\. \(", str(caught.value))
    assert found is not None, str(caught.value)
    names = found.group(1).split(", ")
    assert "gpt-5.4" in names
    assert len(names) == len(set(names)), names


def test_unknown_effort_lists_the_models_efforts(sim: Simulator, home: Path) -> None:
    done = run_cli(
        "--base-url",
        sim.url,
        "ask",
        "--model",
        "gpt-5.4",
        "--effort",
        "max",
        "hi",
        env=cli_env(home),
    )
    assert done.returncode == 2
    assert "low, medium, high, xhigh" in done.stderr
    assert "Traceback" not in done.stderr
    assert not sim.requests_to(RUN_PATH)


def test_usage_error_with_json_is_json_and_exit_2(home: Path) -> None:
    done = run_cli("ask", "--json", env=cli_env(home))
    assert done.returncode == 2
    assert json.loads(done.stdout)["error"]["status"] == 400


def test_not_signed_in_says_how_to_sign_in(sim: Simulator, home: Path) -> None:
    env = cli_env(home, signed_out=True)
    done = run_cli("--base-url", sim.url, "ask", "--json", "hi", env=env)
    assert done.returncode == 2
    message = json.loads(done.stdout)["error"]["message"]
    assert "not signed in" in message and "nodecode-cursor login" in message
    assert not sim.requests_to(RUN_PATH)


def test_unreachable_names_the_url(home: Path) -> None:
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    url = f"http://127.0.0.1:{port}"
    done = run_cli("--base-url", url, "ask", "--json", "hi", env=cli_env(home))
    assert done.returncode == 1
    error = json.loads(done.stdout)["error"]
    assert url in error["message"]
    assert TOKEN not in done.stdout + done.stderr
    assert "Traceback" not in done.stderr


def test_a_token_with_a_line_break_is_refused_without_echoing_it(
    sim: Simulator, home: Path
) -> None:
    env = cli_env(home, CURSOR_ACCESS_TOKEN="secretHALF1\nsecretHALF2")
    # models still lists the bundled rows (exit 0), saying why the live list is missing.
    for args, code in ((("ask", "--json", "hi"), 2), (("models",), 0), (("status",), 2)):
        done = run_cli("--base-url", sim.url, *args, env=env)
        assert done.returncode == code, done.stdout + done.stderr
        assert "CURSOR_ACCESS_TOKEN" in done.stdout + done.stderr
        assert "secretHALF" not in done.stdout + done.stderr
        assert "Traceback" not in done.stderr
    assert not sim.requests_to(RUN_PATH)


def test_verbose_log_never_shows_the_token(sim: Simulator, home: Path) -> None:
    done = run_cli("-v", "--base-url", sim.url, "ask", "--tools", "none", "hi", env=cli_env(home))
    assert done.returncode == 0
    assert "nodecode_cursor" in done.stderr  # the debug log is on
    assert TOKEN not in done.stderr + done.stdout


def test_the_log_redactor_scrubs_messages_and_tracebacks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CURSOR_ACCESS_TOKEN", "env-token-value-12345")
    refreshed = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1c2VyIn0.c2lnbmF0dXJlLXZhbHVl"
    out = io.StringIO()
    handler = logging.StreamHandler(out)
    handler.setFormatter(logging.Formatter("%(message)s"))
    handler.addFilter(TokenRedactor())
    logger = logging.getLogger("nodecode_cursor.test-redactor")
    logger.addHandler(handler)
    logger.propagate = False
    try:
        logger.warning("sent %s with env-token-value-12345", f"'Bearer {refreshed}'")
        try:
            raise ValueError(f"Illegal header value b'Bearer {refreshed}'")
        except ValueError:
            logger.error("the request failed", exc_info=True)
    finally:
        logger.removeHandler(handler)
        logger.propagate = True
    written = out.getvalue()
    assert "Traceback" in written and "ValueError: Illegal header value" in written
    assert "[redacted]" in written
    assert refreshed not in written and "eyJ" not in written
    assert "env-token-value-12345" not in written
    # Prose about bearer tokens stays readable.
    assert "the bearer token" in TokenRedactor.redacted("the bearer token was refused")


def test_models_json_lists_the_accounts_roster(sim: Simulator, home: Path) -> None:
    done = run_cli("--base-url", sim.url, "models", "--json", env=cli_env(home))
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert answer["live"] is True and answer["reason"] is None
    served = sorted(entry.model_id for entry in sim.models.roster)
    assert [row["id"] for row in answer["models"]] == served
    assert all(row["context_window"] > 0 for row in answer["models"])


def test_models_without_a_token_lists_the_bundled_rows_and_why(home: Path) -> None:
    env = cli_env(home, signed_out=True)
    done = run_cli("models", "--json", env=env)
    assert done.returncode == 0
    answer = json.loads(done.stdout)
    assert answer["live"] is False
    assert "not signed in" in answer["reason"]
    assert "(from a shell: nodecode-cursor login)" in answer["reason"]
    assert "composer-2.5" in {row["id"] for row in answer["models"]}
    table = run_cli("models", env=env)
    assert table.returncode == 0
    head = table.stdout.splitlines()[0]
    assert "the live list is missing: Cursor is not signed in" in head
    assert head.endswith("(from a shell: nodecode-cursor login)"), head


def test_status_names_the_token_source(home: Path) -> None:
    done = run_cli("status", env=cli_env(home))
    assert done.returncode == 0
    assert done.stdout.strip() == ENV_STATUS
    keyed = cli_env(home, signed_out=True, CURSOR_API_KEY="key-from-the-environment")
    named = run_cli("status", env=keyed)
    assert named.returncode == 0
    assert "(CURSOR_API_KEY) is used" in named.stdout
    assert "key-from-the-environment" not in named.stdout + named.stderr
    env = cli_env(home, signed_out=True)
    bare = run_cli("status", env=env)
    assert bare.returncode == 0
    assert "not signed in" in bare.stdout and "/cursor login" in bare.stdout


def test_login_status_logout(sim: Simulator, home: Path) -> None:
    env = cli_env(home, signed_out=True)
    process = start_login(sim, env)
    try:
        assert process.stdout is not None
        first = process.stdout.readline()
        assert f"{sim.url}/loginDeepControl?" in first
        # A shell waits for the sign-in: the chat's "finishes in the background" does not fit.
        assert first.startswith("cursor: open http") and "background" not in first
        login_id = first.split("uuid=")[1].split("&")[0].split()[0]
        sim.auth.confirm(login_id)
        out, err = process.communicate(timeout=RUN_TIMEOUT)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert process.returncode == 0, err
    assert "waiting for the browser sign-in (Ctrl-C cancels)" in err
    assert "cursor: signed in as person@example.com" in out
    assert json.loads((home / "auth.json").read_text())["oauth_tokens"]["cursor"]["access_token"]
    status = run_cli("status", env=env)
    assert status.stdout.strip() == "cursor: signed in as person@example.com"
    logout = run_cli("logout", env=env)
    assert logout.returncode == 0 and logout.stdout.strip() == "cursor: signed out"
    assert "not signed in" in run_cli("status", env=env).stdout
    again = run_cli("logout", env=env)
    assert again.returncode == 0
    assert again.stdout.strip() == "cursor: not signed in; nothing to forget"


def test_login_interrupted_exits_non_zero_and_keeps_nothing(sim: Simulator, home: Path) -> None:
    env = cli_env(home, signed_out=True)
    process = start_login(sim, env)
    try:
        assert process.stdout is not None
        assert "loginDeepControl" in process.stdout.readline()
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=RUN_TIMEOUT)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert process.returncode == 130
    assert "cancelled" in err
    assert not (home / "auth.json").exists() or "cursor" not in json.loads(
        (home / "auth.json").read_text()
    ).get("oauth_tokens", {})


def test_login_that_fails_exits_1_with_one_line(sim: Simulator, home: Path) -> None:
    env = cli_env(home, signed_out=True)
    sim.auth.queue_poll("error", "error", "error")  # Cursor refuses three polls in a row
    done = run_cli("--base-url", sim.url, "--web-url", sim.url, "login", env=env)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "cursor: sign-in failed: Too many consecutive errors during Cursor auth polling" in (
        done.stdout
    )
    assert "Traceback" not in done.stderr
    assert sim.auth.polls and sim.auth.polls[0]["verifier"] not in done.stdout + done.stderr
    assert not (home / "auth.json").exists()


def test_ask_timeout_ends_a_silent_round_with_an_error(sim: Simulator, home: Path) -> None:
    sim.agent.script([StepStarted(), Text("a start "), Sleep(30)])
    started = time.monotonic()
    done = run_cli(
        "--base-url", sim.url, "ask", "--json", "--timeout", "0.5", "hi", env=cli_env(home)
    )
    assert time.monotonic() - started < 20
    assert done.returncode == 1, done.stdout + done.stderr
    error = json.loads(done.stdout)["error"]
    assert error["status"] == 502
    assert "sent nothing for" in error["message"]
    bad = run_cli("--base-url", sim.url, "ask", "--json", "--timeout", "0", "hi", env=cli_env(home))
    assert bad.returncode == 2
    assert "--timeout" in json.loads(bad.stdout)["error"]["message"]


def test_sign_in_verbs_over_a_corrupt_auth_json_fail_and_leave_it(
    sim: Simulator, home: Path
) -> None:
    corrupt = b'{"api_keys": {"openai": {"key": "sk-other-provider"}}, oops'
    (home / "auth.json").write_bytes(corrupt)
    env = cli_env(home)
    for verb in ("login", "status", "logout"):
        done = run_cli("--base-url", sim.url, "--web-url", sim.url, verb, env=env)
        assert done.returncode == 1, (verb, done.stdout, done.stderr)
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and str(home / "auth.json") in lines[0], (verb, done.stderr)
        assert "not valid JSON" in lines[0] and "sk-other-provider" not in done.stderr
        assert "Traceback" not in done.stderr
    assert (home / "auth.json").read_bytes() == corrupt
    assert not sim.auth.polls


def copy_cell_folder(target: Path) -> Path:
    """Copy the repo's cell folder (manifest, package, data) to TARGET; return it."""
    target.mkdir(parents=True)
    shutil.copy2(REPO / "cell.toml", target / "cell.toml")
    for name in ("models.json", "wire.json"):
        shutil.copy2(REPO / name, target / name)
    shutil.copytree(
        REPO / "nodecode_cursor",
        target / "nodecode_cursor",
        ignore=shutil.ignore_patterns("__pycache__", "*.pyc"),
    )
    return target


def test_drop_in_folder_loads_without_the_entry_point(sim: Simulator, home: Path) -> None:
    folder = copy_cell_folder(home / "cells" / "nodecode-cursor")
    # Entry points off: only the folder can give the lane. The package must also be
    # imported from the folder, not from the installed distribution, so the folder
    # leads the import path (as the host's own folder handling would put it).
    env = cli_env(home, NODECODE_ENTRY_POINTS="0", PYTHONPATH=str(folder))
    done = run_cli(
        "-v", "--base-url", sim.url, "ask", "--json", "--tools", "none", "hi", env=env, cwd=home
    )
    assert done.returncode == 0, done.stderr + done.stdout
    assert json.loads(done.stdout)["message"]["content"].endswith("You said: hi")
    assert f"loaded cell nodecode-cursor from folder {folder}" in done.stderr
    assert f"(module {folder / 'nodecode_cursor' / 'cell.py'})" in done.stderr
    assert "from entry point" not in done.stderr


def test_without_entry_points_or_folders_there_is_no_lane(sim: Simulator, home: Path) -> None:
    env = cli_env(home, NODECODE_ENTRY_POINTS="0")
    done = run_cli("--base-url", sim.url, "ask", "--json", "hi", env=env)
    assert done.returncode == 2
    assert "no cell gives the cursor lane" in json.loads(done.stdout)["error"]["message"]
    assert not sim.requests_to(RUN_PATH)


def test_config_veto_leaves_no_lane_and_no_command(sim: Simulator, home: Path) -> None:
    (home / "config.json").write_text(json.dumps({"cursor": {"enabled": False}}))
    done = run_cli("--base-url", sim.url, "ask", "--json", "hi", env=cli_env(home))
    assert done.returncode == 2
    assert "disabled" in json.loads(done.stdout)["error"]["message"]
    status = run_cli("status", env=cli_env(home))
    assert status.returncode == 2
    assert "disabled" in status.stderr
    assert not sim.requests_to(RUN_PATH)


def test_a_broken_config_json_is_a_config_error(home: Path) -> None:
    (home / "config.json").write_text("{not json")
    done = run_cli("status", env=cli_env(home))
    assert done.returncode == 2
    assert "config.json" in done.stderr and "Traceback" not in done.stderr


def test_demo_runs_the_tool_handoff_to_the_final_answer(home: Path) -> None:
    env = cli_env(home, signed_out=True)
    done = run_cli("demo", env=env)
    assert done.returncode == 0, done.stderr + done.stdout
    out = done.stdout
    assert "OFFLINE DEMO" in out and "not Cursor" in out
    assert "round 1" in out and "round 2" in out
    assert '→ read_file({"path": "release-notes.txt"})' in out
    final = "read_file returned: nodecode-cursor 0.1.0: the cursor lane"
    assert final in out
    assert out.index("round 2") < out.index(final)
    assert "2 rounds, finish stop" in out
    # The demo never touches the person's home.
    assert list(home.iterdir()) == []


# The chat REPL through a pseudo-terminal ------------------------------------------------------


def spawn_chat(sim: Simulator, home: Path, cwd: Path, *extra: str) -> Any:
    """Return a pexpect child running ``nodecode-cursor chat`` on a pseudo-terminal."""
    pexpect = pytest.importorskip("pexpect")
    child = pexpect.spawn(
        sys.executable,
        ["-m", "nodecode_host.cli", "--base-url", sim.url, "chat", *extra],
        env=cli_env(home, TERM="dumb"),
        cwd=str(cwd),
        encoding="utf-8",
        timeout=RUN_TIMEOUT,
        dimensions=(40, 200),
    )
    return child


def close_chat(child: Any) -> None:
    """Leave the chat with /quit and check it exited 0."""
    child.sendline("/quit")
    child.expect(child.EOF if hasattr(child, "EOF") else __import__("pexpect").EOF)
    child.close()
    assert child.exitstatus == 0


def test_chat_streams_an_answer_and_answers_cursor_status(
    sim: Simulator, home: Path, tmp_path: Path
) -> None:
    child = spawn_chat(sim, home, tmp_path)
    try:
        child.expect("session chat-")
        child.expect("> ")
        child.sendline("hello through a terminal")
        child.expect("Simulated Cursor here. You said: hello through a terminal")
        child.expect("> ")
        child.sendline("/cursor status")
        child.expect_exact(ENV_STATUS)
        child.expect("> ")
        child.sendline("/model gpt-5.9")
        child.expect("unknown model cursor/gpt-5.9")
        child.expect("> ")
        child.sendline("/model gpt-5.4")
        child.expect("model: cursor/gpt-5.4")
        child.expect("> ")
        child.sendline("/effort max")
        child.expect("its efforts: low, medium, high, xhigh")
        child.expect("> ")
        child.sendline("/effort high")
        child.expect("effort: high")
        child.expect("> ")
        # Tab completes the cell's verbs through readline.
        child.send("/cursor sta\t")
        child.expect("status")
        child.send("\r")
        child.expect_exact(ENV_STATUS)
        child.expect("> ")
        child.sendline("/models")
        child.expect("Cursor models your account may use")
        child.expect("> ")
        child.sendline("/new")
        child.expect("new session chat-")
        child.expect("> ")
        close_chat(child)
    finally:
        child.close(force=True)
    assert sim.agent.run(0).prompt() == "hello through a terminal"


def test_chat_login_then_logout_redraws_the_prompt(
    sim: Simulator, home: Path, tmp_path: Path
) -> None:
    sim.auth.queue_poll("tokens")  # the person confirms in the browser at once
    env_home = home
    child = spawn_chat(sim, env_home, tmp_path, "--web-url", sim.url)
    try:
        child.expect("> ")
        child.sendline("/cursor login")
        child.expect(r"cursor: open http://127\.0\.0\.1:\d+/loginDeepControl\?challenge=")
        child.expect("> ")
        # The background sign-in reports over the prompt, then the prompt comes back.
        child.expect("cursor: signed in as person@example.com\r\n> ")
        child.sendline("/cursor status")
        child.expect("cursor: signed in as person@example.com")
        child.expect("> ")
        child.sendline("/cursor logout")
        child.expect("cursor: signed out")
        child.expect("> ")
        close_chat(child)
    finally:
        child.close(force=True)
    kept = json.loads((home / "auth.json").read_text())
    assert kept == {"oauth_tokens": {}}


def test_chat_ctrl_c_stops_a_slow_models_list_not_the_chat(
    sim: Simulator, home: Path, tmp_path: Path
) -> None:
    from cursor_simulator.models import PATH as MODELS_PATH
    from cursor_simulator.server import SimRequest, SimResponse

    def stalls(request: SimRequest) -> SimResponse:
        def body() -> Any:
            for _ in range(300):  # 30 s at most, ended early when the client goes away
                if request.client_gone():
                    return
                time.sleep(0.1)
            yield b""

        return SimResponse(200, {"content-type": "application/proto"}, body())

    sim.route(MODELS_PATH, stalls)
    child = spawn_chat(sim, home, tmp_path, "--tools", "none")
    try:
        child.expect("> ")
        child.sendline("/models")
        deadline = time.monotonic() + 10
        while not sim.requests_to(MODELS_PATH) and time.monotonic() < deadline:
            time.sleep(0.02)
        child.sendintr()
        child.expect(r"\(interrupted\)")
        child.expect("> ")
        child.sendline("still here?")
        child.expect("You said: still here\\?")
        child.expect("> ")
        close_chat(child)
    finally:
        child.close(force=True)


def test_chat_runs_a_confirmed_command_for_the_model(
    sim: Simulator, home: Path, tmp_path: Path
) -> None:
    child = spawn_chat(sim, home, tmp_path)
    try:
        child.expect("> ")
        child.sendline('Use run_command with {"command": "echo tool-said-$((6*7))"}')
        child.expect(r"run `echo tool-said-\$\(\(6\*7\)\)`\? \[y/N\]")
        child.sendline("y")
        child.expect("run_command returned: exit code 0")
        child.expect("tool-said-42")
        child.expect("> ")
        close_chat(child)
    finally:
        child.close(force=True)
    assert len(sim.requests_to(RUN_PATH)) == 2


def test_chat_ctrl_c_stops_the_round_and_keeps_the_text(
    sim: Simulator, home: Path, tmp_path: Path
) -> None:
    sim.agent.script([StepStarted(), Text("the first half "), Sleep(30), Text("never sent")])
    child = spawn_chat(sim, home, tmp_path, "--tools", "none")
    try:
        child.expect("> ")
        child.sendline("tell me a long story")
        child.expect("the first half")
        started = time.monotonic()
        child.sendintr()
        child.expect("interrupted")
        child.expect("> ")
        assert time.monotonic() - started < 10
        # The next turn carries the kept text in its history.
        child.sendline("go on")
        child.expect("You said: go on")
        child.expect("> ")
        close_chat(child)
    finally:
        child.close(force=True)
    history = json.dumps(sim.agent.run(-1).root_messages())
    assert "the first half" in history
    assert "never sent" not in history


def test_chat_shows_a_standing_notice_above_the_prompt_until_cleared(
    sim: Simulator, home: Path, tmp_path: Path
) -> None:
    from cursor_simulator.auth import make_token

    # A kept sign-in due for renewal, and a Cursor that answers the renewal with
    # shouldLogout: the round fails and the cell posts a standing notice.
    entry = {
        "access_token": make_token(lifetime=3600),
        "refresh_token": "refresh-kept",
        "expires_at": time.time() + 5,
        "email": "person@example.com",
    }
    (home / "auth.json").write_text(json.dumps({"oauth_tokens": {"cursor": entry}}))
    sim.auth.refresh_mode = "logout"
    pexpect = pytest.importorskip("pexpect")
    env = cli_env(home, signed_out=True, TERM="dumb")
    child = pexpect.spawn(
        sys.executable,
        ["-m", "nodecode_host.cli", "--base-url", sim.url, "chat", "--tools", "none"],
        env=env,
        cwd=str(tmp_path),
        encoding="utf-8",
        timeout=RUN_TIMEOUT,
        dimensions=(40, 200),
    )
    try:
        child.expect("> ")
        child.sendline("hello")
        child.expect("error: ")
        child.expect("\r\n! cursor: ")  # the notice, on its own line above the prompt
        child.expect("> ")
        child.sendline("/help")
        child.expect("/quit")
        child.expect("! cursor: ")  # still standing at the next prompt
        child.expect("> ")
        child.sendline("/cursor logout")
        child.expect("cursor: signed out")
        child.expect("> ")
        child.sendline("/new")
        child.expect("new session")
        child.expect("> ")
        # The cell's notice is cleared; with no credential left, the chat's own stands.
        notices = [line.strip() for line in child.before.splitlines() if line.startswith("! ")]
        assert notices == [NOT_SIGNED_IN_NOTICE], child.before
        close_chat(child)
    finally:
        child.close(force=True)
    assert sim.auth.refresh_calls == 1
    assert not sim.requests_to(RUN_PATH)


def test_chat_turn_that_breaks_says_so_and_the_chat_goes_on(sim: Simulator, home: Path) -> None:
    import io

    from nodecode_host.chat import ChatRepl
    from nodecode_host.host_tools import Toolbox
    from nodecode_host.refhost import Conversation, ReferenceHost

    class BrokenTool(Toolbox):
        """A host tool with a bug in it."""

        def definitions(self) -> list[dict[str, Any]]:
            return [{"type": "function", "function": {"name": "frobnicate", "parameters": {}}}]

        def runs(self, name: str) -> bool:
            return True

        def run(self, name: str, arguments: str) -> str:
            raise RuntimeError("the tool fell over")

    out = io.StringIO()
    with ReferenceHost(home, overrides={"cursor": {"base_url": sim.url}}) as host:
        host.start()
        conversation = Conversation(model="composer-2.5", credential=TOKEN, session_id="s1")
        repl = ChatRepl(host, conversation, BrokenTool(), out=out)
        repl.turn("please frobnicate")
        assert "error: internal error: RuntimeError: the tool fell over" in out.getvalue()
        assert conversation.messages == []  # nothing half-done is kept
        repl.turn("hello again")
    assert "You said: hello again" in out.getvalue()
    assert "Traceback" not in out.getvalue()


def test_serve_answers_an_openai_client_and_stops_on_sigterm(sim: Simulator, home: Path) -> None:
    import httpx

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with running_serve(sim, home, "--port", str(port)) as banner:
        assert f"http://127.0.0.1:{port}" in banner and "loopback only" in banner
        answer = httpx.post(
            f"http://127.0.0.1:{port}/v1/chat/completions",
            json={"model": "cursor/composer-2.5", "messages": [{"role": "user", "content": "hi"}]},
            timeout=RUN_TIMEOUT,
        ).json()
        assert answer["object"] == "chat.completion"
        assert answer["choices"][0]["message"]["content"] == "Simulated Cursor here. You said: hi"
        assert answer["choices"][0]["finish_reason"] == "stop"


def test_serve_refuses_a_network_address_without_a_client_key(home: Path) -> None:
    done = run_cli("serve", "--host", "0.0.0.0", env=cli_env(home))
    assert done.returncode == 2
    assert "NODECODE_SERVE_API_KEY" in done.stderr
    assert "Traceback" not in done.stderr
    # The key typed on the command line is never echoed back.
    inline = run_cli("serve", "--api-key=s3cret-key", env=cli_env(home))
    assert inline.returncode == 2
    for run in (done, inline):
        assert "s3cret-key" not in run.stdout + run.stderr


# Usage errors a person can make on the command line -------------------------------------------


@pytest.mark.parametrize("value", ["nan", "inf", "1e400"])
def test_ask_timeout_must_be_a_finite_number(sim: Simulator, home: Path, value: str) -> None:
    done = run_cli("--base-url", sim.url, "ask", "--timeout", value, "hi", env=cli_env(home))
    assert done.returncode == 2, done.stdout + done.stderr
    assert "--timeout" in done.stderr and "not a finite number" in done.stderr
    assert "Traceback" not in done.stderr
    assert not sim.requests_to(RUN_PATH)


@pytest.mark.parametrize("value", ["0", "99999", "65536", "-1"])
def test_serve_port_out_of_range_is_a_usage_error(home: Path, value: str) -> None:
    done = run_cli("serve", "--port", value, env=cli_env(home))
    assert done.returncode == 2, done.stdout + done.stderr
    assert "--port" in done.stderr and "1 to 65535" in done.stderr
    assert "internal error" not in done.stderr and "Traceback" not in done.stderr


@contextlib.contextmanager
def running_serve(sim: Simulator, home: Path, *args: str) -> Iterator[str]:
    """Yield the first line ``serve ARGS`` writes to stderr; then stop it with SIGTERM.

    Leaving the block asserts that the server stopped cleanly (exit 0) on SIGTERM.
    """
    process = subprocess.Popen(
        [*CLI, "--base-url", sim.url, "serve", *args],
        env=cli_env(home),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stderr is not None
        yield process.stderr.readline()
        process.send_signal(signal.SIGTERM)
        assert process.wait(RUN_TIMEOUT) == 0
    finally:
        if process.poll() is None:
            process.kill()
        process.communicate()


def serve_banner(sim: Simulator, home: Path, *args: str) -> str:
    """Return the first line ``serve ARGS`` writes to stderr, after stopping it with SIGTERM."""
    with running_serve(sim, home, *args) as banner:
        return banner


def test_serve_on_ipv6_loopback_brackets_the_address(sim: Simulator, home: Path) -> None:
    try:
        with socket.socket(socket.AF_INET6) as probe:
            probe.bind(("::1", 0))
            port = probe.getsockname()[1]
    except OSError:
        pytest.skip("no IPv6 loopback here")
    banner = serve_banner(sim, home, "--host", "::1", "--port", str(port))
    assert f"http://[::1]:{port}/v1" in banner, banner
    assert "loopback only" in banner


@pytest.mark.parametrize(
    "args",
    [
        ("--base-url", "BASE", "demo"),
        ("demo", "--base-url", "BASE"),
        ("--web-url", "BASE", "demo"),
    ],
)
def test_demo_refuses_a_url_it_would_never_use(
    sim: Simulator, home: Path, args: tuple[str, ...]
) -> None:
    done = run_cli(*(sim.url if a == "BASE" else a for a in args), env=cli_env(home))
    assert done.returncode == 2, done.stdout + done.stderr
    assert "bundled simulator" in done.stderr
    assert "--base-url" in done.stderr or "--web-url" in done.stderr
    assert "OFFLINE DEMO" not in done.stdout
    assert sim.requests == []  # the demo dialled nothing it was given


# config.json shapes ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("config", "names"),
    [
        ({"cursor": "x"}, ['"cursor"', "must be a JSON object", 'the string "x"']),
        ({"cursor": ["a"]}, ['"cursor"', "must be a JSON object", "an array"]),
        ({"cursor": {"enabled": "no"}}, ['"enabled"', "true or false", 'the string "no"']),
        ({"cursor": {"enabled": 0}}, ['"enabled"', "true or false", "the number 0"]),
        ({"model": 5}, ['"model"', "a model id string", "the number 5"]),
        ({"effort": True}, ['"effort"', "an effort string", "the boolean true"]),
    ],
)
def test_a_config_value_of_the_wrong_shape_is_a_config_error(
    sim: Simulator, home: Path, config: dict[str, Any], names: list[str]
) -> None:
    (home / "config.json").write_text(json.dumps(config))
    for args in (("ask", "--tools", "none", "hi"), ("status",), ("models",)):
        done = run_cli("--base-url", sim.url, *args, env=cli_env(home))
        assert done.returncode == 2, (args, done.stdout, done.stderr)
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1, done.stderr
        assert str(home / "config.json") in lines[0]
        for name in names:
            assert name in lines[0], (name, lines[0])
        assert "Traceback" not in done.stderr
    assert not sim.requests_to(RUN_PATH)


@pytest.mark.parametrize("text", ["", "  \n\t\n"])
def test_an_empty_config_json_counts_as_an_empty_object(
    sim: Simulator, home: Path, text: str
) -> None:
    (home / "config.json").write_text(text)
    answer = ask_json(sim, home, "--tools", "none", "hi")
    assert answer["message"]["content"].endswith("You said: hi")
    status = run_cli("status", env=cli_env(home))
    assert status.returncode == 0, status.stderr


def test_an_unknown_model_or_effort_from_config_json_says_where_it_came_from(
    sim: Simulator, home: Path
) -> None:
    config = home / "config.json"
    config.write_text(json.dumps({"model": "gpt-5.9"}))
    done = run_cli("--base-url", sim.url, "ask", "hi", env=cli_env(home))
    assert done.returncode == 2
    assert f'unknown model cursor/gpt-5.9 (the "model" in {config})' in done.stderr
    # The same name on the command line is the person's own: no pointer to the file.
    config.write_text("{}")
    argv = run_cli("--base-url", sim.url, "ask", "--model", "gpt-5.9", "hi", env=cli_env(home))
    assert argv.returncode == 2 and "unknown model cursor/gpt-5.9" in argv.stderr
    assert "config.json" not in argv.stderr
    config.write_text(json.dumps({"model": "gpt-5.4", "effort": "max"}))
    effort = run_cli("--base-url", sim.url, "ask", "hi", env=cli_env(home))
    assert effort.returncode == 2
    assert f"effort 'max' (the \"effort\" in {config}) is not supported" in effort.stderr
    assert not sim.requests_to(RUN_PATH)


# The chat without any credential ---------------------------------------------------------------

NOT_SIGNED_IN_NOTICE = "! cursor: not signed in: /cursor login, or set CURSOR_ACCESS_TOKEN"


def test_chat_without_a_credential_says_so_until_a_sign_in_succeeds(
    sim: Simulator, home: Path, tmp_path: Path
) -> None:
    pexpect = pytest.importorskip("pexpect")
    env = cli_env(home, signed_out=True, TERM="dumb")
    child = pexpect.spawn(
        sys.executable,
        [*CLI[1:], "--base-url", sim.url, "--web-url", sim.url, "chat", "--tools", "none"],
        env=env,
        cwd=str(tmp_path),
        encoding="utf-8",
        timeout=RUN_TIMEOUT,
        dimensions=(40, 200),
    )
    try:
        child.expect("session chat-")
        child.expect_exact(NOT_SIGNED_IN_NOTICE)  # at start, before anything is tried
        child.expect("> ")
        child.sendline("/help")
        child.expect("/quit")
        child.expect_exact(NOT_SIGNED_IN_NOTICE)  # standing: at every prompt
        child.expect("> ")
        child.sendline("hello")
        child.expect("error: Cursor is not signed in")
        child.expect_exact("(↑ recalls your line)")  # a terminal recalls the line
        child.expect("> ")
        sim.auth.queue_poll("tokens")
        child.sendline("/cursor login")
        child.expect("cursor: signed in as person@example.com")
        child.sendline("/help")
        child.expect("/quit")
        child.expect("> ")
        assert "not signed in" not in child.before  # the sign-in cleared it
        child.sendline("hello again")
        child.expect("You said: hello again")
        child.expect("> ")
        close_chat(child)
    finally:
        child.close(force=True)


def test_chat_on_piped_input_has_no_line_recall_hint(sim: Simulator, home: Path) -> None:
    env = cli_env(home, signed_out=True)
    done = subprocess.run(
        [*CLI, "--base-url", sim.url, "chat", "--tools", "none"],
        env=env,
        input="hello\n/quit\n",
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT,
    )
    assert done.returncode == 0, done.stderr
    assert NOT_SIGNED_IN_NOTICE in done.stdout
    assert "error: Cursor is not signed in" in done.stdout
    assert "recalls your line" not in done.stdout
    assert not sim.requests_to(RUN_PATH)


def test_a_usage_error_is_json_only_for_a_command_that_takes_json(home: Path) -> None:
    done = run_cli("status", "--json", env=cli_env(home))
    assert done.returncode == 2
    assert done.stdout == ""  # no JSON object for a command that has no --json
    assert done.stderr.strip() == (
        "nodecode-cursor: unrecognized arguments: --json (see nodecode-cursor status --help)"
    )
    asked = run_cli("ask", "--json", "--bogus", "hi", env=cli_env(home))
    assert asked.returncode == 2
    message = json.loads(asked.stdout)["error"]["message"]
    assert "--bogus" in message and "(see nodecode-cursor ask --help)" in message


def test_serve_api_key_flag_points_at_serve_help_and_the_variable(home: Path) -> None:
    done = run_cli("serve", "--api-key", "s3cret-key", env=cli_env(home))
    assert done.returncode == 2
    assert "(see nodecode-cursor serve --help)" in done.stderr
    assert "NODECODE_SERVE_API_KEY" in done.stderr
    assert "Traceback" not in done.stderr
    # The key typed on the command line is never echoed back.
    inline = run_cli("serve", "--api-key=s3cret-key", env=cli_env(home))
    assert inline.returncode == 2
    for run in (done, inline):
        assert "s3cret-key" not in run.stdout + run.stderr


def test_models_table_columns_fit_the_longest_effort_list(home: Path) -> None:
    env = cli_env(home, signed_out=True)
    rows = json.loads(run_cli("models", "--json", env=env).stdout)["models"]
    table = run_cli("models", env=env)
    assert table.returncode == 0
    lines = table.stdout.splitlines()[1:]
    assert len(lines) == len(rows)
    assert "muse-spark-1.3" in {r["id"] for r in rows}  # the row the tester saw overflow
    starts = set()
    for line, row in zip(lines, rows, strict=True):
        assert line.startswith(f"  {row['id']} ")
        efforts = ",".join(row["efforts"]) or "-"
        assert f"  {efforts}  " in line, line  # at least two spaces before the name
        starts.add(line.index(row["name"], line.index(efforts) + len(efforts)))
    assert len(starts) == 1, starts  # every name starts in the same column


# -v: what a person debugging sees ------------------------------------------------------------


def test_verbose_ask_logs_each_round(sim: Simulator, home: Path, tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("the secret word is heliotrope\n")
    done = run_cli(
        "-v",
        "--base-url",
        sim.url,
        "ask",
        "--session",
        "s-verbose",
        'Use read_file with {"path": "notes.txt"}',
        env=cli_env(home),
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    rounds = [line for line in done.stderr.splitlines() if "nodecode_host.refhost" in line]
    rounds = [line for line in rounds if " round " in line]
    assert len(rounds) == 2, done.stderr
    assert re.search(
        r"INFO round 1: model composer-2\.5 \(wire composer-2\.5\), effort off, "
        r"session s-verbose, finish tool_calls, usage in \d+ out \d+ cache read \d+ write \d+, "
        r"\d+\.\d\ds",
        rounds[0],
    ), rounds[0]
    assert "round 2: " in rounds[1] and "finish stop" in rounds[1]
    assert TOKEN not in done.stderr


def test_verbose_serve_logs_each_request_and_refusals_without_keys(
    sim: Simulator, home: Path
) -> None:
    import httpx

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    client_key = "client-key-for-the-log-test"
    process = subprocess.Popen(
        [*CLI, "-v", "--base-url", sim.url, "serve", "--port", str(port)],
        env=cli_env(home, NODECODE_SERVE_API_KEY=client_key),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stderr is not None
        seen = []
        while not any("serving Cursor's models" in line for line in seen):
            line = process.stderr.readline()
            assert line, "".join(seen)
            seen.append(line)
        url = f"http://127.0.0.1:{port}/v1"
        body = {"model": "cursor/composer-2.5", "messages": [{"role": "user", "content": "hi"}]}
        good = httpx.post(
            f"{url}/chat/completions",
            json=body,
            headers={"authorization": f"Bearer {client_key}"},
            timeout=RUN_TIMEOUT,
        )
        assert good.status_code == 200
        wrong = httpx.get(
            f"{url}/models", headers={"authorization": "Bearer wrong-key-12345"}, timeout=5
        )
        assert wrong.status_code == 401
        process.send_signal(signal.SIGTERM)
        assert process.wait(RUN_TIMEOUT) == 0
        _, rest = process.communicate()
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    log = "".join(seen) + rest
    assert re.search(
        r"INFO POST /v1/chat/completions -> 200 in \d+\.\d{3}s \(model cursor/composer-2\.5\)", log
    ), log
    assert re.search(r"WARNING refused GET /v1/models: missing or wrong client API key", log), log
    assert re.search(r"INFO GET /v1/models -> 401 in \d+\.\d{3}s", log), log
    for secret in (client_key, "wrong-key-12345", TOKEN):
        assert secret not in log


def test_a_model_only_the_accounts_roster_lists_can_be_asked(sim: Simulator, home: Path) -> None:
    # The simulator's default roster lists gpt-5.4-high, which no bundled row is named.
    answer = ask_json(sim, home, "--model", "gpt-5.4-high", "hi")
    assert answer["message"]["content"] == "Simulated Cursor here. You said: hi"
    assert answer["wire_model"] == "gpt-5.4-high"


def test_a_model_neither_bundled_nor_in_the_roster_is_refused(sim: Simulator, home: Path) -> None:
    done = run_cli(
        "--base-url", sim.url, "ask", "--model", "gpt-9.9-nowhere", "hi", env=cli_env(home)
    )
    assert done.returncode == 2
    assert "unknown model cursor/gpt-9.9-nowhere" in done.stderr
    assert "could not be checked" not in done.stderr


def test_a_misspelt_effort_is_refused_even_where_the_model_does_not_reason(
    sim: Simulator, home: Path
) -> None:
    done = run_cli(
        "--base-url",
        sim.url,
        "ask",
        "--model",
        "composer-2.5",
        "--effort",
        "bogus",
        "hi",
        env=cli_env(home),
    )
    assert done.returncode == 2
    assert "'bogus' is not a known level" in done.stderr
    assert sim.requests_to("/agent.v1.AgentService/RunSSE") == []


@pytest.mark.parametrize("where", ["config", "history"])
def test_json_with_a_number_past_the_digit_limit_is_a_config_error(
    home: Path, tmp_path: Path, where: str
) -> None:
    huge = "{" + '"x": ' + "9" * 5000 + "}"
    if where == "config":
        (home / "config.json").write_text(huge)
        done = run_cli("status", env=cli_env(home))
    else:
        history = tmp_path / "history.json"
        history.write_text("[" + huge + "]")
        done = run_cli("ask", "--history", str(history), env=cli_env(home))
    assert done.returncode == 2, done.stderr
    assert "internal error" not in done.stderr and "Traceback" not in done.stderr


@pytest.mark.parametrize(
    ("section", "named"),
    [
        ({"web_url": 5}, '"web_url"'),
        ({"proxy": ["x"]}, '"proxy"'),
        ({"enabled": "no"}, '"enabled"'),
    ],
)
def test_a_cursor_setting_of_the_wrong_kind_is_a_config_error(
    sim: Simulator, home: Path, section: dict[str, Any], named: str
) -> None:
    (home / "config.json").write_text(json.dumps({"cursor": section}))
    done = run_cli("--base-url", sim.url, "ask", "hi", env=cli_env(home))
    assert done.returncode == 2, done.stderr
    assert named in done.stderr and "Traceback" not in done.stderr
    assert sim.requests_to("/agent.v1.AgentService/RunSSE") == []


def test_a_base_url_of_the_wrong_kind_is_refused_not_replaced_by_cursors() -> None:
    from nodecode_cursor.cell import Settings
    from nodecode_cursor.errors import ConfigError

    with pytest.raises(ConfigError, match=r'"base_url" .* must be a string, not a number'):
        Settings.from_section({"base_url": 5})
    assert Settings.from_section({"base_url": "http://127.0.0.1:9/"}).base_url == (
        "http://127.0.0.1:9"
    )
