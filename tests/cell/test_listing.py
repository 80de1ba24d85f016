"""The account roster (GetUsableModels) over a real socket to the simulator."""

from __future__ import annotations

import asyncio
import socket
import uuid

import httpx
import pytest

from cursor_simulator import Simulator
from nodecode_cursor.errors import NOT_SIGNED_IN, ConfigError, ProviderError
from nodecode_cursor.models import listing
from nodecode_cursor.state import CellState


def _field(number: int, payload: bytes) -> bytes:
    """Length-delimited field: tag byte (number << 3 | 2), one-byte length, payload."""
    assert len(payload) < 128
    return bytes([number << 3 | 2, len(payload)]) + payload


# models 1 { model_id 1, display_name 4, max_mode 7 } written out by hand.
ZETA = b"\x0a\x04zeta" + b"\x22\x04Zeta" + b"\x38\x01"
ALPHA = b"\x0a\x05alpha" + b"\x2a\x08Alpha 1M"  # display_name_short (5) names 1M
PLAIN = b"\x0a\x05plain" + b"\x1a\x0aplain-disp"  # only display_model_id (3)
ROSTER = _field(1, ZETA) + _field(1, ALPHA) + _field(1, ZETA) + _field(1, PLAIN)


def test_hand_written_roster_parses_sorted_once(sim: Simulator, state: CellState) -> None:
    sim.models.raw_body = ROSTER
    models = asyncio.run(listing.fetch_roster("tok-abc", sim.url, state=state))
    assert [m.id for m in models] == ["alpha", "plain", "zeta"]
    alpha, plain, zeta = models
    assert alpha.name == "Alpha 1M" and alpha.context_window == 1_000_000
    assert plain.name == "plain-disp" and plain.context_window == listing.DEFAULT_CONTEXT_WINDOW
    assert zeta.name == "Zeta" and zeta.max_mode is True
    assert listing.roster_marker(state, "zeta", "tok-abc", sim.url) is True
    assert listing.roster_marker(state, "alpha", "tok-abc", sim.url) is None


def test_framed_roster_is_read_too(sim: Simulator) -> None:
    # flag 0, 4-byte length, the message; then an end-of-stream frame with {}.
    sim.models.raw_body = (
        b"\x00" + len(ROSTER).to_bytes(4, "big") + ROSTER + b"\x02\x00\x00\x00\x02{}"
    )
    models = asyncio.run(listing.fetch_roster("tok-abc", sim.url))
    assert [m.id for m in models] == ["alpha", "plain", "zeta"]


def test_request_carries_client_headers_and_empty_body(sim: Simulator) -> None:
    asyncio.run(listing.fetch_roster("tok-abc", sim.url, client_version="cli-test-1"))
    (request,) = sim.requests_to(listing.GET_USABLE_MODELS_PATH)
    assert request.method == "POST"
    assert request.body == b""
    assert request.headers["authorization"] == "Bearer tok-abc"
    assert request.headers["content-type"] == "application/proto"
    assert request.headers["connect-protocol-version"] == "1"
    assert request.headers["x-cursor-client-type"] == "cli"
    assert request.headers["x-cursor-client-version"] == "cli-test-1"
    assert request.headers["x-ghost-mode"] == "true"
    assert uuid.UUID(request.headers["x-request-id"]).version == 4


