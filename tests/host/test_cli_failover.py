"""Failover between kept accounts from a shell and through ``serve``, against the simulator.

Two accounts are signed in with the cell's own browser sign-in; ``ask`` runs
in-process, ``serve`` on a loop of its own with real HTTP clients. The simulator
refuses one account's runs as Cursor refuses a spent plan.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import logging
import threading
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from cli_run import cli_env, run_main
from served import served

from cursor_simulator import Simulator
from cursor_simulator.accounts import LIMIT_DETAIL, LIMIT_ERROR, LIMIT_TITLE
from cursor_simulator.records import RunRecord
from cursor_simulator.scripted_model import scripted_model
from cursor_simulator.steps import EndError, Step, Text
from nodecode_cursor.account.signin import PollPacing
from nodecode_cursor.commands import CursorCommand
from nodecode_cursor.host import MemoryHost

FAST = PollPacing(first_delay=0.01, backoff=1.2, max_delay=0.03, request_timeout=2.0)
ONE, TWO = "one@example.com", "two@example.com"


def limit() -> EndError:
    """Return the end frame Cursor refuses a spent plan's run with."""
    return EndError(
        "resource_exhausted", "Error", error=LIMIT_ERROR, title=LIMIT_TITLE, detail=LIMIT_DETAIL
    )


@pytest.fixture
def two(sim: Simulator, home: Path) -> Path:
    """Return HOME with ONE (30% used) and TWO (80%) signed in, TWO active."""
    sim.accounts.add(ONE, plan="Pro", percent=30.0)
    sim.accounts.add(TWO, plan="Business", percent=80.0)
    host = MemoryHost(home)
    command = CursorCommand(host, sim.url, sim.url, pacing=FAST)
    for email in (ONE, TWO):
        sim.auth.sign_in_as(email)
        line = command.run("login --add --no-browser")
        sim.auth.confirm(line.split("uuid=")[1].split("&")[0].split()[0])
        assert command.signin.wait(10)
    return home


def test_ask_json_says_the_switch_and_the_notice_names_both_accounts(
    sim: Simulator, two: Path
) -> None:
    sim.accounts.named(TWO).limited = True
    env = cli_env(two, signed_out=True)
    done = run_main("--base-url", sim.url, "-v", "ask", "--json", "hi", env=env)
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert answer["message"]["content"] == "Simulated Cursor here. You said: hi"
    assert answer["account"] == ONE
    assert answer["failovers"] == [{"round": 1, "from": TWO, "to": ONE, "reason": "usage_limit"}]
    # The notice, and the -v log line naming both emails.
    assert f"! cursor: {TWO} was refused" in done.stderr
    moved = [line for line in done.stderr.splitlines() if "the round moved from" in line]
    assert len(moved) == 1 and TWO in moved[0] and ONE in moved[0]
    assert len(sim.accounts.named(TWO).runs) == 1 and len(sim.accounts.named(ONE).runs) == 1


def test_failover_off_in_config_fails_naming_the_other_account(sim: Simulator, two: Path) -> None:
    (two / "config.json").write_text(json.dumps({"cursor": {"failover": False}}))
    sim.accounts.named(TWO).limited = True
    env = cli_env(two, signed_out=True)
    done = run_main("--base-url", sim.url, "ask", "hi", env=env)
    assert done.returncode != 0
    assert "Usage limit reached" in done.stderr and ONE in done.stderr
    assert sim.accounts.named(ONE).runs == []


def test_a_bad_failover_setting_is_a_config_error(sim: Simulator, two: Path) -> None:
    (two / "config.json").write_text(json.dumps({"cursor": {"account_threshold": 150}}))
    done = run_main("--base-url", sim.url, "ask", "hi", env=cli_env(two, signed_out=True))
    assert done.returncode == 2
    assert '"account_threshold" in the "cursor" config section' in done.stderr
    assert "Traceback" not in done.stderr


