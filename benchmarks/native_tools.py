"""A three-step task with Cursor's own tools run in place, against the same task handed off.

Usage: python benchmarks/native_tools.py

The task, scripted in the simulator: the model reads a file, greps for a name,
then answers. In place, the reads are native exec asks the host's runner
(``nodecode_host.native_tools``) answers within the one run. Handed off, they are
calls of the host's own tools (``read_file``, ``search_files``): each ends the
run, the host runs it, and a new run carries the result back. Each append is
answered after an added delay standing for the network's latency. Prints, per
latency, the rounds per task, the median wall time of five tasks, and the bytes
the client sent (run requests, answers, heartbeats). Only prints.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
import uuid
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
    Native,
    Step,
    StepCompleted,
    StepStarted,
    Text,
    ToolCall,
    TurnEnded,
)
from nodecode_cursor.host import RoundContext  # noqa: E402
from nodecode_cursor.lanes import lane  # noqa: E402
from nodecode_cursor.state import CellState  # noqa: E402
from nodecode_host.host_tools import HostTools  # noqa: E402
from nodecode_host.native_tools import NativeTools  # noqa: E402

ANSWER = "Ada is on line 2 of notes.txt."
TASKS = 5


def _closing(text: str) -> Iterator[Step]:
    yield Text(text)
    yield StepCompleted()
    yield TurnEnded(input=100, output=10)
    yield Checkpoint()
    yield End()


def in_place(run: RunRecord) -> Iterator[Step]:
    """One run: read, grep, answer."""
    yield AskRequestContext()
    yield KvRead()
    yield StepStarted()
    yield Native("read_args", {"path": "notes.txt"})
    yield Native("grep_args", {"pattern": "Ada"})
    yield from _closing(ANSWER)


def handed_off(step: int) -> Any:
    """Return the script of handed-off round STEP (0: read, 1: search, 2: answer)."""

    def play(run: RunRecord) -> Iterator[Step]:
        yield AskRequestContext()
        yield KvRead()
        yield StepStarted()
        if step == 0:
            yield ToolCall("read_file", {"path": "notes.txt"})
        elif step == 1:
            yield ToolCall("search_files", {"pattern": "Ada"})
        else:
            yield from _closing(ANSWER)
            return
        yield StepCompleted()
        yield TurnEnded(input=100, output=10)
        yield Checkpoint()
        yield End()

    return play


def task(sim: Simulator, folder: Path, mode: str, state: CellState) -> tuple[int, float, int]:
    """Return (rounds, seconds, bytes sent) of one task in MODE ("in place" or "handed off")."""
    tools = HostTools(folder)
    runner = NativeTools(tools)
    before = len(sim.agent.runs)
    if mode == "in place":
        sim.agent.script(in_place)
    else:
        for step in range(3):
            sim.agent.script(handed_off(step))
    messages: list[dict[str, Any]] = [{"role": "user", "content": "Where is Ada in notes.txt?"}]
    session = f"bench-{uuid.uuid4()}"
    rounds = 0
    started = time.perf_counter()
    while True:
        ctx = RoundContext(
            model="claude-4.5-sonnet",
            messages=messages,
            credential="t",
            base_url=sim.url,
            session_id=session,
            cwd=str(folder),
            tools=tools.definitions() if mode == "handed off" else [],
            run_native=runner if mode == "in place" else None,
            native_kinds=runner.kinds,
        )
        result = lane.stream_round_sync(ctx, state)
        rounds += 1
        messages.extend(result.messages)
        if result.finish_reason != "tool_calls":
            break
        for call in result.message.get("tool_calls") or []:
            output = tools.run(call["function"]["name"], call["function"]["arguments"])
            messages.append({"role": "tool", "tool_call_id": call["id"], "content": output})
    elapsed = time.perf_counter() - started
    assert messages[-1]["content"] == ANSWER, messages[-1]
    sent = sum(
        len(append.message.SerializeToString())
        for run in sim.agent.runs[before:]
        for append in run.appends
    )
    return rounds, elapsed, sent


def main() -> None:
    """Print the comparison at three added latencies."""
    with tempfile.TemporaryDirectory() as raw:
        folder = Path(raw)
        (folder / "notes.txt").write_text("Grace\nAda\nAlan\n")
        sim = Simulator()
        sim.start()
        try:
            print(f"three-step task (read, grep, answer); median of {TASKS} tasks")
            print(
                "  latency per append   mode         rounds   wall ms   bytes sent"
                "   (in place vs handed off)"
            )
            for delay in (0.0, 0.010, 0.025):
                sim.agent.append_delay = delay
                rows: dict[str, tuple[int, float, int]] = {}
                for mode in ("in place", "handed off"):
                    state = CellState()
                    runs = [task(sim, folder, mode, state) for _ in range(TASKS)]
                    rows[mode] = (
                        runs[0][0],
                        statistics.median(r[1] for r in runs) * 1000,
                        int(statistics.median(r[2] for r in runs)),
                    )
                for mode, (rounds, wall, sent) in rows.items():
                    print(
                        f"  {delay * 1000:>6.0f} ms            {mode:<12} {rounds:>6}  "
                        f"{wall:>8.1f}  {sent:>11}"
                    )
                inside, handed = rows["in place"], rows["handed off"]
                print(
                    f"  {'':>6}               ratio        {handed[0] / inside[0]:>5.1f}x "
                    f"{handed[1] / inside[1]:>8.2f}x {handed[2] / inside[2]:>10.2f}x"
                )
        finally:
            sim.stop()


if __name__ == "__main__":
    main()
