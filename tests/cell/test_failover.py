"""Failover between kept accounts before any output, and the quota-aware choice, for real.

Three accounts are signed in through the simulator's browser sign-in; every round
is a real run over a socket. The simulator refuses one account's runs the ways
Cursor does (``cursor_simulator/accounts.py``: a spent plan, usage-based pricing,
a spent third-party pool) and records which account's bearer each run carried.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from cursor_simulator import Simulator
from cursor_simulator.accounts import LIMIT_DETAIL, LIMIT_ERROR, LIMIT_TITLE
from cursor_simulator.dashboard import USAGE_PATH
from cursor_simulator.models import RosterEntry
from cursor_simulator.steps import EndError, Text
from nodecode_cursor import limits
from nodecode_cursor.account import accounts
from nodecode_cursor.account.signin import PollPacing
from nodecode_cursor.account.store import AuthStore
from nodecode_cursor.commands import CursorCommand
from nodecode_cursor.errors import ProviderError
from nodecode_cursor.host import AccountSwitch, MemoryHost, RoundContext, RoundResult
from nodecode_cursor.lanes import lane
from nodecode_cursor.lanes.failover import NOTICE_KEY
from nodecode_cursor.state import CellState

FAST = PollPacing(first_delay=0.01, backoff=1.2, max_delay=0.03, request_timeout=2.0)
ONE, TWO, THREE = "one@example.com", "two@example.com", "three@example.com"

HISTORY: list[dict[str, Any]] = [
    {"role": "user", "content": "the first question, about apples"},
    {"role": "assistant", "content": "an answer about apples"},
    {"role": "user", "content": "the second question, about pears"},
    {"role": "assistant", "content": "an answer about pears"},
    {"role": "user", "content": "the third question, about plums"},
]


def sign_in(sim: Simulator, cmd: CursorCommand, email: str) -> None:
    """Sign in to EMAIL's account (added beside the others) through the page and the poll."""
    sim.auth.sign_in_as(email)
    line = cmd.run("login --add")
    sim.auth.confirm(line.split("uuid=")[1].split("&")[0].split()[0])
    assert cmd.signin.wait(10)


@pytest.fixture
def host(sim: Simulator, home: Path, state: CellState) -> MemoryHost:
    """Return a host on HOME with ONE (30% used), TWO (80%) and THREE (5%) kept, THREE active."""
    sim.accounts.add(ONE, plan="Pro", percent=30.0)
    sim.accounts.add(TWO, plan="Business", percent=80.0)
    sim.accounts.add(THREE, plan="Ultra", percent=5.0)
    memory = MemoryHost(home)
    cmd = CursorCommand(memory, sim.url, sim.url, pacing=FAST)
    for email in (ONE, TWO, THREE):
        sign_in(sim, cmd, email)
    state.home = home  # conversations and account facts kept on disk, as a started cell does
    return memory


def round_on(sim: Simulator, host: MemoryHost, state: CellState, **fields: Any) -> RoundResult:
    """Return a round through HOST's kept accounts (no credential given)."""
    base: dict[str, Any] = {
        "model": "composer-2.5",
        "messages": [dict(m) for m in HISTORY],
        "base_url": sim.url,
        "client_version": "cli-test-1",
        "request_timeout": 10.0,
        "host": host,
        "session_id": "s-failover",
    }
    base.update(fields)
    return lane.stream_round_sync(RoundContext(**base), state)


def runs_of(sim: Simulator, email: str) -> list[Any]:
    """Return the simulator's runs carried by EMAIL's bearer, in order."""
    account = sim.accounts.named(email)
    return [run for run in list(sim.agent.runs) if run.account is account]


def history_texts(run: Any) -> list[str]:
    """Return every text RUN's request carries: its root messages' JSON and its prompt."""
    return [json.dumps(m) for m in run.root_messages()] + [run.prompt()]


def assert_whole_history(run: Any) -> None:
    """Assert RUN's request is a new conversation holding every message of HISTORY."""
    request = run.run_request
    assert request is not None and request.action.HasField("user_message_action")
    carried = "\n".join(history_texts(run))
    for message in HISTORY:
        assert message["content"] in carried, message


