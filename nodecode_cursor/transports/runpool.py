"""The cell's pool of HTTP/2 connections, and which transport last worked per base URL.

``RunConnections`` (kept on ``CellState``) holds one connection per base URL,
account and proxy on each event loop, shared by concurrent rounds as separate
streams. A connection that got GOAWAY, failed or missed a PING takes no new
stream, so the next round dials a new one; one idle for
``limits.H2_IDLE_SECONDS`` closes itself (and the pool drops it). It also
remembers, per base URL, the transport that last carried a run there
(``run_route.open_run``'s ``auto`` reads it), and keeps Cursor's
``GetServerConfig`` answers (``server_config.ServerConfigs``). ``close`` ends
every connection, from any thread; a pool dropped without it ends them too, so
a throwaway state keeps no socket. Importing this module stays cheap (no
``h2``, no ``httpx``): the connection code loads with the first HTTP/2 run.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import threading
import time
import weakref
from typing import TYPE_CHECKING

from .. import limits
from ..account.server_config import ServerConfigs
from ..errors import ProviderError

if TYPE_CHECKING:
    from .h2conn import H2Connection

__all__ = ["ConnectionKey", "RunConnections"]

log = logging.getLogger(__name__)

# (base URL without a trailing slash, SHA-256 hex digest of the token, proxy URL or "").
ConnectionKey = tuple[str, str, str]


class RunConnections:
    """The pool of HTTP/2 connections and the transport that last worked per base URL.

    ``lock`` guards the dictionaries; connections are used only on their own loop.
    """

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.closed = False
        # Per running loop, the connection per key: an asyncio socket lives on one loop.
        self._by_loop: weakref.WeakKeyDictionary[
            asyncio.AbstractEventLoop, dict[ConnectionKey, H2Connection]
        ] = weakref.WeakKeyDictionary()
        # Per loop and key, the connect in flight: concurrent rounds wait on one dial.
        # None tells the waiters the dialing round was cancelled: one of them dials anew.
        self._dialing: dict[tuple[int, ConnectionKey], asyncio.Future[H2Connection | None]] = {}
        # Per base URL, the transport ("http2", "sse", "poll") that last carried a run.
        self.worked: dict[str, str] = {}
        # Every connection made, so close (or the pool's end) can reach each one.
        self._all: list[H2Connection] = []
        self.ping_seconds = limits.H2_PING_SECONDS
        self.ping_timeout_seconds = limits.H2_PING_TIMEOUT_SECONDS
        # Cursor's GetServerConfig answers, per base URL and account, for 30 s.
        self.server_configs = ServerConfigs()
        self.idle_seconds = limits.H2_IDLE_SECONDS
        self.opened = 0
        weakref.finalize(self, _abort_all, self._all)

    @staticmethod
    def key(base_url: str, token: str, proxy: str | None) -> ConnectionKey:
        """Return the pool key of a run: base URL, the account's digest, the proxy."""
        digest = hashlib.sha256(token.encode()).hexdigest()
        return (base_url.rstrip("/"), digest, proxy or "")

    def remembered(self, base_url: str) -> str | None:
        """Return the transport that last carried a run to BASE_URL, or None."""
        with self.lock:
            return self.worked.get(base_url.rstrip("/"))

    def remember(self, base_url: str, route: str) -> None:
        """Note ROUTE as the transport that carried a run to BASE_URL (returns nothing)."""
        with self.lock:
            if not self.closed:
                self.worked[base_url.rstrip("/")] = route

    async def acquire(
        self, key: ConnectionKey, proxy: str | None, *, connect_timeout: float
    ) -> H2Connection:
        """Return a usable connection for KEY: the pooled one, or one dialed now (shared)."""
        loop = asyncio.get_running_loop()
        while True:
            with self.lock:
                if self.closed:
                    raise _stopped()
                pooled = self._by_loop.setdefault(loop, {})
                self._evict_idle(pooled)
                found = pooled.get(key)
                if found is not None and found.usable:
                    return found
                if found is not None:
                    del pooled[key]
                dialing = self._dialing.get((id(loop), key))
                if dialing is None:
                    dialing = loop.create_future()
                    self._dialing[(id(loop), key)] = dialing
                    owner = True
                else:
                    owner = False
            if not owner:
                # shield: a waiter cancelled must not cancel the dial the others wait on.
                await asyncio.shield(dialing)
                continue
            try:
                connection = await self._open(key, proxy, connect_timeout)
            except BaseException as exc:
                with self.lock:
                    self._dialing.pop((id(loop), key), None)
                if not dialing.done():
                    if isinstance(exc, Exception):
                        dialing.set_exception(exc)
                        dialing.exception()  # seen here: there may be no waiter
                    else:
                        dialing.set_result(None)
                raise
            with self.lock:
                self._dialing.pop((id(loop), key), None)
                if self.closed:
                    connection.abort("the cell stopped")
                    raise _stopped()
                self._by_loop.setdefault(loop, {})[key] = connection
                self._all.append(connection)
                self._all[:] = [c for c in self._all if c.active]
            dialing.set_result(connection)
            return connection

    async def _open(
        self, key: ConnectionKey, proxy: str | None, connect_timeout: float
    ) -> H2Connection:
        """Return a new connection for KEY."""
        # Deferred: CursorCell.start loads this module and must stay cheap (h2, the dialer).
        from .h2conn import H2Connection
        from .h2dial import dial, split_url

        base_url = key[0]
        scheme, host, port = split_url(base_url)
        dialed = await dial(base_url, proxy, connect_timeout=connect_timeout)
        default = 443 if scheme == "https" else 80
        authority = host if port == default else f"{host}:{port}"
        connection = H2Connection(
            dialed,
            authority,
            scheme,
            ping_seconds=self.ping_seconds,
            ping_timeout=self.ping_timeout_seconds,
            idle_seconds=self.idle_seconds,
        )
        self.opened += 1
        log.debug("HTTP/2 connection to %s opened: %s", base_url, dialed.how)
        return connection

    def _evict_idle(self, pooled: dict[ConnectionKey, H2Connection]) -> None:
        """Close pooled connections with no stream for the idle period (lock held)."""
        now = time.monotonic()
        for key, connection in list(pooled.items()):
            if not connection.streams and now - connection.idle_since > self.idle_seconds:
                del pooled[key]
                connection.abort("the connection was idle")

    def connections(self) -> list[H2Connection]:
        """Return every connection still open (for tests and the benchmark)."""
        with self.lock:
            return [c for c in self._all if c.active]

    def close(self) -> None:
        """Forget the memory and end every connection, from any thread (returns nothing)."""
        with self.lock:
            self.closed = True
            self.worked.clear()
            self.server_configs.clear()
            self._by_loop.clear()
            connections = list(self._all)
            self._all.clear()
        _abort_all(connections)

    async def aclose(self) -> None:
        """Close the pool and wait for this loop's connections to finish (returns nothing)."""
        loop = asyncio.get_running_loop()
        with self.lock:
            mine = [c for c in self._all if c.loop is loop]
        self.close()
        await asyncio.gather(*(c.aclose() for c in mine), return_exceptions=True)


def _abort_all(connections: list[H2Connection]) -> None:
    """End CONNECTIONS, each on its own loop (now when that is this thread's running loop)."""
    for connection in list(connections):
        loop = connection.loop
        if loop.is_closed():
            continue
        try:
            running: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is loop or not loop.is_running():
            connection.abort("the cell stopped")
        else:
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(connection.abort, "the cell stopped")


def _stopped() -> Exception:
    """Return the error for a run asking a pool the cell already closed."""
    return ProviderError("the cell stopped while the round was starting", status=503)
