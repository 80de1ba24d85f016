"""Cursor's native asks bridged to the host's own tools, and their replay (bridge.py).

For each native kind, an ask written by hand goes to an Answerer whose host offers
the tools of a real agent (Claude Code, Codex CLI, pi-coding-agent): the ask is
answered as refused with the handoff text, the host sees a call of its own tool
with translated arguments, and the host's result replays as the native call's
completed step, in its typed shape. Expected bytes are written from the field
numbers (docs/protocol.md §6b).
"""

from __future__ import annotations

import json
from typing import Any

from answering import Answering, new_id
from protobytes import ld, vi
from protobytes import text as s
from test_answers import CWD, Blobs, ask, reply

from nodecode_cursor._proto import agent_pb2
from nodecode_cursor.core.answers import Answerer, handoff_text
from nodecode_cursor.core.blobs import BlobStore
from nodecode_cursor.core.bridge import BridgedCalls, replay_step
from nodecode_cursor.core.history import build_history

HANDOFF = handoff_text()


def fn(name: str, required: list[str], **props: str) -> dict[str, Any]:
    """A function tool whose properties have the JSON types PROPS names."""
    properties: dict[str, Any] = {}
    for key, kind in props.items():
        key = key.replace("__", "-")
        if kind == "edits":
            item = {"oldText": {"type": "string"}, "newText": {"type": "string"}}
            properties[key] = {"type": "array", "items": {"type": "object", "properties": item}}
        else:
            properties[key] = {"type": kind}
    schema = {"type": "object", "properties": properties, "required": required}
    return {"type": "function", "function": {"name": name, "parameters": schema}}


CLAUDE = [
    fn("Read", ["file_path"], file_path="string", offset="number", limit="number"),
    fn("Bash", ["command"], command="string", timeout="number", description="string"),
    fn("Grep", ["pattern"], pattern="string", path="string", glob="string",
       output_mode="string", __i="boolean", __n="boolean", head_limit="number"),
    fn("Glob", ["pattern"], pattern="string", path="string"),
    fn("Write", ["file_path", "content"], file_path="string", content="string"),
    fn("Edit", ["file_path", "old_string", "new_string"], file_path="string",
       old_string="string", new_string="string", replace_all="boolean"),
]  # fmt: skip
CODEX = [fn("exec_command", ["cmd"], cmd="string", workdir="string")]
PI = [
    fn("read", ["path"], path="string", offset="number", limit="number"),
    fn("bash", ["command"], command="string", timeout="number"),
    fn("edit", ["path", "edits"], path="string", edits="edits"),
    fn("find", ["pattern"], pattern="string", path="string", limit="number"),
]


def answerer(tools: list[dict[str, Any]]) -> Answering:
    return Answering(
        Answerer(
            tools=tools,
            system_prompt="",
            cwd=CWD,
            blobs=Blobs(),
            project_schemas=False,
            new_id=new_id,
        )
    )


def handed(tools: list[dict[str, Any]], member: int, args: bytes) -> tuple[Answering, list[bytes]]:
    a = answerer(tools)
    return a, [m.SerializeToString() for m in a.answer(ask(member, args))]


def the_call(a: Answering) -> tuple[str, str, dict[str, Any]]:
    """Return (id, name, arguments) of the one call filed on the round's message."""
    [call] = a.fold.message()["tool_calls"]
    return call["id"], call["function"]["name"], json.loads(call["function"]["arguments"])


def step(tool: bytes, call_id: str) -> bytes:
    """ConversationStep{2 tool_call{<the variant>, 57 tool_call_id}} (a variant below 57)."""
    return ld(2, tool, s(57, call_id))


def pi_step(tool: bytes, call_id: str) -> bytes:
    """ConversationStep{2 tool_call{57 tool_call_id, <the pi_* variant, numbered above 57>}}."""
    return ld(2, s(57, call_id), tool)


def test_a_read_goes_to_claude_codes_read_and_replays_as_a_read_step() -> None:
    # ReadArgs{1 path, 2 tool_call_id, 4 offset, 5 limit}
    a, answers = handed(CLAUDE, 7, s(1, "notes/a.txt") + s(2, "toolu_1") + vi(4, 2) + vi(5, 3))
    # ReadResult{3 rejected{1 path, 2 reason}}: the handoff, so the service ends its turn
    assert answers == [reply(7, ld(3, s(1, "notes/a.txt") + s(2, HANDOFF)))]
    assert a.handed_off
    assert the_call(a) == (
        "toolu_1",
        "Read",
        {"file_path": "/round/cwd/notes/a.txt", "offset": 2, "limit": 3},
    )
    # ReadToolCall(8){1 args{1 path, 2 offset, 3 limit}, 2 result{1 success{1 content,
    # 4 total_lines, 5 file_size, 7 path}}}
    success = s(1, "two\nthree\n") + vi(4, 2) + vi(5, 10) + s(7, "notes/a.txt")
    tool = ld(8, ld(1, s(1, "notes/a.txt") + vi(2, 2) + vi(3, 3)), ld(2, ld(1, success)))
    assert replay_step(a.bridged["toolu_1"], "two\nthree\n", False) == step(tool, "toolu_1")


