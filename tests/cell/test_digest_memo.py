"""The digest memo: a long message seen before is not hashed again, and its digest is the same.

``continuity.DigestMemo`` keeps the digests of long history messages between
rounds; a history's marks must come out byte for byte as without it.
"""

from __future__ import annotations

from typing import Any

from nodecode_cursor.core.continuity import DigestMemo, MessageDigests, history_mark

LONG = "x" * 10_000


def session() -> list[dict[str, Any]]:
    """Return a history of short and long messages of every role and content shape."""
    return [
        {"role": "system", "content": "be brief"},
        {"role": "user", "content": [{"type": "text", "text": "  read " + LONG + "  "}]},
        {
            "role": "assistant",
            "content": LONG,
            "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "read"}}],
        },
        {"role": "tool", "tool_call_id": "c1", "content": LONG + "!"},
        {"role": "tool", "tool_call_id": "c2", "content": LONG + "!"},
        {"role": "developer", "content": "short"},
    ]


def test_a_memo_gives_the_marks_it_would_give_without_one() -> None:
    memo = DigestMemo()
    messages = session()
    plain = history_mark(messages)
    assert history_mark(MessageDigests(messages, memo)) == plain
    assert len(memo) == 4  # the long ones
    # again, from the memo, and with equal texts that are other strings
    again = [dict(message) for message in session()]
    assert history_mark(MessageDigests(again, memo)) == plain
    assert len(memo) == 4


def test_a_long_text_changed_in_one_character_is_another_digest() -> None:
    memo = DigestMemo()
    messages = session()
    before = history_mark(MessageDigests(messages, memo))
    changed = session()
    changed[3]["content"] = LONG[:5000] + "y" + LONG[5001:] + "!"
    assert len(changed[3]["content"]) == len(messages[3]["content"])
    after = history_mark(MessageDigests(changed, memo))
    assert after.digest != before.digest
    assert after == history_mark(changed)


def test_the_memo_keeps_at_most_its_limit() -> None:
    memo = DigestMemo(limit=2)
    first, second, third = ({"role": "tool", "content": f"{n}" + LONG} for n in range(3))
    for message in (first, second, first, third):
        memo.digest(message)
    assert len(memo) == 2
    # what is left, and what is hashed anew, still gives the digests it would without one
    digests = MessageDigests([first, third], memo)
    assert digests.prefix(2) == MessageDigests([first, third]).prefix(2)
    assert len(memo) == 2
