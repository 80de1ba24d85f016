"""The history budget: what a request over it keeps whole, what it folds, and how stably.

The small case's blobs are written by hand (compact JSON, the transcript's text
spelled out); the long ones check the bounds and that folding is deterministic
and changes the transcript only once every several rounds.
"""

from __future__ import annotations

import hashlib
import itertools
import json
from typing import Any

import pytest

from nodecode_cursor.cell_settings import Settings
from nodecode_cursor.core.blobs import BlobStore, Conversation
from nodecode_cursor.core.budget import HistoryBudget, resolve_budget
from nodecode_cursor.core.history import build_history
from nodecode_cursor.core.request import build_run_request
from nodecode_cursor.errors import ConfigError
from nodecode_cursor.models.routing import WireModel

GPT = WireModel("gpt-5", "gpt-5-high", (("reasoning", "high"),), False)
SYSTEM_JSON = b'{"role":"system","content":"You are a helpful assistant."}'


def call(call_id: str, name: str, arguments: str) -> dict[str, Any]:
    """Return an assistant message making one call."""
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}
        ],
    }


def result(call_id: str, content: str) -> dict[str, Any]:
    """Return the tool message answering CALL_ID."""
    return {"role": "tool", "tool_call_id": call_id, "content": content}


def session(rounds: int, size: int = 200) -> list[dict[str, Any]]:
    """Return one question followed by ROUNDS rounds of one call and its SIZE-byte result."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": "fix the bug"}]
    for n in range(rounds):
        messages.append(call(f"c{n}", "read", f'{{"path":"f{n}"}}'))
        messages.append(result(f"c{n}", f"r{n}:" + "x" * size))
    return messages


def blob(store: BlobStore, blob_id: bytes) -> bytes:
    """Return the bytes STORE holds under BLOB_ID."""
    data = store.get(blob_id)
    assert data is not None
    return data


def test_a_small_history_over_its_budget_folds_into_the_hand_written_transcript() -> None:
    long_result = "A" * 2000
    messages = [
        {"role": "user", "content": "q1"},
        call("c1", "read", '{"path":"a"}'),
        result("c1", long_result),
        {"role": "user", "content": "q2"},
        call("c2", "read", '{"path":"b"}'),
        result("c2", "ok2"),
    ]
    store = BlobStore()
    # Six roots: the system prompt, the latest question and the current round (a call
    # and its result) take four; the transcript one; the earlier round does not fit.
    history = build_history(messages, None, store, budget=HistoryBudget(6, 1 << 20))
    # The 2000-byte result keeps its head (768 bytes) and tail (256) around the marker.
    cut = "A" * 768 + "\\n[… 976 bytes cut …]\\n" + "A" * 256
    text = (
        "[Summary of 3 earlier messages of this conversation, folded to keep the request "
        "within Cursor's limits. Each is shortened; the newest messages follow in full "
        "after this summary.]\\n"
        "user: q1\\n"
        'assistant: called read [c1] {\\"path\\":\\"a\\"}\\n'
        "result of read [c1]: " + cut
    )
    transcript = ('{"role":"user","content":[{"type":"text","text":"' + text + '"}]}').encode()
    expected = [
        SYSTEM_JSON,
        transcript,
        b'{"role":"user","content":[{"type":"text","text":"q2"}]}',
        b'{"role":"assistant","content":[{"type":"tool-call","toolCallId":"c2",'
        b'"toolName":"read","args":{"path":"b"}}]}',
        b'{"role":"tool","id":"c2","content":[{"type":"tool-result","toolName":"read",'
        b'"toolCallId":"c2","result":"ok2"}]}',
    ]
    assert [blob(store, i) for i in history.root_ids] == expected
    assert list(history.root_ids) == [hashlib.sha256(data).digest() for data in expected]
    assert history.folded == 3
    assert "192" not in history.fold_reason and "6 root blobs" in history.fold_reason
    # The turns carry the kept part only: the latest question's turn, with its round.
    assert len(history.turn_ids) == 1


def test_without_a_budget_nothing_folds_and_within_it_nothing_changes() -> None:
    messages = session(20)
    unbounded = build_history(messages, None, BlobStore())
    bounded = build_history(messages, None, BlobStore(), budget=HistoryBudget())
    assert bounded.root_ids == unbounded.root_ids and bounded.turn_ids == unbounded.turn_ids
    assert bounded.folded == 0 and bounded.fold_reason == ""


def test_the_current_round_and_the_latest_question_stay_whole_however_large() -> None:
    messages = session(300)
    # The current round: three calls whose results together pass the byte budget.
    messages.append(
        {
            "role": "assistant",
            "content": "reading three",
            "tool_calls": [
                {
                    "id": f"big{n}",
                    "type": "function",
                    "function": {"name": "read", "arguments": "{}"},
                }
                for n in range(3)
            ],
        }
    )
    messages += [result(f"big{n}", f"big{n}:" + "y" * 200_000) for n in range(3)]
    store = BlobStore()
    history = build_history(messages, None, store, budget=HistoryBudget())
    served = [json.loads(blob(store, i)) for i in history.root_ids]
    assert served[0]["role"] == "system" and "Summary of" in served[1]["content"][0]["text"]
    # the question the turn answers, though 600 messages came after it
    assert {"type": "text", "text": "fix the bug"} in served[2]["content"]
    assert served[2]["role"] == "user"
    # the current round whole: its text, its three calls, and each result in full
    assert served[-4]["content"][0] == {"type": "text", "text": "reading three"}
    for n, root in enumerate(served[-3:]):
        assert root["content"][0]["result"] == f"big{n}:" + "y" * 200_000
    assert history.folded == 600 and "KiB" in history.fold_reason


def test_the_same_history_gives_the_same_request_bytes() -> None:
    messages = session(250)

    def built() -> bytes:
        ids = iter(range(1000))
        return build_run_request(
            messages,
            "be brief",
            GPT,
            "gpt-5",
            "GPT-5",
            Conversation("c"),
            new_id=lambda: f"m-{next(ids)}",
        ).data

    first = built()
    assert built() == first


def test_every_request_of_a_long_session_fits_and_the_transcript_changes_rarely() -> None:
    conversation = Conversation("c")
    budget = HistoryBudget()
    messages = session(0)
    transcripts: list[bytes] = []
    for n in range(400):
        messages.append(call(f"c{n}", "read", f'{{"path":"f{n}"}}'))
        messages.append(result(f"c{n}", f"r{n}:" + "z" * (64 + n % 7 * 300)))
        history = build_run_request(
            messages, None, GPT, "gpt-5", "GPT-5", conversation, budget=budget
        ).history
        sizes = [len(blob(conversation.blobs, i)) for i in history.root_ids]
        assert len(sizes) <= budget.roots and sum(sizes) <= budget.bytes
        # the turns stay within the same budget
        named = history.blob_ids - set(history.root_ids)
        assert sum(len(blob(conversation.blobs, i)) for i in named) <= budget.bytes
        if history.folded:
            transcripts.append(history.root_ids[1])
    assert transcripts, "a 400-round session folds"
    changes = sum(1 for a, b in itertools.pairwise(transcripts) if a != b)
    # Folded in steps of 16 rounds: the transcript (and the prefix after it) changes
    # once every 16 rounds, not every round.
    assert changes <= len(transcripts) // 16 + 1
    # one round appended under the budget leaves the transcript as it was
    assert transcripts[-2] == transcripts[-1]


def test_a_transcript_too_long_for_its_cap_says_how_many_messages_it_left_out() -> None:
    messages = session(400, size=3000)
    store = BlobStore()
    history = build_history(messages, None, store, budget=HistoryBudget(40, 1 << 20))
    text = json.loads(blob(store, history.root_ids[1]))["content"][0]["text"]
    assert len(text.encode()) <= 32 * 1024
    head, omitted, *_ = text.split("\n")
    assert head.startswith(f"[Summary of {history.folded} earlier messages")
    left_out = int(omitted.split()[0].lstrip("["))
    assert omitted.endswith("earlier messages omitted entirely: the summary is full.]")
    assert 0 < left_out < history.folded
    # the newest folded result is its last line: head, marker, and a tail of x
    assert text.rstrip("x").endswith("[… 1981 bytes cut …]\n")  # 3005 bytes kept as 1024


def test_the_budget_comes_from_the_environment_then_the_config() -> None:
    assert resolve_budget(None, None) == HistoryBudget(192, 512 * 1024)
    assert resolve_budget(" ", (100, 65536)) == HistoryBudget(100, 65536)
    assert resolve_budget("64, 131072", (100, 65536)) == HistoryBudget(64, 131072)
    for bad in ("192", "a,b", "4,524288", "192,100", "-1,524288"):
        with pytest.raises(ConfigError) as caught:
            resolve_budget(bad, None)
        assert "CURSOR_HISTORY_BUDGET" in str(caught.value) and "192,524288" in str(caught.value)
    assert Settings.from_section({}).history_budget is None
    section = {"history_budget": {"roots": 96, "bytes": 262144}}
    assert Settings.from_section(section).history_budget == (96, 262144)
    for wrong in (192, {"roots": "many"}, {"roots": 2}, {"rooots": 96}, {"bytes": True}):
        with pytest.raises(ConfigError) as config_error:
            Settings.from_section({"history_budget": wrong})
        assert '"history_budget" in the "cursor" config section' in str(config_error.value)
