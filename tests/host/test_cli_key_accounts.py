"""API keys (``crsr_…``) kept as accounts, and how the accounts stand, from a shell.

ONE signs in with the cell's own browser sign-in; TWO's API key is given to
``login --add --api-key`` on stdin (never argv), exchanged once against the
simulator, which names TWO's email. ``accounts`` and ``status`` then say which
account is a key, which Cursor refused lately (read from the table every
process shares) and how failover stands. Commands run in-process, each with a
host of its own, as separate processes would.
"""

from __future__ import annotations

import json
import stat
import sys
from pathlib import Path

import httpx
import pytest
from cli_run import CLI, RUN_TIMEOUT, cli_env, run_main
from served import served

from cursor_simulator import Simulator
from nodecode_cursor.account.signin import PollPacing
from nodecode_cursor.commands import CursorCommand
from nodecode_cursor.host import MemoryHost

FAST = PollPacing(first_delay=0.01, backoff=1.2, max_delay=0.03, request_timeout=2.0)
ONE, TWO = "one@example.com", "two@example.com"
KEY = "crsr_two_0123456789abcdef0123456789abcdef"
# Another provider's field auth.json holds: every write must keep it as it was.
OTHER = {"openai": {"key": "sk-other-provider"}}


@pytest.fixture
def one(sim: Simulator, home: Path) -> Path:
    """Return HOME with ONE signed in in the browser and TWO's key known to the simulator."""
    sim.accounts.add(ONE, plan="Pro", percent=30.0)
    sim.accounts.add(TWO, plan="Business", percent=60.0)
    sim.auth.give_key(KEY, TWO)
    (home / "auth.json").write_text(json.dumps({"api_keys": OTHER}))
    (home / "auth.json").chmod(0o600)
    host = MemoryHost(home)
    command = CursorCommand(host, sim.url, sim.url, pacing=FAST)
    sim.auth.sign_in_as(ONE)
    line = command.run("login --no-browser")
    sim.auth.confirm(line.split("uuid=")[1].split("&")[0].split()[0])
    assert command.signin.wait(10)
    return home


def add_key(sim: Simulator, home: Path, key: str = KEY) -> tuple[int, str, str]:
    """Return (exit code, stdout, stderr) of ``login --add --api-key`` given KEY on stdin."""
    env = cli_env(home, signed_out=True)
    done = run_main(
        "--base-url",
        sim.url,
        "--web-url",
        sim.url,
        "login",
        "--add",
        "--api-key",
        env=env,
        stdin=key + "\n",
    )
    return done.returncode, done.stdout, done.stderr


def test_a_key_is_kept_as_an_account_named_by_its_email(sim: Simulator, one: Path) -> None:
    code, out, err = add_key(sim, one)
    assert code == 0, err
    assert out.strip().endswith(
        f"cursor: kept the API key of {TWO} as an account, now active; {ONE} is kept: "
        f"nodecode-cursor use {ONE} switches back"
    )
    assert KEY not in out + err
    assert sim.auth.exchanges == 1
    raw = json.loads((one / "auth.json").read_text())
    assert raw["api_keys"] == OTHER
    assert raw["oauth_tokens"]["cursor"]["email"] == TWO
    assert raw["oauth_tokens"]["cursor"]["access_token"] == KEY
    assert list(raw["oauth_tokens"]["cursor_accounts"]) == [ONE]
    assert stat.S_IMODE((one / "auth.json").stat().st_mode) == 0o600

    env = cli_env(one, signed_out=True)
    listed = run_main("--base-url", sim.url, "accounts", env=env)
    assert listed.returncode == 0, listed.stderr
    lines = listed.stdout.splitlines()
    assert lines[0] == "cursor: 2 accounts (* active)"
    # The key's own dashboard, asked with its session token.
    assert lines[1].startswith(f"* {TWO} (API key)") and "Business, 60.0% used" in lines[1]
    assert lines[2].startswith(f"  {ONE} ") and "(API key)" not in lines[2]
    assert "Pro, 30.0% used" in lines[2]


def test_a_key_account_runs_rounds_is_used_and_forgotten(sim: Simulator, one: Path) -> None:
    assert add_key(sim, one)[0] == 0
    env = cli_env(one, signed_out=True)
    active = run_main("--base-url", sim.url, "ask", "hi", env=env)
    assert active.returncode == 0, active.stderr
    assert len(sim.accounts.named(TWO).runs) == 1 and sim.accounts.named(ONE).runs == []
    # Cursor refuses a raw key: the run went with the key's session token.
    assert sim.accounts.named(TWO).runs[0] != KEY

    used = run_main("--base-url", sim.url, "use", ONE, env=env)
    assert used.returncode == 0 and used.stdout.strip() == f"cursor: {ONE} is active now"
    named = run_main("--base-url", sim.url, "ask", "--account", TWO, "hi", env=env)
    assert named.returncode == 0, named.stderr
    assert len(sim.accounts.named(TWO).runs) == 2 and sim.accounts.named(ONE).runs == []

    forgot = run_main("--base-url", sim.url, "logout", TWO, env=env)
    assert forgot.returncode == 0
    assert forgot.stdout.strip() == f"cursor: forgot the account {TWO}; {ONE} is active"
    text = (one / "auth.json").read_text()
    assert KEY not in text and json.loads(text)["api_keys"] == OTHER


