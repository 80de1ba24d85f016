"""The simulator's HTTP/2 side: python-hyper's ``h2`` on one connection, a thread per stream.

``HttpServer`` hands a connection here when it speaks HTTP/2 (the cleartext
preface on its port, or ALPN ``h2`` on its TLS port). Two kinds of route:

* **bidi** routes (``Run``): the handler is called as soon as the request's
  head arrives and returns the answer plus a sink; every piece of the request
  body that arrives later goes to the sink while the answer streams, so a
  script can wait for the client's messages on the same stream.
* every other path is served by ``HttpServer``'s ordinary handler once the
  whole request body arrived.

One thread owns the socket (reads, writes, flow control; it reads all that has
arrived before it handles any); each stream's answer is produced in a thread of
its own, one of the connection's workers (started off the socket's thread, and
kept for the connection's next streams), and handed over through a queue. Knobs for
tests: ``window`` (the flow-control window the server grants, to make the
client wait for WINDOW_UPDATEs), ``goaway_after`` (send GOAWAY after that many
DATA frames and close), ``mute_after`` (after that many DATA frames, read and
send nothing more, PINGs included: a connection a middlebox dropped),
``faulty_connections`` (how many connections those two act on), and the
counts of connections, streams and PINGs served. It knows nothing of Cursor.
"""

from __future__ import annotations

import collections
import contextlib
import logging
import queue
import select
import socket
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol

import h2.config
import h2.connection
import h2.errors
import h2.events
import h2.exceptions
import h2.settings

from .exchange import PREFACE, Cut, SimRequest, SimResponse, Trailers

__all__ = ["PREFACE", "BidiHandler", "H2Request", "H2Side"]

log = logging.getLogger("cursor_simulator")

_READ_SIZE = 65536
_READ_BURST = 1 << 20  # at most this much read before the loop handles it


class HttpServer(Protocol):
    """What the HTTP/2 side needs of the server it belongs to (``server.HttpServer``)."""

    @property
    def stopping(self) -> bool:
        """Return whether the server is stopping."""
        ...

    def record(self, request: SimRequest) -> None:
        """Keep REQUEST among the requests the tests read."""
        ...

    def handle(self, request: SimRequest) -> SimResponse:
        """Return the routed handler's answer to REQUEST."""
        ...


# A bidi handler: the request's head in, the answer and the sink for the body's bytes out.
BidiHandler = Callable[[SimRequest], tuple[SimResponse, Callable[[bytes], None]]]


@dataclass
class H2Request(SimRequest):
    """A request on an HTTP/2 stream; gone once the client reset the stream or left."""

    gone: threading.Event = field(default_factory=threading.Event, repr=False)
    # ``gone`` wakes a sleeping player at once; a player waiting for a client
    # message looks at it this often (the connection thread's own period).
    poll_seconds: ClassVar[float] = 0.2

    def client_gone(self) -> bool:
        """Return whether the client reset the stream or the connection ended."""
        return self.gone.is_set()

    def wait_gone(self, seconds: float) -> bool:
        """Return whether the client left, waiting up to SECONDS for it (woken when it does)."""
        return self.gone.wait(seconds)


class _Stream:
    """One stream's state shared by the connection thread and the stream's thread."""

    def __init__(self, stream_id: int, request: H2Request) -> None:
        self.id = stream_id
        self.request = request
        self.body = bytearray()
        self.sink: Callable[[bytes], None] | None = None
        self.pending: list[bytes] = []  # body bytes that came before the sink
        self.lock = threading.Lock()
        # What the stream's thread produced, for the connection thread to send.
        self.out: collections.deque[tuple[str, Any]] = collections.deque()

    def feed(self, data: bytes) -> None:
        """Hand body bytes to the sink, or keep them until there is one."""
        with self.lock:
            if self.sink is None:
                self.pending.append(data)
                return
            self.sink(data)

    def set_sink(self, sink: Callable[[bytes], None]) -> None:
        """Install SINK and give it what came before it."""
        with self.lock:
            self.sink = sink
            for data in self.pending:
                sink(data)
            self.pending.clear()


