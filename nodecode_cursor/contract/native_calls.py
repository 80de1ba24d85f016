"""Cursor's own tools run in place: the call the service asks the host to run, and its outcome.

A host that serves some of Cursor's native tools (read, ls, grep, glob, shell,
write, edit, delete) hands a ``NativeRunner`` to the round
(``rounds.RoundContext.run_native``); the lane awaits it with a ``NativeCall``
while the run waits and answers the service with the ``NativeOutcome``. This
module states their shapes only: turning an ask into a call and an outcome into
Cursor's typed result is the core's (``core/native.py``), and confining and
running the call is the host's.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Literal

__all__ = ["NATIVE_KINDS", "NativeCall", "NativeOutcome", "NativeRunner"]

# The kinds of native call a host may serve (``RoundContext.native_kinds``).
NATIVE_KINDS = frozenset({"read", "ls", "grep", "glob", "shell", "write", "edit", "delete"})


@dataclass(frozen=True, slots=True)
class NativeCall:
    """One of Cursor's own tools the service asks the client to run now, mid-run.

    ``kind`` is one of ``NATIVE_KINDS``; ``id`` the call's id (the service's tool call
    id). Which fields a kind reads:

    * ``read``: ``path``; ``offset`` (first line, 1-based) and ``limit`` (lines at
      most), each None for the whole file;
    * ``ls``: ``path`` (a folder); ``limit`` (entries at most) or None;
    * ``grep``: ``pattern`` (a regular expression), ``path`` (folder or file, "" for
      the working folder), ``glob`` (only files whose name matches) or None,
      ``case_insensitive``, ``output_mode`` (``content``, ``files_with_matches`` or
      ``count``), ``limit`` or None;
    * ``glob``: ``pattern`` (a glob such as ``*.py`` or ``src/**/*.ts``), ``path``
      (where to look, "" for the working folder), ``limit`` or None;
    * ``shell``: ``command``, ``cwd`` (the working folder the service named, else the
      round's), ``timeout`` (seconds) or None;
    * ``write``: ``path`` and ``content`` (the file's whole new text);
    * ``edit``: ``path`` and ``edits``, each (old text, new text), applied in order;
    * ``delete``: ``path``.

    Paths are as the service sent them: relative ones are to the round's cwd.
    """

    kind: str
    id: str
    path: str = ""
    offset: int | None = None
    limit: int | None = None
    pattern: str = ""
    glob: str | None = None
    case_insensitive: bool = False
    output_mode: str = "content"
    command: str = ""
    cwd: str = ""
    timeout: float | None = None
    content: str = ""
    edits: tuple[tuple[str, str], ...] = ()

    def arguments(self) -> dict[str, Any]:
        """Return the arguments KIND reads, as the JSON object the record shows."""
        fields: dict[str, tuple[str, ...]] = {
            "read": ("path", "offset", "limit"),
            "ls": ("path", "limit"),
            "grep": ("pattern", "path", "glob", "case_insensitive", "output_mode", "limit"),
            "glob": ("pattern", "path", "limit"),
            "shell": ("command", "cwd", "timeout"),
            "write": ("path", "content"),
            "edit": ("path", "edits"),
            "delete": ("path",),
        }
        out: dict[str, Any] = {}
        for name in fields.get(self.kind, ()):
            value = getattr(self, name)
            if value is None or value == () or (name == "case_insensitive" and not value):
                continue
            if name == "edits":
                value = [{"old_text": old, "new_text": new} for old, new in value]
            out[name] = value
        return out


@dataclass(frozen=True, slots=True)
class NativeOutcome:
    """What running a ``NativeCall`` came to: done, failed or refused.

    ``text`` is what the model reads: the result when done, the reason otherwise.
    A done outcome may carry the structured fields the typed result needs (the cell
    derives what is missing from ``text``):

    * ``read``: ``content`` (the lines returned), ``total_lines``, ``file_size``
      (bytes), ``truncated``;
    * ``ls``: ``entries`` (names, folders ending with ``/``), ``truncated``;
    * ``grep``: ``matches`` (path, line number, line), ``truncated``;
    * ``glob``: ``entries`` (paths), ``truncated``;
    * ``shell``: ``exit_code``, ``stdout``, ``stderr``, ``duration_ms``;
    * ``write``: ``file_size``; ``edit``: ``diff``;
    * ``delete``: ``file_size``, ``content`` (what the file held).

    ``refused`` is the person's or the policy's no (the call never ran); ``failed``
    is a call that ran and broke.
    """

    status: Literal["done", "failed", "refused"]
    text: str = ""
    content: str | None = None
    total_lines: int | None = None
    file_size: int | None = None
    truncated: bool = False
    entries: tuple[str, ...] = ()
    matches: tuple[tuple[str, int, str], ...] = ()
    exit_code: int | None = None
    stdout: str | None = None
    stderr: str = ""
    duration_ms: int = 0
    diff: str = ""

    @classmethod
    def done(cls, text: str, **fields: Any) -> NativeOutcome:
        """Return a done outcome with result TEXT and the structured FIELDS."""
        return cls("done", text, **fields)

    @classmethod
    def failed(cls, reason: str) -> NativeOutcome:
        """Return a failed outcome: the call ran and broke, for REASON."""
        return cls("failed", reason)

    @classmethod
    def refused(cls, reason: str) -> NativeOutcome:
        """Return a refused outcome: the person or the policy said no, for REASON."""
        return cls("refused", reason)


# Runs one native call while the run waits; cancelled when the round is.
NativeRunner = Callable[[NativeCall], Awaitable[NativeOutcome]]
