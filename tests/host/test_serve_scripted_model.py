"""The simulator's scripted model against traffic as real agents send it, through ``serve``.

Claude Code wraps context in ``<system-reminder>`` blocks before the person's
words and Codex sends ``<environment_context>`` as a user message of its own;
opencode's and pi's tools reach the model as ``host_read``/``host_bash``; JSON
mode asks through an instruction in the system prompt; aider appends its
SEARCH/REPLACE rules to the request. The default scripted model (nothing
queued) must answer each as a model would, so the agents' tests exercise it.
"""

from __future__ import annotations

import importlib
import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from served import served

from cursor_simulator import Simulator
from cursor_simulator.reading import pick_tool, request_text
from nodecode_cursor._proto import agent_pb2

MODEL = "composer-2.5"
PATH_SCHEMA = {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}
COMMAND_SCHEMA = {
    "type": "object",
    "properties": {"command": {"type": "string"}, "timeout": {"type": "number"}},
    "required": ["command"],
}


def openai_client(url: str) -> Any:
    return importlib.import_module("openai").OpenAI(base_url=url, api_key="unused", max_retries=0)


def function(name: str, description: str, schema: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {"name": name, "description": description, "parameters": schema},
    }


# opencode's and pi's own tools: named like Cursor's, so offered as host_read / host_bash.
AGENT_TOOLS = [
    function("read", "Read a file from the local filesystem.", PATH_SCHEMA),
    function("bash", "Execute a bash command in the shell.", COMMAND_SCHEMA),
]


