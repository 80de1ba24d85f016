"""The Kimi K3 writer table kept on disk under the host's home, so a restart forgets nothing.

``DiskWriters`` keeps round digest -> writer model in a small SQLite file
(``cursor-writers.sqlite``, mode 0600) from the standard library: every write is
one transaction, so it is atomic, and SQLite's own locking lets two processes
sharing the home write it without corrupting it; the rounds of one process that end
together share transactions (``DiskWriters.put``). It holds at most ``limit``
rounds, dropping the oldest first. A file that is not ours — corrupt, or
another program's database — is set aside (renamed ``….corrupt-<time>``) and a
fresh one started; a file that stays locked past a short wait is skipped. None
of this ever fails a round: the worst case is a round whose writer is unknown,
which replays no thinking (``writers.py``'s rule).

What a writer means, and when a round is recorded, is ``writers.py``'s and the
lane's; ``state.py`` opens one of these for a cell started with a home. The file's
handling (made 0600, marked ours, set aside when bad) is ``sqlite_file.py``'s.
"""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path
from typing import Any

from .sqlite_file import SqliteFile

__all__ = ["APPLICATION_ID", "FILE_NAME", "MAX_DISK_WRITERS", "DiskWriters"]

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

    __slots__ = (
        "_file",
        "_pending",
        "_queue_lock",
        "_queued",
        "_write_lock",
        "_written",
        "limit",
        "path",
    )

    def __init__(self, path: Path, limit: int = MAX_DISK_WRITERS) -> None:
        self.path = path
        self.limit = limit
        # Rows handed to put and not yet taken by a write; how many rows were ever handed
        # over, and how many of the first of them a write has taken (see put).
        self._pending: list[tuple[str, str]] = []
        self._queued = 0
        self._written = 0
        self._queue_lock = threading.Lock()
        self._write_lock = threading.Lock()
        self._file = SqliteFile(
            path,
            application_id=APPLICATION_ID,
            schema=(_SCHEMA,),
            busy_timeout=BUSY_TIMEOUT_SECONDS,
            label="the writer table",
        )

    @classmethod
    def in_home(cls, home: Path) -> DiskWriters:
        """Return the table kept in the host's HOME."""
        return cls(Path(home) / FILE_NAME)

    def load(self) -> dict[str, str]:
        """Return every kept round's writer, oldest first (empty when the file cannot be read)."""
        if not self._file.exists():
            return {}
        rows = self._file.attempt(
            lambda db: db.execute("SELECT digest, model FROM writers ORDER BY id")
        )
        return {str(digest): str(model) for digest, model in rows or []}

    def put(self, digest: str, model: str) -> None:
        """Keep that MODEL wrote the round DIGEST, dropping the oldest past the limit.

        Rounds ending together (``serve`` under load) each call this from a worker
        thread. The rows handed over while one write runs go together in the next
        one, whichever of their threads gets to write first (the others find theirs
        written and return), so a burst of rounds is a few transactions, not one each;
        a lone round's row is written at once, as before.
        """
        with self._queue_lock:
            self._pending.append((digest, model))
            self._queued += 1
            mine = self._queued
        with self._write_lock:
            if self._written >= mine:
                return  # another thread's write took this row
            with self._queue_lock:
                rows, self._pending = self._pending, []
                self._written = self._queued
            self._write(rows)

    def _write(self, rows: list[tuple[str, str]]) -> None:
        """Keep ROWS in one transaction, dropping the oldest past the limit."""

        def write(db: sqlite3.Connection) -> list[tuple[Any, ...]]:
            db.execute("BEGIN IMMEDIATE")
            newest = 0
            for digest, model in rows:
                db.execute("DELETE FROM writers WHERE digest = ?", (digest,))
                cursor = db.execute(
                    "INSERT INTO writers (digest, model) VALUES (?, ?)", (digest, model)
                )
                newest = cursor.lastrowid or newest
            db.execute("DELETE FROM writers WHERE id <= ?", (newest - self.limit,))
            db.execute("COMMIT")
            return []

        self._file.attempt(write)

    def changed(self) -> bool:
        """Return whether the file changed since this table last read or wrote it."""
        return self._file.changed()
