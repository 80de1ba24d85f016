"""Cursor's own tools run in place: exec asks as ``NativeCall``s, outcomes as typed results.

When the host gives the round a runner (``RoundContext.run_native``) and serves
a kind, a native exec ask (read, ls, grep, shell, write, delete and the ``pi_*``
family, docs/protocol.md §6 "Native tools run in place") is not refused: it
becomes a ``NativeCall`` (``native_call``), the host runs it, and its
``NativeOutcome`` goes back as the ask's own typed result (``native_answer``):
the success shapes, or the ask's error and rejected shapes when the call failed
or was refused. Every such call, and every native ask refused, is recorded in
the round's history as a *resolved call* (``resolved_messages``): an assistant
``tool_calls`` entry and its tool message, both flagged ``"resolved": true``.

Pure: no I/O, no clock, no randomness (a call whose ask names no id gets one
from the ``new_id`` factory the caller passes). Awaiting the runner is the
lane's job; what is refused without one is ``refusals.py``'s; cutting the
round's message at each resolved call is ``fold.py``'s.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from typing import Any

from google.protobuf.message import Message

from .._proto import agent_pb2
from ..host import NativeCall, NativeOutcome

__all__ = [
    "ASK_KINDS",
    "RESOLVED",
    "exec_reply",
    "grep_result",
    "ls_result",
    "native_answer",
    "native_call",
    "resolved_messages",
    "service_call",
    "shell_result",
    "stream_close",
]

# The record's flag: on the assistant's tool_calls entry and on its tool message.
RESOLVED = "resolved"

# Each native exec ask (ExecServerMessage member) and the kind of call it is.
ASK_KINDS: dict[str, str] = {
    "read_args": "read",
    "ls_args": "ls",
    "grep_args": "grep",
    "shell_args": "shell",
    "shell_stream_args": "shell",
    "mini_swe_agent_bash_args": "shell",
    "write_args": "write",
    "delete_args": "delete",
    "pi_read_args": "read",
    "pi_ls_args": "ls",
    "pi_grep_args": "grep",
    "pi_find_args": "glob",
    "pi_bash_args": "shell",
    "pi_write_args": "write",
    "pi_edit_args": "edit",
}

_CALL_ID_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")


def _opt(message: Any, name: str) -> Any:
    """Return MESSAGE's optional field NAME, or None when it is not set."""
    return getattr(message, name) if message.HasField(name) else None


def _call_id(ask: agent_pb2.ExecServerMessage, args: Message, new_id: Callable[[], str]) -> str:
    """Return the call's id: the ask's tool call id, else one made from its exec id or NEW_ID."""
    given = getattr(args, "tool_call_id", "")
    if given:
        return str(given)
    base = ask.exec_id or (str(ask.id) if ask.id else "")
    if not base:
        # Sixteen characters of a fresh id (of a uuid4's text: its first 16 hex digits).
        return "native_" + _CALL_ID_UNSAFE.sub("_", new_id().replace("-", ""))[:16]
    return "native_" + _CALL_ID_UNSAFE.sub("_", base)[:56]


