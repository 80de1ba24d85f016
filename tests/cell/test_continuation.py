"""The continuation shape and model fields: each peer's report, both ways, survived in one retry.

opencodex saw external workers refuse MCP/thinking steps in the turns, ignore
results after a resume, and refuse both model fields; oh-my-pi sends all three
(docs/protocol.md §7b). The simulator plays either side
(``external_continuation``, ``both_model_fields_refused``); every round here
must reach the model's answer in at most one extra run, counted on the
simulator, and the next round (in this process or a new one) goes first to
what worked. The request bytes of the MESSAGE shape are written by hand.
"""

from __future__ import annotations

import hashlib
import uuid
from pathlib import Path
from typing import Any

import pytest
from protobytes import ld, text
from runs import round_context

from cursor_simulator import Simulator
from cursor_simulator.steps import EndError
from cursor_simulator.workers import OMP, OPENCODEX, refused_turn_steps, step_ids
from nodecode_cursor.cell_settings import Settings
from nodecode_cursor.core import continuation
from nodecode_cursor.core.blobs import Conversation
from nodecode_cursor.core.continuation import (
    RESULTS_CONTINUATION,
    Learned,
    ModelFields,
    Shape,
)
from nodecode_cursor.core.decisions import Next, Retries, RunFacts, decide
from nodecode_cursor.core.request import build_run_request
from nodecode_cursor.errors import ConfigError, ProviderError
from nodecode_cursor.host import RoundContext, RoundResult, StreamPart, ToolCallStart
from nodecode_cursor.lanes import lane
from nodecode_cursor.models.routing import WireModel
from nodecode_cursor.state import CellState

TOKEN = "tok-continuation"
CLAUDE = "claude-4.5-sonnet"  # external: MESSAGE first
OWN = "composer-2.5-fast"  # Cursor's own: RESUME first
RESUME_ACTION = b"\x12\x00"  # ConversationAction{2 resume_action{}}


def context(sim: Simulator, prompt: str = "hello", **overrides: Any) -> RoundContext:
    """Return a round for SIM on Claude with list_files offered."""
    overrides.setdefault("model", CLAUDE)
    return round_context(sim.url, TOKEN, prompt, **overrides)


def runs(sim: Simulator) -> int:
    """Return how many runs the simulator has seen."""
    return len(sim.agent.runs)


def tool_loop(
    sim: Simulator, state: CellState, **overrides: Any
) -> tuple[RoundResult, int, list[StreamPart]]:
    """Run a handoff round, then the round on its result: (that result, its runs, its parts)."""
    ctx = context(sim, "please list the files in src", **overrides)
    first = lane.stream_round_sync(ctx, state)
    assert first.finish_reason == "tool_calls"
    [call] = first.message["tool_calls"]
    history = [
        *ctx.messages,
        first.message,
        {"role": "tool", "tool_call_id": call["id"], "content": "main.py util.py"},
    ]
    parts: list[StreamPart] = []
    before = runs(sim)
    second = lane.stream_round_sync(
        context(
            sim, messages=history, session_id=ctx.session_id, on_part=parts.append, **overrides
        ),
        state,
    )
    return second, runs(sim) - before, parts


def turn_steps(run: Any) -> list[bytes]:
    """Return the step blobs of RUN's turns, as the worker read them over KV."""
    found = []
    for turn in run.run_request.conversation_state.turns:
        for step in step_ids(run.served[bytes(turn).hex()]):
            found.append(run.served[step.hex()])
    return found


def request_of(sim: Simulator, index: int = -1) -> Any:
    request = sim.agent.run(index).run_request
    assert request is not None
    return request


# --- each conflict, both ways --------------------------------------------------------


@pytest.mark.parametrize("side", [OPENCODEX, OMP])
def test_an_external_model_answers_from_the_results_in_one_run_either_way(
    sim: Simulator, state: CellState, side: str
) -> None:
    sim.agent.external_continuation = side
    second, spent, _ = tool_loop(sim, state)
    assert second.finish_reason == "stop"
    assert second.message["content"] == "list_files returned: main.py util.py"
    assert spent == 1  # the family's first choice (MESSAGE) works on both sides
    assert request_of(sim).action.user_message_action.user_message.text == RESULTS_CONTINUATION
    assert sim.agent.violations() == []


