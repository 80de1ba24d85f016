"""What one round costs the client on loopback, against what it costs the simulator.

Usage: python benchmarks/round_overhead.py [deltas]

Plays a round of DELTAS text deltas (2 000 by default) through the whole lane
(request, RunSSE, appends, fold, answers) against the simulator in this
process, five times, and prints the client's CPU time (the event loop's
thread) beside the simulator's own CPU time for the same stream (its RunSSE
handler thread), and their ratio. Only prints; it asserts nothing.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from cursor_simulator import Simulator  # noqa: E402
from cursor_simulator.records import RunRecord  # noqa: E402
from cursor_simulator.steps import (  # noqa: E402
    AskRequestContext,
    Checkpoint,
    End,
    KvRead,
    Step,
    Text,
    TurnEnded,
)
from nodecode_cursor.host import RoundContext  # noqa: E402
from nodecode_cursor.lanes import lane  # noqa: E402
from nodecode_cursor.state import CellState  # noqa: E402


def timed_script(deltas: int, spent: list[float]) -> Any:
    """Return a script of DELTAS text deltas that records its own thread's CPU time."""

    def script(run: RunRecord) -> Iterator[Step]:
        started = time.thread_time()
        yield AskRequestContext()
        yield KvRead()
        for index in range(deltas):
            yield Text(f"word{index} ")
        yield TurnEnded(100, deltas)
        yield Checkpoint()
        spent.append(time.thread_time() - started)
        yield End()

    return script


def main() -> None:
    """Print the client's and the simulator's CPU time per round, and the ratio."""
    deltas = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    client: list[float] = []
    server: list[float] = []
    state = CellState()  # what a started cell keeps between its rounds
    with Simulator() as sim:
        for round_index in range(6):
            sim.agent.script(timed_script(deltas, server))
            ctx = RoundContext(
                model="claude-4.5-sonnet",
                messages=[{"role": "user", "content": "go"}],
                credential="bench",
                base_url=sim.url,
                session_id="bench",
            )

            async def one(ctx: RoundContext = ctx) -> float:
                started = time.thread_time()
                await lane.stream_round(ctx, state)
                return time.thread_time() - started

            spent = asyncio.run(one())
            if round_index:  # the first round pays imports and warm-up
                client.append(spent)
        server = server[1:]
    c, s = statistics.median(client), statistics.median(server)
    print(f"round of {deltas} text deltas (median of {len(client)})")
    print(f"  client CPU     {c * 1000:8.1f} ms")
    print(f"  simulator CPU  {s * 1000:8.1f} ms")
    print(f"  ratio          {c / s:8.2f}x")


if __name__ == "__main__":
    main()
