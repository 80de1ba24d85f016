"""The credential ladder for provider ``cursor``: /connect key, sign-in, env token, env key."""

from __future__ import annotations

import asyncio
import json
import logging
import time
from pathlib import Path

import pytest

from cursor_simulator import Simulator
from cursor_simulator.auth import make_token
from nodecode_cursor.account import credentials as credentials_module
from nodecode_cursor.account.credentials import (
    NOT_SIGNED_IN,
    resolve_credential,
    resolve_credential_async,
)
from nodecode_cursor.account.store import AuthStore, TokenEntry
from nodecode_cursor.errors import ConfigError, CredentialError, NotSignedIn, StoreError
from nodecode_cursor.host import MemoryHost

ENV = ("CURSOR_ACCESS_TOKEN", "CURSOR_API_KEY", "OPENAI_API_KEY", "ANTHROPIC_API_KEY")


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ENV:
        monkeypatch.delenv(name, raising=False)


def write_auth(home: Path, data: dict[str, object]) -> None:
    (home / "auth.json").write_text(json.dumps(data))


def signed_in(home: Path, *, due: bool = False) -> TokenEntry:
    token = make_token(lifetime=310 if due else 3600)
    entry = TokenEntry(token, "refresh-kept", time.time() + (10 if due else 3000), "me@x")
    AuthStore(home).save_entry(entry)
    return entry


def test_nothing_at_all_answers_none(home: Path) -> None:
    host = MemoryHost(home)
    assert resolve_credential(host) is None
    # What a round then raises (tests/cell/test_lane.py plays that round).
    refusal = NotSignedIn()
    assert isinstance(refusal, ConfigError)
    assert str(refusal) == NOT_SIGNED_IN
    assert refusal.status == 400 and refusal.code == "not_signed_in"
    assert refusal.hint == "/cursor login"
    assert "run /cursor login, or set CURSOR_ACCESS_TOKEN" in str(refusal)


