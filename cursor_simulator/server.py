"""The simulator's HTTP/1.1 server: h11 over real sockets on loopback, one thread per connection.

It knows nothing of Cursor. It parses requests with h11, hands each one to the
handler routed for its path, and writes the answer: a whole body, or a
streamed one sent chunk by chunk as the handler yields it (really chunked, not
buffered), ended by trailers when the handler raises ``Trailers``. A handler
can cut the connection mid-answer (``Cut``) to inject a fault. A connection
opening with HTTP/2's preface, or choosing h2 by ALPN on the TLS port
``listen_tls`` opens, is handed to ``h2server.py``. The Cursor-shaped route
families live beside this module (``agent.py`` and the others ``family.py``
names), installed by ``Simulator`` in ``__init__.py``.
"""

from __future__ import annotations

import contextlib
import json
import logging
import select
import socket
import ssl
import struct
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import h11

from .exchange import PREFACE, Cut, SimRequest, SimResponse, Trailers

__all__ = ["Cut", "HttpServer", "SimRequest", "SimResponse", "Trailers"]

log = logging.getLogger("cursor_simulator")

_READ_SIZE = 65536
# Bodies larger than this are refused; the cell never sends one, and a test
# server must not be made to hold gigabytes.
_MAX_BODY = 256 * 1024 * 1024


Handler = Callable[[SimRequest], SimResponse]


