"""What the cell keeps between rounds, held in one object for one start-to-stop of the cell.

``CellState`` holds the conversations (blob stores, checkpoints), the Kimi K3
writer table, each account's last roster and its max-mode markers, the roster
fetches in flight, and the refresh tokens Cursor ended in this run, with the
lock that guards them. ``CursorCell.start`` makes one and ``stop`` closes and
drops it, so nothing survives a restart of the cell; a roster fetch that lands
after ``close`` keeps nothing, because a closed state takes no more rosters.
No module of the cell keeps any of this in a global.

What the pieces mean is their own modules' business (``blobs.py``,
``writers.py``, ``listing.py``, ``signin.py``); this module only owns them.
"""

from __future__ import annotations

import asyncio
import threading
import weakref
from typing import TYPE_CHECKING

from . import limits
from .blobs import Conversations
from .writers import WriterTable

if TYPE_CHECKING:
    from .listing import RosterModel

__all__ = ["CellState", "RosterFetch", "RosterKey"]

# (base URL without a trailing slash, SHA-256 hex digest of the account's token).
RosterKey = tuple[str, str]


class RosterFetch:
    """One roster fetch in flight and how many rounds wait on it."""

    __slots__ = ("task", "waiters")

    def __init__(self, task: asyncio.Task[tuple[RosterModel, ...]]) -> None:
        self.task = task
        self.waiters = 0


class CellState:
    """Everything the cell keeps for one start-to-stop: conversations, writers, rosters.

    ``lock`` guards every field; hold it only for dictionary work, never across I/O.
    """

    __slots__ = (
        "closed",
        "conversations",
        "ended_sessions",
        "lock",
        "markers",
        "max_reply_bytes",
        "roster_fetches",
        "rosters",
        "writers",
    )

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.closed = False
        self.conversations = Conversations()
        self.writers = WriterTable()
        # The last roster per (base URL, account): a round on a model only the roster
        # names asks once per account. The account is a digest, so no token is kept.
        self.rosters: dict[RosterKey, tuple[RosterModel, ...]] = {}
        # Max-mode markers per (base URL, account), then per model id: one account's
        # roster never routes another account's rounds.
        self.markers: dict[RosterKey, dict[str, bool]] = {}
        # The roster fetch in flight per running loop and key: concurrent cold rounds
        # wait on one fetch. Keyed weakly by the loop, so an ended loop takes its entries.
        self.roster_fetches: weakref.WeakKeyDictionary[
            asyncio.AbstractEventLoop, dict[RosterKey, RosterFetch]
        ] = weakref.WeakKeyDictionary()
        # Digests of refresh tokens Cursor answered with shouldLogout: the kept sign-in
        # stays as it was, yet status must not call it live. A new sign-in brings a new
        # refresh token, so it is never in here.
        self.ended_sessions: set[str] = set()
        # The cap on one round's text, thinking and tool-call bytes (cursor.max_reply_bytes).
        self.max_reply_bytes = limits.MAX_REPLY_BYTES

    def close(self) -> None:
        """Forget everything kept; a fetch landing later keeps nothing (returns nothing)."""
        with self.lock:
            self.closed = True
            self.conversations = Conversations()
            self.writers = WriterTable()
            self.rosters.clear()
            self.markers.clear()
            self.roster_fetches.clear()
            self.ended_sessions.clear()
