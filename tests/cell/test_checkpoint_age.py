"""A kept checkpoint ages: past the service's keeping time, or after a refusal, it is not sent.

Pure first (the clock is a value passed in; no sleeps), then whole rounds over real
sockets against the simulator, whose ``Checkpoint()`` step sets
``token_details.used_tokens = 100``: a request that carries 100 there was lent the
kept checkpoint, one that carries 0 was rebuilt from the history.
"""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from runs import round_context

from cursor_simulator import Simulator
from cursor_simulator.steps import Checkpoint, End, EndError, Text, TurnEnded
from nodecode_cursor import limits
from nodecode_cursor._proto import agent_pb2
from nodecode_cursor.core.blobs import Conversation
from nodecode_cursor.core.request import build_run_request
from nodecode_cursor.errors import ProviderError
from nodecode_cursor.lanes import lane
from nodecode_cursor.models.routing import WireModel
from nodecode_cursor.state import CellState

pytestmark = pytest.mark.sim_answer_timeout(5.0)

AGE = limits.CHECKPOINT_MAX_AGE_SECONDS
GPT = WireModel("gpt-5", "gpt-5", (), False)
SYSTEM = (b"s" * 32,)


def kept(at: float) -> Conversation:
    """Return a conversation holding a checkpoint (used tokens 7) that came AT."""
    conversation = Conversation("c")
    checkpoint = agent_pb2.ConversationStateStructure()
    checkpoint.token_details.used_tokens = 7
    conversation.keep_checkpoint(checkpoint, SYSTEM, now=at)
    return conversation


def test_the_limit_is_fifteen_minutes() -> None:
    assert AGE == 15 * 60


def test_a_checkpoint_is_lent_until_it_is_older_than_the_limit() -> None:
    conversation = kept(1000.0)
    assert conversation.checkpoint_for(SYSTEM, now=1000.0 + AGE) is not None
    assert conversation.checkpoint_for(SYSTEM, now=1000.0 + AGE + 1) is None
    assert conversation.checkpoint_for(SYSTEM) is not None  # no clock: not aged


def test_expiring_drops_only_an_aged_checkpoint() -> None:
    conversation = kept(50.0)
    assert not conversation.expire_checkpoint(50.0 + AGE)
    assert conversation.checkpoint is not None
    assert conversation.expire_checkpoint(50.0 + AGE + 0.5)
    assert (conversation.checkpoint, conversation.checkpoint_at) == (None, None)
    assert conversation.checkpoint_system_ids == ()


def test_an_expired_checkpoint_is_not_in_the_request() -> None:
    conversation = Conversation("c")
    messages = [{"role": "user", "content": "hi"}]
    first = build_run_request(messages, "be brief", GPT, "gpt-5", "GPT-5", conversation)
    checkpoint = agent_pb2.ConversationStateStructure()
    checkpoint.token_details.used_tokens = 7
    conversation.keep_checkpoint(checkpoint, first.history.system_ids, now=0.0)
    fresh = build_run_request(messages, "be brief", GPT, "gpt-5", "GPT-5", conversation)
    assert fresh.reused_checkpoint
    assert conversation.expire_checkpoint(AGE + 1)
    aged = build_run_request(messages, "be brief", GPT, "gpt-5", "GPT-5", conversation)
    assert not aged.reused_checkpoint
    assert not aged.message.run_request.conversation_state.HasField("token_details")


# --- whole rounds ------------------------------------------------------------------


def first_round(sim: Simulator, state: CellState) -> tuple[str, list[dict[str, Any]]]:
    """Run a round that ends with a checkpoint; return its session and the next history."""
    session = f"age-{uuid.uuid4()}"
    sim.agent.script([Text("one"), TurnEnded(3, 1), Checkpoint(), End()])
    ctx = round_context(sim.url, "tok-age", "hello", session_id=session)
    result = lane.stream_round_sync(ctx, state)
    history = [*ctx.messages, result.message, {"role": "user", "content": "again"}]
    return session, history


def next_round(sim: Simulator, state: CellState, session: str, history: Any) -> int:
    """Run the session's next round; return the used tokens its request's state carried."""
    ctx = round_context(sim.url, "tok-age", session_id=session, messages=history)
    lane.stream_round_sync(ctx, state)
    request = sim.agent.run().run_request
    assert request is not None
    return int(request.conversation_state.token_details.used_tokens)


def test_a_fresh_checkpoint_is_lent_to_the_next_round(sim: Simulator, state: CellState) -> None:
    session, history = first_round(sim, state)
    assert next_round(sim, state, session, history) == 100


def test_a_checkpoint_older_than_the_limit_is_not_sent(sim: Simulator, state: CellState) -> None:
    session, history = first_round(sim, state)
    conversation = state.conversations.get(session)
    assert conversation.checkpoint is not None and conversation.checkpoint_at is not None
    conversation.checkpoint_at -= AGE + 1  # it came sixteen minutes ago
    assert next_round(sim, state, session, history) == 0
    assert conversation.checkpoint is not None  # the round's own new one is kept


@pytest.mark.parametrize("code", ["invalid_argument", "failed_precondition"])
def test_a_run_ending_invalid_or_failed_precondition_drops_the_checkpoint(
    sim: Simulator, state: CellState, code: str
) -> None:
    session, history = first_round(sim, state)
    conversation = state.conversations.get(session)
    # Twice: a silent invalid_argument may be the model fields', retried once on
    # requested_model alone (docs/protocol.md §7b); refused again, the round fails.
    for _ in range(2 if code == "invalid_argument" else 1):
        sim.agent.script([EndError(code, "state")])
    with pytest.raises(ProviderError):
        lane.stream_round_sync(
            round_context(sim.url, "tok-age", session_id=session, messages=history), state
        )
    assert conversation.checkpoint is None
    assert conversation.rotations == 0  # dropped, not rotated
    assert next_round(sim, state, session, history) == 0
