"""Folding a history to its budget: which units stay whole, and the transcript of the rest.

A run request may carry at most ``HistoryBudget.roots`` root blobs and
``HistoryBudget.bytes`` of root JSON (``budget.py``, with the source of the
figures). When a history is over it, the request keeps whole what the round
cannot do without (the system prompt, the person's latest message, the calls
and results of the current round: the *pinned* units) and then the newest
other units that fit. A *unit* is one user message, or one assistant message
with the results of its calls (a call is never split from its result). The
units that do not fit, oldest first, are folded into one compact transcript
root blob, so nothing leaves the model's view without a trace.

The fold is a pure function of the history: the same history folds the same
way, byte for byte. How many units are folded is rounded up to a step, so the
folded prefix and its transcript change once every several rounds rather than
every round (Cursor's prompt cache keys on a stable prefix).

This module decides and writes text; it knows nothing of blobs or of the chat
message shapes beyond reading a message's text. Building the root blobs of the
units, and the JSON blob around the transcript, is ``history.py``'s.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import chain
from typing import Any, overload

from .. import limits
from .budget import HistoryBudget

__all__ = [
    "Fold",
    "FoldPlan",
    "TranscriptMemo",
    "fold_units",
    "plan_fold",
    "said_of",
    "transcript_cap",
    "transcript_text",
]

# (root blobs, root JSON bytes) of a unit or of a fixed part of the request.
Cost = tuple[int, int]


@dataclass(frozen=True, slots=True)
class FoldPlan:
    """How many of the oldest unpinned units fold (0: none), and why (empty when none)."""

    folded: int
    reason: str = ""


def transcript_cap(budget: HistoryBudget) -> int:
    """Return the most bytes the transcript blob may take within BUDGET."""
    return max(1024, min(limits.FOLD_TRANSCRIPT_BYTES, budget.bytes // 8))


def _step(fitting: int) -> int:
    """Return the step the folded count is rounded up to, for FITTING units that stay.

    A power of two near half of what stays (at most ``limits.FOLD_STEP_UNITS``):
    the steps nest, so a count rounded to a larger step is also a multiple of a
    smaller one, and a history whose units are large still keeps about half.
    """
    step = 1
    while step * 2 <= min(max(fitting // 2, 1), limits.FOLD_STEP_UNITS):
        step *= 2
    return step


def plan_fold(
    units: int,
    pinned: Collection[int],
    cost: Callable[[int], Cost],
    budget: HistoryBudget,
    fixed: Cost,
) -> FoldPlan:
    """Return how many of the oldest unpinned units of UNITS to fold so the rest fit BUDGET.

    COST(i) is unit i's (roots, bytes), asked newest first and only as far as
    the budget reaches, so a folded unit's blobs need never be built. FIXED is
    what the request carries besides the units (the system prompt). The pinned
    units always stay, even when they alone are over the budget: a finished
    result is never dropped. Once something folds, the transcript's root and
    its cap are reserved out of the budget.
    """
    roots, size = fixed
    for index in pinned:
        unit_roots, unit_bytes = cost(index)
        roots += unit_roots
        size += unit_bytes
    room_roots = budget.roots - 1
    room_bytes = budget.bytes - transcript_cap(budget)
    fitting_all = fitting_reserved = 0
    reason = ""
    # the unpinned units, newest first: read only as far as the budget reaches
    for index in _free(units, pinned, reverse=True):
        unit_roots, unit_bytes = cost(index)
        roots += unit_roots
        size += unit_bytes
        if roots > budget.roots or size > budget.bytes:
            reason = _reason(roots > budget.roots, budget)
            break
        fitting_all += 1
        if roots <= room_roots and size <= room_bytes:
            fitting_reserved += 1
    free = units - len({index for index in pinned if 0 <= index < units})
    if fitting_all == free:
        return FoldPlan(0)
    step = _step(fitting_reserved)
    need = free - fitting_reserved
    return FoldPlan(min(free, -(-need // step) * step), reason)


def _free(units: int, pinned: Collection[int], *, reverse: bool = False) -> Iterator[int]:
    """Return the indexes of UNITS units that are not PINNED, in order (newest first: REVERSE)."""
    indexes = range(units - 1, -1, -1) if reverse else range(units)
    return (index for index in indexes if index not in pinned)


def _last_folded(folded: int, pinned: Collection[int]) -> int:
    """Return the index of the last unit of the FOLDED oldest that are not PINNED."""
    last = folded - 1
    for index in sorted(pinned):
        if index > last:
            break
        last += 1
    return last


def _reason(roots: bool, budget: HistoryBudget) -> str:
    """Return why a history folds: which of BUDGET's two bounds it passed."""
    if roots:
        return f"the history is over {budget.roots} root blobs (Cursor refuses about 208)"
    return f"the history is over {budget.bytes // 1024} KiB of prompt"


