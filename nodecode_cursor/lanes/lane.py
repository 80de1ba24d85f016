"""The ``cursor`` lane: one call runs one Cursor round, history in, one assistant message out.

A round is one Cursor run (docs/protocol.md §4–§9). The lane resolves the model
once (``model_resolution.resolve``: effort, wire slug, roster, max mode, catalog
variant and the retries they allow), asking on the way for the token (the
context's, else the cell's credential ladder, refreshing a due sign-in), reads
the history (``round_history.py``, ``round_images.py``), finds the round's
conversation (``round_conversation.py``) and runs the round on it
(``round_retries.run_round``): each ``attempt.Attempt`` builds the run request
(``request``), opens the run (``run_route``) and pumps it (``pump.Pump``: every
server message to the fold and the answerer, the answers back); when a run
ends, the attempt's ``Stage`` moves on as ``decisions.decide`` says: finish;
resume from the checkpoint (at most ``limits.MAX_RESUMES`` times); a retry the
round makes on a new attempt (the catalog's variant, the discovery id, a halved
history budget, the other continuation shape, ``requested_model`` alone); rotate
the conversation for a bare ``resource_exhausted`` no other cause explains (at
most ``limits.MAX_ROTATIONS`` times); or fail. A refusal another kept account
mends moves the round to it (``failover.py``). A kept checkpoint older than the
service keeps one is not sent, and one is dropped when a run ends
``invalid_argument`` or ``failed_precondition``: the next request rebuilds from
the history. What it keeps between rounds (conversations, the Kimi K3 writer
table, rosters) lives in the cell's ``CellState``, which the cell passes to every
round; what another process needs to go on with a conversation
(``continuity.Kept``) is read before the round and written after it, in a
worker thread.

This module is the round's entry and its account: the model, the token, the
history and the conversation, the failover, and the error a refused key's
session turns into. What a message means is ``fold.py``'s and ``answers.py``'s;
what follows a run is ``decisions.py``'s; the runs are ``attempt.py``'s; the
bytes on the wire are the transports'.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import threading
from typing import TYPE_CHECKING

from .. import limits
from ..account import key_exchange
from ..account.store import account_key
from ..core import decisions
from ..core.continuity import MessageDigests
from ..core.decisions import USAGE_PRICING_CODES
from ..errors import CursorError, ProviderError
from ..host import Finish, RoundContext, RoundResult
from ..models import model_resolution
from ..state import CellState
from . import failover, round_token
from .attempt import emit
from .round_conversation import FOLD_NOTICE_KEY, ended, keep_conversation, round_conversation
from .round_history import give_memo, read_history, take_memo
from .round_images import fitted_messages
from .round_retries import run_round

if TYPE_CHECKING:
    from ..core.history_memo import HistoryMemo
    from ..models.model_resolution import ResolvedModel

__all__ = [
    "FOLD_NOTICE_KEY",
    "TURN_END_GRACE_SECONDS",
    "USAGE_PRICING_CODES",
    "stream_round",
    "stream_round_sync",
]

log = logging.getLogger("nodecode_cursor.lanes.lane")

TURN_END_GRACE_SECONDS = limits.TURN_END_GRACE_SECONDS


def stream_round_sync(ctx: RoundContext, state: CellState | None = None) -> RoundResult:
    """Return ``stream_round(ctx, state)`` run to completion, for callers without an event loop.

    The public synchronous facade; without STATE the round keeps nothing (see ``stream_round``).
    """
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(stream_round(ctx, state))
    # Called from inside a running loop: run the round on a loop of its own.
    outcome: list[RoundResult] = []
    failure: list[BaseException] = []

    def run() -> None:
        try:
            outcome.append(asyncio.run(stream_round(ctx, state)))
        except BaseException as exc:  # handed back to the caller's thread below
            failure.append(exc)

    worker = threading.Thread(target=run, name="cursor-round", daemon=True)
    worker.start()
    worker.join()
    if failure:
        raise failure[0]
    return outcome[0]


async def stream_round(ctx: RoundContext, state: CellState | None = None) -> RoundResult:
    """Return one round on Cursor: the assistant message, usage and finish reason.

    STATE is what the cell keeps between rounds (conversations, writers, rosters);
    the cell passes its own. Without one the round builds a throwaway state: it
    keeps nothing, so a session rebuilds from the history every round and a
    roster-only model asks the roster every time.
    Stream parts go to ``ctx.on_part`` as they arrive (StreamStart first; Finish
    last, when the round succeeds). Raises ConfigError (bad model or effort, not
    signed in — before any run; a model only the roster names asks the roster
    first: ``model_resolution.resolve``), ProviderError (the service's own
    error), StreamIncomplete (the stream ended before the turn did; a retry may
    work). Cancelling the task stops the run at once.
    """
    if state is None:
        state = CellState()
    # Which kept account the round starts on, when it has a choice (failover.py).
    accounts = await failover.round_accounts(ctx, state)
    by_name = accounts.by_name if accounts is not None else None
    # The model in one step: bundled row, roster, max-mode marker, catalog variant and
    # the retries it allows; the token is asked once the effort is known good.
    token, resolved = await model_resolution.resolve(
        ctx, state, functools.partial(round_token.token, ctx, state, by_name)
    )
    # The session's history as its last round read it: each pass over the history
    # reads only the messages that round did not (round_history.py).
    held = take_memo(state, ctx.session_id)
    try:
        return await _read_round(ctx, state, token, resolved, held, accounts)
    finally:
        give_memo(state, ctx.session_id, held)


async def _read_round(
    ctx: RoundContext,
    state: CellState,
    token: str,
    resolved: ResolvedModel,
    held: HistoryMemo | None,
    accounts: failover.RoundAccounts | None,
) -> RoundResult:
    """Return ``stream_round``'s result, the history read with HELD, the session's memo;
    ACCOUNTS, when the round has a choice of kept accounts, may take it over (failover.py)."""
    system, messages, tools, memo = read_history(ctx, held)
    # Hashed once for both questions about the history (does it go on from the
    # session's last round, and what is this round's mark); a long message seen in
    # an earlier round is not hashed again (the memo is read under the state's lock).
    known = memo.digests if memo is not None else None
    digests = MessageDigests(messages, state.digest_memo, known)
    conversation = await round_conversation(state, ctx.session_id, digests, account_key(token))
    # Images within Cursor's limits, earlier ones as placeholders (round_images.py);
    # after the digests, which stay the host's own messages.
    messages = await fitted_messages(ctx, messages, memo)
    with state.lock:
        table = state.writers
    handed: list[str] = []
    try:
        while True:
            outcome = await run_round(
                ctx,
                state,
                resolved,
                token,
                conversation,
                table,
                messages,
                system,
                tools,
                handed,
                memo,
                may_fail_over=accounts is not None and accounts.may_move(),
                started=accounts is not None and bool(accounts.switches),
            )
            if isinstance(outcome, RoundResult):
                result = outcome
                break
            # Refused before any output for a cause another account mends: the same round
            # on the next account, as a conversation new to it (the whole history).
            assert accounts is not None  # only a round that may move is told to
            moved = await failover.take_over(ctx, state, accounts, outcome, resolved)
            if moved is None:
                raise ended(conversation, decisions.without_failover(outcome))
            token = moved
            _, resolved = await model_resolution.resolve(
                ctx, state, functools.partial(round_token.given, moved)
            )
            with state.lock:
                conversation.for_account(account_key(token))
    except CursorError as exc:
        await keep_conversation(state, conversation, digests, None, handed)
        if exc.status == 401 and key_exchange.forget(token):
            log.info("Cursor refused the API key's session token; the next round exchanges it")
            raise ProviderError(
                "Cursor refused the session token the API key was exchanged for; the key is"
                " exchanged again on the next round (try again)",
                status=401,
                retryable=True,
                code="api_key_session_refused",
            ) from exc
        said = await failover.refused(ctx, state, accounts, exc)
        if said is exc:
            raise
        raise said from exc
    await keep_conversation(state, conversation, digests, result.message, handed)
    emit(ctx, Finish(result.finish_reason))
    return failover.stamped(result, accounts)
