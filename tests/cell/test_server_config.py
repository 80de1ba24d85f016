"""Cursor's GetServerConfig, as ``auto`` asks it when HTTP/2 fails to negotiate.

Over real sockets: the simulator on a TLS port whose ALPN offers only
http/1.1 (or h2 too), a trustme certificate the client trusts. The answer
bytes are written by hand (GetServerConfigResponse{7 http2_config}: tag
7 << 3 | 0 = 0x38).
"""

from __future__ import annotations

import asyncio
import logging
import ssl
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import trustme

from cursor_simulator import Simulator
from nodecode_cursor.account.server_config import (
    GET_SERVER_CONFIG_PATH,
    Http2Policy,
    parse_server_config,
)
from nodecode_cursor.errors import ProviderError
from nodecode_cursor.host import RoundContext
from nodecode_cursor.lanes import lane
from nodecode_cursor.state import CellState

pytestmark = pytest.mark.sim_answer_timeout(5.0)

TOKEN = "tok-server-config-secret"


@pytest.fixture
def tls(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[trustme.CA]:
    """A test CA the client trusts through SSL_CERT_FILE, as httpx reads it."""
    ca = trustme.CA()
    bundle = tmp_path / "ca.pem"
    ca.cert_pem.write_to_path(str(bundle))
    monkeypatch.setenv("SSL_CERT_FILE", str(bundle))
    yield ca


def serve_tls(sim: Simulator, ca: trustme.CA, alpn: list[str]) -> str:
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert("localhost").configure_cert(context)
    context.set_alpn_protocols(alpn)
    return sim.listen_tls(context)


def context(url: str, **overrides: Any) -> RoundContext:
    fields: dict[str, Any] = {
        "model": "claude-4.5-sonnet",
        "messages": [{"role": "user", "content": "hello"}],
        "session_id": f"session-{uuid.uuid4()}",
        "credential": TOKEN,
        "base_url": url,
        "request_timeout": 10.0,
        "transport": "auto",
    }
    fields.update(overrides)
    return RoundContext(**fields)


def rounds(state: CellState, *contexts: RoundContext) -> list[Any]:
    """Run CONTEXTS one after another on one loop; each result, or the error it raised.

    The state's connections close at the end; what it remembers stays.
    """

    async def main() -> list[Any]:
        got: list[Any] = []
        for ctx in contexts:
            try:
                got.append(await lane.stream_round(ctx, state))
            except ProviderError as exc:
                got.append(exc)
        for connection in state.run_connections.connections():
            await connection.aclose()
        return got

    return asyncio.run(main())


# --- the answer's bytes ------------------------------------------------------------------


def test_the_answer_is_read_bare_or_framed_and_anything_unclear_is_unspecified() -> None:
    assert parse_server_config(b"\x38\x03") is Http2Policy.FORCE_BIDI_DISABLED
    assert parse_server_config(b"\x38\x01") is Http2Policy.FORCE_ALL_DISABLED
    assert parse_server_config(b"\x38\x04") is Http2Policy.FORCE_BIDI_ENABLED
    # One Connect frame (flag 0, length 2) and a clean end frame.
    framed = b"\x00\x00\x00\x00\x02\x38\x02" + b"\x02\x00\x00\x00\x02{}"
    assert parse_server_config(framed) is Http2Policy.FORCE_ALL_ENABLED
    assert parse_server_config(b"") is Http2Policy.UNSPECIFIED
    assert parse_server_config(b"\x38\x09") is Http2Policy.UNSPECIFIED  # a number we do not know
    assert parse_server_config(b"\xff\xff\xff") is Http2Policy.UNSPECIFIED  # not the message
    error_end = b'\x02\x00\x00\x00\x2c{"error":{"code":"unimplemented","message":"x"}}'
    assert parse_server_config(b"\x00\x00\x00\x00\x02\x38\x03" + error_end) is (
        Http2Policy.UNSPECIFIED
    )
    assert Http2Policy.FORCE_BIDI_DISABLED.forbids_http2
    assert Http2Policy.FORCE_ALL_ENABLED.requires_http2
    assert not Http2Policy.UNSPECIFIED.forbids_http2
    assert not Http2Policy.UNSPECIFIED.requires_http2


# --- asked when h2 does not negotiate --------------------------------------------------------


@pytest.mark.parametrize("config", [1, 3])
def test_a_disabled_config_after_a_failed_negotiation_runs_over_runsse(
    sim: Simulator, tls: trustme.CA, caplog: pytest.LogCaptureFixture, config: int
) -> None:
    url = serve_tls(sim, tls, ["http/1.1"])
    sim.server_config.http2_config = config
    sim.server_config.framed = config == 3  # both shapes of a unary answer
    state = CellState()
    with caplog.at_level(logging.DEBUG, logger="nodecode_cursor"):
        (result,) = rounds(state, context(url))
    assert result.message["content"] == "Simulated Cursor here. You said: hello"
    assert [r.route for r in sim.agent.runs] == ["sse"]
    (asked,) = sim.requests_to(GET_SERVER_CONFIG_PATH)
    # Asked over HTTP/1.1 with the unary headers and a zero-byte GetServerConfigRequest.
    assert asked.method == "POST" and asked.body == b""
    assert asked.headers["content-type"] == "application/proto"
    assert asked.headers["authorization"] == f"Bearer {TOKEN}"
    assert asked.headers["x-cursor-client-type"] == "cli"
    name = Http2Policy(config).name
    assert any(
        "RunSSE, as" in r.getMessage() and f"server config says {name}" in r.getMessage()
        for r in caplog.records
    )


@pytest.mark.parametrize("config", [2, 4])
def test_an_enabled_config_makes_a_failed_negotiation_the_rounds_error(
    sim: Simulator, tls: trustme.CA, config: int
) -> None:
    url = serve_tls(sim, tls, ["http/1.1"])
    sim.server_config.http2_config = config
    state = CellState()
    first, second = rounds(state, context(url), context(url))
    name = Http2Policy(config).name
    for error in (first, second):
        assert isinstance(error, ProviderError)
        text = str(error)
        assert (
            "does not speak HTTP/2" in text and f"server config for this account ({name})" in text
        )
        assert "\n" not in text and TOKEN not in text
        assert not error.retryable
    assert sim.agent.runs == []  # nothing went over HTTP/1.1
    # The answer was kept: the second round did not ask again, and nothing was remembered.
    assert sim.server_config.calls == 1
    assert state.run_connections.remembered(url) is None


def test_a_refused_or_slow_config_is_unspecified_and_the_run_goes_to_runsse(
    sim: Simulator, tls: trustme.CA
) -> None:
    url = serve_tls(sim, tls, ["http/1.1"])
    sim.server_config.refuse(404, "unimplemented", "no such method")
    (refused,) = rounds(CellState(), context(url))
    assert refused.finish_reason == "stop"

    sim.server_config.refusal = None
    sim.server_config.http2_config = 2  # would be an error, but comes too late
    sim.server_config.delay = 60.0  # ends as the client gives up on it
    state = CellState()
    state.run_connections.server_configs.timeout_seconds = 0.3
    started = time.monotonic()
    (slow,) = rounds(state, context(url))
    assert time.monotonic() - started < 30  # the round did not wait for the config
    assert slow.finish_reason == "stop"
    assert [r.route for r in sim.agent.runs] == ["sse", "sse"]
    assert sim.server_config.calls == 2


def test_a_healthy_http2_round_never_asks(sim: Simulator, tls: trustme.CA) -> None:
    url = serve_tls(sim, tls, ["h2", "http/1.1"])
    sim.server_config.http2_config = 1
    rounds(CellState(), context(url), context(url))
    assert [r.route for r in sim.agent.runs] == ["http2", "http2"]
    assert sim.server_config.calls == 0


def test_a_kept_disabled_answer_keeps_auto_off_http2_until_it_expires(
    sim: Simulator, tls: trustme.CA, caplog: pytest.LogCaptureFixture
) -> None:
    url = serve_tls(sim, tls, ["h2", "http/1.1"])
    state = CellState()
    configs = state.run_connections.server_configs
    configs.ttl_seconds = 0.5
    configs.keep(url, TOKEN, Http2Policy.FORCE_BIDI_DISABLED)

    async def main() -> None:
        await lane.stream_round(context(url), state)  # within the 30 s (here 0.5 s)
        state.run_connections.worked.clear()  # forget the route, keep the config's word
        await asyncio.sleep(0.6)  # the answer ages past its TTL: the time is what is tested
        await lane.stream_round(context(url), state)  # the answer expired: HTTP/2 again
        state.close()

    with caplog.at_level(logging.DEBUG, logger="nodecode_cursor"):
        asyncio.run(main())
    assert [r.route for r in sim.agent.runs] == ["sse", "http2"]
    assert sim.server.h2.connections == 1  # the first round did not even dial HTTP/2
    assert sim.server_config.calls == 0
    assert any("server config says FORCE_BIDI_DISABLED" in r.getMessage() for r in caplog.records)


def test_concurrent_rounds_share_one_call(sim: Simulator, tls: trustme.CA) -> None:
    url = serve_tls(sim, tls, ["http/1.1"])
    sim.server_config.http2_config = 3
    sim.server_config.delay = 0.3
    state = CellState()

    async def main() -> None:
        await asyncio.gather(*(lane.stream_round(context(url), state) for _ in range(3)))
        state.close()

    asyncio.run(main())
    assert sim.server_config.calls == 1
    assert [r.route for r in sim.agent.runs] == ["sse", "sse", "sse"]
