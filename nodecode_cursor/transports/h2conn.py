"""One client HTTP/2 connection: python-hyper's sans-I/O ``h2`` over asyncio streams.

``H2Connection`` owns one socket that ``h2dial.dial`` opened: a reader task
feeding bytes to ``h2`` and handing each stream its events, a PING task that
finds a dead connection while the service is quiet, and the writes (flow
control respected: a stream's data waits for its window). A stream is an
``H2Stream``: the response head, then the body's chunks, then its end or its
failure. The receive windows are large (``limits.H2_STREAM_WINDOW``), and
the bytes are acknowledged as the run consumes them, so a long answer never
stalls and a slow consumer holds the service back instead of memory.

What ``h2`` and the socket raise is mapped by ``errormap.mapped``: a stream
that cannot go on is a ``StreamCut`` (an ``errormap.Cut``), a connection whose
socket or peer broke is over with the reason in words.

A connection that got GOAWAY, failed or missed a PING takes no new stream
(``usable``), and one that carried no stream for its idle period closes
itself; the pool that shares connections between rounds is
``runpool.py``'s, and what goes in a stream (Connect frames, the run) is
``h2run.py``'s.
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
import logging
import time
from collections.abc import Iterable
from typing import Any

import h2.config
import h2.connection
import h2.errors
import h2.events
import h2.settings

from .. import limits
from .errormap import Cut, Step, mapped
from .h2dial import Dialed

__all__ = ["H2Connection", "H2State", "H2Stream", "StreamCut"]

log = logging.getLogger(__name__)

_READ_SIZE = 65536
# DATA up to this size is flushed with whatever else this turn of the event loop
# writes (one TLS record and one send for many streams' small messages); larger is
# written at once, so a big request body waits for the socket as it goes.
_COALESCE_BYTES = 16384
# ... but never held longer than this: a turn that runs many rounds' work (a burst)
# would otherwise keep the first stream's frames from the service until its end.
_COALESCE_SECONDS = 0.001


class StreamCut(Cut):
    """The stream ended without its answer finishing: the reason, for ``cut`` and the log.

    ``refused`` says the service never took the stream (REFUSED_STREAM, or a
    GOAWAY naming an earlier last stream), so it may go elsewhere unchanged.
    """

    def __init__(self, why: str, *, refused: bool = False) -> None:
        super().__init__(why)
        self.refused = refused


# What a stream's queue carries: a chunk and its flow-controlled size, the end (None), a cut.
_Chunk = tuple[bytes, int] | StreamCut | None


class H2Stream:
    """One request's stream: its response head, then its body's chunks, then the end or a cut."""

    def __init__(self, connection: H2Connection, stream_id: int) -> None:
        self.connection = connection
        self.id = stream_id
        self.head: asyncio.Future[list[tuple[str, str]]] = connection.loop.create_future()
        self.chunks: asyncio.Queue[_Chunk] = asyncio.Queue()
        self.trailers: dict[str, str] = {}
        self.closed = False

    def fail(self, why: StreamCut) -> None:
        """End the stream with WHY: the head's waiter and the body's reader both see it."""
        if self.closed:
            return
        self.closed = True
        if not self.head.done():
            self.head.set_exception(why)
            self.head.exception()  # seen here: nobody may be waiting on the head yet
        self.chunks.put_nowait(why)


class H2State(enum.Enum):
    """Where an HTTP/2 connection is (httpcore's ``HTTPConnectionState`` is the model).

    ``dead`` keeps why it left ``ACTIVE``, for the streams it cuts.
    """

    # Takes new streams.
    ACTIVE = "active"
    # The service sent GOAWAY: no new stream; those in flight are cut or finish.
    GOAWAY = "goaway"
    # Ended: every stream cut, the tasks stopped, the socket closed.
    CLOSED = "closed"


class H2Connection:
    """A client HTTP/2 connection: open streams on it, send their data, read their answers."""

    def __init__(
        self,
        dialed: Dialed,
        authority: str,
        scheme: str,
        *,
        ping_seconds: float,
        ping_timeout: float = limits.H2_PING_TIMEOUT_SECONDS,
        idle_seconds: float = 0.0,
    ) -> None:
        self.loop = asyncio.get_running_loop()
        self.reader = dialed.reader
        self.writer = dialed.writer
        self.how = dialed.how
        self.authority = authority
        self.scheme = scheme
        self.ping_seconds = ping_seconds
        self.ping_timeout = ping_timeout
        self.idle_seconds = idle_seconds  # 0: never closed for idleness here
        config = h2.config.H2Configuration(client_side=True, header_encoding="utf-8")
        self.h2 = h2.connection.H2Connection(config=config)
        self.h2.local_settings = h2.settings.Settings(
            client=True,
            initial_values={
                h2.settings.SettingCodes.ENABLE_PUSH: 0,
                h2.settings.SettingCodes.INITIAL_WINDOW_SIZE: limits.H2_STREAM_WINDOW,
                h2.settings.SettingCodes.MAX_HEADER_LIST_SIZE: 64 * 1024,
            },
        )
        self.h2.initiate_connection()
        self.h2.increment_flow_control_window(limits.H2_CONNECTION_WINDOW - 65535)
        self.streams: dict[int, H2Stream] = {}
        # Set whenever a window may have opened (WINDOW_UPDATE, SETTINGS, a stream gone).
        self._window = asyncio.Event()
        self._write_lock = asyncio.Lock()
        self.state = H2State.ACTIVE
        self.dead: str | None = None  # why the connection is over, once it is
        self.idle_since = time.monotonic()
        self._pong = asyncio.Event()
        self._pings = 0
        self.streams_opened = 0
        self._flush_pending = False  # a _flush is scheduled for the end of this loop turn
        self._pending_since = 0.0  # when the frames it will write began to wait
        self._flush()
        self._tasks = [
            self.loop.create_task(self._read_loop(), name="cursor-h2-read"),
        ]
        if ping_seconds > 0:
            self._tasks.append(self.loop.create_task(self._ping_loop(), name="cursor-h2-ping"))
        if idle_seconds > 0:
            self._tasks.append(self.loop.create_task(self._idle_loop(), name="cursor-h2-idle"))

    def __repr__(self) -> str:
        return f"H2Connection({self.scheme}://{self.authority}, streams={len(self.streams)})"

    @property
    def active(self) -> bool:
        """Return whether the connection is ``H2State.ACTIVE`` (no GOAWAY, not ended)."""
        return self.state is H2State.ACTIVE

    @property
    def usable(self) -> bool:
        """Return whether a new stream may go on this connection (no GOAWAY, alive, ids left)."""
        if self.state is not H2State.ACTIVE or self.loop.is_closed():
            return False
        return self.h2.highest_outbound_stream_id is None or (
            self.h2.highest_outbound_stream_id < 2**31 - 1000
        )

    # --- streams ------------------------------------------------------------------

    async def open_stream(self, headers: list[tuple[str, str]]) -> H2Stream:
        """Return a new stream whose request head (HEADERS, body to follow) has gone out."""
        if not self.usable:
            raise StreamCut(self.dead or "the connection took no new stream (GOAWAY)")
        stream_id = self.h2.get_next_available_stream_id()
        stream = H2Stream(self, stream_id)
        self.streams[stream_id] = stream
        self.streams_opened += 1
        full = [
            (":method", "POST"),
            (":scheme", self.scheme),
            (":authority", self.authority),
            *headers,
        ]
        try:
            with mapped(Step.STREAM):
                self.h2.send_headers(stream_id, full)
        except Cut as cut:
            self.streams.pop(stream_id, None)
            raise StreamCut(f"the stream could not open: {cut}") from None
        await self._drain(soon=True)
        return stream

    async def send_data(self, stream: H2Stream, data: bytes) -> None:
        """Send DATA on STREAM as its windows allow; a Cut when the stream is over."""
        view = memoryview(data)
        while view:
            if stream.closed or self.state is not H2State.ACTIVE:
                raise StreamCut(self.dead or "the stream is over")
            with mapped(Step.STREAM):  # h2 refusing: the stream is over
                window = self.h2.local_flow_control_window(stream.id)
            size = min(window, self.h2.max_outbound_frame_size, len(view))
            if size <= 0:
                # The service has not opened the window yet: wait for its WINDOW_UPDATE.
                self._window.clear()
                await self._window.wait()
                continue
            with mapped(Step.STREAM):
                self.h2.send_data(stream.id, bytes(view[:size]))
            view = view[size:]
            await self._drain(soon=len(data) <= _COALESCE_BYTES)

    def end_stream(self, stream: H2Stream) -> None:
        """Close our half of STREAM (END_STREAM); nothing if it is already over."""
        with contextlib.suppress(Cut), mapped(Step.STREAM):
            self.h2.end_stream(stream.id)
            self._flush_soon()

    def release(self, stream: H2Stream) -> None:
        """Forget STREAM, resetting it (CANCEL) when it is still open; safe to call twice."""
        if self.streams.pop(stream.id, None) is None:
            return
        if not stream.closed:
            stream.closed = True
            with contextlib.suppress(Cut), mapped(Step.STREAM):
                self.h2.reset_stream(stream.id, h2.errors.ErrorCodes.CANCEL)
                self._flush()
        if not self.streams:
            self.idle_since = time.monotonic()
        self._window.set()

    def consumed(self, stream: H2Stream, size: int) -> None:
        """Give SIZE received bytes of STREAM back to the service's windows (WINDOW_UPDATE)."""
        if size <= 0 or self.state is not H2State.ACTIVE:
            return
        with contextlib.suppress(Cut), mapped(Step.STREAM):
            self.h2.acknowledge_received_data(size, stream.id)
            self._flush_soon()

    # --- the connection -----------------------------------------------------------

    def abort(self, why: str = "the connection was closed") -> None:
        """End the connection at once: every stream is cut, the tasks stop, the socket closes."""
        if self.dead is None:
            self.dead = why
        self.state = H2State.CLOSED
        for stream in list(self.streams.values()):
            stream.fail(StreamCut(why))
        self._window.set()
        for task in self._tasks:
            task.cancel()
        with contextlib.suppress(Exception):
            self.writer.transport.abort()

    async def aclose(self) -> None:
        """Say GOAWAY, end the connection and wait for its tasks (returns nothing)."""
        if self.state is H2State.ACTIVE:
            with contextlib.suppress(Exception):
                self.h2.close_connection()
                self._flush()
        self.abort()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    def _flush(self) -> None:
        """Hand h2's pending bytes to the socket (returns nothing)."""
        self._flush_pending = False
        data = self.h2.data_to_send()
        if data and self.state is H2State.ACTIVE:
            self.writer.write(data)

    def _flush_soon(self) -> None:
        """Flush once this turn of the event loop is over, with what other streams add.

        A burst of rounds answers many streams in one turn (one socket read woke
        them all): their frames then go out as one write, not one each, held at
        most ``_COALESCE_SECONDS``.
        """
        if not self._flush_pending:
            self._flush_pending = True
            self._pending_since = time.monotonic()
            self.loop.call_soon(self._flush)
        elif time.monotonic() - self._pending_since > _COALESCE_SECONDS:
            self._flush()  # the scheduled one then finds nothing left, or what came since

    async def _drain(self, *, soon: bool = False) -> None:
        """Flush (now, or SOON: with this turn's other frames), then wait until the socket
        took the bytes (one waiter at a time)."""
        if soon:
            self._flush_soon()
        else:
            self._flush()
        async with self._write_lock:
            try:
                with mapped(Step.STREAM):
                    await self.writer.drain()
            except Cut as cut:
                self.abort(f"the connection failed: {cut}")
                raise StreamCut(self.dead or "the connection failed") from None

    async def _read_loop(self) -> None:
        """Read the socket and dispatch h2's events until the connection ends."""
        why = "the service closed the connection"
        try:
            with mapped(Step.STREAM):
                while True:
                    data = await self.reader.read(_READ_SIZE)
                    if not data:
                        break
                    events = self.h2.receive_data(data)
                    self._dispatch(events)
                    self._flush()
                    if self.state is H2State.GOAWAY:
                        why = self.dead or "the service sent GOAWAY"
                        break
        except Cut as cut:
            why = f"the connection failed: {cut}"
        finally:
            # Cancelled (the pool closing, the loop ending) or over: nothing more comes.
            self.abort(self.dead or why)

    def _dispatch(self, events: Iterable[h2.events.Event]) -> None:
        """Hand each of h2's EVENTS to its stream or to the connection.

        A stream's DATA of one socket read goes over as one chunk (joined, sizes
        summed): the run then decodes, delivers and acknowledges once per read
        rather than once per frame, as over HTTP/1.1.
        """
        # Per stream, the DATA of this read not yet handed over, in order.
        data: dict[H2Stream, tuple[list[bytes], int]] = {}
        for event in events:
            if type(event) is h2.events.DataReceived:
                stream = self.streams.get(event.stream_id or 0)
                size = event.flow_controlled_length or 0
                if stream is None or stream.closed:
                    # A stream we no longer read: give its window straight back.
                    with contextlib.suppress(Cut), mapped(Step.STREAM):
                        self.h2.acknowledge_received_data(size, event.stream_id or 0)
                    continue
                held = data.get(stream)
                if held is None:
                    data[stream] = ([event.data or b""], size)
                else:
                    held[0].append(event.data or b"")
                    data[stream] = (held[0], held[1] + size)
                continue
            if data:
                # What comes next (the stream's end or reset, a GOAWAY) follows the data.
                stream_id = getattr(event, "stream_id", None)
                found = self.streams.get(stream_id) if stream_id else None
                if found is None:
                    for held_stream, (pieces, size) in data.items():
                        _hand_over(held_stream, pieces, size)
                    data.clear()
                elif found in data:
                    _hand_over(found, *data.pop(found))
            if isinstance(event, h2.events.ResponseReceived):
                stream = self.streams.get(event.stream_id or 0)
                if stream is not None and not stream.head.done():
                    stream.head.set_result(_text_headers(event.headers))
            elif isinstance(event, h2.events.TrailersReceived):
                stream = self.streams.get(event.stream_id or 0)
                if stream is not None:
                    stream.trailers = dict(_text_headers(event.headers))
            elif isinstance(event, h2.events.StreamEnded):
                stream = self.streams.get(event.stream_id or 0)
                if stream is not None and not stream.closed:
                    stream.closed = True
                    stream.chunks.put_nowait(None)
            elif isinstance(event, h2.events.StreamReset):
                stream = self.streams.get(event.stream_id or 0)
                if stream is not None:
                    code = _code_name(event.error_code)
                    refused = event.error_code == h2.errors.ErrorCodes.REFUSED_STREAM
                    why = f"the service reset the stream ({code})"
                    stream.fail(StreamCut(why, refused=refused))
            elif isinstance(event, h2.events.ConnectionTerminated):
                self._goaway(event)
            elif isinstance(event, h2.events.PingAckReceived):
                self._pong.set()
            elif isinstance(event, h2.events.WindowUpdated | h2.events.RemoteSettingsChanged):
                self._window.set()
        for stream, (pieces, size) in data.items():
            _hand_over(stream, pieces, size)

    def _goaway(self, event: h2.events.ConnectionTerminated) -> None:
        """Take no new stream; cut the streams in flight, as h2 ends the connection here."""
        self.state = H2State.GOAWAY
        code = _code_name(event.error_code)
        last = event.last_stream_id or 0
        self.dead = f"the service sent GOAWAY ({code}, last stream {last})"
        log.debug("HTTP/2 connection to %s: %s", self.authority, self.dead)
        for stream in list(self.streams.values()):
            if stream.id > last:
                why = f"the service sent GOAWAY ({code}) before taking the stream"
                stream.fail(StreamCut(why, refused=True))
            else:
                stream.fail(StreamCut(f"the connection went away mid-answer: GOAWAY ({code})"))

    async def _idle_loop(self) -> None:
        """Close the connection once it has carried no stream for ``idle_seconds``.

        Without this a pooled connection nobody uses would stay open (its PINGs
        keep it alive) until the next round happened to look at it.
        """
        while self.state is H2State.ACTIVE:
            wait = self.idle_seconds
            if not self.streams:
                wait = self.idle_since + self.idle_seconds - time.monotonic()
                if wait <= 0:
                    log.debug("HTTP/2 connection to %s was idle; closing it", self.authority)
                    with contextlib.suppress(Exception):
                        self.h2.close_connection()
                        self._flush()
                    self.abort("the connection was idle")
                    return
            await asyncio.sleep(wait)

    async def _ping_loop(self) -> None:
        """PING the service every period; one unanswered for ``ping_timeout`` ends it all."""
        period = self.ping_seconds
        while self.state is H2State.ACTIVE:
            await asyncio.sleep(period)
            self._pong.clear()
            self._pings += 1
            try:
                with mapped(Step.STREAM):
                    self.h2.ping(self._pings.to_bytes(8, "big"))
                    self._flush()
            except Cut:
                return
            try:
                async with asyncio.timeout(self.ping_timeout):
                    await self._pong.wait()
            except TimeoutError:
                log.debug("HTTP/2 connection to %s missed a PING; closing it", self.authority)
                self.abort("the connection stopped answering PINGs")
                return


def _hand_over(stream: H2Stream, pieces: list[bytes], size: int) -> None:
    """Queue PIECES (one read's DATA of STREAM, SIZE bytes flow-controlled) as one chunk."""
    if not stream.closed:
        stream.chunks.put_nowait((pieces[0] if len(pieces) == 1 else b"".join(pieces), size))


def _text_headers(headers: Any) -> list[tuple[str, str]]:
    """Return HEADERS as (name, value) text pairs, names lower-cased."""
    found: list[tuple[str, str]] = []
    for name, value in headers or ():
        text_name = name.decode("latin-1") if isinstance(name, bytes) else str(name)
        text_value = value.decode("latin-1") if isinstance(value, bytes) else str(value)
        found.append((text_name.lower(), text_value))
    return found


def _code_name(code: Any) -> str:
    """Return an HTTP/2 error code's name (``CANCEL``) or its number."""
    name = getattr(code, "name", None)
    return str(name) if name else str(code)
