"""The simulator follows today's Cursor: the catalog, RunPoll, lost early appends, refusals.

Requests are written by hand from field numbers; answers are read back with the
generated classes (this file tests the simulator, not the cell's encoder).
"""

from __future__ import annotations

import base64
import threading

import httpx
import pytest

from cursor_simulator import Simulator
from cursor_simulator.steps import EndError, Text, TurnEnded
from nodecode_cursor._proto import agent_pb2, aiserver_pb2
from nodecode_cursor.wire import connect

RUN = "/agent.v1.AgentService/RunSSE"
POLL = "/agent.v1.AgentService/RunPoll"
APPEND = "/aiserver.v1.BidiService/BidiAppend"
CATALOG = "/aiserver.v1.AiService/AvailableModels"


pytestmark = pytest.mark.sim_answer_timeout(2.0)


def headers(request_id: str, content_type: str = "application/proto") -> dict[str, str]:
    return {
        "authorization": "Bearer t",
        "x-cursor-client-type": "cli",
        "x-cursor-client-version": "cli-x",
        "x-ghost-mode": "true",
        "connect-protocol-version": "1",
        "x-request-id": request_id,
        "content-type": content_type,
    }


def ld(field: int, data: bytes) -> bytes:
    """Return a length-delimited field (lengths under 128 only)."""
    assert len(data) < 128
    return bytes([field << 3 | 2, len(data)]) + data


def run_request(model: str = "", *, conversation: str = "c1", resume: bool = False) -> bytes:
    """Return AgentClientMessage{1 run_request{2 action, 4 mcp_tools{}, 5 conversation_id,
    9 requested_model}}."""
    action = ld(2, b"") if resume else ld(1, ld(1, ld(1, b"hi")))  # resume / user message "hi"
    body = ld(2, action) + ld(4, b"") + ld(5, conversation.encode())
    if model:
        body += ld(9, ld(1, model.encode()))
    return ld(1, body)


def append(sim: Simulator, request_id: str, seqno: int, data: bytes) -> httpx.Response:
    body = ld(2, ld(1, request_id.encode()))
    if seqno:
        body += bytes([0x18, seqno])
    body += ld(4, data)
    return httpx.post(sim.url + APPEND, content=body, headers=headers(request_id))


def open_sse(sim: Simulator, request_id: str) -> httpx.Response:
    sent = headers(request_id, "application/connect+proto")
    sent["x-cursor-streaming"] = "true"
    frame = connect.encode_frame(ld(1, request_id.encode()))
    return httpx.post(sim.url + RUN, content=frame, headers=sent, timeout=30)


def test_catalog_serves_variants_and_records_the_flags(sim: Simulator) -> None:
    # AvailableModelsRequest{5 use_model_parameters: true, 7 do_not_use_markdown: true}
    answer = httpx.post(sim.url + CATALOG, content=b"\x28\x01\x38\x01", headers=headers("cat-1"))
    assert answer.status_code == 200
    catalog = aiserver_pb2.AvailableModelsResponse.FromString(answer.content)
    mini = next(m for m in catalog.models if m.name == "gpt-5.4-mini")
    low = next(v for v in mini.variants if v.legacy_slug == "gpt-5.4-mini-low")
    assert [(p.id, p.value) for p in low.parameter_values] == [("reasoning", "low")]
    assert [d.id for d in mini.parameter_definitions] == ["reasoning"]
    sonnet = next(m for m in catalog.models if m.name == "claude-sonnet-5")
    assert any(v.is_max_mode for v in sonnet.variants)
    assert sonnet.context_token_limit_for_max_mode == 1_000_000
    seen = sim.catalog.requests[-1]
    assert seen.use_model_parameters and seen.do_not_use_markdown


def test_catalog_refusal_is_a_connect_error(sim: Simulator) -> None:
    sim.catalog.refuse(403, "permission_denied", "no catalog for you")
    answer = httpx.post(sim.url + CATALOG, content=b"", headers=headers("cat-2"))
    assert answer.status_code == 403 and answer.json()["code"] == "permission_denied"


