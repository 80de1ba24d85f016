"""What the cell knows of each kept Cursor account between rounds: its usage, Cursor's refusals.

``AccountBook`` (on ``CellState.accounts``) holds, per kept account (by name,
compared without case): the percent of its plan's included usage the dashboard
last said is used and when (``note_usage``), and the cause Cursor last refused it
for and when (``note_refused``). Both are also kept under the host's home
(``storage/account_store.py``), read once on first use and written after each
change, so another process (a one-shot ``ask``) shares them. A usage is *fresh*
for ``limits.ACCOUNT_USAGE_MAX_AGE_SECONDS``; a refusal *stands* for
``limits.ACCOUNT_REFUSED_SECONDS``.

It also keeps the kept accounts as auth.json last said (``kept``): their names,
the active one, whether a saved API key answers instead, the ones whose session
Cursor ended; read again only when auth.json (or anything a credential depends
on) looks changed, so a burst of rounds reads the file once. And the usage reads
in flight (``reading``), so concurrent rounds share one.

Blocking where it reads or writes a file (``kept``, ``load``, ``persist``):
callers on a loop run those in a worker thread. Which account a round runs on is
``core/account_choice.py``'s; asking the dashboard is ``lanes/failover.py``'s.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import limits
from ..storage.account_store import AccountRecord, DiskAccounts, account_digest

if TYPE_CHECKING:
    from .dashboard import AccountUsage

__all__ = ["AccountBook", "KeptAccounts", "used_percent"]


@dataclass(frozen=True, slots=True)
class KeptAccounts:
    """The kept accounts as auth.json says: names (the active one first), which are usable."""

    names: tuple[str, ...] = ()
    active: str | None = None
    # A saved API key (api_keys.cursor.key) answers a round before any kept account.
    saved_key: bool = False
    # The accounts whose session Cursor ended (shouldLogout) in this process.
    ended: frozenset[str] = frozenset()


def used_percent(usage: AccountUsage) -> float | None:
    """Return how much of USAGE's plan is used: the total window, else the plan's spend, else
    the highest window; None when the dashboard said none of them."""
    total = next((w.percent for w in usage.windows if w.key == "total"), None)
    if total is not None:
        return total
    if usage.included_usd and usage.spent_usd is not None:
        return usage.spent_usd / usage.included_usd * 100
    highest = usage.highest()
    return highest.percent if highest is not None else None


class AccountBook:
    """Each kept account's usage and last refusal, and the kept accounts; see the module."""

    def __init__(self, home: Path | None = None) -> None:
        self.lock = threading.Lock()
        self._store = DiskAccounts.in_home(home) if home is not None else None
        self._records: dict[str, AccountRecord] = {}
        self._loaded = self._store is None
        self._kept: tuple[tuple[object, ...], KeptAccounts] | None = None
        # The usage reads in flight, by (event loop id, account key): asyncio tasks.
        self.reading: dict[tuple[int, str], Any] = {}
        # The account the last choice away from the active one was said for (once each).
        self.told: str | None = None

    # The kept accounts ---------------------------------------------------------------------

    def kept_if_same(self, looks: tuple[object, ...]) -> KeptAccounts | None:
        """Return the kept accounts read last, while LOOKS (``credentials.auth_looks``) holds."""
        with self.lock:
            if self._kept is not None and self._kept[0] == looks:
                return self._kept[1]
        return None

    def keep(self, looks: tuple[object, ...], kept: KeptAccounts) -> None:
        """Remember KEPT as what auth.json said while it looked like LOOKS."""
        with self.lock:
            self._kept = (looks, kept)

    # Usage and refusals ----------------------------------------------------------------------

    @property
    def loaded(self) -> bool:
        """Return whether what the home keeps was read (or there is no home)."""
        return self._loaded

    def load(self) -> None:
        """Read what the home keeps of each account, once (blocking; a no-op without a home)."""
        if self._loaded or self._store is None:
            return
        found = self._store.load()
        with self.lock:
            if self._loaded:
                return
            for digest, record in found.items():
                self._records.setdefault(digest, record)
            self._loaded = True

    def record(self, name: str) -> AccountRecord:
        """Return what is known of the account NAME (an empty record when nothing is)."""
        with self.lock:
            return self._records.get(account_digest(name), AccountRecord())

    def usage(self, name: str, now: float | None = None) -> tuple[float | None, bool]:
        """Return (the percent used last read for NAME or None, whether that read is fresh)."""
        record = self.record(name)
        now = time.time() if now is None else now
        fresh = record.read_at is not None and (
            0 <= now - record.read_at < limits.ACCOUNT_USAGE_MAX_AGE_SECONDS
        )
        return record.used, fresh

    def refused(self, name: str, now: float | None = None) -> str | None:
        """Return the cause Cursor refused NAME for, while that refusal stands; else None."""
        record = self.record(name)
        now = time.time() if now is None else now
        if record.refused is None or record.refused_at is None:
            return None
        if not 0 <= now - record.refused_at < limits.ACCOUNT_REFUSED_SECONDS:
            return None
        return record.refused

    def note_usage(self, name: str, used: float | None, now: float | None = None) -> None:
        """Keep that the dashboard said NAME has USED percent used (None: it could not say)."""
        now = time.time() if now is None else now
        key = account_digest(name)
        with self.lock:
            self._records[key] = replace(
                self._records.get(key, AccountRecord()), used=used, read_at=now
            )

    def note_refused(self, name: str, cause: str | None, now: float | None = None) -> None:
        """Keep that Cursor refused NAME for CAUSE now (None: forget a refusal)."""
        now = time.time() if now is None else now
        key = account_digest(name)
        with self.lock:
            self._records[key] = replace(
                self._records.get(key, AccountRecord()),
                refused=cause,
                refused_at=now if cause is not None else None,
            )

    def persist(self, name: str) -> None:
        """Write NAME's record under the home (blocking; a no-op without a home)."""
        if self._store is None:
            return
        key = account_digest(name)
        with self.lock:
            record = self._records.get(key)
        if record is not None:
            self._store.save(key, record, time.time())
