"""Load: many rounds at once, and many rounds in a row, against one simulator over sockets.

The simulator plays its scripted model, which answers every prompt with
``Simulated Cursor here. You said: <prompt>``, so a message that came back on
the wrong round is visible at once. ``NODECODE_LOAD_ROUNDS`` sets how many
sequential rounds the second test plays (1 000 by default, as the issue asks).
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator

import pytest

from cursor_simulator import Simulator
from nodecode_cursor.host import RoundContext, TextDelta
from nodecode_cursor.lanes import lane
from nodecode_cursor.state import CellState

pytestmark = pytest.mark.sim_answer_timeout(5.0)

MODEL = "claude-4.5-sonnet"
CONCURRENT = 50
# The issue asks for 1 000 rounds (about 50 s on 2 cores, within the suite budget);
# NODECODE_LOAD_ROUNDS lowers it for a quick local run.
SEQUENTIAL = int(os.environ.get("NODECODE_LOAD_ROUNDS") or 1000)
# Growth of the resident set from round 100 to the last one; generous, since the
# allocator keeps what it once had. Rounds that each kept their blobs, request or
# message forever would grow by tens of MiB over 1 000 rounds of these sizes.
RSS_GROWTH_BOUND = 24 * 1024 * 1024


@pytest.fixture
def simulator_process() -> Iterator[str]:
    """Yield the URL of a simulator in a process of its own.

    The memory test measures this process's resident set, so the service it talks to
    (which records what it sees) must not live in it.
    """
    process = subprocess.Popen(
        [sys.executable, "-m", "cursor_simulator", "--port", "0"],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        assert line.startswith("simulator listening on "), line
        yield line.split()[-1]
    finally:
        process.terminate()
        process.wait(60)
        if process.stdout is not None:
            process.stdout.close()


def rss() -> int:
    """Return this process's resident set size in bytes."""
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


def test_fifty_concurrent_rounds_complete_with_their_own_messages(sim: Simulator) -> None:
    streamed: dict[int, list[str]] = {i: [] for i in range(CONCURRENT)}

    def context(i: int) -> RoundContext:
        def on_part(part: object) -> None:
            if isinstance(part, TextDelta):
                streamed[i].append(part.text)

        return RoundContext(
            model=MODEL,
            messages=[{"role": "user", "content": f"prompt number {i} ({uuid.uuid4()})"}],
            session_id=f"load-{i}-{uuid.uuid4()}",
            credential="tok-load",
            base_url=sim.url,
            request_timeout=30.0,
            on_part=on_part,
        )

    contexts = [context(i) for i in range(CONCURRENT)]

    async def main() -> list[object]:
        return await asyncio.gather(*(lane.stream_round(c) for c in contexts))

    started = time.monotonic()
    results = asyncio.run(main())
    print(f"{CONCURRENT} concurrent rounds in {time.monotonic() - started:.2f} s")
    for i, (ctx, result) in enumerate(zip(contexts, results, strict=True)):
        prompt = ctx.messages[0]["content"]
        assert result.message == {  # type: ignore[attr-defined]
            "role": "assistant",
            "content": f"Simulated Cursor here. You said: {prompt}",
        }
        assert "".join(streamed[i]) == result.message["content"]  # type: ignore[attr-defined]
    runs = sim.agent.runs
    assert len(runs) == CONCURRENT
    assert sim.agent.violations() == []
    # Every run got its own request: 50 distinct request ids and conversation ids.
    assert len({r.request_id for r in runs}) == CONCURRENT
    assert len({r.run_request.conversation_id for r in runs if r.run_request}) == CONCURRENT


def play_window(
    base_url: str,
    session: str,
    rounds: int,
    after_round: Callable[[int], None],
    state: CellState,
) -> None:
    """Play ROUNDS rounds of SESSION, keeping a sliding window of 6 messages as history.

    That is what a compacting host does. Each answer is checked against its prompt,
    then ``after_round(n)`` runs.
    """

    async def main() -> None:
        history: list[dict[str, object]] = []
        for n in range(1, rounds + 1):
            history.append({"role": "user", "content": f"round {n}"})
            del history[:-6]
            ctx = RoundContext(
                model=MODEL,
                messages=list(history),
                session_id=session,
                credential="tok-window",
                base_url=base_url,
                request_timeout=30.0,
            )
            result = await lane.stream_round(ctx, state)
            assert result.message["content"] == f"Simulated Cursor here. You said: round {n}"
            history.append(result.message)
            after_round(n)

    asyncio.run(main())


def test_sequential_rounds_of_one_session_keep_memory_flat(
    simulator_process: str, state: CellState
) -> None:
    session = f"long-{uuid.uuid4()}"
    marks: dict[int, int] = {}
    conversation = state.conversations.get(session)

    def mark(n: int) -> None:
        if n in (10, 100, SEQUENTIAL):
            marks[n] = rss()

    started = time.monotonic()
    play_window(simulator_process, session, SEQUENTIAL, mark, state)
    elapsed = time.monotonic() - started
    blobs = len(conversation.blobs)
    print(
        f"{SEQUENTIAL} rounds in {elapsed:.1f} s; RSS "
        + ", ".join(f"@{n}: {v / 2**20:.1f} MiB" for n, v in sorted(marks.items()))
        + f"; blobs kept {blobs}; writers {len(state.writers)}"
    )
    assert len(state.writers) <= 4096
    assert marks[SEQUENTIAL] - marks[min(100, SEQUENTIAL)] < RSS_GROWTH_BOUND


def test_a_sliding_window_session_keeps_a_bounded_blob_store(
    sim: Simulator, state: CellState
) -> None:
    session = f"window-{uuid.uuid4()}"
    conversation = state.conversations.get(session)
    sizes: list[int] = []
    play_window(sim.url, session, 60, lambda _: sizes.append(len(conversation.blobs)), state)
    # The window holds 6 messages: what the store must keep is bounded by a few
    # blobs per message in the window, not by the number of rounds played.
    assert sizes[-1] <= sizes[19] + 10, f"blobs after 20 rounds {sizes[19]}, after 60 {sizes[-1]}"
    # Each request build keeps only what it names: with a 6-message window that is
    # a few dozen blobs at most, and the hashing memo follows the store.
    assert max(sizes[19:]) <= 40, sizes
    assert conversation.blobs.memo_size() <= 2 * sizes[-1] + 10
