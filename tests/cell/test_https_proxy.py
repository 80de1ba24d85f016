"""An ``https://`` proxy carries every route on the cell's own clients, trailers kept.

A small CONNECT proxy written here listens over TLS on loopback, with a
certificate from the test CA the client trusts (``SSL_CERT_FILE``). The one
dialer speaks TLS to it, asks for the tunnel inside that TLS, then starts the
service's TLS with ALPN inside the tunnel (TLS in TLS). Through it: a round over
HTTP/2 ``Run``, RunSSE and RunPoll, each ended by a failing ``grpc-status``
trailer the round must read (httpx, which carried these runs before, drops
trailers); a pooled unary call; the sign-in poll and the token refresh (blocking
calls on a loop of their own); and a proxy whose certificate nobody trusts,
which is refused. An ``http://`` origin goes to an ``https://`` proxy in
absolute form over TLS (the simulator's TLS port doubles as that proxy).
"""

from __future__ import annotations

import asyncio
import ssl
import threading
import uuid
from typing import Any

import pytest
import trustme
from protobytes import frame, ld, text
from test_h2run import ConnectProxy, serve_tls, tls  # noqa: F401  (tls is a fixture)
from test_transport import play, texts

from cursor_simulator import Simulator
from cursor_simulator.steps import End, GrpcEnd, Raw, Text
from nodecode_cursor.account import signin
from nodecode_cursor.account.server_config import GET_SERVER_CONFIG_PATH
from nodecode_cursor.account.store import TokenEntry
from nodecode_cursor.errors import ProviderError, Unreachable
from nodecode_cursor.host import RoundContext
from nodecode_cursor.lanes import lane
from nodecode_cursor.state import CellState
from nodecode_cursor.transports.http import rpc_headers
from nodecode_cursor.transports.run import RunSettings
from nodecode_cursor.transports.sse import SseRun
from nodecode_cursor.transports.unary import unary

pytestmark = pytest.mark.sim_answer_timeout(5.0)

TOKEN = "tok-https-proxy"


# AgentServerMessage{1 interaction_update{1 text_delta{1 text "hello"}}}, then turn_ended{}.
HELLO_ENDED = frame(ld(1, ld(1, text(1, "hello")))) + frame(ld(1, ld(14)))


class TlsConnectProxy(ConnectProxy):
    """``ConnectProxy`` listening over TLS with a certificate CA issued for 127.0.0.1."""

    def __init__(self, ca: trustme.CA) -> None:
        super().__init__()
        self.ca = ca
        self.handshakes: list[str] = []  # the TLS version of each client's connection

    async def start(self) -> None:
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        self.ca.issue_cert("127.0.0.1").configure_cert(context)
        self.server = await asyncio.start_server(self._tls_client, "127.0.0.1", 0, ssl=context)
        port = self.server.sockets[0].getsockname()[1]
        self.url = f"https://user:pw-proxy@127.0.0.1:{port}"

    async def _tls_client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        ssl_object = writer.get_extra_info("ssl_object")
        self.handshakes.append(ssl_object.version() if ssl_object is not None else "none")
        await self._client(reader, writer)


class ProxyThread:
    """A ``TlsConnectProxy`` on a loop in a thread of its own, for calls that block."""

    def __init__(self, ca: trustme.CA) -> None:
        self.proxy = TlsConnectProxy(ca)
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)

    def __enter__(self) -> TlsConnectProxy:
        self.thread.start()
        asyncio.run_coroutine_threadsafe(self.proxy.start(), self.loop).result()
        return self.proxy

    def __exit__(self, *_: object) -> None:
        asyncio.run_coroutine_threadsafe(self.proxy.stop(), self.loop).result()
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join()
        self.loop.close()


def context(url: str, proxy: str, transport: str) -> RoundContext:
    return RoundContext(
        model="claude-4.5-sonnet",
        messages=[{"role": "user", "content": "hello"}],
        session_id=f"s-{uuid.uuid4()}",
        credential=TOKEN,
        base_url=url,
        request_timeout=10.0,
        transport=transport,
        proxy=proxy,
    )


def tls_origin(sim: Simulator, ca: trustme.CA) -> tuple[str, int]:
    """Return the simulator's TLS URL (by name: its certificate is for localhost) and port."""
    url = serve_tls(sim, ca, ["h2", "http/1.1"]).replace("127.0.0.1", "localhost")
    return url, int(url.rsplit(":", 1)[1].rstrip("/"))


@pytest.mark.parametrize("transport", ["http2", "sse", "poll"])
def test_a_tls_round_through_an_https_proxy_reads_its_grpc_trailer(
    sim: Simulator,
    tls: trustme.CA,  # noqa: F811
    transport: str,
) -> None:
    url, port = tls_origin(sim, tls)
    sim.agent.script([Raw(HELLO_ENDED), GrpcEnd(13, "https proxy trailer failure")])
    state = CellState()
    proxy = TlsConnectProxy(tls)

    async def main() -> ProviderError:
        await proxy.start()
        try:
            with pytest.raises(ProviderError) as caught:
                await lane.stream_round(context(url, proxy.url, transport), state)
            await state.run_connections.aclose()
            await (await state.http_clients.h1()).aclose()
        finally:
            await proxy.stop()
        return caught.value

    error = asyncio.run(main())
    # The trailer came through the proxy: only the cell's own clients read it.
    assert str(error) == (
        "Cursor's stream ended with gRPC status 13 (internal): https proxy trailer failure"
    )
    assert sim.agent.run().route == transport
    # Every connection was TLS to the proxy and a tunnel to the service inside it.
    assert proxy.tunnels and set(proxy.tunnels) == {f"CONNECT localhost:{port}"}
    assert len(proxy.handshakes) == len(proxy.tunnels)
    assert all(version.startswith("TLS") for version in proxy.handshakes)