@dataclass(frozen=True, slots=True)
class Fold:
    """A history fitted to its budget: the root ids of the units that stay, in order, and the rest.

    ``folded`` holds the indexes of the messages folded; ``transcript`` their
    transcript text ("" when nothing folds); ``reason`` why they folded.
    ``built_ids`` are the ids of every unit built to count the budget, folded
    ones too: worth keeping, so the next round counts them without building again.
    ``kept_units`` are the indexes of the units that stay, in order.
    """

    kept_ids: tuple[bytes, ...]
    folded: frozenset[int]
    transcript: str
    reason: str
    built_ids: frozenset[bytes] = frozenset()
    kept_units: tuple[int, ...] = ()


def fold_units(
    units: Sequence[tuple[int, ...]],
    pinned: Collection[int],
    unit_ids: Callable[[int], list[bytes]],
    size: Callable[[bytes], int],
    rows: Sequence[Mapping[str, Any]],
    names: Mapping[str, str],
    *,
    budget: HistoryBudget,
    fixed: Cost,
    transcripts: TranscriptMemo | None = None,
) -> Fold:
    """Return the history's UNITS (each its message indexes) fitted to BUDGET.

    UNIT_IDS(i) builds unit i's root blob ids (asked at most once each, newest
    first, and never for a unit that folds); SIZE says a blob's bytes. ROWS are
    the chat messages the units index, NAMES the tool name of each call id, for
    the transcript. PINNED and FIXED are ``plan_fold``'s. TRANSCRIPTS is the last
    transcript written of these ROWS (``TranscriptMemo``).
    """
    built: dict[int, list[bytes]] = {}

    def ids(unit: int) -> list[bytes]:
        found = built.get(unit)
        if found is None:
            found = built[unit] = unit_ids(unit)
        return found

    def cost(unit: int) -> Cost:
        found = ids(unit)
        return len(found), sum(map(size, found))

    plan = plan_fold(len(units), pinned, cost, budget, fixed)
    kept_units: Sequence[int] = range(len(units))
    if plan.folded:
        # the oldest unpinned units fold: every unit up to the last of them but the pinned
        last = _last_folded(plan.folded, pinned)
        kept_units = [*sorted(index for index in pinned if index < last), *kept_units[last + 1 :]]
    kept: list[bytes] = []
    for unit in kept_units:
        kept += ids(unit)
    if not plan.folded:
        return Fold(tuple(kept), frozenset(), "", "", kept_units=tuple(kept_units))
    folded = set(chain.from_iterable(units[: last + 1]))
    folded.difference_update(*(units[index] for index in pinned if index < last))
    text = (transcripts or TranscriptMemo()).text(frozenset(folded), rows, names, budget)
    counted = frozenset(blob for found in built.values() for blob in found)
    return Fold(tuple(kept), frozenset(folded), text, plan.reason, counted, tuple(kept_units))


class TranscriptMemo:
    """The last transcript written of one history's rows, and what it read to write it.

    The folded messages change once every several rounds (the folded count is
    rounded up to a step), so most rounds write the transcript they wrote last.
    It is served again for the same folded messages, cap and tool names of the
    results it quotes; the rows must be the same messages, unchanged (the owner,
    ``history_read.HistoryRead``, forgets it whenever it reads its rows anew).
    """

    __slots__ = ("_cap", "_folded", "_names", "_text")

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        """Forget the transcript."""
        self._folded: frozenset[int] | None = None
        self._cap = 0
        self._names: tuple[tuple[str, str | None], ...] = ()
        self._text = ""

    def text(
        self,
        folded: frozenset[int],
        rows: Sequence[Mapping[str, Any]],
        names: Mapping[str, str],
        budget: HistoryBudget,
    ) -> str:
        """Return ``transcript_text`` of the FOLDED ROWS within BUDGET's cap (NAMES: tool names)."""
        cap = transcript_cap(budget)
        if (
            folded == self._folded
            and cap == self._cap
            and all(names.get(call_id) == name for call_id, name in self._names)
        ):
            return self._text
        said = _SaidOf(sorted(folded), rows, names)
        text = transcript_text(said, cap)
        quoted = []
        for index in said.read:
            row = rows[index]
            if row.get("role") == "tool":  # the name said_of reads for it
                call_id = row.get("tool_call_id")
                call_id = call_id if isinstance(call_id, str) else ""
                quoted.append((call_id, names.get(call_id)))
        self._folded, self._cap, self._names, self._text = folded, cap, tuple(quoted), text
        return text


# --- the transcript ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Said:
    """One folded message as the transcript reads it: who said it and what."""

    who: str
    text: str


