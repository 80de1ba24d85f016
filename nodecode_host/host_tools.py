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
``FileTools`` holds OpenAI-style definitions loaded from a JSON file: its calls
are returned to the caller, never run.

The names avoid the tools Cursor's agent drives natively (``bash``, ``read``,
``write``, ``delete``, ``ls``, ``grep``, ``todo``), so the service never mistakes a
host tool for one of its own. Running a turn is ``refhost.py``'s job; this module
only answers one call at a time and never raises for a bad call: the model reads
the error text as the tool's result.
"""

from __future__ import annotations

import contextlib
import errno
import fnmatch
import json
import os
import selectors
import signal
import stat
import subprocess
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import regex

from . import limits as host_limits
from .errors import HostConfigError
from .secret_places import SecretPlaces

__all__ = [
    "CHILD_SECRET_ENV",
    "NATIVE_TOOL_NAMES",
    "Change",
    "Deleted",
    "FileTools",
    "HostTools",
    "ToolFailure",
    "Toolbox",
    "bound_output",
    "load_tool_file",
]

# The names Cursor's agent drives itself; the cell offers a host tool by one of these
# under a wire name (nodecode_cursor/core/bridge.py), so ours avoid them for readability.
NATIVE_TOOL_NAMES = frozenset({"bash", "read", "write", "delete", "ls", "grep", "todo"})

# Folders search_files and list_directory's callers rarely mean: version control,
# virtual environments, caches. Hidden folders are skipped by search as well.
_SKIPPED_DIRS = frozenset({"node_modules", "__pycache__", ".git", ".venv", "venv"})

Confirm = Callable[[str], bool]
# (tool, path, why it is a secret place) -> whether the person allows this one call.
AllowSecret = Callable[[str, str, str], bool]

# Opening one name at a time without following links (POSIX; 0 where the OS has none).
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)

# The secrets the host itself is given, which no command the model runs may inherit.
CHILD_SECRET_ENV = frozenset({"CURSOR_ACCESS_TOKEN", "CURSOR_API_KEY", "NODECODE_SERVE_API_KEY"})


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
        with _open_regular(path, self._shown(path), self.secrets) as handle:
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
            return _line_range(handle, self._shown(path), start or 1, end, cap)

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
            for file in _walk(base, None if self.assume_yes else self.root, self.secrets):
                if include and not fnmatch.fnmatch(file.name, include):
                    continue
                for number, line in _matching_lines(file, compiled, deadline, self.secrets):
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
        return _run_shell(command, self.root, timeout)

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
        with _FolderOf(change, create=True) as folder:
            fd = _open_file(folder, change, os.O_WRONLY | os.O_CREAT)
            try:
                os.ftruncate(fd, 0)
                _write_all(fd, data)
            finally:
                os.close(fd)
        return f"wrote {len(data)} bytes to {change.shown}"

    def edit_file(self, args: dict[str, Any], change: Change | None = None) -> str:
        """Return what changed: each old text (found exactly once) replaced by its new text."""
        edits = args.get("edits")
        if not isinstance(edits, list) or not edits:
            raise ToolRefused("edits must be a non-empty list of {old_text, new_text}")
        change = self._planned(args, "edit", change)
        with _FolderOf(change, create=False) as folder:
            fd = _open_file(folder, change, os.O_RDWR)
            try:
                text = _read_all(fd).decode("utf-8")
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
                _write_all(fd, text.encode("utf-8"))
            finally:
                os.close(fd)
        return f"edited {change.shown} ({len(edits)} change{'s' if len(edits) > 1 else ''})"

    def delete_file(self, args: dict[str, Any], change: Change | None = None) -> str:
        """Return what was deleted: the file at path (never a folder; a link, not its target)."""
        return self.delete(self._planned(args, "delete", change)).text

    def delete(self, change: Change) -> Deleted:
        """Return what was deleted and what it held: the file, or the link, CHANGE names."""
        with _FolderOf(change, create=False) as folder:
            name = change.path.name
            info = os.stat(name, dir_fd=folder, follow_symlinks=False)
            if stat.S_ISDIR(info.st_mode):
                raise ToolRefused(f"{change.shown} is a folder; only files are deleted")
            before = ""
            if stat.S_ISREG(info.st_mode):
                fd = _open_file(folder, change, os.O_RDONLY)
                try:
                    before = _read_all(fd, host_limits.READ_FILE_MAX_BYTES).decode(
                        "utf-8", errors="replace"
                    )
                finally:
                    os.close(fd)
            # unlink never follows a link: a link is removed, its target stays.
            os.unlink(name, dir_fd=folder)
        what = "the link " if stat.S_ISLNK(info.st_mode) else ""
        size = 0 if stat.S_ISLNK(info.st_mode) else info.st_size
        return Deleted(f"deleted {what}{change.shown} ({size} bytes)", size, before)


@dataclass(frozen=True, slots=True)
class Change:
    """A write, edit or delete as it will be acted on: the path, as shown, and what to say.

    ``notes`` are said in the question (a link on the way, a link deleted); ``asks``
    is why it needs the person's yes even under --yes (outside the folder, ``.git/``).
    """

    kind: str
    path: Path
    shown: str
    notes: tuple[str, ...] = ()
    asks: str | None = None


@dataclass(frozen=True, slots=True)
class Deleted:
    """What a delete did: its line, the size removed and the text the file held."""

    text: str
    size: int
    before: str


class _FolderOf:
    """The folder a change acts in, opened from the top one name at a time, never through a link.

    Each step is ``openat`` with ``O_NOFOLLOW``: a folder on the way that became a
    link after the change was checked (a swap by a local user) stops the change
    instead of moving it. CREATE makes the missing folders (a write's).
    """

    def __init__(self, change: Change, *, create: bool) -> None:
        self.change = change
        self.create = create
        self.fd = -1

    def __enter__(self) -> int:
        parent = self.change.path.parent
        self.fd = os.open(parent.anchor, os.O_RDONLY | _DIRECTORY)
        for part in parent.relative_to(parent.anchor).parts:
            try:
                step = self._step(part)
            except BaseException:
                os.close(self.fd)
                raise
            os.close(self.fd)
            self.fd = step
        return self.fd

    def _step(self, part: str) -> int:
        """Return the folder PART under the open one, opened without following a link."""
        flags = os.O_RDONLY | _DIRECTORY | _NOFOLLOW
        try:
            return os.open(part, flags, dir_fd=self.fd)
        except FileNotFoundError:
            if not self.create:
                raise
            with contextlib.suppress(FileExistsError):
                os.mkdir(part, 0o777, dir_fd=self.fd)
            return self._step_made(part, flags)
        except OSError as exc:
            if exc.errno in (errno.ELOOP, errno.ENOTDIR):
                raise self._moved() from None
            raise

    def _step_made(self, part: str, flags: int) -> int:
        """Return the folder PART just made, opened without following a link."""
        try:
            return os.open(part, flags, dir_fd=self.fd)
        except OSError as exc:
            if exc.errno in (errno.ELOOP, errno.ENOTDIR):
                raise self._moved() from None
            raise

    def _moved(self) -> ToolRefused:
        """Return the refusal of a change whose folder became a link after it was checked."""
        return ToolRefused(
            f"a folder on the way to {self.change.shown} is a link now, not what was checked; "
            "nothing was changed"
        )

    def __exit__(self, *_: object) -> None:
        os.close(self.fd)


def _open_file(folder: int, change: Change, flags: int) -> int:
    """Return the change's file opened in FOLDER with FLAGS, never through a link.

    Non-blocking while opening, so a FIFO cannot hang it; anything but a regular
    file (a link swapped in, a FIFO, a device) is refused on what was opened.
    """
    name = change.path.name
    try:
        fd = os.open(name, flags | _NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, 0o666, dir_fd=folder)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise ToolRefused(
                f"{change.shown} is a link now, not the file that was checked; nothing was changed"
            ) from None
        if exc.errno == errno.EISDIR:
            raise ToolRefused(f"{change.shown} is a folder") from None
        if exc.errno == errno.ENXIO:
            raise ToolRefused(f"{change.shown} is not a regular file (a FIFO)") from None
        raise
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise ToolRefused(f"{change.shown} is not a regular file (a FIFO, device or socket)")
    os.set_blocking(fd, True)
    return fd


def _write_all(fd: int, data: bytes) -> None:
    """Write all of DATA to FD (os.write may take only part)."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _read_all(fd: int, cap: int | None = None) -> bytes:
    """Return what FD holds from its start (at most CAP bytes when given)."""
    chunks: list[bytes] = []
    size = 0
    while cap is None or size < cap:
        chunk = os.read(fd, 65536 if cap is None else min(65536, cap - size))
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)