@pytest.mark.parametrize("switch", ["limited", "usage_pricing"])
def test_a_refusal_before_output_goes_on_with_the_next_account_listing_the_model(
    sim: Simulator, host: MemoryHost, state: CellState, switch: str
) -> None:
    setattr(sim.accounts.named(THREE), switch, True)
    # ONE has the most left but its roster lacks the model: TWO takes the round.
    sim.accounts.named(ONE).roster = [RosterEntry("gpt-5.4", "GPT-5.4")]
    result = round_on(sim, host, state)
    assert result.finish_reason == "stop" and result.message["content"]
    reason = "usage_limit" if switch == "limited" else "usage_pricing"
    assert result.account == TWO
    assert result.failovers == [AccountSwitch(THREE, TWO, reason)]
    refused, taken = runs_of(sim, THREE), runs_of(sim, TWO)
    assert len(refused) == 1 and len(taken) == 1 and runs_of(sim, ONE) == []
    # A conversation new to TWO: another id, and the whole history, not a resume.
    assert taken[0].run_request.conversation_id != refused[0].run_request.conversation_id
    assert_whole_history(taken[0])
    assert len(taken[0].run_request.conversation_state.root_prompt_messages_json) == len(
        refused[0].run_request.conversation_state.root_prompt_messages_json
    )
    # Said once: the host's notice names both accounts.
    notice = host.notices[NOTICE_KEY].text
    assert THREE in notice and TWO in notice
    assert sim.agent.violations() == []


def test_a_session_goes_on_with_the_account_it_moved_to(
    sim: Simulator, host: MemoryHost, home: Path, state: CellState
) -> None:
    first = round_on(sim, host, state, messages=[{"role": "user", "content": "hello"}])
    assert first.account == THREE
    sim.accounts.named(THREE).limited = True
    history = [{"role": "user", "content": "hello"}, first.message]
    history.append({"role": "user", "content": "and then?"})
    moved = round_on(sim, host, state, messages=history)
    assert moved.failovers and moved.failovers[0].to_account == ONE  # the most left: 30%
    # The next round starts on ONE at once: THREE was refused, and is passed over a while.
    history += [moved.message, {"role": "user", "content": "more"}]
    runs = len(sim.agent.runs)
    again = round_on(sim, host, state, messages=history)
    assert (again.account, again.failovers) == (ONE, [])
    assert len(sim.agent.runs) == runs + 1
    # ...and it goes on with ONE's conversation: a resume, not the whole history again.
    last = runs_of(sim, ONE)[-1].run_request
    assert last.conversation_id == runs_of(sim, ONE)[0].run_request.conversation_id
    # The notice stands while rounds run away from the active account; back on it, it goes.
    assert ONE in host.notices[NOTICE_KEY].text
    accounts.use(AuthStore(home), ONE)
    round_on(sim, host, state, messages=[{"role": "user", "content": "new"}], session_id="s-9")
    assert NOTICE_KEY not in host.notices


def test_a_spent_pool_before_output_goes_on_with_the_next_account(
    sim: Simulator, host: MemoryHost, state: CellState
) -> None:
    sim.accounts.named(THREE).pool_empty = True
    result = round_on(sim, host, state, model="gpt-5.4")
    assert result.finish_reason == "stop"
    assert result.failovers == [AccountSwitch(THREE, ONE, "pool_spent")]
    assert_whole_history(runs_of(sim, ONE)[0])


def test_no_failover_once_a_token_reached_the_round(
    sim: Simulator, host: MemoryHost, state: CellState
) -> None:
    # THREE streams a word, then Cursor says its limit is reached.
    sim.agent.script(
        [
            Text("half an answer"),
            EndError(
                "resource_exhausted",
                "Error",
                error=LIMIT_ERROR,
                title=LIMIT_TITLE,
                detail=LIMIT_DETAIL,
            ),
        ]
    )
    parts: list[object] = []
    with pytest.raises(ProviderError) as caught:
        round_on(sim, host, state, on_part=parts.append)
    assert len(sim.agent.runs) == 1  # never spliced onto another account's answer
    error = caught.value
    assert error.code == "PRO_USER_USAGE_LIMIT"
    # The error names the accounts that could take the next round.
    assert "the next round can run on another kept account" in error.detail
    assert ONE in error.detail and TWO in error.detail and THREE not in error.detail.split(";")[-1]
    # ...and the next round, which names none, starts on one of them.
    nxt = round_on(sim, host, state)
    assert nxt.account == ONE and nxt.failovers == []


