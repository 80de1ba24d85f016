"""The reference host's own tools (``--tools default``) and tools loaded from a file.

``HostTools`` is a small, safe set that gives the handoff real work to do:
``read_file``, ``list_directory``, ``search_files`` and ``run_command``, each
working inside one folder (the working directory). Reading outside it, and every
command, needs the person's say-so (``--yes``, or a confirmation asked each time).
Every result is bounded, since a tool result rides in every later request of the
conversation. ``FileTools`` holds OpenAI-style definitions loaded from a JSON file:
its calls are returned to the caller, never run.

The names avoid the tools Cursor's agent drives natively (``bash``, ``read``,
``write``, ``delete``, ``ls``, ``grep``, ``todo``), so the service never mistakes a
host tool for one of its own. Running a turn is ``refhost.py``'s job; this module
only answers one call at a time and never raises for a bad call: the model reads
the error text as the tool's result.
"""

from __future__ import annotations

import fnmatch
import json
import os
import re
import signal
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from . import limits as host_limits
from .errors import HostConfigError

__all__ = [
    "NATIVE_TOOL_NAMES",
    "FileTools",
    "HostTools",
    "ToolFailure",
    "Toolbox",
    "bound_output",
    "load_tool_file",
]

# The tools Cursor's agent drives itself; a host tool by one of these names would be
# taken for the native one.
NATIVE_TOOL_NAMES = frozenset({"bash", "read", "write", "delete", "ls", "grep", "todo"})

# Folders search_files and list_directory's callers rarely mean: version control,
# virtual environments, caches. Hidden folders are skipped by search as well.
_SKIPPED_DIRS = frozenset({"node_modules", "__pycache__", ".git", ".venv", "venv"})

Confirm = Callable[[str], bool]


