"""The account roster (GetUsableModels) over a real socket to the simulator."""

from __future__ import annotations

import asyncio
import socket

import pytest

from nodecode_cursor import listing
from nodecode_cursor.simulator import Simulator


def _field(number: int, payload: bytes) -> bytes:
    """Length-delimited field: tag byte (number << 3 | 2), one-byte length, payload."""
    assert len(payload) < 128
    return bytes([number << 3 | 2, len(payload)]) + payload


# models 1 { model_id 1, display_name 4, max_mode 7 } written out by hand.
ZETA = b"\x0a\x04zeta" + b"\x22\x04Zeta" + b"\x38\x01"
ALPHA = b"\x0a\x05alpha" + b"\x2a\x08Alpha 1M"  # display_name_short (5) names 1M
PLAIN = b"\x0a\x05plain" + b"\x1a\x0aplain-disp"  # only display_model_id (3)
ROSTER = _field(1, ZETA) + _field(1, ALPHA) + _field(1, ZETA) + _field(1, PLAIN)


@pytest.fixture
def sim() -> Simulator:
    with Simulator() as simulator:
        yield simulator


def test_hand_written_roster_parses_sorted_once(sim: Simulator) -> None:
    sim.models.raw_body = ROSTER
    models = asyncio.run(listing.fetch_roster("tok-abc", sim.url))
    assert [m.id for m in models] == ["alpha", "plain", "zeta"]
    alpha, plain, zeta = models
    assert alpha.name == "Alpha 1M" and alpha.context_window == 1_000_000
    assert plain.name == "plain-disp" and plain.context_window == listing.DEFAULT_CONTEXT_WINDOW
    assert zeta.name == "Zeta" and zeta.max_mode is True
    assert listing.roster_marker("zeta") is True
    assert listing.roster_marker("alpha") is None


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


def test_client_version_env_overrides(sim: Simulator, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CURSOR_CLIENT_VERSION", "cli-from-env")
    asyncio.run(listing.fetch_roster("tok-abc", sim.url, client_version="cli-config"))
    (request,) = sim.requests_to(listing.GET_USABLE_MODELS_PATH)
    assert request.headers["x-cursor-client-version"] == "cli-from-env"


def test_key_check_refusal_reads_as_status_and_code(sim: Simulator) -> None:
    sim.valid_tokens = {"good"}
    assert asyncio.run(listing.check_key("good", sim.url)) is None
    assert asyncio.run(listing.check_key("bad-secret", sim.url)) == "HTTP 401 unauthenticated"
    assert asyncio.run(listing.check_key(None, sim.url)) == "not signed in: /cursor login"


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
