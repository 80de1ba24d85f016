"""How a run's stream may end, over both transports (HTTP/2 Run, RunSSE over HTTP/1.1).

Each stream here is written by hand, byte by byte from the field numbers: a text
delta, turn_ended, then an ending the service might send. Sources: oh-my-pi's
Connect envelope decoder (nothing may follow the end frame) and its terminal-error
tests (a failing gRPC trailer after turn_ended; a standard detail after turn_ended);
docs/protocol.md §3 and §9.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from typing import Any

import pytest
from protobytes import frame, ld, text

from cursor_simulator import Simulator
from cursor_simulator.steps import GrpcEnd, Raw
from nodecode_cursor.errors import OutdatedClient, ProtocolError, ProviderError, ResourceExhausted
from nodecode_cursor.host import RoundContext, RoundResult
from nodecode_cursor.lanes import lane
from nodecode_cursor.state import CellState

TOKEN = "sim-token-stream-ends"
TRANSPORTS = ("http2", "sse")


# AgentServerMessage{1 interaction_update{1 text_delta{1 text "hello"}}}
HELLO = frame(ld(1, ld(1, text(1, "hello"))))
# AgentServerMessage{1 interaction_update{14 turn_ended{}}}
TURN_ENDED = frame(ld(1, ld(14)))
CLEAN_END = frame(b"{}", flags=0x02)


def context(url: str, transport: str) -> RoundContext:
    return RoundContext(
        model="claude-4.5-sonnet",
        messages=[{"role": "user", "content": "hello"}],
        session_id=f"session-{uuid.uuid4()}",
        credential=TOKEN,
        base_url=url,
        request_timeout=10.0,
        transport=transport,
    )


def round_on(sim: Simulator, transport: str, *steps: Any) -> RoundResult:
    """Return the round on TRANSPORT whose one run plays STEPS."""
    sim.agent.script(list(steps))
    return asyncio.run(lane.stream_round(context(sim.url, transport), CellState()))


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_a_clean_end_frame_ends_the_round(sim: Simulator, transport: str) -> None:
    result = round_on(sim, transport, Raw(HELLO + TURN_ENDED), Raw(CLEAN_END, ends=True))
    assert result.message["content"] == "hello"


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_bytes_after_the_end_frame_fail_the_round(sim: Simulator, transport: str) -> None:
    stray = frame(b"")  # a whole empty data frame after the end: five bytes
    with pytest.raises(
        ProtocolError, match=r"data after end of stream \(bytes after the Connect end frame"
    ):
        round_on(sim, transport, Raw(HELLO + TURN_ENDED), Raw(CLEAN_END + stray, ends=True))
    assert len(sim.agent.runs) == 1  # not retried: the answer cannot be trusted


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_a_failing_grpc_trailer_after_turn_ended_fails_the_round(
    sim: Simulator, transport: str
) -> None:
    # grpc-status 13 (internal), the message percent-encoded as gRPC carries it; no end
    # frame. Over RunSSE the trailers close the chunked body (RFC 9112 §7.1.2).
    with pytest.raises(ProviderError) as caught:
        round_on(sim, transport, Raw(HELLO + TURN_ENDED), GrpcEnd(13, "post-turn trailer failure"))
    error = caught.value
    assert str(error) == (
        "Cursor's stream ended with gRPC status 13 (internal): post-turn trailer failure"
    )
    assert (error.status, error.code, error.retryable) == (500, "internal", False)


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_a_passing_grpc_trailer_after_turn_ended_is_a_clean_end(
    sim: Simulator, transport: str
) -> None:
    result = round_on(sim, transport, Raw(HELLO + TURN_ENDED), GrpcEnd(0))
    assert result.message["content"] == "hello"


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_a_standard_detail_after_turn_ended_shows_its_type_and_value(
    sim: Simulator, transport: str
) -> None:
    error = {
        "code": "invalid_argument",
        "message": "Error",
        "details": [
            {"type": "google.rpc.ErrorInfo", "value": "resource exhausted for request field tools"}
        ],
    }
    end = frame(json.dumps({"error": error}).encode(), flags=0x02)
    with pytest.raises(ProviderError) as caught:
        round_on(sim, transport, Raw(HELLO + TURN_ENDED), Raw(end, ends=True))
    assert str(caught.value) == (
        "Connect error invalid_argument: Error "
        "(google.rpc.ErrorInfo: resource exhausted for request field tools)"
    )
    assert not isinstance(caught.value, ResourceExhausted)
    assert len(sim.agent.runs) == 1  # no usage limit: the conversation was not rotated


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_a_refused_client_version_fails_the_round_once_naming_the_setting(
    sim: Simulator, transport: str
) -> None:
    sim.refuse_client("*")
    with pytest.raises(OutdatedClient) as caught:
        asyncio.run(lane.stream_round(context(sim.url, transport), CellState()))
    error = caught.value
    assert "Update Required" in str(error) and "CURSOR_CLIENT_VERSION" in str(error)
    assert not error.retryable and error.status == 400
    assert sim.agent.runs == []  # refused before any run began, and never retried