def test_a_pooled_unary_call_goes_through_an_https_proxy(
    sim: Simulator,
    tls: trustme.CA,  # noqa: F811
) -> None:
    url, port = tls_origin(sim, tls)
    state = CellState()
    proxy = TlsConnectProxy(tls)
    headers = rpc_headers(TOKEN, "cli-test-https-proxy", str(uuid.uuid4()))
    headers["content-type"] = "application/proto"

    async def main() -> int:
        await proxy.start()
        try:
            answer = await unary(
                url + GET_SERVER_CONFIG_PATH,
                headers=headers,
                timeout=5.0,
                proxy=proxy.url,
                clients=state.http_clients,
            )
            await (await state.http_clients.h1()).aclose()
        finally:
            await proxy.stop()
        return answer.status

    assert asyncio.run(main()) == 200
    assert proxy.tunnels == [f"CONNECT localhost:{port}"]
    assert any(r.target == GET_SERVER_CONFIG_PATH for r in sim.requests)


def test_the_sign_in_poll_and_the_refresh_go_through_an_https_proxy(
    sim: Simulator,
    tls: trustme.CA,  # noqa: F811
) -> None:
    url, port = tls_origin(sim, tls)
    sim.auth.confirm("login-https")
    never = threading.Event()
    pacing = signin.PollPacing(first_delay=0.0, max_attempts=1)

    with ProxyThread(tls) as proxy:
        access, refresh = signin.poll_tokens(
            proxy.url, url, "login-https", "verifier-https", pacing, never
        )
        renewed = signin.refresh_entry(proxy.url, url, TokenEntry(access, refresh, 0.0))
        tunnels = list(proxy.tunnels)

    assert sim.auth.polls == [{"uuid": "login-https", "verifier": "verifier-https"}]
    assert sim.auth.issued[0][1:] == (access, refresh)
    assert sim.auth.refresh_calls == 1
    assert renewed.access_token != access
    # One tunnel per blocking call: each runs on a loop (and a pool) of its own.
    assert tunnels == [f"CONNECT localhost:{port}"] * 2


def test_an_https_proxy_whose_certificate_nobody_trusts_is_refused(
    sim: Simulator,
    tls: trustme.CA,  # noqa: F811
) -> None:
    url, _ = tls_origin(sim, tls)
    proxy = TlsConnectProxy(trustme.CA())  # a CA the client does not trust

    async def main() -> Any:
        await proxy.start()
        try:
            with pytest.raises(Unreachable) as caught:
                await lane.stream_round(context(url, proxy.url, "sse"), CellState())
        finally:
            await proxy.stop()
        return caught.value

    error = asyncio.run(main())
    assert "CERTIFICATE_VERIFY_FAILED" in str(error)
    assert "pw-proxy" not in str(error)
    assert proxy.tunnels == [] and sim.agent.runs == []


def test_an_http_origin_goes_to_an_https_proxy_in_absolute_form_over_tls(
    sim: Simulator,
    tls: trustme.CA,  # noqa: F811
) -> None:
    # The simulator doubles as a forward proxy (it routes absolute-form targets by path);
    # its TLS port is the https:// proxy, spoken to over TLS with the test CA.
    proxy_url = serve_tls(sim, tls, ["http/1.1"]).replace("127.0.0.1", "localhost")
    sim.agent.script([Text("via an https proxy"), End()])
    far = RunSettings("http://cursor.invalid", TOKEN, "v", proxy=proxy_url, request_timeout=5)

    async def main() -> Any:
        async with SseRun(far) as run:
            return await play(run)

    assert texts(asyncio.run(main())) == "via an https proxy"
    targets = [r.target for r in sim.requests]
    assert "http://cursor.invalid/agent.v1.AgentService/RunSSE" in targets
    assert "http://cursor.invalid/aiserver.v1.BidiService/BidiAppend" in targets


def test_doctor_checks_the_tunnel_through_an_https_proxy(
    sim: Simulator,
    tls: trustme.CA,  # noqa: F811
) -> None:
    from nodecode_cursor.diagnose.reach import check_network

    url, port = tls_origin(sim, tls)
    proxy = TlsConnectProxy(tls)

    async def main() -> dict[str, Any]:
        await proxy.start()
        try:
            checks = await check_network(url, proxy.url)
        finally:
            await proxy.stop()
        return {check.name: check for check in checks}

    checks = asyncio.run(main())
    where = proxy.url.rsplit("@", 1)[1]
    assert checks["proxy"].status == "ok"
    assert checks["proxy"].verdict == (
        f"the proxy at https://{where} (the cursor.proxy setting) tunnels to localhost:{port}"
    )
    # The service's TLS inside the proxy's: the certificate checked through both.
    assert checks["tls"].status == "ok"
    assert checks["tls"].verdict.startswith("localhost's certificate is trusted (TLS")
    assert proxy.tunnels == [f"CONNECT localhost:{port}"]
    assert proxy.handshakes and proxy.handshakes[0].startswith("TLS")