def test_a_refused_key_keeps_nothing(sim: Simulator, one: Path) -> None:
    sim.auth.api_keys = {KEY}
    before = (one / "auth.json").read_bytes()
    wrong = "crsr_wrong_0000000000000000000000000000"
    code, out, err = add_key(sim, one, wrong)
    assert code == 1
    assert "Cursor refused the API key" in err and "nothing was kept" in err
    assert wrong not in out + err and "Traceback" not in err
    assert (one / "auth.json").read_bytes() == before

    code, out, err = add_key(sim, one, "not-a-key")
    assert code == 1
    assert "is not a Cursor API key" in err and "not-a-key" not in err
    assert (one / "auth.json").read_bytes() == before
    assert sim.auth.exchanges == 1  # only the crsr_ key went to Cursor


def test_failover_moves_to_the_key_account_and_accounts_and_status_say_so(
    sim: Simulator, one: Path
) -> None:
    assert add_key(sim, one)[0] == 0
    env = cli_env(one, signed_out=True)
    assert run_main("--base-url", sim.url, "use", ONE, env=env).returncode == 0
    sim.accounts.named(ONE).limited = True
    done = run_main("--base-url", sim.url, "ask", "--json", "hi", env=env)
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert answer["account"] == TWO
    assert answer["failovers"] == [{"round": 1, "from": ONE, "to": TWO, "reason": "usage_limit"}]

    # Another process reads the refusal from the table the rounds wrote.
    listed = run_main("--base-url", sim.url, "accounts", env=env)
    assert listed.returncode == 0, listed.stderr
    lines = listed.stdout.splitlines()
    at = lines.index(next(line for line in lines if line.startswith(f"* {ONE}")))
    assert lines[at + 1].strip().startswith("refused at ")
    assert "(usage or rate limit); chosen again from " in lines[at + 1]
    assert lines[at + 2].startswith(f"  {TWO} (API key)")
    assert any("skips a refused one until then" in line for line in lines)

    status = run_main("--base-url", sim.url, "status", env=env)
    assert status.returncode == 0, status.stderr
    several = status.stdout.splitlines()[-1]
    assert several.startswith(f"cursor: 2 accounts are kept, {ONE} active; API keys: {TWO}")
    assert "failover on (cursor.failover)" in several
    assert "past 95% of its included usage (cursor.account_threshold)" in several
    assert f"refused lately: {ONE} refused at " in several and "(usage or rate limit)" in several
    # A shell names its own commands, not a chat's verbs.
    assert "/cursor " not in status.stdout
    assert several.endswith("(nodecode-cursor accounts lists them)")


def test_status_says_failover_off_and_a_corrupt_table_refuses_nobody(
    sim: Simulator, one: Path
) -> None:
    assert add_key(sim, one)[0] == 0
    (one / "config.json").write_text(
        json.dumps({"cursor": {"failover": False, "account_threshold": 80}})
    )
    (one / "cursor-accounts.sqlite").write_bytes(b"this is no sqlite file" * 40)
    env = cli_env(one, signed_out=True)
    status = run_main("--base-url", sim.url, "status", env=env)
    assert status.returncode == 0, status.stderr
    several = status.stdout.splitlines()[-1]
    assert "failover off (cursor.failover)" in several and "none refused lately" in several
    listed = run_main("--base-url", sim.url, "accounts", env=env)
    assert listed.returncode == 0, listed.stderr
    assert "refused" not in listed.stdout and "Traceback" not in listed.stderr