@pytest.mark.parametrize("side", [OPENCODEX, OMP])
def test_cursors_own_model_resumes_in_one_run_either_way(
    sim: Simulator, state: CellState, side: str
) -> None:
    sim.agent.external_continuation = side
    second, spent, _ = tool_loop(sim, state, model=OWN)
    assert second.message["content"] == "list_files returned: main.py util.py"
    assert spent == 1
    assert request_of(sim).action.SerializeToString() == RESUME_ACTION
    assert sim.agent.violations() == []


def test_a_resume_the_model_ignores_is_retried_once_as_a_message_and_remembered(
    sim: Simulator, tmp_path: Path
) -> None:
    # Learned wrong (say, before the service changed): the model repeats the call it
    # already has the result of, as opencodex saw; one more run, as a message, answers.
    state = CellState(home=tmp_path)
    state.learned[CLAUDE] = Learned(shape=Shape.RESUME)
    try:
        second, spent, parts = tool_loop(sim, state)
        assert second.finish_reason == "stop"
        assert second.message["content"] == "list_files returned: main.py util.py"
        assert spent == 2
        assert request_of(sim, -2).action.SerializeToString() == RESUME_ACTION
        assert request_of(sim, -1).action.user_message_action.user_message.text == (
            RESULTS_CONTINUATION
        )
        # The repeated call never reached the host: its parts were held, then dropped.
        assert not [p for p in parts if isinstance(p, ToolCallStart)]
        assert state.learned[CLAUDE].shape is Shape.MESSAGE
    finally:
        state.close()
    # Another process reads what was learned from the store and goes there first.
    later = CellState(home=tmp_path)
    try:
        second, spent, _ = tool_loop(sim, later)
        assert spent == 1 and second.message["content"].endswith("main.py util.py")
    finally:
        later.close()


def test_mcp_steps_in_the_turns_refused_after_step_completed_retry_without_them(
    sim: Simulator, state: CellState
) -> None:
    # An earlier call in the history, then a new question: on the RESUME shape its
    # turn carries an MCP step, which the external worker refuses (opencodex).
    state.learned[CLAUDE] = Learned(shape=Shape.RESUME)
    call = {"id": "c1", "type": "function", "function": {"name": "list_files"}}
    call["function"]["arguments"] = '{"path": "src"}'  # type: ignore[index]
    history = [
        {"role": "user", "content": "list src"},
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "c1", "content": "main.py"},
        {"role": "user", "content": "thanks"},
    ]
    before = runs(sim)
    result = lane.stream_round_sync(context(sim, messages=history), state)
    assert result.finish_reason == "stop"
    assert result.message["content"] == "list_files returned: main.py"  # the scripted model
    assert runs(sim) - before == 2
    assert state.learned[CLAUDE].shape is Shape.MESSAGE
    # The refused run's turn carried the MCP step; the one that worked only its text
    # (the call stays in the root JSON, where the model reads it).
    refused, worked = (turn_steps(sim.agent.run(i)) for i in (-2, -1))
    assert refused_turn_steps(refused) and worked == []
    assert any(b'"tool-call"' in blob for blob in sim.agent.run(-1).served.values())


@pytest.mark.parametrize("refused", [True, False])
def test_both_model_fields_refused_retry_once_with_requested_model_alone(
    sim: Simulator, tmp_path: Path, refused: bool
) -> None:
    sim.agent.both_model_fields_refused = refused
    state = CellState(home=tmp_path)
    try:
        before = runs(sim)
        result = lane.stream_round_sync(context(sim, "hi"), state)
        assert result.message["content"] == "Simulated Cursor here. You said: hi"
        assert runs(sim) - before == (2 if refused else 1)
        assert request_of(sim).HasField("model_details") is not refused
        before = runs(sim)
        lane.stream_round_sync(context(sim, "again"), state)
        assert runs(sim) - before == 1  # remembered: no refused run any more
    finally:
        state.close()
    later = CellState(home=tmp_path)  # another process
    try:
        before = runs(sim)
        lane.stream_round_sync(context(sim, "once more"), later)
        assert runs(sim) - before == 1
        assert request_of(sim).HasField("model_details") is not refused
    finally:
        later.close()
    assert sim.agent.violations() == []


