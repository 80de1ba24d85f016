"""What the cell knows of each account's models, kept between rounds behind one lock.

``AccountModels`` (one on each ``CellState``) keeps, per base URL and account
(``ModelKey``: the account is a SHA-256 digest, so no token is kept), the last
roster (``GetUsableModels``) and its max-mode markers, the last model catalog
(``AvailableModels``) with when it came, and the fetches of each in flight per
event loop, so concurrent rounds of one account wait on one fetch. Its lock is
its own, as ``runpool.RunConnections``'s is; it is held only for dictionary
work, never across I/O. A closed one (a stopped cell's) keeps nothing more.

``RosterModel`` is one row of a roster. What to fetch and when, and what the
rows mean, is ``listing.py``'s; the catalog's shape is ``variants.py``'s; what a
round makes of them is ``model_resolution.py``'s.
"""

from __future__ import annotations

import asyncio
import threading
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .variants import ModelCatalog

__all__ = ["AccountModels", "ModelKey", "RosterFetch", "RosterModel"]

# (base URL without a trailing slash, SHA-256 hex digest of the account's token).
ModelKey = tuple[str, str]


@dataclass(frozen=True, slots=True)
class RosterModel:
    """One model the account may run."""

    id: str
    name: str
    context_window: int
    max_mode: bool | None = None
    # What the account's model catalog adds (None or empty when it had no entry):
    max_context_window: int | None = None
    images: bool | None = None
    thinking: bool | None = None
    # Each parameter the model takes (reasoning, thinking, context, fast, ...) and its values.
    parameters: tuple[tuple[str, tuple[str, ...]], ...] = ()


class RosterFetch:
    """One roster fetch in flight and how many rounds wait on it."""

    __slots__ = ("task", "waiters")

    def __init__(self, task: asyncio.Task[tuple[RosterModel, ...]]) -> None:
        self.task = task
        self.waiters = 0


Flights = weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[ModelKey, RosterFetch]]
CatalogFlights = weakref.WeakKeyDictionary[
    asyncio.AbstractEventLoop, dict[ModelKey, "asyncio.Task[ModelCatalog]"]
]


