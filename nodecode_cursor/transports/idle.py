"""An idle deadline checked lazily: progress moves a number, not a timer.

``asyncio.Timeout.reschedule`` cancels one timer handle and schedules another; a
long answer makes progress once per frame (and is read in many small reads), so
moving a deadline that way costs a heap operation each time. ``IdleDeadline``
only records when the deadline is now due. One timer fires at the earliest time
it could be due; when progress came meanwhile it re-arms at the recorded time,
else it expires the ``asyncio.Timeout`` it watches, which raises ``TimeoutError``
in the task just as before. Progress that comes after the timer fired but before
the expiry reached the task still counts: the expiry is called off.

``silent_for`` is the usual way in: an ``asyncio.timeout`` of its own, watched
from SECONDS ahead. Three deadlines use it: the round's (``lanes/pump.py``: what
counts as progress there, and what a timeout means) and a stream's silence over
HTTP/1.1 (``h1conn.py``) and HTTP/2 (``h2run.py``).
"""

from __future__ import annotations

import asyncio
import contextlib
import math
from collections.abc import AsyncIterator

__all__ = ["IdleDeadline", "silent_for"]


@contextlib.asynccontextmanager
async def silent_for(seconds: float) -> AsyncIterator[IdleDeadline]:
    """Yield a deadline due SECONDS from now (``push`` moves it); TimeoutError once it passes."""
    async with asyncio.timeout(None) as timeout:
        deadline = IdleDeadline(timeout, asyncio.get_running_loop().time() + seconds)
        try:
            yield deadline
        finally:
            deadline.close()


class IdleDeadline:
    """Expires TIMEOUT once the time last pushed has passed with no later push."""

    __slots__ = ("_armed_at", "_closed", "_due", "_expiring", "_loop", "_timeout", "_timer")

    def __init__(self, timeout: asyncio.Timeout, due: float | None) -> None:
        """Watch TIMEOUT (entered, with no time of its own); it is due at DUE (loop time)."""
        self._loop = asyncio.get_running_loop()
        self._timeout = timeout
        self._due: float | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._armed_at = math.inf
        self._closed = False
        self._expiring = False  # the timeout was told to expire; it has not reached the task
        self.push(due)

    def push(self, due: float | None) -> None:
        """Make the deadline DUE (loop time); None holds it while the service waits on us."""
        self._due = due
        if self._expiring:
            self._recall()
        if due is not None and due < self._armed_at and not self._closed:
            self._arm(due)  # earlier than the timer: it must fire sooner

    def expired(self) -> bool:
        """Return whether the deadline passed (the TimeoutError leaving its block is its own)."""
        return self._timeout.expired()

    def close(self) -> None:
        """Stop watching for good: the stream is over, and the timeout may no longer be touched."""
        self._closed = True
        self._due = None
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._armed_at = math.inf

    def _arm(self, when: float) -> None:
        if self._timer is not None:
            self._timer.cancel()
        self._timer = self._loop.call_at(when, self._check)
        self._armed_at = when

    def _check(self) -> None:
        self._timer = None
        self._armed_at = math.inf
        due = self._due
        if due is None:
            return  # held: the next push arms the timer again
        now = self._loop.time()
        if due > now:
            self._arm(due)
        elif not self._timeout.expired():
            self._timeout.reschedule(now)
            self._expiring = True

    def _recall(self) -> None:
        """Call off an expiry the task has not met yet: progress came first."""
        self._expiring = False
        timeout = self._timeout
        if not timeout.expired() and not self._closed:
            timeout.reschedule(None)