def test_run_poll_streams_numbered_base64_frames_then_eof(sim: Simulator) -> None:
    sim.agent.script([Text("polled"), TurnEnded(output=1)])
    assert append(sim, "p1", 0, run_request()).status_code == 200
    sent = headers("p1", "application/connect+proto")
    # BidiPollRequest{1 request_id{1 "p1"}, 2 poll_mode: 1}
    frame = connect.encode_frame(ld(1, ld(1, b"p1")) + b"\x10\x01")
    answer = httpx.post(sim.url + POLL, content=frame, headers=sent, timeout=30)
    assert answer.status_code == 200
    frames = connect.FrameDecoder().feed(answer.content)
    assert frames[-1].end_stream
    polls = [aiserver_pb2.BidiPollResponse.FromString(f.payload) for f in frames[:-1]]
    assert [p.seqno for p in polls] == list(range(len(polls)))
    assert polls[-1].eof and not polls[-1].data
    texts = []
    for poll in polls[:-1]:
        message = agent_pb2.AgentServerMessage.FromString(base64.b64decode(poll.data))
        if message.interaction_update.HasField("text_delta"):
            texts.append(message.interaction_update.text_delta.text)
    assert texts == ["polled"]
    run = sim.agent.run()
    assert run.route == "poll" and not run.violations


def test_an_append_before_run_sse_registered_is_lost(sim: Simulator) -> None:
    sim.agent.drop_early_appends = True
    sim.agent.answer_timeout = 0.3
    assert append(sim, "e1", 0, run_request()).status_code == 200  # accepted, then lost
    answer = open_sse(sim, "e1")
    assert answer.status_code == 200
    run = sim.agent.run()
    assert run.lost_appends == 1
    assert run.run_request is None  # the script never saw a run request
    assert any("before RunSSE registered" in v for v in run.violations)


def test_append_after_registration_is_kept(sim: Simulator) -> None:
    sim.agent.drop_early_appends = True
    sim.agent.script([Text("ok"), TurnEnded()])
    answers: list[httpx.Response] = []
    reader = threading.Thread(target=lambda: answers.append(open_sse(sim, "e2")))
    reader.start()
    assert sim.wait_until(lambda: bool(sim.agent.runs) and sim.agent.run().streamed)
    assert append(sim, "e2", 0, run_request()).status_code == 200
    reader.join(60)
    run = sim.agent.run()
    assert run.lost_appends == 0 and run.run_request is not None
    assert answers[0].status_code == 200


def stream_end(sim: Simulator, request_id: str, data: bytes) -> dict[str, object]:
    """Return the end-of-stream trailer of a run whose append 0 is DATA."""
    result: list[httpx.Response] = []
    reader = threading.Thread(target=lambda: result.append(open_sse(sim, request_id)))
    reader.start()
    assert sim.wait_until(
        lambda: any(r.request_id == request_id and r.streamed for r in sim.agent.runs)
    )
    assert append(sim, request_id, 0, data).status_code == 200
    reader.join(60)
    frames = connect.FrameDecoder().feed(result[0].content)
    assert frames[-1].end_stream
    import json

    trailer = json.loads(frames[-1].payload)
    assert isinstance(trailer, dict)
    return trailer


def test_a_bare_sibling_slug_is_refused_like_cursor_does(sim: Simulator) -> None:
    sim.agent.refuse_bare_siblings = True
    trailer = stream_end(sim, "s1", run_request("gpt-5.4-mini-low"))
    assert trailer == {"error": {"code": "resource_exhausted", "message": "Error"}}
    # A slug the catalog does not name as a variant runs as before.
    sim.agent.script([Text("fine"), TurnEnded()])
    assert stream_end(sim, "s2", run_request("composer-2.5")) == {}


def test_a_resume_of_an_unknown_conversation_is_refused(sim: Simulator) -> None:
    sim.agent.refuse_unknown_resume = True
    trailer = stream_end(sim, "u1", run_request(conversation="never-seen", resume=True))
    error = trailer["error"]
    assert isinstance(error, dict) and error["code"] == "failed_precondition"
    sim.agent.script([Text("started"), TurnEnded()])
    assert stream_end(sim, "u2", run_request(conversation="c9")) == {}
    sim.agent.script([Text("resumed"), TurnEnded()])
    assert stream_end(sim, "u3", run_request(conversation="c9", resume=True)) == {}


def test_a_generic_error_carries_its_debug_string_and_error_info(sim: Simulator) -> None:
    sim.agent.script([EndError("internal", "Error", debug="upstream 502", info=("QUOTA", "x.io"))])
    trailer = stream_end(sim, "g1", run_request())
    error = trailer["error"]
    assert isinstance(error, dict)
    details = error["details"]
    assert isinstance(details, list)
    assert details[0]["debug"] == "upstream 502"
    info = details[1]
    assert info["type"] == "google.rpc.ErrorInfo"
    raw = base64.b64decode(info["value"] + "==")
    assert raw == b"\x0a\x05QUOTA\x12\x04x.io"
