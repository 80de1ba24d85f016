"""A round's conversation: found before the round, kept after it, told of a fold, rotated.

``round_conversation`` finds the conversation a round goes on in (the session's,
or the one whose handed-off calls the history answers, through the store when
another process ran it); ``keep_conversation`` writes what another process
needs to go on with it; ``tell_fold`` says once per conversation that its history
folds; ``ended`` carries out a FAIL or ROTATE decision on it and returns the
error. The store may wait on another process's lock, so it is read and written
in a worker thread.

Which conversation a history belongs to is ``conversations.py``'s; what a
conversation holds is ``blobs.py``'s; the store's file is ``continuity.py``'s.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..core import decisions
from ..core.continuity import MessageDigests, call_key, history_mark, session_key, trailing_call_ids
from ..core.decisions import Next
from ..errors import ProviderError
from ..host import RoundContext
from ..state import CellState

if TYPE_CHECKING:
    from ..core.blobs import Conversation
    from ..core.history import HistoryBlobs

__all__ = ["FOLD_NOTICE_KEY", "ended", "keep_conversation", "round_conversation", "tell_fold"]

log = logging.getLogger("nodecode_cursor.lanes.round_conversation")

# The notice that says a conversation's history folds (its own key: the sign-in's
# notice stands under the cell's).
FOLD_NOTICE_KEY = "cursor-history"


async def round_conversation(
    state: CellState, session_id: str | None, digests: MessageDigests, account: str
) -> Conversation:
    """Return the round's conversation (``Conversations.for_round``), its kept records read.

    DIGESTS holds the round's messages (``MessageDigests.messages``); ACCOUNT is the
    round's (``store.account_key``): a wire id another account ran starts afresh.

    A history that ends on the results of calls a round handed off (in this
    process or, through the store, in another) goes on in that round's
    conversation: a host that sends no session, or a new one for every request
    (as an API server does for each Responses call), or a new process, still
    continues its tool loop instead of starting over. The store may wait on
    another process's lock, so it is read in a worker thread.
    """
    calls = [call_key(call_id) for call_id in trailing_call_ids(digests.messages)]
    store = state.continuity
    by_call = own = None
    if store is not None and (calls or session_id):
        own_key = session_key(session_id) if session_id else None
        by_call, own = await asyncio.to_thread(store.lookup, own_key, calls)
    with state.lock:
        return state.conversations.for_round(session_id, digests, calls, by_call, own, account)


async def keep_conversation(
    state: CellState,
    conversation: Conversation,
    digests: MessageDigests,
    reply: Mapping[str, Any] | None,
    handed: Sequence[str],
) -> None:
    """Write what another process needs to go on with CONVERSATION, in a worker thread.

    A session's conversation also keeps the mark of the messages a complete round
    sent (DIGESTS) and its REPLY (a later round that holds neither is a side request); a
    sessionless one is written only once it handed off calls (HANDED).
    """
    with state.lock:
        if conversation.key.startswith("s:") and reply is not None:
            conversation.mark = history_mark(digests, reply)
        store = state.continuity
        if store is None or not conversation.lasting:
            return
        kept = conversation.kept()
    await asyncio.to_thread(store.save, kept, list(handed))


def tell_fold(ctx: RoundContext, conversation: Conversation, history: HistoryBlobs) -> None:
    """Log a request's folded history at INFO, and tell the host once per conversation."""
    if not history.folded:
        return
    log.info(
        "history folded: %d earlier messages into a summary, because %s",
        history.folded,
        history.fold_reason,
    )
    if conversation.fold_told or ctx.host is None:
        return
    conversation.fold_told = True
    ctx.host.notice(
        f"cursor: this conversation is long, so its oldest {history.folded} messages are "
        f"sent as a short summary ({history.fold_reason}); the newest messages and the "
        "current round still go whole.",
        key=FOLD_NOTICE_KEY,
        level="info",
    )


def ended(conversation: Conversation, decision: decisions.Decision) -> ProviderError:
    """Return the error DECISION (a FAIL or ROTATE) ends the round with, after its effect.

    A ROTATE gives CONVERSATION a new wire id (``Conversation.poison``, once per
    failure streak) for the next round; the round fails either way.
    """
    error = decision.error
    if error is None or decision.next not in (Next.FAIL, Next.ROTATE):
        raise ValueError(f"a {decision.next.value} decision ends no round with an error")
    if decision.next is Next.ROTATE and conversation.poison():
        log.info("Cursor refused the conversation (resource_exhausted); rotating its id")
    return error
