"""Host tools under Cursor's native names, and Cursor's native asks as calls of host tools.

Two jobs (docs/protocol.md §6b):

* **Names.** A host tool named like one Cursor drives natively (``bash``, ``read``,
  ``write``, ``delete``, ``ls``, ``grep``, ``todo``) is offered to the model under a
  wire name that does not collide (``host_read``), and a call of that wire name is
  the host tool's call again (``wire_names``, ``host_name``). No host tool is dropped.
* **Bridging.** A native ask (read, ls, grep, glob, shell, write, edit, delete) in a
  round whose host runs no such kind in place goes to an equivalent host tool when
  the host offers one (``bridge``): the conventions of the agents people use
  (``BRIDGE_TABLE``: Claude Code, Codex CLI, opencode, pi-coding-agent, and tools
  named like Cursor's own) say which tool and how the arguments translate, and the
  tool's own JSON schema must take the translated arguments before any call is made.
  The host's result replays in the next round as that native call's completed step,
  in its typed shape (``replay_step``), so the model sees its own tool's result.

Pure: no I/O, no clock. Answering the ask and filing the call are ``answers.py``'s;
keeping the bridged calls between rounds is the lane's (``BridgedCalls`` on the state);
the step's place in the turns is ``history.py``'s.
"""

from __future__ import annotations

import posixpath
import re
import shlex
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from .. import limits
from .._proto import agent_pb2
from ..host import NativeCall, NativeOutcome
from .native import grep_result, ls_result, shell_result

__all__ = [
    "BRIDGE_TABLE",
    "NATIVE_TOOL_NAMES",
    "WIRE_PREFIX",
    "Bridged",
    "BridgedCalls",
    "bridge",
    "function_tools",
    "host_name",
    "replay_step",
    "unsafe_path",
    "wire_names",
]

# Names Cursor drives natively over the exec channel (oh-my-pi's list): a host tool by
# one of these names is offered under WIRE_PREFIX + its name.
NATIVE_TOOL_NAMES = frozenset({"bash", "read", "write", "delete", "ls", "grep", "todo"})
WIRE_PREFIX = "host_"

# How many bridged calls the state keeps for the rounds that replay them.
MAX_BRIDGED_CALLS = 512


def function_tools(tools: Iterable[Any]) -> list[dict[str, Any]]:
    """Return the function objects of TOOLS (OpenAI shape) that carry a non-empty name."""
    out = []
    for tool in tools:
        fn = tool.get("function") if isinstance(tool, dict) else None
        if isinstance(fn, dict) and isinstance(fn.get("name"), str) and fn["name"]:
            out.append(fn)
    return out


def wire_names(names: Iterable[str]) -> dict[str, str]:
    """Return {host name: wire name} for the host tools whose names collide with native ones.

    The wire name is ``host_<name>``, with ``_2``, ``_3``… added when the host has a
    tool by that name too. Names that do not collide are not in the map.
    """
    ordered = list(dict.fromkeys(names))
    taken = set(ordered)
    out: dict[str, str] = {}
    for name in ordered:
        if name not in NATIVE_TOOL_NAMES:
            continue
        candidate, n = WIRE_PREFIX + name, 2
        while candidate in taken:
            candidate, n = f"{WIRE_PREFIX}{name}_{n}", n + 1
        taken.add(candidate)
        out[name] = candidate
    return out


def host_name(wire: str, names: Mapping[str, str]) -> str:
    """Return the host tool's own name for a call of WIRE (NAMES: ``wire_names``'s map)."""
    for host, offered in names.items():
        if offered == wire:
            return host
    return wire


# --- paths no client tool is handed -------------------------------------------------------

# C0 controls (CR, LF, NUL among them) and DEL. No file name a model means holds one,
# and in a line-based argument (apply_patch's envelope, a command) a line break
# starts a line of the model's choosing: "a\n*** Delete File: ~/.ssh/authorized_keys".
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def unsafe_path(call: NativeCall) -> bool:
    """Return whether CALL's path, folder or glob holds a control character (never bridged)."""
    return any(_CONTROL.search(value) for value in (call.path, call.cwd, call.glob or ""))


