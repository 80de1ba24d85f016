"""Breaks, retries and conversations: whole rounds over real sockets against the simulator.

A run that breaks after a checkpoint is resumed from it inside the round; a
conversation the service never ran is started, not resumed, with its finished
tool work in the history it carries; rotation after a
bare refusal is capped; a usage-pricing refusal is one line and never rotates.
Expected bytes are written by hand (tag byte = field << 3 | wire type).
"""

from __future__ import annotations

import time
import uuid
from typing import Any

import pytest
from runs import LIST_FILES, round_context

from cursor_simulator import Simulator
from cursor_simulator.steps import (
    AskRequestContext,
    Checkpoint,
    CutStream,
    End,
    EndError,
    KvRead,
    StepCompleted,
    Text,
    TokenDelta,
    ToolCall,
    TurnEnded,
)
from nodecode_cursor import limits
from nodecode_cursor.errors import ProviderError, ResourceExhausted, StreamIncomplete
from nodecode_cursor.host import Finish, RoundContext, StreamPart, StreamStart, TextDelta
from nodecode_cursor.lanes import lane
from nodecode_cursor.state import CellState

pytestmark = pytest.mark.sim_answer_timeout(5.0)

TOKEN = "tok-resume-secret"
MODEL = "claude-4.5-sonnet"
TOOLS = [LIST_FILES]


def context(sim: Simulator, prompt: str = "hello", **overrides: Any) -> RoundContext:
    """Return this file's round for SIM: its token, one user PROMPT, list_files offered.

    On Cursor's own composer-2.5-fast, which resumes after tool results: what these
    tests follow is the resume itself (test_continuation.py covers the other shape).
    """
    overrides.setdefault("model", "composer-2.5-fast")
    return round_context(sim.url, TOKEN, prompt, **overrides)


def texts(parts: list[StreamPart]) -> list[str]:
    return [p.text for p in parts if isinstance(p, TextDelta)]


def action_bytes(sim: Simulator, index: int) -> bytes:
    run = sim.agent.run(index).run_request
    assert run is not None
    return run.action.SerializeToString()


# --- checkpoint resume inside a run --------------------------------------------------


def test_a_run_cut_twice_after_checkpoints_finishes_whole_with_nothing_repeated(
    sim: Simulator, state: CellState
) -> None:
    # Run 0 says "Simulated " and checkpoints, then "Cursor " and is cut.
    sim.agent.script(
        [
            AskRequestContext(),
            KvRead(),
            Text("Simulated "),
            Checkpoint(),
            Text("Cursor "),
            CutStream(),
        ]
    )
    # Run 1 (resumed) repeats "Cursor " inside a longer delta, checkpoints, is reset.
    sim.agent.script(
        [AskRequestContext(), Text("Cursor here."), Checkpoint(), Text(" You"), CutStream(True)]
    )
    # Run 2: the default model, resuming from the second checkpoint, says the rest
    # of its answer from there (" You said: hello"), " You" again included.
    parts: list[StreamPart] = []
    started = time.monotonic()
    result = lane.stream_round_sync(context(sim, "hello", on_part=parts.append), state)
    elapsed = time.monotonic() - started

    assert result.message == {
        "role": "assistant",
        "content": "Simulated Cursor here. You said: hello",
    }
    assert texts(parts) == ["Simulated ", "Cursor ", "here.", " You", " said: hello"]
    assert isinstance(parts[0], StreamStart) and parts[-1] == Finish("stop")
    assert elapsed >= 2 * limits.RESUME_WAIT_SECONDS  # each resume waited first
    runs = sim.agent.runs
    assert len(runs) == 3
    first, second, third = runs
    ids = [r.request_id for r in runs]
    assert len(set(ids)) == 3  # a new request id for every run
    assert "x-original-request-id" not in first.headers
    for resumed in (second, third):
        # The round's first run, on the stream's POST and on every append.
        assert resumed.headers["x-original-request-id"] == first.request_id
        assert resumed.headers["x-request-id"] == resumed.request_id
        assert resumed.appends
        assert all(a.headers["x-original-request-id"] == first.request_id for a in resumed.appends)
        assert resumed.original is first
    # ConversationAction{2 resume_action{}} = 12 00; the first run's was the user message.
    assert action_bytes(sim, 1) == b"\x12\x00"
    assert action_bytes(sim, 2) == b"\x12\x00"
    assert action_bytes(sim, 0)[:1] == b"\x0a"
    assert first.run_request is not None and second.run_request is not None
    for resumed in (second, third):
        assert resumed.run_request is not None
        assert resumed.run_request.conversation_id == first.run_request.conversation_id
        assert resumed.run_request.model_details == first.run_request.model_details
        assert resumed.run_request.requested_model == first.run_request.requested_model
    assert sim.agent.violations() == []  # every resumed state was a checkpoint sent


