"""The run's own HTTP/1.1 client: kept-alive connections, one request at a time on each.

RunSSE, RunPoll, every BidiAppend and every unary call (``unary.unary``) go
through an ``H1Pool`` along an ``h1_route``: directly, through an ``http://``
or ``https://`` proxy — a CONNECT tunnel for an ``https://`` origin, the
absolute form for ``http://``, as httpx goes; an ``https://`` proxy spoken to
over TLS — or through a ``socks5://`` / ``socks5h://`` proxy's connection.
It is the cell's own because httpx cannot hand over what this needs: the
trailer section of a chunked answer (``H1Response.trailers``, where a stream
may end gRPC's way) and a whole network read's body at once rather than a call
per chunk.

The bytes are ``http1.py``'s (sans-I/O); the socket, TLS (the cell's verifying
context, ALPN ``http/1.1``), the tunnel and SOCKS are ``h2dial.dial``'s. What the
socket and the codec raise is mapped by ``errormap.mapped``: no answer at all is
``unreachable`` (naming the request's URL); a reused connection the service had
already closed is retried once on a new one, as nothing of the answer came; a
silent socket is ``TimeoutError`` and an answer cut short ``errormap.Cut``, which
the stream's reader words. A pool belongs to one event loop
(``clients.HttpClients`` keeps one per loop and closes it with the loop).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import time
import urllib.parse
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass

from .. import limits
from .errormap import Cut, Step, late, mapped, unreachable
from .h2dial import H2Unavailable, dial, proxy_address, proxy_for, split_url
from .http import Answer, authority, check_proxies, read_capped, tls_context
from .http1 import ResponseReader, request_bytes
from .idle import silent_for
from .socks import is_socks

__all__ = [
    "H1Connection",
    "H1Pool",
    "H1Response",
    "H1Route",
    "ReadPacing",
    "h1_route",
]

log = logging.getLogger(__name__)

_READ_SIZE = 65536


@dataclass(frozen=True, slots=True)
class H1Route:
    """How requests to one base URL travel: its origin, and the proxy (None: directly).

    ``forward`` says the proxy is asked in absolute form (an ``http://`` origin);
    otherwise a proxy carries a CONNECT tunnel. ``proxy_auth`` is the proxy's
    ``Proxy-Authorization`` value (a secret: never in a repr or an error).
    """

    base_url: str
    host_header: str
    proxy: str | None
    forward: bool
    proxy_auth: str | None = None

    def __repr__(self) -> str:
        return f"H1Route({self.base_url!r}, proxied={self.proxy is not None})"

    def target(self, url: str) -> str:
        """Return the request target for URL: its path, or the whole URL to a forwarding proxy."""
        if self.forward:
            return url
        parts = urllib.parse.urlsplit(url)
        return (parts.path or "/") + (f"?{parts.query}" if parts.query else "")


def h1_route(base_url: str, proxy_setting: str | None) -> H1Route:
    """Return the route to BASE_URL's origin through PROXY_SETTING (or the environment's proxy).

    ConfigError for a base URL that is not http(s), and for a proxy the dialer
    cannot use (``http.check_proxies``: it speaks ``http://``, ``https://``,
    ``socks5://`` and ``socks5h://``).
    """
    check_proxies(proxy_setting)
    scheme, host, port = split_url(base_url)
    default = 443 if scheme == "https" else 80
    bracketed = f"[{host}]" if ":" in host else host
    host_header = bracketed if port == default else authority(host, port)
    proxy = proxy_for(base_url, proxy_setting)
    # The origin alone: every path to it shares the route's connections.
    base = f"{scheme}://{host_header}"
    if proxy is None:
        return H1Route(base, host_header, None, forward=False)
    if is_socks(proxy):
        # The dialer connects through the proxy to the origin: no proxy speaks HTTP.
        return H1Route(base, host_header, proxy, forward=False)
    forward = scheme == "http"
    # Forwarded, the proxy is dialed here, not by h2dial.dial: its URL is read the same way.
    auth = proxy_address(proxy).authorization if forward else None
    return H1Route(base, host_header, proxy, forward=forward, proxy_auth=auth)


@dataclass(frozen=True)
class ReadPacing:
    """How a response's body is read when the service writes faster than it is read.

    Two reads less than BURST_SECONDS apart, the second of fewer than
    SMALL_READ_BYTES, are a burst; then the next read waits until GATHER_SECONDS
    after the last one came (``H1Response.chunks``).
    """

    burst_seconds: float = limits.H1_BURST_SECONDS
    gather_seconds: float = limits.H1_GATHER_SECONDS
    small_read_bytes: int = limits.H1_BURST_READ_BYTES


class H1Connection:
    """One kept-alive HTTP/1.1 connection: a stream pair and when it last went idle."""

    __slots__ = ("idle_since", "reader", "route", "writer")

    def __init__(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, route: H1Route
    ) -> None:
        self.reader = reader
        self.writer = writer
        self.route = route
        self.idle_since = time.monotonic()

    @property
    def open(self) -> bool:
        """Return whether the connection may still carry a request (the peer has not closed)."""
        return not self.writer.is_closing() and not self.reader.at_eof()

    def abort(self) -> None:
        """Close the connection at once (returns nothing)."""
        with contextlib.suppress(Exception):
            self.writer.transport.abort()


class H1Response:
    """The answer to one request: its head, then its body by ``chunks`` or ``read``.

    ``trailers`` holds a chunked body's trailer fields once the body ended.
    ``aclose`` hands a connection whose answer was read to its end back to the
    pool, and closes any other.
    """

    def __init__(
        self,
        pool: H1Pool,
        connection: H1Connection,
        reader: ResponseReader,
        first: bytes,
        read_timeout: float,
    ) -> None:
        self._pool = pool
        self._connection: H1Connection | None = connection
        self._reader = reader
        self._first = first  # body bytes that came with the head
        self.read_timeout = read_timeout
        self.status = reader.status

    @property
    def trailers(self) -> dict[str, str]:
        """Return the trailer fields of the body (empty before its end, or when it had none)."""
        return self._reader.trailers

    async def chunks(self) -> AsyncIterator[bytes]:
        """Yield the body a network read at a time; TimeoutError on silence, Cut on a drop.

        Small reads that come less than the pool's ``burst_seconds`` apart are a
        burst (a service streaming small frames faster than they are read): then
        the socket is left unread until ``gather_seconds`` after the last read
        came, and the next read takes all that came meanwhile at once. Without
        that, each of the service's writes would be a wake-up, a read and a pass
        through the parsers of its own: a client that keeps up with a fast stream
        is never idle, and spends as much CPU as the service. An answer paced like
        a model's (frames milliseconds apart) is read as each frame comes.
        """
        first, self._first = self._first, b""
        if first:
            yield first
        parser = self._reader
        connection = self._connection
        if connection is None:
            return
        stream = connection.reader
        timeout = self.read_timeout
        pacing = self._pool.pacing
        loop = asyncio.get_running_loop()
        last_came = -math.inf
        # One deadline for the whole body, moved by each read and held while the
        # caller has a piece (only the socket's silence counts): a timer scheduled
        # and cancelled around each read cost more than the read's own parsing.
        # A drop or bytes that break HTTP/1.1 are a Cut; silence stays TimeoutError.
        async with silent_for(timeout) as silence:
            while not parser.done:
                with mapped(Step.STREAM):
                    data = await stream.read(_READ_SIZE)
                    came = loop.time()
                    body = parser.feed(data) if data else parser.feed_eof()
                burst = (
                    came - last_came < pacing.burst_seconds and len(data) < pacing.small_read_bytes
                )
                last_came = came
                if body:
                    silence.push(None)
                    yield body
                now = loop.time()
                if burst and not parser.done:
                    # Our own wait, not the service's silence.
                    await _gather(connection, came + pacing.gather_seconds - now)
                    now = loop.time()
                silence.push(now + timeout)

    async def read(self, max_bytes: int | None = None) -> bytes | None:
        """Return the whole body (None once it passes MAX_BYTES); errors as ``chunks``."""
        return await read_capped(self.chunks(), max_bytes)

    async def aclose(self) -> None:
        """Give the connection back when the answer was read whole; else close it."""
        connection, self._connection = self._connection, None
        if connection is None:
            return
        if self._reader.done and self._reader.keep_alive:
            self._pool.release(connection)
        else:
            self._pool.forget(connection)


async def _gather(connection: H1Connection, seconds: float) -> None:
    """Wait SECONDS with CONNECTION's socket unread: what comes meanwhile waits in the kernel.

    Paused only when reading (the stream's own flow control may have paused it:
    then it is left to resume it).
    """
    if seconds <= 0:
        return
    transport = connection.writer.transport
    reading = transport if isinstance(transport, asyncio.ReadTransport) else None
    if reading is not None and reading.is_reading():
        reading.pause_reading()
    else:
        reading = None
    try:
        await asyncio.sleep(seconds)
    finally:
        if reading is not None and not reading.is_closing():
            reading.resume_reading()


class H1Pool:
    """Kept-alive HTTP/1.1 connections by route, on one event loop; ``aclose`` ends them."""

    def __init__(
        self,
        *,
        keep: int = limits.POOL_KEEPALIVE_CONNECTIONS,
        keepalive_seconds: float = limits.POOL_KEEPALIVE_SECONDS,
        pacing: ReadPacing | None = None,
    ) -> None:
        self.pacing = pacing or ReadPacing()
        self._idle: dict[H1Route, list[H1Connection]] = {}
        self._keep = keep
        self._keepalive_seconds = keepalive_seconds
        self._busy: set[H1Connection] = set()
        self.closed = False
        self.opened = 0  # connections dialed so far (tests and benchmarks count them)

    async def request(
        self,
        route: H1Route,
        url: str,
        headers: dict[str, str],
        body: bytes,
        *,
        connect_timeout: float,
        read_timeout: float,
        method: str = "POST",
    ) -> H1Response:
        """Return the answer's head to METHOD with BODY to URL (any status); its body to read.

        ``unreachable`` when no answer came; TimeoutError when the service said
        nothing for READ_TIMEOUT after the request went.
        """
        if route.proxy_auth is not None:
            headers = {**headers, "proxy-authorization": route.proxy_auth}
        try:
            wire = request_bytes(method, route.target(url), route.host_header, headers, body)
        except ValueError as exc:
            raise unreachable(url, str(exc)) from None
        for attempt in range(2):
            connection, reused = await self._connection(route, url, connect_timeout)
            try:
                return await self._exchange(connection, wire, read_timeout)
            except _Stale as stale:
                self.forget(connection)
                if not reused or attempt:
                    why = stale.cut or "the service closed the connection"
                    raise unreachable(url, why) from None
                log.debug("a kept-alive connection to %s was closed; asking anew", route.base_url)
            except Cut as cut:
                self.forget(connection)
                raise unreachable(url, cut) from None
            except BaseException:
                self.forget(connection)
                raise
        raise AssertionError("unreachable")  # pragma: no cover

    async def unary(
        self,
        route: H1Route,
        url: str,
        headers: Mapping[str, str],
        content: bytes,
        timeout: float,
        max_bytes: int | None,
        method: str = "POST",
    ) -> Answer:
        """Return the answer to one request (``unary.unary``'s): its body capped at MAX_BYTES
        (None past it); ``unreachable`` if none came whole within TIMEOUT.

        TIMEOUT bounds the whole call, connection, head and body: a read that
        brings a byte does not buy the next one more time (``late``).
        """
        # Cursor's web endpoints (the sign-in poll, the profile, the dashboard) sit behind
        # a front that may refuse a request naming no client; every peer seen working
        # live sends a user-agent (Node's and Bun's fetch, httpx before the kit). Ours
        # names the cell; a caller's own headers win.
        sent = {"user-agent": limits.UNARY_USER_AGENT, "accept": "*/*", **headers}
        try:
            async with asyncio.timeout(timeout):
                answer = await self.request(
                    route,
                    url,
                    sent,
                    content,
                    connect_timeout=timeout,
                    read_timeout=timeout,
                    method=method,
                )
                try:
                    return Answer(answer.status, await answer.read(max_bytes))
                finally:
                    await answer.aclose()
        except TimeoutError:
            raise late(url, timeout) from None
        except Cut as cut:
            raise unreachable(url, cut) from None

    async def _exchange(
        self, connection: H1Connection, wire: bytes, read_timeout: float
    ) -> H1Response:
        """Return the response head to WIRE sent on CONNECTION.

        _Stale if nothing came back (the connection was closed, or broke, before
        any of the answer); Cut if it broke after some.
        """
        try:
            with mapped(Step.STREAM):
                connection.writer.write(wire)
                await connection.writer.drain()
        except Cut as cut:
            raise _Stale(cut) from None
        parser = ResponseReader()
        body = b""
        got = False
        # One deadline for the whole head: a head trickled a byte at a time, or
        # interim (1xx) heads one after another, must not each buy more time.
        async with asyncio.timeout(read_timeout):
            while not parser.head_done:
                try:
                    with mapped(Step.STREAM):
                        data = await connection.reader.read(_READ_SIZE)
                except Cut as cut:
                    if got:
                        raise
                    raise _Stale(cut) from None
                if not data and not got:
                    raise _Stale()
                got = True
                with mapped(Step.STREAM):
                    # At the close, feed_eof raises: the head was cut short.
                    body = parser.feed(data) if data else parser.feed_eof()
        return H1Response(self, connection, parser, body, read_timeout)

    async def _connection(
        self, route: H1Route, url: str, connect_timeout: float
    ) -> tuple[H1Connection, bool]:
        """Return a connection for ROUTE (an idle one, else a new one) and whether it was idle."""
        if self.closed:
            raise unreachable(url, "the cell's connections were closed")
        idle = self._idle.get(route)
        now = time.monotonic()
        while idle:
            connection = idle.pop()
            if connection.open and now - connection.idle_since < self._keepalive_seconds:
                self._busy.add(connection)
                return connection, True
            connection.abort()
        connection = await self._dial(route, url, connect_timeout)
        self._busy.add(connection)
        return connection, False

    async def _dial(self, route: H1Route, url: str, connect_timeout: float) -> H1Connection:
        """Return a new connection along ROUTE; ``unreachable`` when it cannot be had."""
        if route.forward and route.proxy is not None:
            # An http:// origin through an http:// proxy: the proxy is asked in absolute form.
            # An https:// proxy is spoken to over TLS, verified as the service is.
            at = proxy_address(route.proxy)
            # Mapped outside the deadline: its TimeoutError is the connection timing out.
            with mapped(Step.CONNECT, url):
                async with asyncio.timeout(connect_timeout):
                    reader, writer = await asyncio.open_connection(
                        at.host,
                        at.port,
                        ssl=tls_context(("http/1.1",)) if at.tls else None,
                        server_hostname=at.host if at.tls else None,
                    )
            how = f"through the proxy ({authority(at.host, at.port)}), forwarded"
        else:
            try:
                dialed = await dial(
                    route.base_url,
                    route.proxy,
                    connect_timeout=connect_timeout,
                    alpn=("http/1.1",),
                    url=url,
                )
            except H2Unavailable as why:  # the proxy refused the tunnel
                raise unreachable(url, str(why)) from None
            reader, writer, how = dialed.reader, dialed.writer, dialed.how
        self.opened += 1
        log.debug("HTTP/1.1 connection to %s opened: %s", route.base_url, how)
        return H1Connection(reader, writer, route)

    def release(self, connection: H1Connection) -> None:
        """Keep CONNECTION for the next request on its route, or close it past the cap."""
        self._busy.discard(connection)
        if self.closed or not connection.open:
            connection.abort()
            return
        idle = self._idle.setdefault(connection.route, [])
        if len(idle) >= self._keep:
            connection.abort()
            return
        connection.idle_since = time.monotonic()
        idle.append(connection)

    def forget(self, connection: H1Connection) -> None:
        """Close CONNECTION and drop it from the pool (its answer was not read to the end)."""
        self._busy.discard(connection)
        connection.abort()

    def close(self) -> list[H1Connection]:
        """End every connection, idle or busy; return them (their sockets close on the loop)."""
        self.closed = True
        connections = [c for found in self._idle.values() for c in found] + list(self._busy)
        self._idle.clear()
        self._busy.clear()
        for connection in connections:
            connection.abort()
        return connections

    async def aclose(self) -> None:
        """End every connection and wait until their sockets are closed (returns nothing).

        An aborted transport closes its socket in a callback of the loop: a loop
        about to close must run it first, or the socket outlives it.
        """
        connections = self.close()
        with contextlib.suppress(Exception):
            async with asyncio.timeout(1.0):
                await asyncio.gather(
                    *(c.writer.wait_closed() for c in connections), return_exceptions=True
                )


class _Stale(Exception):
    """The connection was closed before any of the answer came (a kept-alive one may be).

    ``cut`` says how it broke, when it did not simply close.
    """

    def __init__(self, cut: Cut | None = None) -> None:
        super().__init__(str(cut) if cut is not None else "closed")
        self.cut = cut