# --- the bridging table ------------------------------------------------------------------

_Props = Mapping[str, Any]
# (the call, the tool's schema properties, the round's working folder) -> arguments or None
_Translate = Callable[[NativeCall, _Props, str], dict[str, Any] | None]


@dataclass(frozen=True, slots=True)
class BridgeRule:
    """One row of the table: for KIND, host tools named NAMES take the arguments TRANSLATE makes."""

    kind: str
    names: tuple[str, ...]
    translate: _Translate
    note: str


def _pick(props: _Props, *candidates: str) -> str | None:
    """Return the first of CANDIDATES the schema's properties name, or None."""
    return next((name for name in candidates if name in props), None)


def _absolute(path: str, cwd: str) -> str:
    """Return PATH joined to CWD when relative (the service's paths are the round's cwd's)."""
    return posixpath.normpath(posixpath.join(cwd, path or "."))


_PATH = ("file_path", "filePath", "path", "file", "absolute_path")
_DIR = ("path", "dir_path", "directory", "dir", "folder")


def _read(call: NativeCall, props: _Props, cwd: str) -> dict[str, Any] | None:
    key = _pick(props, *_PATH)
    if key is None:
        return None
    args: dict[str, Any] = {key: _absolute(call.path, cwd)}
    offset = _pick(props, "offset", "start_line")
    if call.offset is not None and offset is not None:
        args[offset] = call.offset
    limit = _pick(props, "limit")
    if call.limit is not None and limit is not None:
        args[limit] = call.limit
    return args


def _ls(call: NativeCall, props: _Props, cwd: str) -> dict[str, Any] | None:
    key = _pick(props, *_DIR)
    if key is None:
        return None
    args: dict[str, Any] = {key: _absolute(call.path, cwd)}
    limit = _pick(props, "limit")
    if call.limit is not None and limit is not None:
        args[limit] = call.limit
    return args


def _search(
    call: NativeCall, props: _Props, cwd: str, keys: tuple[str, ...]
) -> dict[str, Any] | None:
    """Return a search's pattern (under the first of KEYS the tool names) and its folder."""
    key = _pick(props, *keys)
    if key is None:
        return None
    args: dict[str, Any] = {key: call.pattern}
    where = _pick(props, *_DIR)
    if where is not None:
        args[where] = _absolute(call.path, cwd)
    return args


def _grep(call: NativeCall, props: _Props, cwd: str) -> dict[str, Any] | None:
    args = _search(call, props, cwd, ("pattern", "regex", "query"))
    if args is None:
        return None
    glob = _pick(props, "glob", "include", "file_pattern")
    if call.glob and glob is not None:
        args[glob] = call.glob
    case = _pick(props, "-i", "ignoreCase", "ignore_case", "case_insensitive")
    if call.case_insensitive and case is not None:
        args[case] = True
    mode = _pick(props, "output_mode")
    if mode is not None:
        args[mode] = call.output_mode
        if call.output_mode == "content" and "-n" in props:
            args["-n"] = True
    limit = _pick(props, "head_limit", "limit")
    if call.limit is not None and limit is not None:
        args[limit] = call.limit
    return args


def _glob(call: NativeCall, props: _Props, cwd: str) -> dict[str, Any] | None:
    args = _search(call, props, cwd, ("pattern", "glob"))
    if args is None:
        return None
    limit = _pick(props, "limit")
    if call.limit is not None and limit is not None:
        args[limit] = call.limit
    return args


def _write(call: NativeCall, props: _Props, cwd: str) -> dict[str, Any] | None:
    path, content = _pick(props, *_PATH), _pick(props, "content", "contents", "file_text", "text")
    if path is None or content is None:
        return None
    return {path: _absolute(call.path, cwd), content: call.content}


_OLD = ("old_string", "oldString", "oldText", "old_text", "old_str")
_NEW = ("new_string", "newString", "newText", "new_text", "new_str")


