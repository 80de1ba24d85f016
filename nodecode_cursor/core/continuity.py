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
from collections import OrderedDict
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from .continuation import Learned

from .. import limits
from .seen import PassMemo

__all__ = [
    "ContinuityStore",
    "DigestMemo",
    "DigestPrefix",
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


def _message_digest(message: Mapping[str, Any], text: str | None = None) -> bytes:
    """Return the digest of what a client resends of MESSAGE verbatim: role, text, call ids.

    Thinking and argument text are left out: clients replay them in shapes of their
    own, and a mark must not call the same conversation a different one. TEXT is
    the message's text when the caller has it already.
    """
    hasher = hashlib.sha256()
    hasher.update(_role(message).encode())
    hasher.update(b"\0")
    _hash_stripped(hasher, _text(message.get("content")) if text is None else text)
    hasher.update(b"\0")
    hasher.update(str(message.get("tool_call_id") or "").encode("utf-8", "surrogatepass"))
    for call_id in _call_ids(message):
        hasher.update(b"\0")
        hasher.update(call_id.encode("utf-8", "surrogatepass"))
    return hasher.digest()


def _role(message: Mapping[str, Any]) -> str:
    """Return the role a message's digest reads (any but assistant and tool reads as user)."""
    role = message.get("role")
    return str(role if role in ("user", "assistant", "tool") else "user")


def _call_ids(message: Mapping[str, Any]) -> list[str]:
    """Return the ids of an assistant message's tool calls, as its digest reads them."""
    calls = message.get("tool_calls")
    if not isinstance(calls, list):
        return []
    return [str(call.get("id") or "") for call in calls if isinstance(call, Mapping)]


# A text this long is worth remembering the digest of: hashing it costs more than the key.
_MEMO_FROM = 4096


class DigestMemo:
    """The digests of long messages, kept between rounds so the history is not hashed again.

    Every round hashes every message of the history it was sent (``MessageDigests``):
    in a long session that is the whole history's text each round, tens of MiB.
    A long message's digest is kept under a key of what the digest reads, its
    text as its length and Python's hash of it (cached on the string, so a host
    that sends the same string again pays nothing to look it up), never the text
    itself: nothing here holds message text, and a memo holding every live
    session's history would double what the process holds. Two different texts
    of one length and one 64-bit hash would share a digest: Python keys its
    string hashes with a secret of the process, so that is chance alone, about
    one in 2**64. At most LIMIT entries, the least recently used leaving first.
    """

    __slots__ = ("_entries", "limit")

    def __init__(self, limit: int = limits.DIGEST_MEMO_ENTRIES) -> None:
        self.limit = limit
        self._entries: OrderedDict[Hashable, bytes] = OrderedDict()

    def __len__(self) -> int:
        return len(self._entries)

    def digest(self, message: Mapping[str, Any]) -> bytes:
        """Return ``_message_digest(MESSAGE)``, from the memo when its text is long and known."""
        text = _text(message.get("content"))
        if len(text) < _MEMO_FROM:
            return _message_digest(message, text)
        key = (
            _role(message),
            len(text),
            hash(text),
            str(message.get("tool_call_id") or ""),
            tuple(_call_ids(message)),
        )
        entries = self._entries
        found = entries.get(key)
        if found is not None:
            entries.move_to_end(key)
            return found
        found = entries[key] = _message_digest(message, text)
        if len(entries) > self.limit:
            entries.popitem(last=False)
        return found


class DigestPrefix(PassMemo):
    """The digests of a session's messages read in earlier rounds (``seen.PassMemo``).

    ``digests[i]`` is the digest of ``seen[i]``: a later round's ``MessageDigests``
    starts from them when its messages go on from those, and hashes only the rest.
    """

    __slots__ = ("digests",)

    def __init__(self) -> None:
        super().__init__()
        self.digests: list[bytes] = []

    def reset(self) -> None:
        """Forget the digests."""
        super().reset()
        self.digests = []


class MessageDigests:
    """The digests of one history's messages, each hashed once however often it is asked.

    A round asks twice over the same messages: whether they go on from the
    session's mark (``continues``), and then for its own mark (``history_mark``).
    With KNOWN (``DigestPrefix``) the messages an earlier round of the session
    hashed are not hashed again, and those this one hashes are kept there.
    """

    __slots__ = ("_known", "memo", "messages")

    def __init__(
        self,
        messages: Sequence[Mapping[str, Any]],
        memo: DigestMemo | None = None,
        known: DigestPrefix | None = None,
    ) -> None:
        self.messages = messages
        # long messages' digests from earlier rounds (None: each is hashed)
        self.memo = memo
        self._known = known if known is not None else DigestPrefix()
        self._known.known(messages)

    def prefix(self, count: int) -> str:
        """Return the digest over the first COUNT messages."""
        known = self._known
        digests, messages = known.digests, self.messages
        digest_of = _message_digest if self.memo is None else self.memo.digest
        for message in messages[len(digests) : count]:
            digests.append(digest_of(message if isinstance(message, Mapping) else {}))
            known.seen.append(message)
        return hashlib.sha256(b"".join(digests[:count])).hexdigest()


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
