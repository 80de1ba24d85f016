"""Which of the person's kept Cursor accounts a round runs on, and which takes it after a refusal.

Pure: facts about each kept account in (``Standing``: whether it is the active one,
how much of its plan the dashboard says is used, whether Cursor refused it lately
and why, whether its session ended, whether its roster lists the round's model,
whether this round already ran on it), one ``Choice`` out. The rules
(docs/protocol.md §11b):

- An account is *open* to a round unless this round already ran on it, Cursor
  ended its session, Cursor refused it lately for a cause another account mends,
  its roster does not list the model, or its usage is at or past the threshold
  (``limits.ACCOUNT_THRESHOLD_PERCENT`` by default): it stops being chosen before
  Cursor refuses it.
- A round's first account (``first_account``) is the active one while it is open:
  a conversation keeps its wire id (the service's cache) while nothing calls for a
  move. Otherwise the open account with the most of its plan left; none open, the
  active one, as if there were one account (Cursor's answer is then the round's).
- After a refusal before any output (``next_account``), the open account with the
  most of its plan left; an account whose usage is unknown ranks after those whose
  usage is known, and ties keep the kept order (the active one first, then by name).

It also says which refusals another account can mend (``account_cause``: the
usage-pricing refusal, a rate or usage limit named in ErrorDetails, the
third-party pool spent) and words the error that names the accounts that could
take the next round (``naming_others``). What is known of each account, and
asking for it (rosters, the dashboard, the kept tokens), is ``lanes/failover.py``'s.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..errors import ProviderError, ResourceExhausted

__all__ = [
    "LIMIT_CODES",
    "USAGE_PRICING_CODES",
    "Choice",
    "Standing",
    "account_cause",
    "cause_text",
    "first_account",
    "is_open",
    "naming_others",
    "next_account",
]

# ErrorDetails codes (as connect.classify_connect_error names them) saying the account
# must turn on usage-based pricing for the model: a new conversation id would not help,
# another account may (oh-my-pi 18.4.10 rotates the credential on it).
USAGE_PRICING_CODES = frozenset({"USAGE_PRICING_REQUIRED", "USAGE_PRICING_REQUIRED_CHANGEABLE"})
# ErrorDetails codes of a rate or usage limit on the account (aiserver.v1 ErrorDetails.Error
# 7, 8, 9, 10, 22, 34, 41, 50, 51): the account is spent for now, another one is not
# (lidge-jun/opencodex issue #2568: a spent plan's run ends resource_exhausted naming 10).
# Not 14 (OPENAI_RATE_LIMIT_EXCEEDED: the model's provider, whatever the account) nor 28
# (its title is Cursor's "Update Required" as often as a limit: connect.py).
LIMIT_CODES = frozenset(
    {
        "FREE_USER_RATE_LIMIT_EXCEEDED",
        "PRO_USER_RATE_LIMIT_EXCEEDED",
        "FREE_USER_USAGE_LIMIT",
        "PRO_USER_USAGE_LIMIT",
        "GENERIC_RATE_LIMIT_EXCEEDED",
        "API_KEY_RATE_LIMIT",
        "RESOURCE_EXHAUSTED",
        "RATE_LIMITED",
        "RATE_LIMITED_CHANGEABLE",
    }
)
# The code the lane words a third-party model's repeated bare refusal with (causes.py).
POOL_SPENT_CODE = "third_party_pool_spent"

# Each cause another account can mend, as a person reads it.
_CAUSES = {
    "usage_pricing": "it needs usage-based pricing",
    "usage_limit": "its usage or rate limit is reached",
    "pool_spent": "its pool for third-party models may be spent",
    "refused": "Cursor refused the request bare",
}


@dataclass(frozen=True, slots=True)
class Standing:
    """What is known of one kept account when a round chooses.

    ``used`` is the percent of the plan's included usage the dashboard says is used
    (None: not known); ``refused`` the cause Cursor refused it with lately (None: it
    did not, or long enough ago); ``lists_model`` whether its roster lists the round's
    model (None: not known); ``tried`` that this round already ran on it.
    """

    name: str
    active: bool = False
    used: float | None = None
    refused: str | None = None
    ended: bool = False
    lists_model: bool | None = None
    tried: bool = False


@dataclass(frozen=True, slots=True)
class Choice:
    """The account a round runs on (None: none can take it), why, and those passed over."""

    account: str | None
    why: str
    passed: tuple[tuple[str, str], ...] = ()


def is_open(standing: Standing, threshold: float) -> str | None:
    """Return why STANDING's account cannot take the round, or None when it can."""
    if standing.tried:
        return "this round already ran on it"
    if standing.ended:
        return "Cursor ended its session"
    if standing.refused is not None:
        return f"Cursor refused it lately ({cause_text(standing.refused)})"
    if standing.lists_model is False:
        return "its model list does not include the model"
    if standing.used is not None and standing.used >= threshold:
        return (
            f"{standing.used:.1f}% of its included usage is used (the threshold is {threshold:g}%)"
        )
    return None