def _edit(call: NativeCall, props: _Props, cwd: str) -> dict[str, Any] | None:
    path = _pick(props, *_PATH)
    if path is None or not call.edits:
        return None
    args: dict[str, Any] = {path: _absolute(call.path, cwd)}
    edits = props.get("edits")
    if isinstance(edits, dict) and edits.get("type") == "array":
        items = edits.get("items")
        item_props = items.get("properties") if isinstance(items, dict) else None
        if not isinstance(item_props, dict):
            return None
        old, new = _pick(item_props, *_OLD), _pick(item_props, *_NEW)
        if old is None or new is None:
            return None
        args["edits"] = [{old: o, new: n} for o, n in call.edits]
        return args
    old, new = _pick(props, *_OLD), _pick(props, *_NEW)
    if old is None or new is None or len(call.edits) != 1:
        return None  # one replacement per call: more cannot be one call of this tool
    args[old], args[new] = call.edits[0]
    return args


def _delete(call: NativeCall, props: _Props, cwd: str) -> dict[str, Any] | None:
    key = _pick(props, *_PATH)
    return None if key is None else {key: _absolute(call.path, cwd)}


def _patch_lines(prefix: str, text: str) -> list[str]:
    """Return TEXT's lines each led by PREFIX (apply_patch's +/- lines)."""
    return [prefix + line for line in text.split("\n")]


def _apply_patch(body: Callable[[NativeCall, str], list[str] | None]) -> _Translate:
    """Return a translation into Codex's apply_patch envelope around BODY's lines."""

    def translate(call: NativeCall, props: _Props, cwd: str) -> dict[str, Any] | None:
        key = _pick(props, "input", "patch")
        path = _absolute(call.path, cwd)
        if _CONTROL.search(path):
            return None  # a line break in a path would add a line to the envelope
        lines = body(call, path)
        if key is None or lines is None:
            return None
        return {key: "\n".join(["*** Begin Patch", *lines, "*** End Patch", ""])}

    return translate


def _patch_edit(call: NativeCall, path: str) -> list[str] | None:
    if not call.edits:
        return None
    lines = [f"*** Update File: {path}"]
    for old, new in call.edits:
        lines += ["@@", *_patch_lines("-", old), *_patch_lines("+", new)]
    return lines


def _patch_write(call: NativeCall, path: str) -> list[str] | None:
    # Codex's Add File writes the whole file (one that exists is replaced).
    return [f"*** Add File: {path}", *_patch_lines("+", call.content.removesuffix("\n"))]


def _patch_delete(call: NativeCall, path: str) -> list[str] | None:
    return [f"*** Delete File: {path}"]


def _shell_with(command: Callable[[NativeCall, str], str | None]) -> _Translate:
    """Return a translation into a shell tool's arguments running COMMAND(call, cwd)."""

    def translate(call: NativeCall, props: _Props, cwd: str) -> dict[str, Any] | None:
        key = _pick(props, "command", "cmd")
        text = command(call, cwd)
        if key is None or text is None:
            return None
        args: dict[str, Any] = {}
        # A shell ask names its folder; the others' commands name absolute paths, and
        # run wherever the host runs its commands.
        folder = call.cwd or cwd
        workdir = _pick(props, "workdir", "cwd", "working_directory", "directory")
        if call.kind != "shell":
            pass
        elif workdir is not None:
            if folder:  # none known ("" from serve): the client runs it in its own
                args[workdir] = folder
        elif folder != cwd:
            text = f"cd {shlex.quote(folder)} && {text}"
        spec = props.get(key)
        if isinstance(spec, dict) and spec.get("type") == "array":
            args[key] = ["bash", "-lc", text]  # Codex's shell takes an argv
        else:
            args[key] = text
        if "description" in props:
            args["description"] = f"Cursor's {call.kind}: {text[:60]}"
        return args

    return translate


def _command(call: NativeCall, cwd: str) -> str | None:
    return call.command or None


def _read_command(call: NativeCall, cwd: str) -> str | None:
    path = shlex.quote(_absolute(call.path, cwd))
    if call.offset is None and call.limit is None:
        return f"cat -- {path}"
    first = call.offset or 1
    last = "$" if call.limit is None else str(first + call.limit - 1)
    return f"sed -n '{first},{last}p' -- {path}"


