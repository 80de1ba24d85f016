"""What the service knows of each conversation, kept on disk so another process can go on with it.

``DiskConversations`` keeps ``continuity.Kept`` records in ``cursor-conversations.sqlite``
beside ``cursor-writers.sqlite`` in the host's home (made 0600, marked ours, a
bad file set aside: ``sqlite_file.py``): per conversation key (a digest of the
session id, or a sessionless conversation's first wire id) its current wire id,
whether the service has run it, the rotations spent, the rotation streak, the
session's history mark and whose account the wire id is (a digest); per handed-off
call (a digest of its id) the key of the conversation it came from; and per model
id the continuation shape and model fields a retry showed it takes
(``continuation.Learned``), so another process tries those first. No message
text, blob or checkpoint is written. Each write is one transaction, so two
processes sharing the home never lose each other's rows; at most ``limit``
conversations (and their owners) and ``limit * 4`` calls are kept, the least
recently written dropped first.

Blocking: the lane calls it from a worker thread, never on the event loop. A
file that cannot be used makes every lookup an unknown and every save a no-op:
the round then starts its conversation afresh with the whole history.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from pathlib import Path
from typing import Any, TypeVar

from ..core.continuation import Learned, ModelFields, Shape
from ..core.continuity import HistoryMark, Kept
from .sqlite_file import Rows, SqliteFile

__all__ = ["APPLICATION_ID", "FILE_NAME", "MAX_DISK_CONVERSATIONS", "DiskConversations"]

FILE_NAME = "cursor-conversations.sqlite"
_E = TypeVar("_E", Shape, ModelFields)
# A row is ~200 bytes: 4096 conversations and 16384 calls stay under ~5 MB.
MAX_DISK_CONVERSATIONS = 4096
# SQLite's application_id marks the file as ours ("NCCV"); any other is a foreign file.
APPLICATION_ID = 0x4E434356
# A save runs in a worker thread, so it may wait for another process a while; past
# this it is skipped (the next round writes again).
BUSY_TIMEOUT_SECONDS = 5.0

# Made on first use as well: a file an older version made has no such table.
_MODELS_TABLE = (
    "CREATE TABLE IF NOT EXISTS models ("
    "model TEXT PRIMARY KEY, shape TEXT, fields TEXT, written INTEGER NOT NULL)"
)

# Whose wire id each conversation's is (an account digest, accounts.py), by key. Made on
# first use as well: a file an older version made has no such table, and its rows have
# no owner (taken as the round's account: there was one).
_OWNERS_TABLE = (
    "CREATE TABLE IF NOT EXISTS owners ("
    "key TEXT PRIMARY KEY, account TEXT NOT NULL, written INTEGER NOT NULL)"
)

_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS conversations ("
    "key TEXT PRIMARY KEY, wire_id TEXT NOT NULL, ran INTEGER NOT NULL, "
    "rotations INTEGER NOT NULL, in_streak INTEGER NOT NULL, "
    "mark_count INTEGER, mark_digest TEXT, mark_reply TEXT, written INTEGER NOT NULL)",
    "CREATE INDEX IF NOT EXISTS conversations_written ON conversations (written)",
    "CREATE TABLE IF NOT EXISTS calls ("
    "call TEXT PRIMARY KEY, key TEXT NOT NULL, written INTEGER NOT NULL)",
    "CREATE INDEX IF NOT EXISTS calls_written ON calls (written)",
    _MODELS_TABLE,
    _OWNERS_TABLE,
    "CREATE TABLE IF NOT EXISTS clock (id INTEGER PRIMARY KEY CHECK (id = 1), now INTEGER)",
)

_COLUMNS = "key, wire_id, ran, rotations, in_streak, mark_count, mark_digest, mark_reply"
# What a lookup reads: the columns, then the owner (NULL when none was recorded).
_READ = f"{_COLUMNS}, (SELECT account FROM owners WHERE owners.key = conversations.key)"


def _kept(row: tuple[Any, ...]) -> Kept:
    """Return the record a conversations row holds."""
    key, wire_id, ran, rotations, in_streak, mark_count, mark_digest, mark_reply, owner = row
    mark = (
        HistoryMark(
            int(mark_count), str(mark_digest), None if mark_reply is None else str(mark_reply)
        )
        if mark_count is not None and mark_digest is not None
        else None
    )
    account = None if owner is None else str(owner)
    return Kept(str(key), str(wire_id), bool(ran), int(rotations), bool(in_streak), mark, account)


class DiskConversations:
    """Conversation records and handed-off calls in a SQLite file, shared safely by processes."""

    __slots__ = ("_file", "limit", "path")

    def __init__(self, path: Path, limit: int = MAX_DISK_CONVERSATIONS) -> None:
        self.path = path
        self.limit = limit
        self._file = SqliteFile(
            path,
            application_id=APPLICATION_ID,
            schema=_SCHEMA,
            busy_timeout=BUSY_TIMEOUT_SECONDS,
            label="the conversation table",
        )

    @classmethod
    def in_home(cls, home: Path) -> DiskConversations:
        """Return the table kept in the host's HOME."""
        return cls(Path(home) / FILE_NAME)

    def lookup(self, key: str | None, calls: Iterable[str]) -> tuple[Kept | None, Kept | None]:
        """Return (the record one of CALLS was handed off from, KEY's record), each or None."""
        wanted = list(calls)
        if not self._file.exists() or (key is None and not wanted):
            return None, None

        def read(db: sqlite3.Connection) -> Rows:
            db.execute(_OWNERS_TABLE)
            found: Rows = []
            for call in wanted:
                row = db.execute(
                    f"SELECT {_READ} FROM conversations WHERE key = "
                    "(SELECT key FROM calls WHERE call = ?)",
                    (call,),
                ).fetchone()
                if row is not None:
                    found.append(("call", *row))
                    break
            if key is not None:
                row = db.execute(
                    f"SELECT {_READ} FROM conversations WHERE key = ?", (key,)
                ).fetchone()
                if row is not None:
                    found.append(("own", *row))
            return found

        rows = self._file.attempt(read) or []
        by_call = next((_kept(row[1:]) for row in rows if row[0] == "call"), None)
        own = next((_kept(row[1:]) for row in rows if row[0] == "own"), None)
        return by_call, own

    def save(self, kept: Kept, calls: Iterable[str] = ()) -> None:
        """Keep KEPT, and that CALLS were handed off from it; drop the oldest past the limits."""
        handed = list(calls)
        mark = kept.mark

        def write(db: sqlite3.Connection) -> Rows:
            db.execute("BEGIN IMMEDIATE")
            # A counter of writes, not a clock: the order rows were written in.
            db.execute(
                "INSERT INTO clock (id, now) VALUES (1, 1) "
                "ON CONFLICT (id) DO UPDATE SET now = now + 1"
            )
            now = db.execute("SELECT now FROM clock WHERE id = 1").fetchone()[0]
            db.execute(
                "INSERT OR REPLACE INTO conversations "
                f"({_COLUMNS}, written) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    kept.key,
                    kept.wire_id,
                    int(kept.ran),
                    kept.rotations,
                    int(kept.in_streak),
                    None if mark is None else mark.count,
                    None if mark is None else mark.digest,
                    None if mark is None else mark.reply,
                    now,
                ),
            )
            db.execute(_OWNERS_TABLE)
            if kept.account is not None:
                db.execute(
                    "INSERT OR REPLACE INTO owners (key, account, written) VALUES (?, ?, ?)",
                    (kept.key, kept.account, now),
                )
            for call in handed:
                db.execute(
                    "INSERT OR REPLACE INTO calls (call, key, written) VALUES (?, ?, ?)",
                    (call, kept.key, now),
                )
            self._bound(db, "conversations", self.limit)
            self._bound(db, "owners", self.limit)
            self._bound(db, "calls", self.limit * 4)
            db.execute("COMMIT")
            return []

        self._file.attempt(write)

    def learned(self, model: str) -> Learned | None:
        """Return the shape and fields a retry showed MODEL takes, or None (unknown, unreadable)."""
        if not self._file.exists():
            return None

        def read(db: sqlite3.Connection) -> Rows:
            db.execute(_MODELS_TABLE)
            row = db.execute(
                "SELECT shape, fields FROM models WHERE model = ?", (model,)
            ).fetchone()
            return [] if row is None else [tuple(row)]

        rows = self._file.attempt(read) or []
        if not rows:
            return None
        shape, fields = rows[0]
        return Learned(
            shape=_member(Shape, shape),
            fields=_member(ModelFields, fields),
        )

    def learn(self, model: str, learned: Learned) -> None:
        """Keep LEARNED for MODEL; drop the oldest models past the limit."""

        def write(db: sqlite3.Connection) -> Rows:
            db.execute("BEGIN IMMEDIATE")
            db.execute(_MODELS_TABLE)
            db.execute(
                "INSERT INTO clock (id, now) VALUES (1, 1) "
                "ON CONFLICT (id) DO UPDATE SET now = now + 1"
            )
            now = db.execute("SELECT now FROM clock WHERE id = 1").fetchone()[0]
            db.execute(
                "INSERT OR REPLACE INTO models (model, shape, fields, written) VALUES (?, ?, ?, ?)",
                (
                    model,
                    None if learned.shape is None else learned.shape.value,
                    None if learned.fields is None else learned.fields.value,
                    now,
                ),
            )
            self._bound(db, "models", self.limit)
            db.execute("COMMIT")
            return []

        self._file.attempt(write)

    @staticmethod
    def _bound(db: sqlite3.Connection, table: str, limit: int) -> None:
        """Drop the least recently written rows of TABLE past LIMIT."""
        count = db.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
        if count > limit:
            db.execute(
                f"DELETE FROM {table} WHERE rowid IN "
                f"(SELECT rowid FROM {table} ORDER BY written LIMIT ?)",
                (count - limit,),
            )


def _member(kind: type[_E], value: object) -> _E | None:
    """Return KIND's member named by VALUE, or None (unset, or written by another version)."""
    try:
        return kind(value)
    except ValueError:
        return None