def native_call(
    ask: agent_pb2.ExecServerMessage, cwd: str, new_id: Callable[[], str]
) -> NativeCall | None:
    """Return the NativeCall a native exec ASK asks for, or None when it is no native tool.

    CWD is the round's working folder: a shell ask that names none runs there. A grep
    with an empty pattern is no call (it is refused before it becomes one). NEW_ID
    makes the call's id when the ask names neither a call id nor an exec id.
    """
    member = ask.WhichOneof("message")
    kind = ASK_KINDS.get(member or "")
    if member is None or kind is None:
        return None
    args = getattr(ask, member)
    cid = _call_id(ask, args, new_id)
    if member == "read_args":
        limit = _opt(args, "limit")
        return NativeCall("read", cid, path=args.path, offset=_opt(args, "offset"), limit=limit)
    if member == "pi_read_args":
        return NativeCall(
            "read", cid, path=args.path, offset=_opt(args, "offset"), limit=_opt(args, "limit")
        )
    if member == "ls_args":
        return NativeCall("ls", cid, path=args.path)
    if member == "pi_ls_args":
        return NativeCall("ls", cid, path=args.path, limit=_opt(args, "limit"))
    if member == "grep_args":
        if not args.pattern.strip():
            return None
        return NativeCall(
            "grep",
            cid,
            pattern=args.pattern,
            path=args.path,
            glob=_opt(args, "glob") or None,
            case_insensitive=bool(args.case_insensitive),
            output_mode=args.output_mode or "content",
            limit=_opt(args, "head_limit"),
        )
    if member == "pi_grep_args":
        if not args.pattern.strip():
            return None
        pattern = re.escape(args.pattern) if args.literal else args.pattern
        return NativeCall(
            "grep",
            cid,
            pattern=pattern,
            path=args.path,
            glob=_opt(args, "glob") or None,
            case_insensitive=bool(args.ignore_case),
            limit=_opt(args, "limit"),
        )
    if member == "pi_find_args":
        return NativeCall(
            "glob", cid, pattern=args.pattern, path=args.path, limit=_opt(args, "limit")
        )
    if member in ("shell_args", "shell_stream_args", "mini_swe_agent_bash_args"):
        timeout = float(args.timeout) if args.timeout > 0 else None
        return NativeCall(
            "shell", cid, command=args.command, cwd=args.working_directory or cwd, timeout=timeout
        )
    if member == "pi_bash_args":
        pi_timeout = _opt(args, "timeout")
        return NativeCall(
            "shell",
            cid,
            command=args.command,
            cwd=cwd,
            timeout=float(pi_timeout) if pi_timeout and pi_timeout > 0 else None,
        )
    if member == "write_args":
        text = args.file_text or bytes(args.file_bytes).decode("utf-8", "replace")
        return NativeCall("write", cid, path=args.path, content=text)
    if member == "pi_write_args":
        return NativeCall("write", cid, path=args.path, content=args.content)
    if member == "pi_edit_args":
        edits = tuple((edit.old_text, edit.new_text) for edit in args.edits)
        return NativeCall("edit", cid, path=args.path, edits=edits)
    if member == "delete_args":
        return NativeCall("delete", cid, path=args.path)
    return None  # pragma: no cover - ASK_KINDS names no other member


# --- the record -----------------------------------------------------------------------------


def _json_text(value: Any) -> str:
    """Return VALUE as compact JSON text."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False, default=str)


def resolved_messages(
    call_id: str, name: str, arguments: Mapping[str, Any], text: str, *, failed: bool
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Return a resolved call's ``tool_calls`` entry and its tool message, both flagged."""
    entry: dict[str, Any] = {
        "id": call_id,
        "type": "function",
        "function": {"name": name, "arguments": _json_text(dict(arguments))},
        RESOLVED: True,
    }
    result: dict[str, Any] = {
        "role": "tool",
        "tool_call_id": call_id,
        "content": text,
        RESOLVED: True,
    }
    if failed:
        result["is_error"] = True
    return entry, result


def service_call(tool_call: agent_pb2.ToolCall) -> tuple[str, dict[str, Any], str] | None:
    """Return (name, arguments, result text) of a call the service ran itself, or None.

    A todo update carries its list; the others are named by their variant and said
    to have been run by Cursor (our schema does not read their bodies).
    """
    variant = tool_call.WhichOneof("tool")
    if variant is None:
        return None
    name = variant.removesuffix("_tool_call")
    if variant == "update_todos_tool_call":
        todos = [
            {
                "id": item.id,
                "content": item.content,
                "status": _TODO_STATUS.get(item.status, "pending"),
            }
            for item in tool_call.update_todos_tool_call.args.todos
        ]
        lines = [f"[{todo['status']}] {todo['content']}" for todo in todos]
        return "todo", {"todos": todos}, "\n".join(lines) or "(no todos)"
    return name, {}, f"{name} was run by Cursor"