class H2Side:
    """The HTTP/2 routes and knobs of one ``HttpServer``; serves each HTTP/2 connection."""

    def __init__(self, http: HttpServer) -> None:
        self.http = http
        self.bidi: dict[str, BidiHandler] = {}
        # The window (bytes) the server grants each stream; None keeps h2's 65,535.
        self.window: int | None = None
        # After this many DATA frames sent on a connection, GOAWAY and close it.
        self.goaway_after: int | None = None
        # After this many DATA frames sent on a connection, go silent: read nothing
        # more (no PING is answered) and send nothing more, until the client leaves.
        self.mute_after: int | None = None
        # How many connections goaway_after and mute_after act on (None: every one),
        # so a round cut on its first connection can go on on the next.
        self.faulty_connections: int | None = None
        self.connections = 0  # HTTP/2 connections served so far
        self.streams = 0  # streams opened by clients so far
        self.pings = 0  # PINGs received (h2 answers each at once)
        self.lock = threading.Lock()

    def route_bidi(self, path: str, handler: BidiHandler) -> None:
        """Serve PATH as a bidi stream with HANDLER."""
        self.bidi[path] = handler

    def serve(self, sock: socket.socket) -> None:
        """Serve one HTTP/2 connection until it ends (blocks; the caller's thread)."""
        with self.lock:
            self.connections += 1
            faulty = self.faulty_connections is None or self.faulty_connections > 0
            if self.faulty_connections is not None and self.faulty_connections > 0:
                self.faulty_connections -= 1
        _Connection(self, sock, faulty=faulty).run()


class _Workers:
    """The threads that produce one connection's answers, a stream's answer to a thread.

    ``Thread.start`` waits until the new thread runs: when a hundred streams open
    at once, the connection thread would spend milliseconds per stream waiting for
    the interpreter to hand over, reading and sending nothing meanwhile. Here the
    connection thread only queues the work. A worker left idle by an earlier stream
    takes it, or a spawner thread starts one more (and does the waiting).
    """

    def __init__(self, name: str) -> None:
        self.name = name
        self._jobs: queue.SimpleQueue[Callable[[], None] | None] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._settled = threading.Condition(self._lock)
        self._idle = 0  # workers waiting for a job that no queued job counts on yet
        self._busy = 0  # jobs queued or running
        self._threads: list[threading.Thread] = []
        self._closed = False
        self._spawns = threading.Semaphore(0)  # threads asked of the spawner
        self._spawner = threading.Thread(target=self._spawn, name=f"{name}-spawner", daemon=True)
        self._spawner.start()

    def submit(self, job: Callable[[], None]) -> None:
        """Run JOB in a worker thread of its own while it runs (returns at once)."""
        with self._lock:
            self._busy += 1
            spawn = not self._idle
            if not spawn:
                self._idle -= 1
        self._jobs.put(job)
        if spawn:
            self._spawns.release()

    def close(self, timeout: float) -> None:
        """Wait up to TIMEOUT seconds for the jobs to end, then for every thread to end."""
        deadline = time.monotonic() + timeout
        with self._lock:
            self._settled.wait_for(lambda: not self._busy, timeout)
            self._closed = True
        self._spawns.release()
        # Once the spawner is gone no thread starts, so the list below is every one.
        self._spawner.join(max(0.0, deadline - time.monotonic()))
        with self._lock:
            threads = list(self._threads)
        for _ in threads:
            self._jobs.put(None)
        for thread in threads:
            thread.join(max(0.0, deadline - time.monotonic()))

    def _spawn(self) -> None:
        """Start a worker each time one is asked for, until closed."""
        while True:
            self._spawns.acquire()
            with self._lock:
                if self._closed:
                    return
            thread = threading.Thread(target=self._work, name=self.name, daemon=True)
            thread.start()
            with self._lock:
                self._threads.append(thread)

    def _work(self) -> None:
        """Run queued jobs one after another until told to stop."""
        while True:
            job = self._jobs.get()
            if job is None:
                return
            try:
                job()
            except Exception:
                # This thread goes on to the next job: it is counted as idle below.
                log.exception("a simulator stream failed")
            finally:
                with self._lock:
                    self._busy -= 1
                    self._idle += 1
                    if not self._busy:
                        self._settled.notify_all()


