"""The reference host's own tools (``--tools default``) and tools loaded from a file.

``HostTools`` is a small, safe set that gives the handoff real work to do:
``read_file``, ``list_directory``, ``search_files`` and ``run_command``, each
working inside one folder (the working directory). Reading outside it, and every
command, needs the person's say-so (``--yes``, or a confirmation asked each time).
The host's home and the places credentials are kept (``secret_places.py``) are
refused even inside the folder unless the person allows that one call; ``--yes``
does not open them. Every result is bounded, since a tool result rides in every
later request of the conversation, and so is what the host holds while it works:
reads are capped, command output is kept as a head and a tail while it streams,
a command's whole process tree is stopped at its timeout, and a search has a
budget of seconds. Special files (FIFOs, devices) are refused, never opened to
wait on. Commands run without the host's own secrets in their environment.

The names avoid the tools Cursor's agent drives natively (``bash``, ``read``,
``write``, ``delete``, ``ls``, ``grep``, ``todo``), so the service never mistakes a
host tool for one of its own. Running a turn is ``turn.py``'s job; this module
only answers one call at a time and never raises for a bad call: the model reads
the error text as the tool's result.

What a tool set is to the turn loop, and tools loaded from a file, are
``toolbox.py``'s; opening, reading and writing files safely is ``tool_files.py``'s;
running a command and stopping its tree is ``tool_shell.py``'s.
"""

from __future__ import annotations

import fnmatch
import json
import os
import stat
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import regex

from . import limits as host_limits
from .secret_places import SecretPlaces
from .tool_files import (
    Change,
    Deleted,
    FolderOf,
    line_range,
    matching_lines,
    open_file,
    open_regular,
    read_all,
    walk,
    write_all,
)
from .tool_shell import run_shell
from .toolbox import Toolbox, ToolFailure, ToolRefused, bound_output, load_tool_file

__all__ = [
    "NATIVE_TOOL_NAMES",
    "HostTools",
    # Re-exported for cli_ask.py, which imports them from here (its own home is toolbox.py).
    "Toolbox",
    "load_tool_file",
]


# The names Cursor's agent drives itself; the cell offers a host tool by one of these
# under a wire name (nodecode_cursor/core/bridge.py), so ours avoid them for readability.
NATIVE_TOOL_NAMES = frozenset({"bash", "read", "write", "delete", "ls", "grep", "todo"})


Confirm = Callable[[str], bool]
# (tool, path, why it is a secret place) -> whether the person allows this one call.
AllowSecret = Callable[[str, str, str], bool]


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
        f"(1-based, inclusive). A whole file is read only up to "
        f"{host_limits.READ_FILE_MAX_BYTES // 1024} KiB; read a bigger one by line ranges.",
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
            "pattern": {
                "type": "string",
                "description": "A Python regular expression; the search stops after "
                f"{host_limits.SEARCH_BUDGET_SECONDS:g} s",
            },
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


