"""``serve``'s close ends every round it holds and returns within its own deadline (issue 37, 6).

Over real sockets. Against the simulator, Cursor never answers the rounds' runs
(each script waits on an event the test sets only once it is done): close
cancels them all. With routes of the test's own whose round swallows a cancel
(as Python 3.11's ``wait_for`` did) or every cancel, close cancels once more and,
past its deadline, aborts the sockets and returns without the round.
"""

from __future__ import annotations

import asyncio
import json
import logging
import socket
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from test_security_serve import Served, host, post

from cursor_simulator import Simulator
from cursor_simulator.steps import Step, Text
from nodecode_host.http_exchange import Exchange
from nodecode_host.http_server import HttpServer, cancel
from nodecode_host.refhost import ReferenceHost

__all__ = ["host"]  # the fixture, shared with test_security_serve

ROUNDS = 6


def test_close_ends_every_round_while_cursor_never_answers(
    host: ReferenceHost, sim: Simulator, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="nodecode_host")
    reached = threading.Semaphore(0)
    release = threading.Event()

    def never_answers(_run: Any) -> Iterator[Step]:
        reached.release()
        release.wait(120)  # only stops a hung test: the test releases it when done
        yield Text("too late")

    for _ in range(ROUNDS):
        sim.agent.script(never_answers)
    socks: list[socket.socket] = []
    try:
        with Served(host) as served:
            where = f"127.0.0.1:{served.server.port}"
            for index in range(ROUNDS):
                body = json.dumps(
                    {
                        "model": "composer-2.5",
                        "messages": [{"role": "user", "content": f"round {index}"}],
                        "stream": index % 2 == 0,
                    }
                )
                sock = socket.create_connection(served.address, timeout=60)
                socks.append(sock)
                sock.sendall(post(where, body))
            for _ in range(ROUNDS):
                assert reached.acquire(timeout=60), "a round never reached Cursor"
            assert served.server.rounds_in_flight == ROUNDS
            closing = asyncio.run_coroutine_threadsafe(served.server.close(), served.loop)
            closing.result(60)  # only stops a hung test
            assert served.server.rounds_in_flight == 0  # ended, not left behind
            for sock in socks:
                assert sock.recv(65536) == b""  # closed without an answer
    finally:
        release.set()
        for sock in socks:
            sock.close()
    said = [r.getMessage() for r in caplog.records]
    assert not any("cancelling again" in line or "did not end" in line for line in said), said


class HeldRoutes:
    """Routes whose one round waits for ``released`` and swallows its first SWALLOW cancels."""

    def __init__(self, swallow: int) -> None:
        self.swallow = swallow
        self.cancels = 0
        self.started = asyncio.Event()
        self.released = asyncio.Event()
        self.round: asyncio.Task[None] | None = None

    async def answer(self, exchange: Exchange) -> None:
        """Hold the round as ``routes.py`` does: wait on its task, cancel it on the way out."""
        self.round = asyncio.create_task(self._held())
        exchange.hold(self.round)
        self.started.set()
        try:
            await asyncio.wait({self.round})
        finally:
            await cancel(self.round)

    async def _held(self) -> None:
        while True:
            try:
                await self.released.wait()
                return
            except asyncio.CancelledError:
                self.cancels += 1
                if self.cancels > self.swallow:
                    raise

    def refusal_body(self, path: str, status: int, message: str, code: str) -> dict[str, Any]:
        return {"error": {"message": message, "code": code}}


async def _held_connection(
    routes: HeldRoutes, close_timeout: float
) -> tuple[HttpServer, asyncio.StreamReader, asyncio.StreamWriter]:
    """Return a started server over ROUTES and a client whose request ROUTES now holds."""
    server = HttpServer(routes, close_timeout=close_timeout)
    await server.start("127.0.0.1", 0)
    reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
    writer.write(f"GET /v1/models HTTP/1.1\r\nhost: 127.0.0.1:{server.port}\r\n\r\n".encode())
    await routes.started.wait()
    return server, reader, writer


async def _what_the_client_reads(reader: asyncio.StreamReader) -> bytes:
    """Return what the client reads until its connection ends (a reset reads as nothing)."""
    try:
        return await reader.read()
    except ConnectionResetError:
        return b""


def test_close_cancels_again_a_round_that_swallowed_its_cancel(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger="nodecode_host")

    async def main() -> None:
        routes = HeldRoutes(swallow=1)
        server, reader, writer = await _held_connection(routes, close_timeout=4.0)
        async with asyncio.timeout(60):  # only stops a hung test
            await server.close()
        assert routes.round is not None and routes.round.cancelled()
        assert routes.cancels == 2
        assert await _what_the_client_reads(reader) == b""
        writer.close()

    asyncio.run(main())
    said = [r.getMessage() for r in caplog.records]
    assert any("cancelling again 1 connections and 1 rounds" in line for line in said), said
    assert not any("did not end" in line for line in said), said


def test_close_returns_at_its_deadline_while_a_round_will_not_end(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger="nodecode_host")

    async def main() -> None:
        routes = HeldRoutes(swallow=1_000_000)
        server, reader, writer = await _held_connection(routes, close_timeout=0.5)
        async with asyncio.timeout(60):  # only stops a hung test
            await server.close()
        assert routes.round is not None and not routes.round.done()  # close did not wait
        assert routes.cancels >= 2
        # Its socket was aborted: the client is not left waiting on the round.
        assert await _what_the_client_reads(reader) == b""
        writer.close()
        with pytest.raises(ConnectionRefusedError):  # and nothing more is let in
            await asyncio.open_connection("127.0.0.1", server.port)
        routes.released.set()
        await routes.round  # it ends on its own once Cursor (here, the test) lets it

    asyncio.run(main())
    said = [r.getMessage() for r in caplog.records]
    assert any("did not end within 0.5 s" in line for line in said), said