def _ls_command(call: NativeCall, cwd: str) -> str | None:
    # One name a line, folders with a trailing slash: what the ls result is read from.
    return f"ls -1Ap -- {shlex.quote(_absolute(call.path, cwd))}"


def _grep_command(call: NativeCall, cwd: str) -> str | None:
    flag = {"files_with_matches": "-rlE", "count": "-rcE"}.get(call.output_mode, "-rnE")
    parts = ["grep", flag]
    if call.case_insensitive:
        parts.append("-i")
    if call.glob:
        parts.append(f"--include={shlex.quote(call.glob)}")
    parts += ["-e", shlex.quote(call.pattern), "--", shlex.quote(_absolute(call.path, cwd))]
    return " ".join(parts)


def _delete_command(call: NativeCall, cwd: str) -> str | None:
    return f"rm -f -- {shlex.quote(_absolute(call.path, cwd))}"


_SHELLS = ("Bash", "bash", "shell", "exec_command", "run_shell_command", "shell_command")

# Tried in order; the first row whose tool the host offers and whose schema takes the
# arguments wins. docs/protocol.md §6b prints this table.
BRIDGE_TABLE: tuple[BridgeRule, ...] = (
    BridgeRule("read", ("Read", "read", "read_file", "view"), _read, "path, offset, limit"),
    BridgeRule("read", _SHELLS, _shell_with(_read_command), "cat / sed -n A,Bp"),
    BridgeRule("ls", ("LS", "ls", "list", "list_directory", "list_dir"), _ls, "path, limit"),
    BridgeRule("ls", _SHELLS, _shell_with(_ls_command), "ls -1Ap"),
    BridgeRule(
        "grep",
        ("Grep", "grep", "grep_search", "search_file_content"),
        _grep,
        "pattern, path, glob, case, output mode, limit",
    ),
    BridgeRule("grep", _SHELLS, _shell_with(_grep_command), "grep -rnE"),
    BridgeRule("glob", ("Glob", "glob", "find", "find_files"), _glob, "pattern, path, limit"),
    BridgeRule("shell", _SHELLS, _shell_with(_command), "command, working folder"),
    BridgeRule("write", ("Write", "write", "write_file", "create_file"), _write, "path, content"),
    BridgeRule("write", ("apply_patch",), _apply_patch(_patch_write), "*** Add File"),
    BridgeRule(
        "edit",
        ("Edit", "edit", "str_replace", "replace", "edit_file"),
        _edit,
        "path, old and new text (edits[] when the tool takes a list)",
    ),
    BridgeRule("edit", ("apply_patch",), _apply_patch(_patch_edit), "*** Update File"),
    BridgeRule("delete", ("delete", "delete_file", "remove", "rm"), _delete, "path"),
    BridgeRule("delete", ("apply_patch",), _apply_patch(_patch_delete), "*** Delete File"),
    BridgeRule("delete", _SHELLS, _shell_with(_delete_command), "rm -f"),
)


# --- the schema check -------------------------------------------------------------------

_JSON_TYPES: dict[str, Callable[[Any], bool]] = {
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, int | float) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "array": lambda v: isinstance(v, list),
    "object": lambda v: isinstance(v, dict),
}


def _fits(schema: Mapping[str, Any], args: Mapping[str, Any]) -> bool:
    """Return whether ARGS satisfy SCHEMA: named properties, every required one, their types."""
    props = schema.get("properties")
    if not isinstance(props, dict):
        return False
    required = schema.get("required")
    if isinstance(required, list) and any(name not in args for name in required):
        return False
    for name, value in args.items():
        spec = props.get(name)
        if not isinstance(spec, dict):
            return False
        kind = spec.get("type")
        kinds = kind if isinstance(kind, list) else [kind] if isinstance(kind, str) else []
        checks = [_JSON_TYPES[k] for k in kinds if k in _JSON_TYPES]
        if checks and not any(check(value) for check in checks):
            return False
    return True