def bound_output(text: str, limit: int = host_limits.TOOL_OUTPUT_CHARS) -> str:
    """Return TEXT cut to about LIMIT characters, keeping its head and tail."""
    if len(text) <= limit:
        return text
    head = text[: limit * 2 // 3]
    tail = text[-(limit // 3) :]
    elided = len(text) - len(head) - len(tail)
    return f"{head}\n… [{elided} characters elided] …\n{tail}"


def _function(
    name: str, description: str, properties: dict[str, Any], required: list[str]
) -> dict[str, Any]:
    """Return one OpenAI function tool definition."""
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": description,
            "parameters": {
                "type": "object",
                "properties": properties,
                "required": required,
                "additionalProperties": False,
            },
        },
    }


_DEFINITIONS: tuple[dict[str, Any], ...] = (
    _function(
        "read_file",
        "Read a text file in the working directory. Optionally only lines start_line..end_line "
        "(1-based, inclusive).",
        {
            "path": {
                "type": "string",
                "description": "File path, relative to the working directory",
            },
            "start_line": {"type": "integer", "minimum": 1},
            "end_line": {"type": "integer", "minimum": 1},
        },
        ["path"],
    ),
    _function(
        "list_directory",
        "List the entries of a folder in the working directory (folders end with '/').",
        {"path": {"type": "string", "description": "Folder path; default '.'"}},
        [],
    ),
    _function(
        "search_files",
        "Search the working tree for lines matching a regular expression; answers path:line: text.",
        {
            "pattern": {"type": "string", "description": "A Python regular expression"},
            "path": {"type": "string", "description": "Folder or file to search; default '.'"},
            "include": {"type": "string", "description": "Only file names matching this glob"},
        },
        ["pattern"],
    ),
    _function(
        "run_command",
        "Run a shell command in the working directory and return its exit code and output. "
        "The person confirms each command.",
        {
            "command": {"type": "string"},
            "timeout": {"type": "number", "description": "Seconds before the command is stopped"},
        },
        ["command"],
    ),
)


class Toolbox:
    """What the turn loop asks of a tool set: its definitions, and whether it runs a call."""

    def definitions(self) -> list[dict[str, Any]]:
        """Return the OpenAI function tools offered to the model."""
        return []

    def runs(self, name: str) -> bool:
        """Return whether the host runs calls to NAME (else they are returned unrun)."""
        return False

    def run(self, name: str, arguments: str) -> str:
        """Return the result text of one call."""
        raise HostConfigError(f"the host does not run the tool {name!r}")


class HostTools(Toolbox):
    """The default tools, working inside ROOT."""

    def __init__(
        self,
        root: Path | str,
        *,
        assume_yes: bool = False,
        confirm: Confirm | None = None,
        command_timeout: float = host_limits.COMMAND_TIMEOUT_SECONDS,
    ) -> None:
        self.root = Path(root).resolve()
        self.assume_yes = assume_yes
        # None means nobody can be asked (not a terminal): commands are refused.
        self.confirm = confirm
        self.command_timeout = command_timeout

    def definitions(self) -> list[dict[str, Any]]:
        """Return the four tools' definitions (fresh copies)."""
        return json.loads(json.dumps(list(_DEFINITIONS)))  # type: ignore[no-any-return]

    def runs(self, name: str) -> bool:
        """Return whether NAME is one of the default tools."""
        return name in {"read_file", "list_directory", "search_files", "run_command"}

    def run(self, name: str, arguments: str) -> str:
        """Return the result of calling NAME with ARGUMENTS (JSON text); errors as text."""
        try:
            args = json.loads(arguments or "{}")
        except json.JSONDecodeError as exc:
            return ToolFailure(f"error: the arguments are not JSON ({exc.msg} at {exc.pos})")
        except (ValueError, RecursionError) as exc:  # past the digit limit, or too deep
            return ToolFailure(f"error: the arguments cannot be read ({type(exc).__name__})")
        if not isinstance(args, dict):
            return ToolFailure("error: the arguments are not a JSON object")
        try:
            if name == "read_file":
                text = self.read_file(args)
            elif name == "list_directory":
                text = self.list_directory(args)
            elif name == "search_files":
                text = self.search_files(args)
            elif name == "run_command":
                text = self.run_command(args)
            else:
                return ToolFailure(f"error: unknown tool {name!r}")
        except ToolRefused as exc:
            return ToolFailure(f"error: {exc}")
        except OSError as exc:
            where = f": {exc.filename}" if exc.filename else ""
            return ToolFailure(f"error: {exc.strerror or exc}{where}")
        return bound_output(text)

    # Paths -------------------------------------------------------------------------------

    def _path(self, raw: Any, *, default: str | None = None) -> Path:
        """Return RAW resolved against the root; refuse one outside it unless assume_yes."""
        if raw is None and default is not None:
            raw = default
        if not isinstance(raw, str) or not raw:
            raise ToolRefused("path must be a non-empty string")
        path = (self.root / Path(raw).expanduser()).resolve()
        if not self.assume_yes and not path.is_relative_to(self.root):
            raise ToolRefused(
                f"{raw} is outside the working directory {self.root} (the host allows that "
                "only with --yes)"
            )
        return path

    def _shown(self, path: Path) -> str:
        """Return PATH as the model should see it: relative to the root when inside it."""
        return str(path.relative_to(self.root)) if path.is_relative_to(self.root) else str(path)

    # Tools -------------------------------------------------------------------------------

    def read_file(self, args: dict[str, Any]) -> str:
        """Return the file's text, or the asked line range of it."""
        path = self._path(args.get("path"))
        if path.is_dir():
            raise ToolRefused(f"{self._shown(path)} is a folder; use list_directory")
        data = path.read_bytes()
        if b"\0" in data[:8192]:
            return f"{self._shown(path)} is a binary file of {len(data)} bytes"
        text = data.decode("utf-8", errors="replace")
        start, end = args.get("start_line"), args.get("end_line")
        if start is None and end is None:
            return text
        for value, label in ((start, "start_line"), (end, "end_line")):
            if value is not None and (not isinstance(value, int) or value < 1):
                raise ToolRefused(f"{label} must be a positive integer")
        lines = text.splitlines(keepends=True)
        first = (start or 1) - 1
        last = end or len(lines)
        if first >= len(lines):
            return f"{self._shown(path)} has only {len(lines)} lines"
        return "".join(lines[first:last])

    def list_directory(self, args: dict[str, Any]) -> str:
        """Return the folder's entries, one a line, folders ending with '/'."""
        path = self._path(args.get("path"), default=".")
        entries = sorted(path.iterdir(), key=lambda p: p.name)
        shown = [e.name + ("/" if e.is_dir() else "") for e in entries]
        more = len(shown) - host_limits.LIST_MAX_ENTRIES
        shown = shown[: host_limits.LIST_MAX_ENTRIES]
        if more > 0:
            shown.append(f"… and {more} more")
        return "\n".join(shown) if shown else f"{self._shown(path)} is empty"

    def search_files(self, args: dict[str, Any]) -> str:
        """Return the matching lines as path:line: text, at most HOST_SEARCH_MAX_MATCHES."""
        pattern = args.get("pattern")
        if not isinstance(pattern, str) or not pattern:
            raise ToolRefused("pattern must be a non-empty string")
        try:
            regex = re.compile(pattern)
        except re.error as exc:
            raise ToolRefused(f"bad regular expression: {exc}") from None
        include = args.get("include")
        if include is not None and not isinstance(include, str):
            raise ToolRefused("include must be a glob string")
        base = self._path(args.get("path"), default=".")
        found: list[str] = []
        # A link inside the folder can point anywhere: without --yes, search only what
        # read_file would read.
        for file in _walk(base, None if self.assume_yes else self.root):
            if include and not fnmatch.fnmatch(file.name, include):
                continue
            for number, line in _matching_lines(file, regex):
                found.append(f"{self._shown(file)}:{number}: {line[:400]}")
                if len(found) >= host_limits.SEARCH_MAX_MATCHES:
                    found.append(f"… stopped at {host_limits.SEARCH_MAX_MATCHES} matches")
                    return "\n".join(found)
        return "\n".join(found) if found else "no matches"

    def run_command(self, args: dict[str, Any]) -> str:
        """Return the command's exit code and output, after the person allowed it."""
        command = args.get("command")
        if not isinstance(command, str) or not command.strip():
            raise ToolRefused("command must be a non-empty string")
        timeout = args.get("timeout", self.command_timeout)
        if not isinstance(timeout, int | float) or timeout <= 0:
            timeout = self.command_timeout
        timeout = min(float(timeout), host_limits.COMMAND_MAX_TIMEOUT_SECONDS)
        if not self.assume_yes:
            if self.confirm is None:
                raise ToolRefused(
                    "run_command needs the person's confirmation and nobody can be asked "
                    "(run with --yes to allow commands)"
                )
            if not self.confirm(command):
                raise ToolRefused("the person declined to run this command")
        return _run_shell(command, self.root, timeout)

    # Writing: Cursor's own write, edit and delete, run in place (native_tools.py asks the
    # person first). Confined exactly as the readers are; never offered as host tools.

    def write_file(self, args: dict[str, Any]) -> str:
        """Return what was written: the file at path now holds content (folders made)."""
        path = self._path(args.get("path"))
        content = args.get("content")
        if not isinstance(content, str):
            raise ToolRefused("content must be a string")
        if path.is_dir():
            raise ToolRefused(f"{self._shown(path)} is a folder")
        path.parent.mkdir(parents=True, exist_ok=True)
        data = content.encode("utf-8")
        path.write_bytes(data)
        return f"wrote {len(data)} bytes to {self._shown(path)}"

    def edit_file(self, args: dict[str, Any]) -> str:
        """Return what changed: each old text (found exactly once) replaced by its new text."""
        path = self._path(args.get("path"))
        edits = args.get("edits")
        if not isinstance(edits, list) or not edits:
            raise ToolRefused("edits must be a non-empty list of {old_text, new_text}")
        text = path.read_text("utf-8")
        for index, edit in enumerate(edits, 1):
            old = edit.get("old_text") if isinstance(edit, dict) else None
            new = edit.get("new_text") if isinstance(edit, dict) else None
            if not isinstance(old, str) or not old or not isinstance(new, str):
                raise ToolRefused(f"edit {index} needs a non-empty old_text and a new_text")
            found = text.count(old)
            if found != 1:
                where = "is not in" if not found else f"occurs {found} times in"
                raise ToolRefused(f"edit {index}: its old_text {where} {self._shown(path)}")
            text = text.replace(old, new, 1)
        path.write_text(text, "utf-8")
        return f"edited {self._shown(path)} ({len(edits)} change{'s' if len(edits) > 1 else ''})"

    def delete_file(self, args: dict[str, Any]) -> str:
        """Return what was deleted: the file at path (never a folder)."""
        path = self._path(args.get("path"))
        if path.is_dir():
            raise ToolRefused(f"{self._shown(path)} is a folder; only files are deleted")
        size = path.stat().st_size
        path.unlink()
        return f"deleted {self._shown(path)} ({size} bytes)"


class ToolRefused(Exception):
    """A call the tool will not carry out; its text is the tool's result."""


class ToolFailure(str):
    """A tool's result text that says the call failed (refused, or an error while running).

    A ``str``, so it reads as any result; the turn loop marks its tool message
    ``"is_error": true`` (the host contract's failed result).
    """

    __slots__ = ()


def _walk(base: Path, root: Path | None = None) -> Iterator[Path]:
    """Yield the files under BASE (or BASE itself), skipping hidden and cache folders.

    With ROOT, a file or folder whose real path (links followed) is outside ROOT
    is skipped too.
    """

    def inside(path: Path) -> bool:
        return root is None or path.resolve().is_relative_to(root)

    if base.is_file():
        if inside(base):
            yield base
        return
    for folder, dirs, files in os.walk(base):
        dirs[:] = sorted(
            d
            for d in dirs
            if d not in _SKIPPED_DIRS and not d.startswith(".") and inside(Path(folder) / d)
        )
        for name in sorted(files):
            if inside(Path(folder) / name):
                yield Path(folder) / name


def _matching_lines(file: Path, regex: re.Pattern[str]) -> Iterator[tuple[int, str]]:
    """Yield (line number, line) of FILE's lines REGEX finds; nothing for big or binary files."""
    try:
        if file.stat().st_size > host_limits.SEARCH_MAX_FILE_BYTES:
            return
        data = file.read_bytes()
    except OSError:
        return
    if b"\0" in data[:8192]:
        return
    for number, line in enumerate(data.decode("utf-8", errors="replace").splitlines(), 1):
        if regex.search(line):
            yield number, line


def _run_shell(command: str, cwd: Path, timeout: float) -> str:
    """Return 'exit code N' and the output of COMMAND run by the shell in CWD."""
    # A session of its own lets a timeout (or Ctrl-C) stop the command's children too.
    process = subprocess.Popen(
        command,
        shell=True,
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        out, _ = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        _kill_group(process)
        out, _ = process.communicate()
        text = out.decode("utf-8", errors="replace")
        return bound_output(f"stopped after {timeout:g} s (timeout)\n{text}")
    except BaseException:
        _kill_group(process)
        process.communicate()
        raise
    text = out.decode("utf-8", errors="replace")
    return bound_output(f"exit code {process.returncode}\n{text}")


def _kill_group(process: subprocess.Popen[bytes]) -> None:
    """Stop PROCESS and everything it started."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        process.kill()


class FileTools(Toolbox):
    """Tool definitions loaded from a file: offered to the model, their calls returned unrun."""

    def __init__(self, tools: list[dict[str, Any]]) -> None:
        self.tools = tools

    def definitions(self) -> list[dict[str, Any]]:
        """Return the loaded definitions."""
        return list(self.tools)


def load_tool_file(path: Path | str) -> FileTools:
    """Return the OpenAI-style tools in the JSON file PATH; HostConfigError when it is not that."""
    where = Path(path)
    try:
        raw = json.loads(where.read_text("utf-8"))
    except OSError as exc:
        raise HostConfigError(
            f"cannot read the tools file {where}: {exc.strerror or exc}"
        ) from None
    except (ValueError, UnicodeDecodeError, RecursionError) as exc:
        raise HostConfigError(f"the tools file {where} is not JSON: {exc}") from None
    if isinstance(raw, dict) and isinstance(raw.get("tools"), list):
        raw = raw["tools"]
    if not isinstance(raw, list):
        raise HostConfigError(f"the tools file {where} must hold a JSON array of tools")
    tools: list[dict[str, Any]] = []
    for index, item in enumerate(raw):
        function = item.get("function") if isinstance(item, dict) else None
        if function is None and isinstance(item, dict) and "name" in item:
            function = item  # a bare function definition
        if not isinstance(function, dict) or not isinstance(function.get("name"), str):
            raise HostConfigError(f"the tools file {where}: entry {index} is not a function tool")
        tool: dict[str, Any] = {"name": function["name"]}
        if isinstance(function.get("description"), str):
            tool["description"] = function["description"]
        tool["parameters"] = function.get("parameters") or {"type": "object", "properties": {}}
        tools.append({"type": "function", "function": tool})
    return FileTools(tools)
