"""What the SDKs never send, over raw HTTP against ``serve`` on the simulator, and the pure
translations of the Responses and Messages APIs (Claude Code's and Codex's shapes).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from served import served

from cursor_simulator import Simulator
from cursor_simulator.steps import AskRequestContext, EndError, KvRead, StepStarted, Text
from nodecode_host.anthropic_api import (
    count_tokens,
    cursor_model,
    effort_of_budget,
    parse_messages_request,
)
from nodecode_host.api_round import nearest_effort, schema_problem
from nodecode_host.responses_api import input_messages, parse_responses_request
from nodecode_host.responses_store import ResponseStore

MODEL = "composer-2.5"


def sse(text: str) -> list[tuple[str, dict[str, Any]]]:
    """Return the (event, data) pairs of an SSE body."""
    out = []
    for block in text.split("\n\n"):
        lines = block.split("\n")
        event = next((line[7:] for line in lines if line.startswith("event: ")), "")
        data = next((line[6:] for line in lines if line.startswith("data: ")), None)
        if data is not None:
            out.append((event, json.loads(data)))
    return out


def failing_script() -> list[Any]:
    return [
        AskRequestContext(),
        KvRead(),
        StepStarted(),
        Text("partial "),
        EndError("internal", "x"),
    ]


# Over HTTP -----


def test_claude_code_shapes_are_served(
    sim: Simulator, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    body = {
        "model": "claude-opus-4-8-high",
        "max_tokens": 64000,
        "stream": True,
        "system": [{"type": "text", "text": "You are Claude Code.", "cache_control": {"x": 1}}],
        "messages": [
            {"role": "system", "content": "Extra system words."},
            {"role": "user", "content": [{"type": "text", "text": "hello"}]},
            {
                "role": "assistant",
                "content": [
                    {"type": "thinking", "thinking": "hm", "signature": "nodecode-abc"},
                    {"type": "redacted_thinking", "data": "opaque"},
                    {"type": "text", "text": "Hi."},
                ],
            },
            {"role": "user", "content": "again"},
        ],
        "tools": [
            {"name": "Read", "input_schema": {"type": "object"}},
            {"type": "web_search_20250305", "name": "web_search"},
        ],
        # An effort the model cannot take is dropped, not refused.
        "thinking": {"type": "adaptive"},
        "output_config": {"effort": "ultra"},
        "context_management": {"edits": []},
    }
    with served(sim, home, monkeypatch) as api, httpx.Client(timeout=60) as client:
        head = client.head(api.root + "/")
        answer = client.post(
            api.root + "/v1/messages?beta=true",
            json=body,
            headers={"x-api-key": "k", "anthropic-version": "2023-06-01", "anthropic-beta": "x"},
        )
    assert head.status_code == 404
    assert answer.status_code == 200, answer.text
    assert answer.headers["transfer-encoding"] == "chunked"
    events = sse(answer.text)
    assert [e for e, _ in events][:2] == ["message_start", "ping"]
    assert events[-1][0] == "message_stop"
    assert all(data["type"] == event for event, data in events)
    run = sim.agent.run()
    assert [t.name for t in run.tools] == ["Read"]
    sent = json.dumps(run.root_messages())
    assert "You are Claude Code." in sent and "Extra system words." in sent


def test_claude_codes_trailing_system_messages_never_become_the_prompt(
    sim: Simulator, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The shape Claude Code 2.1 sends: its agent types and skills as system messages
    # after the person's message (captured from its /v1/messages request).
    body = {
        "model": MODEL,
        "max_tokens": 32000,
        "system": [{"type": "text", "text": "You are Claude Code."}],
        "messages": [
            {"role": "user", "content": [{"type": "text", "text": "what is 2+2?"}]},
            {"role": "system", "content": "Available agent types for the Agent tool: general."},
            {"role": "system", "content": "The following skills are available: none."},
        ],
    }
    with served(sim, home, monkeypatch) as api, httpx.Client(timeout=60) as client:
        answer = client.post(
            api.root + "/v1/messages",
            json=body,
            headers={"x-api-key": "k", "anthropic-version": "2023-06-01"},
        )
    assert answer.status_code == 200, answer.text
    run = sim.agent.run()
    assert run.prompt() == "what is 2+2?"
    (system,) = [m for m in run.root_messages() if m["role"] == "system"]
    assert "Available agent types for the Agent tool: general." in system["content"]
    assert "The following skills are available: none." in system["content"]
    assert answer.json()["content"][0]["text"] == "Simulated Cursor here. You said: what is 2+2?"


def test_errors_after_the_stream_began_are_each_apis_own(
    sim: Simulator, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sim.agent.script(failing_script())
    sim.agent.script(failing_script())
    ask = [{"role": "user", "content": "x"}]
    with served(sim, home, monkeypatch) as api, httpx.Client(timeout=60) as client:
        messages = client.post(
            api.url + "/messages", json={"model": MODEL, "messages": ask, "stream": True}
        )
        responses = client.post(
            api.url + "/responses", json={"model": MODEL, "input": "x", "stream": True}
        )
        missing = client.get(api.url + "/models/nope")
        wrong = client.post(
            api.url + "/messages",
            content=b"{",
            headers={"x-api-key": "k", "content-type": "application/json"},
        )
    event, data = sse(messages.text)[-1]
    assert event == "error" and data["error"]["type"] == "api_error"
    event, data = sse(responses.text)[-1]
    assert event == "response.failed" and data["response"]["status"] == "failed"
    assert data["response"]["error"]["message"]
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "model_not_found"
    assert wrong.status_code == 400
    assert wrong.json() == {
        "type": "error",
        "error": {"type": "invalid_request_error", "message": "the request body is not valid JSON"},
    }


# Pure: the Responses API -----


def test_codex_input_becomes_chat_messages() -> None:
    items = [
        {"type": "message", "role": "developer", "content": [{"type": "input_text", "text": "D"}]},
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "go"}]},
        {"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": "t"}]},
        {"type": "message", "role": "assistant", "id": "m1", "content": [
            {"type": "output_text", "text": "Running."}]},
        {"type": "function_call", "id": "fc_1", "call_id": "c1", "name": "exec_command",
         "arguments": '{"cmd":"ls"}'},
        {"type": "function_call", "id": "fc_2", "call_id": "c2", "name": "exec_command",
         "arguments": '{"cmd":"pwd"}'},
        {"type": "function_call_output", "call_id": "c1", "output": "a"},
        {"type": "function_call_output", "call_id": "c2", "output": [
            {"type": "input_text", "text": "/w"}]},
        {"type": "web_search_call", "id": "ws_1", "status": "completed"},
    ]  # fmt: skip
    messages = input_messages(items)
    assert messages[0] == {"role": "developer", "content": "D"}
    assistant = messages[2]
    assert assistant["content"] == "Running." and assistant["reasoning_content"] == "t"
    assert [c["id"] for c in assistant["tool_calls"]] == ["c1", "c2"]
    assert messages[3:] == [
        {"role": "tool", "tool_call_id": "c1", "content": "a"},
        {"role": "tool", "tool_call_id": "c2", "content": "/w"},
    ]


def test_a_codex_request_reads_into_a_round() -> None:
    body = {
        "model": "gpt-5.4",
        "instructions": "Base instructions.",
        "input": [
            {"type": "message", "role": "developer", "content": "Sandbox rules."},
            {"type": "message", "role": "user", "content": "hi"},
        ],
        "tools": [
            {"type": "function", "name": "exec_command", "parameters": {"type": "object"}},
            {"type": "web_search"},
            {"type": "namespace", "name": "mcp", "tools": []},
            {"type": "custom", "name": "apply_patch", "format": {"type": "grammar"}},
        ],
        "tool_choice": "auto",
        "reasoning": {"effort": "high", "summary": "auto"},
        "store": False,
        "stream": True,
        "include": ["reasoning.encrypted_content"],
        "prompt_cache_key": "conv-1",
    }
    store = ResponseStore()
    ask = parse_responses_request(json.dumps(body).encode(), store)
    round_ = ask.round
    assert round_.system == "Base instructions.\n\nSandbox rules."
    assert round_.messages == [{"role": "user", "content": "hi"}]
    assert [t["function"]["name"] for t in round_.tools] == ["exec_command"]
    assert round_.effort == "high" and round_.lenient_effort
    assert round_.session_id == "conv-1" and round_.stream and not ask.store


# Pure: the Messages API and the shared rules -----


def test_tool_results_come_before_the_text_of_their_turn() -> None:
    body = {
        "model": "claude-sonnet-4-5",
        "messages": [
            {"role": "user", "content": "go"},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "Read",
                                               "input": {"file_path": "/a"}}]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "t1", "content": [
                    {"type": "text", "text": "line"}]},
                {"type": "text", "text": "<system-reminder>x</system-reminder>"},
            ]},
        ],
        "tool_choice": {"type": "any"},
        "tools": [{"name": "Read", "input_schema": {"type": "object"}}],
        "thinking": {"type": "enabled", "budget_tokens": 10000},
        "metadata": {"user_id": "session-7"},
    }  # fmt: skip
    request = parse_messages_request(json.dumps(body).encode())
    assert request.messages[1]["tool_calls"][0]["function"] == {
        "name": "Read",
        "arguments": '{"file_path": "/a"}',
    }
    assert request.messages[2] == {"role": "tool", "tool_call_id": "t1", "content": "line"}
    assert request.messages[3]["role"] == "user"
    assert request.tool_demand is not None and request.tool_demand.name is None
    assert request.effort == "high" and request.session_id == "session-7"
    assert count_tokens(json.dumps(body).encode())["input_tokens"] > 10


def test_anthropic_names_map_to_the_newest_listed_claude() -> None:
    listed = ["claude-4.5-sonnet", "claude-4.6-sonnet-medium", "claude-opus-4-8-high",
              "claude-opus-4-8-max", "claude-opus-4-7-high", "composer-2.5"]  # fmt: skip
    assert cursor_model("claude-sonnet-4-5-20250929", listed, {}) == "claude-4.6-sonnet-medium"
    assert cursor_model("claude-opus-4-1", listed, {}) == "claude-opus-4-8-high"
    assert cursor_model("claude-haiku-4-5", listed, {}) == "claude-opus-4-8-high"
    assert cursor_model("claude-haiku-4-5", listed, {"haiku": "composer-2.5"}) == "composer-2.5"
    assert cursor_model("composer-2.5", listed, {}) == "composer-2.5"
    assert cursor_model("gpt-nine", listed, {}) == "gpt-nine"
    assert [effort_of_budget(b) for b in (0, 1024, 8192, 20000, 64000)] == [
        None,
        "low",
        "medium",
        "high",
        "xhigh",
    ]
    assert nearest_effort("xhigh", ["low", "medium", "high"]) == "high"
    assert nearest_effort("ultra", ["low", "medium"]) == "medium"
    assert nearest_effort("low", []) is None


def test_the_schema_check_names_the_first_fault() -> None:
    schema = {
        "type": "object",
        "properties": {
            "name": {"type": "string"},
            "tags": {"type": "array", "items": {"enum": ["a", "b"]}},
            "size": {"$ref": "#/$defs/size"},
        },
        "required": ["name"],
        "additionalProperties": False,
        "$defs": {"size": {"anyOf": [{"type": "integer"}, {"type": "null"}]}},
    }
    assert schema_problem({"name": "x", "tags": ["a"], "size": None}, schema) is None
    assert schema_problem({}, schema) == "$ is missing the required property 'name'"
    assert schema_problem({"name": 1}, schema) == "$.name should be string"
    assert (
        schema_problem({"name": "x", "tags": ["c"]}, schema)
        == '$.tags[0] should be one of ["a", "b"]'
    )
    assert schema_problem({"name": "x", "size": 1.5}, schema) == (
        "$.size matches none of the schema's anyOf options"
    )
    assert schema_problem({"name": "x", "more": 1}, schema) == (
        "$ has a property the schema does not allow: 'more'"
    )


def test_the_schema_check_holds_the_keywords_a_subset_ignored() -> None:
    schema = {
        "type": "object",
        "properties": {
            "code": {"type": "string", "pattern": "^[A-Z]{3}$", "maxLength": 3},
            "count": {"type": "integer", "minimum": 1},
            "pick": {"oneOf": [{"type": "integer"}, {"type": "number"}]},
        },
    }
    assert schema_problem({"code": "ABC", "count": 2, "pick": 1.5}, schema) is None
    assert schema_problem({"code": "abc"}, schema) == "$.code: 'abc' does not match '^[A-Z]{3}$'"
    assert schema_problem({"count": 0}, schema) == "$.count: 0 is less than the minimum of 1"
    # 2 is an integer and a number: oneOf wants exactly one.
    assert schema_problem({"pick": 2}, schema) == (
        "$.pick matches more than one of the schema's oneOf options"
    )
    # A schema that is not one makes no demand.
    assert schema_problem({"x": 1}, {"type": 12}) is None


def test_a_head_request_keeps_its_connection_for_the_next_request(
    sim: Simulator, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Claude Code opens with HEAD /: its answer carries no body, and the connection
    # stays usable (a body there broke it, and the next request was reset).
    import socket
    from urllib.parse import urlsplit

    with served(sim, home, monkeypatch) as api:
        where = urlsplit(api.root)
        assert where.hostname is not None and where.port is not None
        with socket.create_connection((where.hostname, where.port), timeout=10) as sock:
            host = f"{where.hostname}:{where.port}".encode()
            sock.sendall(b"HEAD / HTTP/1.1\r\nhost: " + host + b"\r\n\r\n")
            sock.sendall(b"GET /v1/models HTTP/1.1\r\nhost: " + host + b"\r\n\r\n")
            received = b""
            while b'"object":"list"' not in received:
                chunk = sock.recv(65536)
                assert chunk, received
                received += chunk
    first, _, rest = received.partition(b"\r\n\r\n")
    assert first.startswith(b"HTTP/1.1 404")
    assert rest.startswith(b"HTTP/1.1 200")  # nothing between: the HEAD answer had no body


def test_a_secret_the_service_echoes_never_reaches_a_client(
    sim: Simulator, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The service's error quotes the bearer it was sent: an opaque token, no JWT or
    # "Bearer" shape to recognise. It is scrubbed by value from the body and the stream.
    from served import TOKEN

    from cursor_simulator.steps import EndError

    echo = EndError("internal", f"upstream refused key {TOKEN}; try again")
    with served(sim, home, monkeypatch) as api, httpx.Client(timeout=60) as client:
        sim.agent.script([echo])
        plain = client.post(
            api.url + "/chat/completions",
            json={"model": MODEL, "messages": [{"role": "user", "content": "x"}]},
        )
        sim.agent.script([echo])
        streamed = client.post(
            api.url + "/chat/completions",
            json={"model": MODEL, "messages": [{"role": "user", "content": "x"}], "stream": True},
        )
        sim.agent.script([echo])
        anthropic = client.post(
            api.url + "/messages",
            json={"model": MODEL, "max_tokens": 10, "messages": [{"role": "user", "content": "x"}]},
        )
    for answer in (plain, streamed, anthropic):
        assert "upstream refused key" in answer.text, answer.text  # the error did come through
        assert TOKEN not in answer.text