def test_a_failed_read_replays_as_the_read_steps_error() -> None:
    a, _ = handed(CLAUDE, 7, s(1, "gone.txt") + s(2, "toolu_2"))
    # ReadToolResult{2 error{1 error_message}}
    tool = ld(8, ld(1, s(1, "gone.txt")), ld(2, ld(2, s(1, "No such file"))))
    assert replay_step(a.bridged["toolu_2"], "No such file", True) == step(tool, "toolu_2")


def test_an_ls_goes_to_codexs_shell_and_replays_as_an_ls_tree() -> None:
    args = s(1, "src") + s(3, "t_ls")  # LsArgs{1 path, 3 tool_call_id}
    a, answers = handed(CODEX, 8, args)
    assert answers == [reply(8, ld(3, s(1, "src") + s(2, HANDOFF)))]
    assert the_call(a) == (
        "t_ls",
        "exec_command",
        {"cmd": "ls -1Ap -- /round/cwd/src"},
    )
    # LsToolCall(13){1 args as asked, 2 LsResult{1 success{1 tree{1 abs_path,
    # 2 children_dirs{1 abs_path}, 3 children_files{1 name}, 4 processed, 6 num_files}}}}
    tree = s(1, "src") + ld(2, s(1, "src/lib")) + ld(3, s(1, "a.py")) + vi(4, 1) + vi(6, 1)
    tool = ld(13, ld(1, args), ld(2, ld(1, ld(1, tree))))
    assert replay_step(a.bridged["t_ls"], "a.py\nlib/\n", False) == step(tool, "t_ls")


def test_a_grep_goes_to_claude_codes_grep_and_replays_its_matches() -> None:
    # GrepArgs{1 pattern, 2 path, 4 output_mode, 14 tool_call_id}
    args = s(1, "TODO") + s(2, "src") + s(4, "content") + s(14, "t_g")
    a, answers = handed(CLAUDE, 5, args)
    assert answers == [reply(5, ld(2, s(1, HANDOFF)))]  # GrepResult{2 error{1 error}}
    assert the_call(a) == (
        "t_g",
        "Grep",
        {"pattern": "TODO", "path": "/round/cwd/src", "output_mode": "content", "-n": True},
    )
    # GrepToolCall(5){1 args, 2 GrepResult{1 success{1 pattern, 2 path, 3 output_mode,
    # 4 {1 key, 2 union{3 content{1 {1 file, 2 {1 line_number, 2 content}}, 2, 3}}}}}}
    match = ld(1, s(1, "src/a.py"), ld(2, vi(1, 3) + s(2, "# TODO x")))
    union = ld(3, match + vi(2, 1) + vi(3, 1))
    success = s(1, "TODO") + s(2, "src") + s(3, "content") + ld(4, s(1, "src") + ld(2, union))
    tool = ld(5, ld(1, args), ld(2, ld(1, success)))
    assert replay_step(a.bridged["t_g"], "src/a.py:3:# TODO x\n", False) == step(tool, "t_g")


def test_a_glob_goes_to_pis_find_and_replays_its_output() -> None:
    args = s(1, "*.py") + s(2, "src")  # PiFindExecArgs{1 pattern, 2 path}
    a, answers = handed(PI, 50, args)
    # pi_find is answered one member higher (51): error{1 error}
    assert answers == [reply(51, ld(2, s(1, HANDOFF)))]
    assert the_call(a) == ("native_x9", "find", {"pattern": "*.py", "path": "/round/cwd/src"})
    # PiFindToolCall(66){1 args, 2 result{1 success{1 output}}}
    tool = ld(66, ld(1, args), ld(2, ld(1, s(1, "src/a.py"))))
    assert replay_step(a.bridged["native_x9"], "src/a.py", False) == pi_step(tool, "native_x9")


def test_a_shell_goes_to_claude_codes_bash_in_its_folder_and_replays_as_a_shell_step() -> None:
    # ShellArgs{1 command, 2 working_directory, 4 tool_call_id}
    args = s(1, "ls") + s(2, "/round/cwd/sub") + s(4, "t_sh")
    a, answers = handed(CLAUDE, 2, args)
    # ShellResult{4 rejected{1 command, 2 working_directory, 3 reason}}
    assert answers == [reply(2, ld(4, s(1, "ls") + s(2, "/round/cwd/sub") + s(3, HANDOFF)))]
    command = "cd /round/cwd/sub && ls"
    assert the_call(a) == (
        "t_sh",
        "Bash",
        {"command": command, "description": f"Cursor's shell: {command}"},
    )
    # ShellToolCall(1){1 args as asked, 2 ShellResult{1 success{1 command, 2 wd, 5 stdout}}}
    success = s(1, "ls") + s(2, "/round/cwd/sub") + s(5, "a\nb\n")
    tool = ld(1, ld(1, args), ld(2, ld(1, success)))
    assert replay_step(a.bridged["t_sh"], "a\nb\n", False) == step(tool, "t_sh")


