"""``nodecode-cursor chat``: the REPL over a pseudo-terminal (line editing, Ctrl-C as a
signal), on piped input, and a ``ChatRepl`` driven directly.
"""

from __future__ import annotations

import io
import json
import os
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from cli_run import (
    CLI,
    ENV_STATUS,
    NOT_SIGNED_IN_NOTICE,
    RUN_TIMEOUT,
    TOKEN,
    cli_env,
    close_chat,
    run_main,
    spawn_chat,
)

from cursor_simulator import Simulator
from cursor_simulator.agent import RUN_PATH
from cursor_simulator.models import PATH as ROSTER_PATH
from cursor_simulator.steps import End, Sleep, StepStarted, Text, TurnEnded
from nodecode_host.chat import ChatRepl
from nodecode_host.refhost import ReferenceHost
from nodecode_host.toolbox import Toolbox
from nodecode_host.turn import Conversation


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
            # 30 s at most, ended early when the client goes away.
            deadline = time.monotonic() + 30
            while (left := deadline - time.monotonic()) > 0:
                if request.wait_gone(left):
                    return
            yield b""

        return SimResponse(200, {"content-type": "application/proto"}, body())

    sim.route(MODELS_PATH, stalls)
    child = spawn_chat(sim, home, tmp_path, "--tools", "none")
    try:
        child.expect("> ")
        child.sendline("/models")
        assert sim.wait_until(lambda: bool(sim.requests_to(MODELS_PATH)))
        child.sendintr()
        # The terminal echoed ^C; the words stand apart from it.
        child.expect_exact("^C (interrupted)")
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
        child.expect_exact("the model asks to run this command:\r\n  echo tool-said-$((6*7))\r\n")
        child.expect_exact("run it? [y/N] ")
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
    sim.agent.script([StepStarted(), Text("the first half "), Sleep(60), Text("never sent")])
    child = spawn_chat(sim, home, tmp_path, "--tools", "none")
    try:
        child.expect("> ")
        child.sendline("tell me a long story")
        child.expect("the first half")
        started = time.monotonic()
        child.sendintr()
        child.expect("interrupted")
        child.expect("> ")
        assert time.monotonic() - started < 30  # not the simulator's 60 s pause
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
    done = run_main(
        "--base-url", sim.url, "chat", "--tools", "none", env=env, stdin="hello\n/quit\n"
    )
    # Every turn failed: a script reading the exit code sees that nothing was answered.
    assert done.returncode == 1, done.stderr
    assert NOT_SIGNED_IN_NOTICE in done.stdout
    assert "error: Cursor is not signed in" in done.stdout
    assert "recalls your line" not in done.stdout
    assert not sim.requests_to(RUN_PATH)


def test_piped_chat_with_one_answered_turn_exits_0(sim: Simulator, home: Path) -> None:
    env = cli_env(home)
    done = run_main(
        "--base-url", sim.url, "chat", "--tools", "none", env=env, stdin="hello\n/quit\n"
    )
    assert done.returncode == 0, done.stderr
    assert "You said: hello" in done.stdout


def test_chat_shows_a_waiting_line_until_the_first_token(
    sim: Simulator, home: Path, tmp_path: Path
) -> None:
    release = threading.Event()

    def slow_model(run: Any) -> Any:
        yield StepStarted()
        release.wait(RUN_TIMEOUT)  # the model "thinks" until the test has seen the line
        yield Text("the late answer")
        yield TurnEnded(input=1, output=1)
        yield End()

    sim.agent.script(slow_model)
    child = spawn_chat(sim, home, tmp_path, "--tools", "none")
    try:
        child.expect("> ")
        child.sendline("take your time")
        child.expect(r"waiting for cursor/composer-2\.5… \d+s")
        release.set()
        # Wiped before the answer starts: the answer stands on a clean line.
        child.expect(r"\r +\rthe late answer")
        child.expect("> ")
        close_chat(child)
    finally:
        release.set()
        child.close(force=True)


def test_chat_shows_a_waiting_line_while_a_confirmed_command_runs(
    sim: Simulator, home: Path, tmp_path: Path
) -> None:
    fifo = tmp_path / "gate"
    os.mkfifo(fifo)
    child = spawn_chat(sim, home, tmp_path)
    try:
        child.expect("> ")
        child.sendline(f'Use run_command with {{"command": "cat {fifo}"}}')
        child.expect_exact("run it? [y/N] ")
        child.sendline("y")
        # cat waits on the FIFO until the test writes it: the line shows meanwhile.
        child.expect(r"running run_command… \d+s")
        with open(fifo, "w") as gate:
            gate.write("gate-opened\n")
        child.expect(r"\r +\r")
        child.expect("run_command returned: exit code 0")
        child.expect("gate-opened")
        child.expect("> ")
        close_chat(child)
    finally:
        child.close(force=True)


def test_piped_chat_shows_no_waiting_line(sim: Simulator, home: Path) -> None:
    done = run_main(
        "--base-url", sim.url, "chat", "--tools", "none", env=cli_env(home), stdin="hi\n/quit\n"
    )
    assert done.returncode == 0, done.stderr
    assert "You said: hi" in done.stdout
    assert "waiting for" not in done.stdout and "\r" not in done.stdout


# Reads how the host treats a six-row account roster, not one listing every model.
@pytest.mark.sim_named_roster
def test_model_choice_comes_from_the_accounts_roster(sim: Simulator, home: Path) -> None:
    roster = ["claude-opus-4-8-high", "claude-opus-4-8-max", "composer-2.5"]
    roster += ["gemini-3.1-pro", "gpt-5.4", "gpt-5.4-high"]
    host = ReferenceHost(home, overrides={"cursor": {"base_url": sim.url}})
    with pytest.MonkeyPatch.context() as env:
        env.setenv("CURSOR_ACCESS_TOKEN", TOKEN)
        host.start()
        try:
            out = io.StringIO()
            repl = ChatRepl(host, Conversation(model="composer-2.5"), Toolbox(), out=out)
            repl.slash("/model gpt-5.9")
            repl.slash("/model gpt-5.5")
            # Tab after the roster is known: the account's ids only, no bundled siblings.
            assert repl.completions("/model gpt-5", "gpt-5") == ["gpt-5.4", "gpt-5.4-high"]
            assert repl.completions("/model ", "") == roster
        finally:
            host.stop()
    assert out.getvalue().splitlines() == [
        "error: unknown model cursor/gpt-5.9. Nearest on your account: gpt-5.4, gpt-5.4-high, "
        "composer-2.5, gemini-3.1-pro, claude-opus-4-8-max. (`nodecode-cursor models` lists "
        "them)",
        "model: cursor/gpt-5.5, effort off",
        "note: your account's roster does not list gpt-5.5; Cursor may refuse its rounds "
        "(/models lists the account's models)",
    ]
    # One roster question for the chat, not one per /model.
    assert len(sim.requests_to(ROSTER_PATH)) == 1
