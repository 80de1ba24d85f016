"""Which Cursor model wrote a round, and the Kimi K3 replay policy built on it.

Kimi K3 must see its own earlier thinking, and only its own: a K3 round replays
the reasoning of rounds K3 itself wrote (a ``reasoning`` part naming the model
in ``providerOptions.cursor.modelName`` in the root JSON blob, and a thinking
step in the turn), and refuses history another Cursor model wrote. The host's
assistant messages carry no field of ours (any lane must be able to replay them
verbatim), so this process keeps its own table: a digest of what a round
replays (its text, its thinking, its call ids) -> the model id that wrote it,
capped in memory at ``limits.MAX_WRITER_ENTRIES`` (past that it starts over).
Given a ``WriterStore`` (the cell gives one kept under the host's home,
``writer_store.py``), the table also writes each round there and reads it back,
so a restarted process, or another one sharing the home, knows the rounds
written before. A round nobody recorded has no known writer: it replays no
thinking and is let through.

Pure: no I/O, no clock (the store does the I/O). When to record a round is the
lane's call; how the reasoning part and thinking step look is ``history.py``'s.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping
from typing import Any, Protocol

from .. import limits
from ..errors import ConfigError

__all__ = [
    "WriterStore",
    "WriterTable",
    "check_history",
    "message_text",
    "replay_policy",
    "round_digest",
]

PROVIDER = "cursor"


def message_text(message: Mapping[str, Any]) -> str:
    """Return the visible text of a chat message's content (text parts joined)."""
    # Deferred: CursorCell.start loads this module and must stay cheap (history: protobuf).
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


class WriterStore(Protocol):
    """Where a writer table keeps its rounds beyond the process (``writer_store.DiskWriters``)."""

    def load(self) -> dict[str, str]:
        """Return every kept round digest's writer, oldest first."""
        ...

    def put(self, digest: str, model: str) -> None:
        """Keep that MODEL wrote the round DIGEST (never raises)."""
        ...

    def changed(self) -> bool:
        """Return whether another writer changed the store since it was last read or written."""
        ...


class WriterTable:
    """Round digest -> the Cursor model id that wrote it, capped (starts over past the cap).

    With a STORE, rounds are written through to it and read back on first use and
    whenever a lookup misses after the store changed (another process wrote to it).
    """

    __slots__ = ("_loaded", "_writers", "limit", "store")

    def __init__(
        self, limit: int = limits.MAX_WRITER_ENTRIES, store: WriterStore | None = None
    ) -> None:
        self.limit = limit
        self.store = store
        self._writers: dict[str, str] = {}
        self._loaded = store is None

    def _load(self) -> None:
        """Read the store into memory (its newest rounds, up to the cap)."""
        if self.store is None:
            return
        kept = list(self.store.load().items())[-self.limit :]
        self._writers = dict(kept)
        self._loaded = True

    def record(self, message: Mapping[str, Any], model: str, *, persist: bool = True) -> str:
        """Remember that MODEL wrote the round MESSAGE; return the round's digest.

        With PERSIST (and a store) it is kept in the store too; a caller on an event
        loop passes False and puts ``(digest, model)`` in the store from a worker
        thread, since the store may wait on another process's lock.
        """
        if not self._loaded:
            self._load()
        if len(self._writers) >= self.limit:
            # Starting over is cheap and bounded; an LRU would keep rounds
            # nobody replays. A forgotten round only loses its thinking replay
            # (the store, when there is one, still knows it).
            self._writers.clear()
        digest = round_digest(message)
        self._writers[digest] = model
        if persist and self.store is not None:
            self.store.put(digest, model)
        return digest

    def writer_of(self, message: Mapping[str, Any]) -> str | None:
        """Return the model that wrote the round MESSAGE, when this table or its store knows it."""
        if not self._loaded:
            self._load()
        digest = round_digest(message)
        found = self._writers.get(digest)
        if found is None and self.store is not None and self.store.changed():
            self._load()
            found = self._writers.get(digest)
        return found

    def __len__(self) -> int:
        """Return how many rounds the table knows in memory."""
        return len(self._writers)


def _is_k3(model: str) -> bool:
    """Return whether MODEL is a Kimi K3 model (routing's rule, imported on use)."""
    # Deferred: CursorCell.start loads this module and must stay cheap (routing: the catalog).
    from ..models.routing import is_k3

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
