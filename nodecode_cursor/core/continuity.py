"""What lets a conversation go on in another process, as plain values: keys, marks, records.

A conversation continues in a new process (an ``ask`` after an ``ask``, a
restarted ``serve``, a host running one session's rounds from two processes)
only if that process knows what the service knows: the conversation's current
wire id, whether the service has run it, the rotations spent, and which calls
its rounds handed off. ``Kept`` is that record; a ``ContinuityStore`` keeps
records beyond the process (``conversation_store.DiskConversations``), and per
model the continuation shape and model fields a retry showed it takes
(``continuation.Learned``).

Nothing here holds message text. A session is known by a digest of its id, a
call by a digest of its id, and a session's history by a ``HistoryMark``: how
many messages its last round sent and a digest over them, which is enough to
tell a request that continues the session from a side request that does not
(its earlier messages differ), without keeping what they said.

Pure: no I/O, no clock. When records are read and written is the lane's call;
the conversation they describe is ``blobs.py``'s.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from .continuation import Learned

__all__ = [
    "ContinuityStore",
    "HistoryMark",
    "Kept",
    "MessageDigests",
    "call_key",
    "continues",
    "ephemeral_key",
    "history_mark",
    "session_key",
    "trailing_call_ids",
]


def _digest(text: str) -> str:
    """Return the SHA-256 hex digest of TEXT's UTF-8 bytes."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def session_key(session_id: str) -> str:
    """Return the key a host session's conversation is kept under: a digest of its id."""
    return "s:" + _digest(f"session:{session_id}")


def ephemeral_key(conversation_id: str) -> str:
    """Return the key of a sessionless conversation, kept only once it hands off calls."""
    return "e:" + conversation_id


def call_key(call_id: str) -> str:
    """Return the key a handed-off call is kept under: a digest of its id."""
    return _digest(f"call:{call_id}")


def trailing_call_ids(messages: Sequence[Mapping[str, Any]]) -> list[str]:
    """Return the call ids of the tool results that end MESSAGES, last first ([] when none)."""
    found: list[str] = []
    for message in reversed(messages):
        if not isinstance(message, Mapping) or message.get("role") != "tool":
            break
        call_id = message.get("tool_call_id")
        if isinstance(call_id, str) and call_id:
            found.append(call_id)
    return found


@dataclass(frozen=True, slots=True)
class HistoryMark:
    """How many messages a session's last round sent, a digest over them, and its reply's.

    ``reply`` is the digest of the assistant message the round answered with
    (None when it said nothing): a host that keeps a window of its history drops
    the opening messages, but sends the latest reply back.
    """

    count: int
    digest: str
    reply: str | None = None


