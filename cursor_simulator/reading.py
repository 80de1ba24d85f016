"""What the scripted model reads out of a request as real agents send it.

Agents wrap the person's words in their own context: Claude Code puts
``<system-reminder>`` blocks before (and sometimes after) them, Codex sends
``<environment_context>`` and ``<user_instructions>`` (or an ``AGENTS.md``
``<INSTRUCTIONS>`` block) as user text of their own, aider appends its
edit-format rules to the request. This module finds the person's request in
that (``request_text``), says whether a text carries an edit format the model
must not echo (``has_edit_format``, ``first_words``), and picks the offered tool
a request means (``pick_tool``) and arguments for it (``arguments``): by the name
it is offered under, the bridge's ``host_`` name, the names Cursor renders
(``pi-agent-NAME``, ``mcp_pi-agent_NAME``) or by what the tool's description says
it does. Answering, and the steps, are ``scripted_model``'s.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from typing import Any

from nodecode_cursor._proto import agent_pb2

from .json_answer import minimal_value

__all__ = ["arguments", "first_words", "has_edit_format", "pick_tool", "request_text"]

# Blocks an agent wraps its own context in. A tag alone on a line (or opening the
# text) with its closing tag: Claude Code's system-reminder, Codex's environment
# context, user instructions and AGENTS.md instructions, and the like.
_BLOCK = re.compile(
    r"<(system-reminder|environment_context|user_instructions|INSTRUCTIONS|context|env"
    r"|user-prompt-submit-hook|command-message|local-command-stdout)>.*?</\1>",
    re.S,
)
# The heading Codex puts before an AGENTS.md block ("# AGENTS.md instructions for /x").
_AGENTS_HEADING = re.compile(r"^#\s*AGENTS\.md instructions for .*$", re.M)

# Lines that make a text an edit format an agent applies: aider's SEARCH/REPLACE
# markers, a unified diff's headers and hunks, Codex's apply_patch envelope.
_EDIT_FORMAT = re.compile(
    r"^(<{5,9} SEARCH|={5,9}\s*$|>{5,9} REPLACE|--- a/|\+\+\+ b/|@@ .* @@|\*\*\* Begin Patch)",
    re.M,
)


def _texts(content: Any) -> list[str]:
    """Return the text parts of a root message's content (a string or a list of parts)."""
    if isinstance(content, str):
        return [content]
    if not isinstance(content, list):
        return []
    return [
        str(part.get("text", ""))
        for part in content
        if isinstance(part, dict) and part.get("type") == "text"
    ]


def outside_blocks(text: str) -> str:
    """Return TEXT without the context blocks agents wrap around the person's words."""
    text = _AGENTS_HEADING.sub("", _BLOCK.sub("", text))
    return text.strip()


def request_text(prompt: str, history: Sequence[dict[str, Any]]) -> str:
    """Return the person's request: the action's text outside context blocks, else the
    last user text in HISTORY outside them ('' when there is none)."""
    found = outside_blocks(prompt)
    if found or not prompt:
        return found
    for message in reversed(history):
        if message.get("role") != "user":
            continue
        for text in reversed(_texts(message.get("content"))):
            found = outside_blocks(text)
            if found:
                return found
    return ""


def has_edit_format(text: str) -> bool:
    """Return whether TEXT holds lines an agent would apply as an edit (SEARCH/REPLACE, diff)."""
    return _EDIT_FORMAT.search(text) is not None


def first_words(text: str) -> str:
    """Return TEXT's first paragraph when it holds no edit format, else ''.

    An agent that appends its edit-format rules to the request (aider) gets the
    request back, never the rules: echoed, they read as an edit to make.
    """
    head = text.split("\n\n", 1)[0].strip()
    return "" if has_edit_format(head) or head.startswith("```") else head


# --- tools by meaning --------------------------------------------------------------------

# The prefix the bridge renames a host tool colliding with Cursor's own to
# (nodecode_cursor/core/bridge.py, WIRE_PREFIX; the simulator may not import it).
_HOST_PREFIX = "host_"
# The names Cursor shows the model a host tool by: {provider}-NAME or mcp_{provider}_NAME
# (the simulator's render_tool_names; provider "pi-agent" as Cursor's CLI declares).
_RENDER_PREFIX = r"mcp_[a-z0-9-]+_|[a-z0-9]+-agent-"
_RENDERED = re.compile(rf"^(?:{_RENDER_PREFIX})(.+)$", re.I)

# Words that ask for some tool at all (kept from the first version of the model).
_TOOL_WORDS = ("use a tool", "use the tool", "call", "list", "read", "run")

# What a request may ask for, in the order the model considers them: the words of a
# request that mean it, the words of a tool's name that mean it, and of its description.
_MEANINGS: tuple[tuple[str, tuple[str, ...], tuple[str, ...], tuple[str, ...]], ...] = (
    ("list", ("list",), ("list", "ls"), ("list",)),
    ("read", ("read",), ("read", "view", "cat"), ("read", "contents of a file", "view a file")),
    (
        "run",
        ("run", "command", "execute", "shell"),
        ("run", "bash", "shell", "exec", "command", "terminal"),
        ("shell", "command", "execute", "terminal"),
    ),
)