def test_a_refusal_that_persists_on_requested_model_alone_fails_after_one_retry(
    sim: Simulator, state: CellState
) -> None:
    state.learned[CLAUDE] = Learned(fields=ModelFields.BOTH)
    before = runs(sim)
    # Refused whole, and again on requested_model alone: the round fails, no loop.
    sim.agent.script([EndError("invalid_argument", "still no")])
    sim.agent.script([EndError("invalid_argument", "still no")])
    with pytest.raises(ProviderError) as caught:
        lane.stream_round_sync(context(sim, "hi"), state)
    assert caught.value.code == "invalid_argument"
    assert runs(sim) - before == 2
    assert state.learned[CLAUDE] == Learned(fields=ModelFields.BOTH)  # nothing new learned


# --- the setting ------------------------------------------------------------------


def test_the_setting_pins_the_shape_and_never_retries(sim: Simulator, state: CellState) -> None:
    sim.agent.external_continuation = OMP
    second, spent, _ = tool_loop(sim, state, continuation="resume")
    assert spent == 1 and request_of(sim).action.SerializeToString() == RESUME_ACTION
    second, spent, _ = tool_loop(sim, state, model=OWN, continuation="message")
    assert spent == 1
    assert request_of(sim).action.user_message_action.user_message.text == RESULTS_CONTINUATION
    # Pinned to resume on the strict side, the ignored results are not retried.
    sim.agent.external_continuation = OPENCODEX
    second, spent, _ = tool_loop(sim, state, continuation="resume")
    assert spent == 1 and second.finish_reason == "tool_calls"
    assert CLAUDE not in state.learned


def test_a_bad_continuation_setting_is_a_config_error(sim: Simulator, state: CellState) -> None:
    with pytest.raises(ConfigError):
        lane.stream_round_sync(context(sim, continuation="sometimes"), state)
    with pytest.raises(ConfigError) as caught:
        Settings.from_section({"continuation": "sometimes"})
    assert '"continuation"' in str(caught.value)
    assert Settings.from_section({"continuation": " Message "}).continuation == "message"
    assert Settings.from_section({}).continuation == "auto"


# --- the pure choices -----------------------------------------------------------------


def test_the_first_shape_follows_the_family() -> None:
    for model in ("gpt-5.4", CLAUDE, "gemini-3.1-pro", "grok-4.7", "composer-2.5"):
        assert continuation.first_shape(model) is Shape.MESSAGE, model
    for model in ("composer-2.5-fast", "composer-1", "kimi-k3-high", "default"):
        assert continuation.first_shape(model) is Shape.RESUME, model
    plan = continuation.plan(CLAUDE, "auto", Learned(fields=ModelFields.REQUESTED_ONLY))
    assert (plan.shape, plan.fields, plan.shape_retry, plan.fields_retry) == (
        Shape.MESSAGE,
        ModelFields.REQUESTED_ONLY,
        True,
        False,
    )
    plan = continuation.plan(CLAUDE, "resume", Learned(shape=Shape.MESSAGE))
    assert plan.shape is Shape.RESUME and not plan.shape_retry


def test_decide_retries_the_shape_or_the_fields_once() -> None:
    bad = ProviderError("Connect error invalid_argument", code="invalid_argument")
    both = Retries(shape=True, fields=True)
    after_step = RunFacts(broke=bad, after_step_completed=True, retries=both)
    assert decide(after_step).next is Next.RETRY_SHAPE
    refused_whole = RunFacts(broke=bad, silent=True, retries=both)
    assert decide(refused_whole).next is Next.RETRY_FIELDS
    assert decide(RunFacts(broke=bad, silent=True)).next is Next.FAIL  # both spent
    mid_run = RunFacts(broke=bad, saw_output=True, retries=both)
    assert decide(mid_run).next is Next.FAIL
    repeated = RunFacts(broke=None, repeated_call=True, retries=both)
    assert decide(repeated).next is Next.RETRY_SHAPE
    assert decide(RunFacts(broke=None, repeated_call=True)).next is Next.FINISH


def test_a_repeated_call_is_the_same_name_and_arguments_as_an_answered_one() -> None:
    call = {"id": "c1", "type": "function"}
    call["function"] = {"name": "ls", "arguments": '{"path": "src", "all": true}'}
    history = [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "c1", "content": "a"},
    ]

    def reply(arguments: str) -> dict[str, Any]:
        function = {"name": "ls", "arguments": arguments}
        return {"role": "assistant", "tool_calls": [{"id": "x", "function": function}]}

    assert continuation.repeats_finished_call(history, reply('{"all":true,"path":"src"}'))
    assert not continuation.repeats_finished_call(history, reply('{"path": "lib"}'))
    assert not continuation.repeats_finished_call(history[:2], reply('{"path": "src"}'))


