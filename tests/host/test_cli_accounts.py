"""Several accounts from a shell and through ``serve``: ``accounts``, ``use``, ``logout EMAIL``,
``ask --account`` and the ``x-cursor-account`` header, against the simulator.

The accounts are signed in with the cell's own browser sign-in (its page confirmed
as the person would); the commands then run in-process.
"""

from __future__ import annotations

import json
import stat
from pathlib import Path

import httpx
import pytest
from cli_run import cli_env, run_main
from served import served

from cursor_simulator import Simulator
from nodecode_cursor.account.signin import PollPacing
from nodecode_cursor.commands import CursorCommand
from nodecode_cursor.host import MemoryHost

FAST = PollPacing(first_delay=0.01, backoff=1.2, max_delay=0.03, request_timeout=2.0)
ONE, TWO = "one@example.com", "two@example.com"


def signed_in(sim: Simulator, home: Path, *emails: str) -> None:
    """Sign in to each of EMAILS in turn (each added beside the last), the last one active."""
    host = MemoryHost(home)
    command = CursorCommand(host, sim.url, sim.url, pacing=FAST)
    for email in emails:
        sim.auth.sign_in_as(email)
        line = command.run("login --add --no-browser")
        sim.auth.confirm(line.split("uuid=")[1].split("&")[0].split()[0])
        assert command.signin.wait(60)
    assert host.said[-1].startswith(f"cursor: signed in as {emails[-1]}")


@pytest.fixture
def two(sim: Simulator, home: Path) -> Path:
    """Return HOME with ONE and TWO signed in, TWO active."""
    sim.accounts.add(ONE, plan="Pro", percent=30.0)
    sim.accounts.add(TWO, plan="Business", percent=80.0)
    signed_in(sim, home, ONE, TWO)
    return home


def test_accounts_use_and_logout_one_from_a_shell(sim: Simulator, two: Path) -> None:
    env = cli_env(two, signed_out=True)
    listed = run_main("--base-url", sim.url, "accounts", env=env)
    assert listed.returncode == 0, listed.stderr
    lines = listed.stdout.splitlines()
    assert lines[0] == "cursor: 2 accounts (* active)"
    assert lines[1].startswith(f"* {TWO}") and "Business, 80.0% used" in lines[1]
    assert lines[2].startswith(f"  {ONE}") and "Pro, 30.0% used" in lines[2]

    status = run_main("--base-url", sim.url, "status", env=env)
    assert f"signed in as {TWO}; 1 other account is kept" in status.stdout

    used = run_main("--base-url", sim.url, "use", ONE, env=env)
    assert used.returncode == 0 and used.stdout.strip() == f"cursor: {ONE} is active now"
    raw = json.loads((two / "auth.json").read_text())
    assert raw["oauth_tokens"]["cursor"]["email"] == ONE
    assert stat.S_IMODE((two / "auth.json").stat().st_mode) == 0o600

    unknown = run_main("--base-url", sim.url, "use", "nobody@example.com", env=env)
    assert unknown.returncode == 1
    assert "no Cursor account nobody@example.com is signed in here" in unknown.stderr
    assert "nodecode-cursor login --add" in unknown.stderr

    forgot = run_main("--base-url", sim.url, "logout", TWO, env=env)
    assert forgot.returncode == 0
    assert forgot.stdout.strip() == f"cursor: forgot the account {TWO}; {ONE} is active"
    again = run_main("--base-url", sim.url, "logout", TWO, env=env)
    assert again.returncode == 1
    out = run_main("--base-url", sim.url, "logout", env=env)
    assert out.returncode == 0 and out.stdout.strip() == "cursor: signed out"


def test_ask_on_a_named_account(sim: Simulator, two: Path) -> None:
    env = cli_env(two, signed_out=True)
    done = run_main("--base-url", sim.url, "ask", "--json", "--account", ONE, "hi", env=env)
    assert done.returncode == 0, done.stderr
    assert len(sim.accounts.named(ONE).runs) == 1
    assert sim.accounts.named(TWO).runs == []
    refused = run_main(
        "--base-url", sim.url, "ask", "--account", "nobody@example.com", "hi", env=env
    )
    assert refused.returncode != 0
    assert "nobody@example.com" in refused.stderr
    assert len(sim.agent.runs) == 1


def test_serve_runs_a_round_on_the_account_its_header_names(
    sim: Simulator, two: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with served(sim, two, monkeypatch) as api, httpx.Client(base_url=api.url, timeout=20) as http:
        body = {"model": "cursor/composer-2.5", "messages": [{"role": "user", "content": "hi"}]}
        named = http.post("/chat/completions", json=body, headers={"x-cursor-account": ONE})
        assert named.status_code == 200, named.text
        assert len(sim.accounts.named(ONE).runs) == 1
        active = http.post("/chat/completions", json=body)
        assert active.status_code == 200, active.text
        assert len(sim.accounts.named(TWO).runs) == 1
        unknown = http.post(
            "/chat/completions", json=body, headers={"x-cursor-account": "nobody@example.com"}
        )
        assert unknown.status_code == 400
        assert unknown.json()["error"]["code"] == "unknown_account"
    assert len(sim.agent.runs) == 2
