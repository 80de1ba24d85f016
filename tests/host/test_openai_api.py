"""OpenAI chat-completions ⇄ rounds, as pure translation: requests in, answers and chunks out."""

from __future__ import annotations

import json
from typing import Any

import pytest

from nodecode_cursor.account.credentials import NOT_SIGNED_IN
from nodecode_cursor.errors import (
    ConfigError,
    CredentialError,
    NotSignedIn,
    ProviderError,
    StreamIncomplete,
)
from nodecode_cursor.host import (
    Finish,
    ReasoningDelta,
    RoundResult,
    StreamStart,
    TextDelta,
    ToolCallArgsDelta,
    ToolCallStart,
    Usage,
)
from nodecode_cursor.models.listing import NOT_SIGNED_IN as LISTING_NOT_SIGNED_IN
from nodecode_cursor.models.routing import model_row, round_effort
from nodecode_host.openai_api import (
    DONE_EVENT,
    ApiError,
    ChunkStream,
    completion_object,
    error_for,
    error_object,
    models_object,
    parse_chat_request,
    sse_event,
    usage_object,
)

IMAGE = "data:image/png;base64,iVBORw0KGgo="


def body(**fields: Any) -> bytes:
    fields.setdefault("model", "cursor/claude-4.5-sonnet")
    fields.setdefault("messages", [{"role": "user", "content": "hi"}])
    return json.dumps(fields).encode()


def refused(raw: bytes) -> ApiError:
    with pytest.raises(ApiError) as caught:
        parse_chat_request(raw)
    assert caught.value.status == 400
    return caught.value


# Requests -------------------------------------------------------------------------------------


def test_a_full_request_becomes_a_round_context() -> None:
    tool = {"type": "function", "function": {"name": "ls", "parameters": {"type": "object"}}}
    messages = [
        {"role": "system", "content": "Be terse."},
        {"role": "developer", "content": [{"type": "text", "text": "Use tools."}]},
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "what is this"},
                {"type": "image_url", "image_url": {"url": IMAGE}},
            ],
        },
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "ls", "arguments": "{}"}}
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "a.py"},
    ]
    chat = parse_chat_request(
        body(
            messages=messages,
            tools=[tool],
            reasoning_effort="HIGH",
            stream=True,
            stream_options={"include_usage": True},
            user="someone",
            temperature=0.2,
        )
    )
    assert chat.model == "claude-4.5-sonnet"
    assert chat.requested_model == "cursor/claude-4.5-sonnet"
    assert chat.system == "Be terse.\n\nUse tools."
    assert chat.messages == messages[2:]
    assert chat.effort == "high"
    assert chat.stream is True and chat.include_usage is True
    assert chat.session_id == "someone"
    parts: list[Any] = []
    ctx = chat.context(parts.append)
    assert ctx.model == "claude-4.5-sonnet"
    assert ctx.system == "Be terse.\n\nUse tools."
    assert ctx.tools == [tool]
    assert ctx.messages == messages[2:]
    assert ctx.session_id == "someone"
    assert ctx.credential is None and ctx.base_url is None
    assert ctx.on_part is not None
    ctx.on_part(TextDelta("x"))
    assert parts == [TextDelta("x")]


def test_the_session_header_wins_over_user_and_none_is_ephemeral() -> None:
    assert parse_chat_request(body(user="u"), session_header="s-1").session_id == "s-1"
    assert parse_chat_request(body(), session_header="  ").session_id is None
    assert parse_chat_request(body()).session_id is None


def test_a_bare_model_id_and_effort_off() -> None:
    chat = parse_chat_request(body(model="composer-2.5", reasoning_effort="none"))
    assert chat.model == "composer-2.5" and chat.requested_model == "composer-2.5"
    assert chat.effort is None
    assert parse_chat_request(body()).effort is None
    assert parse_chat_request(body(reasoning_effort="minimal")).effort == "minimal"


def test_tool_choice_none_offers_no_tools() -> None:
    tool = {"type": "function", "function": {"name": "ls"}}
    assert parse_chat_request(body(tools=[tool], tool_choice="none")).tools == []
    assert parse_chat_request(body(tools=[tool], tool_choice="auto")).tools == [tool]


def test_a_later_system_message_stays_in_the_history() -> None:
    messages = [
        {"role": "user", "content": "a"},
        {"role": "system", "content": "now be verbose"},
        {"role": "user", "content": "b"},
    ]
    chat = parse_chat_request(body(messages=messages))
    assert chat.system is None
    assert chat.messages == messages