class ToolRefused(Exception):
    """A call the tool will not carry out; its text is the tool's result."""


class ToolFailure(str):
    """A tool's result text that says the call failed (refused, or an error while running).

    A ``str``, so it reads as any result; the turn loop marks its tool message
    ``"is_error": true`` (the host contract's failed result).
    """

    __slots__ = ()


def _walk(
    base: Path, root: Path | None = None, secrets: SecretPlaces | None = None
) -> Iterator[Path]:
    """Yield the files under BASE (or BASE itself), skipping hidden and cache folders.

    With ROOT, a file or folder whose real path (links followed) is outside ROOT
    is skipped too; with SECRETS, so is one in a secret place.
    """

    def inside(path: Path) -> bool:
        if secrets is not None and secrets.why(path) is not None:
            return False
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


def _matching_lines(
    file: Path, compiled: regex.Pattern[str], deadline: float, secrets: SecretPlaces | None = None
) -> Iterator[tuple[int, str]]:
    """Yield (line number, line) of FILE's lines COMPILED finds; nothing for big, binary or
    special files. TimeoutError once DEADLINE (monotonic) passes, even mid-match."""
    try:
        with _open_regular(file, str(file), secrets) as handle:
            if os.fstat(handle.fileno()).st_size > host_limits.SEARCH_MAX_FILE_BYTES:
                return
            data = handle.read(host_limits.SEARCH_MAX_FILE_BYTES + 1)
    except (OSError, ToolRefused):
        return
    if b"\0" in data[:8192]:
        return
    for number, line in enumerate(data.decode("utf-8", errors="replace").splitlines(), 1):
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError
        if compiled.search(line, timeout=left):
            yield number, line


