"""The conversations this process keeps, by session, and which one a round goes on in.

``Conversations`` is an LRU of ``blobs.Conversation`` keyed by the host's session
(a digest of its id; the wire id a UUIDv5 of the session id in our own namespace,
``conversation_id_for``). ``for_round`` picks a round's conversation: the one its
trailing tool results answer (a handed-off call's, whatever the session), else
the session's own when the messages continue its last round
(``continuity.continues``), else a fresh one for a side request; a conversation
another account ran starts afresh.

Pure state: no sockets, no clock, no threads. What one conversation holds (its
blobs, checkpoint, wire id, rotations) is ``blobs.py``'s; its record kept on disk
for another process is ``continuity.py``'s and ``conversation_store.py``'s.
"""

from __future__ import annotations

import uuid
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from .. import limits
from .blobs import Conversation
from .continuity import Kept, MessageDigests, continues, session_key

__all__ = ["CONVERSATION_NAMESPACE", "Conversations", "conversation_id_for"]


# Our own namespace for the conversation ids derived from session ids (uuid5).
# Any fixed UUID works; this one is ours so our ids never collide with another
# client's derivation.
CONVERSATION_NAMESPACE = uuid.UUID("5b0d6c1e-3f8a-5e47-9c2d-7a1e4b6f0c39")


def conversation_id_for(session_id: str) -> str:
    """Return the deterministic conversation id (a UUID string) of a host session."""
    return str(uuid.uuid5(CONVERSATION_NAMESPACE, f"nodecode-cursor:{session_id}"))


class Conversations:
    """The conversations this process keeps, by session id, at most ``limit`` (LRU).

    An evicted conversation rebuilds from the history (and its kept record, when
    there is one), like the first request after a restart. A round without a
    session gets a fresh conversation that is not kept (ephemeral rounds forget
    theirs), except that one which handed off tool calls is remembered by their
    keys (``handed_off``), so the round that brings their results (``follow_up``)
    goes on in it rather than start anew.
    """

    __slots__ = ("_by_call", "_items", "_new_id", "limit")

    def __init__(
        self, limit: int = limits.MAX_CONVERSATIONS, *, new_id: Callable[[], str] | None = None
    ) -> None:
        self.limit = limit
        self._items: OrderedDict[str, Conversation] = OrderedDict()
        self._new_id = new_id
        # Conversations by the keys of the calls they handed off (at most ``limit``
        # calls, least recently noted dropped first).
        self._by_call: OrderedDict[str, Conversation] = OrderedDict()

    def get(self, session_id: str | None) -> Conversation:
        """Return the conversation of SESSION_ID (made on first use, now most recent).

        With no session id, a fresh ephemeral conversation (random id) that this
        table does not keep.
        """
        if not session_id:
            fresh = (self._new_id or (lambda: str(uuid.uuid4())))()
            return Conversation(fresh, new_id=self._new_id)
        key = session_key(session_id)
        found = self._items.get(key)
        if found is not None:
            self._items.move_to_end(key)
            return found
        made = Conversation(conversation_id_for(session_id), new_id=self._new_id, key=key)
        self._keep(key, made)
        return made

    def _keep(self, key: str, conversation: Conversation) -> None:
        """Keep CONVERSATION as KEY's, most recent, dropping the least recent past the limit."""
        self._items[key] = conversation
        self._items.move_to_end(key)
        while len(self._items) > self.limit:
            self._items.popitem(last=False)

    def _known(self, kept: Kept) -> Conversation:
        """Return the conversation KEPT describes: this table's, else one made for it."""
        found = self._items.get(kept.key)
        if found is None:
            found = next((c for c in self._by_call.values() if c.key == kept.key), None)
        if found is None:
            found = Conversation(kept.wire_id, new_id=self._new_id, key=kept.key)
            if kept.key.startswith("s:"):
                self._keep(kept.key, found)
        found.adopt(kept)
        return found

    def for_round(
        self,
        session_id: str | None,
        messages: Sequence[Mapping[str, Any]] | MessageDigests,
        calls: Sequence[str],
        by_call: Kept | None = None,
        own: Kept | None = None,
        account: str | None = None,
    ) -> Conversation:
        """Return the conversation a round goes on in.

        CALLS are the keys of the calls the history's trailing tool results answer;
        BY_CALL and OWN are the kept records (read from the store) of the
        conversation one of them was handed off from and of the session's own.
        A round whose trailing results answer a handed-off call goes on in that
        call's conversation, whatever its session (a tool loop never starts over).
        Otherwise a session's round goes on in its session's conversation when its
        messages continue that session's last round (``continuity.continues``); one
        that does not (a side request, a rewind) runs in a fresh ephemeral
        conversation and leaves the session as it was. Without a session, a fresh one.
        MESSAGES may come as their ``MessageDigests``, which the round asks again later.
        ACCOUNT is the round's account: a conversation another account ran starts
        afresh (``Conversation.for_account``).
        """
        found = self._for_round(session_id, messages, calls, by_call, own)
        found.for_account(account)
        return found

    def _for_round(
        self,
        session_id: str | None,
        messages: Sequence[Mapping[str, Any]] | MessageDigests,
        calls: Sequence[str],
        by_call: Kept | None,
        own: Kept | None,
    ) -> Conversation:
        """Return the conversation ``for_round`` picks, before its account is looked at."""
        if by_call is not None:
            return self._known(by_call)
        found = self.follow_up(calls)
        if found is not None:
            return found
        if not session_id:
            return self.get(None)
        own_conversation = self.get(session_id)
        if own is not None:
            own_conversation.adopt(own)
        if not continues(messages, own_conversation.mark):
            return self.get(None)
        return own_conversation

    def handed_off(self, conversation: Conversation, call_keys: Iterable[str]) -> None:
        """Remember CONVERSATION by the keys of the calls its round handed off (returns nothing)."""
        for call in call_keys:
            if call:
                conversation.lasting = True
                self._by_call[call] = conversation
                self._by_call.move_to_end(call)
        while len(self._by_call) > self.limit:
            self._by_call.popitem(last=False)

    def follow_up(self, call_keys: Iterable[str]) -> Conversation | None:
        """Return the conversation that handed off one of CALL_KEYS, or None."""
        for call in call_keys:
            found = self._by_call.get(call)
            if found is not None:
                return found
        return None

    def __contains__(self, session_id: object) -> bool:
        """Return whether SESSION_ID's conversation is kept."""
        return isinstance(session_id, str) and session_key(session_id) in self._items

    def __len__(self) -> int:
        """Return how many conversations are kept."""
        return len(self._items)
