"""A session's history memo never serves what an earlier history made of messages that changed.

``history_memo.HistoryMemo`` keeps what each pass over a round's history made of
the messages it read, so the session's next round reads only its new messages.
Every test here plays rounds of one session with a memo, changes the history
between them the ways a host may (appends, an edit in place deep inside an old
message, a message replaced, dropped or inserted, the history cut back, the tools
renamed), and checks each pass's answer against the same pass without a memo:
the system prompt's split, the lone-surrogate check, the continuity mark, the
request's history blobs (folding within a small budget) and the repeated-call check.
"""

from __future__ import annotations

import base64
import copy
import json
import zlib
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from nodecode_cursor.core.blobs import BlobStore
from nodecode_cursor.core.budget import HistoryBudget
from nodecode_cursor.core.continuation import repeats_finished_call
from nodecode_cursor.core.continuity import MessageDigests, history_mark
from nodecode_cursor.core.history import HistoryBlobs, build_history
from nodecode_cursor.core.history_memo import HistoryMemo, HistoryMemos
from nodecode_cursor.core.history_read import HistoryRead
from nodecode_cursor.core.images import fit_messages
from nodecode_cursor.core.surrogates import valid_messages
from nodecode_cursor.core.system_prompt import split_system

# Small enough that a dozen rounds fold (8 roots is the least a budget may be).
BUDGET = HistoryBudget(8, 16 * 1024)
REPLY = {
    "role": "assistant",
    "content": None,
    "tool_calls": [
        {"id": "again", "type": "function", "function": {"name": "read", "arguments": '{"n":99}'}}
    ],
}


def call(n: int, name: str = "read") -> dict[str, Any]:
    """Return an assistant message making call N."""
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": f"c{n}",
                "type": "function",
                "function": {"name": name, "arguments": json.dumps({"n": n})},
            }
        ],
    }


def result(n: int, text: str | None = None) -> dict[str, Any]:
    """Return the tool message answering call N."""
    return {"role": "tool", "tool_call_id": f"c{n}", "content": text or f"r{n}:" + "x" * 900}


def png(width: int, height: int) -> bytes:
    """Return a valid grey PNG of WIDTH x HEIGHT."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return len(data).to_bytes(4, "big") + body + zlib.crc32(body).to_bytes(4, "big")

    header = width.to_bytes(4, "big") + height.to_bytes(4, "big") + bytes([8, 0, 0, 0, 0])
    rows = b"".join(b"\x00" + b"\x80" * width for _ in range(height))
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(rows))
        + chunk(b"IEND", b"")
    )


def picture(text: str, width: int = 8) -> dict[str, Any]:
    """Return a user message with TEXT and a small PNG WIDTH pixels wide."""
    url = "data:image/png;base64," + base64.b64encode(png(width, 6)).decode()
    return {
        "role": "user",
        "content": [
            {"type": "text", "text": text},
            {"type": "image_url", "image_url": {"url": url}},
        ],
    }


def session(rounds: int) -> list[dict[str, Any]]:
    """Return a system prompt, a question, and ROUNDS calls each with its result."""
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": "be brief"},
        {"role": "user", "content": "read them all"},
    ]
    for n in range(rounds):
        messages += [call(n), result(n)]
    return messages


def passes(
    messages: list[dict[str, Any]],
    memo: HistoryMemo | None,
    wire: dict[str, str],
    through_read: bool = True,
) -> tuple[Any, ...]:
    """Return what every pass the lane makes says of MESSAGES, read with MEMO (or without one).

    THROUGH_READ: as the lane does, the messages are first ``HistoryMemo.read``'s
    copies; else each pass memo alone tells whether they go on from what it read.
    """
    read = memo.read(messages) if memo is not None and through_read else messages
    assert read is not None
    system, history = split_system(read, None, memo.split if memo is not None else None)
    history, changed = valid_messages(history, memo.unicode if memo is not None else None)
    images = fit_messages(history, None, memo.images if memo is not None else None)
    history = images.messages
    known = memo.digests if memo is not None else None
    mark = history_mark(MessageDigests(history, None, known), REPLY)
    built: HistoryBlobs = build_history(
        history,
        system,
        BlobStore(),
        tool_names=wire,
        budget=BUDGET,
        memo=memo.build if memo is not None else None,
    )
    repeats = repeats_finished_call(history, REPLY, memo.repeats if memo is not None else None)
    return system, json.dumps(history), changed, mark, built, repeats, images


def same_with_and_without(
    memo: HistoryMemo,
    messages: list[dict[str, Any]],
    wire: dict[str, str] | None = None,
    through_read: bool = True,
) -> tuple[Any, ...]:
    """Return the passes' answers with MEMO, after checking them against a memo-less round.

    Without THROUGH_READ the passes read new copies of MESSAGES (as the pass memos'
    contract wants: what they read is never changed after).
    """
    names = wire or {}
    fresh = passes(copy.deepcopy(messages), None, names)
    given = messages if through_read else copy.deepcopy(messages)
    assert passes(given, memo, names, through_read) == fresh
    return fresh


def session_memo() -> HistoryMemo:
    """Return a memo past its session's first round (which reads without one)."""
    memo = HistoryMemo()
    assert memo.read(session(40)) is None  # nothing is copied for a first round
    return memo


