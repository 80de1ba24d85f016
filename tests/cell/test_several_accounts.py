"""Several Cursor accounts: signed in through the simulator, listed, chosen per round, forgotten.

Every sign-in is the real browser flow's poll against the simulator (its page
confirmed as the person would), every round a real run; the simulator's accounts
(``cursor_simulator/accounts.py``) issue tokens naming their email and record
which bearer each of their runs carried.
"""

from __future__ import annotations

import json
import stat
import time
from pathlib import Path

import pytest

from cursor_simulator import Simulator
from cursor_simulator.models import RosterEntry
from nodecode_cursor.account import accounts
from nodecode_cursor.account.signin import PollPacing, account_notice_key
from nodecode_cursor.account.store import AuthStore, TokenEntry
from nodecode_cursor.commands import CursorCommand
from nodecode_cursor.errors import CredentialError, ProviderError, UnknownAccount
from nodecode_cursor.host import MemoryHost, RoundContext
from nodecode_cursor.lanes import lane
from nodecode_cursor.state import CellState

FAST = PollPacing(first_delay=0.01, backoff=1.2, max_delay=0.03, request_timeout=2.0)
ONE, TWO, THREE = "one@example.com", "two@example.com", "three@example.com"


def sign_in(sim: Simulator, cmd: CursorCommand, email: str, *, add: bool = True) -> str:
    """Sign in to EMAIL's account through the page and the poll; return what the sign-in said."""
    sim.auth.sign_in_as(email)
    said = len(cmd.host.said)  # type: ignore[attr-defined]
    line = cmd.run("login --add" if add else "login")
    login_id = line.split("uuid=")[1].split("&")[0].split()[0]
    sim.auth.confirm(login_id)
    assert cmd.signin.wait(60)
    lines: list[str] = cmd.host.said[said:]  # type: ignore[attr-defined]
    assert lines, "the sign-in said nothing"
    return lines[-1]


def file_mode(path: Path) -> int:
    """Return PATH's permission bits."""
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture
def cmd(sim: Simulator, home: Path) -> CursorCommand:
    """Return the /cursor command of a memory host on HOME, with the simulator's three accounts."""
    sim.accounts.add(ONE, plan="Pro", percent=30.0)
    sim.accounts.add(TWO, plan="Business", percent=80.0)
    sim.accounts.add(THREE, plan="Ultra", percent=5.0)
    return CursorCommand(MemoryHost(home), sim.url, sim.url, pacing=FAST)


def test_add_list_use_and_forget_three_accounts(
    sim: Simulator, home: Path, cmd: CursorCommand
) -> None:
    assert sign_in(sim, cmd, ONE) == f"cursor: signed in as {ONE}"
    said = sign_in(sim, cmd, TWO)
    assert said.startswith(f"cursor: signed in as {TWO} (now active; {ONE} is kept")
    sign_in(sim, cmd, THREE)
    store = AuthStore(home)
    assert [(a.name, a.active) for a in accounts.listed(store)] == [
        (THREE, True),
        (ONE, False),
        (TWO, False),
    ]
    raw = json.loads((home / "auth.json").read_text())
    # A host that knows only oauth_tokens.cursor sees the active account, as it always did.
    assert raw["oauth_tokens"]["cursor"]["email"] == THREE
    assert sorted(raw["oauth_tokens"]["cursor_accounts"]) == [ONE, TWO]
    assert file_mode(home / "auth.json") == 0o600

    assert cmd.run(f"use {TWO}") == f"cursor: {TWO} is active now"
    assert AuthStore(home).entry() is not None
    assert AuthStore(home).entry().email == TWO  # type: ignore[union-attr]
    assert sorted(json.loads((home / "auth.json").read_text())["oauth_tokens"]["cursor_accounts"])
    assert file_mode(home / "auth.json") == 0o600
    # Only a kept account can be named; nothing changes.
    refused = cmd.run("use nobody@example.com")
    assert refused.startswith("cursor: no Cursor account nobody@example.com is signed in here")
    assert AuthStore(home).entry().email == TWO  # type: ignore[union-attr]

    assert cmd.run(f"logout {ONE}") == f"cursor: forgot the account {ONE}; {TWO} is active"
    assert [a.name for a in accounts.listed(store)] == [TWO, THREE]
    # logout alone forgets the active one and says which becomes active.
    assert cmd.run("logout") == f"cursor: signed out of {TWO}; {THREE} is active now"
    assert cmd.run("logout") == "cursor: signed out"
    assert cmd.run("logout") == "cursor: not signed in; nothing to forget"
    assert "cursor_accounts" not in json.loads((home / "auth.json").read_text())["oauth_tokens"]