def test_a_write_goes_to_claude_codes_write_and_replays_as_an_edit_step() -> None:
    args = s(1, "n.txt") + s(2, "hi\n") + s(3, "t_w")  # WriteArgs{1 path, 2 file_text, 3 id}
    a, answers = handed(CLAUDE, 3, args)
    assert answers == [reply(3, ld(6, s(1, "n.txt") + s(2, HANDOFF)))]  # rejected(6)
    assert the_call(a) == ("t_w", "Write", {"file_path": "/round/cwd/n.txt", "content": "hi\n"})
    # EditToolCall(12){1 args{1 path, 6 stream_content}, 2 result{1 success{1 path,
    # 7 after_full_file_content, 8 message}}}
    success = s(1, "n.txt") + s(7, "hi\n") + s(8, "File created")
    tool = ld(12, ld(1, s(1, "n.txt") + s(6, "hi\n")), ld(2, ld(1, success)))
    assert replay_step(a.bridged["t_w"], "File created", False) == step(tool, "t_w")


def test_an_edit_goes_to_pis_edit_with_its_list_and_replays_its_output() -> None:
    args = s(1, "n.txt") + ld(2, s(1, "hi") + s(2, "ho"))  # PiEditExecArgs{1 path, 2 edits}
    a, answers = handed(PI, 47, args)
    assert answers == [reply(48, ld(3, s(1, HANDOFF)))]  # one higher: rejected{1 reason}
    assert the_call(a) == (
        "native_x9",
        "edit",
        {"path": "/round/cwd/n.txt", "edits": [{"oldText": "hi", "newText": "ho"}]},
    )
    tool = ld(63, ld(1, args), ld(2, ld(1, s(1, "Edited n.txt"))))  # PiEditToolCall(63)
    assert replay_step(a.bridged["native_x9"], "Edited n.txt", False) == pi_step(tool, "native_x9")


def test_an_edit_goes_to_claude_codes_edit_with_old_and_new_text() -> None:
    a, _ = handed(CLAUDE, 47, s(1, "n.txt") + ld(2, s(1, "hi") + s(2, "ho")))
    assert the_call(a)[1:] == (
        "Edit",
        {"file_path": "/round/cwd/n.txt", "old_string": "hi", "new_string": "ho"},
    )


def test_a_delete_goes_to_a_shell_when_no_delete_tool_is_offered() -> None:
    args = s(1, "old.txt") + s(2, "t_d")  # DeleteArgs{1 path, 2 tool_call_id}
    a, answers = handed(CLAUDE, 4, args)
    assert answers == [reply(4, ld(6, s(1, "old.txt") + s(2, HANDOFF)))]  # rejected(6)
    command = "rm -f -- /round/cwd/old.txt"
    assert the_call(a) == (
        "t_d",
        "Bash",
        {"command": command, "description": f"Cursor's delete: {command}"},
    )
    # DeleteToolCall(3){1 args, 2 DeleteResult{1 success{1 path, 2 deleted_file}}}
    tool = ld(3, ld(1, args), ld(2, ld(1, s(1, "old.txt") + s(2, "old.txt"))))
    assert replay_step(a.bridged["t_d"], "", False) == step(tool, "t_d")


def test_a_tool_whose_schema_does_not_take_the_arguments_is_not_called() -> None:
    odd = [fn("Read", ["file_path", "encoding"], file_path="string", encoding="string")]
    a, answers = handed(odd, 7, s(1, "a.txt") + s(2, "toolu_3"))
    assert answers == [reply(7, ld(3, s(1, "a.txt") + s(2, "Tool not available")))]
    assert not a.handed_off and not a.bridged
    # refused as before: recorded on the round as a resolved call
    assert any(m.get("resolved") for m in a.fold.messages())


def test_the_next_round_replays_the_hosts_result_as_the_native_step() -> None:
    a, _ = handed(CLAUDE, 7, s(1, "notes/a.txt") + s(2, "toolu_1"))
    kept = BridgedCalls()
    kept.add(a.bridged.values())
    call = a.fold.message()["tool_calls"][0]
    history = [
        {"role": "user", "content": "read it"},
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "toolu_1", "content": "hello\n"},
        {"role": "user", "content": "thanks"},
    ]
    store = BlobStore()
    built = build_history(history, None, store, native=kept.replay)
    success = s(1, "hello\n") + vi(4, 1) + vi(5, 6) + s(7, "notes/a.txt")
    expected = step(ld(8, ld(1, s(1, "notes/a.txt")), ld(2, ld(1, success))), "toolu_1")
    [turn] = built.turn_ids
    parsed = agent_pb2.ConversationTurnStructure.FromString(store.get(turn) or b"")
    assert [store.get(i) for i in parsed.agent_conversation_turn.steps] == [expected]
