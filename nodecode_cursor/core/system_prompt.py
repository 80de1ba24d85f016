"""Which of a round's messages are its system prompt, and which are its history.

The host hands a round OpenAI-shaped messages in which system (and developer)
messages may stand anywhere. Two places make them the system prompt:

* the ones that open the history (before any other role), as every chat API
  means them;
* the ones after the person's last message: agents add context there (Claude
  Code sends its list of agent types and skills as system messages after the
  user's message). Left in the history they would become the round's action
  (history.py replays a later system message as a user turn), and the person's
  own words would sink into the history; the model would read the agent's
  boilerplate as the latest request.

A system message between two user messages keeps its place: it rides as a user
turn, where its order matters. Pure: values in, values out; the lane applies it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, TypeVar

__all__ = ["split_system"]

_SYSTEM_ROLES = ("system", "developer")

M = TypeVar("M", bound=Mapping[str, Any])


def _is_system(message: Any) -> bool:
    """Return whether MESSAGE is a system or developer message."""
    return isinstance(message, Mapping) and message.get("role") in _SYSTEM_ROLES


def _texts(message: Mapping[str, Any]) -> list[str]:
    """Return the texts of a system message: its string, or each of its text parts."""
    content = message.get("content")
    if isinstance(content, str):
        return [content]
    if isinstance(content, list):
        return [
            str(item.get("text", ""))
            for item in content
            if isinstance(item, Mapping) and item.get("type") == "text"
        ]
    return []


def split_system(messages: Sequence[M], system: str | None) -> tuple[str | None, list[M]]:
    """Return the round's system prompt and its history without the system messages taken.

    SYSTEM (the host's own, when it gave one) wins over the opening system
    messages; the trailing ones (after the last user message) are added after
    it either way, separated by blank lines, in their order.
    """
    lead = 0
    while lead < len(messages) and _is_system(messages[lead]):
        lead += 1
    last_user = max(
        (
            i
            for i in range(lead, len(messages))
            if isinstance(messages[i], Mapping) and messages[i].get("role") == "user"
        ),
        default=None,
    )
    trailing = (
        [i for i in range(last_user + 1, len(messages)) if _is_system(messages[i])]
        if last_user is not None
        else []
    )
    parts = [system] if system is not None else [t for m in messages[:lead] for t in _texts(m)]
    parts += [t for i in trailing for t in _texts(messages[i])]
    taken = set(trailing)
    history = [m for i, m in enumerate(messages) if i >= lead and i not in taken]
    return "\n\n".join(p for p in parts if p) or None, history
