"""The run over HTTP/2: one ``POST /agent.v1.AgentService/Run`` stream carrying both halves.

``H2Run`` writes every client message (the run request, the answers, the
heartbeats) as a Connect frame into the request body, in order, while the
server's frames stream back on the same stream (docs/protocol.md §4b). The
stream goes on a pooled connection (``runpool.RunConnections``, kept on the
cell's state), so concurrent rounds share one socket and ten rounds open one
connection. What the lane sees is the same as over HTTP/1.1: ``send``,
``messages``, ``saw_end``/``end_error``/``cut``, the same errors for the same
failures, the heartbeat re-armed by every write, the request timeout.

``ChosenRun`` is what ``run_route.open_run`` hands out for ``auto`` over
``https://`` and for ``http2``: it picks HTTP/2 when the connection speaks it,
else RunSSE (then RunPoll) — unless Cursor's server config, asked when h2
fails to negotiate (``server_config.py``), requires HTTP/2 — remembers per
base URL what worked, and says which and why at DEBUG. Bytes and sockets
below the stream are ``h2conn.py``'s and ``h2dial.py``'s; the RunSSE/RunPoll
routes are ``sse.py``'s.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncGenerator
from types import TracebackType
from typing import Self

from .. import limits
from .._proto import agent_pb2
from ..errors import CursorError, ProtocolError, ProviderError, StreamIncomplete
from ..wire.connect import encode_frame
from ..wire.stream import ServerItem, StreamReader, as_message
from .errormap import Cut, unreachable
from .h2conn import H2Connection, H2Stream, StreamCut
from .h2dial import H2Unavailable, ProxyCannotTunnel, dial, proxy_for, split_url
from .http import http_error, rpc_headers
from .idle import IdleDeadline, silent_for
from .run import (
    HEARTBEAT,
    STREAM_CUT,
    RunSettings,
    RunStream,
    RunTransport,
    after_end,
    after_end_error,
    grpc_end,
)
from .runpool import RunConnections
from .sse import PollRun, SseRun

__all__ = ["RUN_PATH", "ChosenRun", "H2Run"]

log = logging.getLogger(__name__)

RUN_PATH = "/agent.v1.AgentService/Run"

_Item = list[ServerItem] | BaseException | None


class _Refused(Exception):
    """The service did not take the Run stream (before any message); RunSSE may. Holds ERROR."""

    def __init__(self, why: str, error: ProviderError) -> None:
        super().__init__(why)
        self.error = error


class H2Run(RunStream):
    """One run as one HTTP/2 stream; use as ``async with H2Run(...) as run``.

    With CONNECTIONS (the cell's pool) the stream goes on the pooled connection
    for the base URL, account and proxy; without, on a connection of its own
    closed with the run. Entering raises H2Unavailable when HTTP/2 cannot be had
    on this route (``ChosenRun`` then takes HTTP/1.1).
    """

    route = "http2"

    def __init__(
        self,
        settings: RunSettings,
        connections: RunConnections | None = None,
        request_id: str | None = None,
    ) -> None:
        super().__init__(settings, request_id)
        self.how = ""
        self.written = 0  # client messages written into the stream
        self.refusable = False  # a refusal before the first message may move the run (auto)
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
        if self._closed:
            return
        self._closed = True
        self._ended = True
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
            if self._connections is not None:
                key = RunConnections.key(settings.base_url, settings.token, proxy)
                connection = await self._connections.acquire(
                    key, proxy, connect_timeout=settings.connect_timeout
                )
            else:
                connection = await self._own(proxy)
            self._connection = connection
            self.how = connection.how
            try:
                self._stream = await connection.open_stream(headers)
                return
            except Cut as cut:
                if attempt or self._own_connection:
                    raise unreachable(self.run_url, cut) from None

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
                if self._ended:
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
        except _Refused as refused:
            # Only a run that may still move (auto, nothing answered) sees the refusal
            # as such; otherwise it is the run's error.
            self._finish(refused if self.refusable else refused.error)
        except CursorError as exc:
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
            if cut.refused:
                raise _Refused(f"the Run stream was refused: {cut}", error) from None
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
            if status in (404, 501) or refusal.code == "unimplemented":
                raise _Refused(
                    f"Run refused as unimplemented (HTTP {status}: {refusal.detail})", refusal
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


class ChosenRun:
    """A run on the transport that works: HTTP/2 when the connection speaks it, else HTTP/1.1.

    ``forced`` (the ``http2`` setting) refuses a server that does not negotiate
    h2 rather than moving on; a proxy that cannot carry HTTP/2 moves the run to
    HTTP/1.1 either way, with a DEBUG line (never a silent bypass of the proxy).
    ``route`` names the transport once entered.
    """

    def __init__(
        self, settings: RunSettings, connections: RunConnections | None, *, forced: bool = False
    ) -> None:
        self.settings = settings
        self.request_id = ""
        self.saw_end = False
        self.end_error: ProviderError | None = None
        self.cut: str | None = None
        self.route = ""
        self._connections = connections
        self._forced = forced
        self._inner: RunTransport | None = None
        # What was sent before the first server message, to resend should the
        # Run stream be refused and the run move to RunSSE.
        self._replay: list[bytes] | None = []
        self._worked = False

    def __repr__(self) -> str:
        return f"ChosenRun(route={self.route!r}, request_id={self.request_id!r})"

    async def __aenter__(self) -> Self:
        inner = await self._choose()
        self._inner = inner
        self.request_id = inner.request_id
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        inner, self._inner = self._inner, None
        if inner is None:
            return
        try:
            await inner.__aexit__(exc_type, exc, tb)
        finally:
            self._copy(inner)
            if self._worked and self._connections is not None:
                self._connections.remember(self.settings.base_url, self.route)

    def send(self, message: bytes) -> None:
        """Queue one serialized AgentClientMessage on the run's transport."""
        if self._replay is not None and message != HEARTBEAT:
            self._replay.append(message)
        if self._inner is not None:
            self._inner.send(message)

    async def messages(self) -> AsyncGenerator[agent_pb2.AgentServerMessage, None]:
        """Yield the server's messages; move to RunSSE when the Run stream was refused first."""
        async with contextlib.aclosing(self.batches()) as batches:
            async for batch in batches:
                for item in batch:
                    yield as_message(item)

    async def batches(self) -> AsyncGenerator[list[ServerItem], None]:
        """Yield the server's messages a read at a time; move to RunSSE as ``messages`` says."""
        while True:
            inner = self._inner
            assert inner is not None
            try:
                async with contextlib.aclosing(inner.batches()) as batches:
                    async for batch in batches:
                        self._replay = None
                        self._worked = True
                        yield batch
                self._worked = True
                self._copy(inner)
                return
            except _Refused as refused:
                if self._forced or self._replay is None:
                    raise refused.error from None
                await self._to_http1(inner, str(refused))

    def _copy(self, inner: RunTransport) -> None:
        """Take the inner run's end state as this run's."""
        self.saw_end, self.end_error, self.cut = inner.saw_end, inner.end_error, inner.cut
        self.route = getattr(inner, "route", self.route)

    async def _to_http1(self, inner: RunTransport, why: str) -> None:
        """Move the run to RunSSE (then RunPoll): resend what the refused stream had taken."""
        await inner.__aexit__(None, None, None)
        self._remember("sse")
        fresh = SseRun(self.settings, fall_back_to_poll=True)
        log.debug("run %s moves to RunSSE as run %s: %s", self.request_id, fresh.request_id, why)
        await fresh.__aenter__()
        self._inner = fresh
        self.route = fresh.route
        for message in self._replay or ():
            fresh.send(message)

    def _remember(self, route: str) -> None:
        if self._connections is not None:
            self._connections.remember(self.settings.base_url, route)

    async def _choose(self) -> RunTransport:
        """Return the entered transport for this run, and log which and why."""
        settings = self.settings
        remembered = (
            None
            if self._forced or self._connections is None
            else (self._connections.remembered(settings.base_url))
        )
        if remembered in ("sse", "poll"):
            run: RunTransport = (
                PollRun(settings)
                if remembered == "poll"
                else SseRun(settings, fall_back_to_poll=True)
            )
            self.route = remembered
            await run.__aenter__()
            log.debug(
                "run %s: %s, as the last run to %s went (transport setting %s)",
                run.request_id,
                "RunPoll" if remembered == "poll" else "RunSSE",
                settings.base_url,
                settings.transport,
            )
            return run
        configs = self._connections.server_configs if self._connections is not None else None
        policy = (
            None
            if self._forced or configs is None
            else configs.cached(settings.base_url, settings.token)
        )
        h2run = H2Run(settings, self._connections)
        h2run.refusable = not self._forced
        if policy is not None and policy.forbids_http2:
            # Cursor said so within the last 30 s: HTTP/2 is not even tried.
            log.debug(
                "run %s: RunSSE, as Cursor's server config says %s",
                h2run.request_id,
                policy.name,
            )
            return await self._fallback()
        try:
            await h2run.__aenter__()
        except ProxyCannotTunnel as why:
            log.debug(
                "run %s: RunSSE, as HTTP/2 cannot go through the proxy: %s", h2run.request_id, why
            )
        except H2Unavailable as why:
            if self._forced:
                raise ProviderError(
                    f"{settings.base_url} does not speak HTTP/2 ({why}); set cursor.transport"
                    " to auto or sse",
                    status=502,
                ) from None
            await self._negotiation_failed(h2run.request_id, str(why))
        else:
            self.route = "http2"
            return h2run
        return await self._fallback()

    async def _negotiation_failed(self, request_id: str, why: str) -> None:
        """Decide, with Cursor's server config, whether a failed h2 negotiation may go to RunSSE.

        Returns when it may (the config forbids HTTP/2, or says nothing); raises the
        round's error when the config requires HTTP/2 (oh-my-pi's rule).
        """
        from ..account.server_config import ask_server_config

        settings = self.settings
        configs = self._connections.server_configs if self._connections is not None else None
        policy = await ask_server_config(settings, configs)
        if policy.requires_http2:
            raise ProviderError(
                f"{settings.base_url} does not speak HTTP/2 ({why}), and Cursor's server config"
                f" for this account ({policy.name}) allows no other transport; check the proxy"
                " or network between here and Cursor",
                status=502,
            )
        said = f"; Cursor's server config says {policy.name}" if policy.forbids_http2 else ""
        log.debug("run %s: RunSSE, as %s: %s%s", request_id, settings.base_url, why, said)
        self._remember("sse")

    async def _fallback(self) -> RunTransport:
        """Return the entered RunSSE run (moving to RunPoll if RunSSE is not served)."""
        settings = self.settings
        fallback = SseRun(settings, fall_back_to_poll=True)
        self.route = "sse"
        await fallback.__aenter__()
        return fallback