# --- bridging an ask ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Bridged:
    """A native ask handed to a host tool: the call the host runs, and what replays it."""

    name: str  # the host tool's own name
    arguments: dict[str, Any]
    member: str  # the ask's ExecServerMessage member
    args: bytes  # the ask's arguments message, serialized (the replayed step's args)
    call: NativeCall


def bridge(
    ask: agent_pb2.ExecServerMessage,
    call: NativeCall,
    tools: Iterable[Any],
    cwd: str,
) -> Bridged | None:
    """Return ASK (as CALL) handed to one of the host's TOOLS, or None when none fits.

    None too for a path (or folder, or glob) that holds a control character: no
    client tool is handed one (``unsafe_path``).
    """
    if unsafe_path(call):
        return None
    member = ask.WhichOneof("message") or ""
    by_name = {fn["name"]: fn for fn in function_tools(tools)}
    for rule in BRIDGE_TABLE:
        if rule.kind != call.kind:
            continue
        for name in rule.names:
            fn = by_name.get(name)
            schema = fn.get("parameters") if fn is not None else None
            if not isinstance(schema, dict):
                continue
            props = schema.get("properties")
            args = rule.translate(call, props if isinstance(props, dict) else {}, cwd)
            if args is not None and _fits(schema, args):
                data = getattr(ask, member).SerializeToString(deterministic=True)
                return Bridged(name, args, member, data, call)
    return None


class BridgedCalls:
    """The calls rounds bridged, by call id, the newest MAX_BRIDGED_CALLS (least recent out)."""

    def __init__(self, limit: int = MAX_BRIDGED_CALLS) -> None:
        self._calls: OrderedDict[str, Bridged] = OrderedDict()
        self._limit = limit

    def add(self, calls: Iterable[Bridged]) -> None:
        """Keep CALLS (a repeat id takes the newer one)."""
        for item in calls:
            self._calls[item.call.id] = item
            self._calls.move_to_end(item.call.id)
        while len(self._calls) > self._limit:
            self._calls.popitem(last=False)

    def get(self, call_id: str) -> Bridged | None:
        """Return the bridged call with CALL_ID, or None."""
        return self._calls.get(call_id)

    def replay(self, call_id: str) -> Callable[[str, bool], bytes] | None:
        """Return the builder of CALL_ID's replayed step (from the host's text), or None."""
        found = self._calls.get(call_id)
        if found is None:
            return None
        return lambda text, failed: replay_step(found, text, failed)


# --- the replayed step -------------------------------------------------------------------------


def _lines(text: str) -> int:
    """Return how many lines TEXT holds (a last line without a newline counts)."""
    return text.count("\n") + (0 if not text or text.endswith("\n") else 1)


_CONTENT_LINE = re.compile(r"^(.+?):(\d+):(.*)$")
_COUNT_LINE = re.compile(r"^(.+?):(\d+)$")
# protobuf's int32 (a line number, a count): a larger value fails to serialize, and a
# history holding one would fail every later request built on it.
_INT32_MAX = 2**31 - 1


def _grep_outcome(call: NativeCall, text: str) -> NativeOutcome:
    """Return the host's grep TEXT as an outcome with its matches (each line one, if unparsed).

    At most ``limits.MAX_REPLAYED_MATCHES`` matches (the outcome says it was
    truncated past them). A line number
    past protobuf's int32 is no line number: that line is kept whole, as text.
    """
    lines = [line for line in text.splitlines() if line.strip()]
    matches: list[tuple[str, int, str]] = []
    for line in lines:
        if call.output_mode == "files_with_matches":
            if not line.startswith(("Found ", "No files")):
                matches.append((line.strip(), 0, ""))
        else:
            found = _CONTENT_LINE.match(line)
            if found and int(found.group(2)) <= _INT32_MAX:
                matches.append((found.group(1), int(found.group(2)), found.group(3)))
            elif found:
                matches.append((found.group(1), 0, line))
    if not matches and lines:
        # Not in a shape we read: every line kept, so the model still sees all of it.
        where = call.path or "."
        matches = [(where, 0, line) for line in lines]
    cap = limits.MAX_REPLAYED_MATCHES
    return NativeOutcome.done(text, matches=tuple(matches[:cap]), truncated=len(matches) > cap)


