"""The Kimi K3 writer table kept on disk under the host's home, so a restart forgets nothing.

``DiskWriters`` keeps round digest -> writer model in a small SQLite file
(``cursor-writers.sqlite``, mode 0600) from the standard library: every write is
one transaction, so it is atomic, and SQLite's own locking lets two processes
sharing the home write it without corrupting it. It holds at most ``limit``
rounds, dropping the oldest first. A file that is not ours — corrupt, or
another program's database — is set aside (renamed ``….corrupt-<time>``) and a
fresh one started; a file that stays locked past a short wait is skipped. None
of this ever fails a round: the worst case is a round whose writer is unknown,
which replays no thinking (``writers.py``'s rule).

What a writer means, and when a round is recorded, is ``writers.py``'s and the
lane's; ``state.py`` opens one of these for a cell started with a home.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sqlite3
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

__all__ = ["APPLICATION_ID", "FILE_NAME", "MAX_DISK_WRITERS", "DiskWriters"]

log = logging.getLogger("nodecode_cursor.writer_store")

FILE_NAME = "cursor-writers.sqlite"
# Rounds kept on disk: a digest and a model id are ~100 bytes, so this is ~2 MB at most,
# and covers months of K3 sessions.
MAX_DISK_WRITERS = 16_384
# SQLite's application_id marks the file as ours ("NCWT"); any other is a foreign file.
APPLICATION_ID = 0x4E435754
# How long a write waits for another process holding the file: a round must not stall.
BUSY_TIMEOUT_SECONDS = 0.5

_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS writers ("
    "id INTEGER PRIMARY KEY AUTOINCREMENT, digest TEXT NOT NULL UNIQUE, model TEXT NOT NULL)"
)


class DiskWriters:
    """Round digest -> writer model in a SQLite file, bounded, shared safely between processes."""

    __slots__ = ("_seen", "limit", "path")

    def __init__(self, path: Path, limit: int = MAX_DISK_WRITERS) -> None:
        self.path = path
        self.limit = limit
        self._seen: tuple[int, int] | None = None  # (mtime_ns, size) at the last read or write

    @classmethod
    def in_home(cls, home: Path) -> DiskWriters:
        """Return the table kept in the host's HOME."""
        return cls(Path(home) / FILE_NAME)

    def load(self) -> dict[str, str]:
        """Return every kept round's writer, oldest first (empty when the file cannot be read)."""
        if not self.path.exists():
            return {}
        rows = self._attempt(lambda db: db.execute("SELECT digest, model FROM writers ORDER BY id"))
        return {str(digest): str(model) for digest, model in rows or []}

    def put(self, digest: str, model: str) -> None:
        """Keep that MODEL wrote the round DIGEST, dropping the oldest past the limit."""

        def write(db: sqlite3.Connection) -> list[tuple[Any, ...]]:
            db.execute("BEGIN IMMEDIATE")
            db.execute("DELETE FROM writers WHERE digest = ?", (digest,))
            cursor = db.execute(
                "INSERT INTO writers (digest, model) VALUES (?, ?)", (digest, model)
            )
            newest = cursor.lastrowid or 0
            db.execute("DELETE FROM writers WHERE id <= ?", (newest - self.limit,))
            db.execute("COMMIT")
            return []

        self._attempt(write)

    def changed(self) -> bool:
        """Return whether the file changed since this table last read or wrote it."""
        return self._stat() != self._seen

    # The file ----------------------------------------------------------------------------

    def _stat(self) -> tuple[int, int] | None:
        """Return the file's (mtime_ns, size), or None when it is not there."""
        try:
            status = self.path.stat()
        except OSError:
            return None
        return (status.st_mtime_ns, status.st_size)

    def _attempt(
        self, work: Callable[[sqlite3.Connection], Iterable[tuple[Any, ...]]]
    ) -> list[tuple[Any, ...]] | None:
        """Return WORK's rows on a fresh connection; a foreign or corrupt file is set aside once."""
        for attempt in range(2):
            try:
                with self._connection() as db:
                    rows = list(work(db))
                self._seen = self._stat()
                return rows
            except _Foreign as exc:
                self._set_aside(str(exc))
            except sqlite3.DatabaseError as exc:
                if _busy(exc):
                    log.debug("writer table busy; skipped: %s", exc)
                    return None
                if attempt:
                    break
                self._set_aside(f"unreadable ({exc})")
            except (sqlite3.Error, OSError) as exc:
                log.debug("writer table unavailable: %s", exc)
                return None
        return None

    @contextlib.contextmanager
    def _connection(self) -> Iterator[sqlite3.Connection]:
        """Yield a connection to our table, made when missing; _Foreign for another's file."""
        if not self.path.exists():
            self.path.parent.mkdir(parents=True, exist_ok=True)
            # Made 0600 before SQLite opens it: the table says which models this person used.
            with contextlib.suppress(FileExistsError):
                os.close(os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
        db = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_SECONDS, isolation_level=None)
        try:
            db.execute("PRAGMA synchronous = NORMAL")
            found = db.execute("PRAGMA application_id").fetchone()[0]
            if found == 0:
                tables = db.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
                if tables:
                    raise _Foreign("another program's database")
                db.execute("BEGIN IMMEDIATE")
                db.execute(_SCHEMA)
                db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
                db.execute("COMMIT")
            elif found != APPLICATION_ID:
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
            log.debug("could not set the writer table aside: %s", exc)
            return
        log.warning("the writer table %s was %s; set aside as %s", self.path, why, aside.name)


class _Foreign(Exception):
    """The file is a database, but not our table."""


def _busy(exc: sqlite3.Error) -> bool:
    """Return whether EXC is SQLite saying another connection holds the file (busy or locked).

    By the result code (its primary part: an extended code such as
    SQLITE_BUSY_SNAPSHOT keeps it in the low byte), never by the message.
    """
    return exc.sqlite_errorcode & 0xFF in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)
