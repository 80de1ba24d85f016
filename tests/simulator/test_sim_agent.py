"""The simulator's agent service: what it checks, what it records, and its scripted model."""

from __future__ import annotations

import hashlib
import time
import uuid
from typing import Any

import httpx
import pytest

from cursor_simulator import Simulator
from cursor_simulator.steps import End, Heartbeat, KvRead, Text, TurnEnded
from nodecode_cursor.host import RoundContext
from nodecode_cursor.lanes import lane

RUN = "/agent.v1.AgentService/RunSSE"
APPEND = "/aiserver.v1.BidiService/BidiAppend"
HEARTBEAT = b"\x3a\x00"  # AgentClientMessage{7 client_heartbeat{}}
RUN_REQUEST = b"\x0a\x02\x22\x00"  # AgentClientMessage{1 run_request{4 mcp_tools{}}}

# A script waiting for an answer these tests never send gives up quickly.
pytestmark = pytest.mark.sim_answer_timeout(2.0)


@pytest.fixture(autouse=True)
def appends_before_registration(sim: Simulator) -> None:
    """Let these tests append before RunSSE registers (the real service may lose such appends;
    tests/simulator/test_sim_today.py covers that): they check other behaviour in one thread."""
    sim.agent.drop_early_appends = False


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


def append_body(request_id: str, seqno: int, data: bytes) -> bytes:
    rid = request_id.encode()
    inner = b"\x0a" + bytes([len(rid)]) + rid
    body = b"\x12" + bytes([len(inner)]) + inner
    if seqno:
        body += b"\x18" + bytes([seqno])
    return body + b"\x22" + bytes([len(data)]) + data


def post_append(
    sim: Simulator, request_id: str, seqno: int, data: bytes, **h: str
) -> httpx.Response:
    sent = headers(request_id)
    sent.update(h)
    return httpx.post(sim.url + APPEND, content=append_body(request_id, seqno, data), headers=sent)


def test_appends_out_of_order_are_refused_and_recorded(sim: Simulator) -> None:
    assert post_append(sim, "r1", 0, RUN_REQUEST).status_code == 200
    gap = post_append(sim, "r1", 2, HEARTBEAT)
    assert gap.status_code == 400
    assert gap.json()["code"] == "invalid_argument" and "expected 1" in gap.json()["message"]
    dup = post_append(sim, "r1", 0, HEARTBEAT)
    assert dup.status_code == 400
    assert post_append(sim, "r1", 1, HEARTBEAT).status_code == 200
    run = sim.agent.run()
    assert [a.seqno for a in run.appends] == [0, 1]
    assert run.heartbeats == 1
    assert any("gap" in v for v in run.violations) and any("duplicate" in v for v in run.violations)


def test_append_headers_and_body_are_checked(sim: Simulator) -> None:
    wrong_type = post_append(sim, "r2", 0, RUN_REQUEST, **{"content-type": "application/json"})
    assert wrong_type.status_code == 400 and "content-type" in wrong_type.json()["message"]
    no_ghost = post_append(sim, "r2", 0, RUN_REQUEST, **{"x-ghost-mode": "false"})
    assert no_ghost.status_code == 400 and "x-ghost-mode" in no_ghost.json()["message"]
    other_id = post_append(sim, "r2", 0, RUN_REQUEST, **{"x-request-id": "r3"})
    assert other_id.status_code == 400
    no_bearer = httpx.post(
        sim.url + APPEND,
        content=append_body("r2", 0, RUN_REQUEST),
        headers={k: v for k, v in headers("r2").items() if k != "authorization"},
    )
    assert no_bearer.status_code == 401
    hex_data = b"\x0a\x04abcd" + append_body("r2", 0, RUN_REQUEST)  # field 1 set
    refused = httpx.post(sim.url + APPEND, content=hex_data, headers=headers("r2"))
    assert refused.status_code == 400 and "data_binary" in refused.json()["message"]


