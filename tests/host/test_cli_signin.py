"""``nodecode-cursor login``, ``status`` and ``logout``: the sign-in from a shell.

``login`` runs as a subprocess (its browser sign-in waits in a background thread,
and Ctrl-C is a signal); ``status`` and ``logout`` run in-process.
"""

from __future__ import annotations

import json
import signal
import stat
import sys
from pathlib import Path

import pytest
from cli_run import (
    CLI,
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
    # A shell's words: its command, never the chat's /cursor login.
    assert sign_in_status(bare.stdout.strip()) == (
        "cursor: not signed in: run nodecode-cursor login, or set CURSOR_ACCESS_TOKEN"
    )


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
        assert lines[0] == (
            f"nodecode-cursor: {home / 'auth.json'} is not valid JSON (line 1, column 56); "
            "nothing will be written until it is fixed or moved aside "
            "(nodecode-cursor logout --move-aside keeps it as auth.json.corrupt-<time>)"
        )
        assert "sk-other-provider" not in done.stderr
        assert "Traceback" not in done.stderr
    assert (home / "auth.json").read_bytes() == corrupt
    assert not sim.auth.polls


CORRUPT_FILES = {
    "binary": (b"\xff\xfe\x00binary", "is not text (it holds bytes that are not UTF-8)"),
    "missing key": (
        b'{"oauth_tokens": {"cursor": {"access_token": "a", "expires_at": 1}}}',
        ": has no oauth_tokens.cursor.refresh_token (it must be a string)",
    ),
    "wrong type": (
        b'{"oauth_tokens": {"cursor": {"access_token": "a", "refresh_token": "r", '
        b'"expires_at": "soon"}}}',
        ": oauth_tokens.cursor.expires_at must be a number, not a string",
    ),
}


def _corrupt(home: Path, kind: str) -> str:
    """Make HOME's auth.json corrupt in the way KIND names; return the fault's words."""
    if kind == "directory":
        (home / "auth.json").mkdir()
        return "is a directory, not a file"
    raw, fault = CORRUPT_FILES[kind]
    (home / "auth.json").write_bytes(raw)
    return fault


def test_a_corrupt_auth_json_names_its_fault_never_an_exception(home: Path) -> None:
    for kind in (*CORRUPT_FILES, "directory"):
        fault = _corrupt(home, kind)
        done = run_main("status", env=cli_env(home))
        assert done.returncode == 1, (kind, done.stdout, done.stderr)
        path = home / "auth.json"
        assert done.stderr == (
            f"nodecode-cursor: {path}{'' if fault.startswith(':') else ' '}{fault}; nothing "
            "will be written until it is fixed or moved aside (nodecode-cursor logout "
            "--move-aside keeps it as auth.json.corrupt-<time>)\n"
        ), kind
        assert "Error" not in done.stderr and "null" not in done.stderr
        if path.is_dir():
            path.rmdir()
        else:
            path.unlink()


def test_logout_moves_a_corrupt_auth_json_aside_and_signs_out(home: Path) -> None:
    for kind in (*CORRUPT_FILES, "directory"):
        _corrupt(home, kind)
        before = (home / "auth.json").read_bytes() if kind != "directory" else None
        done = run_main("logout", "--move-aside", env=cli_env(home, signed_out=True))
        assert done.returncode == 0, (kind, done.stdout, done.stderr)
        kept = [p for p in home.iterdir() if p.name.startswith("auth.json.corrupt-")]
        assert len(kept) == 1, kept
        assert done.stdout == (
            f"cursor: moved the unreadable auth.json aside to {kept[0]} (kept, mode 0600)\n"
            "cursor: not signed in; nothing to forget\n"
        )
        assert not (home / "auth.json").exists()
        mode = kept[0].stat().st_mode & 0o777
        if before is not None:
            assert kept[0].read_bytes() == before and mode == 0o600
        else:
            assert mode == 0o700
        # The way is clear: status reads again.
        after = run_main("status", env=cli_env(home, signed_out=True))
        assert after.returncode == 0, after.stderr
        if kept[0].is_dir():
            kept[0].rmdir()
        else:
            kept[0].unlink()


def test_login_moves_a_corrupt_auth_json_aside_then_signs_in(sim: Simulator, home: Path) -> None:
    (home / "auth.json").write_bytes(b"{oops")
    sim.auth.auto_confirm_after = 1
    env = cli_env(home, signed_out=True)
    done = run_cli(
        "--base-url",
        sim.url,
        "--web-url",
        sim.url,
        "login",
        "--no-browser",
        "--move-aside",
        env=env,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    kept = [p for p in home.iterdir() if p.name.startswith("auth.json.corrupt-")]
    assert len(kept) == 1 and kept[0].read_bytes() == b"{oops"
    lines = done.stdout.splitlines()
    assert lines[0] == (
        f"cursor: moved the unreadable auth.json aside to {kept[0]} (kept, mode 0600)"
    )
    assert lines[-1] == "cursor: signed in as person@example.com"
    assert json.loads((home / "auth.json").read_text())["oauth_tokens"]["cursor"]


def test_logout_on_a_terminal_offers_to_move_a_corrupt_auth_json_aside(home: Path) -> None:
    pexpect = pytest.importorskip("pexpect")
    (home / "auth.json").write_bytes(b"{oops")
    child = pexpect.spawn(
        sys.executable,
        [*CLI[1:], "logout"],
        env=cli_env(home, signed_out=True, TERM="dumb"),
        encoding="utf-8",
        timeout=RUN_TIMEOUT,
        dimensions=(40, 300),
    )
    child.expect_exact("move it aside and go on? [y/N] ")
    assert "is not valid JSON (line 1, column 2)" in child.before
    child.sendline("y")
    child.expect_exact("cursor: moved the unreadable auth.json aside to ")
    child.expect_exact("cursor: not signed in; nothing to forget")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    kept = [p for p in home.iterdir() if p.name.startswith("auth.json.corrupt-")]
    assert len(kept) == 1 and kept[0].read_bytes() == b"{oops"


def test_login_while_signed_in_says_so_first(sim: Simulator, home: Path) -> None:
    sim.auth.auto_confirm_after = 1
    env = cli_env(home, signed_out=True)
    argv = ["--base-url", sim.url, "--web-url", sim.url, "login", "--no-browser"]
    first = run_cli(*argv, env=env)
    assert first.returncode == 0, first.stderr
    assert "already signed in" not in first.stdout
    again = run_cli(*argv, env=env)
    assert again.returncode == 0, again.stderr
    lines = again.stdout.splitlines()
    # Without a terminal to ask, it replaces the account, and says how to add one instead.
    assert lines[0] == (
        "cursor: already signed in as person@example.com; a new sign-in replaces it "
        "when it finishes (login --add keeps it and adds another account)"
    )
    assert lines[1].startswith("cursor: open http")


def test_login_add_keeps_the_account_signed_in_and_adds_another(sim: Simulator, home: Path) -> None:
    sim.auth.auto_confirm_after = 1
    sim.accounts.add("one@example.com")
    sim.accounts.add("two@example.com")
    env = cli_env(home, signed_out=True)
    argv = ["--base-url", sim.url, "--web-url", sim.url, "login", "--no-browser"]
    sim.auth.sign_in_as("one@example.com")
    assert run_cli(*argv, env=env).returncode == 0
    sim.auth.sign_in_as("two@example.com")
    added = run_cli(*argv, "--add", env=env)
    assert added.returncode == 0, added.stderr
    assert added.stdout.splitlines()[0] == (
        "cursor: signed in as one@example.com; the new account is added beside it"
    )
    assert (
        "cursor: signed in as two@example.com (now active; one@example.com is kept: "
        "nodecode-cursor use one@example.com switches back)"
    ) in added.stdout
    tokens = json.loads((home / "auth.json").read_text())["oauth_tokens"]
    assert tokens["cursor"]["email"] == "two@example.com"
    assert list(tokens["cursor_accounts"]) == ["one@example.com"]
    assert stat.S_IMODE((home / "auth.json").stat().st_mode) == 0o600
