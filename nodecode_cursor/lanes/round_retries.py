"""A round on one conversation: attempts on one wire model after another, as Cursor allows.

``run_round`` makes an ``attempt.Attempt`` and runs it; when the attempt ends in
a retry ``decisions.decide`` named, it makes the next one: within a halved
history budget (FOLD_HARDER: the request was past the model's context window or
near the root wall), on the other continuation shape (RETRY_SHAPE), with
``requested_model`` alone (RETRY_FIELDS), on the catalog's variant
(RETRY_VARIANT) or with the discovery id (a model not found before any output);
each at most once. A FAILOVER decision is returned, for the lane to move the
round to another account. After a complete round it records the calls the
round handed off and what it learned of the model's continuation
(``shapes.learn``).

What each run does is ``attempt.py``'s; which retry follows is
``decisions.py``'s; the continuation's plan is ``continuation.py``'s.
"""

from __future__ import annotations

import logging
import os
import time
from typing import TYPE_CHECKING, Any

from .. import limits
from ..core import continuation, decisions
from ..core.budget import resolve_budget
from ..core.continuity import call_key
from ..core.decisions import Next
from ..errors import loggable
from ..host import RoundContext, RoundResult, StreamStart
from ..models import model_resolution
from ..state import CellState
from . import shapes
from .attempt import Attempt, emit

if TYPE_CHECKING:
    from ..core.blobs import Conversation
    from ..core.history_memo import HistoryMemo
    from ..core.writers import WriterTable
    from ..models.model_resolution import ResolvedModel
    from ..models.routing import WireMode

__all__ = ["run_round"]

log = logging.getLogger("nodecode_cursor.lanes.round_retries")


async def run_round(
    ctx: RoundContext,
    state: CellState,
    resolved: ResolvedModel,
    token: str,
    conversation: Conversation,
    table: WriterTable,
    messages: list[dict[str, Any]],
    system: str | None,
    tools: list[dict[str, Any]],
    handed: list[str],
    memo: HistoryMemo | None = None,
    *,
    may_fail_over: bool = False,
    started: bool = False,
) -> RoundResult | decisions.Decision:
    """Return the round's result on CONVERSATION, retrying as the service's answers allow.

    The keys of the calls the round handed off are added to HANDED; MEMO is the
    session's history memo (``history_memo.HistoryMemo``), None without one.
    MAY_FAIL_OVER: a refusal another account mends returns the FAILOVER decision, for
    ``stream_round`` to carry out; STARTED: the host was already told the stream
    started (on the account the round moved from).
    """
    if not started:
        emit(ctx, StreamStart(resolved.wire_id))
    mode: WireMode = "normalized"
    wire = resolved.wire
    # Without the catalog a sibling slug goes bare; if Cursor refuses that shape, the
    # catalog is asked again and the round retried once on the variant it names.
    variant_retry = resolved.variant_retry
    # The continuation shape and model fields: learned, else the family's; one retry each.
    learned = await shapes.learned(state, ctx.model)
    first = continuation.plan(
        ctx.model,
        shapes.setting(ctx.continuation),
        learned,
        shape_matters=continuation.shape_matters(messages),
    )
    shape, fields = first.shape, first.fields
    shape_retry, fields_retry = first.shape_retry, first.fields_retry
    # The history budget the request is built within (the setting, else the default);
    # halved once when Cursor refused a request too long for the model (FOLD_HARDER).
    budget = resolve_budget(os.environ.get(limits.HISTORY_BUDGET_ENV), ctx.history_budget)
    folded_harder = False
    while True:
        if conversation.expire_checkpoint(time.monotonic()):
            log.info("the kept checkpoint is older than Cursor keeps one; rebuilding from history")
        attempt = Attempt(
            ctx,
            state,
            messages=messages,
            system=system,
            tools=tools,
            token=token,
            wire=wire,
            resolved=resolved,
            conversation=conversation,
            table=table,
            # The discovery id is worth one retry only while it would send something new.
            retries=decisions.Retries(
                variant=variant_retry,
                discovery=mode == "normalized" and resolved.discovery != wire,
                shape=shape_retry,
                fields=fields_retry,
            ),
            shape=shape,
            fields=fields,
            budget=budget,
            folded_harder=folded_harder,
            memo=memo,
            may_fail_over=may_fail_over,
        )
        result = await attempt.run()
        if isinstance(result, decisions.Decision):
            if result.next is Next.FAILOVER:
                return result
            if result.next is Next.FOLD_HARDER:
                facts = result.facts
                log.info(
                    "Cursor refused a request of about %d tokens and %d history blobs "
                    "(window %d); folding older messages harder and retrying once",
                    facts.tokens,
                    facts.roots,
                    facts.window,
                )
                budget, folded_harder = budget.halved(), True
                continue
            if result.next is Next.RETRY_SHAPE:
                shape_retry, shape = False, continuation.other_shape(shape)
                log.info("retrying %s with the %s continuation", loggable(ctx.model), shape.value)
                continue
            if result.next is Next.RETRY_FIELDS:
                fields_retry, fields = False, continuation.ModelFields.REQUESTED_ONLY
                log.info("Cursor refused both model fields; retrying with requested_model alone")
                continue
            if result.next is Next.RETRY_VARIANT:
                variant_retry = False
                routed = await model_resolution.fresh_variant(ctx, state, token, wire)
                if routed != wire:
                    log.info(
                        "Cursor refused %s bare; retrying on its variant", loggable(wire.details_id)
                    )
                    wire = routed
                    continue
            else:
                log.info(
                    "Cursor did not know %s; retrying with the discovery id",
                    loggable(wire.requested_id),
                )
                mode, wire = "discovered", resolved.discovery
                continue
            # The variant the catalog names is the one refused: the run's end, without it.
            raise attempt.ended(decisions.without_retry(result))
        if result.finish_reason == "tool_calls":
            calls = result.message.get("tool_calls") or []
            handed.extend(call_key(str(c["id"])) for c in calls if c.get("id"))
            with state.lock:
                state.conversations.handed_off(conversation, handed)
        news = continuation.learned_after(first, learned, shape, fields)
        if news is not None:
            await shapes.learn(state, ctx.model, news)
        return result