def test_run_sse_headers_are_checked(sim: Simulator) -> None:
    body = b"\x00\x00\x00\x00\x04" + b"\x0a\x02r4"
    sent = headers("r4", "application/connect+proto")
    missing = httpx.post(sim.url + RUN, content=body, headers=sent)  # no x-cursor-streaming
    assert missing.status_code == 400 and "x-cursor-streaming" in missing.json()["message"]
    sent["x-cursor-streaming"] = "true"
    unframed = httpx.post(sim.url + RUN, content=b"\x0a\x02r4", headers=sent)
    assert unframed.status_code == 400
    sent["x-request-id"] = "other"
    assert httpx.post(sim.url + RUN, content=body, headers=sent).status_code == 400


def test_a_run_streams_frames_after_the_run_request(sim: Simulator) -> None:
    sim.agent.script([Heartbeat(count=2, interval=0.01), Text("hi"), TurnEnded(1, 1), End()])
    body = b"\x00\x00\x00\x00\x04" + b"\x0a\x02r5"
    sent = headers("r5", "application/connect+proto")
    sent["x-cursor-streaming"] = "true"
    assert post_append(sim, "r5", 0, RUN_REQUEST).status_code == 200
    answer = httpx.post(sim.url + RUN, content=body, headers=sent)
    assert answer.status_code == 200
    raw = answer.content
    # Two heartbeats: AgentServerMessage{1 interaction_update{13 heartbeat{}}}.
    heartbeat = b"\x00\x00\x00\x00\x04" + b"\x0a\x02\x6a\x00"
    assert raw.startswith(heartbeat + heartbeat)
    # Text: AgentServerMessage{1 InteractionUpdate{1 TextDeltaUpdate{1 "hi"}}}.
    assert b"\x00\x00\x00\x00\x08" + b"\x0a\x06\x0a\x04\x0a\x02hi" in raw
    assert raw.endswith(b"\x02\x00\x00\x00\x02{}")
    assert sim.agent.run().usage == [TurnEnded(1, 1)]


def test_the_first_token_waits_the_model_think_time_and_only_once(sim: Simulator) -> None:
    sim.agent.first_token_delay = 0.3
    sim.agent.script([Heartbeat(count=1), Text("hi"), Text("yo"), TurnEnded(1, 1), End()])
    body = b"\x00\x00\x00\x00\x04" + b"\x0a\x02r9"
    sent = headers("r9", "application/connect+proto")
    sent["x-cursor-streaming"] = "true"
    assert post_append(sim, "r9", 0, RUN_REQUEST).status_code == 200
    arrived: list[tuple[float, bytes]] = []
    with httpx.stream("POST", sim.url + RUN, content=body, headers=sent) as answer:
        for chunk in answer.iter_raw():
            arrived.append((time.monotonic(), chunk))
    raw = b"".join(chunk for _, chunk in arrived)
    # The heartbeat (AgentServerMessage{1 interaction_update{13 heartbeat{}}}) comes at once.
    heartbeat = b"\x00\x00\x00\x00\x04" + b"\x0a\x02\x6a\x00"
    assert arrived[0][1].startswith(heartbeat)
    # Text: AgentServerMessage{1 InteractionUpdate{1 TextDeltaUpdate{1 "hi"}}}, then "yo".
    hi = b"\x00\x00\x00\x00\x08" + b"\x0a\x06\x0a\x04\x0a\x02hi"
    yo = b"\x00\x00\x00\x00\x08" + b"\x0a\x06\x0a\x04\x0a\x02yo"
    assert hi not in arrived[0][1]
    when_hi = next(at for at, chunk in arrived if hi in chunk)
    when_yo = next(at for at, chunk in arrived if yo in chunk)
    assert when_hi - arrived[0][0] >= 0.29
    assert when_yo - when_hi < 0.25  # the think time comes once, before the first token
    assert raw.index(hi) < raw.index(yo)


