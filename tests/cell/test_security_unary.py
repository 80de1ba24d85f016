"""Every unary call ends at its timeout and its cap, whatever the service does (issue 36, item 3).

A loopback server (not the simulator: it misbehaves below HTTP) answers the roster,
the catalog and the dashboard by trickling its body a byte at a time, by sending
interim ``102 Processing`` heads one after another, or with a body past the call's
cap. Each call must end in words at its deadline, both on the runs' own HTTP/1.1
pool (a ``CellState``) and on a pool of the call's own (no state).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable

import pytest

from nodecode_cursor import limits
from nodecode_cursor.account.dashboard import fetch_account_usage
from nodecode_cursor.errors import ProviderError, Unreachable
from nodecode_cursor.models import listing
from nodecode_cursor.state import CellState
from nodecode_cursor.transports.http1 import BadResponse, ResponseReader

TIMEOUT = 0.5
# A trickle that would take 120 timeouts (60 s) to finish: a per-read timeout never
# fires. A call that ends in half of it ended at its own deadline, even on a busy machine.
TRICKLE_BYTES = 600
TRICKLE_EVERY = TIMEOUT / 5
TRICKLE_HALF = TRICKLE_BYTES * TRICKLE_EVERY / 2

Behaviour = Callable[[asyncio.StreamWriter], Awaitable[None]]


async def _read_request(reader: asyncio.StreamReader) -> None:
    """Read one request's head and its Content-Length body."""
    head = await reader.readuntil(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n"):
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value)
    await reader.readexactly(length)


class Misbehaving:
    """A loopback HTTP/1.1 server that answers every request with BEHAVIOUR."""

    def __init__(self, behaviour: Behaviour) -> None:
        self.behaviour = behaviour
        self.server: asyncio.Server | None = None
        self.url = ""
        self._writers: set[asyncio.StreamWriter] = set()

    async def __aenter__(self) -> Misbehaving:
        self.server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        port = self.server.sockets[0].getsockname()[1]
        self.url = f"http://127.0.0.1:{port}"
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self.server is not None
        self.server.close()
        for writer in list(self._writers):
            writer.transport.abort()
        await self.server.wait_closed()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._writers.add(writer)
        try:
            await _read_request(reader)
            await self.behaviour(writer)
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            writer.transport.abort()
            self._writers.discard(writer)


async def trickle(writer: asyncio.StreamWriter) -> None:
    """Answer 200 with a body sent a byte every TRICKLE_EVERY seconds (each read brings one)."""
    head = f"HTTP/1.1 200 OK\r\ncontent-length: {TRICKLE_BYTES}\r\n\r\n"
    writer.write(head.encode())
    for _ in range(TRICKLE_BYTES):
        await asyncio.sleep(TRICKLE_EVERY)  # the attack's own pacing
        writer.write(b"\x00")
        await writer.drain()


