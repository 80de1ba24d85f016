"""The history budget: how many root blobs and root-JSON bytes one run request may carry.

Cursor refuses a run whose conversation state holds too many root prompt blobs
(``limits.HISTORY_BUDGET_ROOTS``, with its source). ``HistoryBudget`` is the
bound a request is built within; what is folded to fit it is decided by the
history builder. Pure: values only.
"""

from __future__ import annotations

from dataclasses import dataclass

from .. import limits
from ..errors import ConfigError

__all__ = ["HistoryBudget", "resolve_budget"]


@dataclass(frozen=True, slots=True)
class HistoryBudget:
    """The most root blobs (``roots``) and root-JSON bytes (``bytes``) a request may carry."""

    roots: int = limits.HISTORY_BUDGET_ROOTS
    bytes: int = limits.HISTORY_BUDGET_BYTES

    def halved(self) -> HistoryBudget:
        """Return a budget half this one (never below a handful of roots and 16 KiB)."""
        return HistoryBudget(max(self.roots // 2, 8), max(self.bytes // 2, 16 * 1024))


# The least a budget may be: a round needs the system prompt, a summary and a round.
_LEAST_ROOTS = 8
_LEAST_BYTES = 16 * 1024


def resolve_budget(env: str | None, configured: tuple[int, int] | None) -> HistoryBudget:
    """Return the budget a round builds within: ENV ("ROOTS,BYTES") wins, then CONFIGURED.

    ENV is ``CURSOR_HISTORY_BUDGET``'s value; an empty one counts as unset, and one
    that is not two whole numbers at least 8 and 16384 is a ConfigError.
    """
    text = (env or "").strip()
    if not text:
        return HistoryBudget(*configured) if configured is not None else HistoryBudget()
    parts = [part.strip() for part in text.split(",")]
    if len(parts) == 2 and all(part.isascii() and part.isdigit() for part in parts):
        roots, size = int(parts[0]), int(parts[1])
        if roots >= _LEAST_ROOTS and size >= _LEAST_BYTES:
            return HistoryBudget(roots, size)
    raise ConfigError(
        f"{limits.HISTORY_BUDGET_ENV} must be two whole numbers, root blobs and bytes, "
        f"like 192,524288 (at least {_LEAST_ROOTS} and {_LEAST_BYTES})",
        code="bad_config",
    )
