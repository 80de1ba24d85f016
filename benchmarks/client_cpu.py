"""Whole-process CPU of the client against the simulator's, per round, over both transports.

Usage: python benchmarks/client_cpu.py [deltas] [rounds]

The simulator runs in a process of its own (this script, ``--simulator``), queued
with ROUNDS rounds of DELTAS text deltas (varied UTF-8 tokens) per transport. This
process plays the rounds through the whole lane (request, the run, the fold, the
answers) over HTTP/2 Run and over RunSSE + BidiAppend, and reads, around each
round, its own CPU time (``time.process_time``: every thread) and the simulator's
(utime + stime of /proc/PID/stat). Prints the mean per round of each, their
ratio per transport, and a verdict against the goal: the client at most 1.0x the
simulator (issue 25). The first round of each transport pays warm-up and is left out.
Means over all the rounds rather than medians of each: /proc counts the simulator's
CPU in clock ticks (10 ms), as coarse as a whole round, so only a sum is precise.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

# Varied tokens as a model streams them: ASCII words, accents, CJK, emoji, newlines.
TOKENS = ("the ", "héllo ", "naïve ", "数据", "code", "\n", "🙂 ", "résumé ", "x", "Zürich ")
TRANSPORTS = ("http2", "sse")
GOAL = 1.0


def token(index: int) -> str:
    """Return the INDEX-th token of a stream: the tokens in turn, numbered now and then."""
    word = TOKENS[index % len(TOKENS)]
    return f"{word}{index}" if index % 7 == 0 else word


def _simulate(deltas: int, rounds: int, piece: int = 0) -> None:
    """Serve ROUNDS x 2 scripted rounds until stdin closes (the child's side).

    Each round streams DELTAS text deltas: the varied tokens, or with PIECE > 0
    pieces of PIECE characters each (a long answer in few frames), after a round
    of ten such pieces to warm up on.
    """
    from cursor_simulator import Simulator
    from cursor_simulator.records import RunRecord
    from cursor_simulator.steps import (
        AskRequestContext,
        Checkpoint,
        End,
        KvRead,
        Step,
        Text,
        TurnEnded,
    )

    def text(index: int) -> str:
        if not piece:
            return token(index)
        # ASCII pieces: one byte a character on the wire and in a str, so the answer's
        # size means the same in both (an emoji makes CPython hold every character in 4).
        return (f"word{index} " * (piece // 5 + 1))[:piece]

    def script(run: RunRecord, deltas: int = deltas) -> Iterator[Step]:
        yield AskRequestContext()
        yield KvRead()
        for index in range(deltas):
            yield Text(text(index))
        yield TurnEnded(100, deltas)
        yield Checkpoint()
        yield End()

    with Simulator() as sim:
        if piece:  # a long answer: a short round first, for the client to warm up on
            sim.agent.script(lambda run: script(run, 10))
        for _ in range(rounds * len(TRANSPORTS)):
            sim.agent.script(script)
        print(sim.url, flush=True)
        sys.stdin.read()


def start_simulator(deltas: int, rounds: int, piece: int = 0) -> tuple[subprocess.Popen[str], str]:
    """Return the simulator's process (``_simulate`` in a child) and its URL."""
    child = subprocess.Popen(
        [sys.executable, __file__, "--simulator", str(deltas), str(rounds), str(piece)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        cwd=REPO,
    )
    assert child.stdout is not None
    return child, child.stdout.readline().strip()


def round_context(url: str, session: str, transport: str) -> Any:
    """Return the RoundContext of one benchmark round: one prompt, the simulator at URL."""
    from nodecode_cursor.host import RoundContext

    return RoundContext(
        model="claude-4.5-sonnet",
        messages=[{"role": "user", "content": "go"}],
        credential="bench",
        base_url=url,
        session_id=session,
        transport=transport,
    )


def process_cpu(pid: int) -> float:
    """Return the CPU seconds (user + system, every thread) process PID has used."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def measure(deltas: int, rounds: int) -> dict[str, tuple[float, float]]:
    """Return per transport (client CPU, simulator CPU), means per round in seconds."""
    from nodecode_cursor.lanes import lane
    from nodecode_cursor.state import CellState

    child, url = start_simulator(deltas, rounds)
    assert child.stdin is not None
    found: dict[str, tuple[float, float]] = {}
    try:
        for transport in TRANSPORTS:
            state = CellState()  # what a started cell keeps between its rounds
            client: list[float] = []
            server: list[float] = []

            async def play(
                state: Any = state,
                transport: str = transport,
                client: list[float] = client,
                server: list[float] = server,
            ) -> None:
                for index in range(rounds):
                    ctx = round_context(url, f"bench-{transport}", transport)
                    sim_before, before = process_cpu(child.pid), time.process_time()
                    result = await lane.stream_round(ctx, state)
                    spent = time.process_time() - before
                    sim_spent = process_cpu(child.pid) - sim_before
                    assert result.message["content"], "the round said nothing"
                    if index:  # the first round pays imports and warm-up
                        client.append(spent)
                        server.append(sim_spent)

            asyncio.run(play())
            found[transport] = (statistics.fmean(client), statistics.fmean(server))
    finally:
        child.stdin.close()
        child.wait(10)
    return found


def main() -> None:
    """Print each transport's client and simulator CPU per round, the ratio and a verdict."""
    if len(sys.argv) > 1 and sys.argv[1] == "--simulator":
        _simulate(*(int(arg) for arg in sys.argv[2:5]))
        return
    deltas = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 16
    print(f"client CPU per round: {deltas} text deltas, whole processes (mean of {rounds - 1})")
    print(f"  machine load average at start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"  {'transport':10} {'client ms':>10} {'simulator ms':>13} {'ratio':>7}")
    worst = 0.0
    for transport, (c, s) in measure(deltas, rounds).items():
        ratio = c / s
        worst = max(worst, ratio)
        print(f"  {transport:10} {c * 1e3:>10.1f} {s * 1e3:>13.1f} {ratio:>6.2f}x")
    ok = worst <= GOAL
    print(
        f"  verdict: {'PASS' if ok else 'FAIL'} — client CPU worst {worst:.2f}x the simulator's"
        f" per round over both transports (goal <= {GOAL:.1f}x)"
    )


if __name__ == "__main__":
    main()
