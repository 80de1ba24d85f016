"""A session's history as its last round read it, so the next round reads only what is new.

A host sends its whole history every round, and a round makes several passes
over it: the system prompt's split, the lone-surrogate check, the digests of the
continuity mark, the image scan, the pairing of calls and results and the fold,
the repeated-call check. Over a long session those passes were most of a round's CPU, spent again
on messages the last round had read. ``HistoryMemo`` keeps, for one session, what
each pass made of the messages it read (each pass's ``seen.PassMemo``), so a
round reads only the messages that are new since the last.

A memo is served only for the same messages. ``HistoryMemo.read`` checks that:
it keeps its own copy of each message's dicts and lists (the strings and
numbers in them are shared: they cannot change) and compares the host's list
with it (``==``, in C). A message the host changed in place, replaced, dropped
or inserted fails the comparison, and every pass reads the whole history again.
What ``read`` hands the passes is its copies, which nothing modifies, so each
pass memo may trust that an object it read before is unchanged. Only plain JSON
values are copied (dict with string keys, list, str, int, float, bool, None): a
history holding anything else is read without the memo. One limit of ``==``:
1, 1.0 and True are one value to it, so a host that swaps one for another in a
message it sent before gets the request of what it sent first.

``HistoryMemos`` holds the memos of the sessions that ran last (at most
``limits.HISTORY_MEMO_SESSIONS``); a round takes its session's memo for itself
and gives it back when it ends, so two rounds never read one memo at once.

Pure: values only; which session a round is and when it takes its memo is the lane's.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from typing import Any

from .. import limits
from .continuation import RepeatsMemo
from .continuity import DigestPrefix
from .history_read import HistoryRead
from .images import ImageMemo
from .surrogates import UnicodeMemo
from .system_prompt import SplitMemo

__all__ = ["HistoryMemo", "HistoryMemos"]


class _Foreign(Exception):
    """A value that is not plain JSON: the history is read without the memo."""


def _copy(value: Any) -> Any:
    """Return VALUE with its dicts and lists copied; raise _Foreign for anything not plain JSON."""
    kind = type(value)
    if kind is str or value is None or kind is int or kind is bool or kind is float:
        return value
    if kind is dict:
        copied = {}
        for key, item in value.items():
            if type(key) is not str:
                raise _Foreign
            kind = type(item)
            copied[key] = item if kind is str or item is None else _copy(item)
        return copied
    if kind is list:
        return [_copy(item) for item in value]
    raise _Foreign


class HistoryMemo:
    """One session's history as its last round read it, and what each pass made of it."""

    __slots__ = ("_armed", "_seen", "build", "digests", "images", "repeats", "split", "unicode")

    def __init__(self) -> None:
        # our copies of the messages read, which nothing modifies
        self._seen: list[Any] = []
        # whether a round of the session read its history before (see ``read``)
        self._armed = False
        self.split = SplitMemo()
        self.unicode = UnicodeMemo()
        self.digests = DigestPrefix()
        self.repeats = RepeatsMemo()
        self.build = HistoryRead()
        self.images = ImageMemo()

    def reset(self) -> None:
        """Forget the history and what every pass made of it."""
        self._seen = []
        for memo in (self.split, self.unicode, self.digests, self.repeats, self.build):
            memo.reset()
        self.images.reset()

    def read(self, messages: Sequence[Any]) -> list[Any] | None:
        """Return MESSAGES as the memo's copies, or None: read them without the memo.

        The messages that go on from last round's are the same copies as then (each
        pass memo knows them); those after them are copied. MESSAGES that do not go
        on from last round's reset the memo first. None for messages that are not all
        plain JSON, and for the session's first round: copying a long history costs
        about what reading it does, which a process that runs one round (an ``ask``)
        would pay for nothing.
        """
        if not self._armed:
            self._armed = True
            return None
        seen = self._seen
        count = len(seen)
        if count:
            same = False
            if len(messages) >= count:
                head = messages[:count]
                try:
                    same = (head if type(head) is list else list(head)) == seen
                except Exception:  # a host's value whose == fails: not plain JSON
                    same = False
            if not same:
                self.reset()
                seen, count = self._seen, 0
        try:
            new = [_copy(message) for message in messages[count:]]
        except _Foreign:
            self.reset()
            return None
        seen += new
        return list(seen)


class HistoryMemos:
    """The memos of the sessions that ran last, by session id; the least recent leave first.

    A round ``take``s its session's memo (a new one when there is none) and
    ``give``s it back when it ends: a second round of the session meanwhile takes
    a new memo, and the one given back last stays. At most LIMIT sessions.
    """

    __slots__ = ("_memos", "limit")

    def __init__(self, limit: int = limits.HISTORY_MEMO_SESSIONS) -> None:
        self.limit = limit
        self._memos: OrderedDict[str, HistoryMemo] = OrderedDict()

    def __len__(self) -> int:
        return len(self._memos)

    def take(self, session_id: str) -> HistoryMemo:
        """Return SESSION_ID's memo, no longer held here (a new one when none is)."""
        memo = self._memos.pop(session_id, None)
        return memo if memo is not None else HistoryMemo()

    def give(self, session_id: str, memo: HistoryMemo) -> None:
        """Keep MEMO as SESSION_ID's, the most recent; the least recent leave past the limit."""
        memos = self._memos
        memos.pop(session_id, None)
        memos[session_id] = memo
        while len(memos) > self.limit:
            memos.popitem(last=False)
