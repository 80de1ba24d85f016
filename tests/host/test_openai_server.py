"""The OpenAI-compatible server over real sockets: httpx as the client, the simulator as Cursor.

The server runs in-process on its own event loop in a thread, serving from a
real ReferenceHost whose cell points at the simulator; the Cursor token comes
from CURSOR_ACCESS_TOKEN through the cell's own credential ladder.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from probes import settled
from served import RunningServer

from cursor_simulator import Simulator
from cursor_simulator.models import RosterEntry
from cursor_simulator.steps import (
    AskRequestContext,
    Checkpoint,
    End,
    EndError,
    KvRead,
    Sleep,
    StepCompleted,
    StepStarted,
    Text,
    Thinking,
    TurnEnded,
)
from nodecode_host.http_server import loopback
from nodecode_host.refhost import ReferenceHost

TOKEN = "sim-token-openai-server-secret"
MODEL = "claude-4.5-sonnet"
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "list_files",
            "description": "List the files in a folder",
            "parameters": {
                "type": "object",
                "properties": {"path": {"type": "string"}},
                "required": ["path"],
            },
        },
    }
]


@pytest.fixture
def cursor_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CURSOR_ACCESS_TOKEN", TOKEN)
    monkeypatch.delenv("CURSOR_API_KEY", raising=False)


@pytest.fixture
def host(sim: Simulator, home: Path, cursor_env: None) -> Iterator[ReferenceHost]:
    sim.agent.answer_timeout = 5.0
    reference = ReferenceHost(home, overrides={"cursor": {"base_url": sim.url}}, say=lambda _: None)
    reference.start()
    try:
        yield reference
    finally:
        reference.stop()


@pytest.fixture
def api(host: ReferenceHost) -> Iterator[RunningServer]:
    running = RunningServer(host).start()
    try:
        yield running
    finally:
        running.stop()


def sse_events(text: str) -> list[str]:
    """Return the data of each SSE event in TEXT, in order."""
    events = []
    for block in text.split("\n\n"):
        lines = [line for line in block.split("\n") if line.startswith("data: ")]
        if lines:
            events.append("\n".join(line[len("data: ") :] for line in lines))
    return events


def chat(prompt: str, **extra: Any) -> dict[str, Any]:
    return {"model": MODEL, "messages": [{"role": "user", "content": prompt}], **extra}


def text_script(*pieces: str, sleep: float = 0.0) -> list[Any]:
    steps: list[Any] = [AskRequestContext(), KvRead(), StepStarted(), Thinking("Hmm. ")]
    for index, piece in enumerate(pieces):
        steps.append(Text(piece))
        if sleep and index == 0:
            steps.append(Sleep(sleep))
    steps += [StepCompleted(), TurnEnded(100, 20, 10), Checkpoint(), End()]
    return steps


# Models ---------------------------------------------------------------------------------------


def test_models_lists_the_accounts_roster(api: RunningServer, sim: Simulator) -> None:
    with httpx.Client(base_url=api.url) as client:
        answer = client.get("/models")
    assert answer.status_code == 200
    body = answer.json()
    assert body["object"] == "list"
    ids = [row["id"] for row in body["data"]]
    assert ids == sorted(entry.model_id for entry in sim.models.roster)
    assert all(row["object"] == "model" and row["owned_by"] == "cursor" for row in body["data"])
    seen = sim.requests_to("/agent.v1.AgentService/GetUsableModels")
    assert seen and seen[-1].headers["authorization"] == f"Bearer {TOKEN}"


def test_models_carry_what_the_catalog_says(api: RunningServer, sim: Simulator) -> None:
    sim.models.roster = [RosterEntry("claude-sonnet-5-max", "Claude Sonnet 5 Max", max_mode=True)]
    sim.models.roster.append(RosterEntry("composer-2.5", "Composer 2.5"))
    with httpx.Client(base_url=api.url) as client:
        rows = {row["id"]: row for row in client.get("/models").json()["data"]}
        one = client.get("/models/claude-sonnet-5-max").json()
    sonnet = rows["claude-sonnet-5-max"]
    assert sonnet["max_context_window"] == 1_000_000 and sonnet["supports_thinking"] is True
    assert sonnet["parameters"]["effort"] == ["low", "medium", "high", "xhigh"]
    assert one == sonnet
    # A model the catalog does not know carries no invented fields.
    assert "parameters" not in rows["composer-2.5"]
    assert "max_context_window" not in rows["composer-2.5"]


def test_models_falls_back_to_the_bundled_rows(api: RunningServer, sim: Simulator) -> None:
    sim.models.refuse(401, "unauthenticated")
    with httpx.Client(base_url=api.url) as client:
        body = client.get("/models").json()
    ids = {row["id"] for row in body["data"]}
    assert MODEL in ids and "composer-2.5" in ids
    assert TOKEN not in json.dumps(body)


# Non-streamed rounds ---------------------------------------------------------------------------


def test_a_plain_text_answer(api: RunningServer, sim: Simulator) -> None:
    with httpx.Client(base_url=api.url, timeout=20) as client:
        answer = client.post("/chat/completions", json=chat("hello there", model=f"cursor/{MODEL}"))
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["object"] == "chat.completion"
    assert body["model"] == f"cursor/{MODEL}"
    choice = body["choices"][0]
    assert choice["finish_reason"] == "stop"
    assert choice["message"]["role"] == "assistant"
    assert choice["message"]["content"] == "Simulated Cursor here. You said: hello there"
    usage = body["usage"]
    assert usage["completion_tokens"] > 0
    assert usage["total_tokens"] == usage["prompt_tokens"] + usage["completion_tokens"]
    run = sim.agent.run()
    assert run.prompt() == "hello there"


def test_system_prompt_effort_and_usage_reach_the_round(api: RunningServer, sim: Simulator) -> None:
    sim.agent.script(text_script("Fine."))
    request = {
        "model": MODEL,
        "messages": [
            {"role": "system", "content": "Be terse."},
            {"role": "user", "content": [{"type": "text", "text": "how are you"}]},
        ],
        "reasoning_effort": "high",
    }
    with httpx.Client(base_url=api.url, timeout=20) as client:
        answer = client.post("/chat/completions", json=request)
    assert answer.status_code == 200, answer.text
    body = answer.json()
    message = body["choices"][0]["message"]
    assert message == {"role": "assistant", "content": "Fine.", "reasoning_content": "Hmm. "}
    # TurnEnded(100, 20, 10): 100 input (cache included, as Cursor counts), 20 out, 10 cached.
    assert body["usage"]["prompt_tokens"] == 100
    assert body["usage"]["completion_tokens"] == 20
    assert body["usage"]["prompt_tokens_details"]["cached_tokens"] == 10
    run = sim.agent.run()
    assert "Be terse." in json.dumps(run.root_messages())


def test_keep_alive_serves_several_requests_on_one_connection(api: RunningServer) -> None:
    with httpx.Client(base_url=api.url, timeout=20) as client:
        first = client.post("/chat/completions", json=chat("one"))
        second = client.get("/models")
        third = client.post("/chat/completions", json=chat("two"))
    assert [first.status_code, second.status_code, third.status_code] == [200, 200, 200]
    assert third.json()["choices"][0]["message"]["content"].endswith("You said: two")
    assert api.server is not None
    assert api.server.connections <= 1  # one connection, still open or closing


# Streaming ------------------------------------------------------------------------------------


def test_a_streamed_answer(api: RunningServer, sim: Simulator) -> None:
    sim.agent.script(text_script("Hello ", "world."))
    request = chat("stream it", stream=True, stream_options={"include_usage": True})
    with (
        httpx.Client(base_url=api.url, timeout=20) as client,
        client.stream("POST", "/chat/completions", json=request) as answer,
    ):
        assert answer.status_code == 200
        assert answer.headers["content-type"].startswith("text/event-stream")
        text = answer.read().decode()
    events = sse_events(text)
    assert events[-1] == "[DONE]"
    chunks = [json.loads(e) for e in events[:-1]]
    assert all(c["object"] == "chat.completion.chunk" for c in chunks)
    assert len({c["id"] for c in chunks}) == 1
    assert chunks[0]["choices"][0]["delta"]["role"] == "assistant"
    deltas = [c["choices"][0]["delta"] for c in chunks if c["choices"]]
    assert "".join(d.get("content") or "" for d in deltas) == "Hello world."
    assert "".join(d.get("reasoning_content") or "" for d in deltas) == "Hmm. "
    finishes = [c["choices"][0]["finish_reason"] for c in chunks if c["choices"]]
    assert finishes[-1] == "stop" and finishes.count("stop") == 1
    assert chunks[-1]["choices"] == []
    assert chunks[-1]["usage"]["completion_tokens"] == 20


def tool_round_messages() -> list[dict[str, Any]]:
    return [{"role": "user", "content": "please use list_files on src"}]


def test_a_tool_round_and_its_result(api: RunningServer, sim: Simulator) -> None:
    messages = tool_round_messages()
    with httpx.Client(base_url=api.url, timeout=20) as client:
        first = client.post(
            "/chat/completions",
            json={"model": MODEL, "messages": messages, "tools": TOOLS},
            headers={"x-session-id": "tool-session"},
        ).json()
        choice = first["choices"][0]
        assert choice["finish_reason"] == "tool_calls"
        calls = choice["message"]["tool_calls"]
        assert len(calls) == 1
        assert calls[0]["type"] == "function"
        assert calls[0]["function"]["name"] == "list_files"
        assert "path" in json.loads(calls[0]["function"]["arguments"])
        messages += [
            choice["message"],
            {"role": "tool", "tool_call_id": calls[0]["id"], "content": "a.py b.py"},
        ]
        second = client.post(
            "/chat/completions",
            json={"model": MODEL, "messages": messages, "tools": TOOLS},
            headers={"x-session-id": "tool-session"},
        ).json()
    final = second["choices"][0]
    assert final["finish_reason"] == "stop"
    assert final["message"]["content"] == "list_files returned: a.py b.py"
    assert "tool_calls" not in final["message"]


def test_a_streamed_tool_call(api: RunningServer) -> None:
    request = {"model": MODEL, "messages": tool_round_messages(), "tools": TOOLS, "stream": True}
    with (
        httpx.Client(base_url=api.url, timeout=20) as client,
        client.stream("POST", "/chat/completions", json=request) as answer,
    ):
        events = sse_events(answer.read().decode())
    assert events[-1] == "[DONE]"
    deltas = [json.loads(e)["choices"][0] for e in events[:-1]]
    calls = [d["delta"]["tool_calls"][0] for d in deltas if d["delta"].get("tool_calls")]
    assert calls[0]["index"] == 0 and calls[0]["type"] == "function"
    assert calls[0]["function"]["name"] == "list_files" and calls[0]["id"]
    arguments = "".join(c["function"].get("arguments", "") for c in calls)
    assert "path" in json.loads(arguments)
    assert deltas[-1]["finish_reason"] == "tool_calls"


def test_concurrent_requests_are_separate_rounds(api: RunningServer, sim: Simulator) -> None:
    async def ask_all() -> list[str]:
        async with httpx.AsyncClient(base_url=api.url, timeout=20) as client:
            answers = await asyncio.gather(
                *(client.post("/chat/completions", json=chat(f"number {n}")) for n in range(4))
            )
        return [a.json()["choices"][0]["message"]["content"] for a in answers]

    contents = asyncio.run(ask_all())
    assert contents == [f"Simulated Cursor here. You said: number {n}" for n in range(4)]


# Errors ---------------------------------------------------------------------------------------


def test_an_unknown_model_is_400_naming_the_nearest(api: RunningServer, sim: Simulator) -> None:
    with httpx.Client(base_url=api.url) as client:
        answer = client.post("/chat/completions", json=chat("hi", model="cursor/gpt-5.4-hihg"))
        streamed = client.post("/chat/completions", json=chat("hi", model="gpt-nine", stream=True))
        listed = {row["id"] for row in client.get("/models").json()["data"]}
    assert answer.status_code == 400
    error = answer.json()["error"]
    assert error["type"] == "invalid_request_error"
    assert error["code"] == "model_not_found"
    assert "cursor/gpt-5.4-high" in error["message"]
    # The hint names only models GET /v1/models lists (never a bundled row it does not).
    named = re.findall(r"cursor/([\w.-]+)", error["message"].split("nearest:", 1)[1])
    assert named and set(named) <= listed
    assert streamed.status_code == 400
    assert streamed.json()["error"]["code"] == "model_not_found"
    assert not sim.requests_to("/agent.v1.AgentService/RunSSE")


def test_an_unsupported_effort_is_400_naming_the_efforts(api: RunningServer) -> None:
    with httpx.Client(base_url=api.url) as client:
        answer = client.post("/chat/completions", json=chat("hi", reasoning_effort="extreme"))
    assert answer.status_code == 400
    error = answer.json()["error"]
    assert error["code"] == "unsupported_effort"
    assert "high" in error["message"]


def test_malformed_json_and_unknown_paths(api: RunningServer) -> None:
    with httpx.Client(base_url=api.url) as client:
        bad = client.post(
            "/chat/completions",
            content=b'{"model": "x", "messages": [',
            headers={"content-type": "application/json"},
        )
        shape = client.post("/chat/completions", json={"model": MODEL, "messages": []})
        missing = client.get("/nothing-here")
        wrong_method = client.get("/chat/completions")
    assert bad.status_code == 400
    assert bad.json()["error"]["code"] == "invalid_json"
    assert shape.status_code == 400 and "messages" in shape.json()["error"]["message"]
    assert missing.status_code == 404 and missing.json()["error"]["type"] == "not_found_error"
    assert wrong_method.status_code == 405


def test_not_signed_in_is_401(sim: Simulator, home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CURSOR_ACCESS_TOKEN", raising=False)
    monkeypatch.delenv("CURSOR_API_KEY", raising=False)
    reference = ReferenceHost(home, overrides={"cursor": {"base_url": sim.url}}, say=lambda _: None)
    reference.start()
    running = RunningServer(reference).start()
    try:
        with httpx.Client(base_url=running.url) as client:
            answer = client.post("/chat/completions", json=chat("hi"))
    finally:
        running.stop()
        reference.stop()
    assert answer.status_code == 401
    assert answer.json()["error"]["code"] == "not_signed_in"
    # The server runs from a shell: its hint is the shell's command, not the chat's.
    message = answer.json()["error"]["message"]
    assert "nodecode-cursor login" in message and "/cursor login" not in message


def test_cursor_refusing_the_token_is_its_status(api: RunningServer, sim: Simulator) -> None:
    sim.valid_tokens = {"some-other-token"}
    with httpx.Client(base_url=api.url, timeout=20) as client:
        answer = client.post("/chat/completions", json=chat("hi"))
    assert answer.status_code in (401, 403)
    assert TOKEN not in answer.text
    assert set(answer.json()["error"]) >= {"message", "type", "code"}


def test_the_api_key_is_required_when_configured(host: ReferenceHost) -> None:
    running = RunningServer(host, api_key="client-key-123").start()
    try:
        with httpx.Client(base_url=running.url, timeout=20) as client:
            none = client.get("/models")
            wrong = client.get("/models", headers={"authorization": "Bearer client-key-12"})
            right = client.get("/models", headers={"authorization": "Bearer client-key-123"})
            posted = client.post(
                "/chat/completions", json=chat("hi"), headers={"authorization": "Basic x"}
            )
    finally:
        running.stop()
    assert none.status_code == 401 and none.json()["error"]["code"] == "invalid_api_key"
    assert wrong.status_code == 401
    assert posted.status_code == 401
    assert right.status_code == 200
    assert "client-key" not in none.text


def test_an_error_after_the_stream_began_is_an_error_event(
    api: RunningServer, sim: Simulator
) -> None:
    sim.agent.script(
        [
            AskRequestContext(),
            KvRead(),
            StepStarted(),
            Text("partial "),
            EndError("internal", "boom"),
        ]
    )
    with (
        httpx.Client(base_url=api.url, timeout=20) as client,
        client.stream("POST", "/chat/completions", json=chat("x", stream=True)) as answer,
    ):
        assert answer.status_code == 200
        events = sse_events(answer.read().decode())
    assert "[DONE]" not in events
    last = json.loads(events[-1])
    assert set(last["error"]) >= {"message", "type", "code"}
    assert last["error"]["type"] == "api_error"
    contents = [json.loads(e)["choices"][0]["delta"].get("content") for e in events[:-1]]
    assert "partial " in contents


def huge_number_body(*, stream: bool) -> bytes:
    """Return a chat request whose tool schema holds an integer of 400 digits.

    JSON allows it and Python reads it, but no double holds it: the lane once
    failed on it with a plain ValueError, not a CursorError.
    """
    huge = "9" * 400
    tools = [dict(TOOLS[0])]
    tools[0]["function"] = {
        "name": "count",
        "description": "Count up to a bound",
        "parameters": {"type": "object", "properties": {"n": {"type": "integer", "maximum": 0}}},
    }
    body = json.dumps({**chat("hi", stream=stream), "tools": tools})
    return body.replace('"maximum": 0', f'"maximum": {huge}').encode()


def lone_surrogate_body(*, stream: bool) -> bytes:
    """Return a chat request whose prompt holds a lone surrogate (JSON's ``\\ud800`` escape).

    Python reads it into a str that UTF-8 cannot encode: protobuf once refused it
    with a UnicodeEncodeError, not a CursorError (the lane now writes U+FFFD).
    """
    return json.dumps(chat("bad \ud800 text", stream=stream)).encode()


# Requests the lane once failed on with an exception that was not a CursorError. The lane
# now handles both; the tests keep them to check for a well-formed answer and no hang.
NON_CURSOR_FAILURES = [huge_number_body, lone_surrogate_body]


@pytest.mark.parametrize("make_body", NON_CURSOR_FAILURES)
def test_a_request_the_lane_once_failed_on_is_answered_not_dropped(
    api: RunningServer, caplog: pytest.LogCaptureFixture, make_body: Any
) -> None:
    caplog.set_level(logging.INFO, logger="nodecode_host")
    headers = {"content-type": "application/json"}
    # A hang fails in seconds, not at the suite's end.
    with httpx.Client(base_url=api.url, timeout=30) as client:
        answer = client.post("/chat/completions", content=make_body(stream=False), headers=headers)
        assert answer.status_code == 200, answer.text
        assert answer.json()["object"] == "chat.completion"
        # The connection is still good for the next request.
        assert client.get("/models").status_code == 200
    # No traceback at INFO or above.
    assert not [r for r in caplog.records if r.levelno >= logging.INFO and r.exc_info]


@pytest.mark.parametrize("make_body", NON_CURSOR_FAILURES)
def test_a_streamed_request_the_lane_once_failed_on_streams_to_its_end(
    api: RunningServer, make_body: Any
) -> None:
    headers = {"content-type": "application/json"}
    with (
        httpx.Client(base_url=api.url, timeout=30) as client,
        client.stream(
            "POST", "/chat/completions", content=make_body(stream=True), headers=headers
        ) as answer,
    ):
        raw = answer.read().decode()
        assert answer.status_code == 200
        assert answer.headers["content-type"].startswith("text/event-stream")
    events = sse_events(raw)
    assert events[-1] == "[DONE]", raw
    for event in events[:-1]:
        assert json.loads(event)["object"] == "chat.completion.chunk"


def test_loopback_names_only_loopback_addresses() -> None:
    assert loopback("127.0.0.1") and loopback("::1") and loopback("localhost")
    assert not loopback("0.0.0.0") and not loopback("192.168.1.2") and not loopback("example")


# Disconnects ----------------------------------------------------------------------------------


def wait_for(done: Any) -> bool:
    """Return whether DONE() holds: the server's counts move on its own loop, which tells
    no one, so they are looked at again (probes.settled) until they do."""
    return settled(done)


@pytest.mark.leakcheck
def test_a_client_leaving_mid_stream_cancels_the_round(api: RunningServer, sim: Simulator) -> None:
    sim.agent.script(text_script("first ", "never sent", sleep=60.0))
    server = api.server
    assert server is not None
    started = time.monotonic()
    with (
        httpx.Client(base_url=api.url, timeout=20) as client,
        client.stream("POST", "/chat/completions", json=chat("slow", stream=True)) as answer,
    ):
        seen = ""
        for piece in answer.iter_text():
            seen += piece
            if "first " in seen:
                # The round waits in the simulator's pause; leaving the loop closes the response.
                assert server.rounds_in_flight == 1
                break
    # The client is gone: the round is cancelled and its connection closed, long before
    # the simulator's 60 s pause would have ended.
    assert wait_for(lambda: server.rounds_in_flight == 0 and server.connections == 0)
    assert time.monotonic() - started < 30


def test_a_client_leaving_a_non_streamed_round_cancels_it(
    api: RunningServer, sim: Simulator
) -> None:
    sim.agent.script(text_script("first ", "late", sleep=60.0))
    server = api.server
    assert server is not None
    body = json.dumps(chat("slow")).encode()
    head = (
        "POST /v1/chat/completions HTTP/1.1\r\n"
        f"host: {server.listen_host}:{server.port}\r\ncontent-type: application/json\r\n"
        f"content-length: {len(body)}\r\n\r\n"
    ).encode()
    with socket.create_connection((server.listen_host, server.port), timeout=30) as sock:
        sock.sendall(head + body)
        assert wait_for(lambda: server.rounds_in_flight == 1)
    assert wait_for(lambda: server.rounds_in_flight == 0 and server.connections == 0)


def test_stopping_the_server_cancels_rounds_in_flight(host: ReferenceHost, sim: Simulator) -> None:
    sim.agent.script(text_script("first ", "late", sleep=60.0))
    running = RunningServer(host).start()
    server = running.server
    assert server is not None
    body = json.dumps(chat("slow", stream=True)).encode()
    head = (
        "POST /v1/chat/completions HTTP/1.1\r\n"
        f"host: {server.listen_host}:{server.port}\r\ncontent-type: application/json\r\n"
        f"content-length: {len(body)}\r\n\r\n"
    ).encode()
    with socket.create_connection((server.listen_host, server.port), timeout=30) as sock:
        sock.sendall(head + body)
        assert wait_for(lambda: server.rounds_in_flight == 1)
        started = time.monotonic()
        running.stop()
        assert time.monotonic() - started < 30  # not the simulator's 60 s pause
        assert server.rounds_in_flight == 0


def test_a_malformed_http_request_is_400(api: RunningServer) -> None:
    server = api.server
    assert server is not None
    with socket.create_connection((server.listen_host, server.port), timeout=30) as sock:
        sock.sendall(b"NOT HTTP AT ALL\r\n\r\n")
        reply = sock.recv(4096)
    assert reply.startswith(b"HTTP/1.1 400")


# The openai package as the client ---------------------------------------------------------------


def test_the_openai_client(api: RunningServer) -> None:
    import openai  # the test extra installs it: never skipped

    client = openai.OpenAI(base_url=api.url, api_key="unused", max_retries=0)
    try:
        answer = client.chat.completions.create(
            model=f"cursor/{MODEL}", messages=[{"role": "user", "content": "via openai"}]
        )
        assert answer.choices[0].message.content == "Simulated Cursor here. You said: via openai"
        stream = client.chat.completions.create(
            model=MODEL, messages=[{"role": "user", "content": "streamed"}], stream=True
        )
        text = "".join(chunk.choices[0].delta.content or "" for chunk in stream if chunk.choices)
        assert text == "Simulated Cursor here. You said: streamed"
        listed = [m.id for m in client.models.list()]
        assert listed
    finally:
        client.close()
