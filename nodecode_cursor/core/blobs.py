"""Blob stores and the conversations that own them: what a run request points into.

Cursor's run request names the history by blob id (the raw 32-byte SHA-256 of a
blob's bytes); the service asks for each blob it lacks over the KV channel and
may hand us blobs to keep. This module holds those blobs per conversation, the
last checkpoint the service sent (with the system-prompt blob ids it was taken
under), the conversation's wire id, whether the service has run that id, its
rotation after a poisoned run (at most ``limits.MAX_ROTATIONS`` times). The
conversations kept by session, and which one a round goes on in (its session's,
the one its trailing tool results answer, or a fresh one for a side request), are
``conversations.py``'s; what of a conversation another process may go on from is
its ``continuity.Kept`` record.

Pure state: no sockets, no clock, no threads. Building the blobs from a chat
history is ``history.py``'s job; answering the KV channel is ``answers.py``'s;
deciding when a run was poisoned is the lane's.
"""

from __future__ import annotations

import hashlib
import uuid
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterable
from typing import TYPE_CHECKING

from .. import limits
from .continuity import HistoryMark, Kept, ephemeral_key

if TYPE_CHECKING:
    from .._proto import agent_pb2

__all__ = [
    "BlobStore",
    "Conversation",
    "blob_id",
    "carried_content",
]


def blob_id(data: bytes) -> bytes:
    """Return the blob id of DATA: its raw 32-byte SHA-256."""
    return hashlib.sha256(data).digest()


def carried_content(key: bytes) -> bytes | None:
    """Return the content a KV key carries itself (one that is no SHA-256), or None.

    A peer's design note (knoxwh/ccextra ``docs/design.md``; docs/protocol.md §6):
    such a key is the blob, and an empty answer to it is refused.
    """
    return key if len(key) != hashlib.sha256().digest_size else None