def _text(content: Any) -> str:
    """Return the text parts of a message's content, joined (images and the like left out)."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    return "\n".join(
        part["text"]
        for part in content
        if isinstance(part, Mapping) and isinstance(part.get("text"), str)
    )


# Text is hashed this many characters at a time: a long reply is never copied whole.
_HASH_SLICE = 1 << 20


def _hash_stripped(hasher: Any, text: str) -> None:
    """Feed HASHER the UTF-8 of TEXT stripped, a slice at a time (the digest of it whole).

    A 50 MiB reply stripped and encoded at once would be held two more times.
    """
    start, end = 0, len(text)
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    for at in range(start, end, _HASH_SLICE):
        hasher.update(text[at : min(at + _HASH_SLICE, end)].encode("utf-8", "surrogatepass"))


def _message_digest(message: Mapping[str, Any]) -> bytes:
    """Return the digest of what a client resends of MESSAGE verbatim: role, text, call ids.

    Thinking and argument text are left out: clients replay them in shapes of their
    own, and a mark must not call the same conversation a different one.
    """
    hasher = hashlib.sha256()
    role = message.get("role")
    hasher.update(str(role if role in ("user", "assistant", "tool") else "user").encode())
    hasher.update(b"\0")
    _hash_stripped(hasher, _text(message.get("content")))
    hasher.update(b"\0")
    hasher.update(str(message.get("tool_call_id") or "").encode("utf-8", "surrogatepass"))
    calls = message.get("tool_calls")
    if isinstance(calls, list):
        for call in calls:
            if isinstance(call, Mapping):
                hasher.update(b"\0")
                hasher.update(str(call.get("id") or "").encode("utf-8", "surrogatepass"))
    return hasher.digest()


class MessageDigests:
    """The digests of one history's messages, each hashed once however often it is asked.

    A round asks twice over the same messages: whether they go on from the
    session's mark (``continues``), and then for its own mark (``history_mark``).
    """

    __slots__ = ("_digests", "messages")

    def __init__(self, messages: Sequence[Mapping[str, Any]]) -> None:
        self.messages = messages
        self._digests: list[bytes] = []

    def prefix(self, count: int) -> str:
        """Return the digest over the first COUNT messages."""
        digests, messages = self._digests, self.messages
        for message in messages[len(digests) : count]:
            digests.append(_message_digest(message if isinstance(message, Mapping) else {}))
        hasher = hashlib.sha256()
        for digest in digests[:count]:
            hasher.update(digest)
        return hasher.hexdigest()


def history_mark(
    messages: Sequence[Mapping[str, Any]] | MessageDigests,
    reply: Mapping[str, Any] | None = None,
) -> HistoryMark:
    """Return the mark of a round that sent MESSAGES (or their digests) and answered REPLY."""
    digests = messages if isinstance(messages, MessageDigests) else MessageDigests(messages)
    said = reply is not None and bool(
        _text(reply.get("content")).strip() or reply.get("tool_calls")
    )
    count = len(digests.messages)
    return HistoryMark(
        count,
        digests.prefix(count),
        _message_digest(reply).hex() if reply is not None and said else None,
    )


def continues(
    messages: Sequence[Mapping[str, Any]] | MessageDigests, mark: HistoryMark | None
) -> bool:
    """Return whether MESSAGES go on from the round MARK was taken of (always, with no mark).

    They do when they open with the messages that round sent (a later round, the
    same round again: a retry, a regenerated answer), or when they hold that
    round's reply (a host's window of its history). Anything else is another
    conversation: a side request, or a rewind to before the last reply.
    """
    if mark is None:
        return True
    digests = messages if isinstance(messages, MessageDigests) else MessageDigests(messages)
    messages = digests.messages
    if len(messages) >= mark.count and digests.prefix(mark.count) == mark.digest:
        return True
    if mark.reply is None:
        return False
    return any(
        isinstance(message, Mapping)
        and message.get("role") == "assistant"
        and _message_digest(message).hex() == mark.reply
        for message in messages
    )


@dataclass(frozen=True, slots=True)
class Kept:
    """What is kept of one conversation: its key, wire id, whether the service ran it, rotations.

    ``in_streak`` says a rotation happened and no turn completed since (the next
    refusal does not rotate again); ``mark`` is the session's last round (None for
    a sessionless conversation); ``account`` is whose wire id it is.
    """

    key: str
    wire_id: str
    ran: bool
    rotations: int
    in_streak: bool = False
    mark: HistoryMark | None = None
    # The digest of the account the wire id belongs to (None: kept before it was recorded).
    account: str | None = None


class ContinuityStore(Protocol):
    """Where records are kept beyond the process (``conversation_store.DiskConversations``)."""

    def lookup(self, key: str | None, calls: Iterable[str]) -> tuple[Kept | None, Kept | None]:
        """Return (the record one of CALLS was handed off from, KEY's record), each or None."""
        ...

    def save(self, kept: Kept, calls: Iterable[str] = ()) -> None:
        """Keep KEPT, and that CALLS were handed off from it (never raises)."""
        ...

    def learned(self, model: str) -> Learned | None:
        """Return the continuation shape and model fields a retry showed MODEL takes, or None."""
        ...

    def learn(self, model: str, learned: Learned) -> None:
        """Keep LEARNED for MODEL (never raises)."""
        ...
