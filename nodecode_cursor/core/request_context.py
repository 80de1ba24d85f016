"""What a run is told of the host: its system prompt as a rule, its tools as MCP definitions.

The service asks for the request context (``request_context_args``) and the run
request declares the tools again (field 4): ``request_rules`` gives the system
prompt as one always-applied rule, ``tool_definitions`` the host's OpenAI
function tools as the ``McpToolDefinition``s Cursor is told, in the host's order,
under the MCP server ``history.PROVIDER_IDENTIFIER`` names, a tool named like a
native one under its wire name (``bridge.py``), its schema projected for the
models that need it (``schema.py``).

Pure. Answering the ask is ``answers.Answerer``'s; the run request is
``request.py``'s.
"""

from __future__ import annotations

from typing import Any

from .._proto import agent_pb2
from ..wire.values import encode_value
from .bridge import function_tools, wire_names

# The MCP server our tools ride under: one name for the tools declared here and the
# calls history replays (history.py owns it).
from .history import PROVIDER_IDENTIFIER
from .schema import tool_input_schema

__all__ = ["SYSTEM_RULE_PATH", "request_rules", "tool_definitions"]


# Where the system prompt rule says it lives: our own path, never read from disk.
SYSTEM_RULE_PATH = "/nodecode/system-prompt.mdc"
# CursorRule.source: USER.
RULE_SOURCE_USER = 2


def request_rules(system_prompt: str) -> list[agent_pb2.CursorRule]:
    """Return the system prompt as one always-applied rule (none when it is blank)."""
    if not system_prompt.strip():
        return []
    rule = agent_pb2.CursorRule(
        full_path=SYSTEM_RULE_PATH, content=system_prompt, source=RULE_SOURCE_USER
    )
    # `global` is a Python keyword, so the member is reached by name.
    getattr(rule.type, "global").SetInParent()
    return [rule]


def tool_definitions(
    tools: list[dict[str, Any]], *, project_schemas: bool
) -> list[agent_pb2.McpToolDefinition]:
    """Return the host's OpenAI function tools as the MCP tool definitions Cursor is told.

    Every named tool is advertised, in the host's order; one named like a tool Cursor
    drives natively goes under its wire name (``bridge.wire_names``). Schemas are
    projected for the models that need it.
    """
    named = function_tools(tools)
    names = wire_names(fn["name"] for fn in named)
    return [_definition(fn, project_schemas, names.get(fn["name"], fn["name"])) for fn in named]


def _definition(
    fn: dict[str, Any], project_schemas: bool, name: str
) -> agent_pb2.McpToolDefinition:
    """Return one function tool as an McpToolDefinition offered under NAME."""
    schema = tool_input_schema(fn.get("parameters"), project=project_schemas)
    description = fn.get("description")
    return agent_pb2.McpToolDefinition(
        name=name,
        provider_identifier=PROVIDER_IDENTIFIER,
        tool_name=name,
        description=description if isinstance(description, str) else "",
        input_schema=encode_value(schema),
    )