def test_a_system_reminder_before_the_text_is_not_the_request(
    sim: Simulator, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    anthropic = importlib.import_module("anthropic")
    # Claude Code's shape: a reminder block (whose words would ask for a tool) first.
    reminder = (
        "<system-reminder>\nAs you answer the user's questions, you can use the following "
        "context: read CLAUDE.md and run the tests before committing.\n</system-reminder>"
    )
    tools = [
        {"name": "Read", "description": "Reads a file", "input_schema": PATH_SCHEMA},
        {"name": "Bash", "description": "Executes a command", "input_schema": COMMAND_SCHEMA},
    ]
    with (
        served(sim, home, monkeypatch) as api,
        anthropic.Anthropic(base_url=api.root, api_key="unused", max_retries=0) as client,
    ):
        answer = client.messages.create(
            model=MODEL,
            max_tokens=1024,
            tools=tools,
            messages=[
                {
                    "role": "user",
                    "content": [
                        {"type": "text", "text": reminder},
                        {"type": "text", "text": "what is 2+2?"},
                    ],
                }
            ],
        )
    assert answer.stop_reason == "end_turn", answer
    assert answer.content[-1].text == "Simulated Cursor here. You said: what is 2+2?"
    assert "<system-reminder>" in sim.agent.run().prompt()  # the model saw it, and read past it


def test_codexs_context_message_after_the_request_leaves_the_request(
    sim: Simulator, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    context = "<environment_context>\n  <cwd>/tmp/elsewhere</cwd>\n</environment_context>"
    with served(sim, home, monkeypatch) as api, openai_client(api.url) as client:
        answer = client.responses.create(
            model=MODEL,
            input=[
                {"role": "user", "content": "what is in the box?"},
                {"role": "user", "content": context},
            ],
        )
    assert answer.output_text == "Simulated Cursor here. You said: what is in the box?"


def test_tools_offered_as_host_names_are_called_for_a_run_and_a_read(
    sim: Simulator, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run_it: list[Any] = [{"role": "user", "content": "Run `echo hello` please"}]
    with served(sim, home, monkeypatch) as api, openai_client(api.url) as client:
        first = client.chat.completions.create(model=MODEL, messages=run_it, tools=AGENT_TOOLS)
        offered = [t.tool_name or t.name for t in sim.agent.run().tools]
        call = first.choices[0].message.tool_calls[0]
        run_it += [
            first.choices[0].message.model_dump(exclude_none=True),
            {"role": "tool", "tool_call_id": call.id, "content": "hello"},
        ]
        after = client.chat.completions.create(model=MODEL, messages=run_it, tools=AGENT_TOOLS)
        read = client.chat.completions.create(
            model=MODEL,
            messages=[{"role": "user", "content": "Read note.txt and tell me the word"}],
            tools=AGENT_TOOLS,
        )
    assert offered == ["host_read", "host_bash"]
    assert sim.agent.run(0).called == ["host_bash"]
    assert call.function.name == "bash"  # back under the client's own name
    assert json.loads(call.function.arguments) == {"command": "echo hello"}
    assert after.choices[0].message.content == "host_bash returned: hello"
    (read_call,) = read.choices[0].message.tool_calls
    assert read_call.function.name == "read"
    assert json.loads(read_call.function.arguments) == {"path": "note.txt"}


def tool(name: str, description: str = "") -> agent_pb2.McpToolDefinition:
    return agent_pb2.McpToolDefinition(name=name, tool_name=name, description=description)


def test_tools_are_picked_by_rendered_name_and_by_description() -> None:
    offered = [tool("fetch_text", "Returns the contents of a file."), tool("host_bash_2")]
    assert pick_tool("please use pi-agent-fetch_text", offered) == "fetch_text"
    rendered = [tool("pi-agent-grep_files"), tool("mcp_pi-agent_todo")]
    assert pick_tool("grep_files for TODO", rendered) == "pi-agent-grep_files"
    assert pick_tool("update the todo list", rendered) == "mcp_pi-agent_todo"
    assert pick_tool("run the bash tool", offered) == "host_bash_2"
    described = [tool("lookup", "Search the web."), tool("fetch", "Read a file from disk.")]
    assert pick_tool("read a file for me: a.py", described) == "fetch"
    shell = [tool("lookup", "Search the web."), tool("terminal", "Executes commands.")]
    assert pick_tool("execute `ls`", shell) == "terminal"
    assert pick_tool("what is 2+2?", described) is None


def test_the_request_is_the_last_user_text_outside_the_blocks() -> None:
    history = [{"role": "user", "content": [{"type": "text", "text": "fix the bug"}]}]
    wrapped = "<user_instructions>be careful</user_instructions>"
    assert request_text(wrapped, history) == "fix the bug"
    assert request_text("<system-reminder>x</system-reminder>\nhello", []) == "hello"
    assert request_text("plain words", history) == "plain words"


# JSON mode ------------------------------------------------------------------------------------


def nested_model() -> Any:
    """Return a pydantic model with nested objects, lists, an enum and optional fields."""
    from enum import StrEnum

    from pydantic import BaseModel, Field

    class Kind(StrEnum):
        bug = "bug"
        feature = "feature"

    class Owner(BaseModel):
        name: str
        age: int = Field(ge=18)

    class Ticket(BaseModel):
        title: str = Field(min_length=3)
        kind: Kind
        owners: list[Owner] = Field(min_length=1)
        estimate: float | None
        done: bool
        note: str = "none"

    return Ticket


def test_json_schema_mode_gets_json_that_validates(
    sim: Simulator, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    Ticket = nested_model()
    schema = Ticket.model_json_schema()
    with served(sim, home, monkeypatch) as api, openai_client(api.url) as client:
        parsed = client.chat.completions.parse(
            model=MODEL,
            messages=[{"role": "user", "content": "File a ticket for the crash."}],
            response_format=Ticket,
        )
        raw = client.chat.completions.create(
            model=MODEL,
            messages=[{"role": "user", "content": "File a ticket for the crash."}],
            response_format={
                "type": "json_schema",
                "json_schema": {"name": "Ticket", "schema": schema},
            },
        )
        responses = client.responses.create(
            model=MODEL,
            input="File a ticket.",
            text={"format": {"type": "json_schema", "name": "Ticket", "schema": schema}},
        )
    assert isinstance(parsed.choices[0].message.parsed, Ticket)
    for text in (raw.choices[0].message.content, responses.output_text):
        jsonschema.validate(json.loads(text), schema)
    assert len(sim.agent.runs) == 3  # each answered first time: no corrective retry


def test_json_object_mode_follows_a_schema_in_the_clients_own_prompt(
    sim: Simulator, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    schema = nested_model().model_json_schema()
    # instructor's JSON mode: the schema in its system message, json_object asked.
    system = (
        "As a genius expert, your task is to understand the content and provide the parsed "
        f"objects in json that match the following json_schema:\n\n{json.dumps(schema)}\n\n"
        "Make sure to return an instance of the JSON, not the schema itself"
    )
    with served(sim, home, monkeypatch) as api, openai_client(api.url) as client:
        shaped = client.chat.completions.create(
            model=MODEL,
            messages=[
                {"role": "system", "content": system},
                {"role": "user", "content": "File a ticket."},
            ],
            response_format={"type": "json_object"},
        )
        free = client.chat.completions.create(
            model=MODEL,
            messages=[{"role": "user", "content": "say hi"}],
            response_format={"type": "json_object"},
        )
    jsonschema.validate(json.loads(shaped.choices[0].message.content), schema)
    assert json.loads(free.choices[0].message.content) == {
        "answer": "Simulated Cursor here. You said: say hi"
    }


# aider ----------------------------------------------------------------------------------------

# The shape of aider's edit-format reminder, appended to the request (its words are
# aider's own; this is a short stand-in with the same markers).
EDIT_RULES = """Add a docstring to hello.py

# SEARCH/REPLACE block Rules:

Every SEARCH/REPLACE block must use this format:
1. The file path alone on a line
2. The opening fence
3. The start of search block: <<<<<<< SEARCH
4. The dividing line: =======
5. The end of the replace block: >>>>>>> REPLACE

mathweb/flask/app.py
```python
<<<<<<< SEARCH
from flask import Flask
=======
import math
from flask import Flask
>>>>>>> REPLACE
```"""


def test_an_edit_format_reminder_is_not_echoed(
    sim: Simulator, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with served(sim, home, monkeypatch) as api, openai_client(api.url) as client:
        answer = client.chat.completions.create(
            model=MODEL,
            messages=[
                {"role": "system", "content": "Act as an expert software developer."},
                {"role": "user", "content": EDIT_RULES},
            ],
        )
    text = answer.choices[0].message.content
    assert text == "Simulated Cursor here. You said: Add a docstring to hello.py"
    for marker in ("SEARCH", "=======", "REPLACE", "mathweb", "```"):
        assert marker not in text


# instructor ------------------------------------------------------------------------------------


@pytest.mark.parametrize("mode_name", ["JSON", "JSON_SCHEMA", "MD_JSON", "TOOLS"])
def test_instructor_gets_its_model_in_each_mode(
    sim: Simulator, home: Path, monkeypatch: pytest.MonkeyPatch, mode_name: str
) -> None:
    """instructor, as installed by the test command, parses a nested model from serve."""
    instructor = importlib.import_module("instructor")
    ticket_model = nested_model()
    with served(sim, home, monkeypatch) as api, openai_client(api.url) as client:
        patched = instructor.from_openai(client, mode=getattr(instructor.Mode, mode_name))
        ticket = patched.chat.completions.create(
            model=MODEL,
            response_model=ticket_model,
            max_retries=0,  # a first answer that does not validate fails the test
            messages=[{"role": "user", "content": "File a ticket about the login page."}],
        )
    assert isinstance(ticket, ticket_model)
    jsonschema.validate(ticket.model_dump(mode="json"), ticket_model.model_json_schema())
    assert len(sim.agent.runs) == 1
