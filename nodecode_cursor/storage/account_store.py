"""What the cell knows of each kept Cursor account, kept on disk so other processes share it.

``DiskAccounts`` keeps one row per account in ``cursor-accounts.sqlite`` beside the
other tables in the host's home (made 0600, marked ours, a bad file set aside:
``sqlite_file.py``): the percent of its plan's included usage the dashboard last
said is used and when it said it (epoch seconds), and the cause Cursor last
refused it for and when. An account is keyed by a digest of its name (its email,
compared without case), so no email or token is written here. Each write is one
transaction, so two processes sharing the home never lose each other's rows; a
one-shot ``ask`` process reads what the last one learnt instead of asking the
dashboard again, or running on an account Cursor just refused.

Blocking: the cell calls it from a worker thread, never on the event loop. A file
that cannot be used reads as empty and makes every write a no-op. What the
values mean, and when they are read or written, is ``account/account_book.py``'s.
"""

from __future__ import annotations

import hashlib
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from .sqlite_file import Rows, SqliteFile

__all__ = ["APPLICATION_ID", "FILE_NAME", "AccountRecord", "DiskAccounts", "account_digest"]

FILE_NAME = "cursor-accounts.sqlite"
# SQLite's application_id marks the file as ours ("NCAC"); any other is a foreign file.
APPLICATION_ID = 0x4E434143
# A write runs in a worker thread after a round's choice; past this it is skipped.
BUSY_TIMEOUT_SECONDS = 2.0
# Rows kept at most: a person has a few accounts; a row is ~100 bytes.
MAX_ACCOUNTS = 256

_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS accounts ("
    "account TEXT PRIMARY KEY, used REAL, read_at REAL, refused TEXT, refused_at REAL, "
    "written REAL NOT NULL)",
)


def account_digest(name: str) -> str:
    """Return the key an account NAME is kept under: a SHA-256 of it, without case."""
    return hashlib.sha256(name.strip().casefold().encode("utf-8", "surrogatepass")).hexdigest()


@dataclass(frozen=True, slots=True)
class AccountRecord:
    """One account's row: its usage and when it was read, its last refusal and when."""

    used: float | None = None
    read_at: float | None = None
    refused: str | None = None
    refused_at: float | None = None


class DiskAccounts:
    """Each kept account's usage and last refusal, in a SQLite file shared safely by processes."""

    __slots__ = ("_file", "path")

    def __init__(self, path: Path) -> None:
        self.path = path
        self._file = SqliteFile(
            path,
            application_id=APPLICATION_ID,
            schema=_SCHEMA,
            busy_timeout=BUSY_TIMEOUT_SECONDS,
            label="the account table",
        )

    @classmethod
    def in_home(cls, home: Path) -> DiskAccounts:
        """Return the table kept in the host's HOME."""
        return cls(Path(home) / FILE_NAME)

    def load(self) -> dict[str, AccountRecord]:
        """Return every kept row by account digest (empty when the file cannot be read)."""
        if not self._file.exists():
            return {}
        rows = self._file.attempt(
            lambda db: db.execute(
                "SELECT account, used, read_at, refused, refused_at FROM accounts"
            )
        )
        found: dict[str, AccountRecord] = {}
        for account, used, read_at, refused, refused_at in rows or []:
            found[str(account)] = AccountRecord(
                None if used is None else float(used),
                None if read_at is None else float(read_at),
                None if refused is None else str(refused),
                None if refused_at is None else float(refused_at),
            )
        return found

    def save(self, digest: str, record: AccountRecord, now: float) -> None:
        """Keep RECORD as the account DIGEST's row (written at NOW); the oldest past the cap go."""

        def write(db: sqlite3.Connection) -> Rows:
            db.execute("BEGIN IMMEDIATE")
            db.execute(
                "INSERT OR REPLACE INTO accounts "
                "(account, used, read_at, refused, refused_at, written) VALUES (?, ?, ?, ?, ?, ?)",
                (digest, record.used, record.read_at, record.refused, record.refused_at, now),
            )
            db.execute(
                "DELETE FROM accounts WHERE account NOT IN "
                "(SELECT account FROM accounts ORDER BY written DESC LIMIT ?)",
                (MAX_ACCOUNTS,),
            )
            db.execute("COMMIT")
            return []

        self._file.attempt(write)