class BlobStore:
    """Blobs by raw id, plus a memo from a content key to the id built from it.

    The memo is what keeps request building linear across rounds: a builder asks
    ``cached(key, build)`` with a key made of the host's own strings (whose hash
    Python caches on the string object), so a message already seen costs one
    dict lookup instead of a JSON encode and a SHA-256 over its bytes. In a hot
    loop a builder asks ``recall(key)`` and, on a miss, ``remember(key, bytes)``
    (no closure per blob). ``recall`` is an attribute, not a method: while
    nothing older is memoised it is the memo's own ``get`` (a fresh conversation's
    first build, the costly one, looks up every key once), else a method that
    reads through the older generation; ``_new_memo`` keeps it bound to the memo
    in use whenever that is replaced.

    Two kinds of blob live here, bounded differently:

    * the history's own blobs (``put``/``cached``): a request build opens with
      ``begin()`` and ends with ``retain(ids)``, which keeps only the blobs that
      request names (plus those pinned by a run still in flight (``pin``)) and only
      the memo entries the build used, so a long session holds what its current
      history needs, not everything it ever sent;
    * the blobs the service hands over with a KV set (``set``): a checkpoint the
      service holds may name them, so they survive ``retain``; they are dropped
      least recently used first past ``service_budget`` bytes, never while a run
      that could still ask for them is in flight (pinned).
    """

    __slots__ = (
        "_blobs",
        "_memo",
        "_older",
        "_pins",
        "_service",
        "_service_bytes",
        "hashed_bytes",
        "recall",
        "service_budget",
    )

    def __init__(self, service_budget: int = limits.MAX_SERVICE_BLOB_BYTES) -> None:
        self._blobs: dict[bytes, bytes] = {}
        # The memo of the current build, and the one before it (read through and
        # moved forward on use, dropped by ``retain``).
        self._memo: dict[Hashable, bytes] = {}
        self._older: dict[Hashable, bytes] = {}
        self.recall: Callable[[Hashable], bytes | None] = self._memo.get
        self._service: OrderedDict[bytes, bytes] = OrderedDict()
        self._service_bytes = 0
        self.service_budget = service_budget
        # Runs in flight: each pins the history ids it named and the service blobs
        # set while it ran, so neither pruning nor the budget drops them under it.
        self._pins: dict[int, set[bytes]] = {}
        # How many bytes this store has hashed: what a benchmark or test reads
        # to see that a later round did not hash earlier blobs again.
        self.hashed_bytes = 0

    def put(self, data: bytes) -> bytes:
        """Keep DATA and return its blob id (raw 32 bytes)."""
        self.hashed_bytes += len(data)
        digest = hashlib.sha256(data).digest()
        self._blobs.setdefault(digest, data)
        return digest

    def set(self, blob_id_bytes: bytes, data: bytes) -> None:
        """Keep DATA under the id the service chose for it (a KV set)."""
        key = bytes(blob_id_bytes)
        old = self._service.pop(key, None)
        if old is not None:
            self._service_bytes -= len(old)
        self._service[key] = data
        self._service_bytes += len(data)
        for pinned in self._pins.values():
            pinned.add(key)
        self._evict_service()

    def get(self, blob_id_bytes: bytes) -> bytes | None:
        """Return the blob under BLOB_ID_BYTES, or None when this store does not hold it."""
        key = bytes(blob_id_bytes)
        found = self._blobs.get(key)
        if found is not None:
            return found
        found = self._service.get(key)
        if found is not None:
            self._service.move_to_end(key)
        return found

    def cached(self, key: Hashable, build: Callable[[], bytes]) -> bytes:
        """Return the blob id built from KEY, running BUILD (and storing its bytes) only once."""
        known = self.recall(key)
        return self.remember(key, build()) if known is None else known

    def cached_or_none(self, key: Hashable, build: Callable[[], bytes | None]) -> bytes | None:
        """Return the blob id built from KEY, or None when BUILD made no blob (memoised too)."""
        known = self.recall(key)
        if known is None:
            known = self.remember(key, build())
        return known or None

    def _recall_older(self, key: Hashable) -> bytes | None:
        """Return the blob id memoised under KEY in either generation (moved to the current)."""
        known = self._memo.get(key)
        if known is None and self._older:
            known = self._older.pop(key, None)
            if known is not None:
                self._memo[key] = known
        return known

    def remember(self, key: Hashable, data: bytes | None) -> bytes:
        """Keep DATA, memoise its id under KEY and return it (``b""`` when DATA is None)."""
        if data is None:
            self._memo[key] = b""
            return b""
        self.hashed_bytes += len(data)
        digest = hashlib.sha256(data).digest()
        self._blobs[digest] = data  # the same bytes as any blob already under it
        self._memo[key] = digest
        return digest

    # --- bounds -------------------------------------------------------------------------

    def begin(self) -> None:
        """Open a request build: what the last build memoised becomes the older memo."""
        if self._older:
            self._older.update(self._memo)
        else:
            self._older = self._memo
        self._new_memo({})

    def retain(self, ids: Iterable[bytes]) -> None:
        """Close a request build: keep only the history blobs IDS name, and pinned ones.

        Memo entries the build did not use go too, so the memo stays as large as
        one history; the service's blobs are untouched (only their budget drops them).
        """
        self._older = {}
        keep = ids if isinstance(ids, set | frozenset) else set(ids)
        if self._pins:
            keep = keep.union(*self._pins.values())
        if not self._blobs.keys() <= keep:
            self._blobs = {k: v for k, v in self._blobs.items() if k in keep}
            # The memo must never name a dropped blob (a later build would trust it).
            self._new_memo({k: v for k, v in self._memo.items() if not v or v in self._blobs})
        else:
            self._new_memo(self._memo)
        self._evict_service()

    def _new_memo(self, memo: dict[Hashable, bytes]) -> None:
        """Make MEMO the current memo, and ``recall`` read through what is memoised now."""
        self._memo = memo
        # With no older generation a lookup is the memo's own get, with no frame of ours.
        self.recall = memo.get if not self._older else self._recall_older

    def pin(self, ids: Iterable[bytes]) -> int:
        """Keep IDS and every service blob set from now on, until ``unpin(token)``; return token."""
        token = max(self._pins, default=0) + 1
        self._pins[token] = set(ids)
        return token

    def unpin(self, token: int) -> None:
        """Release what ``pin`` kept for a run that is over (it may be pruned from now on)."""
        self._pins.pop(token, None)
        self._evict_service()

    def _evict_service(self) -> None:
        """Drop the least recently used service blobs that are not pinned, past the budget."""
        if self._service_bytes <= self.service_budget:
            return
        pinned: set[bytes] = set().union(*self._pins.values()) if self._pins else set()
        for key in list(self._service):
            if self._service_bytes <= self.service_budget:
                break
            if key in pinned:
                continue
            self._service_bytes -= len(self._service.pop(key))

    @property
    def service_bytes(self) -> int:
        """Return how many bytes of service-set blobs the store holds."""
        return self._service_bytes

    def memo_size(self) -> int:
        """Return how many content keys the hashing memo holds (both generations)."""
        return len(self._memo) + len(self._older)

    def __len__(self) -> int:
        """Return how many blobs the store holds."""
        return len(self._blobs) + sum(1 for k in self._service if k not in self._blobs)

    def __contains__(self, blob_id_bytes: object) -> bool:
        """Return whether the store holds the blob with this raw id."""
        if not isinstance(blob_id_bytes, bytes):
            return False
        return blob_id_bytes in self._blobs or blob_id_bytes in self._service


