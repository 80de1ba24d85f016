"""Blob stores, conversation ids, the conversation LRU and rotation after a poisoned run."""

from __future__ import annotations

import hashlib
import uuid

from nodecode_cursor import limits
from nodecode_cursor._proto import agent_pb2
from nodecode_cursor.blobs import BlobStore, Conversation, Conversations, conversation_id_for


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


def test_checkpoint_is_offered_only_under_the_same_system_ids() -> None:
    conversation = Conversation("c")
    checkpoint = agent_pb2.ConversationStateStructure(root_prompt_messages_json=[b"S" * 32, b"U"])
    conversation.keep_checkpoint(checkpoint)
    assert conversation.checkpoint_for((b"S" * 32,)) is checkpoint
    assert conversation.checkpoint_for((b"T" * 32,)) is None
    conversation.keep_checkpoint(checkpoint, (b"T" * 32,))
    assert conversation.checkpoint_for((b"T" * 32,)) is checkpoint
