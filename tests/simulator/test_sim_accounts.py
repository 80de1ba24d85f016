"""The simulator's accounts refuse their own runs: a spent plan, usage pricing, a spent pool.

Each run is opened by hand (RunSSE, then BidiAppend #0 carrying the run request
written from field numbers) with a bearer the simulator issued for one account;
the end-of-stream trailer is read back as Connect JSON.
"""

from __future__ import annotations

import base64
import json
import threading

import httpx
import pytest

from cursor_simulator import Simulator
from cursor_simulator.models import RosterEntry
from cursor_simulator.steps import Text, TurnEnded
from nodecode_cursor._proto import aiserver_pb2
from nodecode_cursor.wire import connect

RUN = "/agent.v1.AgentService/RunSSE"
APPEND = "/aiserver.v1.BidiService/BidiAppend"
ONE, TWO = "one@example.com", "two@example.com"

pytestmark = pytest.mark.sim_answer_timeout(2.0)


def ld(field: int, data: bytes) -> bytes:
    """Return a length-delimited field (lengths under 128 only)."""
    assert len(data) < 128
    return bytes([field << 3 | 2, len(data)]) + data


def run_request(model: str, *, conversation: str = "c1", resume: bool = False) -> bytes:
    """Return AgentClientMessage{1 run_request{2 action, 4 mcp_tools{}, 5 conversation_id,
    9 requested_model{1 model_id}}}."""
    action = ld(2, b"") if resume else ld(1, ld(1, ld(1, b"hi")))  # resume / user message "hi"
    body = ld(2, action) + ld(4, b"") + ld(5, conversation.encode()) + ld(9, ld(1, model.encode()))
    return ld(1, body)


def headers(token: str, request_id: str, content_type: str) -> dict[str, str]:
    return {
        "authorization": f"Bearer {token}",
        "x-cursor-client-type": "cli",
        "x-cursor-client-version": "cli-x",
        "x-ghost-mode": "true",
        "connect-protocol-version": "1",
        "x-request-id": request_id,
        "content-type": content_type,
    }


def trailer_of(sim: Simulator, token: str, request_id: str, data: bytes) -> dict[str, object]:
    """Return the end-of-stream trailer of a run on TOKEN's account whose append 0 is DATA."""
    answers: list[httpx.Response] = []
    sent = headers(token, request_id, "application/connect+proto")
    sent["x-cursor-streaming"] = "true"
    frame = connect.encode_frame(ld(1, request_id.encode()))

    def read() -> None:
        answers.append(httpx.post(sim.url + RUN, content=frame, headers=sent, timeout=10))

    reader = threading.Thread(target=read)
    reader.start()
    for _ in range(500):
        if any(r.request_id == request_id and r.streamed for r in sim.agent.runs):
            break
        threading.Event().wait(0.01)
    body = ld(2, ld(1, request_id.encode())) + ld(4, data)
    posted = httpx.post(
        sim.url + APPEND, content=body, headers=headers(token, request_id, "application/proto")
    )
    assert posted.status_code == 200
    reader.join(10)
    frames = connect.FrameDecoder().feed(answers[0].content)
    assert frames[-1].end_stream
    trailer = json.loads(frames[-1].payload)
    assert isinstance(trailer, dict)
    return trailer


def details_code(trailer: dict[str, object]) -> int:
    """Return the ErrorDetails code the trailer's error carries."""
    error = trailer["error"]
    assert isinstance(error, dict) and error["code"] == "resource_exhausted"
    value = error["details"][0]["value"]
    raw = base64.b64decode(value + "=" * (-len(value) % 4))
    return int(aiserver_pb2.ErrorDetails.FromString(raw).error)


@pytest.fixture
def tokens(sim: Simulator) -> tuple[str, str]:
    """Return a bearer for ONE and one for TWO."""
    one, two = sim.accounts.add(ONE), sim.accounts.add(TWO)
    return sim.auth.issue_token(one.sub), sim.auth.issue_token(two.sub)


def test_a_limited_or_usage_pricing_account_is_refused_alone(
    sim: Simulator, tokens: tuple[str, str]
) -> None:
    one, two = tokens
    sim.accounts.named(ONE).limited = True
    assert details_code(trailer_of(sim, one, "l1", run_request("composer-2.5"))) == 10
    sim.accounts.named(ONE).limited = False
    sim.accounts.named(ONE).usage_pricing = True
    assert details_code(trailer_of(sim, one, "p1", run_request("composer-2.5"))) == 44
    sim.agent.script([Text("fine"), TurnEnded()])
    assert trailer_of(sim, two, "p2", run_request("composer-2.5")) == {}
    assert sim.agent.run().account is sim.accounts.named(TWO)


def test_an_accounts_spent_pool_refuses_its_third_party_models_bare(
    sim: Simulator, tokens: tuple[str, str]
) -> None:
    one, two = tokens
    sim.accounts.named(ONE).pool_empty = True
    bare = {"error": {"code": "resource_exhausted", "message": "Error"}}
    assert trailer_of(sim, one, "q1", run_request("gpt-5.4")) == bare
    # Cursor's own models still answer on that account, and the other account's pool is whole.
    sim.agent.script([Text("own"), TurnEnded()])
    assert trailer_of(sim, one, "q2", run_request("composer-2.5")) == {}
    sim.agent.script([Text("theirs"), TurnEnded()])
    assert trailer_of(sim, two, "q3", run_request("gpt-5.4")) == {}


def test_a_conversation_id_is_known_only_on_the_account_that_ran_it(
    sim: Simulator, tokens: tuple[str, str]
) -> None:
    one, two = tokens
    sim.agent.refuse_unknown_resume = True
    sim.agent.script([Text("started"), TurnEnded()])
    assert trailer_of(sim, one, "k1", run_request("composer-2.5", conversation="c7")) == {}
    again = run_request("composer-2.5", conversation="c7", resume=True)
    refused = trailer_of(sim, two, "k2", again)
    error = refused["error"]
    assert isinstance(error, dict) and error["code"] == "failed_precondition"
    sim.agent.script([Text("resumed"), TurnEnded()])
    assert trailer_of(sim, one, "k3", again) == {}


def test_an_accounts_own_roster_is_what_its_runs_may_use(
    sim: Simulator, tokens: tuple[str, str]
) -> None:
    one, two = tokens
    sim.accounts.named(TWO).roster = [RosterEntry("composer-2.5", "Composer 2.5")]
    bare = {"error": {"code": "resource_exhausted", "message": "Error"}}
    assert trailer_of(sim, two, "r1", run_request("gpt-5.4")) == bare
    sim.agent.script([Text("listed"), TurnEnded()])
    assert trailer_of(sim, one, "r2", run_request("gpt-5.4")) == {}
