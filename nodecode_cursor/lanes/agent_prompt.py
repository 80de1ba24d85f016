"""The prompt one ``cursor-agent`` turn sends on stdin, made from the host's chat history.

The CLI keeps its own conversation (resumed with ``--resume``), so a turn sends
only what is new: the messages after the last assistant message. A session's
first turn (nothing to resume) also carries the system prompt and the earlier
history as a compact transcript, so a conversation begun on another lane
continues with its context. Pure: no I/O; running the CLI is ``agent_lane.py``'s.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

__all__ = ["build_prompt", "system_prompt"]

_SYSTEM_ROLES = ("system", "developer")


def system_prompt(messages: Sequence[dict[str, Any]], system: str | None) -> str:
    """Return the system prompt: SYSTEM when given, else the leading system/developer messages."""
    if system is not None:
        return system.strip()
    leading = []
    for message in messages:
        if message.get("role") not in _SYSTEM_ROLES:
            break
        leading.append(_text(message.get("content")))
    return "\n\n".join(part for part in leading if part).strip()


def build_prompt(messages: Sequence[dict[str, Any]], system: str | None, *, resumed: bool) -> str:
    """Return the prompt text for a turn: the new messages, with context on a first turn."""
    start = 0
    while start < len(messages) and messages[start].get("role") in _SYSTEM_ROLES:
        start += 1
    history = list(messages[start:])
    last_assistant = max(
        (i for i, m in enumerate(history) if m.get("role") == "assistant"), default=-1
    )
    earlier, new = history[: last_assistant + 1], history[last_assistant + 1 :]
    new_text = "\n\n".join(line for line in (_line(m, labelled=False) for m in new) if line)
    if resumed:
        return new_text.strip()
    sections = []
    instructions = system_prompt(messages, system)
    if instructions:
        sections.append(f"System instructions:\n{instructions}")
    transcript = "\n\n".join(line for line in (_line(m, labelled=True) for m in earlier) if line)
    if transcript:
        sections.append(f"The conversation so far:\n{transcript}")
    if sections and new_text:
        sections.append(f"The new message:\n{new_text}")
    elif new_text:
        sections.append(new_text)
    return "\n\n".join(sections).strip()


def _line(message: dict[str, Any], *, labelled: bool) -> str:
    """Return one message as transcript text (LABELLED: with who said it)."""
    role = str(message.get("role", ""))
    text = _text(message.get("content"))
    if role == "assistant":
        calls = [_call(call) for call in message.get("tool_calls") or [] if isinstance(call, dict)]
        text = "\n".join(part for part in (text, *calls) if part)
        return f"Assistant: {text}" if labelled and text else text
    if role == "tool":
        call_id = message.get("tool_call_id")
        return f"Tool result ({call_id}): {text}" if call_id else f"Tool result: {text}"
    if role in _SYSTEM_ROLES:
        return f"System: {text}" if text else ""
    return f"User: {text}" if labelled and text else text


def _call(call: dict[str, Any]) -> str:
    """Return a tool call as one line: its name and arguments."""
    function = call.get("function")
    if not isinstance(function, dict):
        function = {}
    return f"[called {function.get('name', '?')}({function.get('arguments', '')})]"


def _text(content: object) -> str:
    """Return a message's text: a string, or the text parts of a content array."""
    if isinstance(content, str):
        return content.strip()
    if not isinstance(content, list):
        return "" if content is None else json.dumps(content, ensure_ascii=False)
    pieces = []
    for part in content:
        if not isinstance(part, dict):
            continue
        if part.get("type") == "text" and isinstance(part.get("text"), str):
            pieces.append(part["text"])
        elif part.get("type") == "image_url":
            pieces.append("[an image was attached here; this lane cannot send images]")
    return "\n".join(pieces).strip()
