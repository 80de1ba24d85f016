"""What the cell keeps between rounds, held in one object for one start-to-stop of the cell.

``CellState`` holds the conversations (blob stores, checkpoints), the Kimi K3
writer table, each account's last roster and its max-mode markers, its last
model catalog (AvailableModels), the roster and catalog fetches in flight, and
the refresh tokens Cursor ended in this run, with the lock that guards them.
``CursorCell.start`` makes one and ``stop`` closes and drops it, so nothing but
the writer table and what the service knows of each conversation (both kept on
disk under the host's home when the state is made with one) survives a restart;
a fetch that lands after ``close`` keeps nothing, because a closed state takes
no more rosters or catalogs.
No module of the cell keeps any of this in a global.

What the pieces mean is their own modules' business (``blobs.py``,
``writers.py``, ``listing.py``, ``signin.py``); this module only owns them.
"""

from __future__ import annotations

import asyncio
import threading
import weakref
from pathlib import Path
from typing import TYPE_CHECKING

from . import limits
from .blobs import Conversations
from .bridge import BridgedCalls
from .clients import HttpClients
from .conversation_store import DiskConversations
from .runpool import RunConnections
from .writer_store import DiskWriters
from .writers import WriterStore, WriterTable

if TYPE_CHECKING:
    from .continuity import ContinuityStore
    from .listing import RosterModel
    from .variants import ModelCatalog

__all__ = ["CellState", "RosterFetch", "RosterKey"]

# (base URL without a trailing slash, SHA-256 hex digest of the account's token).
RosterKey = tuple[str, str]


class RosterFetch:
    """One roster fetch in flight and how many rounds wait on it."""

    __slots__ = ("task", "waiters")

    def __init__(self, task: asyncio.Task[tuple[RosterModel, ...]]) -> None:
        self.task = task
        self.waiters = 0


def _disk_writers(home: Path) -> WriterStore:
    """Return the writer table's store under HOME."""
    return DiskWriters.in_home(home)


class CellState:
    """Everything the cell keeps for one start-to-stop: conversations, writers, rosters.

    ``lock`` guards every field; hold it only for dictionary work, never across I/O.
    """

    __slots__ = (
        "bridged",
        "catalog_fetches",
        "catalogs",
        "closed",
        "continuity",
        "conversations",
        "ended_sessions",
        "http_clients",
        "lock",
        "markers",
        "max_reply_bytes",
        "roster_fetches",
        "rosters",
        "run_connections",
        "writers",
    )

    def __init__(self, home: Path | None = None) -> None:
        self.lock = threading.Lock()
        self.closed = False
        self.conversations = Conversations()
        # The native asks rounds handed to host tools, for the next round's replay.
        self.bridged = BridgedCalls()
        # What the service knows of each conversation (wire id, whether it ran it,
        # rotations, handed-off calls), kept under the host's HOME when there is one, so
        # another process or a restart goes on with it (conversation_store.py).
        self.continuity: ContinuityStore | None = (
            DiskConversations.in_home(home) if home is not None else None
        )
        # Kept under the host's HOME when there is one, so a restart keeps K3's writers.
        self.writers = WriterTable(store=_disk_writers(home) if home is not None else None)
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
        # The last AvailableModels catalog per (base URL, account), with when it came
        # (time.monotonic()): rounds route sibling slugs onto its variants until it ages.
        self.catalogs: dict[RosterKey, tuple[float, ModelCatalog]] = {}
        # The catalog fetch in flight per running loop and key (one per account at a time).
        self.catalog_fetches: weakref.WeakKeyDictionary[
            asyncio.AbstractEventLoop, dict[RosterKey, asyncio.Task[ModelCatalog]]
        ] = weakref.WeakKeyDictionary()
        # Digests of refresh tokens Cursor answered with shouldLogout: the kept sign-in
        # stays as it was, yet status must not call it live. A new sign-in brings a new
        # refresh token, so it is never in here.
        self.ended_sessions: set[str] = set()
        # The HTTP/2 connections runs share (one per base URL, account and proxy) and
        # which transport last worked per base URL; its own lock (h2conn.py).
        self.run_connections = RunConnections()
        # The HTTP/1.1 clients runs, appends, the roster and the catalog go through (one
        # per event loop and proxy, closed with their loop; clients.py).
        self.http_clients = HttpClients()
        # The cap on one round's text, thinking and tool-call bytes (cursor.max_reply_bytes).
        self.max_reply_bytes = limits.MAX_REPLY_BYTES

    def close(self) -> None:
        """Forget everything kept; a fetch landing later keeps nothing (returns nothing)."""
        with self.lock:
            self.closed = True
            self.conversations = Conversations()
            self.bridged = BridgedCalls()
            self.continuity = None
            self.writers = WriterTable()
            self.rosters.clear()
            self.markers.clear()
            self.roster_fetches.clear()
            self.catalogs.clear()
            self.catalog_fetches.clear()
            self.ended_sessions.clear()
        self.run_connections.close()  # every HTTP/2 connection ends with the cell

    def forget_accounts(self) -> None:
        """Forget every account's roster, markers and catalog (a logout; returns nothing).

        Conversations stay: they belong to the host's sessions, not to a token.
        """
        with self.lock:
            self.rosters.clear()
            self.markers.clear()
            self.catalogs.clear()
