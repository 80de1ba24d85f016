"""Map the name a call came back under to the host tool the run declared.

The service shows the model each declared MCP tool under a rendered name and the
model sometimes calls it by that name: ``{provider}-{name}`` or
``mcp_{provider}_{name}`` (docs/protocol.md §6), where the provider is the
identifier the tools were declared under (``history.PROVIDER_IDENTIFIER``). A
name that is no declared tool, bare or rendered, maps to nothing: it is never
guessed onto one. What to do with such a call (refuse it, skip it) is the
caller's (``answers.py``, ``fold.py``); the wire names of bridged tools are
``bridge.py``'s.
"""

from __future__ import annotations

from collections.abc import Collection

from .._proto import agent_pb2
from .history import PROVIDER_IDENTIFIER

__all__ = ["declared_call", "declared_name", "rendered_names"]


def rendered_names(name: str, provider: str = PROVIDER_IDENTIFIER) -> tuple[str, str]:
    """Return the two rendered forms the service may show NAME under (dash, then mcp_)."""
    return f"{provider}-{name}", f"mcp_{provider}_{name}"


def declared_name(
    name: str, declared: Collection[str], provider: str = PROVIDER_IDENTIFIER
) -> str | None:
    """Return the declared tool NAME stands for (itself, or a rendered form's tool), or None."""
    if name in declared:
        return name
    for prefix in (f"{provider}-", f"mcp_{provider}_"):
        if name.startswith(prefix) and name[len(prefix) :] in declared:
            return name[len(prefix) :]
    return None


def declared_call(
    args: agent_pb2.McpArgs, declared: Collection[str], provider: str = PROVIDER_IDENTIFIER
) -> str | None:
    """Return the declared tool an MCP call names (its tool_name, else its name), or None."""
    for name in (args.tool_name, args.name):
        if name:
            found = declared_name(name, declared, provider)
            if found is not None:
                return found
    return None
