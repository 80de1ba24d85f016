"""What the service knows of each conversation, on disk: kept, bounded, shared, never the text."""

from __future__ import annotations

import stat
import subprocess
import sys
from pathlib import Path

from nodecode_cursor.core.continuity import (
    Kept,
    MessageDigests,
    call_key,
    continues,
    history_mark,
    session_key,
)
from nodecode_cursor.core.conversations import Conversations
from nodecode_cursor.storage.conversation_store import FILE_NAME, DiskConversations

ONE = [{"role": "user", "content": "read notes.txt"}]
REPLY = {"role": "assistant", "content": "done reading"}


def test_a_record_and_its_calls_survive_a_new_table_on_the_same_file(tmp_path: Path) -> None:
    kept = Kept(session_key("s1"), "wire-1", True, 2, True, history_mark(ONE, REPLY))
    DiskConversations.in_home(tmp_path).save(kept, [call_key("call_1")])
    later = DiskConversations.in_home(tmp_path)  # another process, or a restart
    assert later.lookup(session_key("s1"), [call_key("call_1")]) == (kept, kept)
    assert later.lookup(session_key("s2"), [call_key("call_2")]) == (None, None)
    assert stat.S_IMODE((tmp_path / FILE_NAME).stat().st_mode) == 0o600
    data = (tmp_path / FILE_NAME).read_bytes()
    for said in (b"s1", b"call_1", b"read notes.txt", b"done reading"):
        assert said not in data  # ids as digests, no text at all


def test_the_file_keeps_the_most_recently_written_conversations_only(tmp_path: Path) -> None:
    store = DiskConversations(tmp_path / FILE_NAME, limit=3)
    for n in range(5):
        store.save(Kept(f"e:{n}", f"w{n}", True, 0), [call_key(f"c{n}")])
    assert [store.lookup(f"e:{n}", [])[1] is not None for n in range(5)] == [
        False,
        False,
        True,
        True,
        True,
    ]
    store.save(Kept("e:2", "w2b", True, 1))  # written again: now the newest
    store.save(Kept("e:9", "w9", True, 0))
    assert store.lookup("e:3", [])[1] is None
    assert store.lookup("e:2", [])[1] == Kept("e:2", "w2b", True, 1)


def test_a_corrupt_file_is_set_aside_and_a_fresh_one_started(tmp_path: Path) -> None:
    path = tmp_path / FILE_NAME
    path.write_bytes(b"not a database, just bytes" * 100)
    store = DiskConversations(path)
    assert store.lookup("e:1", []) == (None, None)  # no failure
    store.save(Kept("e:1", "w1", False, 0))
    aside = list(tmp_path.glob(f"{FILE_NAME}.corrupt-*"))
    assert len(aside) == 1 and aside[0].read_bytes().startswith(b"not a database")
    assert store.lookup("e:1", [])[1] == Kept("e:1", "w1", False, 0)


WRITER = """
import sys
from pathlib import Path
from nodecode_cursor.core.continuity import Kept, call_key
from nodecode_cursor.storage.conversation_store import DiskConversations
store = DiskConversations(Path(sys.argv[1]))
for n in range(int(sys.argv[3])):
    store.save(Kept(f"e:{sys.argv[2]}-{n}", f"w-{n}", True, 0), [call_key(f"{sys.argv[2]}-{n}")])
"""


def test_two_processes_writing_at_once_lose_nothing(tmp_path: Path) -> None:
    path = tmp_path / FILE_NAME
    DiskConversations(path).save(Kept("e:seed", "w", True, 0))  # made once, then shared
    runs = [
        subprocess.Popen([sys.executable, "-c", WRITER, str(path), name, "120"])
        for name in ("alpha", "beta")
    ]
    assert [run.wait(120) for run in runs] == [0, 0]
    store = DiskConversations(path)
    for name in ("alpha", "beta"):
        for n in range(120):
            by_call, own = store.lookup(f"e:{name}-{n}", [call_key(f"{name}-{n}")])
            assert own == Kept(f"e:{name}-{n}", f"w-{n}", True, 0)
            assert by_call == own


def test_a_request_continues_a_session_when_it_opens_with_or_holds_the_last_round() -> None:
    mark = history_mark(ONE, REPLY)
    assert continues([*ONE, REPLY, {"role": "user", "content": "more"}], mark)
    assert continues(ONE, mark)  # the same round again: a retry
    # a window that dropped the opening but kept the reply
    assert continues([{"role": "user", "content": "later"}, REPLY], mark)
    # a side request: other messages, no reply of this session
    assert not continues([{"role": "user", "content": "write a title"}], mark)
    assert not continues([], mark)
    assert continues([{"role": "user", "content": "anything"}], None)


def test_a_rounds_digests_answer_both_questions_as_its_messages_do() -> None:
    """A round asks whether its history continues the mark, then for its own mark, over
    one MessageDigests; the answers are those of the messages themselves."""
    mark = history_mark(ONE, REPLY)
    histories = [
        [*ONE, REPLY, {"role": "user", "content": "more"}],
        ONE,
        [{"role": "user", "content": "later"}, REPLY],
        [{"role": "user", "content": "write a title"}],
        [],
    ]
    for messages in histories:
        digests = MessageDigests(messages)
        assert continues(digests, mark) == continues(messages, mark)
        # Asked second, as the round does, after the prefix of the first question.
        assert history_mark(digests, REPLY) == history_mark(messages, REPLY)
        assert history_mark(MessageDigests(messages)) == history_mark(messages)


def test_a_side_request_leaves_the_session_and_a_handed_off_result_still_continues() -> None:
    table = Conversations()
    own = table.for_round("s1", ONE, [])
    own.mark = history_mark(ONE, REPLY)
    side = table.for_round("s1", [{"role": "user", "content": "write a title"}], [])
    assert side is not own and not side.lasting
    table.handed_off(own, [call_key("call_1")])
    tool_result = [{"role": "user", "content": "x"}, {"role": "tool", "tool_call_id": "call_1"}]
    assert table.for_round("s1", tool_result, [call_key("call_1")]) is own
    # a record from another process names the conversation: it is adopted
    kept = Kept(session_key("s9"), "rotated-id", False, 2, True)
    found = Conversations().for_round(None, tool_result, [call_key("call_1")], by_call=kept)
    assert (found.conversation_id, found.seen, found.rotations) == ("rotated-id", False, 2)