def test_a_session_s_first_round_reads_without_the_memo_and_copies_nothing() -> None:
    memo = HistoryMemo()
    messages = session(3)
    assert memo.read(messages) is None
    assert memo.read(messages) is not None  # its second round copies, and then goes on


def test_rounds_that_go_on_read_only_their_new_messages_and_say_the_same() -> None:
    memo = session_memo()
    messages = session(2)
    same_with_and_without(memo, messages)
    first = memo.read(messages)
    for n in range(2, 14):
        messages += [call(n), result(n)]
        same_with_and_without(memo, messages)
    assert memo.build.units and len(memo.build.seen) == len(messages) - 1  # less the system
    again = memo.read(messages)
    assert first is not None and again is not None
    # the messages read before are the very copies read then: each pass knows them
    assert all(old is new for old, new in zip(first, again, strict=False))


def test_an_old_message_edited_in_place_is_read_as_edited() -> None:
    memo = session_memo()
    messages = session(12)
    before = same_with_and_without(memo, messages)
    # A host compacting its history rewrites an old result, and an old call's
    # arguments deep inside it, in place: the same dicts, other values.
    messages[3]["content"] = "cleared"
    messages[4]["tool_calls"][0]["function"]["arguments"] = '{"n":"other"}'
    after = same_with_and_without(memo, messages)
    assert after[3] != before[3]  # the continuity mark saw the edit
    # the last round is not folded: its result is sent, edited
    messages[-1]["content"] = "edited last"
    built = same_with_and_without(memo, messages)[4]
    assert built != after[4]


def test_a_result_that_arrives_later_joins_its_call_in_the_fold() -> None:
    memo = session_memo()
    messages = session(10)
    # two calls in one message; the second's result comes a round later
    messages.append(
        {
            "role": "assistant",
            "content": "both",
            "tool_calls": [call(20)["tool_calls"][0], call(21)["tool_calls"][0]],
        }
    )
    messages.append(result(20))
    same_with_and_without(memo, messages)
    messages.append(result(21))
    same_with_and_without(memo, messages)
    for n in range(22, 30):
        messages += [call(n), result(n)]
        same_with_and_without(memo, messages)


