"""What the turn loop asks of a tool set, how a tool's result reads, and tools loaded from a file.

``Toolbox`` is the face every tool set shows the turn loop (``turn.py``): its
definitions, whether it runs a call, and the call's result text. A result that
says the call failed is a ``ToolFailure`` (the loop marks it ``is_error``); a
call a tool will not carry out raises ``ToolRefused``, whose text becomes that
result. ``bound_output`` keeps any result to a size that can ride in every later
request. ``FileTools`` holds OpenAI-style definitions read from a JSON file
(``--tools FILE``): offered to the model, their calls returned to the caller,
never run.

The host's own tools, which do run, are ``host_tools.py``'s; the files and
commands they touch are ``tool_files.py``'s and ``tool_shell.py``'s.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from . import limits as host_limits
from .errors import HostConfigError

__all__ = [
    "FileTools",
    "ToolFailure",
    "ToolRefused",
    "Toolbox",
    "bound_output",
    "load_tool_file",
]


def bound_output(text: str, limit: int = host_limits.TOOL_OUTPUT_CHARS) -> str:
    """Return TEXT cut to about LIMIT characters, keeping its head and tail."""
    if len(text) <= limit:
        return text
    head = text[: limit * 2 // 3]
    tail = text[-(limit // 3) :]
    elided = len(text) - len(head) - len(tail)
    return f"{head}\n… [{elided} characters elided] …\n{tail}"


class Toolbox:
    """What the turn loop asks of a tool set: its definitions, and whether it runs a call."""

    def definitions(self) -> list[dict[str, Any]]:
        """Return the OpenAI function tools offered to the model."""
        return []

    def runs(self, name: str) -> bool:
        """Return whether the host runs calls to NAME (else they are returned unrun)."""
        return False

    def run(self, name: str, arguments: str) -> str:
        """Return the result text of one call."""
        raise HostConfigError(f"the host does not run the tool {name!r}")


class ToolRefused(Exception):
    """A call the tool will not carry out; its text is the tool's result."""


class ToolFailure(str):
    """A tool's result text that says the call failed (refused, or an error while running).

    A ``str``, so it reads as any result; the turn loop marks its tool message
    ``"is_error": true`` (the host contract's failed result).
    """

    __slots__ = ()


class FileTools(Toolbox):
    """Tool definitions loaded from a file: offered to the model, their calls returned unrun."""

    def __init__(self, tools: list[dict[str, Any]]) -> None:
        self.tools = tools

    def definitions(self) -> list[dict[str, Any]]:
        """Return the loaded definitions."""
        return list(self.tools)


def load_tool_file(path: Path | str) -> FileTools:
    """Return the OpenAI-style tools in the JSON file PATH; HostConfigError when it is not that."""
    where = Path(path)
    try:
        raw = json.loads(where.read_text("utf-8"))
    except OSError as exc:
        raise HostConfigError(
            f"cannot read the tools file {where}: {exc.strerror or exc}"
        ) from None
    except (ValueError, UnicodeDecodeError, RecursionError) as exc:
        raise HostConfigError(f"the tools file {where} is not JSON: {exc}") from None
    if isinstance(raw, dict) and isinstance(raw.get("tools"), list):
        raw = raw["tools"]
    if not isinstance(raw, list):
        raise HostConfigError(f"the tools file {where} must hold a JSON array of tools")
    tools: list[dict[str, Any]] = []
    for index, item in enumerate(raw):
        function = item.get("function") if isinstance(item, dict) else None
        if function is None and isinstance(item, dict) and "name" in item:
            function = item  # a bare function definition
        if not isinstance(function, dict) or not isinstance(function.get("name"), str):
            raise HostConfigError(f"the tools file {where}: entry {index} is not a function tool")
        tool: dict[str, Any] = {"name": function["name"]}
        if isinstance(function.get("description"), str):
            tool["description"] = function["description"]
        tool["parameters"] = function.get("parameters") or {"type": "object", "properties": {}}
        tools.append({"type": "function", "function": tool})
    return FileTools(tools)
