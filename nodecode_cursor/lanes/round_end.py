"""A complete run's end: the conversation keeps its checkpoint, the round its result.

``finished`` is what an attempt does once a run said the whole turn: the
conversation's failure streak ends and it keeps the run's checkpoint, the writer
table records each assistant message in memory, the round's end is logged at
DEBUG, and the ``RoundResult`` is built from the fold. Writing the writer table
to disk (which may wait on another process's lock) is the caller's, off the
event loop; when a run ends is ``decisions.py``'s.
"""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING

from ..core.cost import round_cost
from ..errors import loggable
from ..host import RoundContext, RoundResult

if TYPE_CHECKING:
    from ..core.blobs import Conversation
    from ..core.fold import Fold
    from ..core.request import RunRequestBuild
    from ..core.writers import WriterTable
    from ..models.routing import WireModel

__all__ = ["finished"]

log = logging.getLogger("nodecode_cursor.lanes.round_end")


def finished(
    ctx: RoundContext,
    conversation: Conversation,
    table: WriterTable,
    wire: WireModel,
    build: RunRequestBuild,
    fold: Fold,
    *,
    duration: float,
    frames: int,
) -> tuple[RoundResult, list[str]]:
    """Return the result of a complete run and the writer digests to put on disk.

    The conversation keeps the run's checkpoint; the writer table records each
    assistant message in memory (``persist=False``: the disk waits for the caller).
    DURATION (seconds since the first run opened) and FRAMES (server messages over
    all runs) go to the DEBUG line only.
    """
    conversation.turn_completed()
    conversation.seen = True
    if fold.checkpoint is not None:
        conversation.keep_checkpoint(
            fold.checkpoint, build.history.system_ids, now=time.monotonic()
        )
    messages = fold.messages()
    message = messages[-1]
    written = [
        table.record(said, ctx.model, persist=False)
        for said in messages
        if said.get("role") == "assistant"
    ]
    usage = fold.usage
    log.debug(
        "round end finish=%s input=%d output=%d cache_read=%d cache_write=%d "
        "reasoning=%d duration=%.3f s frames=%d",
        loggable(fold.finish_reason),
        usage.input,
        usage.output,
        usage.cache_read,
        usage.cache_write,
        usage.reasoning,
        duration,
        frames,
    )
    result = RoundResult(
        message=message,
        usage=fold.usage,
        finish_reason=fold.finish_reason,
        request=build.data,
        # The routed sibling slug (ModelDetails), not the base id RequestedModel
        # carries: what a person needs to see which tier the round ran on.
        wire_model=wire.details_id,
        cost_usd_estimate=round_cost(ctx.model, fold.usage),
        messages=messages,
        folded=build.history.folded,
        fold_reason=build.history.fold_reason,
    )
    return result, written
