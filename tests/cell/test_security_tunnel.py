"""A proxy cannot speak inside the CONNECT tunnel: bytes it sends after its `200`, before
the tunnel's TLS begins, would be read as the service's own answer (issue 36, item 1).

A loopback proxy answers CONNECT and appends a forged HTTP answer with Connect frames in
the same write. Every route that dials through a proxy (HTTP/2 ``Run``, RunSSE) must
refuse the tunnel in words and never reach the service.
"""

from __future__ import annotations

import asyncio
import ssl
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
import trustme

from cursor_simulator import Simulator
from nodecode_cursor.errors import ProviderError
from nodecode_cursor.host import RoundContext
from nodecode_cursor.lanes import lane
from nodecode_cursor.state import CellState

# What the proxy forges: an HTTP/1.1 answer whose body is a Connect stream saying text.
_FORGED_TEXT = b"\x0a\x0b\x0a\x09\x0a\x07forged!"  # InteractionUpdate{1 text_delta{1 "forged!"}}
_FORGED_BODY = (
    b"\x00" + len(_FORGED_TEXT).to_bytes(4, "big") + _FORGED_TEXT + b"\x02\x00\x00\x00\x02{}"
)
FORGED = (
    b"HTTP/1.1 200 OK\r\ncontent-type: application/connect+proto\r\n"
    + f"content-length: {len(_FORGED_BODY)}\r\n\r\n".encode()
    + _FORGED_BODY
)


class ForgingProxy:
    """A CONNECT proxy that says yes and, in the same write, a forged answer; counts CONNECTs."""

    def __init__(self) -> None:
        self.connects = 0
        self.server: asyncio.base_events.Server | None = None
        self.url = ""

    async def start(self) -> None:
        self.server = await asyncio.start_server(self._client, "127.0.0.1", 0)
        self.url = f"http://127.0.0.1:{self.server.sockets[0].getsockname()[1]}"

    async def stop(self) -> None:
        assert self.server is not None
        self.server.close()
        await self.server.wait_closed()

    async def _client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readuntil(b"\r\n\r\n")
        self.connects += 1
        writer.write(b"HTTP/1.1 200 Connection established\r\n\r\n" + FORGED)
        await writer.drain()
        await reader.read()  # hold the tunnel open until the client gives up on it
        writer.close()


@pytest.fixture
def service_url(sim: Simulator, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """The simulator behind TLS (ALPN h2 and http/1.1), its test CA trusted by the client."""
    ca = trustme.CA()
    bundle = tmp_path / "ca.pem"
    ca.cert_pem.write_to_path(str(bundle))
    monkeypatch.setenv("SSL_CERT_FILE", str(bundle))
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert("localhost").configure_cert(context)
    context.set_alpn_protocols(["h2", "http/1.1"])
    yield sim.listen_tls(context)


@pytest.mark.parametrize("transport", ["http2", "sse"])
def test_a_proxy_that_speaks_after_its_200_is_refused(
    sim: Simulator, service_url: str, transport: str
) -> None:
    state = CellState()
    proxy = ForgingProxy()

    async def main() -> None:
        await proxy.start()
        ctx = RoundContext(
            model="claude-4.5-sonnet",
            messages=[{"role": "user", "content": "hello"}],
            session_id=f"session-{uuid.uuid4()}",
            credential="test-token",
            base_url=service_url,
            request_timeout=10.0,
            transport=transport,
            proxy=proxy.url,
        )
        try:
            await lane.stream_round(ctx, state)
        finally:
            await state.run_connections.aclose()
            await proxy.stop()

    with pytest.raises(ProviderError) as caught:
        asyncio.run(main())
    assert "refusing the tunnel" in str(caught.value), caught.value
    assert "forged" not in str(caught.value)
    assert proxy.connects >= 1
    assert sim.agent.runs == []  # nothing reached the service


class OddStatusProxy(ForgingProxy):
    """A proxy whose answer to CONNECT has a status of Unicode digits (``²00``), then closes."""

    async def _client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readuntil(b"\r\n\r\n")
        self.connects += 1
        writer.write("HTTP/1.1 ²00 OK\r\n\r\n".encode("latin-1"))
        await writer.drain()
        writer.close()


@pytest.mark.parametrize("transport", ["http2", "sse"])
def test_a_connect_status_of_unicode_digits_is_a_refusal_in_words(
    sim: Simulator, service_url: str, transport: str
) -> None:
    state = CellState()
    proxy = OddStatusProxy()

    async def main() -> None:
        await proxy.start()
        ctx = RoundContext(
            model="claude-4.5-sonnet",
            messages=[{"role": "user", "content": "hello"}],
            session_id=f"session-{uuid.uuid4()}",
            credential="test-token",
            base_url=service_url,
            request_timeout=10.0,
            transport=transport,
            proxy=proxy.url,
        )
        try:
            await lane.stream_round(ctx, state)
        finally:
            await state.run_connections.aclose()
            await proxy.stop()

    # A ValueError would escape as an internal error; the refusal names the proxy's answer.
    with pytest.raises(ProviderError) as caught:
        asyncio.run(main())
    assert "the proxy refused the CONNECT tunnel (HTTP/1.1 ²00 OK)" in str(caught.value)
    assert proxy.connects >= 1
    assert sim.agent.runs == []
