"""``serve``'s HTTP/1.1 server: connections, the gate, the deadlines and caps, closing.

HTTP/1.1 is parsed with h11 (sans-I/O) over asyncio streams: keep-alive,
chunked bodies, several connections at once. Every request passes
``serve_gate.Gate`` on its head alone (origin, Host, key, content type) before
its body is read or any route sees it; headers are capped, each phase of a
request has a deadline (its head, its body, the idle wait for the next),
connections are capped (one past the cap is answered a readable 503 and closed
with a lingering close, never a reset), and an ``accept()`` that fails for want
of file descriptors is logged in one line and retried. Each served request is
logged in one line (method, path, status, duration, model, why an error was
answered), never with a header. ``close`` ends every connection and every round
they hold (``http_exchange.Exchange.hold``) within a deadline of its own,
whatever they are doing: past it their sockets are aborted and it returns.

A request that passes is handed to the server's ``Routes`` as an
``http_exchange.Exchange``, one per turn of the event loop
(``turnstile.Turnstile``); how an exchange is answered (JSON, SSE, noticing
the client gone) is ``http_exchange.py``'s. What each path answers — the three
APIs and their rounds — is ``routes.py``'s; who is let in is ``serve_gate.py``'s.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import ipaddress
import json
import logging
import time
from typing import Any, Protocol

import h11

from . import contract
from . import limits as host_limits
from .api_round import error_object
from .http_exchange import READ_SIZE, ClientGone, Exchange
from .serve_gate import Gate, Preflight
from .turnstile import Turnstile

__all__ = [
    "DEFAULT_LISTEN_HOST",
    "DEFAULT_PORT",
    "MAX_BODY_BYTES",
    "HttpServer",
    "Routes",
    "authority",
    "loggable",
    "loopback",
]

log = logging.getLogger(__name__)

DEFAULT_LISTEN_HOST = "127.0.0.1"
DEFAULT_PORT = 8765
# A chat request with inline images can be large; anything past this is refused
# rather than held in memory (host_limits says why its size).
MAX_BODY_BYTES = host_limits.SERVE_MAX_BODY_BYTES
# accept() failures for want of resources (asyncio retries them on its own after a pause).
_ACCEPT_ERRNOS = frozenset({errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM})


class Routes(Protocol):
    """What the server hands a request to once the gate let it through."""

    async def answer(self, exchange: Exchange) -> None:
        """Answer EXCHANGE's request (returns when the answer is sent)."""
        ...

    def refusal_body(self, path: str, status: int, message: str, code: str) -> dict[str, Any]:
        """Return the error body refusing a request to PATH, in its API's own shape."""
        ...


