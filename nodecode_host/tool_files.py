"""Files as the host's tools touch them: confined, one name at a time, never a special file.

What the readers and writers of ``host_tools.py`` (and ``native_tools.py``) share
below the level of a tool call: a write, edit or delete described before it is
acted on (``Change``), its folder opened from the top one name at a time without
following a link (``FolderOf``), the file opened the same way (``open_file``),
a regular file opened for reading with FIFOs and devices refused and hard links
to secret files caught (``open_regular``), a line range read as a stream, and the
walk and per-file match of a search under its deadline.

Whether a path may be touched at all (inside the working folder, a secret place,
the person's say-so) is decided by ``host_tools.HostTools``; this module only
opens, reads and writes what it was handed, refusing with ``ToolRefused``.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO

import regex

from . import limits as host_limits
from .secret_places import SecretPlaces
from .toolbox import ToolRefused

__all__ = [
    "SKIPPED_DIRS",
    "Change",
    "Deleted",
    "FolderOf",
    "line_range",
    "matching_lines",
    "open_file",
    "open_regular",
    "read_all",
    "walk",
    "write_all",
]


# Folders search_files and list_directory's callers rarely mean: version control,
# virtual environments, caches. Hidden folders are skipped by search as well.
SKIPPED_DIRS = frozenset({"node_modules", "__pycache__", ".git", ".venv", "venv"})


# Opening one name at a time without following links (POSIX; 0 where the OS has none).
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)


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


class FolderOf:
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


def open_file(folder: int, change: Change, flags: int) -> int:
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


def write_all(fd: int, data: bytes) -> None:
    """Write all of DATA to FD (os.write may take only part)."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def read_all(fd: int, cap: int | None = None) -> bytes:
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


def walk(
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
            if d not in SKIPPED_DIRS and not d.startswith(".") and inside(Path(folder) / d)
        )
        for name in sorted(files):
            if inside(Path(folder) / name):
                yield Path(folder) / name


def matching_lines(
    file: Path, compiled: regex.Pattern[str], deadline: float, secrets: SecretPlaces | None = None
) -> Iterator[tuple[int, str]]:
    """Yield (line number, line) of FILE's lines COMPILED finds; nothing for big, binary or
    special files. TimeoutError once DEADLINE (monotonic) passes, even mid-match."""
    try:
        with open_regular(file, str(file), secrets) as handle:
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


def open_regular(path: Path, shown: str, secrets: SecretPlaces | None = None) -> IO[bytes]:
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


def line_range(handle: IO[bytes], shown: str, first: int, last: int | None, cap: int) -> str:
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