def _text(content: Any) -> str:
    """Return a chat message's content as text (parts joined; an image as ``[MIME image]``)."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    lines: list[str] = []
    for part in content:
        if not isinstance(part, Mapping):
            continue
        if part.get("type") == "text" and isinstance(part.get("text"), str):
            lines.append(part["text"])
        elif part.get("type") == "image_url":
            lines.append("[image]")
    return "\n".join(lines)


def said_of(message: Mapping[str, Any], names: Mapping[str, str]) -> Said:
    """Return what MESSAGE (an OpenAI chat message) says; NAMES maps call ids to tool names."""
    role = message.get("role")
    text = _text(message.get("content"))
    if role == "tool":
        call_id = message.get("tool_call_id")
        call_id = call_id if isinstance(call_id, str) else ""
        failed = " (failed)" if message.get("is_error") is True else ""
        return Said(f"result of {names.get(call_id, 'a tool')} [{call_id}]{failed}", text)
    if role != "assistant":
        return Said("user", text)
    lines = [text] if text else []
    calls = message.get("tool_calls")
    for call in calls if isinstance(calls, list) else ():
        if not isinstance(call, Mapping):
            continue
        function = call.get("function")
        function = function if isinstance(function, Mapping) else {}
        arguments = function.get("arguments")
        if not isinstance(arguments, str):
            arguments = json.dumps(arguments, ensure_ascii=False, sort_keys=True, default=str)
        lines.append(f"called {function.get('name')} [{call.get('id')}] {arguments}")
    return Said("assistant", "\n".join(lines))


class _SaidOf(Sequence[Said]):
    """The folded messages as the transcript reads them, each read only when it is asked for.

    The transcript takes the newest few that fit its cap; a long session folds
    hundreds more every round, and reading each (its text joined, its calls
    written out) would cost a round time in the length of the whole history.
    """

    def __init__(
        self, indexes: Sequence[int], rows: Sequence[Mapping[str, Any]], names: Mapping[str, str]
    ) -> None:
        self._indexes = indexes
        self._rows = rows
        self._names = names
        # the indexes of the rows read, for ``TranscriptMemo``
        self.read: list[int] = []

    def __len__(self) -> int:
        return len(self._indexes)

    @overload
    def __getitem__(self, at: int) -> Said: ...
    @overload
    def __getitem__(self, at: slice) -> Sequence[Said]: ...
    def __getitem__(self, at: int | slice) -> Said | Sequence[Said]:
        if isinstance(at, slice):
            indexes = self._indexes[at]
            self.read += indexes
            return [said_of(self._rows[i], self._names) for i in indexes]
        index = self._indexes[at]
        self.read.append(index)
        return said_of(self._rows[index], self._names)


def _cut(text: str, cap: int) -> str:
    """Return TEXT within CAP UTF-8 bytes: its head and tail around a marker of what was cut."""
    if text.isascii():
        # One byte a character: the same cut on the text, without encoding all of it.
        if len(text) <= cap:
            return text
        head, tail = text[: cap * 3 // 4], text[len(text) - cap // 4 :]
        return f"{head}\n[… {len(text) - len(head) - len(tail)} bytes cut …]\n{tail}"
    data = text.encode("utf-8", "replace")
    if len(data) <= cap:
        return data.decode("utf-8")
    head = data[: cap * 3 // 4].decode("utf-8", "ignore")
    tail = data[len(data) - cap // 4 :].decode("utf-8", "ignore")
    cut = len(data) - len(head.encode()) - len(tail.encode())
    return f"{head}\n[… {cut} bytes cut …]\n{tail}"


def _size(line: str) -> int:
    """Return LINE's size inside a JSON string, with the newline after it (escaped: 2 bytes)."""
    return len(json.dumps(line, ensure_ascii=False).encode())


def transcript_text(said: Sequence[Said], cap: int) -> str:
    """Return the transcript of the folded messages SAID (oldest first), within CAP bytes.

    Each message is cut to ``limits.FOLD_MESSAGE_BYTES`` (head and tail, with a
    marker saying how many bytes went); the newest come first into the room, and
    those that find none are counted in a line that says they were left out.
    """
    head = (
        f"[Summary of {len(said)} earlier messages of this conversation, folded to keep "
        "the request within Cursor's limits. Each is shortened; the newest messages "
        "follow in full after this summary.]"
    )
    room = cap - _size(head) - 256  # the blob's JSON around the text, and the omitted line
    lines: list[str] = []
    for entry in reversed(said):
        line = f"{entry.who}: {_cut(entry.text, limits.FOLD_MESSAGE_BYTES)}"
        size = _size(line)
        if size > room:
            break
        room -= size
        lines.append(line)
    omitted = len(said) - len(lines)
    if omitted:
        lines.append(f"[{omitted} earlier messages omitted entirely: the summary is full.]")
    lines.append(head)
    lines.reverse()
    return "\n".join(lines)
