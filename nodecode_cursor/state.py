"""What the cell keeps between rounds, held in one object for one start-to-stop of the cell.

``CellState`` holds the conversations (blob stores, checkpoints), the Kimi K3
writer table, the account's models (``models``: each account's last roster,
max-mode markers and catalog, with their fetches in flight, behind their own
lock; ``account_models.py``), and the refresh tokens Cursor ended in this run,
with the lock that guards them. ``CursorCell.start`` makes one and ``stop``
closes and drops it, so nothing but the writer table and what the service knows
of each conversation (both kept on disk under the host's home when the state is
made with one) survives a restart; a fetch that lands after ``close`` keeps
nothing, because a closed state takes no more rosters or catalogs.
No module of the cell keeps any of this in a global.

What the pieces mean is their own modules' business (``blobs.py``,
``writers.py``, ``listing.py``, ``signin.py``); this module only owns them.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING

from . import limits
from .account_models import AccountModels, ModelKey, RosterFetch
from .blobs import Conversations
from .bridge import BridgedCalls
from .clients import HttpClients
from .conversation_store import DiskConversations
from .runpool import RunConnections
from .writer_store import DiskWriters
from .writers import WriterStore, WriterTable

if TYPE_CHECKING:
    from .continuity import ContinuityStore

__all__ = ["CellState", "RosterFetch", "RosterKey"]

# The key the account's models are kept under (account_models.ModelKey).
RosterKey = ModelKey


def _disk_writers(home: Path) -> WriterStore:
    """Return the writer table's store under HOME."""
    return DiskWriters.in_home(home)


class CellState:
    """Everything the cell keeps for one start-to-stop: conversations, writers, models.

    ``lock`` guards every field but ``models``, ``run_connections`` and
    ``http_clients`` (each has its own); hold it only for dictionary work, never
    across I/O.
    """

    __slots__ = (
        "bridged",
        "closed",
        "continuity",
        "conversations",
        "ended_sessions",
        "http_clients",
        "lock",
        "max_reply_bytes",
        "models",
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
        # Each account's roster, markers and catalog, and their fetches in flight.
        self.models = AccountModels()
        # Digests of refresh tokens Cursor answered with shouldLogout: the kept sign-in
        # stays as it was, yet status must not call it live. A new sign-in brings a new
        # refresh token, so it is never in here.
        self.ended_sessions: set[str] = set()
        # The HTTP/2 connections runs share (one per base URL, account and proxy) and
        # which transport last worked per base URL; its own lock (runpool.py).
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
            self.ended_sessions.clear()
        self.models.close()
        self.run_connections.close()  # every HTTP/2 connection ends with the cell

    def forget_accounts(self) -> None:
        """Forget every account's roster, markers and catalog (a logout; returns nothing).

        Conversations stay: they belong to the host's sessions, not to a token.
        """
        self.models.forget()