def _grep_counts(call: NativeCall, text: str) -> agent_pb2.GrepResult | None:
    """Return the host's grep count TEXT (``file:count`` lines) as a GrepResult, or None.

    A count stays a number: one entry per file, never a match per count (a 16-byte
    line ``big.log:20000000`` must not become millions of entries). Counts past
    protobuf's int32 are clamped to it; at most ``limits.MAX_REPLAYED_MATCHES`` files.
    None when no line is in that shape (the lines are then kept as matches' text).
    """
    counts: list[tuple[str, int]] = []
    for line in text.splitlines():
        found = _COUNT_LINE.match(line)
        if found:
            counts.append((found.group(1), min(int(found.group(2)), _INT32_MAX)))
    if not counts:
        return None
    cap = limits.MAX_REPLAYED_MATCHES
    result = agent_pb2.GrepResult()
    success = result.success
    success.pattern = call.pattern
    success.path = call.path
    success.output_mode = "count"
    union = success.workspace_results[call.path or "."]
    for file, count in counts[:cap]:
        union.count.counts.add(file=file, count=count)
    union.count.total_files = min(len(counts), cap)
    union.count.total_matches = min(sum(count for _, count in counts[:cap]), _INT32_MAX)
    union.count.client_truncated = len(counts) > cap
    return result


def replay_step(item: Bridged, text: str, failed: bool) -> bytes:
    """Return the ConversationStep bytes of ITEM completed with the host's result TEXT."""
    call, member = item.call, item.member
    tool = agent_pb2.ToolCall(tool_call_id=call.id)
    outcome = NativeOutcome("failed", text) if failed else NativeOutcome.done(text)
    if member == "read_args":
        read = tool.read_tool_call
        read.args.path = call.path
        if call.offset is not None:
            read.args.offset = call.offset
        if call.limit is not None:
            read.args.limit = call.limit
        if failed:
            read.result.error.error_message = text
        else:
            success = read.result.success
            success.content = text
            success.is_empty = not text
            success.total_lines = _lines(text)
            success.file_size = len(text.encode("utf-8"))
            success.path = call.path
    elif member in ("shell_args", "shell_stream_args", "mini_swe_agent_bash_args"):
        tool.shell_tool_call.args.ParseFromString(item.args)
        tool.shell_tool_call.result.CopyFrom(shell_result(call, outcome))
    elif member == "ls_args":
        tool.ls_tool_call.args.ParseFromString(item.args)
        tool.ls_tool_call.result.CopyFrom(ls_result(call, outcome))
    elif member == "grep_args":
        tool.grep_tool_call.args.ParseFromString(item.args)
        counted = None if failed or call.output_mode != "count" else _grep_counts(call, text)
        if counted is not None:
            tool.grep_tool_call.result.CopyFrom(counted)
        else:
            shaped = outcome if failed else _grep_outcome(call, text)
            tool.grep_tool_call.result.CopyFrom(grep_result(call, shaped))
    elif member == "write_args":
        # Cursor's steps have no write call of their own: a write is an edit of the file.
        edit = tool.edit_tool_call
        edit.args.path = call.path
        edit.args.stream_content = call.content
        if failed:
            edit.result.error.path = call.path
            edit.result.error.error = text
        else:
            edit.result.success.path = call.path
            edit.result.success.after_full_file_content = call.content
            edit.result.success.message = text
    elif member == "delete_args":
        tool.delete_tool_call.args.ParseFromString(item.args)
        result = tool.delete_tool_call.result
        if failed:
            result.error.path = call.path
            result.error.error = text
        else:
            result.success.path = call.path
            result.success.deleted_file = call.path
    else:
        pi = getattr(tool, member.replace("_args", "_tool_call"))
        pi.args.ParseFromString(item.args)
        if failed:
            pi.result.error.error = text
        else:
            pi.result.success.output = text
    step = agent_pb2.ConversationStep(tool_call=tool)
    data: bytes = step.SerializeToString(deterministic=True)
    return data