# --- the bytes, by hand -----------------------------------------------------------------

WIRE = WireModel("claude-x", "claude-x", (), False)
TOOL_TAIL = [
    {"role": "user", "content": "go"},
    {
        "role": "assistant",
        "content": "looking",
        "reasoning_content": "hmm",
        "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "ls", "arguments": "{}"}}
        ],
    },
    {"role": "tool", "tool_call_id": "c1", "content": "a b"},
]
# history.py's namespace for the deterministic ids of history turns' user messages.
NAMESPACE = uuid.UUID("9e3c1a52-7d4b-5f08-8a61-2c5e9b7d4f13")


def test_the_message_continuation_and_a_turn_without_mcp_steps_are_these_bytes() -> None:
    conversation = Conversation("c")
    conversation.seen = True  # the service ran it: RESUME would resume; MESSAGE does not
    build = build_run_request(
        TOOL_TAIL,
        "",
        WIRE,
        "claude-x",
        "Claude X",
        conversation,
        replay_thinking=lambda message: "claude-x",  # thinking may replay: still left out
        new_id=lambda: "m-1",
        shape=Shape.MESSAGE,
        fields=ModelFields.REQUESTED_ONLY,
    )
    run = build.message.run_request
    # ConversationAction{1 UserMessageAction{1 UserMessage{1 text, 2 message_id "m-1"}}}
    action = ld(1, ld(1, text(1, RESULTS_CONTINUATION) + text(2, "m-1")))
    assert run.action.SerializeToString() == action
    # The turn: UserMessage{1 "go", 2 its uuid5} and one step, the text: no MCP call
    # step (ConversationStep 2) and no thinking step (ConversationStep 3).
    user = text(1, "go") + text(2, str(uuid.uuid5(NAMESPACE, "u:0:go")))
    step = ld(1, text(1, "looking"))  # ConversationStep{1 AssistantMessage{1 "looking"}}
    user_id, step_id = hashlib.sha256(user).digest(), hashlib.sha256(step).digest()
    # ConversationTurnStructure{1 AgentConversationTurnStructure{1 user id, 2 step id}}
    turn = ld(1, ld(1, user_id) + ld(2, step_id))
    assert list(run.conversation_state.turns) == [hashlib.sha256(turn).digest()]
    assert conversation.blobs.get(hashlib.sha256(turn).digest()) == turn
    assert conversation.blobs.get(step_id) == step
    # The call and its result stay in the root JSON: system, user, assistant, tool.
    assert len(run.conversation_state.root_prompt_messages_json) == 4
    # requested_model alone: AgentRunRequest has no field 3 (ModelDetails); 9 is there,
    # and 4 (the tools, empty) rides on every run.
    assert [field.number for field, _ in run.ListFields()] == [1, 2, 4, 5, 9]
    assert run.requested_model.SerializeToString() == text(1, "claude-x")


def test_the_resume_shape_keeps_todays_bytes() -> None:
    conversation = Conversation("c")
    conversation.seen = True
    build = build_run_request(TOOL_TAIL, "", WIRE, "claude-x", "Claude X", conversation)
    run = build.message.run_request
    assert run.action.SerializeToString() == RESUME_ACTION
    assert run.HasField("model_details")
    turn = conversation.blobs.get(run.conversation_state.turns[0]) or b""
    # AgentConversationTurnStructure{1 user, 2 text step, 2 MCP call step}
    assert turn.count(b"\x12\x20") == 2


def test_a_person_asking_again_is_no_repeated_call() -> None:
    call = {"id": "c1", "type": "function", "function": {"name": "read", "arguments": '{"p":1}'}}
    reply = {"role": "assistant", "content": "", "tool_calls": [dict(call, id="c2")]}
    turn = [
        {"role": "user", "content": "read it"},
        {"role": "assistant", "content": "", "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "c1", "content": "text"},
    ]
    # Going on from the results, the same call again ignores them.
    assert continuation.repeats_finished_call(turn, reply)
    # A new message of the person's ("and again") may ask for the very same call.
    again = [*turn, {"role": "user", "content": "and again"}]
    assert not continuation.repeats_finished_call(again, reply)
    # A call answered in an earlier turn is no repeat of this turn's work either.
    later = [*turn, {"role": "user", "content": "now"}, {"role": "assistant", "content": "ok"}]
    assert not continuation.repeats_finished_call(later, reply)