async def processing(writer: asyncio.StreamWriter) -> None:
    """Send ``102 Processing`` heads, one every TRICKLE_EVERY seconds, for 120 timeouts."""
    for _ in range(TRICKLE_BYTES):
        writer.write(b"HTTP/1.1 102 Processing\r\n\r\n")
        await writer.drain()
        await asyncio.sleep(TRICKLE_EVERY)  # the attack's own pacing
    writer.write(b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n")
    await writer.drain()


def flood(size: int) -> Behaviour:
    """Return a behaviour answering 200 with SIZE bytes of body, as fast as they are read."""

    async def send(writer: asyncio.StreamWriter) -> None:
        writer.write(f"HTTP/1.1 200 OK\r\ncontent-length: {size}\r\n\r\n".encode())
        piece = b"\x00" * 65536
        left = size
        while left > 0:
            writer.write(piece[:left])
            left -= len(piece)
            await writer.drain()

    return send


async def roster(url: str, pooled: bool) -> BaseException:
    """Return what fetching the roster from URL raised (on the pool when POOLED, else its own)."""
    state = CellState() if pooled else None
    try:
        await listing.fetch_roster("tok", url, state=state, timeout=TIMEOUT)
    except ProviderError as exc:
        return exc
    finally:
        if state is not None:
            await (await state.http_clients.h1()).aclose()
    raise AssertionError("the roster call succeeded")


def timed(
    behaviour: Behaviour, call: Callable[[str], Awaitable[BaseException]]
) -> tuple[BaseException, float]:
    """Return what CALL raised against a server doing BEHAVIOUR, and the seconds it took."""

    async def main() -> tuple[BaseException, float]:
        async with Misbehaving(behaviour) as server:
            started = time.monotonic()
            error = await call(server.url)
            return error, time.monotonic() - started

    return asyncio.run(main())


@pytest.mark.parametrize("pooled", [True, False], ids=["h1pool", "own-pool"])
def test_a_trickled_roster_ends_at_the_calls_timeout(pooled: bool) -> None:
    error, took = timed(trickle, lambda url: roster(url, pooled))
    assert isinstance(error, Unreachable)
    assert error.why == "TimeoutError"
    assert error.detail.startswith("no whole answer from http://127.0.0.1:")
    assert f"within {TIMEOUT:g} s" in error.detail
    # At the deadline: not before it, and long before the trickle would have ended.
    assert TIMEOUT <= took < TRICKLE_HALF


@pytest.mark.parametrize("pooled", [True, False], ids=["h1pool", "own-pool"])
def test_endless_interim_heads_end_at_the_calls_timeout(pooled: bool) -> None:
    error, took = timed(processing, lambda url: roster(url, pooled))
    assert isinstance(error, Unreachable)
    assert f"within {TIMEOUT:g} s" in error.detail
    assert TIMEOUT <= took < TRICKLE_HALF


def test_more_interim_heads_than_the_bound_are_refused_however_fast() -> None:
    reader = ResponseReader()
    interim = b"HTTP/1.1 102 Processing\r\n\r\n"
    final = b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok"
    # As many as the bound are skipped.
    assert reader.feed(interim * limits.MAX_INTERIM_HEADS + final) == b"ok"
    with pytest.raises(BadResponse, match=r"more than 16 interim \(1xx\) answers"):
        ResponseReader().feed(interim * (limits.MAX_INTERIM_HEADS + 1) + final)


@pytest.mark.parametrize("pooled", [True, False], ids=["h1pool", "own-pool"])
def test_a_roster_past_its_cap_is_read_no_further(pooled: bool) -> None:
    error, _ = timed(flood(limits.ROSTER_MAX_BYTES + 1), lambda url: roster(url, pooled))
    assert isinstance(error, ProviderError)
    assert error.code == "oversized_answer"
    assert (
        str(error) == f"Cursor's answer to {listing.GET_USABLE_MODELS_PATH} passed 4 MiB; not read"
    )


def test_a_catalog_past_its_cap_is_read_no_further() -> None:
    async def catalog(url: str) -> BaseException:
        try:
            await listing.fetch_catalog("tok", url, timeout=5.0)
        except ProviderError as exc:
            return exc
        raise AssertionError("the catalog call succeeded")

    error, _ = timed(flood(limits.CATALOG_MAX_BYTES + 1), catalog)
    assert isinstance(error, ProviderError) and error.code == "oversized_answer"
    assert "passed 8 MiB" in str(error)


async def usage(url: str) -> BaseException:
    """Return what asking the dashboard at URL raised (it blocks: in a thread)."""
    try:
        await asyncio.to_thread(fetch_account_usage, "tok", url, timeout=TIMEOUT)
    except ProviderError as exc:
        return exc
    raise AssertionError("the usage question succeeded")


def test_a_trickled_dashboard_answer_ends_at_the_calls_timeout() -> None:
    error, took = timed(trickle, usage)
    assert isinstance(error, Unreachable)
    assert f"within {TIMEOUT:g} s" in error.detail
    assert TIMEOUT <= took < TRICKLE_HALF


def test_endless_interim_heads_on_the_dashboard_end_at_the_calls_timeout() -> None:
    error, took = timed(processing, usage)
    assert isinstance(error, Unreachable)
    assert TIMEOUT <= took < TRICKLE_HALF


def test_a_dashboard_answer_past_its_cap_is_read_no_further() -> None:
    error, _ = timed(flood(limits.DASHBOARD_MAX_BYTES + 1), usage)
    assert isinstance(error, ProviderError) and error.code == "oversized_answer"
    assert "the usage question passed 1 MiB" in str(error)


async def superscript_length(writer: asyncio.StreamWriter) -> None:
    """Answer 200 with ``Content-Length: ²`` (a Unicode digit ``int()`` would not take)."""
    writer.write(b"HTTP/1.1 200 OK\r\ncontent-length: \xb2\r\n\r\nxx")
    await writer.drain()


@pytest.mark.parametrize("pooled", [True, False], ids=["h1pool", "own-pool"])
def test_a_non_ascii_digit_in_content_length_is_refused_in_words(pooled: bool) -> None:
    error, _ = timed(superscript_length, lambda url: roster(url, pooled))
    # A worded refusal of the answer, never a ValueError escaping as an internal error.
    assert isinstance(error, ProviderError), repr(error)
    assert "Content-Length" in str(error), str(error)


def test_the_reader_takes_only_ascii_digits_for_a_length() -> None:
    for value in (b"\xb2", b"\xd9\xa3", b"1\xb2"):  # superscript two; Arabic-Indic three
        with pytest.raises(BadResponse, match="malformed Content-Length"):
            ResponseReader().feed(b"HTTP/1.1 200 OK\r\ncontent-length: " + value + b"\r\n\r\nxx")