class HttpServer:
    """The listening server: the routes it hands requests to, the gate's settings, the caps."""

    def __init__(
        self,
        routes: Routes,
        *,
        api_key: str | None = None,
        allowed_origins: tuple[str, ...] = (),
        max_connections: int = host_limits.SERVE_MAX_CONNECTIONS,
        header_timeout: float = host_limits.SERVE_HEADER_TIMEOUT_SECONDS,
        body_timeout: float = host_limits.SERVE_BODY_TIMEOUT_SECONDS,
        idle_timeout: float = host_limits.SERVE_IDLE_TIMEOUT_SECONDS,
        close_timeout: float = host_limits.SERVE_CLOSE_SECONDS,
    ) -> None:
        self.routes = routes
        self.api_key = api_key or None
        self.allowed_origins = allowed_origins
        self.max_connections = max_connections
        self.header_timeout = header_timeout
        self.body_timeout = body_timeout
        self.idle_timeout = idle_timeout
        self.close_timeout = close_timeout
        self._accept_warned = 0.0
        self.listen_host = DEFAULT_LISTEN_HOST
        self.port = 0
        self.connections = 0
        self._server: asyncio.Server | None = None
        self._closing = False
        # Each connection's task and its socket's writer, and the rounds routes hold:
        # what close ends.
        self._connections: dict[asyncio.Task[Any], asyncio.StreamWriter] = {}
        self._rounds: set[asyncio.Task[Any]] = set()
        self._previous_handler: Any = None
        self.turnstile = Turnstile()

    @property
    def url(self) -> str:
        """Return the base URL clients use (``…/v1``)."""
        return f"http://{authority(self.listen_host, self.port)}/v1"

    @property
    def gate(self) -> Gate:
        """Return the checks every request passes before any route (``serve_gate``)."""
        return Gate(self.listen_host, self.port, self.api_key, self.allowed_origins)

    # Connections ----------------------------------------------------------------------------

    async def connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """Serve one connection: requests one after another until either side closes."""
        if self.connections >= self.max_connections:
            await _turn_away(reader, writer)
            return
        conn = h11.Connection(
            h11.SERVER, max_incomplete_event_size=host_limits.SERVE_MAX_HEADER_BYTES
        )
        self.connections += 1
        waiting = self.header_timeout  # the first request's head is due at once
        try:
            while True:
                try:
                    head = await self._read_head(conn, reader, waiting)
                except h11.RemoteProtocolError as exc:
                    await self._send_bad_request(conn, reader, writer, exc)
                    return
                except TimeoutError:
                    log.debug("closing a connection that sent no whole request head in time")
                    return
                if head is None:
                    return
                waiting = self.idle_timeout
                started = time.monotonic()
                exchange = Exchange(self, conn, reader, writer, head)
                try:
                    if not await self._admitted(exchange):
                        return
                    try:
                        body = await self._read_body(conn, reader)
                    except h11.RemoteProtocolError as exc:
                        await self._send_bad_request(conn, reader, writer, exc, exchange)
                        return
                    except TimeoutError:
                        error = error_object(408, "the request body did not arrive in time")
                        with contextlib.suppress(ConnectionError, OSError):
                            await exchange.send_json(408, error, close=True)
                        return
                    if body is None:
                        return
                    exchange.body = body
                    # One route starts per turn of the loop: a burst of requests then
                    # starts its rounds between reads of what the open ones are sent.
                    await self.turnstile.wait()
                    await self.routes.answer(exchange)
                finally:
                    _log_request(exchange, time.monotonic() - started)
                if h11.MUST_CLOSE in (conn.our_state, conn.their_state):
                    return
                if conn.our_state is not h11.DONE:
                    return  # the answer was cut short (client gone): nothing more to say
                conn.start_next_cycle()
        except (ClientGone, ConnectionError, OSError, h11.ProtocolError):
            return
        finally:
            self.connections -= 1
            writer.close()
            with contextlib.suppress(ConnectionError, OSError):
                await writer.wait_closed()

    async def _admitted(self, exchange: Exchange) -> bool:
        """Return whether the request may go on to its body and route; else answer it.

        The one place every route passes through, on the head alone: a refused
        request is answered and its connection closed without reading its body.
        """
        verdict = self.gate.admit(exchange.method, exchange.headers)
        if verdict is None:
            declared = exchange.headers.get("content-length", "")
            if not (declared.isascii() and declared.isdigit() and int(declared) > MAX_BODY_BYTES):
                return True
            status, message, code = 413, "request body too large", "request_too_large"
        elif isinstance(verdict, Preflight):
            await exchange.send_preflight(verdict.headers)
            return False
        else:
            status, message, code = verdict.status, verdict.message, verdict.code
        if code == "invalid_api_key":
            # Who was refused, never what they sent: the header may hold a real key.
            log.warning(
                "refused %s %s: missing or wrong client API key",
                exchange.method,
                loggable(exchange.path),
            )
        # In the refused API's own error shape (an Anthropic client reads Anthropic's).
        body = self.routes.refusal_body(exchange.path, status, message, code)
        await exchange.send_json(status, body, close=True)
        return False

    async def _read_head(
        self, conn: h11.Connection, reader: asyncio.StreamReader, waiting: float
    ) -> h11.Request | None:
        """Return the next request's head, or None when the client closed first.

        TimeoutError when no byte comes within WAITING, or the head is not whole
        within the header timeout of its first byte.
        """
        loop = asyncio.get_running_loop()
        deadline: float | None = None
        while True:
            event = conn.next_event()
            if event is h11.NEED_DATA:
                left = waiting if deadline is None else deadline - loop.time()
                async with asyncio.timeout(max(0.0, left)):
                    data = await reader.read(READ_SIZE)
                if deadline is None:
                    deadline = loop.time() + self.header_timeout
                conn.receive_data(data)
                continue
            if isinstance(event, h11.Request):
                return event
            return None  # ConnectionClosed (or PAUSED, which a server in this state never sees)

    async def _read_body(self, conn: h11.Connection, reader: asyncio.StreamReader) -> bytes | None:
        """Return the request's body, or None when the client closed first.

        TimeoutError when it is not whole within the body timeout.
        """
        body = bytearray()
        async with asyncio.timeout(self.body_timeout):
            while True:
                event = conn.next_event()
                if event is h11.NEED_DATA:
                    conn.receive_data(await reader.read(READ_SIZE))
                    continue
                if isinstance(event, h11.Data):
                    body += event.data
                    if len(body) > MAX_BODY_BYTES:
                        raise h11.RemoteProtocolError("request body too large", 413)
                elif isinstance(event, h11.EndOfMessage):
                    return bytes(body)
                else:
                    return None

    async def _send_bad_request(
        self,
        conn: h11.Connection,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        exc: h11.RemoteProtocolError,
        exchange: Exchange | None = None,
    ) -> None:
        """Answer a request h11 could not parse with an error, when an answer is still due.

        EXCHANGE is the request whose body broke (None: its head did, and the answer
        is logged here rather than with a request line).
        """
        if conn.our_state not in (h11.IDLE, h11.SEND_RESPONSE):
            return
        status = exc.error_status_hint if 400 <= exc.error_status_hint < 500 else 400
        message = {
            413: "request body too large",
            431: f"request headers larger than {host_limits.SERVE_MAX_HEADER_BYTES} bytes",
        }.get(status, "malformed HTTP request")
        log.info("answered %d to a request that could not be read: %s", status, message)
        if exchange is None:
            exchange = Exchange(self, conn, reader, writer, None)
        with contextlib.suppress(ConnectionError, OSError):
            await exchange.send_json(status, error_object(status, message), close=True)

    # Life cycle -----------------------------------------------------------------------------

    async def start(self, listen_host: str, port: int) -> None:
        """Start listening on LISTEN_HOST:PORT (port 0 picks a free one)."""
        loop = asyncio.get_running_loop()
        self._previous_handler = loop.get_exception_handler()
        loop.set_exception_handler(self._loop_exception)
        self._server = await asyncio.start_server(self._guarded, listen_host, port)
        sockname = self._server.sockets[0].getsockname()
        self.listen_host, self.port = str(sockname[0]), int(sockname[1])

    async def _guarded(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """Serve a connection; an unexpected failure is logged (no traceback to the client).

        The work runs in a task of its own, which ``close`` cancels: Python 3.11's
        streams log an error when the task they started is itself cancelled. A
        connection accepted as the server closes is dropped at once.
        """
        if self._closing:
            writer.transport.abort()
            return
        task = asyncio.create_task(self.connection(reader, writer))
        self._connections[task] = writer
        try:
            await asyncio.wait({task})
        finally:
            self._connections.pop(task, None)
        if not task.cancelled() and task.exception() is not None:
            error = task.exception()
            log.error(
                "the API server failed a connection",
                exc_info=(type(error), error, error.__traceback__) if error else None,
            )

    def _loop_exception(self, loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        """Log an accept() that failed for want of resources in one line; pass on the rest.

        asyncio pauses accepting and retries on its own; its default handler would
        print a traceback for every failed accept.
        """
        error = context.get("exception")
        if isinstance(error, OSError) and error.errno in _ACCEPT_ERRNOS:
            now = time.monotonic()
            if now - self._accept_warned > 10:
                self._accept_warned = now
                log.warning(
                    "cannot accept connections for now: %s; retrying", error.strerror or error
                )
            return
        if self._previous_handler is not None:
            self._previous_handler(loop, context)
        else:
            loop.default_exception_handler(context)

    def hold(self, task: asyncio.Task[Any]) -> None:
        """Count TASK (a round a route runs) among what ``close`` ends, until it ends."""
        self._rounds.add(task)
        task.add_done_callback(self._rounds.discard)

    async def close(self) -> None:
        """Stop listening and end every connection and round, within ``close_timeout``.

        Each connection is cancelled (it cancels its round and closes its socket on
        the way out). What still runs at half the deadline is cancelled once more,
        rounds too: a task can swallow one cancel (Python 3.11's ``wait_for`` did). A
        connection still open at the deadline has its socket aborted, is logged, and
        is left to the loop: close returns whatever the rounds are doing.
        """
        if self._server is None:
            return
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.close_timeout
        self._closing = True
        self._server.close()
        # Python 3.11's Server does not track its connections: we do.
        held = set(self._connections)
        for task in held:
            task.cancel()
        left = await _ended(held, self.close_timeout / 2)
        if left or self._rounds:
            log.info(
                "closing: cancelling again %d connections and %d rounds still running",
                len(left),
                len(self._rounds),
            )
            for task in (*left, *self._rounds):
                task.cancel()
            left = await _ended(left | self._rounds, deadline - loop.time())
        if left:
            log.warning(
                "%d connections and rounds did not end within %g s of closing; "
                "their sockets are aborted and they are left to end on their own",
                len(left),
                self.close_timeout,
            )
            for task in left:
                writer = self._connections.get(task)
                if writer is not None:
                    writer.transport.abort()
        # Bounded too: Python 3.12's wait_closed waits for every connection to go.
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(max(0.0, deadline - loop.time())):
                await self._server.wait_closed()
        self._server = None
        loop.set_exception_handler(self._previous_handler)


def _log_request(exchange: Exchange, seconds: float) -> None:
    """Log one served request: method, path, status, duration and model (never a header)."""
    status = exchange.status if exchange.status is not None else "-"
    log.info(
        "%s %s -> %s in %.3fs%s%s%s",
        loggable(exchange.method_sent),
        loggable(exchange.path),
        status,
        seconds,
        f" (model {loggable(exchange.model)})" if exchange.model is not None else "",
        f" (account {loggable(exchange.account)})" if exchange.account is not None else "",
        # Why an error was answered; it may quote what the client sent: scrubbed, escaped.
        f": {loggable(contract.scrub(exchange.reason))}" if exchange.reason else "",
    )


async def _turn_away(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """Answer a connection past the cap with a readable 503 and close it without a reset."""
    body = json.dumps(
        error_object(503, "the server is at its connection limit; try again shortly")
    ).encode()
    head = (
        "HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\n"
        f"content-length: {len(body)}\r\nretry-after: 1\r\nconnection: close\r\n\r\n"
    ).encode()
    log.info("answered 503 to a connection past the cap of connections")
    try:
        with contextlib.suppress(ConnectionError, OSError, TimeoutError):
            writer.write(head + body)
            async with asyncio.timeout(5):
                await writer.drain()
            # A lingering close: closing with the request unread would make the kernel
            # answer with a reset, which can destroy the 503 before the client reads it.
            # So the side we send on is shut, and what the client still sends is read
            # and dropped (bounded in bytes and time) until it closes its own.
            if writer.can_write_eof():
                writer.write_eof()
            left = host_limits.SERVE_LINGER_BYTES
            async with asyncio.timeout(host_limits.SERVE_LINGER_SECONDS):
                while left > 0 and (chunk := await reader.read(READ_SIZE)):
                    left -= len(chunk)
    finally:
        writer.close()  # cancelled too (the server closing): the socket goes
    with contextlib.suppress(ConnectionError, OSError):
        await writer.wait_closed()


async def _ended(tasks: set[asyncio.Task[Any]], seconds: float) -> set[asyncio.Task[Any]]:
    """Return which of TASKS are still running after waiting up to SECONDS for all to end."""
    if not tasks:
        return set()
    _, pending = await asyncio.wait(tasks, timeout=max(0.0, seconds))
    return pending


async def cancel(*tasks: asyncio.Task[Any]) -> None:
    """Cancel TASKS and wait for them to end (their errors are theirs, already reported)."""
    for task in tasks:
        task.cancel()
    for task in tasks:
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await task


def authority(listen_host: str, port: int) -> str:
    """Return ``host:port`` as a URL writes it: an IPv6 address goes in brackets."""
    if ":" in listen_host and not listen_host.startswith("["):
        listen_host = f"[{listen_host}]"  # RFC 3986: http://[::1]:8765, never http://::1:8765
    return f"{listen_host}:{port}"


def loopback(listen_host: str) -> bool:
    """Return whether LISTEN_HOST is a loopback address (or ``localhost``)."""
    if listen_host.strip().lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(listen_host.strip("[]")).is_loopback
    except ValueError:
        return False


def loggable(text: str) -> str:
    """Return TEXT a client sent, escaped for a log line (the cell's rule, shared)."""
    return contract.loggable(text)