def test_a_history_cut_back_or_rewritten_is_read_again() -> None:
    memo = session_memo()
    messages = session(12)
    same_with_and_without(memo, messages)
    # a rewind to before the last rounds, then another way on
    del messages[-6:]
    same_with_and_without(memo, messages)
    messages += [call(40), result(40, "another way")]
    same_with_and_without(memo, messages)
    # the same length, the last message another
    messages[-1] = result(40, "yet another")
    same_with_and_without(memo, messages)
    # a message inserted in the middle, and one dropped
    messages.insert(5, {"role": "user", "content": "wait"})
    same_with_and_without(memo, messages)
    del messages[2]
    same_with_and_without(memo, messages)


def test_each_pass_memo_alone_reads_a_replaced_message_anew() -> None:
    # without HistoryMemo.read's copies: each pass memo checks what it is given itself
    memo = session_memo()
    messages = session(12)
    same_with_and_without(memo, messages, through_read=False)
    messages[5] = result(2, "replaced, the same length after")
    same_with_and_without(memo, messages, through_read=False)
    messages[-1] = {"role": "developer", "content": "a note instead of the last result"}
    same_with_and_without(memo, messages, through_read=False)


def test_a_person_who_speaks_again_starts_a_new_turn() -> None:
    memo = session_memo()
    messages = session(6)
    assert same_with_and_without(memo, messages)[5] is False
    # the reply asks again for a call whose result the turn holds: a repeat
    messages += [call(99), result(99)]
    assert same_with_and_without(memo, messages)[5] is True
    # a new question: the action; then the same call in the new turn is no repeat
    messages.append({"role": "user", "content": "and once more"})
    assert same_with_and_without(memo, messages)[5] is False
    messages += [{"role": "system", "content": "trailing context"}]
    same_with_and_without(memo, messages)
    messages += [call(50), result(50)]
    assert same_with_and_without(memo, messages)[5] is False
    # until its result is in this turn too
    messages += [call(99), result(99)]
    assert same_with_and_without(memo, messages)[5] is True


def test_a_folded_result_named_by_a_later_call_is_quoted_under_that_name() -> None:
    # a budget whose fold moves in steps of several units: most rounds fold the same
    budget = HistoryBudget(48, 1 << 20)
    read = HistoryRead()

    def built(messages: list[dict[str, Any]]) -> tuple[HistoryBlobs, bytes]:
        store = BlobStore()
        ours = build_history(messages, None, store, budget=budget, memo=read)
        assert ours == build_history(copy.deepcopy(messages), None, BlobStore(), budget=budget)
        return ours, store.get(ours.root_ids[1]) or b""

    # a result no call names yet: the transcript quotes it as "a tool"'s
    messages = [
        {"role": "user", "content": "read them all"},
        {"role": "tool", "tool_call_id": "late", "content": "early result"},
    ]
    for n in range(40):
        messages += [call(n), result(n, "ok")]  # short: the transcript quotes them all
    before, transcript = built(messages)
    assert before.folded and b"result of a tool [late]" in transcript
    messages += [
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "late",
                    "type": "function",
                    "function": {"name": "special", "arguments": "{}"},
                }
            ],
        },
        result(99, "ok"),
    ]
    after, transcript = built(messages)
    assert after.folded == before.folded  # the same messages fold: only the name is new
    assert b"result of special [late]" in transcript


def test_images_earlier_and_current_are_fitted_as_without_a_memo() -> None:
    memo = session_memo()
    messages = session(2)
    messages.append(picture("look at this"))
    assert same_with_and_without(memo, messages)[6].messages[-1]["content"][1]["type"] == (
        "image_url"
    )
    messages += [call(7), result(7)]
    same_with_and_without(memo, messages)
    # a later question: the picture is of an earlier turn now, its placeholder sent
    messages.append({"role": "user", "content": "and now?"})
    fit = same_with_and_without(memo, messages)[6]
    assert "sent in an earlier turn" in json.dumps(fit.messages)
    # the host swaps the picture in place for a wider one
    messages[-4]["content"][1]["image_url"]["url"] = picture("", 12)["content"][1]["image_url"][
        "url"
    ]
    fitted = same_with_and_without(memo, messages)[6].messages
    assert "12\u00d76" in json.dumps(fitted, ensure_ascii=False)