_TODO_STATUS = {1: "pending", 2: "in_progress", 3: "completed"}


# --- the typed answers ----------------------------------------------------------------------


def exec_reply(ask: agent_pb2.ExecServerMessage, **result: Any) -> agent_pb2.AgentClientMessage:
    """Return the client message answering ASK with RESULT's members (its id and exec_id copied)."""
    message = agent_pb2.AgentClientMessage()
    reply = message.exec_client_message
    reply.id = ask.id
    reply.exec_id = ask.exec_id
    for member, value in result.items():
        getattr(reply, member).CopyFrom(value)
    return message


def stream_close(ask: agent_pb2.ExecServerMessage) -> agent_pb2.AgentClientMessage:
    """Return the control message closing ASK's exec stream."""
    message = agent_pb2.AgentClientMessage()
    message.exec_client_control_message.stream_close.id = ask.id
    return message


def _lines(text: str) -> int:
    """Return how many lines TEXT holds (a last line without a newline counts)."""
    if not text:
        return 0
    return text.count("\n") + (0 if text.endswith("\n") else 1)


def native_answer(
    ask: agent_pb2.ExecServerMessage, call: NativeCall, outcome: NativeOutcome
) -> list[agent_pb2.AgentClientMessage]:
    """Return the client messages answering ASK with OUTCOME, in the ask's typed result."""
    member = ask.WhichOneof("message") or ""
    build = _BUILDERS.get(member)
    if build is None:  # pragma: no cover - the lane asks only for ASK_KINDS members
        return []
    return build(ask, call, outcome)


def _read(
    ask: agent_pb2.ExecServerMessage, call: NativeCall, outcome: NativeOutcome
) -> list[agent_pb2.AgentClientMessage]:
    result = agent_pb2.ReadResult()
    path = call.path
    if outcome.status == "done":
        content = outcome.content if outcome.content is not None else outcome.text
        success = result.success
        success.path = path
        success.content = content
        first = call.offset or 1
        success.total_lines = (
            outcome.total_lines if outcome.total_lines is not None else first - 1 + _lines(content)
        )
        success.file_size = (
            outcome.file_size if outcome.file_size is not None else len(content.encode("utf-8"))
        )
        success.truncated = outcome.truncated
        success.range_applied = call.offset is not None or call.limit is not None
    elif outcome.status == "refused":
        result.rejected.path = path
        result.rejected.reason = outcome.text
    else:
        result.error.path = path
        result.error.error = outcome.text or "Read failed"
    return [exec_reply(ask, read_result=result)]


def _ls(
    ask: agent_pb2.ExecServerMessage, call: NativeCall, outcome: NativeOutcome
) -> list[agent_pb2.AgentClientMessage]:
    return [exec_reply(ask, ls_result=ls_result(call, outcome))]


def ls_result(call: NativeCall, outcome: NativeOutcome) -> agent_pb2.LsResult:
    """Return OUTCOME of an ls CALL as its LsResult (a tree of one level, or the error)."""
    result = agent_pb2.LsResult()
    path = call.path
    if outcome.status == "done":
        root_path = path or "."
        root = result.success.directory_tree_root
        root.abs_path = root_path
        entries = outcome.entries or tuple(
            line.strip() for line in outcome.text.splitlines() if line.strip()
        )
        for entry in entries:
            if entry.endswith("/"):
                folder = root.children_dirs.add()
                folder.abs_path = f"{root_path.rstrip('/')}/{entry[:-1]}"
            else:
                root.children_files.add().name = entry
        root.children_were_processed = not outcome.truncated
        root.num_files = len(root.children_files)
    elif outcome.status == "refused":
        result.rejected.path = path
        result.rejected.reason = outcome.text
    else:
        result.error.path = path
        result.error.error = outcome.text or "Ls failed"
    return result