class _Connection:
    """One HTTP/2 connection: the socket's only reader and writer."""

    def __init__(self, side: H2Side, sock: socket.socket, *, faulty: bool = True) -> None:
        self.side = side
        self.faulty = faulty  # whether the GOAWAY and mute knobs act on this connection
        self.muted = False
        self.sock = sock
        config = h2.config.H2Configuration(client_side=False, header_encoding="utf-8")
        self.h2 = h2.connection.H2Connection(config=config)
        self.streams: dict[int, _Stream] = {}
        self.workers = _Workers("sim-h2-stream")
        self.wake_r, self.wake_w = socket.socketpair()
        self.wake_w.setblocking(False)
        # The streams whose threads produced something since the connection thread last
        # looked (so it visits those, not every stream), and whether a wake-up byte is
        # already on its way (one is enough, however many streams produced).
        self.ready: dict[int, _Stream] = {}
        self.ready_lock = threading.Lock()
        self.woken = False
        # Streams whose next item waits for the flow-control window: tried every round.
        self.waiting: dict[int, _Stream] = {}
        self.data_frames = 0
        self.closing = False
        self.bidi_ids: set[int] = set()  # the streams a bidi handler answers

    def run(self) -> None:
        """Serve until the client leaves, the server stops or a GOAWAY knob fires."""
        try:
            self.h2.initiate_connection()
            if self.side.window is not None:
                # A change after the preface: h2 applies it once the client acknowledged
                # it, so data the client sent before is still within the old window.
                code = h2.settings.SettingCodes.INITIAL_WINDOW_SIZE
                self.h2.update_settings({code: self.side.window})
            self._flush()
            while not self.closing and not self.side.http.stopping:
                if self.muted:
                    # A dropped connection: what comes is thrown away unread by h2 (no
                    # PING is answered) and nothing is sent, until the client leaves.
                    readable, _, _ = select.select([self.sock], [], [], 0.2)
                    if (readable or self._pending_tls()) and not self.sock.recv(_READ_SIZE):
                        break
                    continue
                self._send_pending()
                self._flush()
                if self.closing:
                    break
                if not self._pending_tls():
                    readable, _, _ = select.select([self.sock, self.wake_r], [], [], 0.2)
                    if self.wake_r in readable:
                        with contextlib.suppress(OSError):
                            self.wake_r.recv(4096)
                    if self.sock not in readable:
                        continue
                data = self._read_all()
                if not data:
                    break
                self._handle(self.h2.receive_data(data))
                self._flush()
        except (OSError, h2.exceptions.ProtocolError, ValueError):
            pass
        finally:
            for stream in self.streams.values():
                stream.request.gone.set()
            self._wake()
            self.workers.close(5)
            with contextlib.suppress(OSError):
                self.sock.close()
            self.wake_r.close()
            self.wake_w.close()

    def _read_all(self) -> bytes:
        """Return what the socket holds now, at most ``_READ_BURST`` bytes (b"" once it closed).

        A client answering many streams at once sends many small writes (over TLS, a
        record each); handled one read per turn of the loop, each would pay for a
        turn (a look at the streams, a select, a flush). Read together, they are
        parsed and acknowledged in one turn.
        """
        data = self.sock.recv(_READ_SIZE)
        if not data:
            return data
        parts = [data]
        size = len(data)
        while size < _READ_BURST:
            if not self._pending_tls():
                readable, _, _ = select.select([self.sock], [], [], 0)
                if not readable:
                    break
            more = self.sock.recv(_READ_SIZE)
            if not more:
                break  # closed: what came first is still handled; the next read sees it
            parts.append(more)
            size += len(more)
        return parts[0] if len(parts) == 1 else b"".join(parts)

    def _pending_tls(self) -> bool:
        """Return whether TLS already holds decrypted bytes select cannot see."""
        pending = getattr(self.sock, "pending", None)
        return bool(pending is not None and pending())

    def _flush(self) -> None:
        data = self.h2.data_to_send()
        if data:
            self.sock.sendall(data)

    def _wake(self) -> None:
        with contextlib.suppress(OSError):
            self.wake_w.send(b"x")

    def _ready(self, stream: _Stream) -> None:
        """Tell the connection thread STREAM has something to send (a stream's thread)."""
        with self.ready_lock:
            self.ready[stream.id] = stream
            if self.woken:
                return
            self.woken = True
        self._wake()

    # --- what the client sends -----------------------------------------------------

    def _handle(self, events: list[h2.events.Event]) -> None:
        for event in events:
            if isinstance(event, h2.events.RequestReceived):
                self._request(event.stream_id or 0, event.headers or [])
            elif isinstance(event, h2.events.DataReceived):
                stream = self.streams.get(event.stream_id or 0)
                size = event.flow_controlled_length or 0
                with contextlib.suppress(h2.exceptions.H2Error):
                    # Taken at once: the window reopens as the bytes arrive.
                    self.h2.acknowledge_received_data(size, event.stream_id or 0)
                if stream is not None and event.data:
                    if stream.id in self.bidi_ids:
                        stream.feed(event.data)
                    else:
                        stream.body += event.data
            elif isinstance(event, h2.events.StreamEnded):
                stream = self.streams.get(event.stream_id or 0)
                if stream is not None and stream.id not in self.bidi_ids:
                    self._start(stream, None)
            elif isinstance(event, h2.events.StreamReset):
                stream = self.streams.get(event.stream_id or 0)
                if stream is not None:
                    stream.request.gone.set()
            elif isinstance(event, h2.events.ConnectionTerminated):
                self.closing = True
            elif isinstance(event, h2.events.PingReceived):
                with self.side.lock:
                    self.side.pings += 1
            elif isinstance(event, h2.events.SettingsAcknowledged):
                self._reopen_windows()

    def _reopen_windows(self) -> None:
        """Give every open stream its whole window again once a smaller one took effect.

        A window made smaller (the ``window`` knob) applies when the client
        acknowledges it, and then counts what the client sent under the old one: a
        stream whose data was all taken before may be left below zero, and h2 only
        reopens a window as more data is taken, so nothing more would ever come. The
        simulator has taken every byte it acknowledged, so it reopens such a window
        to the whole new size.
        """
        size = self.h2.local_settings.initial_window_size
        for stream_id in list(self.streams):
            try:
                window = self.h2.streams[stream_id].inbound_flow_control_window
            except KeyError:
                continue
            if window <= 0:
                with contextlib.suppress(h2.exceptions.H2Error):
                    self.h2.increment_flow_control_window(size - window, stream_id=stream_id)

    def _request(self, stream_id: int, raw: Any) -> None:
        headers = {str(k).lower(): str(v) for k, v in raw}
        request = H2Request(
            method=headers.get(":method", ""),
            target=headers.get(":path", "/"),
            headers={k: v for k, v in headers.items() if not k.startswith(":")},
            body=b"",
        )
        stream = _Stream(stream_id, request)
        self.streams[stream_id] = stream
        with self.side.lock:
            self.side.streams += 1
        self.side.http.record(request)
        handler = self.side.bidi.get(request.path)
        if handler is not None:
            self.bidi_ids.add(stream_id)
            self._start(stream, handler)

    def _start(self, stream: _Stream, bidi: BidiHandler | None) -> None:
        """Produce STREAM's answer in a thread of its own (one of the connection's workers)."""
        self.workers.submit(lambda: self._answer(stream, bidi))

    # --- the answers (each in its stream's thread) ------------------------------------

    def _answer(self, stream: _Stream, bidi: BidiHandler | None) -> None:
        request = stream.request
        try:
            if bidi is not None:
                response, sink = bidi(request)
                stream.set_sink(sink)
            else:
                request.body = bytes(stream.body)
                response = self.side.http.handle(request)
        except Exception:
            log.exception("simulator handler failed for %s", request.path)
            response = SimResponse(500, {"content-type": "text/plain"}, b"handler failed")
        self._put(stream, "head", (response.status, dict(response.headers)))
        body = response.body
        if isinstance(body, bytes | bytearray):
            if body:
                self._put(stream, "data", bytes(body))
            self._put(stream, "end", None)
            return
        chunks: Iterator[bytes] = iter(body)
        try:
            for chunk in chunks:
                if request.gone.is_set():
                    return
                if chunk:
                    self._put(stream, "data", chunk)
            self._put(stream, "end", None)
        except Cut as cut:
            # An orderly cut ends the stream without its end frame; a reset resets it.
            self._put(stream, "reset" if cut.reset else "end", None)
        except Trailers as ending:
            self._put(stream, "trailers", dict(ending.headers))
        finally:
            close = getattr(chunks, "close", None)
            if close is not None:
                close()

    def _put(self, stream: _Stream, kind: str, value: Any) -> None:
        with stream.lock:
            stream.out.append((kind, value))
        self._ready(stream)

    # --- sending (the connection thread) --------------------------------------------

    def _send_pending(self) -> None:
        """Send what the streams produced, as far as the windows allow.

        Only the streams that produced something since the last look, and those
        waiting for a window, are visited, in the order they were opened.
        """
        with self.ready_lock:
            # Cleared before the streams are read: what is produced from now on wakes
            # the next select, so nothing waits for its timeout.
            self.woken = False
            ready, self.ready = self.ready, {}
        if self.waiting:
            ready.update(self.waiting)
            self.waiting.clear()
        for stream_id in sorted(ready):
            stream = ready[stream_id]
            if self.streams.get(stream_id) is not stream:
                continue  # over, its last item sent
            while True:
                with stream.lock:
                    if not stream.out:
                        break
                    kind, value = stream.out[0]
                sent = self._send_one(stream, kind, value)
                if self.closing or self.muted:
                    return
                if not sent:
                    self.waiting[stream_id] = stream
                    break
                with stream.lock:
                    stream.out.popleft()
                if kind in ("end", "reset", "trailers"):
                    self.streams.pop(stream.id, None)
                    self.bidi_ids.discard(stream.id)
                    break

    def _send_one(self, stream: _Stream, kind: str, value: Any) -> bool:
        """Send one produced item; return False when it must wait (window) or cannot go."""
        sid = stream.id
        try:
            if kind == "head":
                status, headers = value
                pairs = [(":status", str(status)), *((k.lower(), v) for k, v in headers.items())]
                self.h2.send_headers(sid, pairs)
            elif kind == "data":
                return self._send_data(stream, memoryview(value))
            elif kind == "end":
                self.h2.end_stream(sid)
            elif kind == "trailers":
                trailers: dict[str, str] = value
                self.h2.send_headers(sid, list(trailers.items()), end_stream=True)
            elif kind == "reset":
                self.h2.reset_stream(sid, h2.errors.ErrorCodes.INTERNAL_ERROR)
        except h2.exceptions.StreamClosedError:
            return True  # the client reset it: drop what was left
        except h2.exceptions.FlowControlError:
            return False
        return True

    def _send_data(self, stream: _Stream, data: memoryview) -> bool:
        """Send DATA as far as the flow-control window allows; return whether all of it went.

        One frame of at most the peer's frame size after another while the window
        lasts, so a large answer goes at the window's pace, not one frame per wake-up.
        What the window does not take stays first in the stream's queue (a view, not
        a copy) and waits for a WINDOW_UPDATE.
        """
        sid = stream.id
        at = 0
        while at < len(data):
            window = min(self.h2.local_flow_control_window(sid), self.h2.max_outbound_frame_size)
            if window <= 0:
                break
            self.h2.send_data(sid, bytes(data[at : at + window]))
            at += window
            self._count_frame()
            if self.closing or self.muted:
                break
        if at >= len(data):
            return True
        with stream.lock:
            stream.out[0] = ("data", data[at:])
        return False

    def _count_frame(self) -> None:
        """Count a DATA frame; past a knob, go silent (mute) or say GOAWAY and close."""
        self.data_frames += 1
        if not self.faulty:
            return
        mute = self.side.mute_after
        if mute is not None and self.data_frames >= mute:
            self._flush()
            self.muted = True
        limit = self.side.goaway_after
        if limit is not None and self.data_frames >= limit:
            self.h2.close_connection(error_code=h2.errors.ErrorCodes.NO_ERROR)
            self._flush()
            self.closing = True