def _open_regular(path: Path, shown: str, secrets: SecretPlaces | None = None) -> IO[bytes]:
    """Return PATH open for reading in binary; ToolRefused when it is no regular file.

    A FIFO would block the open (and every read) for ever, and a device can be
    endless: both are refused, checked before opening and again on what was opened.
    With SECRETS, a hard link to a secret file is refused, whatever its name.
    """
    if not stat.S_ISREG(os.stat(path).st_mode):
        raise ToolRefused(f"{shown} is not a regular file (a FIFO, device or socket)")
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0))
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        raise ToolRefused(f"{shown} is not a regular file (a FIFO, device or socket)")
    why = secrets.hard_link_to(info) if secrets is not None else None
    if why is not None:
        os.close(fd)
        raise ToolRefused(
            f"{shown} is {why}: the host keeps its tools out of it (--yes does not open it)"
        )
    os.set_blocking(fd, True)
    return os.fdopen(fd, "rb")


def _line_range(handle: IO[bytes], shown: str, first: int, last: int | None, cap: int) -> str:
    """Return lines FIRST..LAST (1-based) of HANDLE, read as a stream, at most CAP bytes."""
    kept: list[bytes] = []
    size = 0
    number = 0
    more = False
    while last is None or number < last:
        piece = handle.readline(cap + 1)
        if not piece:
            break
        whole = piece.endswith(b"\n")
        while not whole and len(piece) > cap:  # a line longer than the cap: skip its rest
            rest = handle.readline(cap + 1)
            if not rest:
                break
            whole = rest.endswith(b"\n")
            piece = piece[:cap]
        number += 1
        if number < first:
            continue
        if size + len(piece) > cap:
            more = True
            break
        kept.append(piece)
        size += len(piece)
    if number < first:
        return f"{shown} has only {number} lines"
    text = b"".join(kept).decode("utf-8", errors="replace")
    if more:
        text += (
            f"\n… stopped at {cap} bytes, after line {first + len(kept) - 1}; ask for the "
            "next lines with start_line"
        )
    return text


def child_environment() -> dict[str, str]:
    """Return the host's environment without the secrets a command must not inherit."""
    return {k: v for k, v in os.environ.items() if k not in CHILD_SECRET_ENV}


