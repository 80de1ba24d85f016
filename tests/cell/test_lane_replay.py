"""Whole rounds over real sockets: what a generic Connect error shows, and how history replays.

The simulator ends runs with scripted Connect error trailers (``EndError`` with a
plain-string ``debug`` and a ``google.rpc.ErrorInfo``) and serves back the root
prompt blobs the client holds (``KvRead``), so the line a person reads and the
JSON the model reads are both checked as they crossed the wire.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from typing import Any

import pytest

from cursor_simulator import Simulator
from cursor_simulator.steps import End, EndError, KvRead, Text, TurnEnded
from nodecode_cursor.errors import ProviderError
from nodecode_cursor.host import RoundContext
from nodecode_cursor.lanes import lane
from nodecode_cursor.state import CellState

pytestmark = pytest.mark.sim_answer_timeout(5.0)

TOKEN = "tok-replay-secret"


def context(sim: Simulator, messages: list[dict[str, Any]]) -> RoundContext:
    return RoundContext(
        model="claude-4.5-sonnet",
        messages=messages,
        system="Be terse.",
        session_id=f"session-{uuid.uuid4()}",
        credential=TOKEN,
        base_url=sim.url,
        request_timeout=10.0,
    )


def round_error(sim: Simulator, state: CellState) -> ProviderError:
    messages = [{"role": "user", "content": "hello"}]
    with pytest.raises(ProviderError) as caught:
        asyncio.run(lane.stream_round(context(sim, messages), state))
    return caught.value


def test_a_generic_error_shows_its_debug_text_and_error_info(
    sim: Simulator, state: CellState
) -> None:
    sim.agent.script(
        [
            EndError(
                "unavailable",
                "Error",
                debug="provider answered 502\nafter 30 s",
                info=("MODEL_OVERLOADED", "cursor.sh"),
            )
        ]
    )
    error = round_error(sim, state)
    assert str(error) == (
        "Connect error unavailable: Error "
        "(provider answered 502 after 30 s; google.rpc.ErrorInfo: MODEL_OVERLOADED from cursor.sh)"
    )
    assert error.status == 503 and error.retryable
    assert sim.agent.violations() == []


def test_error_details_keep_their_name_and_title_with_the_rest_after(
    sim: Simulator, state: CellState
) -> None:
    sim.agent.script(
        [
            EndError(
                "permission_denied",
                "",
                error=4,
                title="Not allowed",
                debug=f"token Bearer {TOKEN}-and-more",
            )
        ]
    )
    error = round_error(sim, state)
    assert str(error) == "Cursor NOT_HIGH_ENOUGH_PERMISSIONS: Not allowed (token [redacted])"
    assert TOKEN not in str(error) and TOKEN not in repr(error)
    assert error.status == 403 and error.code == "NOT_HIGH_ENOUGH_PERMISSIONS"


def test_a_message_that_says_something_stands_alone(sim: Simulator, state: CellState) -> None:
    sim.agent.script([EndError("internal", "disk full", debug="d", info=("R", "D"))])
    assert str(round_error(sim, state)) == "Connect error internal: disk full"


def test_a_failed_result_and_non_finite_arguments_reach_cursor_as_json(
    sim: Simulator, state: CellState
) -> None:
    arguments = json.dumps({"path": "a", "limit": float("nan"), "scale": float("inf")})
    messages = [
        {"role": "user", "content": "read a"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "read_file", "arguments": arguments},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "no such file", "is_error": True},
        {"role": "user", "content": "and now?"},
    ]
    sim.agent.script([KvRead(), Text("It failed."), TurnEnded(5, 1), End()])
    result = asyncio.run(lane.stream_round(context(sim, messages), state))
    assert result.message["content"] == "It failed."
    (run,) = sim.agent.runs
    assert run.run_request is not None
    served = [
        run.served[blob_id.hex()]
        for blob_id in run.run_request.conversation_state.root_prompt_messages_json
    ]

    def refuse(constant: str) -> Any:
        raise AssertionError(f"not JSON: {constant}")

    for blob in served:
        json.loads(blob, parse_constant=refuse)
    assert served[2] == (
        b'{"role":"assistant","content":[{"type":"tool-call","toolCallId":"c1",'
        b'"toolName":"read_file","args":{"path":"a","limit":null,"scale":null}}]}'
    )
    assert served[3] == (
        b'{"role":"tool","id":"c1","content":[{"type":"tool-result","toolName":"read_file",'
        b'"toolCallId":"c1","result":"no such file","isError":true}]}'
    )
    assert sim.agent.violations() == []
