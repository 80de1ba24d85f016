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

from .seen import PassMemo

__all__ = ["SplitMemo", "split_system"]

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


class SplitMemo(PassMemo):
    """What ``split_system`` read of a session's messages last round (``seen.PassMemo``).

    How many system messages open them (``lead``; ``leading`` while every message
    read is one), the index of the last user message after them, and the system
    messages after that one: the split of a longer list reads only what is new.
    """

    __slots__ = ("after", "last_user", "lead", "leading")

    def __init__(self) -> None:
        super().__init__()
        self.reset()

    def reset(self) -> None:
        """Forget what was read."""
        super().reset()
        self.lead = 0
        self.leading = True
        self.last_user: int | None = None
        self.after: list[int] = []

    def read(self, messages: Sequence[Any]) -> None:
        """Read the MESSAGES not read yet (all of them when they do not go on from those)."""
        start = self.known(messages)
        try:
            for index in range(start, len(messages)):
                message = messages[index]
                if self.leading:
                    if _is_system(message):
                        self.lead += 1
                        continue
                    self.leading = False
                if isinstance(message, Mapping) and message.get("role") == "user":
                    self.last_user, self.after = index, []
                elif _is_system(message):
                    self.after.append(index)
            self.seen += messages[start:]
        except BaseException:
            self.reset()
            raise


def split_system(
    messages: Sequence[M], system: str | None, memo: SplitMemo | None = None
) -> tuple[str | None, list[M]]:
    """Return the round's system prompt and its history without the system messages taken.

    SYSTEM (the host's own, when it gave one) wins over the opening system
    messages; the trailing ones (after the last user message) are added after
    it either way, separated by blank lines, in their order. MEMO is what an
    earlier round of the session read (``SplitMemo``): only newer messages are read.
    """
    memo = memo if memo is not None else SplitMemo()
    memo.read(messages)
    lead = memo.lead
    trailing = memo.after if memo.last_user is not None else []
    parts = [system] if system is not None else [t for m in messages[:lead] for t in _texts(m)]
    parts += [t for i in trailing for t in _texts(messages[i])]
    # The history between the trailing system messages, a slice at a time.
    history: list[M] = []
    start = lead
    for index in trailing:
        history += messages[start:index]
        start = index + 1
    history += messages[start:]
    return "\n\n".join(p for p in parts if p) or None, history