def _grep(
    ask: agent_pb2.ExecServerMessage, call: NativeCall, outcome: NativeOutcome
) -> list[agent_pb2.AgentClientMessage]:
    return [exec_reply(ask, grep_result=grep_result(call, outcome))]


def grep_result(call: NativeCall, outcome: NativeOutcome) -> agent_pb2.GrepResult:
    """Return OUTCOME of a grep CALL as its GrepResult (matches in its mode, or the error)."""
    result = agent_pb2.GrepResult()
    if outcome.status != "done":
        result.error.error = outcome.text or "Grep failed"
        return result
    success = result.success
    success.pattern = call.pattern
    success.path = call.path
    mode = call.output_mode if call.output_mode in ("files_with_matches", "count") else "content"
    success.output_mode = mode
    union = success.workspace_results[call.path or "."]
    by_file: dict[str, list[tuple[int, str]]] = {}
    for file, number, line in outcome.matches:
        by_file.setdefault(file, []).append((number, line))
    if mode == "files_with_matches":
        union.files.files.extend(by_file)
        union.files.total_files = len(by_file)
        union.files.client_truncated = outcome.truncated
    elif mode == "count":
        for file, found in by_file.items():
            union.count.counts.add(file=file, count=len(found))
        union.count.total_files = len(by_file)
        union.count.total_matches = len(outcome.matches)
        union.count.client_truncated = outcome.truncated
    else:
        content = union.content
        content.SetInParent()
        for file, found in by_file.items():
            file_match = content.matches.add(file=file)
            for number, line in found:
                file_match.matches.add(line_number=number, content=line)
        content.total_lines = len(outcome.matches)
        content.total_matched_lines = len(outcome.matches)
        content.client_truncated = outcome.truncated
    return result


def shell_result(call: NativeCall, outcome: NativeOutcome) -> agent_pb2.ShellResult:
    """Return OUTCOME as a ShellResult: success at exit 0, failure otherwise, or rejected."""
    result = agent_pb2.ShellResult()
    if outcome.status == "refused":
        rejected = result.rejected
        rejected.command = call.command
        rejected.working_directory = call.cwd
        rejected.reason = outcome.text
        return result
    if outcome.status == "failed":
        failure = result.failure
        failure.command = call.command
        failure.working_directory = call.cwd
        failure.exit_code = outcome.exit_code if outcome.exit_code else 1
        failure.stderr = outcome.text
        failure.execution_time = outcome.duration_ms
        return result
    code = outcome.exit_code or 0
    done = result.success if code == 0 else result.failure
    done.command = call.command
    done.working_directory = call.cwd
    done.exit_code = code
    done.stdout = outcome.stdout if outcome.stdout is not None else outcome.text
    done.stderr = outcome.stderr
    done.execution_time = outcome.duration_ms
    return result


def _shell(
    ask: agent_pb2.ExecServerMessage, call: NativeCall, outcome: NativeOutcome
) -> list[agent_pb2.AgentClientMessage]:
    member = (
        "mini_swe_agent_bash_result" if ask.HasField("mini_swe_agent_bash_args") else "shell_result"
    )
    return [exec_reply(ask, **{member: shell_result(call, outcome)})]


def _shell_stream(
    ask: agent_pb2.ExecServerMessage, call: NativeCall, outcome: NativeOutcome
) -> list[agent_pb2.AgentClientMessage]:
    # The stream opens, says what ran, exits, then the plain result and the close: the
    # same five beats as the refusal (refusals.py), with the output in between.
    result = shell_result(call, outcome)
    events: list[agent_pb2.ShellStream] = [
        agent_pb2.ShellStream(start=agent_pb2.ShellStreamStart())
    ]
    if outcome.status == "refused":
        events.append(agent_pb2.ShellStream(rejected=result.rejected))
        code = 1
    else:
        done = result.success if result.HasField("success") else result.failure
        if done.stdout:
            events.append(
                agent_pb2.ShellStream(stdout=agent_pb2.ShellStreamStdout(data=done.stdout))
            )
        if done.stderr:
            events.append(
                agent_pb2.ShellStream(stderr=agent_pb2.ShellStreamStderr(data=done.stderr))
            )
        code = done.exit_code
    events.append(
        agent_pb2.ShellStream(exit=agent_pb2.ShellStreamExit(code=max(0, code), cwd=call.cwd))
    )
    return [
        *(exec_reply(ask, shell_stream=event) for event in events),
        exec_reply(ask, shell_result=result),
        stream_close(ask),
    ]


