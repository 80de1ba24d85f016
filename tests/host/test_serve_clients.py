"""``serve`` through the real clients people point at it: openai (chat and Responses),
openai-agents in its default setup, and anthropic. Cursor is the simulator.

Each API: a plain answer, a streamed one, a two-round tool loop, and its errors
(unknown model, bad key, bad body) as the client raises them. The packages are
in the test extra; these tests never skip.
"""

from __future__ import annotations

import asyncio
import functools
import importlib
import json
from pathlib import Path
from typing import Any

import pytest
from served import served

from cursor_simulator import Simulator
from cursor_simulator.steps import (
    AskRequestContext,
    Checkpoint,
    End,
    KvRead,
    StepCompleted,
    StepStarted,
    Text,
    Thinking,
    ToolCall,
    TurnEnded,
)


class _Imported:
    """A client package imported on first use, not at collection.

    Imported at collection, these packages' many long-lived objects sit in the
    heap of every test before them and slow the cycle collector's full passes,
    which the cell's memory-bound load test then measures.
    """

    def __init__(self, name: str) -> None:
        self._name = name

    def __getattr__(self, attr: str) -> Any:
        return getattr(importlib.import_module(self._name), attr)


openai: Any = _Imported("openai")
anthropic: Any = _Imported("anthropic")

MODEL = "composer-2.5"
SCHEMA = {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}
CHAT_TOOLS: list[Any] = [
    {
        "type": "function",
        "function": {"name": "list_files", "description": "List files", "parameters": SCHEMA},
    },
    {
        "type": "function",
        "function": {"name": "read_file", "description": "Read a file", "parameters": SCHEMA},
    },
]
RESPONSES_TOOLS: list[Any] = [
    {"type": "function", "name": "list_files", "description": "List files", "parameters": SCHEMA}
]
ANTHROPIC_TOOLS: list[Any] = [
    {"name": "list_files", "description": "List files", "input_schema": SCHEMA},
    {"name": "read_file", "description": "Read a file", "input_schema": SCHEMA},
]


def answer_script(*steps: Any, output: int = 20) -> list[Any]:
    """Return a run that streams STEPS as the model's turn."""
    return [
        AskRequestContext(),
        KvRead(),
        StepStarted(),
        *steps,
        StepCompleted(),
        TurnEnded(100, output, 10),
        Checkpoint(),
        End(),
    ]


def system_of(sim: Simulator, index: int = -1) -> str:
    """Return the root messages the run at INDEX was sent, as one string (system prompt in it)."""
    return json.dumps(sim.agent.run(index).root_messages())


def tool_names(sim: Simulator, index: int = -1) -> list[str]:
    return [t.tool_name or t.name for t in sim.agent.run(index).tools]


# openai: chat completions -------------------------------------------------------------------------


