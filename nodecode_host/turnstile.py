"""A turnstile: the requests ``serve`` admits start one per turn of the event loop.

A burst of clients (100 connecting at once) has every request's head and body
in hand within a few turns of the loop, and asyncio runs all that is ready in
a turn before it looks at the sockets again. Without a turnstile each turn
would set up every round of the burst before reading what the service answers
the rounds already open, so the service's first asks would wait for the last
round's setup, and every round of the burst would start together: the median
round's first token waits for the whole burst. Through the turnstile a request
starts in a turn of its own, in arrival order, and the loop reads the sockets
between two starts, so the rounds already open go on while the next ones
start. A request that finds it free waits one turn (microseconds).

It only orders when a request's route starts; what the route does, and the
connection cap, are ``http_server.py``'s.
"""

from __future__ import annotations

import asyncio
import collections

__all__ = ["Turnstile"]


class Turnstile:
    """Lets waiters through one per event-loop turn, in the order they came."""

    def __init__(self) -> None:
        self._waiting: collections.deque[asyncio.Future[None]] = collections.deque()
        self._turning = False  # a _turn is scheduled for the next turn of the loop

    async def wait(self) -> None:
        """Return in a turn of the loop no other waiter is let through in, after those
        that came before (a cancelled waiter gives its turn to the next)."""
        loop = asyncio.get_running_loop()
        ticket: asyncio.Future[None] = loop.create_future()
        self._waiting.append(ticket)
        if not self._turning:
            self._turning = True
            loop.call_soon(self._turn)
        await ticket

    def _turn(self) -> None:
        """Let the oldest waiter through, and come back next turn while others wait."""
        while self._waiting:
            ticket = self._waiting.popleft()
            if not ticket.done():  # a cancelled waiter is skipped
                ticket.set_result(None)
                break
        if self._waiting:
            asyncio.get_running_loop().call_soon(self._turn)
        else:
            self._turning = False