class HttpServer:
    """A threaded server on 127.0.0.1 (HTTP/1.1 here, HTTP/2 via ``h2``); routes by exact path."""

    def __init__(
        self, *, host: str = "127.0.0.1", port: int = 0, max_records: int | None = None
    ) -> None:
        """Bind HOST:PORT now (0 picks a port); accept connections only once started."""
        self._routes: dict[str, Handler] = {}
        self._fallback: Handler = _not_found
        self._listener = socket.create_server((host, port))
        self._listener.settimeout(0.2)
        self.host, self.port = self._listener.getsockname()[:2]
        self._stop = threading.Event()
        self._threads: set[threading.Thread] = set()
        self._socks: set[socket.socket] = set()
        self._lock = threading.Lock()
        self._acceptor: threading.Thread | None = None
        self.requests: list[SimRequest] = []
        # Told of every request recorded and every handler's answer: what a test waits on.
        self._changed = threading.Condition()
        # Tests read every request; a long-lived simulator keeps only the newest.
        self.max_records = max_records
        # Connections accepted so far (a test counts how many a client opened).
        self.accepted = 0
        # HTTP/2 (h2server.py): a connection opening with the preface, or choosing h2
        # by ALPN on the TLS port, is served there.
        from .h2server import H2Side

        self.h2 = H2Side(self)
        self._tls_listener: socket.socket | None = None
        self._tls: ssl.SSLContext | None = None
        self.tls_port: int | None = None

    @property
    def url(self) -> str:
        """Return the server's base URL."""
        return f"http://{self.host}:{self.port}"

    @property
    def stopping(self) -> bool:
        """Return whether the server is shutting down (long handlers should give up)."""
        return self._stop.is_set()

    def wait_stopping(self, seconds: float) -> bool:
        """Return whether the server is shutting down, waiting up to SECONDS for it."""
        return self._stop.wait(seconds)

    def route(self, path: str, handler: Handler) -> None:
        """Serve ``path`` with ``handler`` (replacing any earlier one)."""
        self._routes[path] = handler

    def start(self) -> None:
        """Start accepting connections in a background thread."""
        self._acceptor = threading.Thread(
            target=self._accept_loop, args=(self._listener, None), name="sim-accept", daemon=True
        )
        self._acceptor.start()

    def listen_tls(self, context: ssl.SSLContext) -> str:
        """Also serve TLS with CONTEXT on a port of its own (ALPN picks h2); return its URL."""
        listener = socket.create_server((self.host, 0))
        listener.settimeout(0.2)
        self._tls_listener, self._tls = listener, context
        self.tls_port = listener.getsockname()[1]
        thread = threading.Thread(
            target=self._accept_loop, args=(listener, context), name="sim-accept-tls", daemon=True
        )
        with self._lock:
            self._threads.add(thread)
        thread.start()
        return f"https://localhost:{self.tls_port}"

    def record(self, request: SimRequest) -> None:
        """Keep REQUEST among those received (the newest max_records of them)."""
        self.requests.append(request)
        if self.max_records is not None and len(self.requests) > self.max_records:
            del self.requests[: len(self.requests) - self.max_records]
        self._told()

    def wait_until(self, done: Callable[[], bool], seconds: float) -> bool:
        """Return whether DONE() holds, looked at again as each request comes or is answered
        (a handler's work is done by then), for up to SECONDS."""
        with self._changed:
            return self._changed.wait_for(done, seconds)

    def _told(self) -> None:
        """Wake what waits in ``wait_until`` (returns nothing)."""
        with self._changed:
            self._changed.notify_all()

    def handle(self, request: SimRequest) -> SimResponse:
        """Return the routed handler's answer to REQUEST (a 500 when the handler fails)."""
        handler = self._routes.get(request.path, self._fallback)
        try:
            return handler(request)
        except Exception:
            log.exception("simulator handler failed for %s", request.path)
            return SimResponse(500, {"content-type": "text/plain"}, b"handler failed")
        finally:
            self._told()

    def stop(self) -> None:
        """Stop accepting, close every connection and join every thread."""
        self._stop.set()
        # A connection of our own wakes the acceptor at once instead of at its next poll.
        with contextlib.suppress(OSError), socket.create_connection((self.host, self.port), 1):
            pass
        if self._acceptor is not None:
            self._acceptor.join(5)
        self._listener.close()
        if self._tls_listener is not None:
            self._tls_listener.close()
        with self._lock:
            socks = list(self._socks)
            threads = list(self._threads)
        for sock in socks:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
        for thread in threads:
            thread.join(5)

    def _accept_loop(self, listener: socket.socket, tls: ssl.SSLContext | None) -> None:
        """Accept connections until stopped, one serving thread each (returns nothing)."""
        while not self._stop.is_set():
            try:
                sock, _ = listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            with self._lock:
                self.accepted += 1
            # Named "sim-…" so leak checks can tell the simulator's threads from a test's.
            thread = threading.Thread(
                target=self._serve, args=(sock, tls), name=f"sim-conn-{self.port}", daemon=True
            )
            with self._lock:
                self._socks.add(sock)
                self._threads.add(thread)
            thread.start()

    def _serve(self, sock: socket.socket, tls: ssl.SSLContext | None = None) -> None:
        """Serve requests on one connection until it closes or the server stops."""
        conn = h11.Connection(h11.SERVER, max_incomplete_event_size=_MAX_BODY)
        try:
            if tls is not None:
                sock.settimeout(10)
                plain = sock
                sock = tls.wrap_socket(sock, server_side=True)
                sock.settimeout(None)
                with self._lock:
                    self._socks.discard(plain)
                    self._socks.add(sock)
                if sock.selected_alpn_protocol() == "h2":
                    self.h2.serve(sock)
                    return
            elif _speaks_h2(sock):
                self.h2.serve(sock)
                return
            while not self._stop.is_set():
                request = self._read_request(conn, sock)
                if request is None:
                    return
                self.record(request)
                response = self.handle(request)
                if not self._write_response(conn, sock, response):
                    return
                if conn.our_state is h11.MUST_CLOSE or conn.their_state is h11.MUST_CLOSE:
                    return
                try:
                    conn.start_next_cycle()
                except h11.LocalProtocolError:
                    return
        except (OSError, h11.RemoteProtocolError, ssl.SSLError):
            return
        finally:
            with contextlib.suppress(OSError):
                sock.close()
            with self._lock:
                self._socks.discard(sock)
                self._threads.discard(threading.current_thread())

    def _read_request(self, conn: h11.Connection, sock: socket.socket) -> SimRequest | None:
        """Return the next whole request on the connection, or None when it ended."""
        head: h11.Request | None = None
        body = bytearray()
        while True:
            event = conn.next_event()
            if event is h11.NEED_DATA:
                try:
                    data = sock.recv(_READ_SIZE)
                except OSError:
                    return None
                conn.receive_data(data)
                if not data and head is None:
                    return None
                continue
            if isinstance(event, h11.Request):
                head = event
            elif isinstance(event, h11.Data):
                body += event.data
                if len(body) > _MAX_BODY:
                    return None
            elif isinstance(event, h11.EndOfMessage):
                assert head is not None
                headers = {k.decode().lower(): v.decode("latin-1") for k, v in head.headers}
                return SimRequest(
                    head.method.decode(), head.target.decode(), headers, bytes(body), sock
                )
            else:  # ConnectionClosed or PAUSED
                return None

    def _write_response(
        self, conn: h11.Connection, sock: socket.socket, response: SimResponse
    ) -> bool:
        """Send RESPONSE (a streamed body chunk by chunk); return whether the connection lives."""
        headers = list(response.headers.items())
        body = response.body
        if isinstance(body, bytes | bytearray):
            headers.append(("content-length", str(len(body))))
        head = h11.Response(status_code=response.status, headers=headers)
        try:
            sock.sendall(conn.send(head) or b"")
            if not isinstance(body, bytes | bytearray):
                chunks: Iterator[bytes] = iter(body)
                try:
                    for chunk in chunks:
                        if chunk:
                            sock.sendall(conn.send(h11.Data(data=chunk)) or b"")
                except Cut as cut:
                    _abort(sock, reset=cut.reset)
                    return False
                except Trailers as ending:
                    trailers = list(ending.headers.items())
                    sock.sendall(conn.send(h11.EndOfMessage(headers=trailers)) or b"")
                    return True
                finally:
                    close = getattr(chunks, "close", None)
                    if close is not None:
                        close()
            elif body:
                sock.sendall(conn.send(h11.Data(data=bytes(body))) or b"")
            sock.sendall(conn.send(h11.EndOfMessage()) or b"")
        except OSError:
            return False
        return True


def _speaks_h2(sock: socket.socket) -> bool:
    """Return whether the connection opens with the HTTP/2 preface (prior knowledge)."""
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        readable, _, _ = select.select([sock], [], [], 0.2)
        if not readable:
            continue
        seen = sock.recv(len(PREFACE), socket.MSG_PEEK)
        if not seen or not PREFACE.startswith(seen):
            return False
        if len(seen) == len(PREFACE):
            return True
        time.sleep(0.001)  # part of the preface so far: wait for the rest
    return False


def _abort(sock: socket.socket, *, reset: bool) -> None:
    """Cut the connection: an orderly shutdown, or a TCP reset when RESET (returns nothing)."""
    with contextlib.suppress(OSError):
        if reset:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        else:
            sock.shutdown(socket.SHUT_RDWR)
        sock.close()


def _not_found(request: SimRequest) -> SimResponse:
    """Return the Connect error for a path no route serves."""
    body = b'{"code":"unimplemented","message":"no such route in the simulator"}'
    return SimResponse(404, {"content-type": "application/json"}, body)


def json_response(status: int, obj: Any) -> SimResponse:
    """Return a JSON answer."""
    body = json.dumps(obj, separators=(",", ":")).encode()
    return SimResponse(status, {"content-type": "application/json"}, body)