def test_the_ladder_in_order(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    host = MemoryHost(home)
    monkeypatch.setenv("CURSOR_API_KEY", "env-key")
    assert resolve_credential(host) == "env-key"
    monkeypatch.setenv("CURSOR_ACCESS_TOKEN", "env-token")
    assert resolve_credential(host) == "env-token"
    entry = signed_in(home)
    assert resolve_credential(host) == entry.access_token
    data = json.loads((home / "auth.json").read_text())
    data["api_keys"] = {"cursor": {"key": "connect-key"}}
    write_auth(home, data)
    assert resolve_credential(host) == "connect-key"
    assert resolve_credential(host, for_round=True) == "connect-key"


def test_blank_env_values_do_not_count(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CURSOR_ACCESS_TOKEN", "   ")
    monkeypatch.setenv("CURSOR_API_KEY", "key-2")
    assert resolve_credential(MemoryHost(home)) == "key-2"


def test_never_answers_for_another_provider(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    signed_in(home)
    monkeypatch.setenv("CURSOR_ACCESS_TOKEN", "env-token")
    host = MemoryHost(home)
    assert resolve_credential(host, "openai") is None
    assert resolve_credential(host, "anthropic") is None


def test_never_lends_another_providers_key(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant")
    write_auth(home, {"api_keys": {"openai": {"key": "sk-saved"}}})
    assert resolve_credential(MemoryHost(home)) is None


def test_only_a_round_refreshes(sim: Simulator, home: Path) -> None:
    old = signed_in(home, due=True)
    host = MemoryHost(home)
    assert resolve_credential(host, base_url=sim.url) == old.access_token
    assert sim.auth.refresh_calls == 0
    assert sim.requests == []
    token = resolve_credential(host, for_round=True, base_url=sim.url)
    assert sim.auth.refresh_calls == 1
    assert token == sim.auth.refreshed[0] != old.access_token
    # Now fresh: a second round sends it without another refresh.
    assert resolve_credential(host, for_round=True, base_url=sim.url) == token
    assert sim.auth.refresh_calls == 1


def test_a_connect_key_wins_without_a_refresh(sim: Simulator, home: Path) -> None:
    signed_in(home, due=True)
    data = json.loads((home / "auth.json").read_text())
    data["api_keys"] = {"cursor": {"key": "connect-key"}}
    write_auth(home, data)
    assert resolve_credential(MemoryHost(home), for_round=True, base_url=sim.url) == "connect-key"
    assert sim.auth.refresh_calls == 0


def test_session_ended_fails_the_round(
    sim: Simulator, home: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    old = signed_in(home, due=True)
    before = (home / "auth.json").read_bytes()
    sim.auth.refresh_mode = "logout"
    host = MemoryHost(home)
    with pytest.raises(CredentialError) as caught:
        resolve_credential(host, for_round=True, base_url=sim.url)
    assert caught.value.status == 401
    assert "/cursor login" in str(caught.value)
    assert "/cursor login" in host.notices["cursor"].text
    assert (home / "auth.json").read_bytes() == before
    assert old.access_token not in str(caught.value) + repr(caught.value) + caplog.text
    assert "refresh-kept" not in str(caught.value) + caplog.text


def test_concurrent_async_rounds_refresh_once(sim: Simulator, home: Path) -> None:
    signed_in(home, due=True)
    sim.auth.refresh_delay = 0.2
    host = MemoryHost(home)

    async def rounds() -> list[str | None]:
        return list(
            await asyncio.gather(
                *(
                    resolve_credential_async(host, for_round=True, base_url=sim.url)
                    for _ in range(3)
                )
            )
        )

    tokens = asyncio.run(rounds())
    assert sim.auth.refresh_calls == 1
    assert tokens == [sim.auth.refreshed[0]] * 3


def test_corrupt_auth_json_says_where(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CURSOR_ACCESS_TOKEN", "env-token")
    (home / "auth.json").write_text("{oops")
    with pytest.raises(StoreError) as caught:
        resolve_credential(MemoryHost(home))
    assert str(home / "auth.json") in str(caught.value)
    assert (home / "auth.json").read_text() == "{oops"


@pytest.mark.parametrize(
    "bad", ["secretAAA\nsecretBBB", "secret\u00e9CCC", "sec ret DDD", "a\x01b"]
)
def test_a_token_no_header_can_carry_is_refused_without_echoing_it(
    home: Path, monkeypatch: pytest.MonkeyPatch, bad: str
) -> None:
    host = MemoryHost(home)
    monkeypatch.setenv("CURSOR_ACCESS_TOKEN", bad)
    with pytest.raises(ConfigError) as caught:
        resolve_credential(host)
    assert "CURSOR_ACCESS_TOKEN" in str(caught.value)
    assert bad not in str(caught.value) and bad not in repr(caught.value)
    for part in bad.split():
        assert part not in str(caught.value)
    monkeypatch.delenv("CURSOR_ACCESS_TOKEN")
    write_auth(home, {"api_keys": {"cursor": {"key": bad}}})
    with pytest.raises(ConfigError, match=r"api_keys\.cursor\.key") as caught:
        resolve_credential(host)
    assert bad not in str(caught.value)
    write_auth(
        home,
        {
            "oauth_tokens": {
                "cursor": {
                    "access_token": bad,
                    "refresh_token": "r",
                    "expires_at": time.time() + 3000,
                }
            }
        },
    )
    with pytest.raises(ConfigError, match=r"oauth_tokens\.cursor"):
        resolve_credential(host)


def test_a_round_sees_each_change_of_what_it_sends(
    sim: Simulator, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Rounds share what the last one read, and still see every change at once: a renewal,
    a sign-out, the environment, a key saved by another writer, a sign-in falling due."""
    host = MemoryHost(home)
    kept = signed_in(home)
    renewed = TokenEntry(make_token(lifetime=3600), "refresh-2", time.time() + 3000, "me@x")

    async def rounds() -> list[str | None]:
        async def one() -> str | None:
            return await resolve_credential_async(host, for_round=True, base_url=sim.url)

        seen = [*await asyncio.gather(*(one() for _ in range(5)))]
        seen.append(await one())
        AuthStore(home).save_entry(renewed)  # this process renews it
        seen.append(await one())
        AuthStore(home).save_entry(None)  # and signs out
        monkeypatch.setenv("CURSOR_ACCESS_TOKEN", "env-token")
        seen.append(await one())
        monkeypatch.setenv("CURSOR_ACCESS_TOKEN", "env-token-changed")
        seen.append(await one())
        # Another process writes the file (not through this process's AuthStore).
        write_auth(home, {"api_keys": {"cursor": {"key": "connect-key"}}})
        seen.append(await one())
        # ... and then a sign-in that is due: this round renews it first.
        due = TokenEntry(make_token(lifetime=310), "refresh-kept", time.time() + 10, None)
        write_auth(home, {"oauth_tokens": {"cursor": due.as_json()}})
        seen.append(await one())
        return seen

    seen = asyncio.run(rounds())
    assert seen[:6] == [kept.access_token] * 6
    assert seen[6:10] == [renewed.access_token, "env-token", "env-token-changed", "connect-key"]
    assert sim.auth.refresh_calls == 1
    assert seen[10] == sim.auth.refreshed[0]
    # What is kept between rounds shows no token in its repr.
    kept_reprs = repr(credentials_module._remembered)
    for token in (kept.access_token, renewed.access_token, sim.auth.refreshed[0], "connect-key"):
        assert token not in kept_reprs


def test_a_session_cursor_ends_makes_the_next_round_read_again(sim: Simulator, home: Path) -> None:
    """The kept answer depends on how many sessions Cursor has ended: when that grows
    (a refresh refused, here or for another base URL), the next round reads auth.json
    again instead of sending what it remembered."""
    host = MemoryHost(home)
    kept = signed_in(home)
    ended: set[str] = set()
    where = (str(home), sim.url, None)

    async def one() -> str | None:
        return await resolve_credential_async(host, for_round=True, base_url=sim.url, ended=ended)

    Kept = credentials_module._Remembered

    async def rounds() -> tuple[Kept, Kept, Kept]:
        await one()
        first = credentials_module._remembered[where]
        await one()
        still = credentials_module._remembered[where]
        ended.add("digest-of-a-session-cursor-ended")
        await one()
        return first, still, credentials_module._remembered[where]

    first, still, after = asyncio.run(rounds())
    assert still is first  # nothing changed: the second round used what the first read
    assert after is not first  # the ended session made the third read again
    assert after.token == kept.access_token
    assert sim.auth.refresh_calls == 0
