"""A ``crsr_`` API key is exchanged for a session token before any call to Cursor (issue 33).

Rounds, the roster, /connect's check and the dashboard all send the session
token the simulator's ``/auth/exchange_user_api_key`` answered, never the key;
the simulator refuses a raw key on every route, as Cursor does. Each test uses
a key of its own: the exchanged tokens are kept per key for the process.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from cursor_simulator import Simulator
from cursor_simulator.agent import RUN_PATH
from cursor_simulator.auth import EXCHANGE_PATH
from cursor_simulator.models import PATH as ROSTER_PATH
from nodecode_cursor.account import key_exchange
from nodecode_cursor.account.store import AuthStore, token_claims
from nodecode_cursor.cell import CursorCell
from nodecode_cursor.errors import CredentialError, ProviderError
from nodecode_cursor.host import MemoryHost, RoundContext, RoundResult
from nodecode_cursor.limits import client_version
from nodecode_cursor.transports.http import rpc_headers

MODEL = "composer-2.5"


def new_key() -> str:
    """Return a key no other test has exchanged."""
    return f"crsr_{uuid.uuid4().hex}{uuid.uuid4().hex}"


@pytest.fixture
def cell(sim: Simulator, home: Path) -> Iterator[CursorCell]:
    cell = CursorCell()
    assert cell.start(MemoryHost(home, {"cursor": {"base_url": sim.url}}))
    yield cell
    cell.stop()


def ctx(sim: Simulator, credential: str | None, text: str = "hello") -> RoundContext:
    """Return one round's context on SIM, with CREDENTIAL as the host's credential."""
    return RoundContext(
        model=MODEL,
        messages=[{"role": "user", "content": text}],
        session_id=f"session-{uuid.uuid4()}",
        credential=credential,
        base_url=sim.url,
        request_timeout=10.0,
    )


def rounds(cell: CursorCell, *contexts: RoundContext) -> list[RoundResult]:
    """Return the rounds of CONTEXTS, run at once on one loop."""

    async def all_of() -> list[RoundResult]:
        return list(await asyncio.gather(*(cell.stream_round(c) for c in contexts)))

    return asyncio.run(all_of())


def bearers(sim: Simulator, path: str) -> list[str]:
    """Return the bearer of every request SIM received for PATH."""
    return [r.headers["authorization"].removeprefix("Bearer ") for r in sim.requests_to(path)]


def no_raw_key_sent(sim: Simulator, key: str) -> bool:
    """Return whether KEY went nowhere but the exchange's Authorization header."""
    for request in sim.requests:
        if request.path == EXCHANGE_PATH:
            continue
        if key.encode() in request.body or any(key in v for v in request.headers.values()):
            return False
    return True


def test_the_simulator_refuses_a_raw_key_on_every_route_and_serves_the_exchange(
    sim: Simulator,
) -> None:
    key = new_key()
    headers = rpc_headers(key, client_version("cli-test-1"), str(uuid.uuid4()))
    headers["content-type"] = "application/proto"
    for path in (ROSTER_PATH, RUN_PATH):
        refused = httpx.post(sim.url + path, headers=headers, content=b"")
        assert refused.status_code == 401, path
        assert refused.json()["code"] == "unauthenticated"
    exchanged = httpx.post(
        sim.url + EXCHANGE_PATH,
        headers={"authorization": f"Bearer {key}", "content-type": "application/json"},
        content=b"{}",
    )
    assert exchanged.status_code == 200
    token = exchanged.json()["accessToken"]
    assert token_claims(token)["type"] == "api_key_token"
    headers["authorization"] = f"Bearer {token}"
    assert httpx.post(sim.url + ROSTER_PATH, headers=headers, content=b"").status_code == 200
    sim.refuse_raw_api_keys = False  # the switch back to the old, lenient behaviour
    headers["authorization"] = f"Bearer {key}"
    assert httpx.post(sim.url + ROSTER_PATH, headers=headers, content=b"").status_code == 200


def test_rounds_send_the_exchanged_token_and_share_one_exchange(
    sim: Simulator, cell: CursorCell
) -> None:
    key = new_key()
    sim.auth.exchange_delay = 0.2  # the burst's rounds all arrive while the exchange runs
    results = rounds(cell, *(ctx(sim, key, f"burst {n}") for n in range(4)))
    results += rounds(cell, ctx(sim, key, "later"))
    assert [r.finish_reason for r in results] == ["stop"] * 5
    assert sim.auth.exchanges == 1
    (token,) = sim.auth.exchanged
    assert set(bearers(sim, RUN_PATH)) == {token}
    assert token_claims(token)["type"] == "api_key_token"
    assert no_raw_key_sent(sim, key)
    assert key not in repr(key_exchange.kept(key, sim.url))


def test_a_token_within_five_minutes_of_its_expiry_is_exchanged_again(
    sim: Simulator, cell: CursorCell
) -> None:
    key = new_key()
    sim.auth.exchange_lifetime = 240.0  # already inside the five minutes when it comes
    rounds(cell, ctx(sim, key, "one"))
    rounds(cell, ctx(sim, key, "two"))
    assert sim.auth.exchanges == 2
    assert bearers(sim, RUN_PATH) == sim.auth.exchanged
    sim.auth.exchange_lifetime = 3600.0
    rounds(cell, ctx(sim, key, "three"))
    rounds(cell, ctx(sim, key, "four"))
    assert sim.auth.exchanges == 3