def test_no_account_left_fails_with_todays_error(
    sim: Simulator, host: MemoryHost, state: CellState
) -> None:
    for email in (ONE, TWO, THREE):
        sim.accounts.named(email).limited = True
    with pytest.raises(ProviderError) as caught:
        round_on(sim, host, state)
    assert caught.value.code == "PRO_USER_USAGE_LIMIT"
    assert [len(runs_of(sim, e)) for e in (THREE, ONE, TWO)] == [1, 1, 1]


def test_failover_off_by_setting(sim: Simulator, host: MemoryHost, state: CellState) -> None:
    state.failover = False
    sim.accounts.named(THREE).limited = True
    with pytest.raises(ProviderError) as caught:
        round_on(sim, host, state)
    assert len(sim.agent.runs) == 1 and len(runs_of(sim, THREE)) == 1
    assert caught.value.code == "PRO_USER_USAGE_LIMIT"
    assert ONE in caught.value.detail  # still named, for the person to choose


def test_a_named_account_is_never_left(sim: Simulator, host: MemoryHost, state: CellState) -> None:
    sim.accounts.named(TWO).usage_pricing = True
    with pytest.raises(ProviderError) as caught:
        round_on(sim, host, state, account=TWO)
    assert caught.value.code == "USAGE_PRICING_REQUIRED"
    assert len(sim.agent.runs) == 1 and len(runs_of(sim, TWO)) == 1
    assert THREE in caught.value.detail


def test_the_quota_aware_choice_skips_an_account_past_the_threshold(
    sim: Simulator, host: MemoryHost, state: CellState
) -> None:
    # The active THREE is past 95% of its included usage: the round starts on the
    # account with the most left (ONE, 30%), without a refused run first.
    sim.accounts.named(THREE).dashboard.set_percents(97.0)
    result = round_on(sim, host, state)
    assert (result.account, result.failovers) == (ONE, [])
    assert runs_of(sim, THREE) == []
    assert THREE in host.notices[NOTICE_KEY].text
    # ONE is refused: the next with the most left under the threshold is TWO (80%).
    sim.accounts.named(ONE).limited = True
    moved = round_on(sim, host, state, session_id="s-other")
    assert moved.failovers == [AccountSwitch(ONE, TWO, "usage_limit")]
    assert runs_of(sim, THREE) == []


def test_the_threshold_is_a_setting_and_usage_is_read_at_most_every_ten_minutes(
    sim: Simulator, host: MemoryHost, home: Path, state: CellState
) -> None:
    state.account_threshold = 4.0  # even THREE (5%) is past it: none open, the active runs
    assert round_on(sim, host, state).account == THREE
    asked = sim.dashboard.count(USAGE_PATH)
    assert asked >= 1
    state.account_threshold = 95.0
    sim.accounts.named(THREE).dashboard.set_percents(99.0)
    # The usage read a moment ago is fresh: the dashboard is not asked again, in this
    # process or in another sharing the home (a new state reads what the home keeps).
    assert round_on(sim, host, state, session_id="s-2").account == THREE
    other = CellState(home=home)
    assert round_on(sim, host, other, session_id="s-3").account == THREE
    assert sim.dashboard.count(USAGE_PATH) == asked
    # Ten minutes on, it is read again, and THREE is past the threshold now.
    state.accounts.note_usage(THREE, 5.0, now=time.time() - limits.ACCOUNT_USAGE_MAX_AGE_SECONDS)
    assert round_on(sim, host, state, session_id="s-4").account == ONE
    assert sim.dashboard.count(USAGE_PATH) > asked
    other.close()


def test_the_failover_settings_are_checked() -> None:
    from nodecode_cursor.cell_settings import Settings
    from nodecode_cursor.errors import ConfigError

    assert (Settings().failover, Settings().account_threshold) == (True, 95.0)
    read = Settings.from_section({"failover": False, "account_threshold": 80})
    assert (read.failover, read.account_threshold) == (False, 80.0)
    for bad in ({"failover": "no"}, {"account_threshold": 0}, {"account_threshold": True}):
        with pytest.raises(ConfigError) as caught:
            Settings.from_section(bad)
        assert caught.value.code == "bad_config"
        assert next(iter(bad)) in caught.value.detail
