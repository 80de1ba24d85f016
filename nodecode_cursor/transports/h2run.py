"""The run over HTTP/2: one ``POST /agent.v1.AgentService/Run`` stream carrying both halves.

``H2Run`` writes every client message (the run request, the answers, the
heartbeats) as a Connect frame into the request body, in order, while the
server's frames stream back on the same stream (docs/protocol.md §4b). The
stream goes on a pooled connection (``runpool.RunConnections``, kept on the
cell's state), so concurrent rounds share one socket and ten rounds open one
connection. What the lane sees is the same as over HTTP/1.1: ``send``,
``messages``, ``saw_end``/``end_error``/``cut``, the same errors for the same
failures, the heartbeat re-armed by every write, the request timeout.

Made ``movable`` (by the driver, ``run_route.RoutedRun``), a run that HTTP/2
does not carry (the dial finds no h2, the proxy cannot carry it, the service
refuses the stream before any message) says so with ``run.NotCarried`` rather
than failing: where the run goes then is ``core.routes.next_route``'s call.
Bytes and sockets below the stream are ``h2conn.py``'s and ``h2dial.py``'s.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Self

from .. import limits
from ..core.routes import Outcome, Route
from ..errors import CursorError, ProtocolError, StreamIncomplete
from ..wire.connect import encode_frame
from ..wire.stream import StreamReader
from .errormap import Cut, unreachable
from .h2conn import H2Connection, H2Stream, StreamCut
from .h2dial import H2Unavailable, ProxyCannotTunnel, dial, proxy_for, split_url
from .http import http_error, rpc_headers
from .idle import IdleDeadline, silent_for
from .run import (
    STREAM_CUT,
    NotCarried,
    RunSettings,
    RunState,
    RunStream,
    after_end,
    after_end_error,
    grpc_end,
)
from .runpool import RunConnections

__all__ = ["RUN_PATH", "H2Run"]

log = logging.getLogger(__name__)

RUN_PATH = "/agent.v1.AgentService/Run"


class H2Run(RunStream):
    """One run as one HTTP/2 stream; use as ``async with H2Run(...) as run``.

    With CONNECTIONS (the cell's pool) the stream goes on the pooled connection
    for the base URL, account and proxy; without, on a connection of its own
    closed with the run. Entering raises H2Unavailable when HTTP/2 cannot be had
    on this route; made MOVABLE, that and a refusal before any message are
    ``NotCarried``.
    """

    route = Route.HTTP2

    def __init__(
        self,
        settings: RunSettings,
        connections: RunConnections | None = None,
        request_id: str | None = None,
        *,
        movable: bool = False,
    ) -> None:
        super().__init__(settings, request_id)
        self.how = ""
        self.written = 0  # client messages written into the stream
        self.movable = movable
        self._connections = connections
        self._connection: H2Connection | None = None
        self._own_connection = False
        self._stream: H2Stream | None = None
        self.run_url = settings.base_url.rstrip("/") + RUN_PATH

    def __repr__(self) -> str:
        return f"H2Run(request_id={self.request_id!r}, url={self.run_url!r})"

    async def __aenter__(self) -> Self:
        try:
            await self._open()
        except BaseException:
            await self.aclose()
            raise
        self._last_write = asyncio.get_running_loop().time()
        rid = self.request_id
        self._tasks = [
            asyncio.create_task(self._read(), name=f"cursor-h2-run-read-{rid}"),
            asyncio.create_task(self._write(), name=f"cursor-h2-run-write-{rid}"),
        ]
        if self.settings.heartbeat_seconds > 0:
            self._tasks.append(
                asyncio.create_task(self._heartbeat(), name=f"cursor-h2-run-beat-{rid}")
            )
        return self

    async def aclose(self) -> None:
        """Stop every task, reset the stream if still open, close an own connection; idempotent."""
        if self.state is RunState.CLOSED:
            return
        self.state = RunState.CLOSED
        tasks, self._tasks = self._tasks, []
        for task in tasks:
            task.cancel()
        try:
            await asyncio.gather(*tasks, return_exceptions=True)
        finally:
            connection, stream = self._connection, self._stream
            self._stream = None
            if connection is not None and stream is not None:
                connection.release(stream)
            if connection is not None and self._own_connection:
                self._connection = None
                await connection.aclose()

    # --- opening ------------------------------------------------------------------

    async def _open(self) -> None:
        """Open the stream (on a pooled or own connection) and send its head."""
        settings = self.settings
        proxy = proxy_for(settings.base_url, settings.proxy)
        headers = self._headers()
        # A pooled connection can take GOAWAY between being handed out and the stream
        # opening: then one more connection is asked for.
        for attempt in range(2):
            try:
                connection = await self._connect(proxy)
            except ProxyCannotTunnel as why:
                if self.movable:
                    raise NotCarried(str(why), Outcome.NO_TUNNEL) from None
                raise
            except H2Unavailable as why:
                if self.movable:
                    raise NotCarried(str(why), Outcome.NOT_NEGOTIATED) from None
                raise
            self._connection = connection
            self.how = connection.how
            try:
                self._stream = await connection.open_stream(headers)
                return
            except Cut as cut:
                if attempt or self._own_connection:
                    raise unreachable(self.run_url, cut) from None

    async def _connect(self, proxy: str | None) -> H2Connection:
        """Return the connection the stream goes on: the pool's, else one of the run's own."""
        settings = self.settings
        if self._connections is None:
            return await self._own(proxy)
        key = RunConnections.key(settings.base_url, settings.token, proxy)
        return await self._connections.acquire(key, proxy, connect_timeout=settings.connect_timeout)

    async def _own(self, proxy: str | None) -> H2Connection:
        """Return a connection for this run alone (no pool given)."""
        settings = self.settings
        scheme, host, port = split_url(settings.base_url)
        dialed = await dial(settings.base_url, proxy, connect_timeout=settings.connect_timeout)
        default = 443 if scheme == "https" else 80
        authority = host if port == default else f"{host}:{port}"
        self._own_connection = True
        return H2Connection(dialed, authority, scheme, ping_seconds=limits.H2_PING_SECONDS)

    def _headers(self) -> list[tuple[str, str]]:
        """Return the stream's request headers after the pseudo-headers (docs/protocol.md §4b)."""
        settings = self.settings
        common = rpc_headers(settings.token, settings.client_version, self.request_id)
        headers = [
            (":path", RUN_PATH),
            ("content-type", "application/connect+proto"),
            ("connect-protocol-version", "1"),
            ("te", "trailers"),
            ("connect-accept-encoding", "gzip"),
        ]
        headers += [
            (name, value) for name, value in common.items() if name != "connect-protocol-version"
        ]
        # A run resuming a broken one names the round's first run (the resume
        # work's RunSettings field; absent on settings that predate it).
        original = settings.original_request_id
        if original:
            headers.append(("x-original-request-id", str(original)))
        return headers

    # --- the client half ----------------------------------------------------------

    async def _write(self) -> None:
        """Write queued messages as Connect frames into the request body, in order."""
        assert self._connection is not None and self._stream is not None
        connection, stream = self._connection, self._stream
        try:
            while True:
                while not self._outbox:
                    self._queued.clear()
                    await self._queued.wait()
                if self.ended:
                    self._outbox.clear()  # nothing goes after the end frame
                    continue
                message = self._outbox[0]
                # Any write shows the service the client is alive: the heartbeat
                # waits a whole period from here.
                self._last_write = asyncio.get_running_loop().time()
                await connection.send_data(stream, encode_frame(message))
                self._outbox.popleft()
                self.written += 1
        except asyncio.CancelledError:
            raise
        except Cut:
            return  # the stream is over; the reader says how it ended
        except Exception as exc:
            log.debug("the run's writer failed", exc_info=True)
            self.failure = ProtocolError(f"Sending to Cursor failed: {exc}")
            self._finish(self.failure)

    # --- the server half ----------------------------------------------------------

    async def _read(self) -> None:
        """Read the stream's answer and feed the consumer until it ends."""
        try:
            await self._read_stream()
            self._finish(None)
        except asyncio.CancelledError:
            raise
        except (CursorError, NotCarried) as exc:
            self._finish(exc)
        except Exception as exc:
            log.debug("the run's reader failed", exc_info=True)
            self._finish(ProtocolError(f"Reading Cursor's stream failed: {exc}"))

    async def _next(self) -> tuple[bytes, int] | StreamCut | None:
        """Return the next chunk, the end (None) or the cut; StreamIncomplete on silence."""
        assert self._stream is not None
        try:
            async with asyncio.timeout(self.settings.request_timeout):
                return await self._stream.chunks.get()
        except TimeoutError:
            raise self._silence() from None

    async def _read_stream(self) -> None:
        """Check the response head, then deliver the frames until the end frame or the close."""
        assert self._connection is not None and self._stream is not None
        connection, stream = self._connection, self._stream
        try:
            async with asyncio.timeout(self.settings.request_timeout):
                head = dict(await stream.head)
        except TimeoutError:
            raise self._silence() from None
        except StreamCut as cut:
            error = unreachable(self.run_url, cut)
            if cut.refused and self.movable:
                why = f"the Run stream was refused: {cut}"
                raise NotCarried(why, Outcome.STREAM_REFUSED, error=error) from None
            raise error from None
        status = int(head.get(":status", "0") or 0)
        if status != 200:
            body = bytearray()
            while True:
                item = await self._next()
                if not isinstance(item, tuple):
                    break
                body += item[0]
                connection.consumed(stream, item[1])
            refusal = http_error(status, bytes(body), "Cursor's Run")
            log.debug("run %s refused: %s", self.request_id, refusal.detail)
            if self.movable:
                # Whether another route may take the run is the route decision's.
                why = f"Run refused (HTTP {status}: {refusal.detail})"
                raise NotCarried(
                    why, Outcome.REFUSED, status=status, code=refusal.code, error=refusal
                )
            raise refusal
        log.debug(
            "run %s streams over HTTP/2 Run (%s; transport setting %s)",
            self.request_id,
            self.how,
            self.settings.transport,
        )
        decoder = StreamReader()
        try:
            # One deadline for the stream, moved by each chunk rather than a timer per
            # chunk, and held while the consumer has no room.
            async with silent_for(self.settings.request_timeout) as silence:
                await self._frames(connection, stream, decoder, silence)
        except TimeoutError:
            raise self._silence() from None
        if self.saw_end:
            return
        log.debug("run %s closed early: %s", self.request_id, self.cut)
        if decoder.pending:
            raise StreamIncomplete(
                f"Cursor's answer is incomplete: {self.cut} inside a frame (try again)"
            )

    async def _frames(
        self,
        connection: H2Connection,
        stream: H2Stream,
        decoder: StreamReader,
        silence: IdleDeadline,
    ) -> None:
        """Deliver STREAM's frames until its end frame, its close or its cut."""
        loop = asyncio.get_running_loop()
        timeout = self.settings.request_timeout
        chunks = stream.chunks
        while True:
            item = await chunks.get()
            if item is None:
                self._trailer_end(stream.trailers)
                return
            if isinstance(item, StreamCut):
                # HTTP/2 says why in words of its own (GOAWAY, unanswered PINGs): kept.
                self.cut = f"{STREAM_CUT} ({item})"
                return
            data, size = item
            batch = decoder.read_items(data)
            end = decoder.end
            if end is not None:
                silence.close()
                self._take_end(end)
                if batch:
                    await self._deliver(batch)
                connection.consumed(stream, size)
                connection.end_stream(stream)  # our half closes with the answer
                # Bytes after the end frame in the same DATA frame break Connect's
                # grammar; later ones are not waited for (a half-open stream ends here).
                if after_end(decoder):
                    raise after_end_error()
                return
            if batch:
                silence.push(None)
                await self._deliver(batch)
            silence.push(loop.time() + timeout)
            # Given back only once the consumer took it: a slow lane holds the service back.
            connection.consumed(stream, size)

    def _trailer_end(self, trailers: dict[str, str]) -> None:
        """Read a gRPC-style end (``grpc-status`` trailer) when no Connect end frame came."""
        self.saw_end, self.end_error = grpc_end(trailers)
        if not self.saw_end:
            self.cut = "the stream closed before its end frame"
