"""Rounds of one cell state share pooled connections: counted at the simulator."""

from __future__ import annotations

import asyncio
import threading
import uuid

import pytest

from cursor_simulator import Simulator
from nodecode_cursor.host import RoundContext
from nodecode_cursor.lanes import lane
from nodecode_cursor.state import CellState

pytestmark = pytest.mark.sim_answer_timeout(5.0)


def context(sim: Simulator, prompt: str, session: str) -> RoundContext:
    return RoundContext(
        model="composer-2.5",
        messages=[{"role": "user", "content": prompt}],
        session_id=session,
        credential="tok-pool",
        base_url=sim.url,
        request_timeout=10.0,
    )


def test_rounds_on_one_loop_open_no_new_connection_after_the_first(
    sim: Simulator, state: CellState
) -> None:
    session = f"pool-{uuid.uuid4()}"

    async def rounds() -> list[int]:
        seen = []
        for n in range(5):
            result = await lane.stream_round(context(sim, f"round {n}", session), state)
            assert result.message["content"].endswith(f"round {n}")
            seen.append(sim.server.accepted)
        return seen

    seen = asyncio.run(rounds())
    assert seen[1:] == [seen[0]] * 4, seen  # every later round reused the kept connections
    assert state.http_clients.made == 1


def test_a_loop_that_ends_closes_its_pooled_clients(sim: Simulator, state: CellState) -> None:
    from probes import open_sockets, threads_left

    before = open_sockets()
    threads_before = set(threading.enumerate())
    lane.stream_round_sync(context(sim, "one", f"s-{uuid.uuid4()}"), state)
    assert state.http_clients.made == 1
    # stream_round_sync ran the round on a loop of its own; that loop's end closed them.
    # (The simulator's side of each connection, in this process too, closes as its
    # thread ends.)
    assert threads_left(threads_before) == []
    assert open_sockets() <= before
