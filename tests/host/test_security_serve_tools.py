"""``serve`` hands a client no call of a tool its request did not offer (issue 36, item 5).

The simulated model calls ``delete_everything``, which the request never offered, on
all three APIs (chat completions, Responses, Messages), streamed and not, with other
tools offered and under ``tool_choice: "none"``. The client must get no such call.
Two layers see to it: the cell declares only the offered tools and refuses a call of
any other name inside the round, so the model is told (its MCP ask is answered
``tool_not_found`` naming the declared tools); and ``serve`` drops a call of a tool the
request did not allow (``tool_choice: "none"``) and says so in the answer's text.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from served import RunningServer, served

from cursor_simulator import Simulator
from cursor_simulator.steps import (
    AskRequestContext,
    Checkpoint,
    End,
    KvRead,
    StepCompleted,
    StepStarted,
    Text,
    ToolCall,
    TurnEnded,
)

MODEL = "claude-4.5-sonnet"
ROGUE = "delete_everything"

LIST_FILES = {
    "name": "list_files",
    "description": "List the files in a folder",
    "parameters": {
        "type": "object",
        "properties": {"path": {"type": "string"}},
        "required": ["path"],
    },
}


def rogue_script() -> list[Any]:
    """The model says a word, then calls a tool nobody offered."""
    return [
        AskRequestContext(),
        KvRead(),
        StepStarted(),
        Text("Cleaning up."),
        ToolCall(ROGUE, {"path": "/"}, call_id="call_rogue"),
        StepCompleted(),
        TurnEnded(10, 5),
        Checkpoint(),
        End(),
    ]


def refused_in_round(sim: Simulator, declared: list[str]) -> None:
    """Assert the cell answered the rogue call's MCP ask tool_not_found, naming DECLARED."""
    run = sim.agent.run()
    results = [
        message.exec_client_message.mcp_result
        for answers in run.answers.values()
        for message in answers
        if message.HasField("exec_client_message")
        and message.exec_client_message.HasField("mcp_result")
    ]
    assert [r.tool_not_found.name for r in results] == [ROGUE]
    assert list(results[0].tool_not_found.available_tools) == declared


@pytest.fixture
def api(sim: Simulator, home: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[RunningServer]:
    sim.agent.answer_timeout = 5.0
    with served(sim, home, monkeypatch) as running:
        yield running


def post(api: RunningServer, path: str, body: dict[str, Any], root: bool = False) -> str:
    """Return the text of the answer to BODY posted to PATH (under /v1, or the root's)."""
    base = api.root if root else api.url
    with httpx.Client(base_url=base, timeout=20) as client:
        answer = client.post(path, json=body)
    assert answer.status_code == 200, answer.text
    return answer.text


CHOICES = {"offered": {}, "none": {"tool_choice": "none"}}
# What the cell declares to Cursor in each case: under "none", no tool at all.
DECLARED: dict[str, list[str]] = {"offered": ["list_files"], "none": []}


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
@pytest.mark.parametrize("choice", list(CHOICES))
def test_chat_completions_never_pass_on_a_call_not_offered(
    api: RunningServer, sim: Simulator, stream: bool, choice: str
) -> None:
    sim.agent.script(rogue_script())
    body = {
        "model": MODEL,
        "messages": [{"role": "user", "content": "tidy up"}],
        "tools": [{"type": "function", "function": LIST_FILES}],
        "stream": stream,
        **CHOICES[choice],
    }
    text = post(api, "/chat/completions", body)
    assert ROGUE not in text
    if stream:
        chunks = [json.loads(e[6:]) for e in text.split("\n\n") if e.startswith("data: {")]
        deltas = [c["choices"][0] for c in chunks if c["choices"]]
        said = "".join(d["delta"].get("content") or "" for d in deltas)
        assert not any(d["delta"].get("tool_calls") for d in deltas)
        assert deltas[-1]["finish_reason"] == "stop"
    else:
        choice_ = json.loads(text)["choices"][0]
        said = choice_["message"]["content"]
        assert "tool_calls" not in choice_["message"]
        assert choice_["finish_reason"] == "stop"
    assert said == "Cleaning up."
    refused_in_round(sim, DECLARED[choice])


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
@pytest.mark.parametrize("choice", list(CHOICES))
def test_responses_never_pass_on_a_call_not_offered(
    api: RunningServer, sim: Simulator, stream: bool, choice: str
) -> None:
    sim.agent.script(rogue_script())
    body = {
        "model": MODEL,
        "input": "tidy up",
        "tools": [{"type": "function", **LIST_FILES}],
        "stream": stream,
        "store": False,
        **CHOICES[choice],
    }
    text = post(api, "/responses", body)
    assert ROGUE not in text
    assert "function_call" not in text
    assert "Cleaning up." in text
    refused_in_round(sim, DECLARED[choice])


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
@pytest.mark.parametrize("choice", ["offered", "none"])
def test_messages_never_pass_on_a_call_not_offered(
    api: RunningServer, sim: Simulator, stream: bool, choice: str
) -> None:
    sim.agent.script(rogue_script())
    tool = {
        "name": "list_files",
        "description": "List the files",
        "input_schema": LIST_FILES["parameters"],
    }
    body: dict[str, Any] = {
        "model": MODEL,
        "max_tokens": 1024,
        "messages": [{"role": "user", "content": "tidy up"}],
        "tools": [tool],
        "stream": stream,
    }
    if choice == "none":
        body["tool_choice"] = {"type": "none"}
    text = post(api, "/v1/messages", body, root=True)
    assert ROGUE not in text
    assert "tool_use" not in text
    assert "Cleaning up." in text
    refused_in_round(sim, DECLARED[choice])
    if not stream:
        assert json.loads(text)["stop_reason"] == "end_turn"


def test_a_call_of_an_offered_tool_still_goes_through(api: RunningServer, sim: Simulator) -> None:
    script = rogue_script()
    script[4] = ToolCall("list_files", {"path": "src"}, call_id="call_ok")
    sim.agent.script(script)
    body = {
        "model": MODEL,
        "messages": [{"role": "user", "content": "list"}],
        "tools": [{"type": "function", "function": LIST_FILES}],
    }
    choice = json.loads(post(api, "/chat/completions", body))["choices"][0]
    assert choice["finish_reason"] == "tool_calls"
    assert [c["function"]["name"] for c in choice["message"]["tool_calls"]] == ["list_files"]
    assert choice["message"]["content"] == "Cleaning up."


def test_the_conversation_goes_on_after_a_dropped_call(api: RunningServer, sim: Simulator) -> None:
    sim.agent.script(rogue_script())
    messages: list[dict[str, Any]] = [{"role": "user", "content": "tidy up"}]
    body = {"model": MODEL, "messages": messages, "tool_choice": "none"}
    headers = {"x-session-id": "dropped-call-session"}
    with httpx.Client(base_url=api.url, timeout=20) as client:
        first = client.post("/chat/completions", json=body, headers=headers)
        assert first.status_code == 200, first.text
        messages += [first.json()["choices"][0]["message"], {"role": "user", "content": "ok?"}]
        second = client.post("/chat/completions", json=body, headers=headers)
    assert second.status_code == 200, second.text
    assert "tool_calls" not in second.json()["choices"][0]["message"]
