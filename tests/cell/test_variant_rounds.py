"""Rounds on catalog variants over real sockets: the base id + parameters shape, and its retry.

Cursor refuses a sibling slug sent with no parameters (a bare ``resource_exhausted``,
message ``Error``) on models whose catalog names it as a variant; the simulator does
the same (``refuse_bare_siblings``, on by default). Expected RequestedModel bytes are
written by hand: RequestedModel{1 model_id, 2 max_mode, 3 parameters{1 id, 2 value}}.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest
from protobytes import ld, text

from cursor_simulator import Simulator
from cursor_simulator.models import RosterEntry
from cursor_simulator.records import RunRecord
from cursor_simulator.steps import Step, Text, TurnEnded
from nodecode_cursor.cell import CursorCell
from nodecode_cursor.errors import ResourceExhausted
from nodecode_cursor.host import MemoryHost, RoundContext
from nodecode_cursor.lanes import lane
from nodecode_cursor.models import listing
from nodecode_cursor.state import CellState

pytestmark = pytest.mark.sim_answer_timeout(5.0)

TOKEN = "tok-variants"


def context(sim: Simulator, model: str, effort: str | None = None, **more: Any) -> RoundContext:
    fields: dict[str, Any] = {
        "model": model,
        "effort": effort,
        "messages": [{"role": "user", "content": "hello"}],
        "session_id": f"session-{uuid.uuid4()}",
        "credential": TOKEN,
        "base_url": sim.url,
        "request_timeout": 10.0,
    }
    fields.update(more)
    return RoundContext(**fields)


def parameter(key: str, value: str) -> bytes:
    return ld(3, text(1, key), text(2, value))


def sent_requested_model(sim: Simulator, index: int = -1) -> bytes:
    request = sim.agent.run(index).run_request
    assert request is not None
    return request.requested_model.SerializeToString()


def sent_details_slug(sim: Simulator, index: int = -1) -> str:
    request = sim.agent.run(index).run_request
    assert request is not None
    return str(request.model_details.model_id)


def test_a_claude_sibling_goes_as_base_id_and_parameters(sim: Simulator, state: CellState) -> None:
    sim.agent.script([Text("hi from sonnet"), TurnEnded(1, 1)])
    result = lane.stream_round_sync(context(sim, "claude-sonnet-5-medium"), state)
    assert result.message["content"] == "hi from sonnet"
    assert sent_requested_model(sim) == text(1, "claude-sonnet-5") + parameter(
        "thinking", "true"
    ) + parameter("effort", "medium")
    # ModelDetails keeps the account-usable sibling slug; the result names it too.
    assert sent_details_slug(sim) == "claude-sonnet-5-medium"
    assert result.wire_model == "claude-sonnet-5-medium"
    flags = sim.catalog.requests[-1]
    assert flags.use_model_parameters and flags.do_not_use_markdown


def test_a_gpt_route_takes_the_catalog_parameters(sim: Simulator, state: CellState) -> None:
    sim.agent.script([Text("sol"), TurnEnded(1, 1)])
    lane.stream_round_sync(context(sim, "gpt-5.6-sol", "high"), state)
    assert sent_requested_model(sim) == text(1, "gpt-5.6-sol") + parameter(
        "context", "272k"
    ) + parameter("reasoning", "high")
    assert sent_details_slug(sim) == "gpt-5.6-sol-high"


def test_a_gpt_route_without_a_catalog_keeps_the_effort_parameter(
    sim: Simulator, state: CellState
) -> None:
    sim.catalog.refuse(503, "unavailable", "catalog down")
    sim.agent.script([Text("mini"), TurnEnded(1, 1)])
    lane.stream_round_sync(context(sim, "gpt-5.4-mini", "low"), state)
    # The bundled rows' own shape: base id + reasoning, which Cursor accepts.
    assert sent_requested_model(sim) == text(1, "gpt-5.4-mini") + parameter("reasoning", "low")


def test_a_refused_bare_slug_asks_the_catalog_again_and_retries_once(
    sim: Simulator, state: CellState
) -> None:
    sim.catalog.refuse(503, "unavailable", "catalog down")

    def first_run(run: RunRecord) -> Iterable[Step]:
        # By the time Cursor refuses the bare slug, the catalog answers again.
        sim.catalog.refusal = None
        return [Text("never streamed")]

    sim.agent.script(first_run)
    sim.agent.script([Text("on the variant"), TurnEnded(1, 1)])
    result = lane.stream_round_sync(context(sim, "claude-sonnet-5-medium"), state)
    assert result.message["content"] == "on the variant"
    assert len(sim.agent.runs) == 2
    assert sent_requested_model(sim, 0) == text(1, "claude-sonnet-5-medium")  # bare
    assert sent_requested_model(sim, 1) == text(1, "claude-sonnet-5") + parameter(
        "thinking", "true"
    ) + parameter("effort", "medium")
    # Not a rotation: both runs carry the same conversation.
    first, second = sim.agent.run(0).run_request, sim.agent.run(1).run_request
    assert first is not None and second is not None
    assert first.conversation_id == second.conversation_id


def test_a_bare_refusal_the_catalog_cannot_explain_rotates_and_fails(
    sim: Simulator, state: CellState
) -> None:
    sim.catalog.refuse(503, "unavailable", "catalog down")
    ctx = context(sim, "claude-sonnet-5-medium")
    with pytest.raises(ResourceExhausted):
        lane.stream_round_sync(ctx, state)
    assert len(sim.agent.runs) == 1  # no second run: the catalog still said nothing
    assert len(sim.catalog.requests) == 2  # asked before the run and once after the refusal
    first = sim.agent.run(0).run_request
    assert first is not None
    conversation = state.conversations.get(ctx.session_id)
    assert conversation.conversation_id != first.conversation_id  # rotated


def test_the_catalog_is_asked_once_for_many_rounds(sim: Simulator, state: CellState) -> None:
    async def rounds() -> None:
        for _ in range(3):
            sim.agent.script([Text("x"), TurnEnded(1, 1)])
        await asyncio.gather(
            *(lane.stream_round(context(sim, "claude-sonnet-5-medium"), state) for _ in range(3))
        )

    asyncio.run(rounds())
    assert len(sim.catalog.requests) == 1


def test_a_stopped_state_keeps_no_catalog(sim: Simulator) -> None:
    state = CellState()
    state.close()
    asyncio.run(listing.fetch_catalog(TOKEN, sim.url, state=state))
    assert state.models.catalogs == {}


def test_logout_forgets_the_catalog(sim: Simulator, tmp_path: Path) -> None:
    cell = CursorCell()
    assert cell.start(MemoryHost(tmp_path, {"cursor": {"base_url": sim.url}}))
    try:
        assert cell.state is not None
        asyncio.run(listing.fetch_catalog(TOKEN, sim.url, state=cell.state))
        assert len(cell.state.models.catalogs) == 1
        cell.commands["cursor"].run("logout")
        assert cell.state.models.catalogs == {}
    finally:
        cell.stop()


def test_the_model_list_joins_the_catalog(sim: Simulator, state: CellState) -> None:
    sim.models.roster = [
        RosterEntry("gpt-5.4-mini-low", "GPT-5.4 Mini Low"),
        RosterEntry("claude-sonnet-5-max", "Claude Sonnet 5 Max", max_mode=True),
        RosterEntry("composer-2.5", "Composer 2.5"),
    ]
    roster = asyncio.run(listing.list_models(TOKEN, sim.url, state=state))
    assert roster.live
    by_id = {m.id: m for m in roster.models}
    mini = by_id["gpt-5.4-mini-low"]
    assert mini.name == "GPT-5.4 Mini Low"  # the roster names the slug
    assert mini.context_window == 272_000  # the catalog's window
    assert mini.parameters == (("reasoning", ("low", "medium", "high")),)
    sonnet = by_id["claude-sonnet-5-max"]
    assert sonnet.max_context_window == 1_000_000 and sonnet.thinking and sonnet.images
    assert dict(sonnet.parameters)["effort"] == ("low", "medium", "high", "xhigh")
    composer = by_id["composer-2.5"]
    assert composer.parameters == () and composer.images is None  # not in the catalog


def test_the_model_list_without_a_catalog_is_the_roster_alone(
    sim: Simulator, state: CellState
) -> None:
    sim.catalog.refuse(503, "unavailable", "catalog down")
    roster = asyncio.run(listing.list_models(TOKEN, sim.url, state=state))
    assert roster.live and all(m.parameters == () for m in roster.models)
