"""Each cause of a refusal that says nothing, told apart and answered with its own remedy.

First pure: ``decisions.decide`` on the facts of each cause (docs/protocol.md §9).
Then whole rounds over real sockets against the simulator's switch for each cause,
asserting the error's words and that no rotation happened where none should (the
conversation's wire id unchanged). The windows named here were read by hand off
nodecode_cursor/data/models.json: ``composer-2.5`` ("Composer 2.5") 200,000 tokens;
``claude-4.5-sonnet`` ("Claude Sonnet 4.5") is Anthropic's, a third party's.
"""

from __future__ import annotations

import uuid
from dataclasses import replace
from typing import Any

import pytest
from runs import round_context

from cursor_simulator import Simulator
from cursor_simulator.models import RosterEntry
from cursor_simulator.steps import EndError, Heartbeat, Text, TurnEnded
from nodecode_cursor import limits
from nodecode_cursor.core.conversations import conversation_id_for
from nodecode_cursor.core.decisions import Next, Retries, RunFacts, decide, without_retry
from nodecode_cursor.errors import ProviderError, ResourceExhausted
from nodecode_cursor.lanes import lane
from nodecode_cursor.state import CellState

pytestmark = pytest.mark.sim_answer_timeout(5.0)

TOKEN = "tok-causes-secret"
REFUSED = ResourceExhausted("Connect error resource_exhausted: Error")
LATE_INVALID = ProviderError("Connect error invalid_argument", status=400, code="invalid_argument")
OWN, THIRD = "composer-2.5", "claude-4.5-sonnet"


def bare(**facts: Any) -> RunFacts:
    """Return the facts of a bare refusal of a small request on Cursor's own model."""
    base: dict[str, Any] = {"broke": REFUSED, "model": OWN, "display": "Composer 2.5"}
    base.update(facts)
    return RunFacts(**base)


# --- the pure decision -------------------------------------------------------------


def test_a_request_past_the_window_folds_harder_once_then_says_it_is_too_long() -> None:
    facts = bare(tokens=250_000, window=200_000, roots=40)
    first = decide(facts)
    assert (first.next, first.error) == (Next.FOLD_HARDER, REFUSED)
    again = decide(replace(facts, folded_harder=True))
    assert again.next is Next.FAIL and again.error is not None
    assert again.error.detail.startswith(
        "This conversation is too long for Composer 2.5 (composer-2.5): about 250,000 tokens"
        " of history against its 200,000-token context window"
    )
    assert (again.error.code, again.error.retryable) == ("conversation_too_long", False)


def test_a_request_inside_the_window_is_not_read_as_too_long() -> None:
    assert decide(bare(tokens=200_000, window=200_000)).next is Next.ROTATE
    assert decide(bare(tokens=900_000, window=0)).next is Next.ROTATE  # window unknown


@pytest.mark.parametrize(
    ("roots", "budget", "near"),
    [(172, 192, False), (173, 192, True), (209, 1000, True), (208, 1000, False)],
)
def test_a_late_invalid_argument_folds_harder_only_near_the_root_wall(
    roots: int, budget: int, near: bool
) -> None:
    facts = RunFacts(broke=LATE_INVALID, model=OWN, roots=roots, budget_roots=budget)
    decision = decide(facts)
    assert decision.next is (Next.FOLD_HARDER if near else Next.FAIL)
    if not near:
        assert decision.error is LATE_INVALID


def test_a_late_invalid_argument_after_folding_harder_says_the_history_is_too_long() -> None:
    facts = RunFacts(broke=LATE_INVALID, model=OWN, roots=180, folded_harder=True)
    decision = decide(facts)
    assert decision.next is Next.FAIL and decision.error is not None
    assert "too long for Cursor" in decision.error.detail
    assert "with 180 history blobs" in decision.error.detail


def test_an_invalid_argument_after_tokens_is_no_root_wall() -> None:
    facts = RunFacts(broke=LATE_INVALID, roots=190, saw_token_delta=True)
    assert decide(facts).next is Next.FAIL and decide(facts).error is LATE_INVALID


