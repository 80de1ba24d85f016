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

Each piece is made on first use (under ``made``, a lock of its own), with its
module imported then: a command that runs no round (``status``) makes a state
and loads none of them — not asyncio, protobuf, httpx or SQLite.

What the pieces mean is their own modules' business (``blobs.py``,
``writers.py``, ``listing.py``, ``signin.py``); this module only owns them.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING

from . import limits

if TYPE_CHECKING:
    from .account.account_book import AccountBook
    from .core.bridge import BridgedCalls
    from .core.continuation import Learned
    from .core.continuity import ContinuityStore, DigestMemo
    from .core.conversations import Conversations
    from .core.history_memo import HistoryMemos
    from .core.writers import WriterStore, WriterTable
    from .models.account_models import AccountModels
    from .transports.clients import HttpClients
    from .transports.runpool import RunConnections

__all__ = ["CellState"]


def _disk_writers(home: Path) -> WriterStore:
    """Return the writer table's store under HOME."""
    from .storage.writer_store import DiskWriters

    return DiskWriters.in_home(home)


class CellState:
    """Everything the cell keeps for one start-to-stop: conversations, writers, models.

    ``lock`` guards every field but ``models``, ``run_connections`` and
    ``http_clients`` (each has its own); hold it only for dictionary work, never
    across I/O. Each of those fields is made on first read.
    """

    __slots__ = (
        "_accounts",
        "_bridged",
        "_continuity",
        "_continuity_made",
        "_conversations",
        "_digest_memo",
        "_history_memos",
        "_http_clients",
        "_models",
        "_run_connections",
        "_writers",
        "account_threshold",
        "closed",
        "ended_sessions",
        "failover",
        "home",
        "learned",
        "lock",
        "made",
        "max_reply_bytes",
    )

    def __init__(self, home: Path | None = None) -> None:
        self.lock = threading.Lock()
        # Guards making a field on first read; taken after ``lock`` when both are held.
        self.made = threading.Lock()
        self.closed = False
        self.home = home
        self._conversations: Conversations | None = None
        self._digest_memo: DigestMemo | None = None
        self._history_memos: HistoryMemos | None = None
        self._bridged: BridgedCalls | None = None
        self._continuity: ContinuityStore | None = None  # None once made: no home, or closed
        self._continuity_made = False
        self._writers: WriterTable | None = None
        self._models: AccountModels | None = None
        self._run_connections: RunConnections | None = None
        self._http_clients: HttpClients | None = None
        self._accounts: AccountBook | None = None
        # Whether a round that names no account may go on with another kept account when
        # Cursor refuses it before any output (cursor.failover), and the percent of an
        # account's included usage past which no round is started on it
        # (cursor.account_threshold): lanes/failover.py.
        self.failover = True
        self.account_threshold = limits.ACCOUNT_THRESHOLD_PERCENT
        # Digests of refresh tokens Cursor answered with shouldLogout: the kept sign-in
        # stays as it was, yet status must not call it live. A new sign-in brings a new
        # refresh token, so it is never in here.
        self.ended_sessions: set[str] = set()
        # The cap on one round's text, thinking and tool-call bytes (cursor.max_reply_bytes).
        self.max_reply_bytes = limits.MAX_REPLY_BYTES
        # Per model id, the continuation shape and model fields a retry showed it takes
        # (continuation.py); also kept in the conversation store for other processes.
        self.learned: dict[str, Learned] = {}

    @property
    def conversations(self) -> Conversations:
        """Return the conversations' blob stores and checkpoints (made on first read)."""
        if self._conversations is None:
            from .core.conversations import Conversations

            with self.made:
                if self._conversations is None:
                    self._conversations = Conversations()
        return self._conversations

    @property
    def digest_memo(self) -> DigestMemo:
        """Return the digests of long history messages, kept between rounds (made on first read).

        Read and written only under ``lock`` (``MessageDigests`` asks it there).
        """
        if self._digest_memo is None:
            from .core.continuity import DigestMemo

            with self.made:
                if self._digest_memo is None:
                    self._digest_memo = DigestMemo()
        return self._digest_memo

    @property
    def history_memos(self) -> HistoryMemos:
        """Return each recent session's history as its last round read it (made on first read).

        Taken and given back only under ``lock`` (``history_memo.HistoryMemos``).
        """
        if self._history_memos is None:
            from .core.history_memo import HistoryMemos

            with self.made:
                if self._history_memos is None:
                    self._history_memos = HistoryMemos()
        return self._history_memos

    @property
    def bridged(self) -> BridgedCalls:
        """Return the native asks rounds handed to host tools, for the next round's replay."""
        if self._bridged is None:
            from .core.bridge import BridgedCalls

            with self.made:
                if self._bridged is None:
                    self._bridged = BridgedCalls()
        return self._bridged

    @property
    def continuity(self) -> ContinuityStore | None:
        """Return what the service knows of each conversation, kept under the home (or None).

        Its wire id, whether it ran it, rotations, handed-off calls: kept under the
        host's HOME when there is one, so another process or a restart goes on with it
        (conversation_store.py); None without a home, and once closed.
        """
        if not self._continuity_made:
            with self.made:
                if not self._continuity_made:
                    home = None if self.closed else self.home
                    if home is not None:
                        # Here, not above: without a home, sqlite3 is never loaded.
                        from .storage.conversation_store import DiskConversations

                        self._continuity = DiskConversations.in_home(home)
                    self._continuity_made = True
        return self._continuity

    @property
    def writers(self) -> WriterTable:
        """Return the Kimi K3 writer table, kept under the home when there is one (made once)."""
        if self._writers is None:
            from .core.writers import WriterTable

            with self.made:
                if self._writers is None:
                    home = None if self.closed else self.home
                    self._writers = WriterTable(
                        store=_disk_writers(home) if home is not None else None
                    )
        return self._writers

    @property
    def models(self) -> AccountModels:
        """Return each account's roster, markers and catalog, and their fetches in flight."""
        if self._models is None:
            from .models.account_models import AccountModels

            with self.made:
                if self._models is None:
                    self._models = AccountModels()
                    if self.closed:
                        self._models.close()
        return self._models

    @property
    def accounts(self) -> AccountBook:
        """Return what is known of each kept account: usage, refusals (made on first read).

        Kept under the home too when there is one (account_book.py); its own lock.
        """
        if self._accounts is None:
            from .account.account_book import AccountBook

            with self.made:
                if self._accounts is None:
                    self._accounts = AccountBook(None if self.closed else self.home)
        return self._accounts

    @property
    def run_connections(self) -> RunConnections:
        """Return the HTTP/2 connections runs share and which transport last worked per base URL.

        One per base URL, account and proxy, behind its own lock (runpool.py).
        """
        if self._run_connections is None:
            from .transports.runpool import RunConnections

            with self.made:
                if self._run_connections is None:
                    self._run_connections = RunConnections()
                    if self.closed:
                        self._run_connections.close()
        return self._run_connections

    @property
    def http_clients(self) -> HttpClients:
        """Return the HTTP/1.1 clients runs, appends, the roster and the catalog go through.

        One per event loop and proxy, closed with their loop (clients.py).
        """
        if self._http_clients is None:
            from .transports.clients import HttpClients

            with self.made:
                if self._http_clients is None:
                    self._http_clients = HttpClients()
        return self._http_clients

    def close(self) -> None:
        """Forget everything kept; a fetch landing later keeps nothing (returns nothing)."""
        # In the order a caller holding ``lock`` reads a field in: lock, then made.
        with self.lock, self.made:
            self.closed = True
            # Made afresh (empty, and with no store on disk) if read again.
            self._conversations = None
            self._bridged = None
            self._continuity, self._continuity_made = None, True
            self._writers = None
            self._accounts = None
            self.ended_sessions.clear()
            self.learned.clear()
            models, connections = self._models, self._run_connections
        if models is not None:
            models.close()
        if connections is not None:
            connections.close()  # every HTTP/2 connection ends with the cell

    def forget_accounts(self) -> None:
        """Forget every account's roster, markers and catalog (a logout; returns nothing).

        Conversations stay: they belong to the host's sessions, not to a token.
        """
        if self._models is not None:
            self._models.forget()
