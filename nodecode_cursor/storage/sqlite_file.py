"""One small SQLite file of ours under the host's home: made 0600, marked ours, set aside when bad.

``SqliteFile`` is what the cell's on-disk tables share (``writer_store.py``,
``conversation_store.py``): each piece of work runs on a fresh connection in one
call (a write is one transaction, so it is atomic, and SQLite's own locking lets
two processes sharing the home use the file at once); before SQLite opens it by
path (and would follow a link there), the file is made or opened without
following links, checked to be a regular file of the user's and tightened to
mode 0600, and its side files (``-journal``, ``-wal``, ``-shm``) likewise: a link
or anything else is refused, logged in words, the work not run; SQLite's
``application_id`` marks it as ours, so a file that is not ours — corrupt, or
another program's database — is renamed ``….corrupt-<time>`` and a fresh one
started; a file that stays locked past the
busy timeout is skipped. Nothing here ever raises: a piece of work that could
not run returns None, and the caller decides what an unknown means.

What the tables hold and when they are written is their modules' business.
"""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import sqlite3
import stat
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

__all__ = ["Rows", "SqliteFile"]

log = logging.getLogger("nodecode_cursor.storage.sqlite_file")

Rows = list[tuple[Any, ...]]


class SqliteFile:
    """A SQLite file marked with APPLICATION_ID whose tables SCHEMA makes on first use."""

    __slots__ = ("_seen", "application_id", "busy_timeout", "label", "path", "schema")

    def __init__(
        self,
        path: Path,
        *,
        application_id: int,
        schema: tuple[str, ...],
        busy_timeout: float,
        label: str,
    ) -> None:
        self.path = path
        self.application_id = application_id
        self.schema = schema
        self.busy_timeout = busy_timeout
        self.label = label  # what the log calls the file ("the writer table")
        self._seen: tuple[int, int] | None = None  # (mtime_ns, size) at the last use

    def exists(self) -> bool:
        """Return whether the file is there."""
        return self.path.exists()

    def changed(self) -> bool:
        """Return whether the file changed since this object last read or wrote it."""
        return self._stat() != self._seen

    def attempt(
        self, work: Callable[[sqlite3.Connection], Iterable[tuple[Any, ...]]]
    ) -> Rows | None:
        """Return WORK's rows on a fresh connection, or None when it could not run.

        A foreign or corrupt file is set aside once and WORK tried on a fresh one.
        """
        for attempt in range(2):
            try:
                with self._connection() as db:
                    rows = list(work(db))
                self._seen = self._stat()
                return rows
            except _Foreign as exc:
                self._set_aside(str(exc))
            except _Unsafe as exc:
                log.warning("%s not used: %s", self.label, exc)
                return None
            except sqlite3.DatabaseError as exc:
                if _busy(exc):
                    log.debug("%s busy; skipped: %s", self.label, exc)
                    return None
                if attempt:
                    break
                self._set_aside(f"unreadable ({exc})")
            except (sqlite3.Error, OSError) as exc:
                log.debug("%s unavailable: %s", self.label, exc)
                return None
        return None

    def _stat(self) -> tuple[int, int] | None:
        """Return the file's (mtime_ns, size), or None when it is not there."""
        try:
            status = self.path.stat()
        except OSError:
            return None
        return (status.st_mtime_ns, status.st_size)

    @contextlib.contextmanager
    def _connection(self) -> Iterator[sqlite3.Connection]:
        """Yield a connection to our tables, made when missing; _Foreign for another's file."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        _own_file(self.path, create=True)
        for suffix in _SIDE_FILES:
            _own_file(self.path.with_name(self.path.name + suffix), create=False)
        db = sqlite3.connect(self.path, timeout=self.busy_timeout, isolation_level=None)
        try:
            db.execute("PRAGMA synchronous = NORMAL")
            found = db.execute("PRAGMA application_id").fetchone()[0]
            if found == 0:
                tables = db.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
                if tables:
                    raise _Foreign("another program's database")
                db.execute("BEGIN IMMEDIATE")
                for statement in self.schema:
                    db.execute(statement)
                db.execute(f"PRAGMA application_id = {int(self.application_id)}")
                db.execute("COMMIT")
            elif found != self.application_id:
                raise _Foreign("another program's database")
            yield db
        finally:
            db.close()

    def _set_aside(self, why: str) -> None:
        """Rename the file out of the way (a fresh one is made on the next use)."""
        aside = self.path.with_name(f"{self.path.name}.corrupt-{int(time.time() * 1000)}")
        try:
            os.replace(self.path, aside)
        except OSError as exc:
            log.debug("could not set %s aside: %s", self.label, exc)
            return
        log.warning("%s %s was %s; set aside as %s", self.label, self.path, why, aside.name)


class _Foreign(Exception):
    """The file is a database, but not ours."""


class _Unsafe(Exception):
    """The path is a link, not a regular file, or another user's: SQLite must not open it."""


# The files SQLite keeps beside the database (rollback journal, write-ahead log, its index).
_SIDE_FILES = ("-journal", "-wal", "-shm")
# Opened to be checked, never to wait: O_NONBLOCK keeps a FIFO planted there from blocking.
_CHECK_FLAGS = os.O_RDWR | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC


def _own_file(path: Path, *, create: bool) -> None:
    """Make sure PATH is a regular file of this user's, mode 0600 (made when CREATE); else _Unsafe.

    Opened without following a link (``O_NOFOLLOW``) and checked on the open file
    (``fstat``), so what is checked is what is there. A side file that is absent
    is fine: SQLite makes it with the database's mode, now 0600.
    """
    flags = _CHECK_FLAGS | (os.O_CREAT if create else 0)
    try:
        fd = os.open(path, flags, 0o600)
    except FileNotFoundError:
        if create:
            raise
        return
    except OSError as exc:
        if os.path.islink(path):
            raise _Unsafe(
                f"{path} is a link; remove it (a store is never opened through one)"
            ) from None
        if exc.errno in (errno.ENXIO, errno.EISDIR):
            raise _Unsafe(f"{path} is not a regular file") from None
        raise
    try:
        status = os.fstat(fd)
        if not stat.S_ISREG(status.st_mode):
            raise _Unsafe(f"{path} is not a regular file")
        if status.st_uid != os.geteuid():
            raise _Unsafe(f"{path} belongs to another user (uid {status.st_uid})")
        if stat.S_IMODE(status.st_mode) != 0o600:
            os.fchmod(fd, 0o600)  # what it holds is this person's alone
    finally:
        os.close(fd)


def _busy(exc: sqlite3.Error) -> bool:
    """Return whether EXC is SQLite saying another connection holds the file (busy or locked).

    By the result code (its primary part: an extended code such as
    SQLITE_BUSY_SNAPSHOT keeps it in the low byte), never by the message.
    """
    return exc.sqlite_errorcode & 0xFF in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)