def test_a_blob_that_does_not_hash_to_its_id_is_a_violation(sim: Simulator) -> None:
    from nodecode_cursor._proto import agent_pb2

    wanted = hashlib.sha256(b"real").digest()
    sim.agent.script([KvRead(wanted), End()])
    body = b"\x00\x00\x00\x00\x04" + b"\x0a\x02r6"
    sent = headers("r6", "application/connect+proto")
    sent["x-cursor-streaming"] = "true"
    assert post_append(sim, "r6", 0, RUN_REQUEST).status_code == 200
    lie = agent_pb2.AgentClientMessage()
    lie.kv_client_message.id = 1
    lie.kv_client_message.get_blob_result.blob_data = b"fake"
    with httpx.stream("POST", sim.url + RUN, content=body, headers=sent) as answer:
        chunks = answer.iter_raw()
        next(chunks)  # the kv ask went out
        assert post_append(sim, "r6", 1, lie.SerializeToString()).status_code == 200
        rest = b"".join(chunks)
    assert rest.endswith(b"{}")
    assert any("does not hash" in v for v in sim.agent.run().violations)
    assert sim.agent.run().served == {}


def ctx(sim: Simulator, messages: list[dict[str, Any]], **kw: Any) -> RoundContext:
    fields: dict[str, Any] = {
        "model": "claude-4.5-sonnet",
        "messages": messages,
        "credential": "t",
        "base_url": sim.url,
        "session_id": f"s-{uuid.uuid4()}",
    }
    fields.update(kw)
    return RoundContext(**fields)


TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "read_file",
            "description": "Read a file",
            "parameters": {
                "type": "object",
                "properties": {"path": {"type": "string"}, "lines": {"type": "integer"}},
                "required": ["path", "lines"],
            },
        },
    }
]


def test_the_scripted_model_answers_text_without_tools(sim: Simulator) -> None:
    result = lane.stream_round_sync(ctx(sim, [{"role": "user", "content": "read me a poem"}]))
    assert result.finish_reason == "stop"
    assert result.message["content"] == "Simulated Cursor here. You said: read me a poem"
    assert sim.agent.violations() == []


def test_the_scripted_model_calls_a_named_tool_with_schema_arguments(sim: Simulator) -> None:
    messages = [{"role": "user", "content": "use read_file on the readme"}]
    result = lane.stream_round_sync(ctx(sim, messages, tools=TOOLS))
    [call] = result.message["tool_calls"]
    assert call["function"]["name"] == "read_file"
    assert call["function"]["arguments"] == '{"path":".","lines":1}'
    assert sim.agent.run().handoffs == [call["id"]]


def test_the_scripted_model_takes_json_arguments_from_the_prompt(sim: Simulator) -> None:
    messages = [{"role": "user", "content": 'read {"path": "a.txt", "lines": 3}'}]
    result = lane.stream_round_sync(ctx(sim, messages, tools=TOOLS))
    [call] = result.message["tool_calls"]
    assert call["function"]["arguments"] == '{"path":"a.txt","lines":3}'


def test_the_scripted_model_leaves_tools_alone_when_not_asked(sim: Simulator) -> None:
    result = lane.stream_round_sync(ctx(sim, [{"role": "user", "content": "hi"}], tools=TOOLS))
    assert result.finish_reason == "stop"
    assert "tool_calls" not in result.message


def test_the_simulator_keeps_every_run_in_order(sim: Simulator) -> None:
    for word in ("one", "two"):
        lane.stream_round_sync(ctx(sim, [{"role": "user", "content": word}]))
    assert [r.prompt() for r in sim.agent.runs] == ["one", "two"]
    assert all(r.ended for r in sim.agent.runs)


def test_the_shared_fixture_honours_the_module_answer_timeout(sim: Simulator) -> None:
    assert sim.agent.answer_timeout == 2.0