def test_tools_offered_under_other_names_are_read_again() -> None:
    memo = session_memo()
    messages = session(12)
    plain = same_with_and_without(memo, messages)
    renamed = same_with_and_without(memo, messages, {"read": "read_file_host"})
    assert renamed[4] != plain[4]


def test_a_lone_surrogate_edited_in_is_replaced() -> None:
    memo = session_memo()
    messages = session(4)
    assert same_with_and_without(memo, messages)[2] == 0
    messages[3]["content"] = "bad \ud800 half"
    assert same_with_and_without(memo, messages)[2] == 1
    messages[3]["content"] = "good again"
    assert same_with_and_without(memo, messages)[2] == 0


def test_a_history_that_is_not_plain_json_is_read_without_the_memo() -> None:
    memo = session_memo()
    messages: list[Any] = session(3)
    assert memo.read(messages) is not None
    split_system(messages, None, memo.split)
    assert memo.split.seen
    messages.append({"role": "user", "content": ("a", "tuple")})
    assert memo.read(messages) is None
    assert not memo.split.seen  # forgotten: the next round reads it all


def test_equal_messages_that_are_new_objects_are_still_known() -> None:
    memo = session_memo()
    messages = session(5)
    first = memo.read(messages)
    again = memo.read(json.loads(json.dumps(messages)))  # as a server parses each request
    assert first is not None and again is not None
    assert all(old is new for old, new in zip(first, again, strict=True))


def test_the_memos_keep_at_most_their_limit_and_a_taken_memo_is_the_round_s_alone() -> None:
    memos = HistoryMemos(limit=2)
    first = memos.take("a")
    assert memos.take("a") is not first  # held by a round: another round gets a new one
    memos.give("a", first)
    memos.give("b", HistoryMemo())
    memos.give("c", HistoryMemo())
    assert len(memos) == 2
    assert memos.take("a") is not first  # the least recent left
    kept = memos.take("c")
    memos.give("c", kept)
    assert memos.take("c") is kept


EDITS = st.lists(
    st.tuples(
        st.sampled_from(
            [
                *("append", "user", "edit", "deep", "replace"),
                *("drop", "insert", "cut", "system", "image"),
            ]
        ),
        st.integers(min_value=0, max_value=10_000),
    ),
    min_size=1,
    max_size=14,
)


@settings(max_examples=60, deadline=None)
@given(EDITS, st.booleans())
def test_any_sequence_of_edits_reads_as_it_would_without_a_memo(
    edits: list[tuple[str, int]], through_read: bool
) -> None:
    """THROUGH_READ: as the lane reads; else each pass memo alone checks what it is given."""
    memo = session_memo()
    messages = session(3)
    same_with_and_without(memo, messages, through_read=through_read)
    for step, (edit, seed) in enumerate(edits):
        at = seed % len(messages)
        n = 100 + step
        if edit == "append":
            messages += [call(n), result(n, f"r{n}" * (seed % 400))]
        elif edit == "user":
            messages.append({"role": "user", "content": f"q{seed}"})
        elif edit == "edit":
            messages[at]["content"] = f"edited {seed}"
        elif edit == "deep" and messages[at].get("tool_calls"):
            messages[at]["tool_calls"][0]["function"]["arguments"] = json.dumps({"n": seed})
        elif edit == "replace":
            messages[at] = result(seed % 7, f"replaced {seed}")
        elif edit == "drop" and len(messages) > 1:
            del messages[at]
        elif edit == "insert":
            messages.insert(at, call(seed % 7))
        elif edit == "cut":
            del messages[max(at, 1) :]
        elif edit == "system":
            messages.append({"role": "developer", "content": f"note {seed}"})
        elif edit == "image":
            messages.append(picture(f"see {seed}", 4 + seed % 5))
        same_with_and_without(memo, messages, through_read=through_read)
