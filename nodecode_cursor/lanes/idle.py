"""The round's idle deadline, checked lazily: progress moves a number, not a timer.

``asyncio.Timeout.reschedule`` cancels one timer handle and schedules another; a
long answer makes progress once per frame, so moving the deadline that way costs a
heap operation per delta. ``IdleDeadline`` only records when the deadline is now
due. One timer fires at the earliest time it could be due; when progress came
meanwhile it re-arms at the recorded time, else it expires the ``asyncio.Timeout``
it watches, which raises ``TimeoutError`` in the round just as before.

What counts as progress, and what a timeout means, are the pump's (``pump.py``).
"""

from __future__ import annotations

import asyncio
import math

__all__ = ["IdleDeadline"]


class IdleDeadline:
    """Expires TIMEOUT once the time last pushed has passed with no later push."""

    __slots__ = ("_armed_at", "_closed", "_due", "_loop", "_timeout", "_timer")

    def __init__(self, timeout: asyncio.Timeout, due: float | None) -> None:
        """Watch TIMEOUT (entered, with no time of its own); it is due at DUE (loop time)."""
        self._loop = asyncio.get_running_loop()
        self._timeout = timeout
        self._due: float | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._armed_at = math.inf
        self._closed = False
        self.push(due)

    def push(self, due: float | None) -> None:
        """Make the deadline DUE (loop time); None holds it while the service waits on us."""
        self._due = due
        if due is not None and due < self._armed_at and not self._closed:
            self._arm(due)  # earlier than the timer: it must fire sooner

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
