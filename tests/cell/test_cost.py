"""Estimated cost: the bundled rows' published rates, long-context tiers, and no invented price."""

from __future__ import annotations

import asyncio
import uuid

import pytest

from cursor_simulator import Simulator
from cursor_simulator.steps import End, Text, TurnEnded
from nodecode_cursor.core.cost import round_cost
from nodecode_cursor.host import RoundContext, Usage
from nodecode_cursor.lanes import lane
from nodecode_cursor.state import CellState

pytestmark = pytest.mark.sim_answer_timeout(5.0)

# Hand-copied from nodecode_cursor/data/models.json (USD per million tokens):
#   claude-4-sonnet: input 3, output 15, cache_read 0.3, cache_write 3.75
#   gpt-5.6-sol:     input 4, output 20, cache_read 0.4, cache_write 5;
#                    past 272 000 prompt tokens: input 8, output 20, cache_read 0.8, cache_write 10


def test_a_priced_model_at_its_rates() -> None:
    usage = Usage(input=1000, output=2000, cache_read=10_000, cache_write=4000)
    expected = (1000 * 3 + 2000 * 15 + 10_000 * 0.3 + 4000 * 3.75) / 1e6
    assert round_cost("claude-4-sonnet", usage) == pytest.approx(expected)
    assert round_cost("cursor/claude-4-sonnet", usage) == pytest.approx(expected)


def test_the_long_context_tier_applies_past_its_threshold() -> None:
    at_threshold = Usage(input=200_000, output=1000, cache_read=72_000)  # prompt = 272 000
    assert round_cost("gpt-5.6-sol", at_threshold) == pytest.approx(
        (200_000 * 4 + 1000 * 20 + 72_000 * 0.4) / 1e6
    )
    past = Usage(input=200_001, output=1000, cache_read=72_000, cache_write=100)
    assert round_cost("gpt-5.6-sol", past) == pytest.approx(
        (200_001 * 8 + 1000 * 20 + 72_000 * 0.8 + 100 * 10) / 1e6
    )


@pytest.mark.parametrize("model", ["composer-1.5", "default", "no-such-model"])
def test_no_price_no_estimate(model: str) -> None:
    assert round_cost(model, Usage(input=10, output=10)) is None


def _round(sim: Simulator, model: str) -> float | None:
    ctx = RoundContext(
        model=model,
        messages=[{"role": "user", "content": "hello"}],
        session_id=f"s-{uuid.uuid4()}",
        credential="tok",
        base_url=sim.url,
        request_timeout=10.0,
    )
    result = asyncio.run(lane.stream_round(ctx, CellState()))
    return result.cost_usd_estimate


def test_the_lane_puts_the_estimate_on_the_round(sim: Simulator) -> None:
    # Cursor's input counts the cache; the round's Usage.input does not.
    sim.agent.script(
        [Text("hi"), TurnEnded(input=300_000, output=500, cache_read=50_000, cache_write=0), End()]
    )
    cost = _round(sim, "gpt-5.6-sol")
    assert cost == pytest.approx((250_000 * 8 + 500 * 20 + 50_000 * 0.8) / 1e6)
    sim.agent.script([Text("hi"), TurnEnded(input=100, output=50), End()])
    assert _round(sim, "composer-1.5") is None
