"""The history budget: how many root blobs and root-JSON bytes one run request may carry.

Cursor refuses a run whose conversation state holds too many root prompt blobs
(``limits.HISTORY_BUDGET_ROOTS``, with its source). ``HistoryBudget`` is the
bound a request is built within; what is folded to fit it is decided by the
history builder. Pure: values only.
"""

from __future__ import annotations

from dataclasses import dataclass

from .. import limits

__all__ = ["HistoryBudget"]


@dataclass(frozen=True, slots=True)
class HistoryBudget:
    """The most root blobs (``roots``) and root-JSON bytes (``bytes``) a request may carry."""

    roots: int = limits.HISTORY_BUDGET_ROOTS
    bytes: int = limits.HISTORY_BUDGET_BYTES

    def halved(self) -> HistoryBudget:
        """Return a budget half this one (never below a handful of roots and 16 KiB)."""
        return HistoryBudget(max(self.roots // 2, 8), max(self.bytes // 2, 16 * 1024))