def _ranked(standings: Sequence[Standing]) -> list[Standing]:
    """Return STANDINGS, the most of its plan left first; unknown usage after known, kept order."""
    order = {id(s): i for i, s in enumerate(standings)}
    return sorted(
        standings,
        key=lambda s: (s.used is None, s.used if s.used is not None else 0.0, order[id(s)]),
    )


def _passed(standings: Sequence[Standing], threshold: float) -> tuple[tuple[str, str], ...]:
    """Return each account of STANDINGS that cannot take the round, with why."""
    return tuple((s.name, why) for s in standings if (why := is_open(s, threshold)) is not None)


def _left(standing: Standing) -> str:
    """Return how a choice says an account's usage: its percent used, or that it is unknown."""
    return f"{standing.used:.1f}% used" if standing.used is not None else "usage unknown"


def first_account(standings: Sequence[Standing], threshold: float) -> Choice:
    """Return the account a round starts on: the active one while open, else the most left.

    None open: the active one (Cursor's answer is the round's, as with one account).
    """
    active = next((s for s in standings if s.active), None)
    passed = _passed(standings, threshold)
    if active is not None and is_open(active, threshold) is None:
        return Choice(active.name, "the active account", passed)
    open_ones = [s for s in standings if is_open(s, threshold) is None]
    if open_ones:
        best = _ranked(open_ones)[0]
        return Choice(best.name, f"the most of its plan left ({_left(best)})", passed)
    if active is not None:
        return Choice(active.name, "the active account (no other can take the round)", passed)
    return Choice(None, "no account is active", passed)


def next_account(standings: Sequence[Standing], threshold: float) -> Choice:
    """Return the account a refused round goes on with: the open one with the most left, or None."""
    passed = _passed(standings, threshold)
    open_ones = [s for s in standings if is_open(s, threshold) is None]
    if not open_ones:
        return Choice(None, "no other account can take the round", passed)
    best = _ranked(open_ones)[0]
    return Choice(best.name, f"the most of its plan left ({_left(best)})", passed)


def account_cause(error: ProviderError) -> str | None:
    """Return the cause of ERROR another account can mend (a key of ``cause_text``), or None.

    By code and class alone: usage-based pricing, a rate or usage limit named in
    ErrorDetails, the third-party pool spent (the lane's own code), or a bare
    ``resource_exhausted`` (a refusal whose other causes the decision ruled out).
    """
    if error.code in USAGE_PRICING_CODES:
        return "usage_pricing"
    if error.code in LIMIT_CODES:
        return "usage_limit"
    if error.code == POOL_SPENT_CODE:
        return "pool_spent"
    if isinstance(error, ResourceExhausted):
        return "refused"
    return None


def cause_text(cause: str) -> str:
    """Return CAUSE (``account_cause``'s) as a person reads it."""
    return _CAUSES.get(cause, cause)


def naming_others(error: ProviderError, others: Sequence[str]) -> ProviderError:
    """Return ERROR also naming OTHERS, the kept accounts that could take the next round.

    The class, status, code and hint stay ERROR's (a host branches on them); ERROR
    itself when OTHERS is empty.
    """
    if not others:
        return error
    names = ", ".join(others)
    flag = f"--account {others[0]}"
    detail = (
        f"{error.detail}; the next round can run on another kept account: {names}"
        f" (cursor.account or {flag} names one; failover moves only before any output)"
    )
    kind = type(error) if type(error) in (ProviderError, ResourceExhausted) else ProviderError
    return kind(
        detail, status=error.status, retryable=error.retryable, code=error.code, hint=error.hint
    )
