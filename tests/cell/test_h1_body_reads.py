"""How h1conn.py reads a response's body: its silence deadline, the lazy deadline under it
(idle.py), and a burst's reads gathered.

The body of a long answer comes in many small reads, the time a reader holds a
piece is not the service's silence, and a service writing faster than it is
read is read a few writes at a time: over a real loopback socket from a small
asyncio server that sends a chunked answer as the test says, and, for the one
moment a timer cannot be made to hit, ``IdleDeadline`` driven by hand.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

import pytest

from nodecode_cursor.transports.h1conn import H1Pool, ReadPacing, h1_route
from nodecode_cursor.transports.idle import IdleDeadline

READ_TIMEOUT = 0.2  # the silence the client allows; the tests wait past it on purpose
WAIT = 30.0  # bounds what takes milliseconds (and a held read); only a hung test meets it
HEAD = b"HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ntransfer-encoding: chunked\r\n\r\n"


def chunk(data: bytes) -> bytes:
    """Return DATA as one HTTP/1.1 chunk."""
    return b"%x\r\n%s\r\n" % (len(data), data)


class Service:
    """A loopback server answering one request with the head, then what ``send`` is given."""

    def __init__(self) -> None:
        self.pieces: asyncio.Queue[bytes | None] = asyncio.Queue()
        self.url = ""
        self._server: asyncio.Server | None = None

    async def __aenter__(self) -> Service:
        self._server = await asyncio.start_server(self._answer, "127.0.0.1", 0)
        self.url = f"http://127.0.0.1:{self._server.sockets[0].getsockname()[1]}"
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._server is not None
        self._server.close()
        await self._server.wait_closed()

    def send(self, data: bytes | None) -> None:
        """Send DATA on the answer (None: stop sending, and close)."""
        self.pieces.put_nowait(data)

    async def _answer(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = await reader.readuntil(b"\r\n\r\n")
        length = next(
            int(line.split(b":", 1)[1])
            for line in head.split(b"\r\n")
            if line.lower().startswith(b"content-length:")
        )
        await reader.readexactly(length)
        writer.write(HEAD)
        while (piece := await self.pieces.get()) is not None:
            writer.write(piece)
            await writer.drain()
            await asyncio.sleep(0)  # the next piece in a turn of the loop of its own
        writer.close()
        with contextlib.suppress(ConnectionError):
            await writer.wait_closed()


@contextlib.asynccontextmanager
async def body(
    service: Service, pacing: ReadPacing | None = None
) -> AsyncIterator[AsyncIterator[bytes]]:
    """Yield the answer's body, a read at a time, from a request to SERVICE."""
    pool = H1Pool(pacing=pacing)
    route = h1_route(service.url, None)
    assert route is not None
    try:
        response = await pool.request(
            route, f"{service.url}/x", {}, b"ask", connect_timeout=WAIT, read_timeout=READ_TIMEOUT
        )
        chunks = response.chunks()
        try:
            yield chunks
        finally:
            await chunks.aclose()  # type: ignore[attr-defined]
            await response.aclose()
    finally:
        await pool.aclose()


def test_silence_past_the_read_timeout_is_a_timeout() -> None:
    async def main() -> list[bytes]:
        got: list[bytes] = []
        async with Service() as service, body(service) as chunks:
            service.send(chunk(b"first"))
            with pytest.raises(TimeoutError):
                async for piece in chunks:
                    got.append(piece)
            service.send(None)
        return got

    assert asyncio.run(asyncio.wait_for(main(), WAIT)) == [b"first"]


def test_the_time_a_reader_holds_a_piece_is_not_silence() -> None:
    async def main() -> list[bytes]:
        got: list[bytes] = []
        async with Service() as service, body(service) as chunks:
            service.send(chunk(b"one"))
            async for piece in chunks:
                got.append(piece)
                if len(got) == 1:
                    # Busy elsewhere for longer than the service may be silent: the
                    # answer's next piece is already waiting meanwhile.
                    service.send(chunk(b"two") + b"0\r\n\r\n")
                    await asyncio.sleep(3 * READ_TIMEOUT)  # the hold is what is tested
            service.send(None)
        return got

    assert b"".join(asyncio.run(asyncio.wait_for(main(), WAIT))) == b"onetwo"


def test_every_read_moves_the_deadline() -> None:
    pieces = 6  # each sent two thirds of the timeout after the last: twice it in all

    async def main() -> list[bytes]:
        got: list[bytes] = []
        async with Service() as service, body(service) as chunks:

            async def pace() -> None:
                for index in range(pieces):
                    service.send(chunk(b"%d" % index))
                    await asyncio.sleep(READ_TIMEOUT * 2 / 3)  # the pace is what is tested
                service.send(b"0\r\n\r\n")
                service.send(None)

            pacing = asyncio.create_task(pace())
            async for piece in chunks:
                got.append(piece)
            await pacing
        return got

    assert b"".join(asyncio.run(asyncio.wait_for(main(), WAIT))) == b"012345"


def test_a_deadline_that_passed_expires_its_timeout() -> None:
    async def main() -> None:
        loop = asyncio.get_running_loop()
        async with asyncio.timeout(None) as timeout:
            deadline = IdleDeadline(timeout, loop.time())
            try:
                await asyncio.Event().wait()  # until the expiry ends it
            finally:
                deadline.close()

    with pytest.raises(TimeoutError):
        asyncio.run(main())


def test_progress_before_the_expiry_reaches_the_task_calls_it_off() -> None:
    async def main() -> str:
        loop = asyncio.get_running_loop()
        async with asyncio.timeout(None) as timeout:
            deadline = IdleDeadline(timeout, loop.time() - 1)
            # The timer fired (the expiry is on its way to the task) and, in the same
            # turn of the loop, the task had already been woken by progress:
            deadline._check()
            deadline.push(loop.time() + WAIT)
            for _ in range(3):  # turns in which an expiry that went on would arrive
                await asyncio.sleep(0)
            deadline.close()
        return "went on"

    assert asyncio.run(main()) == "went on"


def test_what_comes_during_a_burst_is_read_at_once() -> None:
    # Wide windows, so a slow machine still sees the burst and the gathering.
    pacing = ReadPacing(burst_seconds=WAIT, gather_seconds=0.2)

    async def main() -> list[bytes]:
        got: list[bytes] = []
        async with Service() as service, body(service, pacing) as chunks:
            service.send(chunk(b"a"))
            async for piece in chunks:
                got.append(piece)
                if piece == b"a":
                    service.send(chunk(b"b"))  # read right after "a": a burst
                elif piece == b"b":
                    # Written while the reader leaves the socket unread, each in a
                    # turn of the loop of its own: three writes, one read.
                    for data in (b"c", b"d", b"e"):
                        service.send(chunk(data))
                    service.send(b"0\r\n\r\n")
            service.send(None)
        return got

    assert asyncio.run(asyncio.wait_for(main(), WAIT)) == [b"a", b"b", b"cde"]


def test_pieces_paced_like_a_model_are_read_as_each_comes() -> None:
    async def main() -> list[bytes]:
        got: list[bytes] = []
        async with Service() as service, body(service) as chunks:
            service.send(chunk(b"0"))
            async for piece in chunks:
                got.append(piece)
                if len(got) < 4:
                    await asyncio.sleep(0.005)  # a model's pace: milliseconds apart
                    service.send(chunk(b"%d" % len(got)))
                else:
                    service.send(b"0\r\n\r\n")
            service.send(None)
        return got

    assert asyncio.run(asyncio.wait_for(main(), WAIT)) == [b"0", b"1", b"2", b"3"]
