"""serve's turnstile: requests start their routes one per event-loop turn, in arrival order.

The turns are counted by a callback that schedules itself on every turn of the
loop; over real sockets, a burst of connections sent at once reaches the routes
in turns of its own.
"""

from __future__ import annotations

import asyncio
import itertools
from typing import Any

from nodecode_host.http_exchange import Exchange
from nodecode_host.http_server import HttpServer
from nodecode_host.turnstile import Turnstile


class TurnCounter:
    """Counts the event loop's turns: a callback that schedules itself each turn."""

    def __init__(self) -> None:
        self.turn = 0
        self.running = True
        self.loop = asyncio.get_running_loop()
        self.loop.call_soon(self._tick)

    def _tick(self) -> None:
        self.turn += 1
        if self.running:
            self.loop.call_soon(self._tick)


def test_waiters_go_through_one_per_turn_in_the_order_they_came() -> None:
    async def main() -> list[tuple[int, int]]:
        counter = TurnCounter()
        gate = Turnstile()
        through: list[tuple[int, int]] = []

        async def one(index: int) -> None:
            await gate.wait()
            through.append((index, counter.turn))

        await asyncio.gather(*(one(i) for i in range(6)))
        counter.running = False
        return through

    through = asyncio.run(main())
    assert [index for index, _ in through] == list(range(6))
    turns = [turn for _, turn in through]
    assert all(later > earlier for earlier, later in itertools.pairwise(turns))


def test_a_cancelled_waiter_gives_its_turn_to_the_next() -> None:
    async def main() -> tuple[list[int], bool]:
        gate = Turnstile()
        through: list[int] = []

        async def one(index: int) -> None:
            await gate.wait()
            through.append(index)

        tasks = [asyncio.create_task(one(i)) for i in range(3)]
        await asyncio.sleep(0)  # all three wait now
        tasks[1].cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        # The gate is free again: a later waiter goes through at once.
        await asyncio.wait_for(gate.wait(), 1)
        return through, tasks[1].cancelled()

    through, cancelled = asyncio.run(main())
    assert through == [0, 2]
    assert cancelled


class RecordingRoutes:
    """Routes that note the turn each request reached them in, and answer 200."""

    def __init__(self, counter: TurnCounter) -> None:
        self.counter = counter
        self.turns: list[int] = []

    async def answer(self, exchange: Exchange) -> None:
        self.turns.append(self.counter.turn)
        await exchange.send_json(200, {"ok": True})

    def refusal_body(self, path: str, status: int, message: str, code: str) -> dict[str, Any]:
        return {"error": {"message": message, "code": code}}


def test_a_burst_of_connections_reaches_the_routes_one_per_turn() -> None:
    async def main() -> tuple[list[int], list[bytes]]:
        counter = TurnCounter()
        routes = RecordingRoutes(counter)
        server = HttpServer(routes)
        await server.start("127.0.0.1", 0)
        request = (
            f"GET /v1/models HTTP/1.1\r\nhost: 127.0.0.1:{server.port}\r\nconnection: close\r\n\r\n"
        ).encode()
        try:
            pairs = [await asyncio.open_connection("127.0.0.1", server.port) for _ in range(8)]
            for _, writer in pairs:  # every request is on its way before any is answered
                writer.write(request)
            answers = [await asyncio.wait_for(reader.read(), 10) for reader, _ in pairs]
            for _, writer in pairs:
                writer.close()
        finally:
            await server.close()
            counter.running = False
        return routes.turns, answers

    turns, answers = asyncio.run(main())
    assert all(answer.startswith(b"HTTP/1.1 200 ") for answer in answers)
    assert len(turns) == 8
    assert len(set(turns)) == 8, f"two requests started in one turn: {turns}"
