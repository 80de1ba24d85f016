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
from cursor_simulator.agent import AskRequestContext, Checkpoint, KvRead, Sleep, Text, TurnEnded
from nodecode_cursor import lane
from nodecode_cursor.errors import StreamIncomplete
from nodecode_cursor.host import RoundContext, StreamPart, TextDelta
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
