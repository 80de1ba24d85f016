"""A round's history read: its system prompt split off, lone surrogates replaced, a memo kept.

The lane calls ``read_history`` first with the round's messages. A round of a
session takes that session's ``history_memo.HistoryMemo`` from the state
(``take_memo``) and gives it back when it ends (``give_memo``): each pass over
the history then reads only the messages the session's last round did not. A
round without a session, or whose history is not plain JSON, reads it all.

What the split and the replacement mean is ``system_prompt.py``'s and
``surrogates.py``'s; what the memo may serve is ``history_memo.py``'s.
"""

from __future__ import annotations

import logging
from typing import Any

from ..core.history_memo import HistoryMemo
from ..core.surrogates import valid_messages, valid_unicode
from ..core.system_prompt import split_system
from ..host import RoundContext
from ..state import CellState

__all__ = ["give_memo", "read_history", "take_memo"]

log = logging.getLogger("nodecode_cursor.lanes.round_history")


def take_memo(state: CellState, session_id: str | None) -> HistoryMemo | None:
    """Return the memo of SESSION_ID's history for this round to hold (None: no session)."""
    if not session_id:
        return None
    memos = state.history_memos
    with state.lock:
        return memos.take(session_id)


def give_memo(state: CellState, session_id: str | None, memo: HistoryMemo | None) -> None:
    """Give MEMO back as SESSION_ID's, for the session's next round."""
    if memo is None or not session_id:
        return
    memos = state.history_memos
    with state.lock:
        memos.give(session_id, memo)


def read_history(
    ctx: RoundContext, memo: HistoryMemo | None
) -> tuple[str | None, list[dict[str, Any]], list[dict[str, Any]], HistoryMemo | None]:
    """Return the round's system prompt, history and tools, valid Unicode, and the memo to use.

    The system/developer messages that open the history, and those after the
    person's last message, are the system prompt (``ctx.system`` wins over the
    opening ones) and leave the history, so the person's message stays the
    action; others ride as user turns (history.py). A lone surrogate (protobuf
    cannot encode one) becomes U+FFFD: refusing it would fail every later round
    of the session too. The host's own values are left as they were. The memo
    returned is MEMO, or None when the history cannot be read with one.
    """
    messages: Any = ctx.messages
    if memo is not None:
        copies = memo.read(messages)
        if copies is None:
            memo = None
        else:
            messages = copies
    system, history = split_system(messages, ctx.system, memo.split if memo is not None else None)
    history, in_messages = valid_messages(history, memo.unicode if memo is not None else None)
    system, in_system = valid_unicode(system)
    tools, in_tools = valid_unicode(ctx.tools)
    if in_messages or in_system or in_tools:
        log.debug(
            "replaced lone surrogates with U+FFFD in %d string(s) of the history, "
            "%d of the system prompt, %d of the tools",
            in_messages,
            in_system,
            in_tools,
        )
    return system, history, tools, memo