def _write(
    ask: agent_pb2.ExecServerMessage, call: NativeCall, outcome: NativeOutcome
) -> list[agent_pb2.AgentClientMessage]:
    result = agent_pb2.WriteResult()
    if outcome.status == "done":
        success = result.success
        success.path = call.path
        success.lines_created = _lines(call.content)
        success.file_size = (
            outcome.file_size
            if outcome.file_size is not None
            else len(call.content.encode("utf-8"))
        )
        if ask.write_args.return_file_content_after_write:
            success.file_content_after_write = call.content
    elif outcome.status == "refused":
        result.rejected.path = call.path
        result.rejected.reason = outcome.text
    else:
        result.error.path = call.path
        result.error.error = outcome.text or "Write failed"
    return [exec_reply(ask, write_result=result)]


def _delete(
    ask: agent_pb2.ExecServerMessage, call: NativeCall, outcome: NativeOutcome
) -> list[agent_pb2.AgentClientMessage]:
    result = agent_pb2.DeleteResult()
    if outcome.status == "done":
        success = result.success
        success.path = call.path
        success.deleted_file = call.path
        success.file_size = outcome.file_size or 0
        success.prev_content = outcome.content or ""
    elif outcome.status == "refused":
        result.rejected.path = call.path
        result.rejected.reason = outcome.text
    else:
        result.error.path = call.path
        result.error.error = outcome.text or "Delete failed"
    return [exec_reply(ask, delete_result=result)]


def _pi(result_member: str, result_type: type[Any], rejects: bool) -> _Builder:
    """Return the builder of a pi_* answer: success{output}, error{error}, or rejected{reason}.

    The pi_* asks are answered one member higher (pi_read_args 45 → pi_read_result 46).
    """

    def build(
        ask: agent_pb2.ExecServerMessage, call: NativeCall, outcome: NativeOutcome
    ) -> list[agent_pb2.AgentClientMessage]:
        result = result_type()
        if outcome.status == "done":
            result.success.output = outcome.text
            if call.kind == "edit" and outcome.diff:
                result.success.diff = outcome.diff
        elif outcome.status == "refused" and rejects:
            result.rejected.reason = outcome.text
        else:
            result.error.error = outcome.text or f"{call.kind} failed"
        return [exec_reply(ask, **{result_member: result})]

    return build


_Builder = Callable[
    [agent_pb2.ExecServerMessage, NativeCall, NativeOutcome], list[agent_pb2.AgentClientMessage]
]
_BUILDERS: dict[str, _Builder] = {
    "read_args": _read,
    "ls_args": _ls,
    "grep_args": _grep,
    "shell_args": _shell,
    "mini_swe_agent_bash_args": _shell,
    "shell_stream_args": _shell_stream,
    "write_args": _write,
    "delete_args": _delete,
    "pi_read_args": _pi("pi_read_result", agent_pb2.PiReadExecResult, False),
    "pi_ls_args": _pi("pi_ls_result", agent_pb2.PiLsExecResult, False),
    "pi_grep_args": _pi("pi_grep_result", agent_pb2.PiGrepExecResult, False),
    "pi_find_args": _pi("pi_find_result", agent_pb2.PiFindExecResult, False),
    "pi_bash_args": _pi("pi_bash_result", agent_pb2.PiBashExecResult, False),
    "pi_write_args": _pi("pi_write_result", agent_pb2.PiWriteExecResult, True),
    "pi_edit_args": _pi("pi_edit_result", agent_pb2.PiEditExecResult, True),
}
