"""Blob stores, conversation ids, the conversation LRU and rotation after a poisoned run."""

from __future__ import annotations

import hashlib
import uuid

from nodecode_cursor import limits
from nodecode_cursor._proto import agent_pb2
from nodecode_cursor.core.blobs import BlobStore, Conversation
from nodecode_cursor.core.conversations import Conversations, conversation_id_for


def test_blob_ids_are_raw_sha256_keyed_by_hex() -> None:
    store = BlobStore()
    blob_id = store.put(b"hello")
    assert blob_id == hashlib.sha256(b"hello").digest()
    assert len(blob_id) == 32
    assert store.get(blob_id) == b"hello"
    assert store.get(b"\x00" * 32) is None
    store.set(b"\x01" * 32, b"from the service")
    assert store.get(b"\x01" * 32) == b"from the service"
    assert len(store) == 2 and blob_id in store


def test_cached_builds_once_per_key() -> None:
    store = BlobStore()
    calls: list[int] = []

    def build() -> bytes:
        calls.append(1)
        return b"blob"

    first = store.cached(("k", "v"), build)
    second = store.cached(("k", "v"), build)
    assert first == second == hashlib.sha256(b"blob").digest()
    assert len(calls) == 1
    assert store.hashed_bytes == 4
    assert store.cached_or_none("empty", lambda: None) is None
    assert store.cached_or_none("empty", lambda: b"not asked") is None


def test_recall_and_remember_follow_the_memo_through_builds_and_pruning() -> None:
    store = BlobStore()
    store.begin()  # a fresh store's first build
    first = store.remember("a", b"blob a")
    assert first == hashlib.sha256(b"blob a").digest() and store.get(first) == b"blob a"
    assert store.recall("a") == first and store.recall("b") is None
    assert store.remember("nothing", None) == b"" and store.recall("nothing") == b""
    dropped = store.remember("b", b"blob b")
    store.retain({first})  # the build named only "a": "b" goes, blob and memo entry
    assert dropped not in store and store.recall("b") is None
    assert store.recall("a") == first and store.recall("nothing") == b""
    store.begin()  # what was memoised is older now: recall reads through it
    assert store.recall("a") == first
    again = store.remember("b", b"blob b")  # hashed anew: its old id was dropped
    store.retain({first, again})  # nothing to prune; "nothing" went unused
    assert store.recall("nothing") is None and store.memo_size() == 2
    store.begin()
    assert store.recall("b") == again
    assert store.hashed_bytes == len(b"blob a") + 2 * len(b"blob b")


def test_conversation_ids_are_deterministic_uuids_per_session() -> None:
    first = conversation_id_for("session-1")
    assert first == conversation_id_for("session-1")
    assert first != conversation_id_for("session-2")
    assert uuid.UUID(first).version == 5
    assert Conversations().get("session-1").conversation_id == first


def test_ephemeral_rounds_get_a_fresh_conversation_that_is_not_kept() -> None:
    table = Conversations()
    one, two = table.get(None), table.get("")
    assert one.conversation_id != two.conversation_id
    assert uuid.UUID(one.conversation_id).version == 4
    assert len(table) == 0


def test_the_lru_keeps_at_most_its_limit_and_evicts_the_least_recent() -> None:
    assert Conversations().limit == limits.MAX_CONVERSATIONS == 128
    table = Conversations(limit=3)
    a = table.get("a")
    table.get("b")
    table.get("c")
    assert table.get("a") is a  # now most recent
    table.get("d")
    assert len(table) == 3
    assert "b" not in table and "a" in table
    assert table.get("b").blobs is not None and "c" not in table


def test_rotation_happens_once_per_failure_streak() -> None:
    ids = iter(["r1", "r2", "r3"])
    conversation = Conversation("base", new_id=lambda: next(ids))
    conversation.keep_checkpoint(agent_pb2.ConversationStateStructure(turns=[b"t"]))
    assert conversation.poison() is True
    assert conversation.conversation_id == "r1"
    assert conversation.checkpoint is None
    assert conversation.poison() is False  # same streak: no second rotation
    assert conversation.conversation_id == "r1"
    conversation.turn_completed()  # the rotated id completed a turn
    assert conversation.poison() is True
    assert conversation.conversation_id == "r2"
    assert conversation.rotations == 2
    assert conversation.base_id == "base"


