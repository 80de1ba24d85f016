"""What the lane remembers of each model's continuation shape and fields, and the setting's check.

``learned`` reads what a retry showed a model takes (``continuation.Learned``):
the cell's memory first, else the conversation store (in a worker thread), kept
in memory either way so the store is read once per model and process; ``learn``
writes a new finding to both. ``setting`` checks ``cursor.continuation`` as a
round carries it. Choosing and retrying is ``continuation.py``'s and
``decisions.py``'s; the retry loop is ``round_retries.py``'s.
"""

from __future__ import annotations

import asyncio
import logging

from ..core import continuation
from ..errors import ConfigError, loggable
from ..state import CellState

__all__ = ["learn", "learned", "setting"]

log = logging.getLogger("nodecode_cursor.lanes.shapes")


def setting(value: str | None) -> str:
    """Return the round's continuation setting ("auto" when unset); ConfigError for another."""
    chosen = (value or "auto").strip().lower()
    if chosen not in continuation.SETTINGS:
        names = ", ".join(f'"{name}"' for name in continuation.SETTINGS)
        raise ConfigError(f"the continuation setting must be one of {names}", code="bad_config")
    return chosen


async def learned(state: CellState, model: str) -> continuation.Learned | None:
    """Return what a retry showed MODEL takes: this process's, else the store's (None: no store)."""
    with state.lock:
        known = state.learned.get(model)
        store = state.continuity
    if known is not None or store is None:
        return known
    found = await asyncio.to_thread(store.learned, model) or continuation.Learned()
    with state.lock:
        # Nothing learned is kept too: the store is read once per model and process.
        return state.learned.setdefault(model, found)


async def learn(state: CellState, model: str, news: continuation.Learned) -> None:
    """Remember NEWS for MODEL: in this process, and in the store for the others."""
    log.info(
        "remembering for %s: %s continuation, %s model fields",
        loggable(model),
        news.shape.value if news.shape is not None else "default",
        news.fields.value if news.fields is not None else "default",
    )
    with state.lock:
        state.learned[model] = news
        store = state.continuity
    if store is not None:
        await asyncio.to_thread(store.learn, model, news)
