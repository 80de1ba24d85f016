"""The facts that tell apart the causes of a refusal that came before any token.

A run the service refused with no token of output may have been too long for
the model, past the root wall, for a model the account's roster does not list,
or a third party's model the account may not use (``causes.py`` names them).
``cause_facts`` gathers what tells them apart: the request's estimated tokens
and root blobs, the model's window and ownership, the budget, and for a bare
``resource_exhausted`` only, the account's roster (asked over the network).

Which cause the facts show, and what follows, is ``causes.py``'s and
``decisions.py``'s; the model's standing is ``models.standing``'s.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..core import causes
from ..core.budget import HistoryBudget
from ..errors import ProviderError, ResourceExhausted
from ..host import RoundContext
from ..models import standing
from ..state import CellState

if TYPE_CHECKING:
    from ..core.blobs import Conversation
    from ..core.request import RunRequestBuild
    from ..models.routing import WireModel

__all__ = ["cause_facts"]


async def cause_facts(
    ctx: RoundContext,
    state: CellState,
    token: str,
    wire: WireModel,
    conversation: Conversation,
    build: RunRequestBuild | None,
    budget: HistoryBudget,
    folded_harder: bool,
    broke: ProviderError | None,
    saw_token: bool,
) -> dict[str, Any]:
    """Return the ``decisions.RunFacts`` fields that tell a refusal's causes apart (``causes``).

    Empty unless the run BROKE before any token (SAW_TOKEN) of a request BUILD:
    the request's estimated tokens and root blobs, the model's window and
    ownership, BUDGET and FOLDED_HARDER; the account's roster is asked (with
    TOKEN) only for a bare ``resource_exhausted``, the one cause it may explain.
    """
    if broke is None or saw_token or build is None:
        return {}
    history, blobs = build.history, conversation.blobs
    sizes = (len(blobs.get(i) or b"") for i in (*history.root_ids, *history.turn_ids))
    action = len(history.active.text.encode()) if history.active is not None else 0
    model = ctx.model
    facts: dict[str, Any] = {
        "tokens": causes.request_tokens(sizes, action),
        "window": standing.context_window(model),
        "roots": len(history.root_ids),
        "budget_roots": budget.roots,
        "folded_harder": folded_harder,
        "third_party": not standing.cursor_own(model),
    }
    if isinstance(broke, ResourceExhausted):
        ids = dict.fromkeys((model, wire.details_id, wire.requested_id))
        listed, others = await standing.roster_standing(ctx, state, token, ids)
        facts.update(listed=listed, roster_models=others)
    return facts
