"""The runs' own HTTP/1.1 client (h1conn.py) over real sockets: TLS, a CONNECT tunnel, the pool.

Against the simulator on loopback, over TLS with ALPN ``http/1.1`` only (so the
run is RunSSE), with a test CA the client trusts through ``SSL_CERT_FILE``.
"""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import pytest
import trustme
from protobytes import frame, ld, text
from test_h2run import ConnectProxy, serve_tls, tls  # noqa: F401  (tls is a fixture)

from cursor_simulator import Simulator
from cursor_simulator.steps import GrpcEnd, Raw
from nodecode_cursor.errors import ConfigError, ProviderError
from nodecode_cursor.host import RoundContext
from nodecode_cursor.lanes import lane
from nodecode_cursor.state import CellState
from nodecode_cursor.transports.h1conn import h1_route

# AgentServerMessage{1 interaction_update{1 text_delta{1 text "hello"}}}, then turn_ended{}.
HELLO_ENDED = frame(ld(1, ld(1, text(1, "hello")))) + frame(ld(1, ld(14)))


def context(url: str, **overrides: Any) -> RoundContext:
    values: dict[str, Any] = {
        "model": "claude-4.5-sonnet",
        "messages": [{"role": "user", "content": "hello"}],
        "session_id": f"s-{uuid.uuid4()}",
        "credential": "tok-h1",
        "base_url": url,
        "request_timeout": 10.0,
        "transport": "auto",
    }
    values.update(overrides)
    return RoundContext(**values)


def test_a_tls_run_through_a_connect_tunnel_reads_its_grpc_trailer(
    sim: Simulator,
    tls: trustme.CA,  # noqa: F811
) -> None:
    url = serve_tls(sim, tls, ["http/1.1"]).replace("127.0.0.1", "localhost")
    sim.agent.script([Raw(HELLO_ENDED), GrpcEnd(13, "tunnelled trailer failure")])
    state = CellState()

    async def main() -> tuple[ProviderError, list[str], int]:
        proxy = ConnectProxy()
        await proxy.start()
        try:
            with pytest.raises(ProviderError) as caught:
                await lane.stream_round(context(url, proxy=proxy.url, transport="sse"), state)
        finally:
            await proxy.stop()
        return caught.value, proxy.tunnels, (await state.http_clients.h1()).opened

    error, tunnels, opened = asyncio.run(main())
    assert str(error) == (
        "Cursor's stream ended with gRPC status 13 (internal): tunnelled trailer failure"
    )
    port = url.rsplit(":", 1)[1].rstrip("/")
    # Everything went through the proxy's tunnel: the stream's connection and the
    # appends' (the run pool's two), which the roster's call shares.
    assert opened == 2
    assert len(tunnels) >= 2 and set(tunnels) == {f"CONNECT localhost:{port}"}
    assert sim.agent.run().route == "sse"


def test_an_untrusted_certificate_is_refused_over_runsse(sim: Simulator) -> None:
    url = serve_tls(sim, trustme.CA(), ["http/1.1"])  # a CA nobody trusts

    with pytest.raises(ProviderError, match=r"could not reach .*CERTIFICATE_VERIFY_FAILED"):
        asyncio.run(lane.stream_round(context(url, transport="sse"), CellState()))
    assert sim.agent.runs == []


def test_rounds_over_runsse_reuse_the_pools_connections(sim: Simulator) -> None:
    state = CellState()

    async def main() -> list[int]:
        seen = []
        for _ in range(4):
            result = await lane.stream_round(context(sim.url, transport="sse"), state)
            assert result.message["content"].endswith("hello")
            seen.append((await state.http_clients.h1()).opened)
        return seen

    opened = asyncio.run(main())
    assert opened == [2, 2, 2, 2]  # the stream's and the appends', kept for every later round


@pytest.mark.parametrize("proxy", ["http://proxy.invalid:99999", "http://:8080"])
def test_a_forwarding_proxy_with_no_usable_address_is_a_config_error(proxy: str) -> None:
    # An http:// origin goes to the proxy in absolute form: its URL is read by this client,
    # not by the tunnel's dialer, and a port out of range must not escape as a ValueError.
    with pytest.raises(ConfigError) as caught:
        h1_route("http://127.0.0.1:1", proxy)
    assert caught.value.code == "bad_proxy"
    assert "99999" not in str(caught.value)