def aliases(name: str) -> list[str]:
    """Return the names a request may call the tool offered as NAME by, lower-case.

    The offered name; without the bridge's ``host_`` prefix (and its ``_2`` suffix);
    and the bare name inside the names Cursor renders (``pi-agent-read``).
    """
    found = [name.lower()]
    bare = _RENDERED.match(name)
    if bare is not None:
        found.append(bare.group(1).lower())
    for known in list(found):
        if known.startswith(_HOST_PREFIX):
            found.append(re.sub(r"_[0-9]+$", "", known[len(_HOST_PREFIX) :]))
    return list(dict.fromkeys(n for n in found if n))


def _named(request: str, names: Iterable[str]) -> str | None:
    """Return the first of NAMES the request names by one of its aliases."""
    for name in names:
        for alias in aliases(name):
            # Named bare, or as Cursor renders it to the model (pi-agent-NAME).
            if re.search(rf"(?<![\w-])(?:{_RENDER_PREFIX})?{re.escape(alias)}(?![\w-])", request):
                return name
    return None


def _words_in(text: str, words: Iterable[str]) -> bool:
    return any(re.search(rf"(?<![a-z]){re.escape(word)}", text) for word in words)


def pick_tool(request: str, tools: Sequence[agent_pb2.McpToolDefinition]) -> str | None:
    """Return the offered name of the tool REQUEST asks for: one it names, else one whose
    name or description means what a verb of it asks, else the first when it asks for a tool."""
    lower = request.lower()
    names = [t.tool_name or t.name for t in tools]
    named = _named(lower, names)
    if named is not None:
        return named
    meant = [m for m in _MEANINGS if _words_in(lower, m[1])]
    if not meant and not any(word in lower for word in _TOOL_WORDS):
        return None
    for _, _, name_words, described in meant:
        for name in names:
            if any(_words_in(alias, name_words) for alias in aliases(name)):
                return name
        for tool in tools:
            if _words_in(tool.description.lower(), described):
                return tool.tool_name or tool.name
    return names[0] if names else None


# --- arguments -------------------------------------------------------------------------

# A file a request names: a word with an extension, or a path with a slash.
_FILE = re.compile(r"(?<![\w/.~-])([\w./~-]*\w\.[A-Za-z0-9]{1,8})\b")
_QUOTED = re.compile(r"`([^`\n]+)`")
_PATH_WORDS = ("path", "dir", "file", "folder")
_COMMAND_WORDS = ("command", "cmd", "script")


def _file_named(request: str) -> str | None:
    """Return the file REQUEST names (``note.txt``, ``src/a.py``), else None."""
    match = _FILE.search(request)
    return match.group(1) if match else None


def _command(request: str) -> str:
    """Return the command REQUEST asks to run: one in backticks, else a ``cat`` of the
    file it names, else the request itself."""
    quoted = _QUOTED.search(request)
    if quoted is not None:
        return quoted.group(1)
    named = _file_named(request)
    return f"cat {named}" if named else request


def arguments(request: str, schema: dict[str, Any]) -> dict[str, Any]:
    """Return arguments for a call: a JSON object in the request, else ones made from the
    schema's required properties."""
    match = re.search(r"\{.*\}", request, re.S)
    if match:
        try:
            parsed = json.loads(match.group(0))
        except ValueError:
            parsed = None
        if isinstance(parsed, dict):
            return parsed
    properties = schema.get("properties")
    required = schema.get("required")
    if not isinstance(properties, dict) or not isinstance(required, list):
        return {}
    args: dict[str, Any] = {}
    for name in required:
        spec = properties.get(name)
        kind = spec.get("type") if isinstance(spec, dict) else None
        lower = str(name).lower()
        if kind in ("integer", "number"):
            args[name] = 1
        elif kind == "boolean":
            args[name] = False
        elif any(word in lower for word in _PATH_WORDS):
            args[name] = _file_named(request) or "."
        elif any(word in lower for word in _COMMAND_WORDS):
            command = _command(request)
            args[name] = ["bash", "-lc", command] if kind == "array" else command
        elif isinstance(spec, dict) and kind == "array" and _plain_string(spec.get("items")):
            args[name] = [request]
        elif _plain_string(spec):
            args[name] = request
        else:
            # An enum, a format, a nested object (instructor's TOOLS mode offers the
            # whole response model as one tool): the smallest value it accepts.
            args[name] = minimal_value(spec, schema)
    return args


def _plain_string(spec: Any) -> bool:
    """Return whether SPEC is a string's schema that any text fits (no enum or format)."""
    if not isinstance(spec, dict):
        return True  # a property the schema does not describe takes any value
    if spec.get("type", "string") != "string" or "properties" in spec:
        return False
    return not any(key in spec for key in _STRING_RULES)


# The string schema's words that a free text may break.
_STRING_RULES = (
    "enum",
    "const",
    "format",
    "pattern",
    "maxLength",
    "minLength",
    "$ref",
    "anyOf",
    "oneOf",
    "allOf",
)