def test_client_version_env_overrides(sim: Simulator, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CURSOR_CLIENT_VERSION", "cli-from-env")
    asyncio.run(listing.fetch_roster("tok-abc", sim.url, client_version="cli-config"))
    (request,) = sim.requests_to(listing.GET_USABLE_MODELS_PATH)
    assert request.headers["x-cursor-client-version"] == "cli-from-env"


def test_key_check_refusal_reads_as_status_and_code(sim: Simulator) -> None:
    sim.valid_tokens = {"good"}
    assert asyncio.run(listing.check_key("good", sim.url)) is None
    assert asyncio.run(listing.check_key("bad-secret", sim.url)) == "HTTP 401 unauthenticated"
    assert asyncio.run(listing.check_key(None, sim.url)) == NOT_SIGNED_IN


@pytest.mark.parametrize("key", ["abc s3cr3t-part\n", "t\u00f8ken-s3cr3t"])
def test_a_key_no_header_can_carry_is_one_clear_line(sim: Simulator, key: str) -> None:
    line = asyncio.run(listing.check_key(key, sim.url))
    assert line is not None and "\n" not in line
    assert "characters a token cannot hold" in line
    assert "s3cr3t" not in line
    roster = asyncio.run(listing.list_models(key, sim.url))
    assert not roster.live and "s3cr3t" not in (roster.reason or "")
    with pytest.raises(ConfigError) as caught:
        asyncio.run(listing.fetch_roster(key, sim.url))
    assert caught.value.code == "bad_token" and "s3cr3t" not in repr(caught.value)
    assert sim.requests == []  # refused before any network


def test_scripted_refusal_status(sim: Simulator) -> None:
    sim.models.refuse(403, "permission_denied")
    assert asyncio.run(listing.check_key("tok", sim.url)) == "HTTP 403 permission_denied"


def test_unreachable_names_the_url() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    url = f"http://127.0.0.1:{port}"
    line = asyncio.run(listing.check_key("tok-secret", url))
    assert line is not None
    assert f"{url}{listing.GET_USABLE_MODELS_PATH}" in line
    assert "tok-secret" not in line


def test_list_models_falls_back_to_bundled_rows_with_reason(sim: Simulator) -> None:
    sim.models.refuse(401, "unauthenticated")
    roster = asyncio.run(listing.list_models("tok", sim.url))
    assert roster.live is False
    assert roster.reason == "HTTP 401 unauthenticated"
    ids = [m.id for m in roster.models]
    assert "gpt-5.4" in ids and ids == sorted(ids)


def test_list_models_live(sim: Simulator) -> None:
    roster = asyncio.run(listing.list_models("tok", sim.url))
    assert roster.live is True and roster.reason is None
    assert any(m.id == "composer-2.5" for m in roster.models)


def test_garbage_roster_is_a_provider_error(sim: Simulator) -> None:
    sim.models.raw_body = b"\x0a\xff\xff"
    line = asyncio.run(listing.check_key("tok", sim.url))
    assert line is not None and "did not parse" in line


# Display-name fallbacks (PROTOCOL.md §10), each row written by hand:
# display_name (4) beats display_name_short (5); aliases (6) speak only when 4, 5
# and 3 are empty, the first non-empty one; the id when nothing else does.
BOTH = b"\x0a\x04both" + b"\x22\x04Long" + b"\x2a\x05Short"
ALIASED = b"\x0a\x07default" + b"\x32\x00" + b"\x32\x04Auto" + b"\x32\x05Other"
BARE = b"\x0a\x04bare" + b"\x38\x00"  # max_mode (7) present and false


def test_display_name_fallbacks_bundled_window_and_a_false_marker(
    sim: Simulator, state: CellState
) -> None:
    sim.models.raw_body = _field(1, BOTH) + _field(1, ALIASED) + _field(1, BARE)
    models = asyncio.run(listing.fetch_roster("tok-abc", sim.url, state=state))
    by_id = {m.id: m for m in models}
    assert [m.id for m in models] == ["bare", "both", "default"]
    assert by_id["both"].name == "Long"
    assert by_id["default"].name == "Auto"
    assert by_id["bare"].name == "bare"
    # "default" has a bundled row (256 000 tokens): its window, not the 200 000 default
    assert by_id["default"].context_window == 256_000
    assert by_id["both"].context_window == listing.DEFAULT_CONTEXT_WINDOW
    # a marker that says false is remembered as false, not as unknown
    assert by_id["bare"].max_mode is False
    assert listing.roster_marker(state, "bare", "tok-abc", sim.url) is False
    assert by_id["both"].max_mode is None


def test_roster_timeout_is_five_seconds() -> None:
    assert listing.limits.ROSTER_TIMEOUT_SECONDS == 5.0


def _post_roster(sim: Simulator, headers: dict[str, str], body: bytes = b"") -> httpx.Response:
    """Return the simulator's answer to a GetUsableModels call with these headers."""
    with httpx.Client(base_url=sim.url, timeout=30.0) as client:
        return client.post(listing.GET_USABLE_MODELS_PATH, content=body, headers=headers)


GOOD_HEADERS = {
    "authorization": "Bearer tok-abc",
    "content-type": "application/proto",
    "connect-protocol-version": "1",
    "x-cursor-client-type": "cli",
    "x-cursor-client-version": "cli-test-1",
    "x-ghost-mode": "true",
    "x-request-id": "5f0c6f7e-0000-4000-8000-000000000001",
}


@pytest.mark.parametrize(
    ("change", "body", "status", "code"),
    [
        ({"authorization": None}, b"", 401, "unauthenticated"),
        ({"authorization": "Basic tok-abc"}, b"", 401, "unauthenticated"),
        ({"content-type": "application/json"}, b"", 415, "invalid_argument"),
        ({"content-type": "application/connect+proto"}, b"", 415, "invalid_argument"),
        ({"connect-protocol-version": None}, b"", 400, "invalid_argument"),
        ({"x-cursor-client-type": "ide"}, b"", 400, "invalid_argument"),
        ({"x-ghost-mode": "false"}, b"", 400, "invalid_argument"),
        ({"x-cursor-client-version": None}, b"", 400, "invalid_argument"),
        ({"x-request-id": None}, b"", 400, "invalid_argument"),
        # field 1, length-delimited, declaring 5 bytes but carrying 1: not a message
        ({}, b"\x0a\x05x", 400, "invalid_argument"),
    ],
)
def test_simulator_checks_the_roster_call(
    sim: Simulator, change: dict[str, str | None], body: bytes, status: int, code: str
) -> None:
    headers = {**GOOD_HEADERS, **{k: v for k, v in change.items() if v is not None}}
    for name, value in change.items():
        if value is None:
            headers.pop(name)
    answer = _post_roster(sim, headers, body)
    assert answer.status_code == status
    assert answer.headers["content-type"] == "application/json"
    assert answer.json()["code"] == code
    # the conforming call is served
    assert _post_roster(sim, GOOD_HEADERS).status_code == 200


def test_simulator_refuses_a_token_it_does_not_know(sim: Simulator) -> None:
    sim.valid_tokens = {"good"}
    assert _post_roster(sim, GOOD_HEADERS).status_code == 401
    assert _post_roster(sim, {**GOOD_HEADERS, "authorization": "Bearer good"}).status_code == 200


def test_simulator_roster_takes_post_only(sim: Simulator) -> None:
    with httpx.Client(base_url=sim.url, timeout=30.0) as client:
        answer = client.get(listing.GET_USABLE_MODELS_PATH, headers=GOOD_HEADERS)
    assert answer.status_code == 405
    assert answer.json()["code"] == "unimplemented"


def test_round_marker_prefers_the_routed_slug(sim: Simulator, state: CellState) -> None:
    # models 1 { model_id 1 "mm-base", max_mode 7 true }, { "mm-base-high", max_mode false }
    sim.models.raw_body = _field(1, b"\x0a\x07mm-base\x38\x01") + _field(
        1, b"\x0a\x0cmm-base-high\x38\x00"
    )
    asyncio.run(listing.fetch_roster("tok-abc", sim.url, state=state))
    assert listing.round_marker(state, "mm-base", "mm-base-high", "tok-abc", sim.url) is False
    assert listing.round_marker(state, "mm-base", "mm-base-low", "tok-abc", sim.url) is True
    assert listing.round_marker(state, "mm-other", "mm-other-low", "tok-abc", sim.url) is None


@pytest.mark.parametrize(
    ("http_status", "code", "status", "retryable"),
    [
        (400, "unauthenticated", 401, False),  # the Connect code decides, not the HTTP status
        (429, "resource_exhausted", 429, True),
        (503, "unavailable", 503, True),
        (403, "permission_denied", 403, False),
    ],
)
def test_a_roster_refusal_is_classified_from_its_connect_error(
    sim: Simulator, http_status: int, code: str, status: int, retryable: bool
) -> None:
    sim.models.refuse(http_status, code)
    with pytest.raises(ProviderError) as caught:
        asyncio.run(listing.fetch_roster("tok", sim.url))
    assert str(caught.value) == f"HTTP {http_status} {code}"  # the key check's line
    assert (caught.value.status, caught.value.code) == (status, code)
    assert caught.value.retryable is retryable


@pytest.mark.usefixtures("bad_proxy_environment")
def test_an_unusable_proxy_environment_is_a_config_error_naming_no_secret(sim: Simulator) -> None:
    with pytest.raises(ConfigError) as caught:
        asyncio.run(listing.fetch_roster("tok-abc", sim.url))
    assert caught.value.code == "bad_proxy"
    assert "proxy environment" in str(caught.value)
    assert "s3cr3t" not in repr(caught.value) and "s3cr3t" not in str(caught.value)
    assert sim.models.calls == 0


@pytest.mark.usefixtures("bad_proxy_environment")
def test_list_models_with_an_unusable_proxy_lists_bundled_rows_saying_why(sim: Simulator) -> None:
    roster = asyncio.run(listing.list_models("tok-abc", sim.url))
    assert not roster.live and roster.models
    assert roster.reason is not None and "proxy" in roster.reason
    assert "s3cr3t" not in roster.reason


def test_the_cursor_proxy_setting_carries_the_roster(sim: Simulator, tmp_path: object) -> None:
    """cell.list_models asks the roster through cursor.proxy, as the rounds go."""
    from pathlib import Path

    from nodecode_cursor.cell import CursorCell
    from nodecode_cursor.host import MemoryHost

    host = MemoryHost(
        Path(str(tmp_path)),
        # A loopback address may be http://; nothing listens on its port 80, so the
        # roster reaching the simulator still proves the proxy carried it.
        {"cursor": {"base_url": "http://127.0.0.2", "proxy": sim.url}},
    )
    cell = CursorCell()
    assert cell.start(host)
    try:
        roster = asyncio.run(cell.list_models("tok-abc"))
        refusal = asyncio.run(cell.check_key("tok-abc"))
    finally:
        cell.stop()
    assert roster.live, roster.reason
    assert refusal is None
    targets = [r.target for r in sim.requests_to(listing.GET_USABLE_MODELS_PATH)]
    assert targets == ["http://127.0.0.2" + listing.GET_USABLE_MODELS_PATH] * 2


def test_concurrent_round_rosters_share_one_fetch_per_account(
    sim: Simulator, state: CellState
) -> None:
    async def main() -> list[tuple[listing.RosterModel, ...]]:
        asks = [listing.round_roster(state, "tok-a", sim.url) for _ in range(20)]
        asks += [listing.round_roster(state, "tok-b", sim.url + "/") for _ in range(5)]
        return await asyncio.gather(*asks)

    answers = asyncio.run(main())
    assert len({answer for answer in answers}) == 1 and answers[0]
    assert sim.models.calls == 2  # one per account, however many asked at once
    assert sorted(
        r.headers["authorization"] for r in sim.requests_to(listing.GET_USABLE_MODELS_PATH)
    ) == ["Bearer tok-a", "Bearer tok-b"]


def test_a_key_check_for_another_account_leaves_the_kept_roster_alone(
    sim: Simulator, state: CellState
) -> None:
    from cursor_simulator.models import RosterEntry

    sim.models.roster = [RosterEntry("mine-1", "Mine")]
    mine = asyncio.run(listing.round_roster(state, "tok-mine", sim.url))
    sim.models.roster = [RosterEntry("theirs-1", "Theirs")]
    assert asyncio.run(listing.check_key("tok-theirs", sim.url, state=state)) is None
    assert asyncio.run(listing.round_roster(state, "tok-mine", sim.url)) == mine
    assert [m.id for m in mine] == ["mine-1"]
    assert [m.id for m in asyncio.run(listing.round_roster(state, "tok-theirs", sim.url))] == [
        "theirs-1"
    ]
    assert sim.models.calls == 2  # the key check's roster is the other account's kept one


def test_concurrent_refused_round_rosters_are_not_kept(sim: Simulator, state: CellState) -> None:
    sim.models.refuse(503, "unavailable")

    async def main() -> list[object]:
        asks = [listing.round_roster(state, "tok-a", sim.url) for _ in range(5)]
        return await asyncio.gather(*asks, return_exceptions=True)

    assert all(isinstance(a, ProviderError) for a in asyncio.run(main()))
    assert sim.models.calls == 1
    sim.models.refusal = None
    assert asyncio.run(listing.round_roster(state, "tok-a", sim.url))
    assert sim.models.calls == 2


def test_a_roster_fetch_landing_after_close_is_not_kept(sim: Simulator, state: CellState) -> None:
    """The cell's stop closes its state; a fetch still in flight then must not keep its own."""
    import threading

    from cursor_simulator.server import SimResponse

    asked, release = threading.Event(), threading.Event()
    calls: list[str] = []

    def slow(request: object) -> SimResponse:
        calls.append("roster")
        asked.set()
        release.wait(60)
        return SimResponse(200, {"content-type": "application/proto"}, ROSTER)

    sim.route(listing.GET_USABLE_MODELS_PATH, slow)

    async def main() -> tuple[listing.RosterModel, ...]:
        fetch = asyncio.create_task(listing.round_roster(state, "tok-a", sim.url))
        assert await asyncio.to_thread(asked.wait, 5)
        state.close()
        release.set()
        return await fetch

    late = asyncio.run(main())
    assert [m.id for m in late] == ["alpha", "plain", "zeta"]  # the round still gets it
    assert listing.roster_marker(state, "zeta", "tok-a", sim.url) is None
    assert state.models.rosters == {} and state.models.markers == {}
    fresh = CellState()  # what the cell's next start makes
    asyncio.run(listing.round_roster(fresh, "tok-a", sim.url))
    assert calls == ["roster", "roster"]  # nothing was kept: the next round asks again
    assert listing.roster_marker(fresh, "zeta", "tok-a", sim.url) is True


def test_max_mode_markers_are_kept_per_base_url_and_account(
    sim: Simulator, state: CellState
) -> None:
    sim.models.raw_body = ROSTER  # zeta says max mode
    asyncio.run(listing.fetch_roster("tok-a", sim.url, state=state))
    assert listing.round_marker(state, "zeta", "zeta", "tok-a", sim.url + "/") is True
    assert listing.round_marker(state, "zeta", "zeta", "tok-b", sim.url) is None
    assert listing.round_marker(state, "zeta", "zeta", "tok-a", "http://other.invalid") is None
    assert listing.roster_marker(state, "zeta", "tok-b", sim.url) is None


def test_a_round_cancelled_as_the_catalog_lands_is_cancelled(
    sim: Simulator, state: CellState
) -> None:
    # Python 3.11's wait_for returned the result when a cancel met the fetch's landing,
    # and the cancelled round ran on (serve's close then waited on it for good).
    async def main() -> None:
        loop = asyncio.get_running_loop()
        waiting = asyncio.create_task(listing.round_catalog(state, "tok-a", sim.url, wait=60))
        stepped = asyncio.Event()
        loop.call_soon(stepped.set)  # runs after the round's first step: it is waiting now
        await stepped.wait()
        (fetch,) = [t for t in asyncio.all_tasks() if t.get_name() == "cursor-catalog"]
        # The cancel comes as the fetch lands: after the round's wake-up, before it runs.
        fetch.add_done_callback(lambda _: waiting.cancel())
        with pytest.raises(asyncio.CancelledError):
            await waiting
        assert fetch.exception() is None  # it landed: the cancel met a result

    asyncio.run(main())
