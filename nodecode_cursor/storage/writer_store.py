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
lane's; ``state.py`` opens one of these for a cell started with a home. The file's
handling (made 0600, marked ours, set aside when bad) is ``sqlite_file.py``'s.
"""

from __future__ import annotations

import sqlite3
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

    __slots__ = ("_file", "limit", "path")

    def __init__(self, path: Path, limit: int = MAX_DISK_WRITERS) -> None:
        self.path = path
        self.limit = limit
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

        self._file.attempt(write)

    def changed(self) -> bool:
        """Return whether the file changed since this table last read or wrote it."""
        return self._file.changed()
