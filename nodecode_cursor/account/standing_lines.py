"""How the kept accounts stand, in the words ``status`` and ``accounts`` show a person.

``refused_lately`` reads, from the table every process shares
(``storage/account_store.py``, written by the rounds' failover), which kept
accounts Cursor refused within ``limits.ACCOUNT_REFUSED_SECONDS``: a round that
names no account skips those until then. A file that cannot be read says no
account was refused (the table never raises). ``refusal_text`` words one such
refusal (when, why, when the account is chosen again); ``accounts_status``
the line ``status`` adds when several accounts are kept: how many, which is
active, which are API keys, failover and its threshold (``cursor.failover``,
``cursor.account_threshold``), and the refusals standing. Which account a round
takes is ``core/account_choice.py``'s; this module only reads and words.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from .. import limits
from ..storage.account_store import DiskAccounts, account_digest

__all__ = ["CAUSE_WORDS", "Refusal", "accounts_status", "refusal_text", "refused_lately"]

# A refusal's cause (``account_choice.account_cause``'s keys) in a few words.
CAUSE_WORDS = {
    "usage_pricing": "usage-based pricing required",
    "usage_limit": "usage or rate limit",
    "pool_spent": "third-party model pool spent",
    "refused": "refused bare",
}


@dataclass(frozen=True, slots=True)
class Refusal:
    """Cursor's refusal of one account that still stands: why, and when (epoch seconds)."""

    cause: str
    at: float

    @property
    def until(self) -> float:
        """Return when the account is chosen again (epoch seconds)."""
        return self.at + limits.ACCOUNT_REFUSED_SECONDS


def refused_lately(
    home: Path, names: Sequence[str], now: float | None = None
) -> dict[str, Refusal]:
    """Return the refusals standing at NOW among the accounts NAMES, by name (blocking)."""
    now = time.time() if now is None else now
    records = DiskAccounts.in_home(home).load()
    found: dict[str, Refusal] = {}
    for name in names:
        record = records.get(account_digest(name))
        if record is None or record.refused is None or record.refused_at is None:
            continue
        if 0 <= now - record.refused_at < limits.ACCOUNT_REFUSED_SECONDS:
            found[name] = Refusal(record.refused, record.refused_at)
    return found


def _clock(epoch: float) -> str:
    """Return EPOCH as the local time of day, HH:MM."""
    return time.strftime("%H:%M", time.localtime(epoch))


def refusal_text(refusal: Refusal) -> str:
    """Return one standing refusal in words: when, why, and when the account is chosen again."""
    why = CAUSE_WORDS.get(refusal.cause, refusal.cause)
    return f"refused at {_clock(refusal.at)} ({why}); chosen again from {_clock(refusal.until)}"


def accounts_status(
    names: Sequence[str],
    active: str | None,
    keys: Sequence[str],
    refused: dict[str, Refusal],
    *,
    failover: bool,
    threshold: float,
) -> str:
    """Return the line ``status`` adds of the kept accounts NAMES (KEYS are API keys)."""
    count = "1 account is kept" if len(names) == 1 else f"{len(names)} accounts are kept"
    parts = [count + (f", {active} active" if active else ", none active")]
    if keys:
        parts.append("API keys: " + ", ".join(keys))
    if failover:
        parts.append(
            f"failover on (cursor.failover): a refused round goes on with another before any "
            f"output, and none starts on an account past {threshold:g}% of its included usage "
            "(cursor.account_threshold)"
        )
    else:
        parts.append("failover off (cursor.failover)")
    if refused:
        parts.append(
            "refused lately: "
            + ", ".join(f"{name} {refusal_text(refusal)}" for name, refusal in refused.items())
        )
    else:
        parts.append("none refused lately")
    return "; ".join(parts) + " (/cursor accounts lists them)"