def test_the_resumed_state_is_the_checkpoint_byte_for_byte(
    sim: Simulator, state: CellState
) -> None:
    # ConversationStateStructure{1 "r", 5 token_details{1 used_tokens 7}, 99 varint 5}:
    # field 99 is one our schema does not name; it must ride back as it came.
    checkpoint = b"\x0a\x01r" + b"\x2a\x02\x08\x07" + b"\x98\x06\x05"
    sim.agent.script([Text("one "), Checkpoint(checkpoint), Text("two"), End()])
    sim.agent.script([Text("two three"), TurnEnded(5, 3), End()])
    parts: list[StreamPart] = []
    result = lane.stream_round_sync(context(sim, on_part=parts.append), state)
    assert result.message["content"] == "one two three"
    assert texts(parts) == ["one ", "two", " three"]
    resumed = sim.agent.run(1).run_request
    assert resumed is not None
    # The state is field 1 of the run request; it travels exactly as sent.
    assert resumed.conversation_state.SerializeToString() == checkpoint
    assert result.usage.context_tokens == 7


def test_a_break_with_no_checkpoint_fails_as_before(sim: Simulator, state: CellState) -> None:
    sim.agent.script([Text("half"), CutStream()])
    with pytest.raises(StreamIncomplete) as caught:
        lane.stream_round_sync(context(sim), state)
    assert caught.value.retryable
    assert str(caught.value) == (
        "Cursor's answer is incomplete: the service closed the stream before the answer ended "
        "(try again)"
    )
    assert len(sim.agent.runs) == 1


def test_a_retryable_end_error_after_a_checkpoint_is_resumed(
    sim: Simulator, state: CellState
) -> None:
    sim.agent.script([Text("a"), Checkpoint(), EndError("unavailable", "blip")])
    sim.agent.script([Text("b"), TurnEnded(3, 2), Checkpoint(), End()])
    result = lane.stream_round_sync(context(sim), state)
    assert result.message["content"] == "ab"
    assert action_bytes(sim, 1) == b"\x12\x00"


def test_a_final_end_error_after_a_checkpoint_is_not_resumed(
    sim: Simulator, state: CellState
) -> None:
    sim.agent.script([Text("a"), Checkpoint(), EndError("permission_denied", "no")])
    with pytest.raises(ProviderError) as caught:
        lane.stream_round_sync(context(sim), state)
    assert caught.value.status == 403
    assert len(sim.agent.runs) == 1


def test_resumes_stop_after_the_cap(sim: Simulator, state: CellState) -> None:
    sim.agent.script([AskRequestContext(), Text("x"), Checkpoint(), CutStream()])
    for _ in range(limits.MAX_RESUMES):
        sim.agent.script([Checkpoint(), CutStream()])
    sim.agent.script([Text("never sent"), TurnEnded(), End()])  # a seventh run never comes
    with pytest.raises(StreamIncomplete):
        lane.stream_round_sync(context(sim), state)
    assert len(sim.agent.runs) == 1 + limits.MAX_RESUMES
    assert all(action_bytes(sim, i) == b"\x12\x00" for i in range(1, 1 + limits.MAX_RESUMES))


def test_an_exec_answer_after_the_checkpoint_makes_it_unsafe_to_resume(
    sim: Simulator, state: CellState
) -> None:
    sim.agent.script(
        [
            AskRequestContext(),
            Text("Calling."),
            Checkpoint(),
            ToolCall("list_files", {"path": "src"}, call_id="call_1"),
            CutStream(),
        ]
    )
    with pytest.raises(StreamIncomplete):
        lane.stream_round_sync(context(sim), state)
    assert len(sim.agent.runs) == 1  # the handoff went out after the checkpoint


def test_an_end_without_turn_ended_after_a_checkpoint_is_a_break(
    sim: Simulator, state: CellState
) -> None:
    # The completeness rule alone would call this whole (step_completed after text).
    sim.agent.script([Checkpoint(), Text("Done"), StepCompleted(), End()])
    sim.agent.script([Text("Done."), TurnEnded(4, 2), End()])
    result = lane.stream_round_sync(context(sim), state)
    assert result.message["content"] == "Done."
    assert len(sim.agent.runs) == 2


def test_a_call_already_delivered_is_not_delivered_again_by_the_resume(
    sim: Simulator, state: CellState
) -> None:
    call = ToolCall("list_files", {"path": "src"}, call_id="call_1", exec=False)
    sim.agent.script([Text("Let me look."), call, Checkpoint(), CutStream()])
    sim.agent.script([call, StepCompleted(), TurnEnded(5, 2), End()])
    result = lane.stream_round_sync(context(sim), state)
    assert [c["id"] for c in result.message["tool_calls"]] == ["call_1"]
    assert result.message["tool_calls"][0]["function"]["arguments"] == '{"path":"src"}'
    assert result.message["content"] == "Let me look."


