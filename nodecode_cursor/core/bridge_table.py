"""Which host tool takes a native ask, and how the ask's arguments become that tool's.

``BRIDGE_TABLE`` holds the conventions of the agents people use (Claude Code,
Codex CLI, opencode, pi-coding-agent, and tools named like Cursor's own): for
each kind of native ask (read, ls, grep, glob, shell, write, edit, delete), the
host tools that can do it, by name, and the translation of the ask into their
arguments, read off the tool's own schema properties (a path under the name the
tool gives it, an edit as Codex's ``apply_patch`` envelope, a read or a grep as a
shell command). ``unsafe_path`` says which asks no client tool is ever handed: a
path, folder or glob holding a control character. docs/protocol.md §6b prints
the table.

Pure. Choosing the row for an ask, checking the tool's schema takes the
arguments, and replaying the host's result are ``bridge.py``'s.
"""

from __future__ import annotations

import posixpath
import re
import shlex
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ..host import NativeCall

__all__ = ["BRIDGE_TABLE", "BridgeRule", "unsafe_path"]


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