@pytest.mark.parametrize(
    ("raw", "words"),
    [
        (b'{"model": "x", "messages": [', "not valid JSON"),
        (b"\xff\xfe", "not valid JSON"),
        (b"[1, 2]", "JSON object"),
        (b"[" * 100_000, "not valid JSON"),
        (body(model=""), "'model'"),
        (body(model=7), "'model'"),
        (body(messages=[]), "'messages'"),
        (body(messages="hi"), "'messages'"),
        (body(messages=[{"role": "system", "content": "x"}]), "user message"),
        (body(messages=[{"role": "function", "content": "x"}]), "unsupported role"),
        (body(messages=[{"role": "user"}]), "needs 'content'"),
        (body(messages=[{"role": "user", "content": 5}]), "'content'"),
        (body(messages=[{"role": "user", "content": [{"type": "audio"}]}]), "'audio'"),
        (
            body(
                messages=[
                    {
                        "role": "user",
                        "content": [{"type": "image_url", "image_url": {"url": "https://x/y"}}],
                    }
                ]
            ),
            "data: URLs",
        ),
        (body(messages=[{"role": "tool", "content": "x"}]), "tool_call_id"),
        (
            body(messages=[{"role": "assistant", "content": "x", "tool_calls": [{"id": "c"}]}]),
            "tool_calls[0]",
        ),
        (body(tools=[{"type": "web_search"}]), "only function tools"),
        (body(tools=[{"type": "function", "function": {}}]), "'name'"),
        (body(tools={"a": 1}), "'tools' must be a list"),
        (body(n=2), "n=1"),
        (body(stream="yes"), "'stream'"),
        (body(reasoning_effort=3), "'reasoning_effort'"),
    ],
)
def test_bad_requests_are_400_with_a_clear_line(raw: bytes, words: str) -> None:
    error = refused(raw)
    assert words in error.message
    assert "\n" not in error.message
    assert error.body()["error"]["type"] == "invalid_request_error"


def test_malformed_json_has_its_own_code() -> None:
    assert refused(b"{").code == "invalid_json"


# Errors ---------------------------------------------------------------------------------------


def test_cell_errors_map_to_statuses_and_codes() -> None:
    unknown = error_for(ConfigError("no model 'x'. Nearest known: a, b.", code="unknown_model"))
    assert (unknown.status, unknown.code) == (400, "model_not_found")
    assert "Nearest known: a, b." in unknown.message
    effort = error_for(ConfigError("effort max: try low", code="unsupported_effort"))
    assert (effort.status, effort.code) == (400, "unsupported_effort")
    # The kind is the class, never the words: the sign-in error is a 401 ...
    signed_out = error_for(NotSignedIn())
    assert (signed_out.status, signed_out.code) == (401, "not_signed_in")
    # ... which no sign-in sentence is on its own.
    for words in (NOT_SIGNED_IN, LISTING_NOT_SIGNED_IN, "log in first"):
        assert error_for(ConfigError(words)).status == 400
    # ... and text that merely looks like a kind is not one.
    lookalike = error_for(ConfigError("Unknown Cursor model, says the proxy"))
    assert (lookalike.status, lookalike.code) == (400, "invalid_request")
    conflict = error_for(ConfigError("the history does not match", code="history_conflict"))
    assert (conflict.status, conflict.code) == (400, "history_conflict")
    assert error_for(CredentialError("Cursor ended the session")).status == 401
    assert error_for(ProviderError("too many", status=429)).status == 429
    assert error_for(ProviderError("odd", status=200)).status == 502
    with pytest.raises(ConfigError) as raised:
        model_row("claude-4.5-sonet")
    assert error_for(raised.value).code == "model_not_found"
    with pytest.raises(ConfigError) as raised:
        round_effort("claude-4.5-sonnet", "extreme")
    assert error_for(raised.value).code == "unsupported_effort"
    incomplete = error_for(StreamIncomplete("cut"))
    assert (incomplete.status, incomplete.code) == (502, "stream_incomplete")
    assert incomplete.body() == {
        "error": {"message": "cut", "type": "api_error", "param": None, "code": "stream_incomplete"}
    }


def test_error_object_types() -> None:
    assert error_object(401, "no")["error"]["type"] == "authentication_error"
    assert error_object(404, "no")["error"]["type"] == "not_found_error"
    assert error_object(429, "slow")["error"]["type"] == "rate_limit_error"
    assert error_object(503, "down")["error"]["type"] == "api_error"
    assert error_object(418, "tea")["error"]["type"] == "invalid_request_error"


# Answers --------------------------------------------------------------------------------------