def test_a_model_the_roster_does_not_list_fails_naming_two_it_lists_without_rotating() -> None:
    facts = bare(
        model=THIRD,
        display="Claude Sonnet 4.5",
        listed=False,
        roster_models=("gpt-5.4", OWN),
        retries=Retries(variant=True),
    )
    decision = decide(facts)
    assert decision.next is Next.FAIL and decision.error is not None
    assert decision.error.detail == (
        "Cursor refused Claude Sonnet 4.5 (claude-4.5-sonnet): the account's model list does"
        " not include it (the plan may not allow it); choose one it lists, such as gpt-5.4"
        " or composer-2.5"
    )
    assert decision.error.code == "model_not_listed"


@pytest.mark.parametrize("listed", [True, None], ids=["listed", "roster unknown"])
def test_a_listed_model_or_an_unknown_roster_is_no_roster_cause(listed: bool | None) -> None:
    assert decide(bare(listed=listed)).next is Next.ROTATE


def test_a_third_party_model_refused_again_after_a_rotation_may_have_spent_its_pool() -> None:
    first = decide(bare(model=THIRD, display="Claude Sonnet 4.5", third_party=True))
    assert first.next is Next.ROTATE  # the first refusal may be a poisoned id
    again = decide(replace(first.facts, rotations=1, in_streak=True))
    assert again.next is Next.FAIL and again.error is not None
    detail = again.error.detail
    assert "pool for third-party models may be spent" in detail
    assert "composer-2.5" in detail and "Auto" in detail
    assert again.error.code == "third_party_pool_spent"


def test_cursors_own_model_refused_again_rotates_as_before_up_to_the_cap() -> None:
    again = bare(rotations=1, in_streak=True)
    assert decide(again).next is Next.ROTATE
    spent = decide(replace(again, rotations=limits.MAX_ROTATIONS))
    assert spent.next is Next.FAIL and spent.error is not None
    assert spent.error.code == "conversation_refused"


def test_a_variant_retry_comes_before_the_pool_and_after_the_window() -> None:
    variant = bare(model=THIRD, third_party=True, in_streak=True, retries=Retries(variant=True))
    decision = decide(variant)
    assert decision.next is Next.RETRY_VARIANT
    assert without_retry(decision).next is Next.FAIL  # then the pool
    too_long = replace(variant, tokens=300_000, window=200_000)
    assert decide(too_long).next is Next.FOLD_HARDER


# --- whole rounds against the simulator --------------------------------------------


def context(sim: Simulator, **overrides: Any) -> Any:
    """Return a round of this file at SIM (its token, a new session unless given)."""
    return round_context(sim.url, TOKEN, **overrides)


def wire_ids(sim: Simulator) -> list[str]:
    """Return the conversation id of every run the simulator saw, in order."""
    return [r.run_request.conversation_id for r in sim.agent.runs if r.run_request is not None]


def big_turn(size: int) -> list[dict[str, Any]]:
    """Return a history whose current turn holds one finished call with a SIZE-byte result."""
    call = {"id": "call_big", "type": "function"}
    call["function"] = {"name": "list_files", "arguments": '{"path":"."}'}
    return [
        {"role": "user", "content": "list everything"},
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "call_big", "content": "f" * size},
    ]


def test_a_history_past_the_window_is_refused_bare_and_said_too_long_without_rotating(
    sim: Simulator, state: CellState
) -> None:
    session = f"long-{uuid.uuid4()}"
    # The current turn is kept whole by any fold, so folding harder cannot save it.
    ctx = context(sim, model=OWN, session_id=session, messages=big_turn(900_000))
    with pytest.raises(ProviderError) as caught:
        lane.stream_round_sync(ctx, state)
    detail = caught.value.detail
    assert detail.startswith("This conversation is too long for Composer 2.5 (composer-2.5): ")
    assert "against its 200,000-token context window" in detail
    assert caught.value.code == "conversation_too_long"
    runs = sim.agent.runs
    assert len(runs) == 2  # folded harder once, then no more
    assert all(run.root_tokens is not None and run.root_tokens > 200_000 for run in runs)
    assert wire_ids(sim) == [conversation_id_for(session)] * 2  # never rotated
    assert state.conversations.get(session).rotations == 0


def test_the_window_switch_off_lets_the_long_history_run(sim: Simulator, state: CellState) -> None:
    sim.agent.refuse_past_window = False
    sim.agent.script([Text("read it"), TurnEnded(5, 1)])
    result = lane.stream_round_sync(context(sim, model=OWN, messages=big_turn(900_000)), state)
    assert result.message["content"] == "read it"