def test_openai_chat_plain_streamed_and_models(
    sim: Simulator, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with (
        served(sim, home, monkeypatch) as api,
        openai.OpenAI(base_url=api.url, api_key="unused", max_retries=0) as client,
    ):
        plain = client.chat.completions.create(
            model=f"cursor/{MODEL}", messages=[{"role": "user", "content": "plain one"}]
        )
        stream = client.chat.completions.create(
            model=MODEL,
            messages=[{"role": "user", "content": "streamed one"}],
            stream=True,
            stream_options={"include_usage": True},
        )
        chunks = list(stream)
        model = client.models.retrieve(MODEL)
        with pytest.raises(openai.NotFoundError):
            client.models.retrieve("no-such-model")
    assert plain.choices[0].message.content == "Simulated Cursor here. You said: plain one"
    assert plain.choices[0].finish_reason == "stop" and plain.usage and plain.usage.total_tokens
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text == "Simulated Cursor here. You said: streamed one"
    assert chunks[-1].usage is not None and chunks[-1].usage.completion_tokens > 0
    assert model.id == MODEL and model.owned_by == "cursor"


def test_openai_chat_two_round_tool_loop(
    sim: Simulator, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    messages: list[Any] = [{"role": "user", "content": "please use list_files on src"}]
    with (
        served(sim, home, monkeypatch) as api,
        openai.OpenAI(base_url=api.url, api_key="unused", max_retries=0) as client,
    ):
        first = client.chat.completions.create(model=MODEL, messages=messages, tools=CHAT_TOOLS)
        call = first.choices[0].message.tool_calls[0]  # type: ignore[index]
        messages += [
            first.choices[0].message.model_dump(exclude_none=True),
            {"role": "tool", "tool_call_id": call.id, "content": "a.py b.py"},
        ]
        second = client.chat.completions.create(model=MODEL, messages=messages, tools=CHAT_TOOLS)
    assert first.choices[0].finish_reason == "tool_calls"
    assert call.function.name == "list_files"  # type: ignore[union-attr]
    assert second.choices[0].message.content == "list_files returned: a.py b.py"


def test_openai_chat_errors(sim: Simulator, home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with served(sim, home, monkeypatch, api_key="right-key") as api:
        with (
            openai.OpenAI(base_url=api.url, api_key="wrong-key", max_retries=0) as wrong,
            pytest.raises(openai.AuthenticationError) as refused,
        ):
            wrong.chat.completions.create(model=MODEL, messages=[{"role": "user", "content": "hi"}])
        with openai.OpenAI(base_url=api.url, api_key="right-key", max_retries=0) as client:
            with pytest.raises(openai.BadRequestError) as unknown:
                client.chat.completions.create(
                    model="gpt-nine", messages=[{"role": "user", "content": "hi"}]
                )
            with pytest.raises(openai.BadRequestError) as bad:
                client.chat.completions.create(model=MODEL, messages=[])
    assert refused.value.code == "invalid_api_key"
    assert unknown.value.code == "model_not_found" and "gpt-nine" in unknown.value.message
    assert "messages" in bad.value.message
    assert "right-key" not in refused.value.message


def test_openai_chat_tool_choice_required_is_retried_once(
    sim: Simulator, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sim.agent.script(answer_script(Text("I would rather just talk.")))
    sim.agent.script(answer_script(ToolCall("read_file", {"path": "a.py"})))
    with (
        served(sim, home, monkeypatch) as api,
        openai.OpenAI(base_url=api.url, api_key="unused", max_retries=0) as client,
    ):
        answer = client.chat.completions.create(
            model=MODEL,
            messages=[{"role": "user", "content": "hello"}],
            tools=CHAT_TOOLS,
            tool_choice="required",
        )
    calls = answer.choices[0].message.tool_calls
    assert calls and calls[0].function.name == "read_file"  # type: ignore[union-attr]
    assert len(sim.agent.runs) == 2
    assert "must answer this turn by calling one of the tools" in system_of(sim, 0)
    assert "IMPORTANT: your previous answer did not call" in system_of(sim, 1)


def test_openai_chat_named_tool_choice_offers_only_it_and_fails_readably(
    sim: Simulator, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sim.agent.script(answer_script(Text("no")))
    sim.agent.script(answer_script(Text("still no")))
    with (
        served(sim, home, monkeypatch) as api,
        openai.OpenAI(base_url=api.url, api_key="unused", max_retries=0) as client,
        pytest.raises(openai.UnprocessableEntityError) as caught,
    ):
        client.chat.completions.create(
            model=MODEL,
            messages=[{"role": "user", "content": "hello"}],
            tools=CHAT_TOOLS,
            tool_choice={"type": "function", "function": {"name": "read_file"}},
        )
    assert tool_names(sim, 0) == ["read_file"] and tool_names(sim, 1) == ["read_file"]
    assert "required tool read_file" in caught.value.message
    assert "after one retry" in caught.value.message


@functools.cache
def listing_model() -> Any:
    """Return the pydantic model structured output is parsed into (built on first use)."""
    from pydantic import BaseModel

    class Listing(BaseModel):
        folder: str
        files: list[str]

    return Listing


def test_openai_structured_output_parses_after_a_corrective_retry(
    sim: Simulator, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    Listing = listing_model()
    sim.agent.script(answer_script(Text("Sure! The folder src has a.py.")))
    sim.agent.script(answer_script(Text('```json\n{"folder": "src", "files": ["a.py"]}\n```')))
    sim.agent.script(answer_script(Text('{"folder": "lib", "files": []}')))
    with (
        served(sim, home, monkeypatch) as api,
        openai.OpenAI(base_url=api.url, api_key="unused", max_retries=0) as client,
    ):
        parsed = client.chat.completions.parse(
            model=MODEL,
            messages=[{"role": "user", "content": "what is in src?"}],
            response_format=Listing,
        )
        stream = client.chat.completions.create(
            model=MODEL,
            messages=[{"role": "user", "content": "and lib?"}],
            response_format={"type": "json_object"},
            stream=True,
        )
        streamed = "".join(c.choices[0].delta.content or "" for c in stream if c.choices)
    assert parsed.choices[0].message.parsed == Listing(folder="src", files=["a.py"])
    assert "validates against this JSON Schema (Listing)" in system_of(sim, 0)
    assert "was not such a JSON object" in system_of(sim, 1)
    assert json.loads(streamed) == {"folder": "lib", "files": []}


# openai: the Responses API ------------------------------------------------------------------------


def test_responses_plain_and_streamed(
    sim: Simulator, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with (
        served(sim, home, monkeypatch) as api,
        openai.OpenAI(base_url=api.url, api_key="unused", max_retries=0) as client,
    ):
        plain = client.responses.create(
            model=MODEL, input="plain one", instructions="Be brief.", reasoning={"effort": "low"}
        )
        sim.agent.script(answer_script(Thinking("Let me think. "), Text("Hello "), Text("there.")))
        events = list(client.responses.create(model=MODEL, input="streamed", stream=True))
    assert plain.output_text == "Simulated Cursor here. You said: plain one"
    assert plain.status == "completed" and plain.usage and plain.usage.output_tokens > 0
    assert "Be brief." in system_of(sim, 0)
    kinds = [e.type for e in events]
    assert kinds[:2] == ["response.created", "response.in_progress"]
    assert kinds[-1] == "response.completed"
    assert "response.reasoning_summary_text.delta" in kinds
    assert kinds.count("response.output_item.done") == 2  # the reasoning and the message
    deltas = [e.delta for e in events if e.type == "response.output_text.delta"]  # type: ignore[union-attr]
    assert "".join(deltas) == "Hello there."
    done = events[-1].response  # type: ignore[union-attr]
    assert done.output_text == "Hello there."
    assert done.usage is not None and done.usage.input_tokens_details.cached_tokens == 10
    assert [e.sequence_number for e in events] == list(range(len(events)))


def test_responses_tool_loop_by_previous_response_id_and_by_full_input(
    sim: Simulator, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with (
        served(sim, home, monkeypatch) as api,
        openai.OpenAI(base_url=api.url, api_key="unused", max_retries=0) as client,
    ):
        first = client.responses.create(
            model=MODEL, input="please use list_files on src", tools=RESPONSES_TOOLS
        )
        call = next(item for item in first.output if item.type == "function_call")
        kept = client.responses.create(
            model=MODEL,
            previous_response_id=first.id,
            input=[{"type": "function_call_output", "call_id": call.call_id, "output": "a.py"}],
            tools=RESPONSES_TOOLS,
        )
        # Codex's way: store false, the whole conversation every time, streamed.
        start = [{"role": "user", "content": "please use list_files on lib"}]
        events = list(
            client.responses.create(
                model=MODEL, input=start, tools=RESPONSES_TOOLS, store=False, stream=True
            )
        )
        items = [e.item for e in events if e.type == "response.output_item.done"]  # type: ignore[union-attr]
        again = [item.model_dump(exclude_none=True) for item in items]
        stateless = client.responses.create(
            model=MODEL,
            input=[
                *start,
                *again,
                {"type": "function_call_output", "call_id": items[-1].call_id, "output": "b.py"},  # type: ignore[union-attr]
            ],
            tools=RESPONSES_TOOLS,
            store=False,
        )
        with pytest.raises(openai.BadRequestError) as forgotten:
            client.responses.create(model=MODEL, previous_response_id="resp_nope", input="x")
    assert call.name == "list_files" and json.loads(call.arguments)["path"]
    assert kept.output_text == "list_files returned: a.py"
    assert kept.previous_response_id == first.id
    assert stateless.output_text == "list_files returned: b.py"
    assert forgotten.value.code == "previous_response_not_found"


def test_responses_errors_and_structured_output(
    sim: Simulator, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    Listing = listing_model()
    sim.agent.script(answer_script(Text('{"folder": "src", "files": ["a.py", "b.py"]}')))
    with served(sim, home, monkeypatch, api_key="right-key") as api:
        with (
            openai.OpenAI(base_url=api.url, api_key="wrong", max_retries=0) as wrong,
            pytest.raises(openai.AuthenticationError),
        ):
            wrong.responses.create(model=MODEL, input="hi")
        with openai.OpenAI(base_url=api.url, api_key="right-key", max_retries=0) as client:
            parsed = client.responses.parse(model=MODEL, input="list src", text_format=Listing)
            with pytest.raises(openai.BadRequestError) as unknown:
                client.responses.create(model="gpt-nine", input="hi")
            with pytest.raises(openai.BadRequestError) as bad:
                client.responses.create(model=MODEL, input=[{"role": "user", "content": 7}])
    assert parsed.output_parsed == Listing(folder="src", files=["a.py", "b.py"])
    assert unknown.value.code == "model_not_found"
    assert "content" in bad.value.message


def test_openai_agents_default_setup_runs_a_tool(
    sim: Simulator, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import agents

    calls: list[str] = []

    @agents.function_tool
    def list_files(path: str) -> str:
        """List the files in a folder."""
        calls.append(path)
        return "main.py util.py"

    async def run(url: str) -> Any:
        client = openai.AsyncOpenAI(base_url=url, api_key="unused", max_retries=0)
        agents.set_default_openai_client(client, use_for_tracing=False)
        agents.set_tracing_disabled(True)
        try:
            agent = agents.Agent(
                name="helper", instructions="Use tools.", tools=[list_files], model=MODEL
            )
            return await agents.Runner.run(agent, "please use list_files on src")
        finally:
            await client.close()

    with served(sim, home, monkeypatch) as api:
        result = asyncio.run(run(api.url))
    assert calls == ["src"] or calls == ["."]
    assert result.final_output == "list_files returned: main.py util.py"
    assert "Use tools." in system_of(sim, 0)


# anthropic: the Messages API ----------------------------------------------------------------------


# Reads how the host treats a six-row account roster, not one listing every model.
@pytest.mark.sim_named_roster
def test_anthropic_plain_and_model_names(
    sim: Simulator, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = {"serve": {"model_aliases": {"haiku": "gpt-5.4"}}}
    with (
        served(sim, home, monkeypatch, config=config) as api,
        anthropic.Anthropic(base_url=api.root, api_key="unused", max_retries=0) as client,
    ):
        plain = client.messages.create(
            model="claude-sonnet-4-5-20250929",
            max_tokens=1024,
            system=[{"type": "text", "text": "Be brief.", "cache_control": {"type": "ephemeral"}}],
            messages=[{"role": "user", "content": "plain one"}],
        )
        haiku = client.messages.create(
            model="claude-haiku-4-5",
            max_tokens=1024,
            messages=[{"role": "user", "content": "small one"}],
        )
        counted = client.messages.count_tokens(
            model="claude-sonnet-4-5", messages=[{"role": "user", "content": "count me " * 40}]
        )
    assert plain.content[-1].type == "text"
    assert plain.content[-1].text == "Simulated Cursor here. You said: plain one"
    assert plain.model == "claude-sonnet-4-5-20250929" and plain.stop_reason == "end_turn"
    assert plain.usage.output_tokens > 0
    # No Sonnet on the simulator's roster: the newest Claude model it lists serves the name.
    assert sim.agent.run(0).run_request.requested_model.model_id.startswith("claude-opus-4-8")  # type: ignore[union-attr]
    assert "Be brief." in system_of(sim, 0)
    assert sim.agent.run(1).run_request.requested_model.model_id == "gpt-5.4"  # type: ignore[union-attr]
    assert haiku.content[-1].text.endswith("small one")  # type: ignore[union-attr]
    assert 50 < counted.input_tokens < 200


def test_anthropic_streamed_tool_loop(
    sim: Simulator, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ask = [{"role": "user", "content": "please use list_files on src"}]
    with (
        served(sim, home, monkeypatch) as api,
        anthropic.Anthropic(base_url=api.root, api_key="unused", max_retries=0) as client,
    ):
        with client.messages.stream(
            model=MODEL,
            max_tokens=1024,
            messages=ask,  # type: ignore[arg-type]
            tools=ANTHROPIC_TOOLS,
            thinking={"type": "enabled", "budget_tokens": 4096},
        ) as stream:
            kinds = [event.type for event in stream]
            first = stream.get_final_message()
        use = next(block for block in first.content if block.type == "tool_use")
        second = client.messages.create(
            model=MODEL,
            max_tokens=1024,
            messages=[
                *ask,  # type: ignore[list-item]
                {"role": "assistant", "content": first.content},
                {
                    "role": "user",
                    "content": [
                        {
                            "type": "tool_result",
                            "tool_use_id": use.id,
                            "content": "no such folder",
                            "is_error": True,
                        }
                    ],
                },
            ],
            tools=ANTHROPIC_TOOLS,
        )
    assert kinds[0] == "message_start" and kinds[-1] == "message_stop"
    assert "thinking" in kinds and "input_json" in kinds
    assert first.stop_reason == "tool_use" and use.name == "list_files"
    assert use.input == {"path": "."}  # type: ignore[comparison-overlap]
    thinking = next(block for block in first.content if block.type == "thinking")
    assert thinking.signature and thinking.thinking
    assert second.stop_reason == "end_turn"
    text = second.content[-1].text  # type: ignore[union-attr]
    assert text == "list_files returned: [the tool reported an error] no such folder"
    # The tool result went back to Cursor under the call's own id.
    assert f'"toolCallId": "{use.id}"' in json.dumps(sim.agent.run(-1).root_messages())


def test_anthropic_tool_choice_and_errors(
    sim: Simulator, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sim.agent.script(answer_script(ToolCall("read_file", {"path": "x"})))
    with served(sim, home, monkeypatch, api_key="right-key") as api:
        with (
            anthropic.Anthropic(base_url=api.root, api_key="wrong", max_retries=0) as wrong,
            pytest.raises(anthropic.AuthenticationError) as refused,
        ):
            wrong.messages.create(
                model=MODEL, max_tokens=10, messages=[{"role": "user", "content": "hi"}]
            )
        with anthropic.Anthropic(base_url=api.root, api_key="right-key", max_retries=0) as client:
            chosen = client.messages.create(
                model=MODEL,
                max_tokens=10,
                messages=[{"role": "user", "content": "hello"}],
                tools=ANTHROPIC_TOOLS,
                tool_choice={"type": "tool", "name": "read_file"},
            )
            with pytest.raises(anthropic.BadRequestError) as unknown:
                client.messages.create(
                    model="gpt-nine", max_tokens=10, messages=[{"role": "user", "content": "hi"}]
                )
            with pytest.raises(anthropic.BadRequestError) as bad:
                client.messages.create(model=MODEL, max_tokens=10, messages=[])
    assert tool_names(sim, 0) == ["read_file"]
    assert chosen.content[-1].type == "tool_use" and chosen.stop_reason == "tool_use"
    assert refused.value.body["error"]["type"] == "authentication_error"  # type: ignore[index]
    assert unknown.value.body["error"]["type"] == "invalid_request_error"  # type: ignore[index]
    assert "gpt-nine" in unknown.value.message
    assert "messages" in bad.value.message
