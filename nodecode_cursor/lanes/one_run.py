"""One run of an attempt: opened on its route, pumped to its end, and what broke it.

``run_once`` opens the run (``run_route.open_run``), logs its start at DEBUG
(never a token or a body), sends the request and pumps it (``pump.Pump``) until
it ends; then tells what broke it: the run's error, its end-stream error unless
the fold found it moot, or StreamIncomplete for a stream that ended before the
turn did. A run ending ``invalid_argument`` or ``failed_precondition`` drops the
conversation's kept checkpoint: the next request rebuilds from the history.

What follows the run is ``decisions.py``'s, carried out by ``attempt.py``; the
route is ``run_route.py``'s; each message is the pump's, the fold's and the
answerer's.
"""

from __future__ import annotations

import dataclasses
import logging
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from ..core.answers import Answerer
from ..core.fold import Fold
from ..errors import ProviderError, StreamIncomplete, loggable
from ..host import NativeRunner, RoundContext, StreamPart
from ..state import CellState
from ..transports.run import RunSettings
from ..transports.run_route import open_run
from .pump import Pump

if TYPE_CHECKING:
    from ..core.blobs import Conversation
    from ..models.routing import WireModel

__all__ = ["RunEnd", "run_once"]

log = logging.getLogger("nodecode_cursor.lanes.one_run")

# A run ending with one of these codes drops the kept checkpoint (docs/protocol.md §9).
_STALE_CHECKPOINT_CODES = frozenset({"invalid_argument", "failed_precondition"})


@dataclasses.dataclass(frozen=True, slots=True)
class RunEnd:
    """How one run ended: what broke it (None: it said the whole turn) and what the pump saw."""

    broke: ProviderError | None
    # The stream ended without turn_ended after a checkpoint of this round, though the
    # completeness rule would call it whole.
    ended_whole: bool
    request_id: str  # the id the service knows this run by (a move to RunPoll renews it)
    frames: int  # server messages received, heartbeats included
    answered_since_checkpoint: bool
    after_step_completed: bool
    spoke: bool


async def run_once(
    ctx: RoundContext,
    state: CellState,
    settings: RunSettings,
    data: bytes,
    fold: Fold,
    answerer: Answerer,
    *,
    show: Callable[[StreamPart], None] | None,
    runner: NativeRunner | None,
    wire: WireModel,
    conversation: Conversation,
    messages: int,
    frames_before: int = 0,
) -> RunEnd:
    """Return how one run of request DATA ended, pumped through FOLD and ANSWERER.

    SHOW gets the stream parts, RUNNER the native asks the host serves. WIRE,
    CONVERSATION and MESSAGES (the history's length) go to the DEBUG start line;
    FRAMES_BEFORE (the attempt's earlier runs') to the line of a failed run.
    """
    started = time.monotonic()
    run = open_run(settings, state.run_connections)
    pump = Pump(
        run,
        fold,
        answerer,
        show=show,
        runner=runner,
        max_reply_bytes=state.max_reply_bytes,
    )
    broke: ProviderError | None = None
    try:
        async with run:
            _log_start(ctx, wire, conversation, messages, data, run.request_id, settings)
            run.send(data)
            await pump.drain()
    except ProviderError as exc:
        broke = exc
    ended_whole = False
    if broke is not None:
        log.debug(
            "run failed after %.3f s, frames=%d: %s",
            time.monotonic() - started,
            frames_before + pump.frames,
            loggable(broke.detail),
        )
    elif run.end_error is not None and not fold.end_error_ignored:
        broke = run.end_error
    elif not fold.turn_ended and (fold.checkpoint is not None or not fold.complete):
        ended_whole = fold.complete
        why = run.cut or "the stream ended before the turn did"
        broke = StreamIncomplete(f"Cursor's answer is incomplete: {why} (try again)")
    if broke is not None and broke.code in _STALE_CHECKPOINT_CODES:
        # The service may no longer hold what the checkpoint names (opencodex drops
        # one on invalid_argument): the next request rebuilds from the history.
        conversation.drop_checkpoint()
    return RunEnd(
        broke=broke,
        ended_whole=ended_whole,
        request_id=run.request_id,
        frames=pump.frames,
        answered_since_checkpoint=pump.answered_since_checkpoint,
        after_step_completed=pump.after_step_completed,
        spoke=pump.spoke,
    )


def _log_start(
    ctx: RoundContext,
    wire: WireModel,
    conversation: Conversation,
    messages: int,
    data: bytes,
    request_id: str,
    settings: RunSettings,
) -> None:
    """Log the run's routing and request at DEBUG: never a token or a body (returns nothing)."""
    original = settings.original_request_id
    log.debug(
        "round %s model=%s effort=%s slug=%s requested=%s parameters=%s max_mode=%s "
        "session=%s conversation=%s request_id=%s original_request_id=%s messages=%d "
        "bytes=%d",
        "start" if original is None else "resume",
        # What a client (the session, the model) or the service chose: escaped.
        loggable(ctx.model),
        loggable(ctx.effort),
        loggable(wire.details_id),
        loggable(wire.requested_id),
        loggable(",".join(f"{key}={value}" for key, value in wire.parameters) or "-"),
        wire.max_mode,
        loggable(ctx.session_id),
        loggable(conversation.conversation_id),
        loggable(request_id),
        loggable(original or "-"),
        messages,
        len(data),
    )
