"""HTTP/2 connections that end under a round: GOAWAY, a PING unanswered, idleness.

Over real sockets against the simulator's HTTP/2 side (prior knowledge on its
cleartext port). A round cut after a checkpoint goes on from it on a new
connection, as a new stream naming the first run; cut before any checkpoint it
fails cleanly. The simulator's fault knobs act on the first connection only
(``faulty_connections``), so the resumed run is served whole.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from typing import Any

import pytest

from cursor_simulator import Simulator
from cursor_simulator.steps import AskRequestContext, Checkpoint, KvRead, Sleep, Text, TurnEnded
from nodecode_cursor.errors import StreamIncomplete
from nodecode_cursor.host import RoundContext, StreamPart, TextDelta
from nodecode_cursor.lanes import lane
from nodecode_cursor.state import CellState

pytestmark = pytest.mark.sim_answer_timeout(5.0)

TOKEN = "tok-h2-recovery-secret"

# The first run: the request-context ask, a blob read, "Simulated ", a checkpoint,
# "Cursor " -- five DATA frames -- then a pause before what the fault cuts off.
CUT_AFTER_CHECKPOINT = [
    AskRequestContext(),
    KvRead(),
    Text("Simulated "),
    Checkpoint(),
    Text("Cursor "),
    Sleep(0.3),
    Text("lost"),
    TurnEnded(),
]
FRAMES_BEFORE_THE_CUT = 5


def context(url: str, parts: list[StreamPart] | None = None, **overrides: Any) -> RoundContext:
    fields: dict[str, Any] = {
        "model": "claude-4.5-sonnet",
        "messages": [{"role": "user", "content": "hello"}],
        "session_id": f"session-{uuid.uuid4()}",
        "credential": TOKEN,
        "base_url": url,
        "request_timeout": 10.0,
        "transport": "http2",
    }
    if parts is not None:
        fields["on_part"] = parts.append
    fields.update(overrides)
    return RoundContext(**fields)


def texts(parts: list[StreamPart]) -> list[str]:
    return [p.text for p in parts if isinstance(p, TextDelta)]


def assert_resumed_on_a_new_stream(sim: Simulator) -> None:
    first, second = sim.agent.runs
    assert first.route == second.route == "http2"
    assert first.request_id != second.request_id
    assert "x-original-request-id" not in first.headers
    assert second.headers["x-original-request-id"] == first.request_id
    assert second.headers["x-request-id"] == second.request_id
    assert second.run_request is not None
    # ConversationAction{2 resume_action{}} = 12 00.
    assert second.run_request.action.SerializeToString() == b"\x12\x00"
    assert sim.agent.violations() == []


# --- GOAWAY ------------------------------------------------------------------------------


def test_goaway_after_a_checkpoint_resumes_on_a_new_connection_with_the_text_whole(
    sim: Simulator,
) -> None:
    # The cut falls after a counted number of frames: the window check's KV asks,
    # which hydrate the roots first, would move it, so that check is off here.
    sim.agent.refuse_past_window = False
    sim.server.h2.goaway_after = FRAMES_BEFORE_THE_CUT
    sim.server.h2.faulty_connections = 1
    sim.agent.script(CUT_AFTER_CHECKPOINT)
    state = CellState()
    parts: list[StreamPart] = []

    async def main() -> Any:
        result = await lane.stream_round(context(sim.url, parts), state)
        await state.run_connections.aclose()
        return result

    result = asyncio.run(main())
    assert result.message["content"] == "Simulated Cursor here. You said: hello"
    assert result.finish_reason == "stop"
    # Nothing said twice: "Cursor " came before the GOAWAY and is not repeated.
    assert texts(parts) == ["Simulated ", "Cursor ", "here. You said: hello"]
    assert_resumed_on_a_new_stream(sim)
    assert sim.server.h2.connections == 2  # the GOAWAY'd connection took no new stream
    assert state.run_connections.opened == 2


def test_goaway_before_any_checkpoint_fails_the_round_cleanly(sim: Simulator) -> None:
    sim.server.h2.goaway_after = 3
    sim.server.h2.faulty_connections = 1
    sim.agent.script([AskRequestContext(), KvRead(), Text("half"), Sleep(0.3), TurnEnded()])
    state = CellState()

    async def main() -> None:
        try:
            await lane.stream_round(context(sim.url), state)
        finally:
            await state.run_connections.aclose()

    with pytest.raises(StreamIncomplete) as caught:
        asyncio.run(main())
    assert "GOAWAY" in str(caught.value) and caught.value.retryable
    assert len(sim.agent.runs) == 1  # nothing to resume from: no second run


# --- a PING unanswered ----------------------------------------------------------------------


def pinging_state() -> CellState:
    """Return a state whose connections PING every 0.1 s and give up after 0.3 s unanswered."""
    state = CellState()
    state.run_connections.ping_seconds = 0.1
    state.run_connections.ping_timeout_seconds = 0.3
    return state


def test_a_connection_that_stops_answering_pings_is_ended_and_the_round_resumes(
    sim: Simulator, caplog: pytest.LogCaptureFixture
) -> None:
    # The cut falls after a counted number of frames: the window check's KV asks,
    # which hydrate the roots first, would move it, so that check is off here.
    sim.agent.refuse_past_window = False
    # After "Cursor " the first connection goes silent: no frame, no PING answer.
    sim.server.h2.mute_after = FRAMES_BEFORE_THE_CUT
    sim.server.h2.faulty_connections = 1
    sim.agent.script(CUT_AFTER_CHECKPOINT)
    state = pinging_state()
    parts: list[StreamPart] = []

    async def main() -> Any:
        result = await lane.stream_round(context(sim.url, parts, request_timeout=60.0), state)
        await state.run_connections.aclose()
        return result

    started = time.monotonic()
    with caplog.at_level("DEBUG", logger="nodecode_cursor"):
        result = asyncio.run(main())
    elapsed = time.monotonic() - started
    assert result.message["content"] == "Simulated Cursor here. You said: hello"
    assert texts(parts) == ["Simulated ", "Cursor ", "here. You said: hello"]
    assert_resumed_on_a_new_stream(sim)
    # The missed PING ended it, not the 60 s request timeout.
    assert elapsed < 30
    assert any("missed a PING" in r.getMessage() for r in caplog.records)
    assert sim.server.h2.connections == 2


def test_a_connection_that_stops_answering_pings_before_a_checkpoint_fails_cleanly(
    sim: Simulator,
) -> None:
    sim.server.h2.mute_after = 3
    sim.server.h2.faulty_connections = 1
    sim.agent.script([AskRequestContext(), KvRead(), Text("half"), Sleep(0.3), TurnEnded()])
    state = pinging_state()

    async def main() -> None:
        try:
            await lane.stream_round(context(sim.url, request_timeout=60.0), state)
        finally:
            await state.run_connections.aclose()

    started = time.monotonic()
    with pytest.raises(StreamIncomplete) as caught:
        asyncio.run(main())
    assert time.monotonic() - started < 30  # the missed PING, not the 60 s request timeout
    assert "stopped answering PINGs" in str(caught.value) and caught.value.retryable
    assert len(sim.agent.runs) == 1


# --- idleness -------------------------------------------------------------------------------


def test_an_idle_connection_closes_itself_and_the_next_round_dials_anew(sim: Simulator) -> None:
    state = CellState()
    state.run_connections.idle_seconds = 0.3

    async def main() -> tuple[int, int, int]:
        await lane.stream_round(context(sim.url), state)
        await lane.stream_round(context(sim.url), state)  # at once: the same connection
        kept = len(state.run_connections.connections())
        # The connection's idle watch ends as it closes it (its abort cancels the
        # connection's tasks, the watch too), with no round asking.
        (idle,) = [t for t in asyncio.all_tasks() if t.get_name() == "cursor-h2-idle"]
        await asyncio.wait({idle})
        left = len(state.run_connections.connections())
        await lane.stream_round(context(sim.url), state)
        opened = state.run_connections.opened
        await state.run_connections.aclose()
        return kept, left, opened

    kept, left, opened = asyncio.run(main())
    assert kept == 1
    assert left == 0  # closed by its own idleness, before any round looked at it
    assert opened == 2
    assert sim.server.h2.connections == 2
    assert sim.server.h2.streams == 3