class _HeadTail:
    """A stream's first HEAD and last TAIL bytes, and how many were dropped between."""

    def __init__(self, head: int, tail: int) -> None:
        self.head = bytearray()
        self.tail: deque[bytes] = deque()
        self.tail_size = 0
        self.dropped = 0
        self._head_room = head
        self._tail_room = tail

    def add(self, chunk: bytes) -> None:
        """Keep CHUNK's part that belongs to the head or the tail (returns nothing)."""
        room = self._head_room - len(self.head)
        if room > 0:
            self.head += chunk[:room]
            chunk = chunk[room:]
        if not chunk:
            return
        self.tail.append(chunk)
        self.tail_size += len(chunk)
        while self.tail_size - len(self.tail[0]) >= self._tail_room:
            self.dropped += len(self.tail[0])
            self.tail_size -= len(self.tail.popleft())
        extra = self.tail_size - self._tail_room
        if extra > 0:
            self.tail[0] = self.tail[0][extra:]
            self.tail_size -= extra
            self.dropped += extra

    def text(self) -> str:
        """Return what was kept, the dropped middle named."""
        head = bytes(self.head).decode("utf-8", errors="replace")
        tail = b"".join(self.tail).decode("utf-8", errors="replace")
        if self.dropped:
            return f"{head}\n… [{self.dropped} bytes of output dropped] …\n{tail}"
        return head + tail


def _run_shell(command: str, cwd: Path, timeout: float) -> str:
    """Return 'exit code N' and the output of COMMAND run by the shell in CWD.

    Output is read as it comes and only its head and tail are kept. At TIMEOUT the
    command's whole tree is killed and the host stops waiting, even when a child
    that left the session still holds the output open.
    """
    # A session of its own lets a timeout (or Ctrl-C) stop the command's children too.
    process = subprocess.Popen(
        command,
        shell=True,
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
        env=child_environment(),
    )
    assert process.stdout is not None
    output = _HeadTail(host_limits.COMMAND_OUTPUT_HEAD_BYTES, host_limits.COMMAND_OUTPUT_TAIL_BYTES)
    deadline = time.monotonic() + timeout
    pipe = os.fstat(process.stdout.fileno()).st_ino
    timed_out = False
    try:
        with selectors.DefaultSelector() as selector:
            selector.register(process.stdout, selectors.EVENT_READ)
            while True:
                left = deadline - time.monotonic()
                if left <= 0:
                    timed_out = True
                    break
                if selector.select(left):
                    chunk = os.read(process.stdout.fileno(), 65536)
                    if not chunk:
                        break
                    output.add(chunk)
        if not timed_out:
            try:
                process.wait(max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                timed_out = True
    except BaseException:
        _kill_tree(process, pipe)
        process.stdout.close()
        process.wait()
        raise
    if timed_out:
        _kill_tree(process, pipe)
    process.stdout.close()
    process.wait()
    if timed_out:
        return bound_output(f"stopped after {timeout:g} s (timeout)\n{output.text()}")
    return bound_output(f"exit code {process.returncode}\n{output.text()}")


def _kill_tree(process: subprocess.Popen[bytes], pipe: int) -> None:
    """Stop PROCESS and everything it started: its group, its session, and any process
    still holding its output pipe (one that called setsid has left both)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
    for pid in _tree_members(process.pid, pipe):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)
    with contextlib.suppress(ProcessLookupError):
        process.kill()


def _tree_members(leader: int, pipe: int) -> list[int]:
    """Return the processes (Linux /proc) in LEADER's session, below it, or holding PIPE."""
    proc = Path("/proc")
    if not proc.is_dir():
        return []
    parents: dict[int, int] = {}
    members: set[int] = set()
    me = os.getpid()
    for entry in proc.iterdir():
        if not (entry.name.isascii() and entry.name.isdigit()) or int(entry.name) == me:
            continue
        pid = int(entry.name)
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            parents[pid] = int(fields[1])
            if int(fields[3]) == leader:  # the session the command was started in
                members.add(pid)
            for fd in (entry / "fd").iterdir():
                if os.readlink(fd) == f"pipe:[{pipe}]":
                    members.add(pid)
                    break
        except (OSError, IndexError, ValueError):
            continue
    for pid in parents:  # descendants, through however many parents
        seen: set[int] = set()
        parent = parents.get(pid)
        while parent is not None and parent not in seen and parent > 1:
            if parent == leader:
                members.add(pid)
                break
            seen.add(parent)
            parent = parents.get(parent)
    return sorted(members)


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