def test_the_chat_verb_keeps_the_key_from_the_environment(
    sim: Simulator, one: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    host = MemoryHost(one)
    command = CursorCommand(host, sim.url, sim.url, pacing=FAST)
    monkeypatch.delenv("CURSOR_API_KEY", raising=False)
    missing = command.run("login --add --api-key")
    assert "no API key to keep: set CURSOR_API_KEY" in missing
    monkeypatch.setenv("CURSOR_API_KEY", KEY)
    line = command.run("login --add --api-key")
    assert line == (
        f"cursor: kept the API key of {TWO} as an account, now active; "
        f"{ONE} is kept: /cursor use {ONE} switches back"
    )
    status = command.run("status").splitlines()
    assert status[0] == (
        f"cursor: signed in as {TWO} with an API key (kept as an account); "
        "1 other account is kept (/cursor accounts lists them)"
    )
    assert status[-1].startswith(f"cursor: 2 accounts are kept, {TWO} active; API keys: {TWO}")


def test_serve_runs_a_round_on_the_key_account_its_header_names(
    sim: Simulator, one: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert add_key(sim, one)[0] == 0
    used = run_main("--base-url", sim.url, "use", ONE, env=cli_env(one, signed_out=True))
    assert used.returncode == 0, used.stderr
    with served(sim, one, monkeypatch) as api, httpx.Client(base_url=api.url, timeout=20) as http:
        body = {"model": "cursor/composer-2.5", "messages": [{"role": "user", "content": "hi"}]}
        named = http.post("/chat/completions", json=body, headers={"x-cursor-account": TWO})
        assert named.status_code == 200, named.text
        assert len(sim.accounts.named(TWO).runs) == 1 and sim.accounts.named(ONE).runs == []
        active = http.post("/chat/completions", json=body)
        assert active.status_code == 200, active.text
        assert len(sim.accounts.named(ONE).runs) == 1


def test_a_key_on_the_command_line_is_refused_unechoed(sim: Simulator, one: Path) -> None:
    before = (one / "auth.json").read_bytes()
    env = cli_env(one, signed_out=True)
    done = run_main("--base-url", sim.url, "login", "--add", "--api-key", KEY, env=env)
    assert done.returncode == 2
    assert "a Cursor API key goes on no command line" in done.stderr
    assert KEY not in done.stdout + done.stderr
    assert (one / "auth.json").read_bytes() == before and sim.auth.exchanges == 0


def test_a_key_typed_where_the_command_goes_is_refused_unechoed(home: Path) -> None:
    # argparse's own words would quote it as an invalid choice of command.
    done = run_main(KEY, env=cli_env(home, signed_out=True))
    assert done.returncode == 2
    assert "a Cursor API key goes on no command line" in done.stderr
    assert KEY not in done.stdout + done.stderr


def test_nothing_piped_takes_the_key_from_the_environment(sim: Simulator, one: Path) -> None:
    env = cli_env(one, signed_out=True, CURSOR_API_KEY=KEY)
    done = run_main(
        "--base-url", sim.url, "--web-url", sim.url, "login", "--add", "--api-key", env=env
    )
    assert done.returncode == 0, done.stderr
    assert f"kept the API key of {TWO} as an account, now active" in done.stdout
    assert KEY not in done.stdout + done.stderr


def test_on_a_terminal_the_key_is_asked_for_and_not_echoed(sim: Simulator, one: Path) -> None:
    pexpect = pytest.importorskip("pexpect")
    child = pexpect.spawn(
        sys.executable,
        [*CLI[1:], "--base-url", sim.url, "--web-url", sim.url, "login", "--add", "--api-key"],
        env=cli_env(one, signed_out=True, TERM="dumb"),
        encoding="utf-8",
        timeout=RUN_TIMEOUT,
    )
    child.expect_exact("Cursor API key (crsr_…; not shown): ")
    child.sendline(KEY)
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0, child.before
    assert f"kept the API key of {TWO} as an account, now active" in child.before
    assert KEY not in child.before  # the terminal did not echo it
    raw = json.loads((one / "auth.json").read_text())
    assert raw["oauth_tokens"]["cursor"]["access_token"] == KEY


def test_no_key_at_all_says_how_to_give_one_in_a_shells_words(sim: Simulator, one: Path) -> None:
    before = (one / "auth.json").read_bytes()
    done = run_main(
        "--base-url", sim.url, "login", "--add", "--api-key", env=cli_env(one, signed_out=True)
    )
    assert done.returncode == 2
    assert "no API key given: type it at the prompt" in done.stderr
    assert "/cursor" not in done.stderr and "Traceback" not in done.stderr
    assert (one / "auth.json").read_bytes() == before


def test_a_key_for_the_account_signed_in_takes_its_place_and_says_so(
    sim: Simulator, one: Path
) -> None:
    key = "crsr_one_0123456789abcdef0123456789abcdef"
    sim.auth.give_key(key, ONE)
    code, out, err = add_key(sim, one, key)
    assert code == 0, err
    assert out.strip().endswith(
        f"cursor: kept the API key of {ONE} as an account, now active, "
        "in place of its browser sign-in"
    )
    raw = json.loads((one / "auth.json").read_text())
    assert raw["oauth_tokens"]["cursor"]["access_token"] == key
    assert "cursor_accounts" not in raw["oauth_tokens"]
    # A key kept again for the same account replaces no sign-in: nothing more is said.
    code, out, err = add_key(sim, one, key)
    assert code == 0, err
    assert out.strip().endswith(f"cursor: kept the API key of {ONE} as an account, now active")
