"""The cell's pooled HTTP/1.1 connections: per event loop, the runs' pool.

A started cell keeps an ``HttpClients`` on its ``CellState``. Every RunSSE or
RunPoll stream, every BidiAppend and the pooled unary calls (the roster, the
catalog, the server config: ``unary.unary``) of that state go through the loop's
``h1conn.H1Pool`` (``h1``), whatever the proxy (the one dialer reaches through
each), so rounds reuse kept-alive connections and no round pays for dialing
anew.

A client belongs to the loop it was made on. When that loop shuts down —
``asyncio.run`` and ``asyncio.Runner`` finalise every open async generator in
``loop.shutdown_asyncgens`` — the pool's keeper for that loop (an async
generator parked at its ``yield``) closes the loop's clients on it, so a host
that runs each round on a fresh loop keeps no socket behind. The cell's stop
does not close them: a request still under way (a roster fetch landing after
the stop) must finish, and the loop's end closes them all.

The HTTP exchanges are ``h1conn.py``'s; which requests go through
here is ``sse.py``'s and the unary calls' (``unary.unary``).
"""

from __future__ import annotations

import asyncio
import threading
import weakref
from collections.abc import AsyncGenerator, Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .h1conn import H1Pool
    from .http import Answer

__all__ = ["HttpClients"]


class _LoopClients:
    """One loop's run pool and the keeper that closes it."""

    __slots__ = ("h1", "keeper")

    def __init__(self) -> None:
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


class HttpClients:
    """The pooled clients of one cell state; ``lock`` guards the table, not the clients."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.made = 0  # run pools built so far, for tests
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
        method: str = "POST",
    ) -> Answer:
        """Return the answer to a unary request (``unary.unary``'s) on the loop's run pool."""
        from .h1conn import h1_route

        route = h1_route(url, proxy)
        pool = await self.h1()
        return await pool.unary(route, url, headers, content, timeout, max_bytes, method)

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