def test_rotation_stops_at_the_cap_and_a_new_id_is_unseen() -> None:
    ids = iter(f"r{n}" for n in range(10))
    conversation = Conversation("base", new_id=lambda: next(ids))
    assert not conversation.seen  # no run on it yet
    for n in range(limits.MAX_ROTATIONS):
        conversation.seen = True
        assert not conversation.rotations_spent
        assert conversation.poison() is True
        assert not conversation.seen and conversation.conversation_id == f"r{n}"
        conversation.turn_completed()
    assert conversation.rotations_spent
    assert conversation.poison() is False
    assert conversation.conversation_id == f"r{limits.MAX_ROTATIONS - 1}"


def test_checkpoint_is_offered_only_under_the_same_system_ids() -> None:
    conversation = Conversation("c")
    checkpoint = agent_pb2.ConversationStateStructure(root_prompt_messages_json=[b"S" * 32, b"U"])
    conversation.keep_checkpoint(checkpoint)
    assert conversation.checkpoint_for((b"S" * 32,)) is checkpoint
    assert conversation.checkpoint_for((b"T" * 32,)) is None
    conversation.keep_checkpoint(checkpoint, (b"T" * 32,))
    assert conversation.checkpoint_for((b"T" * 32,)) is checkpoint


# --- the store's bounds ---------------------------------------------------------------------


def test_retain_keeps_what_the_build_named_and_the_memo_follows() -> None:
    store = BlobStore()
    store.begin()
    old = store.cached("old", lambda: b"old blob")
    kept = store.cached("kept", lambda: b"kept blob")
    store.retain([old, kept])
    assert old in store and kept in store
    store.begin()
    assert store.cached("kept", lambda: b"never built") == kept  # memo carried over
    store.retain([kept])
    assert old not in store and store.get(old) is None
    assert kept in store and len(store) == 1
    assert store.memo_size() == 1  # "old" left the memo with its blob
    # Asked again, the dropped blob is built and hashed again, never trusted from a stale memo.
    hashed = store.hashed_bytes
    store.begin()
    assert store.cached("old", lambda: b"old blob") == old
    assert store.get(old) == b"old blob"
    assert store.hashed_bytes - hashed == len(b"old blob")


def test_service_blobs_survive_retain_within_their_byte_budget_least_recent_first() -> None:
    store = BlobStore(service_budget=10)
    a, b, c = b"a" * 32, b"b" * 32, b"c" * 32
    store.set(a, b"AAAA")
    store.set(b, b"BBBB")
    store.begin()
    store.retain([])  # the history names none of them: the service might
    assert store.get(b) == b"BBBB" and store.get(a) == b"AAAA"  # a is now most recent
    store.set(c, b"CCCC")  # 12 bytes > 10: the least recently used (b) goes
    assert store.get(b) is None
    assert store.get(a) == b"AAAA" and store.get(c) == b"CCCC"
    assert store.service_bytes == 8
    store.set(a, b"A")  # replacing a blob counts its new size only
    assert store.service_bytes == 5


def test_a_run_in_flight_pins_its_blobs_against_another_build_and_the_budget() -> None:
    store = BlobStore(service_budget=4)
    store.begin()
    mine = store.cached("mine", lambda: b"named by the run in flight")
    store.retain([mine])
    token = store.pin([mine])
    store.set(b"s" * 32, b"SSSS")
    store.set(b"t" * 32, b"TTTT")  # over budget, but both were set during the pinned run
    store.begin()
    other = store.cached("other", lambda: b"another round's blob")
    store.retain([other])  # another round's build must not prune under the run
    assert mine in store and other in store
    assert store.get(b"s" * 32) == b"SSSS" and store.get(b"t" * 32) == b"TTTT"
    store.unpin(token)  # the run is over: the budget applies again
    assert store.service_bytes <= 4 and store.get(b"t" * 32) == b"TTTT"
    store.begin()
    store.retain([other])
    assert mine not in store and other in store


def test_a_kept_conversation_is_bounded_by_a_service_budget_in_limits() -> None:
    assert Conversation("c").blobs.service_budget == limits.MAX_SERVICE_BLOB_BYTES > 0