class AccountModels:
    """Each account's roster, markers, catalog and fetches in flight; ``lock`` guards them."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.closed = False
        # The last roster per key: a round on a model only the roster names asks once.
        self._rosters: dict[ModelKey, tuple[RosterModel, ...]] = {}
        # Max-mode markers per key, then per model id: one account's roster never
        # routes another account's rounds.
        self._markers: dict[ModelKey, dict[str, bool]] = {}
        # The last AvailableModels catalog per key, with when it came (time.monotonic()).
        self._catalogs: dict[ModelKey, tuple[float, ModelCatalog]] = {}
        # The fetches in flight per running loop and key, keyed weakly by the loop so an
        # ended loop takes its entries.
        self._roster_fetches: Flights = weakref.WeakKeyDictionary()
        self._catalog_fetches: CatalogFlights = weakref.WeakKeyDictionary()

    # What is kept (snapshots: a caller never holds the tables themselves).

    @property
    def rosters(self) -> dict[ModelKey, tuple[RosterModel, ...]]:
        """Return a copy of the kept rosters by key."""
        with self.lock:
            return dict(self._rosters)

    @property
    def markers(self) -> dict[ModelKey, dict[str, bool]]:
        """Return a copy of the kept max-mode markers by key, then model id."""
        with self.lock:
            return {key: dict(kept) for key, kept in self._markers.items()}

    @property
    def catalogs(self) -> dict[ModelKey, tuple[float, ModelCatalog]]:
        """Return a copy of the kept catalogs by key, each with when it came."""
        with self.lock:
            return dict(self._catalogs)

    def roster(self, key: ModelKey) -> tuple[RosterModel, ...] | None:
        """Return the roster kept under KEY, or None."""
        with self.lock:
            return self._rosters.get(key)

    def marker(self, key: ModelKey, *model_ids: str) -> bool | None:
        """Return the first max-mode marker KEY's roster gives one of MODEL_IDS, or None."""
        with self.lock:
            kept = self._markers.get(key, {})
            for model_id in model_ids:
                found = kept.get(model_id)
                if found is not None:
                    return found
            return None

    def catalog(self, key: ModelKey) -> tuple[float, ModelCatalog] | None:
        """Return the catalog kept under KEY with when it came, or None."""
        with self.lock:
            return self._catalogs.get(key)

    def keep_roster(self, key: ModelKey, models: tuple[RosterModel, ...]) -> bool:
        """Keep MODELS and their markers under KEY; return False (keeping nothing) once closed."""
        with self.lock:
            if self.closed:
                return False
            self._rosters[key] = models
            self._markers[key] = {m.id: m.max_mode for m in models if m.max_mode is not None}
            return True

    def keep_catalog(self, key: ModelKey, at: float, catalog: ModelCatalog) -> bool:
        """Keep CATALOG (come AT) under KEY; return False (keeping nothing) once closed."""
        with self.lock:
            if self.closed:
                return False
            self._catalogs[key] = (at, catalog)
            return True

    # The fetches in flight.

    def join_roster_fetch(
        self,
        loop: asyncio.AbstractEventLoop,
        key: ModelKey,
        start: Callable[[], asyncio.Task[tuple[RosterModel, ...]]],
    ) -> RosterFetch:
        """Return LOOP's roster fetch for KEY, started by START when none is in flight, with
        one more round waiting on it."""
        with self.lock:
            flights = self._roster_fetches.setdefault(loop, {})
            flight = flights.get(key)
            if flight is None:
                flight = RosterFetch(start())
                flights[key] = flight
            flight.waiters += 1
            return flight

    def leave_roster_fetch(self, flight: RosterFetch) -> None:
        """Count one round less waiting on FLIGHT, cancelling it when none is left."""
        with self.lock:
            flight.waiters -= 1
            if flight.waiters == 0 and not flight.task.done():
                flight.task.cancel()  # the last round waiting on it left: nobody wants it

    def roster_fetch_done(
        self,
        loop: asyncio.AbstractEventLoop,
        key: ModelKey,
        task: asyncio.Task[tuple[RosterModel, ...]],
    ) -> None:
        """Drop TASK from LOOP's roster fetches in flight (returns nothing)."""
        with self.lock:
            flights = self._roster_fetches.get(loop)
            if flights is not None and flights.get(key) is not None and flights[key].task is task:
                del flights[key]

    def catalog_fetch(
        self,
        loop: asyncio.AbstractEventLoop,
        key: ModelKey,
        start: Callable[[], asyncio.Task[ModelCatalog]],
    ) -> asyncio.Task[ModelCatalog]:
        """Return LOOP's catalog fetch for KEY, started by START when none is in flight."""
        with self.lock:
            flights = self._catalog_fetches.setdefault(loop, {})
            task = flights.get(key)
            if task is None:
                task = start()
                flights[key] = task
            return task

    def catalog_fetch_done(
        self, loop: asyncio.AbstractEventLoop, key: ModelKey, task: asyncio.Task[ModelCatalog]
    ) -> None:
        """Drop TASK from LOOP's catalog fetches in flight (returns nothing)."""
        with self.lock:
            flights = self._catalog_fetches.get(loop)
            if flights is not None and flights.get(key) is task:
                del flights[key]

    # Forgetting.

    def forget(self) -> None:
        """Forget every account's roster, markers and catalog (a logout; returns nothing)."""
        with self.lock:
            self._rosters.clear()
            self._markers.clear()
            self._catalogs.clear()

    def close(self) -> None:
        """Forget everything and keep nothing more (the cell stopped; returns nothing)."""
        with self.lock:
            self.closed = True
            self._rosters.clear()
            self._markers.clear()
            self._catalogs.clear()
            self._roster_fetches.clear()
            self._catalog_fetches.clear()
