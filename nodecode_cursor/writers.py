"""Which Cursor model wrote a round, and the Kimi K3 replay policy built on it.

Kimi K3 must see its own earlier thinking, and only its own: a K3 round replays
the reasoning of rounds K3 itself wrote (a ``reasoning`` part naming the model
in ``providerOptions.cursor.modelName`` in the root JSON blob, and a thinking
step in the turn), and refuses history another Cursor model wrote. The host's
assistant messages carry no field of ours (any lane must be able to replay them
verbatim), so this process keeps its own table: a digest of what a round
replays (its text, its thinking, its call ids) -> the model id that wrote it,
capped at ``limits.MAX_WRITER_ENTRIES`` (past that it starts over). A round
this process did not write, or wrote before a restart, has no known writer: it
replays no thinking and is let through.

Pure: no I/O, no clock. When to record a round is the lane's call; how the
reasoning part and thinking step look is ``history.py``'s.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping
from typing import Any

from . import limits
from .errors import ConfigError

__all__ = [
    "WriterTable",
    "check_history",
    "message_text",
    "replay_policy",
    "round_digest",
]

PROVIDER = "cursor"


def message_text(message: Mapping[str, Any]) -> str:
    """Return the visible text of a chat message's content (text parts joined)."""
    from .history import visible_text

    return visible_text(message.get("content"))


def _call_ids(message: Mapping[str, Any]) -> list[str]:
    """Return the ids of an assistant message's tool calls, in order."""
    calls = message.get("tool_calls")
    if not isinstance(calls, list):
        return []
    return [str(call.get("id") or "") for call in calls if isinstance(call, dict)]


# Text is hashed in slices of this many characters: encoding a long answer whole
# would hold a second copy of it (as UTF-8) at the round's memory peak.
_HASH_SLICE = 1 << 20


def _hash_text(hasher: Any, text: str) -> None:
    """Feed TEXT's UTF-8 bytes to HASHER a slice at a time (the same digest as all at once)."""
    for start in range(0, len(text), _HASH_SLICE):
        hasher.update(text[start : start + _HASH_SLICE].encode("utf-8", "surrogatepass"))


def round_digest(message: Mapping[str, Any]) -> str:
    """Return the digest a round is known by: SHA-256 of its text, thinking and call ids."""
    reasoning = message.get("reasoning_content")
    hasher = hashlib.sha256()
    _hash_text(hasher, message_text(message))
    hasher.update(b"\0")
    _hash_text(hasher, reasoning if isinstance(reasoning, str) else "")
    hasher.update(b"\0")
    hasher.update(",".join(_call_ids(message)).encode("utf-8", "surrogatepass"))
    return hasher.hexdigest()


class WriterTable:
    """Round digest -> the Cursor model id that wrote it, capped (starts over past the cap)."""

    __slots__ = ("_writers", "limit")

    def __init__(self, limit: int = limits.MAX_WRITER_ENTRIES) -> None:
        self.limit = limit
        self._writers: dict[str, str] = {}

    def record(self, message: Mapping[str, Any], model: str) -> None:
        """Remember that MODEL wrote the round MESSAGE."""
        if len(self._writers) >= self.limit:
            # Starting over is cheap and bounded; an LRU would keep rounds
            # nobody replays. A forgotten round only loses its thinking replay.
            self._writers.clear()
        self._writers[round_digest(message)] = model

    def writer_of(self, message: Mapping[str, Any]) -> str | None:
        """Return the model that wrote the round MESSAGE, when this process knows it."""
        return self._writers.get(round_digest(message))

    def __len__(self) -> int:
        """Return how many rounds the table knows."""
        return len(self._writers)


def _is_k3(model: str) -> bool:
    """Return whether MODEL is a Kimi K3 model (routing's rule, imported on use)."""
    from .routing import is_k3

    return is_k3(model)


def replay_policy(
    table: WriterTable, target: str, *, is_k3: Callable[[str], bool] | None = None
) -> Callable[[Mapping[str, Any]], str | None]:
    """Return the per-message thinking policy of a round on TARGET.

    The policy answers, for an assistant message, the model name its thinking
    replays under, or None when it must not replay: only a K3 target replays,
    and only the thinking of rounds the same model wrote.
    """
    if not (is_k3 or _is_k3)(target):
        return lambda message: None

    def policy(message: Mapping[str, Any]) -> str | None:
        """Return TARGET when it wrote MESSAGE, else None."""
        writer = table.writer_of(message)
        return writer if writer == target else None

    return policy


def check_history(
    table: WriterTable,
    messages: list[Mapping[str, Any]] | tuple[Mapping[str, Any], ...],
    target: str,
    *,
    end: int | None = None,
    is_k3: Callable[[str], bool] | None = None,
) -> None:
    """Refuse (ConfigError) a K3 round whose history another known Cursor model wrote.

    Only assistant messages before END (default: all) count; a round whose
    writer is unknown cannot be told apart and is let through.
    """
    if not (is_k3 or _is_k3)(target):
        return
    stop = len(messages) if end is None else end
    for message in messages[:stop]:
        if not isinstance(message, Mapping) or message.get("role") != "assistant":
            continue
        writer = table.writer_of(message)
        if writer is not None and writer != target:
            raise ConfigError(
                f"Cursor {target} cannot continue history from a different model "
                f"({PROVIDER}/{writer}); start a new session.",
                code="history_conflict",
            )