def many_turns(count: int) -> list[dict[str, Any]]:
    """Return COUNT earlier user/assistant exchanges and a last question."""
    history: list[dict[str, Any]] = []
    for index in range(count):
        history.append({"role": "user", "content": f"question {index}"})
        history.append({"role": "assistant", "content": f"answer {index}"})
    return [*history, {"role": "user", "content": "and now?"}]


def test_a_late_invalid_argument_near_the_root_wall_folds_harder_and_goes_on(
    sim: Simulator, state: CellState
) -> None:
    session = f"roots-{uuid.uuid4()}"
    sim.agent.script([Heartbeat(), EndError("invalid_argument", "")])
    sim.agent.script([Text("folded"), TurnEnded(5, 1)])
    ctx = context(sim, model=OWN, session_id=session, messages=many_turns(90))
    result = lane.stream_round_sync(ctx, state)
    assert result.message["content"] == "folded"
    first, second = (run.run_request for run in sim.agent.runs)
    assert first is not None and second is not None
    roots = first.conversation_state.root_prompt_messages_json
    assert len(roots) >= limits.HISTORY_BUDGET_ROOTS * limits.ROOT_WALL_SHARE // 100
    assert len(second.conversation_state.root_prompt_messages_json) <= len(roots)
    assert wire_ids(sim) == [conversation_id_for(session)] * 2


def test_a_late_invalid_argument_again_after_folding_says_the_history_is_too_long(
    sim: Simulator, state: CellState
) -> None:
    for _ in range(2):
        sim.agent.script([Heartbeat(), EndError("invalid_argument", "")])
    with pytest.raises(ProviderError) as caught:
        lane.stream_round_sync(context(sim, model=OWN, messages=many_turns(90)), state)
    assert caught.value.code == "conversation_too_long"
    assert "too long for Cursor" in caught.value.detail
    assert len(sim.agent.runs) == 2


def test_a_model_the_roster_does_not_list_is_named_with_two_it_lists(
    sim: Simulator, state: CellState
) -> None:
    sim.models.roster = [RosterEntry(OWN, "Composer 2.5"), RosterEntry("gpt-5.4", "GPT-5.4")]
    session = f"unlisted-{uuid.uuid4()}"
    with pytest.raises(ProviderError) as caught:
        lane.stream_round_sync(context(sim, model=THIRD, session_id=session), state)
    detail = caught.value.detail
    assert detail.startswith("Cursor refused Claude Sonnet 4.5 (claude-4.5-sonnet): ")
    assert "model list does not include it" in detail
    assert "composer-2.5" in detail and "gpt-5.4" in detail
    assert caught.value.code == "model_not_listed"
    assert len(sim.agent.runs) == 1  # no rotation, no retry
    assert state.conversations.get(session).conversation_id == conversation_id_for(session)
    assert state.conversations.get(session).rotations == 0
    # A model it lists runs.
    result = lane.stream_round_sync(context(sim, model=OWN), state)
    assert result.finish_reason == "stop"


def test_the_roster_switch_off_runs_an_unlisted_model(sim: Simulator, state: CellState) -> None:
    sim.models.roster = [RosterEntry(OWN, "Composer 2.5")]
    sim.agent.refuse_unlisted_models = False
    assert lane.stream_round_sync(context(sim, model=THIRD), state).finish_reason == "stop"


def test_an_empty_third_party_pool_is_said_after_one_rotation_and_own_models_answer(
    sim: Simulator, state: CellState
) -> None:
    sim.agent.pool_empty = True
    session = f"pool-{uuid.uuid4()}"
    with pytest.raises(ProviderError) as first:
        lane.stream_round_sync(context(sim, model=THIRD, session_id=session), state)
    assert first.value.code == "resource_exhausted"  # may be a poisoned id: rotated
    with pytest.raises(ProviderError) as again:
        lane.stream_round_sync(context(sim, model=THIRD, session_id=session), state)
    detail = again.value.detail
    assert "the account's pool for third-party models may be spent" in detail
    assert "composer-2.5" in detail and "Auto" in detail
    assert again.value.code == "third_party_pool_spent"
    original, rotated = conversation_id_for(session), wire_ids(sim)[1]
    assert wire_ids(sim) == [original, rotated] and rotated != original  # rotated once only
    assert state.conversations.get(session).rotations == 1
    own = lane.stream_round_sync(context(sim, model=OWN), state)
    assert own.finish_reason == "stop"
