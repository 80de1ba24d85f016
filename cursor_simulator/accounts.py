"""Several accounts on one simulator: tokens that name an email, each account's plan, roster, limit.

``SimAccounts`` (``sim.accounts``) holds the accounts a test adds. Each has an
email and a user id (``sub``); the tokens the sign-in, the refresh and the key
exchange issue for it carry both in their claims (``sub``, ``email``), and the
other route families find the account a call is for from its bearer's claims:
the roster (``models.py``) serves the account's own rows, the dashboard
(``dashboard.py``) its own plan and usage, the profile its own email, the
refresh its own mode (``shouldLogout`` for one account alone). The agent service
(``agent.py``, ``player.py``) admits only the models the account's own roster
lists, knows a conversation id only on the account that ran it (Cursor's ids
are per account: lidge-jun/opencodex issue #2568), and has three switches per
account, each refusing the account's runs as Cursor refuses it, before any token:

- ``limited``: a spent plan, HTTP 200 and an end frame ``resource_exhausted``
  with an ErrorDetails entry naming the usage limit (opencodex #2568 reports it so);
- ``usage_pricing``: the same end frame naming ``ERROR_USAGE_PRICING_REQUIRED``
  (oh-my-pi 18.4.10 rotates the credential on it);
- ``pool_empty``: the account's pool for third-party models spent, every model
  not Cursor's own refused bare (the 2026-08-25 incident, senpi #996/#1037).

A bearer no account claims is served as the single account always was.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import jwt

if TYPE_CHECKING:
    from .server import SimRequest

__all__ = ["LIMIT_ERROR", "USAGE_PRICING_ERROR", "SimAccount", "SimAccounts"]

# The ErrorDetails code a spent plan's refusal carries (aiserver.v1 ErrorDetails.Error
# ERROR_PRO_USER_USAGE_LIMIT = 10), the usage kind opencodex #2568 reports.
LIMIT_ERROR = 10
LIMIT_TITLE = "Usage limit reached"
LIMIT_DETAIL = "You've hit your usage limit for this billing period."
# ERROR_USAGE_PRICING_REQUIRED = 44: the account must turn on usage-based pricing.
USAGE_PRICING_ERROR = 44
USAGE_PRICING_TITLE = "Usage-based pricing required"
USAGE_PRICING_DETAIL = "Turn on usage-based pricing to keep using this model."


@dataclass
class SimAccount:
    """One account: who it is, its plan (a dashboard of its own), its roster and its switches."""

    email: str
    sub: str
    # A dashboard.DashboardState of its own (typed loosely: the families import this module).
    dashboard: Any
    # models.RosterEntry rows; None: the simulator's roster (sim.models.roster).
    roster: list[Any] | None = None
    # Refuse every run of this account by the usage limit (see the module's docstring).
    limited: bool = False
    # Refuse every run of this account: usage-based pricing required.
    usage_pricing: bool = False
    # Refuse bare every run of a third-party model: this account's pool is spent.
    pool_empty: bool = False
    # The refresh's answer for this account alone; None: the auth state's refresh_mode.
    refresh_mode: str | None = None
    # The bearers of the runs this account was sent (in order), for tests to read.
    runs: list[str] = field(default_factory=list)

    def lists(self, *model_ids: str) -> bool | None:
        """Return whether this account's own roster lists one of MODEL_IDS; None: it has none."""
        if not self.roster:
            return None
        known = {e.model_id for e in self.roster} | {a for e in self.roster for a in e.aliases}
        return any(model_id in known for model_id in model_ids if model_id)

    @property
    def user_id(self) -> str:
        """Return the user id the profile and the session cookie name (sub after ``|``)."""
        return self.sub.split("|")[-1]


class SimAccounts:
    """The accounts a test added, found by email or by a request's bearer."""

    def __init__(self, make_dashboard: Callable[..., Any]) -> None:
        self.lock = threading.Lock()
        self._by_sub: dict[str, SimAccount] = {}
        # Makes an account's dashboard (dashboard.DashboardState, passed in by the simulator).
        self._make_dashboard = make_dashboard

    def add(
        self,
        email: str,
        *,
        plan: str = "Pro",
        percent: float = 42.5,
        roster: list[Any] | None = None,
    ) -> SimAccount:
        """Add the account EMAIL with its own plan, usage percent and roster; return it."""
        dashboard = self._make_dashboard(plan_name=plan)
        dashboard.set_percents(percent)
        with self.lock:
            sub = f"auth0|user_{len(self._by_sub) + 1:03d}_sim"
            account = SimAccount(email, sub, dashboard, roster=roster)
            self._by_sub[sub] = account
        return account

    def named(self, email: str) -> SimAccount:
        """Return the account EMAIL (KeyError when no test added it)."""
        with self.lock:
            for account in self._by_sub.values():
                if account.email == email:
                    return account
        raise KeyError(email)

    def by_sub(self, sub: str) -> SimAccount | None:
        """Return the account whose user is SUB (with or without the provider prefix)."""
        user = sub.split("|")[-1]
        with self.lock:
            return next((a for a in self._by_sub.values() if a.user_id == user), None)

    def of_token(self, token: str) -> SimAccount | None:
        """Return the account TOKEN's claims name, or None (not a JWT, or no such account)."""
        try:
            claims: dict[str, Any] = jwt.decode(token, options={"verify_signature": False})
        except jwt.PyJWTError:
            return None
        sub = claims.get("sub")
        return self.by_sub(sub) if isinstance(sub, str) else None

    def of_request(self, request: SimRequest) -> SimAccount | None:
        """Return the account REQUEST's bearer names, or None."""
        auth = request.headers.get("authorization", "")
        if not auth.startswith("Bearer "):
            return None
        return self.of_token(auth.removeprefix("Bearer ").strip())