# --- a conversation the service has never seen -----------------------------------------


CONTINUATION = "Continue from where the conversation left off."
# ConversationAction{1 user_message_action{1 UserMessage{1 CONTINUATION, 2 <36-char id>}}}
CONTINUE_HEAD = b"\x0a\x58\x0a\x56\x0a\x2e" + CONTINUATION.encode() + b"\x12\x24"


def test_the_first_round_on_a_tool_result_goes_on_from_it_and_the_next_resumes(
    sim: Simulator, state: CellState
) -> None:
    session = f"fresh-{uuid.uuid4()}"
    history: list[dict[str, Any]] = [
        {"role": "user", "content": "please list the files in src"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_9",
                    "type": "function",
                    "function": {"name": "list_files", "arguments": '{"path":"src"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_9", "content": "main.py"},
    ]
    # A new process (CellState) has never run this session: the service would
    # refuse a resume (the simulator does by default), so the round starts it, with
    # the finished call and its result in the history it carries.
    first = lane.stream_round_sync(context(sim, messages=history, session_id=session), state)
    run = sim.agent.run(-1)
    assert run.run_request is not None
    assert action_bytes(sim, -1).startswith(CONTINUE_HEAD)
    # system, the user message, the call, its result
    assert len(run.run_request.conversation_state.root_prompt_messages_json) == 4
    assert [m["role"] for m in run.root_messages()] == ["system", "user", "assistant", "tool"]
    assert first.finish_reason == "stop"  # the model answers from the result, no redo
    assert "main.py" in first.message["content"]

    # The session's next tool round resumes: the service has run it now.
    history2 = [
        *history,
        first.message,
        {"role": "user", "content": "please list the files in lib"},
    ]
    second = lane.stream_round_sync(context(sim, messages=history2, session_id=session), state)
    [call] = second.message["tool_calls"]
    history3 = [
        *history2,
        second.message,
        {"role": "tool", "tool_call_id": call["id"], "content": "util.py"},
    ]
    third = lane.stream_round_sync(context(sim, messages=history3, session_id=session), state)
    assert action_bytes(sim, -1) == b"\x12\x00"
    assert "util.py" in third.message["content"]
    assert sim.agent.violations() == []


def test_an_ephemeral_round_on_a_tool_result_goes_on_too(sim: Simulator, state: CellState) -> None:
    history = [
        {"role": "user", "content": "hi there"},
        {"role": "assistant", "content": "hello"},
        {"role": "tool", "tool_call_id": "orphan", "content": "x"},
    ]
    lane.stream_round_sync(context(sim, messages=history, session_id=None), state)
    run = sim.agent.run(-1)
    assert run.prompt() == CONTINUATION
    said = [m["content"][0]["text"] for m in run.root_messages()[1:]]
    assert said == ["hi there", "hello", "[Tool Result]\nx"]
    assert sim.agent.violations() == []


def test_a_sessionless_round_bringing_its_handed_off_results_resumes_that_conversation(
    sim: Simulator, state: CellState
) -> None:
    ctx = context(sim, "please list the files in src", session_id=None)
    first = lane.stream_round_sync(ctx, state)
    [call] = first.message["tool_calls"]
    history = [
        *ctx.messages,
        first.message,
        {"role": "tool", "tool_call_id": call["id"], "content": "main.py"},
    ]
    second = lane.stream_round_sync(context(sim, messages=history, session_id=None), state)
    assert action_bytes(sim, -1) == b"\x12\x00"
    one, two = (r.run_request.conversation_id for r in sim.agent.runs)  # type: ignore[union-attr]
    assert one == two
    assert "main.py" in second.message["content"]
    # Results of calls this process never handed off: a new conversation, started.
    other = [*history[:-1], {"role": "tool", "tool_call_id": "call_elsewhere", "content": "x"}]
    other[1] = {**first.message, "tool_calls": [{**call, "id": "call_elsewhere"}]}
    answer = lane.stream_round_sync(context(sim, messages=other, session_id=None), state)
    assert sim.agent.run(-1).prompt() == CONTINUATION
    assert sim.agent.run(-1).run_request.conversation_id != one  # type: ignore[union-attr]
    assert answer.finish_reason == "stop" and "x" in answer.message["content"]
    assert sim.agent.violations() == []


def test_a_new_session_bringing_handed_off_results_resumes_that_conversation(
    sim: Simulator, state: CellState
) -> None:
    # An API server names a new session for every request (one per Responses call):
    # the tool loop must still resume the conversation that handed the call off.
    ctx = context(sim, "please list the files in src", session_id="request-1")
    first = lane.stream_round_sync(ctx, state)
    [call] = first.message["tool_calls"]
    history = [
        *ctx.messages,
        first.message,
        {"role": "tool", "tool_call_id": call["id"], "content": "main.py"},
    ]
    second = lane.stream_round_sync(context(sim, messages=history, session_id="request-2"), state)
    assert action_bytes(sim, -1) == b"\x12\x00"  # resumed, not started over
    one, two = (r.run_request.conversation_id for r in sim.agent.runs)  # type: ignore[union-attr]
    assert one == two
    assert "main.py" in second.message["content"]
    assert sim.agent.violations() == []


# --- rotation ------------------------------------------------------------------------


def test_rotation_stops_after_three_and_the_next_refusal_says_so(
    sim: Simulator, state: CellState
) -> None:
    session = f"cap-{uuid.uuid4()}"
    ok = [Text("fine"), TurnEnded(3, 1), Checkpoint(), End()]
    for _ in range(limits.MAX_ROTATIONS):
        sim.agent.script([EndError("resource_exhausted", "")])
        with pytest.raises(ResourceExhausted):
            lane.stream_round_sync(context(sim, session_id=session), state)
        sim.agent.script(ok)
        lane.stream_round_sync(context(sim, session_id=session), state)
    ids = [r.run_request.conversation_id for r in sim.agent.runs]  # type: ignore[union-attr]
    assert len(set(ids)) == 1 + limits.MAX_ROTATIONS  # each refusal rotated the id
    sim.agent.script([EndError("resource_exhausted", "")])
    with pytest.raises(ProviderError) as caught:
        lane.stream_round_sync(context(sim, session_id=session), state)
    error = caught.value
    assert str(error) == (
        "Cursor keeps refusing this conversation (resource_exhausted after 3 new"
        " conversation ids); start a new session"
    )
    assert error.code == "conversation_refused" and not error.retryable
    assert error.hint == "start a new session"
    sim.agent.script(ok)
    lane.stream_round_sync(context(sim, session_id=session), state)
    last = sim.agent.run(-1).run_request
    assert last is not None and last.conversation_id == ids[-1]  # no fourth rotation


def test_resource_exhausted_in_the_message_text_rotates_too(
    sim: Simulator, state: CellState
) -> None:
    session = f"text-{uuid.uuid4()}"
    sim.agent.script([EndError("unknown", "upstream said Resource Exhausted")])
    with pytest.raises(ResourceExhausted) as caught:
        lane.stream_round_sync(context(sim, session_id=session), state)
    assert caught.value.status == 429 and caught.value.code == "unknown"
    lane.stream_round_sync(context(sim, session_id=session), state)
    first, second = (r.run_request.conversation_id for r in sim.agent.runs)  # type: ignore[union-attr]
    assert first != second


def test_resource_exhausted_text_after_a_token_delta_does_not_rotate(
    sim: Simulator, state: CellState
) -> None:
    session = f"text-tok-{uuid.uuid4()}"
    sim.agent.script([TokenDelta(3), EndError("internal", "RESOURCE_EXHAUSTED upstream")])
    with pytest.raises(ResourceExhausted):
        lane.stream_round_sync(context(sim, session_id=session), state)
    lane.stream_round_sync(context(sim, session_id=session), state)
    first, second = (r.run_request.conversation_id for r in sim.agent.runs)  # type: ignore[union-attr]
    assert first == second


@pytest.mark.parametrize(
    ("number", "name"), [(44, "USAGE_PRICING_REQUIRED"), (45, "USAGE_PRICING_REQUIRED_CHANGEABLE")]
)
def test_usage_pricing_required_is_one_line_naming_the_model_and_never_rotates(
    sim: Simulator, state: CellState, number: int, name: str
) -> None:
    session = f"price-{uuid.uuid4()}"
    sim.agent.script(
        [EndError("resource_exhausted", "Error", error=number, title="Prepaid balance used up")]
    )
    with pytest.raises(ProviderError) as caught:
        lane.stream_round_sync(context(sim, session_id=session, model="claude-4.5-sonnet"), state)
    error = caught.value
    assert str(error) == (
        "Cursor refused Claude Sonnet 4.5 (claude-4.5-sonnet): the account needs usage-based"
        " pricing for this model; turn it on for the account or choose another model"
        f" (Cursor {name}: Prepaid balance used up)"
    )
    assert "\n" not in str(error)
    assert error.code == name and error.status == 429 and not error.retryable
    lane.stream_round_sync(context(sim, session_id=session), state)
    first, second = (r.run_request.conversation_id for r in sim.agent.runs)  # type: ignore[union-attr]
    assert first == second  # not rotated
