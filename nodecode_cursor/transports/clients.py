"""The cell's pooled HTTP/1.1 clients: per event loop, the run's pool and httpx clients.

A started cell keeps an ``HttpClients`` on its ``CellState``. Every RunSSE or
RunPoll stream, every BidiAppend and the pooled unary calls (the roster, the
catalog, the server config: ``http.unary``) of that state go through the loop's
``h1conn.H1Pool`` (``h1``), and any of them whose proxy the pool cannot use
through the loop's ``httpx.AsyncClient`` for that proxy (``client``), so rounds
reuse kept-alive connections and no round pays for building a client (its TLS
context alone is tens of milliseconds of blocking work).

A client belongs to the loop it was made on. When that loop shuts down —
``asyncio.run`` and ``asyncio.Runner`` finalise every open async generator in
``loop.shutdown_asyncgens`` — the pool's keeper for that loop (an async
generator parked at its ``yield``) closes the loop's clients on it, so a host
that runs each round on a fresh loop keeps no socket behind. The cell's stop
does not close them: a request still under way (a roster fetch landing after
the stop) must finish, and the loop's end closes them all.

The HTTP exchanges are ``h1conn.py``'s and httpx's; which requests go through
here is ``sse.py``'s and the unary calls' (``http.unary``).
"""

from __future__ import annotations

import asyncio
import logging
import threading
import weakref
from collections.abc import AsyncGenerator, Mapping
from typing import TYPE_CHECKING

from .. import limits

if TYPE_CHECKING:
    import httpx

    from .h1conn import H1Pool
    from .http import Answer

__all__ = ["HttpClients"]

log = logging.getLogger(__name__)


class _LoopClients:
    """One loop's clients by proxy ("" for none), its run pool, the keeper that closes them."""

    __slots__ = ("by_proxy", "h1", "keeper")

    def __init__(self) -> None:
        self.by_proxy: dict[str, httpx.AsyncClient] = {}
        self.h1: H1Pool | None = None
        self.keeper: AsyncGenerator[None, None] | None = None


async def _keep(entry: _LoopClients) -> AsyncGenerator[None, None]:
    """Park until the loop shuts down, then close ENTRY's clients on it."""
    try:
        yield
    finally:
        pool, entry.h1 = entry.h1, None
        if pool is not None:
            await pool.aclose()
        clients = list(entry.by_proxy.values())
        entry.by_proxy.clear()
        for client in clients:
            try:
                await client.aclose()
            except Exception:  # a client that fails to close must not stop the others
                log.debug("closing a pooled client failed", exc_info=True)


class HttpClients:
    """The pooled clients of one cell state; ``lock`` guards the table, not the clients."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.made = 0  # clients (run pools and httpx clients) built so far, for tests
        self._by_loop: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _LoopClients] = (
            weakref.WeakKeyDictionary()
        )

    async def h1(self) -> H1Pool:
        """Return the running loop's pool of HTTP/1.1 connections for the runs."""
        from .h1conn import H1Pool

        loop = asyncio.get_running_loop()
        with self.lock:
            entry = self._entry(loop)
            if entry.h1 is None or entry.h1.closed:
                entry.h1 = H1Pool()
                self.made += 1
            pool = entry.h1
            start = self._starts(entry)
        if start:
            await self._park(entry)
        return pool

    async def unary(
        self,
        url: str,
        headers: Mapping[str, str],
        content: bytes,
        timeout: float,
        proxy: str | None,
        max_bytes: int | None,
    ) -> Answer | None:
        """Return the answer to a unary POST on the loop's run pool; None when PROXY rules it out.

        ``http.unary`` then takes the loop's httpx client for PROXY instead.
        """
        from .h1conn import h1_route

        route = h1_route(url, proxy)
        if route is None:
            return None
        pool = await self.h1()
        return await pool.unary(route, url, headers, content, timeout, max_bytes)

    def _entry(self, loop: asyncio.AbstractEventLoop) -> _LoopClients:
        """Return LOOP's clients, made now if it has none yet (lock held)."""
        entry = self._by_loop.get(loop)
        if entry is None:
            entry = _LoopClients()
            self._by_loop[loop] = entry
        return entry

    @staticmethod
    def _starts(entry: _LoopClients) -> bool:
        """Return whether ENTRY's keeper is to be parked now (made here; lock held)."""
        if entry.keeper is not None:
            return False
        entry.keeper = _keep(entry)
        return True

    @staticmethod
    async def _park(entry: _LoopClients) -> None:
        """Park ENTRY's keeper at its yield: the loop finalises it (closing all) at shutdown."""
        assert entry.keeper is not None
        await entry.keeper.__anext__()

    async def client(self, proxy: str | None) -> httpx.AsyncClient:
        """Return the running loop's client for PROXY (the ``cursor.proxy`` setting or None).

        ConfigError for a proxy httpx cannot use, as ``http.proxied_client`` says.
        """
        # Deferred: CursorCell.start loads this module and must stay cheap (httpx).
        import httpx

        from .http import proxied_client

        loop = asyncio.get_running_loop()
        key = proxy or ""
        with self.lock:
            entry = self._entry(loop)
            found = entry.by_proxy.get(key)
            if found is not None and not found.is_closed:
                return found
            made = proxied_client(
                httpx.AsyncClient,
                proxy=proxy,
                http1=True,
                http2=False,
                # A run holds one connection for its stream and uses another for its
                # appends: the default cap of 100 would stall the 51st concurrent round.
                limits=httpx.Limits(
                    max_connections=None,
                    max_keepalive_connections=limits.POOL_KEEPALIVE_CONNECTIONS,
                    keepalive_expiry=limits.POOL_KEEPALIVE_SECONDS,
                ),
                timeout=httpx.Timeout(
                    limits.DEFAULT_REQUEST_TIMEOUT_SECONDS, connect=limits.CONNECT_TIMEOUT_SECONDS
                ),
            )
            entry.by_proxy[key] = made
            self.made += 1
            start = self._starts(entry)
        if start:
            await self._park(entry)
        return made