class Conversation:
    """One conversation: its wire id, blob store, last checkpoint and rotation state.

    A kept checkpoint ages (``checkpoint_at``, on the caller's clock): one older
    than ``limits.CHECKPOINT_MAX_AGE_SECONDS`` is not lent to a request
    (``checkpoint_for``, ``expire_checkpoint``).
    ``poison()`` models a bare resource_exhausted (no output): the conversation
    gets a new wire id and forgets its checkpoint, so the next request rebuilds
    it from the history; it rotates once per failure streak, and
    ``turn_completed()`` ends the streak so a later failure may rotate again,
    at most ``limits.MAX_ROTATIONS`` times in all (``rotations_spent``).
    ``seen`` says whether the service has run this wire id (a run on it was
    accepted and completed or sent a checkpoint, in this process or, through the
    kept record, in another): only then may a request resume it; a new id (a
    fresh conversation, a rotation) is unseen. ``key`` is what its record is kept
    under (``continuity``), ``mark`` the session's last round, and ``lasting``
    whether its record is worth keeping (a session's, or one that handed off calls).
    ``fold_told`` says whether the host was told that this conversation's history
    folds to fit its budget (it is told once). ``account`` is the digest of the
    account its wire id belongs to (None: not yet known): a wire id run on one
    account is unknown to another, so ``for_account`` starts it afresh there.
    """

    __slots__ = (
        "_in_streak",
        "_new_id",
        "account",
        "base_id",
        "blobs",
        "checkpoint",
        "checkpoint_at",
        "checkpoint_system_ids",
        "conversation_id",
        "fold_told",
        "key",
        "lasting",
        "mark",
        "rotations",
        "seen",
    )

    def __init__(
        self,
        conversation_id: str,
        *,
        new_id: Callable[[], str] | None = None,
        key: str | None = None,
    ) -> None:
        self.key = key or ephemeral_key(conversation_id)
        self.lasting = key is not None
        self.mark: HistoryMark | None = None
        self.base_id = conversation_id
        self.conversation_id = conversation_id
        self.blobs = BlobStore()
        self.checkpoint: agent_pb2.ConversationStateStructure | None = None
        # The system-prompt blob ids of the request the checkpoint answered.
        self.checkpoint_system_ids: tuple[bytes, ...] = ()
        # When the checkpoint came, on the caller's monotonic clock (None: not known).
        self.checkpoint_at: float | None = None
        self.rotations = 0
        self.seen = False
        self.fold_told = False
        self.account: str | None = None
        self._in_streak = False
        self._new_id = new_id or (lambda: str(uuid.uuid4()))

    def for_account(self, account: str | None) -> bool:
        """Take ACCOUNT as the wire id's owner; return whether the id started afresh.

        A conversation another account ran gets a new wire id and forgets its
        checkpoint, so the round sends the whole history as for any conversation the
        service never ran (no rotation is spent). One whose owner is unknown (kept
        before accounts were recorded) is taken as ACCOUNT's: there was one account.
        """
        if account is None or self.account == account:
            return False
        if self.account is None:
            self.account = account
            return False
        self.account = account
        self.conversation_id = self._new_id()
        self.seen = False
        self.checkpoint = None
        self.checkpoint_system_ids = ()
        return True

    def keep_checkpoint(
        self,
        checkpoint: agent_pb2.ConversationStateStructure,
        system_ids: tuple[bytes, ...] = (),
        now: float | None = None,
    ) -> None:
        """Keep the checkpoint the service sent, with the system-prompt ids it was taken under.

        When SYSTEM_IDS is empty the checkpoint's own root blob ids are the
        reference: the reuse rule compares their head with the next prompt's. NOW
        is when it came on the caller's monotonic clock (the core has none), which
        ``checkpoint_for`` and ``expire_checkpoint`` age it by.
        """
        self.checkpoint = checkpoint
        self.checkpoint_at = now
        self.checkpoint_system_ids = tuple(system_ids) or tuple(
            checkpoint.root_prompt_messages_json
        )

    def checkpoint_for(
        self, system_ids: tuple[bytes, ...], now: float | None = None
    ) -> agent_pb2.ConversationStateStructure | None:
        """Return the kept checkpoint when SYSTEM_IDS head its root ids and it is fresh at NOW.

        Fresh: no older than ``limits.CHECKPOINT_MAX_AGE_SECONDS`` (always, when
        NOW or the time it came is unknown). Otherwise None.
        """
        if self.checkpoint is None or self._aged(now):
            return None
        head = self.checkpoint_system_ids[: len(system_ids)]
        if len(head) != len(system_ids) or any(
            bytes(a) != bytes(b) for a, b in zip(head, system_ids, strict=True)
        ):
            return None
        return self.checkpoint

    def _aged(self, now: float | None) -> bool:
        """Return whether the kept checkpoint is older than the service keeps one, at NOW."""
        if now is None or self.checkpoint_at is None:
            return False
        return now - self.checkpoint_at > limits.CHECKPOINT_MAX_AGE_SECONDS

    def expire_checkpoint(self, now: float) -> bool:
        """Drop the kept checkpoint when it is too old at NOW; return whether it did."""
        if self.checkpoint is None or not self._aged(now):
            return False
        self.drop_checkpoint()
        return True

    def drop_checkpoint(self) -> None:
        """Forget the kept checkpoint: the next request rebuilds from the history."""
        self.checkpoint = None
        self.checkpoint_at = None
        self.checkpoint_system_ids = ()

    @property
    def in_streak(self) -> bool:
        """Return whether the conversation rotated since its last complete turn."""
        return self._in_streak

    @property
    def rotations_spent(self) -> bool:
        """Return whether the conversation has rotated as often as it may."""
        return self.rotations >= limits.MAX_ROTATIONS

    def poison(self) -> bool:
        """Rotate the wire id and drop the checkpoint, once per streak; return whether it did."""
        if self._in_streak or self.rotations_spent:
            return False
        self._in_streak = True
        self.rotations += 1
        self.conversation_id = self._new_id()
        self.seen = False
        self.drop_checkpoint()
        return True

    def turn_completed(self) -> None:
        """End the failure streak: a later poisoned run may rotate the id again."""
        self._in_streak = False

    def kept(self) -> Kept:
        """Return what another process needs to go on with this conversation (no content)."""
        return Kept(
            self.key,
            self.conversation_id,
            self.seen,
            self.rotations,
            self._in_streak,
            self.mark,
            self.account,
        )

    def adopt(self, kept: Kept) -> None:
        """Take KEPT (read from the store, perhaps written by another process) as current.

        A wire id other than this one's is newer (another process rotated it, or this
        object is fresh): it replaces the id, whether it was run, and the checkpoint,
        which belonged to the old id. Rotations never go down.
        """
        if kept.wire_id != self.conversation_id:
            self.conversation_id = kept.wire_id
            self.seen = kept.ran
            self.drop_checkpoint()
        else:
            self.seen = self.seen or kept.ran
        self.rotations = max(self.rotations, kept.rotations)
        self._in_streak = kept.in_streak
        if kept.mark is not None:
            self.mark = kept.mark
        if kept.account is not None:
            self.account = kept.account
        self.lasting = True