def test_a_token_that_is_no_api_key_goes_as_it_is(sim: Simulator, cell: CursorCell) -> None:
    rounds(cell, ctx(sim, "a-session-token-from-the-host"))
    assert sim.auth.exchanges == 0
    assert bearers(sim, RUN_PATH) == ["a-session-token-from-the-host"]


def test_a_refused_key_says_so_and_where_it_came_from_never_the_key(
    sim: Simulator, cell: CursorCell, monkeypatch: pytest.MonkeyPatch
) -> None:
    key = new_key()
    sim.auth.api_keys = {new_key()}  # some other key is valid; this one is not
    with pytest.raises(CredentialError) as given:
        rounds(cell, ctx(sim, key))
    assert given.value.detail == (
        "Cursor refused the API key (from the round's credential): check it in Cursor's "
        "dashboard or run /connect again"
    )
    assert given.value.code == key_exchange.KEY_REFUSED and given.value.status == 401
    monkeypatch.setenv("CURSOR_API_KEY", key)
    with pytest.raises(CredentialError) as from_env:
        rounds(cell, ctx(sim, None))
    assert "Cursor refused the API key (from CURSOR_API_KEY)" in from_env.value.detail
    for caught in (given, from_env):
        assert key not in str(caught.value) + repr(caught.value)
    assert sim.requests_to(RUN_PATH) == []


def test_a_key_saved_by_connect_is_named_when_refused(
    sim: Simulator, cell: CursorCell, home: Path
) -> None:
    key = new_key()
    AuthStore(home).update(lambda data: bool(data.setdefault("api_keys", {"cursor": {"key": key}})))
    sim.auth.api_keys = set()
    with pytest.raises(CredentialError, match=r"from the key saved by /connect\)"):
        rounds(cell, ctx(sim, None))


def test_a_failed_exchange_is_worded_and_retryable(sim: Simulator, cell: CursorCell) -> None:
    key = new_key()
    sim.auth.exchange_status = 503
    with pytest.raises(ProviderError) as caught:
        rounds(cell, ctx(sim, key))
    assert caught.value.detail == (
        "Cursor could not exchange the API key (from the round's credential) for a session "
        "token: HTTP 503; try again later"
    )
    assert caught.value.retryable
    sim.auth.exchange_status = 200  # the next round exchanges again, and goes
    assert rounds(cell, ctx(sim, key))[0].finish_reason == "stop"


def test_roster_connect_check_and_dashboard_send_the_session_token(
    sim: Simulator, cell: CursorCell, monkeypatch: pytest.MonkeyPatch
) -> None:
    key = new_key()
    assert asyncio.run(cell.check_key(key)) is None
    monkeypatch.setenv("CURSOR_API_KEY", key)
    roster = asyncio.run(cell.list_models())
    assert roster.live
    usage = cell.account_usage_now()
    assert usage is not None
    assert sim.auth.exchanges == 1
    (token,) = sim.auth.exchanged
    assert set(bearers(sim, ROSTER_PATH)) == {token}
    assert no_raw_key_sent(sim, key)
    refused = new_key()
    sim.auth.api_keys = {key}
    said = asyncio.run(cell.check_key(refused))
    assert said is not None
    assert said.startswith("Cursor refused the API key (from the key given to /connect)")
    assert refused not in said


class AllBut(set[str]):
    """Every bearer but one: the session token Cursor stopped taking before it was due."""

    def __init__(self, refused: str) -> None:
        super().__init__()
        self.refused = refused

    def __contains__(self, token: object) -> bool:
        return token != self.refused


def test_a_session_token_refused_before_it_is_due_is_exchanged_again(
    sim: Simulator, cell: CursorCell
) -> None:
    key = new_key()
    (first,) = rounds(cell, ctx(sim, key))
    assert first.finish_reason == "stop"
    session = key_exchange.kept(key, sim.url)
    assert session is not None and sim.auth.exchanges == 1
    # Cursor stops taking the kept token (the key was rotated, the session ended).
    sim.valid_tokens = AllBut(session.token)
    with pytest.raises(ProviderError) as caught:
        rounds(cell, ctx(sim, key))
    assert caught.value.code == "api_key_session_refused"
    assert caught.value.retryable and "exchanged again" in caught.value.detail
    assert key_exchange.kept(key, sim.url) is None  # forgotten, not sent again
    # The next round exchanges the key again and goes through on the new token.
    (again,) = rounds(cell, ctx(sim, key))
    assert again.finish_reason == "stop"
    assert sim.auth.exchanges == 2
    renewed = key_exchange.kept(key, sim.url)
    assert renewed is not None and renewed.token != session.token
    assert bearers(sim, RUN_PATH)[-1] == renewed.token
    assert no_raw_key_sent(sim, key)