class HostTools(Toolbox):
    """The default tools, working inside ROOT."""

    def __init__(
        self,
        root: Path | str,
        *,
        assume_yes: bool = False,
        confirm: Confirm | None = None,
        allow_secret: AllowSecret | None = None,
        secrets: SecretPlaces | None = None,
        command_timeout: float = host_limits.COMMAND_TIMEOUT_SECONDS,
    ) -> None:
        self.root = Path(root).resolve()
        self.assume_yes = assume_yes
        # None means nobody can be asked (not a terminal): commands are refused.
        self.confirm = confirm
        # Asked before a tool reaches a secret place; None (nobody to ask) refuses.
        self.allow_secret = allow_secret
        # Working in the home itself, every dot-path of it counts as a secret place.
        self.secrets = (secrets if secrets is not None else SecretPlaces.standard()).for_root(
            self.root
        )
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
        except ValueError as exc:  # a path the OS cannot take, whatever slipped past the checks
            return ToolFailure(f"error: {exc}")
        except OSError as exc:
            where = f": {exc.filename}" if exc.filename else ""
            return ToolFailure(f"error: {exc.strerror or exc}{where}")
        return bound_output(text)

    # Paths -------------------------------------------------------------------------------

    def _path(self, raw: Any, tool: str, *, default: str | None = None) -> Path:
        """Return RAW resolved against the root; refuse one outside it unless assume_yes.

        A secret place is refused unless the person allows this call (asked each time;
        --yes does not open it).
        """
        if raw is None and default is not None:
            raw = default
        if not isinstance(raw, str) or not raw:
            raise ToolRefused("path must be a non-empty string")
        if "\0" in raw:
            raise ToolRefused("path holds a NUL character, which no file name can")
        written = self.root / Path(raw).expanduser()
        path = written.resolve()
        if not self.assume_yes and not path.is_relative_to(self.root):
            raise ToolRefused(
                f"{raw} is outside the working directory {self.root} (the host allows that "
                "only with --yes)"
            )
        why = self.secrets.why(written)
        if why is not None and not (
            self.allow_secret is not None and self.allow_secret(tool, str(path), why)
        ):
            raise ToolRefused(
                f"{raw} is in {why}: the host keeps its tools out of it unless the person "
                "allows that call when asked (--yes does not)"
            )
        return path

    def _shown(self, path: Path) -> str:
        """Return PATH as the model should see it: relative to the root when inside it."""
        return str(path.relative_to(self.root)) if path.is_relative_to(self.root) else str(path)

    # Tools -------------------------------------------------------------------------------

    def read_file(self, args: dict[str, Any]) -> str:
        """Return the file's text, or the asked line range of it (at most READ_FILE_MAX_BYTES)."""
        path = self._path(args.get("path"), "read_file")
        if path.is_dir():
            raise ToolRefused(f"{self._shown(path)} is a folder; use list_directory")
        start, end = args.get("start_line"), args.get("end_line")
        for value, label in ((start, "start_line"), (end, "end_line")):
            if value is not None and (
                not isinstance(value, int) or isinstance(value, bool) or value < 1
            ):
                raise ToolRefused(f"{label} must be a positive integer")
        cap = host_limits.READ_FILE_MAX_BYTES
        with open_regular(path, self._shown(path), self.secrets) as handle:
            size = os.fstat(handle.fileno()).st_size
            if b"\0" in handle.read(8192):
                return f"{self._shown(path)} is a binary file of {size} bytes"
            handle.seek(0)
            if start is None and end is None:
                data = handle.read(cap + 1)
                if len(data) > cap:
                    raise ToolRefused(
                        f"{self._shown(path)} is {size} bytes, more than read_file returns at "
                        f"once ({cap} bytes); read it a part at a time with start_line and "
                        "end_line"
                    )
                return data.decode("utf-8", errors="replace")
            return line_range(handle, self._shown(path), start or 1, end, cap)

    def list_directory(self, args: dict[str, Any]) -> str:
        """Return the folder's entries, one a line, folders ending with '/'."""
        path = self._path(args.get("path"), "list_directory", default=".")
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
            compiled = regex.compile(pattern)
        except (regex.error, ValueError, OverflowError) as exc:
            raise ToolRefused(f"bad regular expression: {exc}") from None
        include = args.get("include")
        if include is not None and not isinstance(include, str):
            raise ToolRefused("include must be a glob string")
        base = self._path(args.get("path"), "search_files", default=".")
        found: list[str] = []
        budget = host_limits.SEARCH_BUDGET_SECONDS
        deadline = time.monotonic() + budget
        # A link inside the folder can point anywhere: without --yes, search only what
        # read_file would read. Secret places are never searched.
        try:
            for file in walk(base, None if self.assume_yes else self.root, self.secrets):
                if include and not fnmatch.fnmatch(file.name, include):
                    continue
                for number, line in matching_lines(file, compiled, deadline, self.secrets):
                    found.append(f"{self._shown(file)}:{number}: {line[:400]}")
                    if len(found) >= host_limits.SEARCH_MAX_MATCHES:
                        found.append(f"… stopped at {host_limits.SEARCH_MAX_MATCHES} matches")
                        return "\n".join(found)
        except TimeoutError:
            found.append(
                f"… search stopped after {budget:g} s, its time budget (a regular expression "
                "that backtracks this much needs a simpler pattern, or a narrower path)"
            )
        return "\n".join(found) if found else "no matches"

    def run_command(self, args: dict[str, Any]) -> str:
        """Return the command's exit code and output, after the person allowed it."""
        command = args.get("command")
        if not isinstance(command, str) or not command.strip():
            raise ToolRefused("command must be a non-empty string")
        if "\0" in command:
            raise ToolRefused("command holds a NUL character, which no shell command can")
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
        return run_shell(command, self.root, timeout)

    # Writing: Cursor's own write, edit and delete, run in place (native_tools.py asks the
    # person first). Confined exactly as the readers are; never offered as host tools.

    def change(self, raw: Any, kind: str) -> Change:
        """Return what a write, edit or delete of RAW would act on, checked and described.

        The path acted on is the folder's real parent of RAW plus its last name: links
        on the way are followed (and said), a link at the last name never is (a write
        or edit refuses it; a delete removes the link itself). A secret place asks the
        person as for a read (``allow_secret``).
        """
        tool = f"{kind}_file"
        if not isinstance(raw, str) or not raw:
            raise ToolRefused("path must be a non-empty string")
        if "\0" in raw:
            raise ToolRefused("path holds a NUL character, which no file name can")
        written = self.root / Path(raw).expanduser()
        if written.name in ("", ".", ".."):
            raise ToolRefused(f"{raw} names a folder, not a file")
        path = written.parent.resolve() / written.name
        shown = self._shown(path)
        notes: list[str] = []
        if Path(os.path.normpath(written)) != path:
            notes.append(f"through a link: {raw} is {shown}")
        if path.is_symlink():
            target = os.readlink(path)
            if kind != "delete":
                raise ToolRefused(
                    f"{shown} is a link (to {target}); the host does not {kind} a file through "
                    "a link at its last step: name the file it points to instead"
                )
            notes.append(f"{shown} is a link to {target}: the link is removed, not its target")
        asks: str | None = None
        if not path.is_relative_to(self.root):
            asks = f"outside the working directory {self.root}"
        elif ".git" in path.relative_to(self.root).parts:
            asks = "inside .git/, where hooks and config run code"
        why = self.secrets.why(written) or self.secrets.why(path)
        if why is not None and not (
            self.allow_secret is not None and self.allow_secret(tool, str(path), why)
        ):
            raise ToolRefused(
                f"{raw} is in {why}: the host keeps its tools out of it unless the person "
                "allows that call when asked (--yes does not)"
            )
        return Change(kind, path, shown, tuple(notes), asks)

    def _planned(self, args: dict[str, Any], kind: str, change: Change | None) -> Change:
        """Return CHANGE, or the change ARGS ask for when it needs no question beyond --yes."""
        if change is not None:
            return change
        planned = self.change(args.get("path"), kind)
        if planned.asks is not None:
            raise ToolRefused(
                f"{planned.shown} is {planned.asks}: this needs the person's yes for the call"
            )
        return planned

    def write_file(self, args: dict[str, Any], change: Change | None = None) -> str:
        """Return what was written: the file at path now holds content (folders made)."""
        content = args.get("content")
        if not isinstance(content, str):
            raise ToolRefused("content must be a string")
        change = self._planned(args, "write", change)
        data = content.encode("utf-8")
        with FolderOf(change, create=True) as folder:
            fd = open_file(folder, change, os.O_WRONLY | os.O_CREAT)
            try:
                os.ftruncate(fd, 0)
                write_all(fd, data)
            finally:
                os.close(fd)
        return f"wrote {len(data)} bytes to {change.shown}"

    def edit_file(self, args: dict[str, Any], change: Change | None = None) -> str:
        """Return what changed: each old text (found exactly once) replaced by its new text."""
        edits = args.get("edits")
        if not isinstance(edits, list) or not edits:
            raise ToolRefused("edits must be a non-empty list of {old_text, new_text}")
        change = self._planned(args, "edit", change)
        with FolderOf(change, create=False) as folder:
            fd = open_file(folder, change, os.O_RDWR)
            try:
                text = read_all(fd).decode("utf-8")
                for index, edit in enumerate(edits, 1):
                    old = edit.get("old_text") if isinstance(edit, dict) else None
                    new = edit.get("new_text") if isinstance(edit, dict) else None
                    if not isinstance(old, str) or not old or not isinstance(new, str):
                        raise ToolRefused(f"edit {index} needs a non-empty old_text and a new_text")
                    found = text.count(old)
                    if found != 1:
                        where = "is not in" if not found else f"occurs {found} times in"
                        raise ToolRefused(f"edit {index}: its old_text {where} {change.shown}")
                    text = text.replace(old, new, 1)
                os.lseek(fd, 0, os.SEEK_SET)
                os.ftruncate(fd, 0)
                write_all(fd, text.encode("utf-8"))
            finally:
                os.close(fd)
        return f"edited {change.shown} ({len(edits)} change{'s' if len(edits) > 1 else ''})"

    def delete_file(self, args: dict[str, Any], change: Change | None = None) -> str:
        """Return what was deleted: the file at path (never a folder; a link, not its target)."""
        return self.delete(self._planned(args, "delete", change)).text

    def delete(self, change: Change) -> Deleted:
        """Return what was deleted and what it held: the file, or the link, CHANGE names."""
        with FolderOf(change, create=False) as folder:
            name = change.path.name
            info = os.stat(name, dir_fd=folder, follow_symlinks=False)
            if stat.S_ISDIR(info.st_mode):
                raise ToolRefused(f"{change.shown} is a folder; only files are deleted")
            before = ""
            if stat.S_ISREG(info.st_mode):
                fd = open_file(folder, change, os.O_RDONLY)
                try:
                    before = read_all(fd, host_limits.READ_FILE_MAX_BYTES).decode(
                        "utf-8", errors="replace"
                    )
                finally:
                    os.close(fd)
            # unlink never follows a link: a link is removed, its target stays.
            os.unlink(name, dir_fd=folder)
        what = "the link " if stat.S_ISLNK(info.st_mode) else ""
        size = 0 if stat.S_ISLNK(info.st_mode) else info.st_size
        return Deleted(f"deleted {what}{change.shown} ({size} bytes)", size, before)