def test_a_sign_in_without_add_replaces_the_active_account_and_keeps_the_others(
    sim: Simulator, home: Path, cmd: CursorCommand
) -> None:
    sign_in(sim, cmd, ONE)
    sign_in(sim, cmd, TWO)
    assert sign_in(sim, cmd, THREE, add=False) == f"cursor: signed in as {THREE}"
    assert [(a.name, a.active) for a in accounts.listed(AuthStore(home))] == [
        (THREE, True),
        (ONE, False),
    ]
    # Signing in again to a kept account takes it out of the others: it is kept once.
    sign_in(sim, cmd, ONE)
    assert [(a.name, a.active) for a in accounts.listed(AuthStore(home))] == [
        (ONE, True),
        (THREE, False),
    ]


def test_accounts_lists_each_plan_and_usage_from_its_own_dashboard(
    sim: Simulator, home: Path, cmd: CursorCommand
) -> None:
    from nodecode_cursor.account.overview import account_rows, rows_text

    sign_in(sim, cmd, ONE)
    sign_in(sim, cmd, TWO)
    rows = account_rows(
        cmd.host, base_url=sim.url, proxy=None, client_version="cli-test-1", ended=set()
    )
    assert [(r.name, r.active, r.usage and r.usage.plan) for r in rows] == [
        (TWO, True, "Business"),
        (ONE, False, "Pro"),
    ]
    text = rows_text(rows)
    assert text.splitlines()[0] == "cursor: 2 accounts (* active)"
    assert f"* {TWO}  Business, 80.0% used" in text
    assert f"  {ONE}  Pro, 30.0% used" in text


def rounds_context(sim: Simulator, host: MemoryHost, **fields: object) -> RoundContext:
    """Return a round on the simulator through HOST's kept accounts (no credential given)."""
    base: dict[str, object] = {
        "model": "composer-2.5",
        "messages": [{"role": "user", "content": "hello"}],
        "base_url": sim.url,
        "client_version": "cli-test-1",
        "request_timeout": 10.0,
        "host": host,
    }
    base.update(fields)
    return RoundContext(**base)  # type: ignore[arg-type]


def bearer_of(sim: Simulator, email: str) -> list[str]:
    """Return the bearers of the runs the simulator saw for EMAIL's account."""
    return list(sim.accounts.named(email).runs)


def test_a_round_on_a_named_account_sends_that_accounts_token(
    sim: Simulator, home: Path, cmd: CursorCommand, state: CellState
) -> None:
    sign_in(sim, cmd, ONE)
    sign_in(sim, cmd, TWO)
    host = MemoryHost(home)
    result = lane.stream_round_sync(rounds_context(sim, host, account=ONE), state)
    assert result.finish_reason == "stop"
    one = accounts.entry_for(AuthStore(home), ONE)
    assert bearer_of(sim, ONE) == [f"Bearer {one.access_token}"]
    assert bearer_of(sim, TWO) == []
    # Without a name, the active account runs the round.
    lane.stream_round_sync(rounds_context(sim, host), state)
    assert len(bearer_of(sim, TWO)) == 1
    # An unknown account is an error, never another account's round.
    runs = len(sim.agent.runs)
    with pytest.raises(UnknownAccount) as caught:
        lane.stream_round_sync(rounds_context(sim, host, account="nobody@example.com"), state)
    assert caught.value.code == "unknown_account"
    assert caught.value.kept == (TWO, ONE)
    assert len(sim.agent.runs) == runs


def make_due(home: Path, email: str) -> None:
    """Make EMAIL's kept token due for renewal (its expiry now), wherever it is kept."""
    store = AuthStore(home)
    entry = accounts.entry_for(store, email)
    due = TokenEntry(entry.access_token, entry.refresh_token, time.time(), entry.email)
    with store.locked():
        assert accounts.save_renewed(store, email, due)


