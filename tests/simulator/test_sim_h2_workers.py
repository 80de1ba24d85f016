"""The simulator's HTTP/2 side answers a connection's streams side by side, in threads
started off the connection's own thread, and leaves no thread behind.

Driven with httpx over cleartext HTTP/2 (prior knowledge) on a loopback socket,
and, for what a stream's failure must not cost, the worker pool itself.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable

import httpx
import pytest

from cursor_simulator import SimRequest, SimResponse, Simulator
from cursor_simulator.h2server import _Workers

WAIT = 5.0  # bounds things that take milliseconds; it only matters when a test fails
STREAMS = 20


def _meeting(count: int) -> tuple[threading.Barrier, Callable[[SimRequest], SimResponse]]:
    """Return a barrier for COUNT answers and a route that answers once all of them wait."""
    barrier = threading.Barrier(count, timeout=WAIT)

    def meet(request: SimRequest) -> SimResponse:
        barrier.wait()  # broken (a 500) unless COUNT answers run at the same time
        return SimResponse(200, {"content-type": "text/plain"}, b"met")

    return barrier, meet


async def _at_once(url: str, count: int) -> list[httpx.Response]:
    """Return COUNT responses to requests sent together on one HTTP/2 connection."""
    async with httpx.AsyncClient(base_url=url, http1=False, http2=True, timeout=WAIT) as client:
        return list(await asyncio.gather(*(client.get("/meet") for _ in range(count))))


def test_the_streams_of_one_connection_are_answered_side_by_side(sim: Simulator) -> None:
    barrier, meet = _meeting(STREAMS)
    sim.route("/meet", meet)
    responses = asyncio.run(_at_once(sim.url, STREAMS))
    assert [r.status_code for r in responses] == [200] * STREAMS
    assert {r.http_version for r in responses} == {"HTTP/2"}
    assert sim.server.h2.connections == 1
    assert not barrier.broken


def test_a_second_burst_on_the_connection_is_answered_side_by_side_too(sim: Simulator) -> None:
    async def twice() -> list[httpx.Response]:
        async with httpx.AsyncClient(
            base_url=sim.url, http1=False, http2=True, timeout=WAIT
        ) as client:
            first = await asyncio.gather(*(client.get("/meet") for _ in range(STREAMS)))
            _, meet = _meeting(STREAMS)
            sim.route("/meet", meet)
            second = await asyncio.gather(*(client.get("/meet") for _ in range(STREAMS)))
            return [*first, *second]

    _, meet = _meeting(STREAMS)
    sim.route("/meet", meet)
    responses = asyncio.run(twice())
    assert [r.status_code for r in responses] == [200] * (2 * STREAMS)
    assert sim.server.h2.connections == 1


def test_stopping_the_simulator_leaves_none_of_its_stream_threads() -> None:
    with Simulator() as sim:
        _, meet = _meeting(STREAMS)
        sim.route("/meet", meet)
        responses = asyncio.run(_at_once(sim.url, STREAMS))
        assert [r.status_code for r in responses] == [200] * STREAMS
    left = [t.name for t in threading.enumerate() if t.name.startswith("sim-h2-stream")]
    assert left == []


def test_a_failed_job_costs_the_pool_no_thread(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.ERROR, logger="cursor_simulator")
    workers = _Workers("sim-h2-stream-test")
    ran = threading.Event()

    def fail() -> None:
        raise RuntimeError("scripted failure")

    try:
        workers.submit(fail)
        workers.submit(ran.set)
        assert ran.wait(WAIT)
        # The failed job's thread is counted idle again: a later job still runs.
        again = threading.Event()
        workers.submit(again.set)
        assert again.wait(WAIT)
    finally:
        workers.close(WAIT)  # every job over, every thread joined
    # The failure was caught and logged in its thread (not left to end the thread).
    assert [r.getMessage() for r in caplog.records] == ["a simulator stream failed"]
    left = [t.name for t in threading.enumerate() if t.name.startswith("sim-h2-stream-test")]
    assert left == []


def test_close_waits_for_the_jobs_still_running() -> None:
    workers = _Workers("sim-h2-stream-close")
    release = threading.Event()
    finished = threading.Event()

    def slow() -> None:
        release.wait(WAIT)
        finished.set()

    workers.submit(slow)
    closer = threading.Thread(target=workers.close, args=(WAIT,), name="closer")
    closer.start()
    release.set()
    closer.join(WAIT)
    assert not closer.is_alive()
    assert finished.is_set()