def result(message: dict[str, Any], reason: Any = "stop") -> RoundResult:
    usage = Usage(input=50, output=12, cache_read=30, cache_write=5, reasoning=4)
    return RoundResult(message=message, usage=usage, finish_reason=reason)


def test_usage_counts_cache_in_the_prompt() -> None:
    usage = Usage(input=50, output=12, cache_read=30, cache_write=5, reasoning=4)
    assert usage_object(usage) == {
        "prompt_tokens": 85,
        "completion_tokens": 12,
        "total_tokens": 97,
        "prompt_tokens_details": {"cached_tokens": 30},
        "completion_tokens_details": {"reasoning_tokens": 4},
    }


def test_a_completion_with_reasoning_and_tool_calls() -> None:
    call = {"id": "c1", "type": "function", "function": {"name": "ls", "arguments": "{}"}}
    message = {
        "role": "assistant",
        "content": "",
        "reasoning_content": "think",
        "tool_calls": [call],
    }
    answer = completion_object(
        result(message, "tool_calls"), id="chatcmpl-1", model="cursor/m", created=7
    )
    assert answer["object"] == "chat.completion"
    assert (answer["id"], answer["model"], answer["created"]) == ("chatcmpl-1", "cursor/m", 7)
    choice = answer["choices"][0]
    assert choice["index"] == 0 and choice["finish_reason"] == "tool_calls"
    assert choice["message"] == {
        "role": "assistant",
        "content": None,
        "reasoning_content": "think",
        "tool_calls": [call],
    }
    assert answer["usage"]["total_tokens"] == 97


def test_a_plain_completion_has_no_extra_fields() -> None:
    answer = completion_object(
        result({"role": "assistant", "content": "hi"}), id="i", model="m", created=0
    )
    assert answer["choices"][0]["message"] == {"role": "assistant", "content": "hi"}
    assert answer["choices"][0]["finish_reason"] == "stop"


def test_chunks_follow_the_parts_in_order() -> None:
    stream = ChunkStream(id="c", model="m", created=3)
    chunks = []
    for part in (
        StreamStart("wire"),
        ReasoningDelta("hm"),
        TextDelta("Hel"),
        TextDelta(""),
        TextDelta("lo"),
        ToolCallStart(0, "call_1", "ls"),
        ToolCallArgsDelta(0, '{"path"'),
        ToolCallArgsDelta(0, ':"."}'),
        Finish("tool_calls"),
    ):
        chunks += stream.part(part)
    chunks += stream.finish(result({"role": "assistant"}, "tool_calls"))
    assert all(c["object"] == "chat.completion.chunk" and c["id"] == "c" for c in chunks)
    assert "usage" not in chunks[0]
    deltas = [c["choices"][0]["delta"] for c in chunks]
    assert deltas == [
        {"role": "assistant", "content": ""},
        {"reasoning_content": "hm"},
        {"content": "Hel"},
        {"content": "lo"},
        {
            "tool_calls": [
                {
                    "index": 0,
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "ls", "arguments": ""},
                }
            ]
        },
        {"tool_calls": [{"index": 0, "function": {"arguments": '{"path"'}}]},
        {"tool_calls": [{"index": 0, "function": {"arguments": ':"."}'}}]},
        {},
    ]
    finishes = [c["choices"][0]["finish_reason"] for c in chunks]
    assert finishes == [None] * 7 + ["tool_calls"]


def test_usage_chunk_when_asked_and_role_even_for_an_empty_answer() -> None:
    stream = ChunkStream(id="c", model="m", created=3, include_usage=True)
    assert stream.part(StreamStart("w")) == []
    chunks = stream.finish(result({"role": "assistant"}))
    assert chunks[0]["choices"][0]["delta"] == {"role": "assistant", "content": ""}
    assert chunks[0]["usage"] is None
    assert chunks[1]["choices"][0]["finish_reason"] == "stop"
    assert chunks[2]["choices"] == []
    assert chunks[2]["usage"]["prompt_tokens"] == 85


def test_sse_framing() -> None:
    assert sse_event({"a": "é\n"}) == b'data: {"a":"\xc3\xa9\\n"}\n\n'
    assert DONE_EVENT == b"data: [DONE]\n\n"


def test_models_object() -> None:
    answer = models_object([("composer-2.5", "Composer 2.5", 200_000)])
    assert answer == {
        "object": "list",
        "data": [
            {
                "id": "composer-2.5",
                "object": "model",
                "created": 0,
                "owned_by": "cursor",
                "name": "Composer 2.5",
                "context_window": 200_000,
            }
        ],
    }
