"""The Kimi K3 writer table and replay policy, through the run request they shape."""

from __future__ import annotations

import pytest

from nodecode_cursor import limits
from nodecode_cursor._proto import agent_pb2
from nodecode_cursor.core.blobs import Conversation
from nodecode_cursor.core.request import build_run_request
from nodecode_cursor.core.writers import WriterTable, check_history, replay_policy, round_digest
from nodecode_cursor.errors import ConfigError
from nodecode_cursor.models.routing import WireModel

K3 = "kimi-k3-high"
WIRE = WireModel(K3, K3, (), False)
ROUND = {"role": "assistant", "content": "four", "reasoning_content": "2+2"}


def history(answer: dict[str, object]) -> list[dict[str, object]]:
    """Return a two-round history around ANSWER."""
    return [{"role": "user", "content": "2+2?"}, answer, {"role": "user", "content": "and 3+3?"}]


def test_the_digest_covers_text_thinking_and_call_ids() -> None:
    base = round_digest(ROUND)
    assert round_digest(dict(ROUND)) == base
    assert round_digest({**ROUND, "content": "five"}) != base
    assert round_digest({**ROUND, "reasoning_content": "3"}) != base
    with_call = {**ROUND, "tool_calls": [{"id": "c1", "function": {"name": "x"}}]}
    assert round_digest(with_call) != base


def test_table_records_and_starts_over_past_its_cap() -> None:
    table = WriterTable(limit=3)
    rounds = [{"role": "assistant", "content": str(n)} for n in range(4)]
    for answer in rounds[:3]:
        table.record(answer, K3)
    assert [table.writer_of(answer) for answer in rounds[:3]] == [K3, K3, K3]
    table.record(rounds[3], "gpt-5")
    assert len(table) == 1
    assert table.writer_of(rounds[0]) is None
    assert table.writer_of(rounds[3]) == "gpt-5"
    assert WriterTable().limit == limits.MAX_WRITER_ENTRIES


def test_a_k3_round_replays_its_own_thinking_to_itself() -> None:
    table = WriterTable()
    table.record(ROUND, K3)
    conversation = Conversation("c")
    build = build_run_request(history(ROUND), "s", WIRE, K3, "Kimi K3", conversation, writers=table)
    blob = conversation.blobs.get(build.history.root_ids[2])
    assert blob == (
        b'{"role":"assistant","content":[{"type":"reasoning","text":"2+2",'
        b'"providerOptions":{"cursor":{"modelName":"kimi-k3-high"}}},'
        b'{"type":"text","text":"four"}]}'
    )
    turn = agent_pb2.ConversationTurnStructure.FromString(
        conversation.blobs.get(build.history.turn_ids[0]) or b""
    )
    steps = [conversation.blobs.get(i) for i in turn.agent_conversation_turn.steps]
    # ConversationStep{3 ThinkingMessage{1 "2+2"}}, ConversationStep{1 AssistantMessage{1 "four"}}
    assert steps == [b"\x1a\x05\x0a\x032+2", b"\x0a\x06\x0a\x04four"]


def test_another_k3_tier_is_another_model_and_is_refused() -> None:
    table = WriterTable()
    table.record(ROUND, "kimi-k3-low")
    with pytest.raises(ConfigError) as caught:
        build_run_request(history(ROUND), "s", WIRE, K3, "K3", Conversation("c"), writers=table)
    assert str(caught.value) == (
        "Cursor kimi-k3-high cannot continue history from a different model "
        "(cursor/kimi-k3-low); start a new session."
    )


def test_a_round_with_no_known_writer_replays_no_thinking_and_passes() -> None:
    conversation = Conversation("c")
    build = build_run_request(
        history(ROUND), "s", WIRE, K3, "K3", conversation, writers=WriterTable()
    )
    blob = conversation.blobs.get(build.history.root_ids[2])
    assert blob == b'{"role":"assistant","content":[{"type":"text","text":"four"}]}'


def test_other_models_never_replay_thinking_nor_refuse() -> None:
    table = WriterTable()
    table.record(ROUND, K3)
    policy = replay_policy(table, "gpt-5")
    assert policy(ROUND) is None
    check_history(table, history(ROUND), "gpt-5")  # no refusal for a non-K3 target
    assert replay_policy(table, K3)(ROUND) == K3


def test_the_trailing_user_message_is_not_history_for_the_check() -> None:
    table = WriterTable()
    table.record(ROUND, "gpt-5")
    # the foreign round sits after the end: not checked
    check_history(table, [{"role": "user", "content": "x"}, ROUND], K3, end=1)
    with pytest.raises(ConfigError):
        check_history(table, [{"role": "user", "content": "x"}, ROUND], K3)