def test_each_account_renews_on_its_own_and_one_ended_session_leaves_the_other(
    sim: Simulator, home: Path, cmd: CursorCommand, state: CellState
) -> None:
    sign_in(sim, cmd, ONE)
    sign_in(sim, cmd, TWO)
    host = MemoryHost(home)
    make_due(home, ONE)
    before = accounts.entry_for(AuthStore(home), ONE)
    lane.stream_round_sync(rounds_context(sim, host, account=ONE), state)
    renewed = accounts.entry_for(AuthStore(home), ONE)
    # ONE's entry was renewed in its own place; the active account (TWO) was not touched.
    assert renewed.access_token != before.access_token
    assert bearer_of(sim, ONE) == [f"Bearer {renewed.access_token}"]
    assert AuthStore(home).entry().email == TWO  # type: ignore[union-attr]
    assert file_mode(home / "auth.json") == 0o600

    # Cursor ends ONE's session: its round fails with a notice of its own...
    sim.accounts.named(ONE).refresh_mode = "logout"
    make_due(home, ONE)
    with pytest.raises(CredentialError):
        lane.stream_round_sync(rounds_context(sim, host, account=ONE), state)
    assert account_notice_key(ONE) in host.notices
    assert ONE in host.notices[account_notice_key(ONE)].text
    assert "cursor" not in host.notices  # the active account's notice stays clear
    # ...and TWO goes on.
    result = lane.stream_round_sync(rounds_context(sim, host, account=TWO), state)
    assert result.finish_reason == "stop"
    assert len(bearer_of(sim, TWO)) == 1


def test_a_limited_account_is_refused_while_the_other_goes_on(
    sim: Simulator, home: Path, cmd: CursorCommand, state: CellState
) -> None:
    sign_in(sim, cmd, ONE)
    sign_in(sim, cmd, TWO)
    host = MemoryHost(home)
    sim.accounts.named(ONE).limited = True
    with pytest.raises(ProviderError):
        lane.stream_round_sync(rounds_context(sim, host, account=ONE), state)
    assert len(bearer_of(sim, ONE)) >= 1
    result = lane.stream_round_sync(rounds_context(sim, host, account=TWO), state)
    assert result.finish_reason == "stop"


def run_request_of(sim: Simulator, index: int) -> object:
    """Return the run request the simulator's run INDEX opened with."""
    return sim.agent.run(index).appends[0].message.run_request


def test_a_session_moved_to_another_account_starts_afresh_with_the_whole_history(
    sim: Simulator, home: Path, cmd: CursorCommand, state: CellState
) -> None:
    sign_in(sim, cmd, ONE)
    sign_in(sim, cmd, TWO)
    host = MemoryHost(home)
    state.home = home  # conversations kept on disk, as a started cell keeps them
    history: list[dict[str, object]] = [{"role": "user", "content": "first question"}]
    first = lane.stream_round_sync(
        rounds_context(sim, host, account=ONE, session_id="s-1", messages=list(history)), state
    )
    history += [first.message, {"role": "user", "content": "second question"}]
    lane.stream_round_sync(
        rounds_context(sim, host, account=TWO, session_id="s-1", messages=list(history)), state
    )
    on_one, on_two = run_request_of(sim, 0), run_request_of(sim, 1)
    # The wire id ONE ran is unknown to TWO: a new one, and the history goes whole.
    assert on_one.conversation_id != on_two.conversation_id  # type: ignore[attr-defined]
    assert len(on_two.conversation_state.turns) >= 1  # type: ignore[attr-defined]
    assert bearer_of(sim, TWO) and bearer_of(sim, ONE)


def test_an_accounts_roster_is_its_own(
    sim: Simulator, home: Path, cmd: CursorCommand, state: CellState
) -> None:
    sim.accounts.named(TWO).roster = [RosterEntry("only-two-1", "Only Two")]
    sign_in(sim, cmd, ONE)
    sign_in(sim, cmd, TWO)
    import asyncio

    from nodecode_cursor.models import listing

    one = accounts.entry_for(AuthStore(home), ONE).access_token
    two = accounts.entry_for(AuthStore(home), TWO).access_token
    mine = asyncio.run(listing.round_roster(state, one, sim.url))
    theirs = asyncio.run(listing.round_roster(state, two, sim.url))
    assert "only-two-1" not in [m.id for m in mine]
    assert [m.id for m in theirs] == ["only-two-1"]


def test_a_store_with_bad_accounts_is_refused_whole(home: Path) -> None:
    (home / "auth.json").write_text(
        json.dumps({"oauth_tokens": {"cursor_accounts": {ONE: {"access_token": 3}}}})
    )
    (home / "auth.json").chmod(0o600)
    from nodecode_cursor.errors import StoreError

    with pytest.raises(StoreError) as caught:
        accounts.listed(AuthStore(home))
    assert caught.value.code == "corrupt"
    assert "cursor_accounts" in caught.value.detail
