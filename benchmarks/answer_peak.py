"""A 50 MiB answer: the client's peak memory above its baseline, over both transports.

Usage: python benchmarks/answer_peak.py [MiB]

The simulator (client_cpu.py's, in a process of its own) streams an answer of
MIB mebibytes (50 by default) in 4 KiB ASCII text deltas. For each transport, HTTP/2
Run and RunSSE + BidiAppend, a fresh client process plays a short round (so
imports and pools are warm), reads its resident set (VmRSS), plays the long
answer through the whole lane and reads its high-water mark (VmHWM). The peak above the
baseline is printed as a multiple of the answer's size; goal (issue 25): at most
2x on both transports (the answer itself is 1x: the text the round returns).
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent), str(HERE)]

import client_cpu  # noqa: E402

PIECE = 4096
GOAL = 2.0
# A client that takes longer than this for the two rounds fails the verdict.
LIMIT_SECONDS = 600


def status_kib(field: str) -> int:
    """Return a /proc/self/status memory field (VmRSS, VmHWM) in KiB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise LookupError(field)


def client(url: str, transport: str) -> None:
    """Play a short round and the long one; print the baseline and the peak in KiB."""
    from nodecode_cursor.lanes import lane
    from nodecode_cursor.state import CellState

    state = CellState()

    async def play() -> None:
        for index in range(2):
            ctx = client_cpu.round_context(url, f"peak-{transport}", transport)
            if index:
                print("baseline", status_kib("VmRSS"), flush=True)
            result = await lane.stream_round(ctx, state)
            if index:
                print("peak", status_kib("VmHWM"), len(result.message["content"]), flush=True)

    asyncio.run(play())


def main() -> None:
    """Print each transport's peak above its baseline as a multiple of the answer; a verdict."""
    if len(sys.argv) > 1 and sys.argv[1] == "--client":
        client(sys.argv[2], sys.argv[3])
        return
    mib = int(sys.argv[1]) if len(sys.argv) > 1 else 50
    deltas = mib * 1024 * 1024 // PIECE
    print(f"answer peak: {mib} MiB in {PIECE // 1024} KiB text deltas, client process memory")
    print(f"  machine load average at start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    worst = 0.0
    for transport in client_cpu.TRANSPORTS:
        # Its own simulator per transport, queued with a small round and the big one.
        sim, url = client_cpu.start_simulator(deltas, 1, PIECE)
        assert sim.stdin is not None
        try:
            # The client's baseline is read after the short round, before the long one.
            done = subprocess.run(
                [sys.executable, __file__, "--client", url, transport],
                capture_output=True,
                text=True,
                check=True,
                timeout=LIMIT_SECONDS,
            )
        except subprocess.TimeoutExpired:
            print(f"  {transport:6} did not finish within {LIMIT_SECONDS} s")
            worst = float("inf")
            continue
        finally:
            sim.stdin.close()
            sim.wait(30)
        lines = dict(line.split(" ", 1) for line in done.stdout.splitlines())
        base = int(lines["baseline"])
        peak_kib, size = (int(x) for x in lines["peak"].split())
        ratio = (peak_kib - base) * 1024 / size
        worst = max(worst, ratio)
        print(
            f"  {transport:6} baseline {base / 1024:7.1f} MiB  peak {peak_kib / 1024:7.1f} MiB"
            f"  above baseline {ratio:5.2f}x the answer"
        )
    ok = worst <= GOAL
    print(
        f"  verdict: {'PASS' if ok else 'FAIL'} — a {mib} MiB answer peaks at worst {worst:.2f}x"
        f" its size above baseline over both transports (goal <= {GOAL:g}x)"
    )


if __name__ == "__main__":
    main()
