"""What one pass over a round's history read last round, and whether this round goes on from it.

A round makes several passes over its whole history (the system prompt's split,
the lone-surrogate check, the continuity digests, the image scan, the pairing
of calls and results, the repeated-call check). Each may keep a ``PassMemo``: the items it
read and its state after them. When a later round's list opens with those same
items, only the items after them are new, and the pass reads just those.

``PassMemo.known`` makes that check: the same objects (the common case, and in C
a pointer compare each), or equal ones (``==``). It is sound because the items a
pass memo sees are ``history_memo.HistoryMemo.read``'s copies or values made from
them, which nothing modifies: an object the memo saw before is unchanged. A list
that does not go on from the items seen (a message edited, dropped or inserted)
resets the memo and the pass reads it all, as a pass without a memo does.

Pure: values only. What each pass keeps is its own module's (``system_prompt``,
``surrogates``, ``continuity``, ``images``, ``continuation``, ``history_read``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = ["PassMemo"]


class PassMemo:
    """The items one pass read (``seen``); a subclass adds its state after them.

    A subclass's ``reset`` clears its state too (and calls this one). A pass that
    fails halfway resets its memo, so a half-read state is never served.
    """

    __slots__ = ("seen",)

    def __init__(self) -> None:
        self.seen: list[Any] = []

    def reset(self) -> None:
        """Forget everything read: the next pass reads its items from the first."""
        self.seen = []

    def known(self, items: Sequence[Any]) -> int:
        """Return how many leading ITEMS were read before (0 after a reset: they were not).

        ITEMS go on from what was read when they open with the items seen, the
        same or equal; anything else resets the memo.
        """
        seen = self.seen
        count = len(seen)
        if not count:
            return 0
        if len(items) >= count:
            head = items[:count]
            if type(head) is not list:
                head = list(head)
            if head == seen:
                return count
        self.reset()
        return 0