def test_usage_shows_every_account_side_by_side(sim: Simulator, two: Path) -> None:
    sim.accounts.named(TWO).dashboard.set_percents(96.0)
    env = cli_env(two, signed_out=True)
    done = run_main("--base-url", sim.url, "usage", env=env)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "cursor: usage of 2 accounts (* active)"
    assert lines[1].split()[:3] == ["account", "plan", "Total"]
    assert lines[1].split()[3:] == ["Auto", "+", "Composer", "API", "resets"]
    two_row = next(line for line in lines if TWO in line)
    one_row = next(line for line in lines if ONE in line)
    assert two_row.startswith(f"* {TWO}") and "Business" in two_row and "96.0%!" in two_row
    assert one_row.startswith(f"  {ONE}") and "Pro" in one_row and "30.0%" in one_row
    assert "(in 12 days)" in one_row
    assert any("at or past 95%" in line for line in lines)

    data = json.loads(run_main("--base-url", sim.url, "usage", "--json", env=env).stdout)
    assert data["plan"] == "Business"  # the active account's, as before
    assert [(a["account"], a["active"]) for a in data["accounts"]] == [(TWO, True), (ONE, False)]
    assert data["accounts"][1]["usage"]["windows"][0]["percent_used"] == 30.0


# serve under load ---------------------------------------------------------------------------

CLIENTS = 20
# The runs (in the order the simulator starts them) after which TWO refuses, and how
# many of its refusals come after a first token (the rest come before any).
TWO_REFUSES_FROM = 6
AFTER_A_TOKEN = 3


def refusing_midway(sim: Simulator) -> Iterator[None]:
    """Make TWO's runs refused once TWO_REFUSES_FROM runs have started (the default model)."""
    started = itertools.count()
    late = itertools.count()
    lock = threading.Lock()
    account = sim.accounts.named(TWO)

    def model(run: RunRecord) -> Iterable[Step]:
        with lock:
            index = next(started)
            refused = run.account is account and index >= TWO_REFUSES_FROM
            after = refused and next(late) < AFTER_A_TOKEN
        if after:
            return [Text("PARTIAL "), limit()]
        if refused:
            return [limit()]
        return scripted_model(run)  # lazily: it reads the run request as it plays

    sim.agent.default = model
    yield


def stream_events(response: httpx.Response) -> list[Any]:
    """Return the SSE events of a streamed chat completion, ``[DONE]`` as the string."""
    events: list[Any] = []
    for line in response.text.splitlines():
        if line.startswith("data: "):
            data = line.removeprefix("data: ")
            events.append(data if data == "[DONE]" else json.loads(data))
    return events


def test_serve_under_twenty_clients_with_one_account_refusing_midway(
    sim: Simulator, two: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="nodecode_host")
    sim.agent.first_token_delay = 0.05  # the rounds overlap: all twenty are in flight at once
    for _ in refusing_midway(sim):
        with served(sim, two, monkeypatch) as api:

            async def ask_all() -> list[httpx.Response]:
                async with httpx.AsyncClient(base_url=api.url, timeout=60) as client:
                    return await asyncio.gather(
                        *(
                            client.post(
                                "/chat/completions",
                                json={
                                    "model": "cursor/composer-2.5",
                                    "stream": True,
                                    "messages": [{"role": "user", "content": f"client {n}"}],
                                },
                            )
                            for n in range(CLIENTS)
                        )
                    )

            answers = asyncio.run(ask_all())
    whole = errors = 0
    for n, answer in enumerate(answers):
        assert answer.status_code == 200, answer.text
        events = stream_events(answer)
        chunks = [e for e in events if isinstance(e, dict) and "choices" in e]
        text = "".join(c["choices"][0]["delta"].get("content") or "" for c in chunks)
        if events and events[-1] == "[DONE]":
            # A whole answer, from one run: never text of a refused run before it.
            assert text == f"Simulated Cursor here. You said: client {n}"
            assert chunks[-1]["choices"][0]["finish_reason"] == "stop"
            whole += 1
        else:
            # A clean error: the stream ends on one error event, after at most the
            # refused run's own text, and names the account that could take the next round.
            assert text in ("", "PARTIAL ")
            error = events[-1]["error"]
            assert "Usage limit reached" in error["message"] and ONE in error["message"]
            errors += 1
    assert whole + errors == CLIENTS
    assert 1 <= errors <= AFTER_A_TOKEN
    one, two_runs = sim.accounts.named(ONE).runs, sim.accounts.named(TWO).runs
    assert len(one) >= whole - TWO_REFUSES_FROM and len(two_runs) > TWO_REFUSES_FROM // 2
    # serve's log says each switch once, in the request's own line.
    moved = [r.getMessage() for r in caplog.records if f"moved from {TWO}" in r.getMessage()]
    assert moved and all(f"(account {ONE}, moved from {TWO} (usage_limit))" in m for m in moved)
    assert sim.agent.violations() == []
