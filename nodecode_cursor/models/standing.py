"""A model's standing with the account, as the causes of a bare refusal need it.

When Cursor refuses a run bare, the round asks three things of its model
(docs/protocol.md §9): is it Cursor's own or a third party's (``cursor_own``,
from the bundled row); how large is its context window (``context_window``,
from the bundled row); and does the account's roster list it
(``roster_standing``: listed, not listed, or unknown when the roster cannot be
had, with the two listed models nearest to it). What follows from the answers
is ``decisions.decide``'s; fetching and keeping the roster is ``listing.py``'s.
"""

from __future__ import annotations

import difflib
import logging
from collections.abc import Collection
from typing import TYPE_CHECKING

from .. import limits
from ..errors import CursorError, loggable
from . import catalog, listing, routing

if TYPE_CHECKING:
    from ..host import RoundContext
    from ..state import CellState

__all__ = ["RosterStanding", "context_window", "cursor_own", "roster_standing"]

log = logging.getLogger("nodecode_cursor.models.standing")

# Listed, not listed, or unknown (None); and models the roster lists, nearest first.
RosterStanding = tuple[bool | None, tuple[str, ...]]

# Cursor's own models by id: Composer, Auto (``default``, which Cursor also calls
# ``auto``) and the ``cursor-`` ones; their bundled rows have no vendor class.
_OWN_PREFIXES = ("composer-", "cursor-")
_OWN_IDS = frozenset({"auto", "default"})


def cursor_own(model: str) -> bool:
    """Return whether MODEL is Cursor's own (Composer, Auto, cursor-*), not a third party's."""
    if model in _OWN_IDS or model.startswith(_OWN_PREFIXES):
        return True
    if routing.is_bundled(model):
        return routing.model_row(model).model_class == "unknown"
    return False


def context_window(model: str) -> int:
    """Return MODEL's context window in tokens by its bundled row, or 0 when it has none."""
    row = catalog.find_model(model)
    return row.context_window if row is not None else 0


async def roster_standing(
    ctx: RoundContext, state: CellState, token: str, ids: Collection[str]
) -> RosterStanding:
    """Return whether the account's roster lists any of IDS, and two models it lists.

    The roster kept for the account, else fetched once (``listing.round_roster``);
    one that cannot be had is unknown (None), never a failure of its own.
    """
    try:
        roster = await listing.round_roster(
            state,
            token,
            ctx.base_url or limits.DEFAULT_BASE_URL,
            client_version=ctx.client_version,
            proxy=ctx.proxy,
        )
    except CursorError as exc:
        log.debug("roster unavailable after a bare refusal: %s", loggable(exc.detail))
        return None, ()
    listed_ids = [row.id for row in roster]
    if not listed_ids:
        return None, ()  # an empty roster says nothing about the model
    if any(model_id in listed_ids for model_id in ids):
        return True, ()
    first = next(iter(ids), "")
    nearest = difflib.get_close_matches(first, listed_ids, n=2, cutoff=0.0)
    return False, tuple(nearest)
