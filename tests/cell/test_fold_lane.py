"""Rounds of a long history against a simulator that ends runs past 208 roots, as Cursor does."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest
from runs import round_context
from test_fold_history import session

from cursor_simulator import Simulator
from nodecode_cursor.errors import ProviderError
from nodecode_cursor.host import MemoryHost, RoundContext
from nodecode_cursor.lanes import lane
from nodecode_cursor.state import CellState

pytestmark = pytest.mark.sim_answer_timeout(5.0)

TOKEN = "tok-fold-secret"


def long_round(sim: Simulator, **overrides: Any) -> RoundContext:
    """Return a round whose history is 120 finished calls (over 240 root blobs) on one question."""
    return round_context(sim.url, TOKEN, **{"messages": session(120), **overrides})


def test_without_a_budget_the_strict_simulator_ends_the_run_late_with_invalid_argument(
    sim: Simulator, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CURSOR_HISTORY_BUDGET", "100000,1000000000")
    with pytest.raises(ProviderError):
        lane.stream_round_sync(long_round(sim), CellState())
    first = sim.agent.run(0)
    assert first.run_request is not None
    assert len(first.run_request.conversation_state.root_prompt_messages_json) > 208
    # it hydrated a few roots before it refused
    assert len(first.served) == 3
    assert not sim.agent.violations()


def test_with_the_budget_a_long_history_folds_and_the_round_answers_from_the_last_result(
    sim: Simulator, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    host = MemoryHost(tmp_path)
    state = CellState()
    ctx = long_round(sim, host=host)
    with caplog.at_level(logging.INFO, logger="nodecode_cursor.lanes.round_conversation"):
        result = lane.stream_round_sync(ctx, state)
    roots = sim.agent.run().run_request.conversation_state.root_prompt_messages_json
    assert len(roots) <= 192
    assert result.folded > 0 and "root blobs" in result.fold_reason
    assert result.message["content"] == "read returned: r119:" + "x" * 200
    assert f"history folded: {result.folded} earlier messages" in caplog.text
    notice = host.notices[lane.FOLD_NOTICE_KEY]
    assert notice.level == "info" and f"oldest {result.folded} messages" in notice.text
    # Told once per session: a later round that folds too sets no notice again.
    host.notice(None, key=lane.FOLD_NOTICE_KEY)
    messages = [*ctx.messages, result.message, {"role": "user", "content": "and then?"}]
    again = lane.stream_round_sync(
        long_round(sim, host=host, session_id=ctx.session_id, messages=messages), state
    )
    assert again.folded > 0 and lane.FOLD_NOTICE_KEY not in host.notices
    assert not sim.agent.violations()


def test_the_budget_setting_folds_harder(sim: Simulator) -> None:
    result = lane.stream_round_sync(long_round(sim, history_budget=(64, 65536)), CellState())
    roots = sim.agent.run().run_request.conversation_state.root_prompt_messages_json
    assert len(roots) <= 64 and result.folded > 150
