"""The bridge hands no client tool a path with a control character, and a bridged grep's
replay stays bounded (issue 36, item 5).

A Codex ``apply_patch`` is line-based: a path holding a line break would add lines of
the model's choosing to the envelope (``*** Delete File: ~/.ssh/authorized_keys``).
A count line ``big.log:20000000`` must stay one number, not millions of matches, and a
number past protobuf's int32 must not make the replayed step fail to serialize.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from protobytes import ld
from protobytes import text as s
from test_answers import reply
from test_bridge import CLAUDE, CODEX, PI, fn, handed, the_call

from nodecode_cursor import limits
from nodecode_cursor._proto import agent_pb2
from nodecode_cursor.core.bridge import replay_step

CODEX_PATCH = [*CODEX, fn("apply_patch", ["input"], input="string")]
INJECTED = "notes.txt\n*** Delete File: /home/u/.ssh/authorized_keys"


def test_an_apply_patch_path_with_a_line_break_is_never_handed_off() -> None:
    # DeleteArgs{1 path, 2 tool_call_id}: Codex's apply_patch would take it first.
    a, answers = handed(CODEX_PATCH, 4, s(1, INJECTED) + s(2, "t_inj"))
    assert not a.bridged and not a.handed_off
    # Nor does the shell row take it: refused as a tool not available (rejected, 6).
    assert answers == [reply(4, ld(6, s(1, INJECTED) + s(2, "Tool not available")))]


def test_a_clean_path_still_goes_to_apply_patch_as_one_operation() -> None:
    a, _ = handed(CODEX_PATCH, 4, s(1, "notes.txt") + s(2, "t_ok"))
    _, name, arguments = the_call(a)
    assert name == "apply_patch"
    assert arguments == {
        "input": "*** Begin Patch\n*** Delete File: /round/cwd/notes.txt\n*** End Patch\n"
    }


@pytest.mark.parametrize("control", ["\n", "\r", "\x00", "\x1b", "\x7f"])
@pytest.mark.parametrize(
    ("tools", "member", "args"),
    [
        (CODEX_PATCH, 3, lambda p: s(1, p) + s(2, "new text") + s(3, "t_w")),  # WriteArgs
        (CLAUDE, 7, lambda p: s(1, p) + s(2, "t_r")),  # ReadArgs{1 path, 2 id}
        (CLAUDE, 4, lambda p: s(1, p) + s(2, "t_d")),  # DeleteArgs: to Bash's rm
        (CLAUDE, 5, lambda p: s(1, "x") + s(2, p) + s(14, "t_g")),  # GrepArgs{2 path}
        (PI, 8, lambda p: s(1, p) + s(3, "t_l")),  # LsArgs{1 path, 3 id}: to pi's bash
    ],
    ids=["apply_patch", "read", "rm", "grep", "ls"],
)
def test_no_client_tool_is_handed_a_path_with_a_control_character(
    tools: list[dict[str, Any]], member: int, args: Callable[[str], bytes], control: str
) -> None:
    a, _ = handed(tools, member, args(f"a{control}b.txt"))
    assert not a.bridged and not a.handed_off


def grep_replay(mode: str, text: str) -> agent_pb2.GrepResult:
    """Return the GrepResult a bridged grep in MODE replays for the host's TEXT."""
    args = s(1, "x") + s(2, "logs") + s(4, mode) + s(14, "t_g")
    a, _ = handed(CLAUDE, 5, args)
    data = replay_step(a.bridged["t_g"], text, False)
    step = agent_pb2.ConversationStep.FromString(data)
    return step.tool_call.grep_tool_call.result


def test_a_bridged_grep_count_stays_a_number() -> None:
    text = "big.log:20000000\nsmall.log:3\n"
    result = grep_replay("count", text)
    count = result.success.workspace_results["logs"].count
    assert [(c.file, c.count) for c in count.counts] == [("big.log", 20000000), ("small.log", 3)]
    assert count.total_files == 2 and count.total_matches == 20000003
    assert result.ByteSize() < 200  # not millions of entries


def test_a_count_past_protobufs_int_range_is_clamped() -> None:
    result = grep_replay("count", "big.log:99999999999\n")
    count = result.success.workspace_results["logs"].count
    assert [(c.file, c.count) for c in count.counts] == [("big.log", 2**31 - 1)]
    assert count.total_matches == 2**31 - 1


def test_a_line_number_past_protobufs_int_range_is_kept_as_text() -> None:
    line = "a.py:99999999999:x = 1"
    result = grep_replay("content", f"{line}\nb.py:7:y\n")
    matches = result.success.workspace_results["logs"].content.matches
    got = [(m.file, [(c.line_number, c.content) for c in m.matches]) for m in matches]
    assert got == [("a.py", [(0, line)]), ("b.py", [(7, "y")])]


def test_replayed_matches_are_capped_and_say_so() -> None:
    cap = limits.MAX_REPLAYED_MATCHES
    text = "".join(f"a.py:{n}:hit\n" for n in range(1, cap + 500))
    content = grep_replay("content", text).success.workspace_results["logs"].content
    assert sum(len(m.matches) for m in content.matches) == cap
    assert content.client_truncated
