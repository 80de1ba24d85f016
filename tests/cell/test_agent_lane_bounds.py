"""The cursor-agent lane bounded against a CLI that misbehaves (issue 36, item 7).

The stand-in CLI (tests/agent_standin) plays each misbehaviour for real: a
background process holding its stdout after it exits, in its group or in a
session of its own; a CLI that never reads its stdin; one that closes its
stdout and lingers; a flood of answer text. Every turn ends within its
timeout, a delivered answer is kept, and the answer is capped.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from standin import API_KEY, StandIn, gone, put_on_path

from nodecode_cursor.cell import CursorCell
from nodecode_cursor.errors import ProviderError, StreamIncomplete
from nodecode_cursor.host import MemoryHost, RoundContext, RoundResult, StreamPart, TextDelta

ANSWER = "Started the server; it runs on."
# Well past how long a finished turn takes to be read, short of a test's patience: a
# lane that waits for the idle timeout fails the test instead of passing late.
IDLE = 20.0
# A test's outer bound, so a lane that hangs fails instead of hanging the suite.
OUTER = 60.0


@pytest.fixture
def standin(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> StandIn:
    return put_on_path(monkeypatch, tmp_path)


@pytest.fixture
def home(tmp_path: Path) -> Path:
    folder = tmp_path / "home"
    folder.mkdir()
    return folder


def started(home: Path, config: dict[str, object] | None = None) -> CursorCell:
    """Return a started cell whose host lives in HOME."""
    cell = CursorCell()
    assert cell.start(MemoryHost(home, {"cursor": config or {}}))
    return cell


@pytest.fixture
def cell(home: Path) -> Iterator[CursorCell]:
    running = started(home)
    yield running
    running.stop()


def ctx(text: str = "Start the server", **more: object) -> RoundContext:
    """Return a round's context for one user message."""
    return RoundContext(
        model="cursor-agent/auto",
        messages=[{"role": "user", "content": text}],
        **more,  # type: ignore[arg-type]
    )


def run(cell: CursorCell, context: RoundContext) -> RoundResult:
    """Return the round on the cursor-agent lane, failing (not hanging) past OUTER seconds."""

    async def bounded() -> RoundResult:
        return await asyncio.wait_for(cell.lanes["cursor-agent"](context), OUTER)

    return asyncio.run(bounded())


def kill(pid: int | None) -> None:
    """End process PID if it still runs (a test's cleanup of what escaped the group)."""
    if pid:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


def test_a_background_child_holding_stdout_does_not_lose_a_finished_turn(
    cell: CursorCell, standin: StandIn
) -> None:
    standin.play("background.ndjson")
    parts: list[StreamPart] = []
    try:
        result = run(cell, ctx(request_timeout=IDLE, on_part=parts.append))
    finally:
        (given,) = standin.runs()
        child = given["child_pid"]
    assert result.message["content"] == ANSWER
    assert [p.text for p in parts if isinstance(p, TextDelta)] == [ANSWER]
    # The child was in the CLI's group: ended with the round.
    assert gone(child), "the CLI's background child outlived the turn"


def test_a_daemon_holding_stdout_does_not_hang_the_turn_or_the_exit(
    standin: StandIn, home: Path
) -> None:
    # A daemon in a session of its own outlives any group signal: the turn still ends
    # once the CLI has exited, and the interpreter leaves without a traceback.
    standin.play("daemon.ndjson")
    script = (
        "import asyncio, sys\n"
        "from pathlib import Path\n"
        "from nodecode_cursor.cell import CursorCell\n"
        "from nodecode_cursor.host import MemoryHost, RoundContext\n"
        "cell = CursorCell(); cell.start(MemoryHost(Path(sys.argv[1])))\n"
        "ctx = RoundContext(model='cursor-agent/auto', request_timeout=20.0,\n"
        "                   messages=[{'role': 'user', 'content': 'go'}])\n"
        "print(asyncio.run(cell.lanes['cursor-agent'](ctx)).message['content'], flush=True)\n"
    )
    env = {**os.environ, **standin.env(), "CURSOR_API_KEY": API_KEY, "NODECODE_HOME": str(home)}
    try:
        done = subprocess.run(
            [sys.executable, "-c", script, str(home)],
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=OUTER,
        )
    finally:
        runs = standin.runs()
        kill(runs[0]["child_pid"] if runs else None)
    assert done.returncode == 0, done.stderr
    assert done.stdout == ANSWER + "\n"
    assert "Event loop is closed" not in done.stderr and "Traceback" not in done.stderr


def test_a_cli_that_never_reads_its_prompt_is_stopped_at_the_timeout(
    cell: CursorCell, standin: StandIn
) -> None:
    standin.play("deaf.ndjson")
    prompt = "x" * (200 * 1024)  # far more than a pipe holds: its writer blocks
    with pytest.raises(StreamIncomplete, match=r"printed nothing for 2 s"):
        run(cell, ctx(prompt, request_timeout=2))
    (given,) = standin.runs()
    assert given["prompt"] is None
    assert gone(given["pid"])


def test_a_cli_that_closes_stdout_and_lingers_keeps_its_answer(
    cell: CursorCell, standin: StandIn
) -> None:
    standin.play("linger.ndjson")
    result = run(cell, ctx(request_timeout=IDLE))
    assert result.message["content"] == ANSWER
    (given,) = standin.runs()
    assert gone(given["pid"]), "the lingering CLI outlived its turn"


def test_a_flood_of_answer_text_stops_at_the_reply_cap(standin: StandIn, home: Path) -> None:
    standin.play("flood.ndjson")  # 500 kB of text
    capped = started(home, {"max_reply_bytes": 64 * 1024})
    parts: list[StreamPart] = []
    try:
        with pytest.raises(ProviderError) as caught:
            run(capped, ctx(on_part=parts.append))
    finally:
        capped.stop()
    assert caught.value.code == "reply_too_large"
    assert "cursor.max_reply_bytes" in str(caught.value)
    streamed = sum(len(p.text) for p in parts if isinstance(p, TextDelta))
    assert 0 < streamed <= 64 * 1024  # what came before the cap was streamed, no more
    (given,) = standin.runs()
    assert gone(given["pid"])


def test_a_large_answer_under_the_cap_arrives_whole(cell: CursorCell, standin: StandIn) -> None:
    standin.play("flood.ndjson")
    result = run(cell, ctx())
    assert result.message["content"] == "flood" * 20 * 5000
