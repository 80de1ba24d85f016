"""A SOCKS5 proxy carries every route on the cell's own clients, trailers kept.

A small SOCKS5 server written here (RFC 1928: the no-auth method and RFC 1929's
user and password; the CONNECT command; IPv4, IPv6 and domain addresses) relays
to the simulator and records what each client asked. Through it: a round over
HTTP/2 ``Run`` and one over RunSSE + BidiAppend, each ended by a failing
``grpc-status`` trailer the round must read (no other client the cell has would
keep it); a pooled unary call; and a refused login, whose password appears in no
error and no log line.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import logging
import socket
import uuid
from dataclasses import dataclass, field
from typing import Any

import pytest
import trustme
from protobytes import frame, ld, text
from test_h2run import serve_tls, tls  # noqa: F401  (tls is a fixture)

from cursor_simulator import Simulator
from cursor_simulator.steps import GrpcEnd, Raw
from nodecode_cursor.account.server_config import GET_SERVER_CONFIG_PATH
from nodecode_cursor.errors import ProviderError, Unreachable
from nodecode_cursor.host import RoundContext
from nodecode_cursor.lanes import lane
from nodecode_cursor.state import CellState
from nodecode_cursor.transports.http import rpc_headers
from nodecode_cursor.transports.unary import unary

pytestmark = pytest.mark.sim_answer_timeout(5.0)

TOKEN = "tok-socks"
PASSWORD = "pw-s0cks-s3cr3t"


# AgentServerMessage{1 interaction_update{1 text_delta{1 text "hello"}}}, then turn_ended{}.
HELLO_ENDED = frame(ld(1, ld(1, text(1, "hello")))) + frame(ld(1, ld(14)))


@dataclass
class SocksProxy:
    """A SOCKS5 server on loopback: CONNECT only, no-auth or user/password (LOGIN if set)."""

    login: tuple[str, str] | None = None
    offered: list[bytes] = field(default_factory=list)  # each client's method list
    logins: list[tuple[str, str]] = field(default_factory=list)
    connects: list[tuple[str, str, int]] = field(default_factory=list)  # (kind, host, port)
    server: asyncio.Server | None = None
    port: int = 0
    _open: set[asyncio.StreamWriter] = field(default_factory=set)
    _handlers: set[asyncio.Task[None]] = field(default_factory=set)

    async def start(self) -> None:
        self.server = await asyncio.start_server(self._client, "127.0.0.1", 0)
        self.port = self.server.sockets[0].getsockname()[1]

    async def stop(self) -> None:
        """Stop listening, cut every relayed connection, wait for each handler to end."""
        assert self.server is not None
        self.server.close()
        for writer in self._open:
            writer.transport.abort()
        await asyncio.gather(*self._handlers, return_exceptions=True)
        await self.server.wait_closed()

    def url(self, scheme: str = "socks5", user: str = "user", password: str = PASSWORD) -> str:
        who = f"{user}:{password}@" if self.login is not None else ""
        return f"{scheme}://{who}127.0.0.1:{self.port}"

    async def _client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._handlers.add(task)
        self._open.add(writer)
        try:
            await self._serve(reader, writer)
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()
            self._open.discard(writer)
            self._handlers.discard(task)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        version, count = await reader.readexactly(2)
        assert version == 5
        methods = await reader.readexactly(count)
        self.offered.append(methods)
        wanted = 0x02 if self.login is not None else 0x00
        if wanted not in methods:
            writer.write(b"\x05\xff")  # no acceptable method
            return
        writer.write(bytes([5, wanted]))
        if self.login is not None:
            _, size = await reader.readexactly(2)  # sub-negotiation version 1
            user = (await reader.readexactly(size)).decode()
            (size,) = await reader.readexactly(1)
            password = (await reader.readexactly(size)).decode()
            self.logins.append((user, password))
            if (user, password) != self.login:
                writer.write(b"\x01\x01")  # failure; the server closes (RFC 1929)
                return
            writer.write(b"\x01\x00")
        _, command, _, kind = await reader.readexactly(4)
        if kind == 1:
            host = str(ipaddress.IPv4Address(await reader.readexactly(4)))
        elif kind == 4:
            host = str(ipaddress.IPv6Address(await reader.readexactly(16)))
        else:
            (size,) = await reader.readexactly(1)
            host = (await reader.readexactly(size)).decode()
        port = int.from_bytes(await reader.readexactly(2), "big")
        self.connects.append(({1: "ipv4", 3: "domain", 4: "ipv6"}[kind], host, port))
        if command != 1:  # CONNECT only
            writer.write(b"\x05\x07\x00\x01" + bytes(6))
            return
        try:
            up_reader, up_writer = await asyncio.open_connection(host, port)
        except OSError:
            writer.write(b"\x05\x05\x00\x01" + bytes(6))  # connection refused
            return
        self._open.add(up_writer)
        writer.write(b"\x05\x00\x00\x01" + socket.inet_aton("127.0.0.1") + bytes(2))

        async def pipe(src: asyncio.StreamReader, dst: asyncio.StreamWriter) -> None:
            with contextlib.suppress(OSError):
                while data := await src.read(65536):
                    dst.write(data)
                    await dst.drain()
            dst.close()

        try:
            await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer))
        finally:
            self._open.discard(up_writer)


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


@pytest.mark.parametrize("transport", ["http2", "sse"])
def test_a_tls_round_through_socks5h_with_a_login_reads_its_grpc_trailer(
    sim: Simulator,
    tls: trustme.CA,  # noqa: F811
    transport: str,
) -> None:
    # TLS with ALPN inside the SOCKS connection: h2 for the Run, http/1.1 for RunSSE.
    url = serve_tls(sim, tls, ["h2", "http/1.1"]).replace("127.0.0.1", "localhost")
    sim.agent.script([Raw(HELLO_ENDED), GrpcEnd(13, "socks trailer failure")])
    state = CellState()
    proxy = SocksProxy(login=("user", PASSWORD))

    async def main() -> ProviderError:
        await proxy.start()
        try:
            with pytest.raises(ProviderError) as caught:
                await lane.stream_round(context(url, proxy.url("socks5h"), transport), state)
            await state.run_connections.aclose()
        finally:
            await proxy.stop()
        return caught.value

    error = asyncio.run(main())
    # The trailer came through: only the cell's own clients read it.
    assert str(error) == (
        "Cursor's stream ended with gRPC status 13 (internal): socks trailer failure"
    )
    assert sim.agent.run().route == transport
    port = int(url.rsplit(":", 1)[1].rstrip("/"))
    # socks5h: the proxy was handed the name to resolve; every connection went through it.
    assert proxy.connects and set(proxy.connects) == {("domain", "localhost", port)}
    assert set(proxy.logins) == {("user", PASSWORD)}
    assert all(b"\x02" in offered for offered in proxy.offered)


def test_a_cleartext_round_through_socks5_without_a_login_resolves_here(
    sim: Simulator,
) -> None:
    state = CellState()
    proxy = SocksProxy()

    async def main() -> Any:
        await proxy.start()
        try:
            result = await lane.stream_round(context(sim.url, proxy.url(), "http2"), state)
            await state.run_connections.aclose()
        finally:
            await proxy.stop()
        return result

    result = asyncio.run(main())
    assert result.message["content"] == "Simulated Cursor here. You said: hello"
    assert sim.agent.run().route == "http2"
    port = int(sim.url.rsplit(":", 1)[1].rstrip("/"))
    # socks5 (no h): the address, not the name, and the no-auth method alone.
    assert proxy.connects and set(proxy.connects) == {("ipv4", "127.0.0.1", port)}
    assert set(proxy.offered) == {b"\x00"} and proxy.logins == []


def test_a_pooled_unary_call_goes_through_socks5(sim: Simulator) -> None:
    state = CellState()
    proxy = SocksProxy(login=("user", PASSWORD))
    headers = rpc_headers(TOKEN, "cli-test-socks", str(uuid.uuid4()))
    headers["content-type"] = "application/proto"

    async def main() -> int:
        await proxy.start()
        try:
            answer = await unary(
                sim.url + GET_SERVER_CONFIG_PATH,
                headers=headers,
                timeout=5.0,
                proxy=proxy.url(),
                clients=state.http_clients,
            )
            await (await state.http_clients.h1()).aclose()
        finally:
            await proxy.stop()
        return answer.status

    assert asyncio.run(main()) == 200
    port = int(sim.url.rsplit(":", 1)[1].rstrip("/"))
    assert proxy.connects == [("ipv4", "127.0.0.1", port)]
    assert any(r.target == GET_SERVER_CONFIG_PATH for r in sim.requests)


@pytest.mark.parametrize("transport", ["http2", "sse"])
def test_a_refused_login_is_unreachable_and_never_shows_the_password(
    sim: Simulator, caplog: pytest.LogCaptureFixture, transport: str
) -> None:
    proxy = SocksProxy(login=("user", "the-right-one"))

    async def main() -> ProviderError:
        await proxy.start()
        try:
            with pytest.raises(ProviderError) as caught:
                await lane.stream_round(context(sim.url, proxy.url(), transport), CellState())
        finally:
            await proxy.stop()
        return caught.value

    with caplog.at_level(logging.DEBUG, logger="nodecode_cursor"):
        error = asyncio.run(main())
    assert isinstance(error, Unreachable)
    assert "SOCKS5 proxy would not connect" in str(error)
    assert proxy.logins and set(proxy.logins) == {("user", PASSWORD)}
    assert sim.agent.runs == []  # nothing went around the proxy
    shown = [str(error), repr(error), *(record.getMessage() for record in caplog.records)]
    assert not [line for line in shown if PASSWORD in line]
