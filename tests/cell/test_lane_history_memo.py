"""A session's rounds through the lane read its history with a memo, and still send what it says.

The lane keeps each session's history as its last round read it
(``history_memo.HistoryMemo``). A host may change that history between rounds
(compacting an old tool result in place, say): the next request must carry the
history as it is now, exactly as a fresh process would build it.
"""

from __future__ import annotations

import json
from typing import Any

from runs import round_context

from cursor_simulator import Simulator
from nodecode_cursor.lanes import lane
from nodecode_cursor.state import CellState

TOKEN = "tok-memo-secret"


def call(n: int) -> dict[str, Any]:
    """Return an assistant message calling list_files (call N)."""
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": f"call_{n}",
                "type": "function",
                "function": {"name": "list_files", "arguments": json.dumps({"path": f"d{n}"})},
            }
        ],
    }


def result(n: int, text: str) -> dict[str, Any]:
    """Return the tool message answering call N."""
    return {"role": "tool", "tool_call_id": f"call_{n}", "content": text}


def state_of(sim: Simulator) -> tuple[list[bytes], list[bytes], str]:
    """Return the last run's root blob ids, turn ids, and its root messages as JSON text."""
    run = sim.agent.run(-1)
    assert run.run_request is not None
    state = run.run_request.conversation_state
    roots = [bytes(blob) for blob in state.root_prompt_messages_json]
    return roots, [bytes(turn) for turn in state.turns], json.dumps(run.root_messages())


def test_an_old_result_the_host_rewrites_in_place_is_sent_rewritten(sim: Simulator) -> None:
    state = CellState()
    messages: list[dict[str, Any]] = [{"role": "user", "content": "look in every folder"}]
    for n in range(3):
        messages += [call(n), result(n, f"OLD listing {n}")]
    ctx = round_context(sim.url, TOKEN, messages=messages, session_id="memo-session")
    lane.stream_round_sync(ctx, state)
    messages += [call(3), result(3, "listing 3")]
    lane.stream_round_sync(ctx, state)
    assert "OLD listing 1" in state_of(sim)[2]
    assert len(state.history_memos) == 1  # the session's rounds read with its memo
    # The host compacts: the same dict, another text; and a nested argument changes.
    messages[4]["content"] = "NEW listing 1"
    messages[3]["tool_calls"][0]["function"]["arguments"] = json.dumps({"path": "moved"})
    messages += [call(4), result(4, "listing 4")]
    lane.stream_round_sync(ctx, state)
    roots, turns, text = state_of(sim)
    assert "NEW listing 1" in text and "OLD listing 1" not in text
    assert "moved" in text
    # the history is the one a process that never saw the session builds
    lane.stream_round_sync(ctx, CellState())
    assert state_of(sim)[:2] == (roots, turns)
    assert sim.agent.violations() == []


def test_a_history_cut_back_to_an_earlier_round_is_sent_as_it_is_now(sim: Simulator) -> None:
    state = CellState()
    messages: list[dict[str, Any]] = [{"role": "user", "content": "look in every folder"}]
    for n in range(4):
        messages += [call(n), result(n, f"listing {n}")]
    ctx = round_context(sim.url, TOKEN, messages=messages, session_id="memo-rewind")
    lane.stream_round_sync(ctx, state)
    # a rewind: the last two rounds go, another takes their place (the list is one
    # message shorter than before, then as long)
    del messages[-4:]
    messages += [call(9), result(9, "another way")]
    lane.stream_round_sync(ctx, state)
    roots, turns, text = state_of(sim)
    assert "another way" in text and "listing 3" not in text
    lane.stream_round_sync(ctx, CellState())
    assert state_of(sim)[:2] == (roots, turns)
    assert sim.agent.violations() == []
