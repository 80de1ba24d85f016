"""``serve`` hands a client no call of a tool its request did not offer (issue 36, item 5).

The simulated model calls ``delete_everything``, which the request never offered, on
all three APIs (chat completions, Responses, Messages), streamed and not, with other
tools offered and under ``tool_choice: "none"``. The client must get no such call;
the answer's text says the tool was not available.
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
SAID = f"[The model called `{ROGUE}`, not a tool this request offered"
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
    assert ROGUE not in text.replace(SAID, "")
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
    assert said.startswith("Cleaning up.\n\n" + SAID)
    assert said.endswith("that tool is not available.]")


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
    assert ROGUE not in text.replace(SAID, "")
    assert "function_call" not in text
    assert SAID in text


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
    assert ROGUE not in text.replace(SAID, "")
    assert "tool_use" not in text
    assert SAID in text
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
