"""``nodecode-cursor login``, ``status`` and ``logout``: the sign-in from a shell.

``login`` runs as a subprocess (its browser sign-in waits in a background thread,
and Ctrl-C is a signal); ``status`` and ``logout`` run in-process.
"""

from __future__ import annotations

import json
import signal
from pathlib import Path

from cli_run import (
    ENV_STATUS,
    RUN_TIMEOUT,
    cli_env,
    run_cli,
    run_main,
    sign_in_status,
    start_login,
)

from cursor_simulator import Simulator


def test_status_names_the_token_source(home: Path) -> None:
    done = run_main("status", env=cli_env(home))
    assert done.returncode == 0
    assert sign_in_status(done.stdout.strip()) == ENV_STATUS
    keyed = cli_env(home, signed_out=True, CURSOR_API_KEY="key-from-the-environment")
    named = run_main("status", env=keyed)
    assert named.returncode == 0
    assert "(CURSOR_API_KEY) is used" in named.stdout
    assert "key-from-the-environment" not in named.stdout + named.stderr
    env = cli_env(home, signed_out=True)
    bare = run_main("status", env=env)
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
    status = run_main("status", env=env)
    assert sign_in_status(status.stdout.strip()) == "cursor: signed in as person@example.com"
    logout = run_main("logout", env=env)
    assert logout.returncode == 0 and logout.stdout.strip() == "cursor: signed out"
    assert "not signed in" in run_main("status", env=env).stdout
    again = run_main("logout", env=env)
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


def test_sign_in_verbs_over_a_corrupt_auth_json_fail_and_leave_it(
    sim: Simulator, home: Path
) -> None:
    corrupt = b'{"api_keys": {"openai": {"key": "sk-other-provider"}}, oops'
    (home / "auth.json").write_bytes(corrupt)
    env = cli_env(home)
    for verb in ("login", "status", "logout"):
        done = run_main("--base-url", sim.url, "--web-url", sim.url, verb, env=env)
        assert done.returncode == 1, (verb, done.stdout, done.stderr)
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and str(home / "auth.json") in lines[0], (verb, done.stderr)
        assert "not valid JSON" in lines[0] and "sk-other-provider" not in done.stderr
        assert "Traceback" not in done.stderr
    assert (home / "auth.json").read_bytes() == corrupt
    assert not sim.auth.polls
