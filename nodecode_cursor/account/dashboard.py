"""The account at a glance: Cursor's dashboard calls, what they say, and the block that shows it.

Three unary calls of ``aiserver.v1.DashboardService`` answer how much of the
plan is left (docs/protocol.md §13): ``GetCurrentPeriodUsage`` (the plan's
windows — total, "Auto + Composer", API — as percents, spend beyond the plan,
the period), ``GetPlanInfo`` (the plan's name) and ``GetHardLimit`` (the limit
on spend beyond the plan, when usage-based pricing is on). They go as Connect
JSON (``application/json``, body ``{}``) with the headers every RPC carries,
and are read by their proto3 JSON names, so a renumbered field changes nothing.

The first half of this module is pure: ``parse_period_usage``,
``parse_plan_info``, ``parse_hard_limit`` and ``account_usage`` turn the JSON
into an ``AccountUsage``, and ``AccountUsage.text`` draws the compact block.
The second half asks the service (``fetch_account_usage``): once each, never
in a loop; only the period usage is required, the other two are best-effort.
Which credential asks is the caller's business (the cell's).
"""

from __future__ import annotations

import datetime
import json
import logging
import math
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from .. import limits
from ..errors import CursorError, NotSignedIn, ProviderError
from ..transports.http import dashboard_refusal, rpc_headers
from ..transports.unary import unary_blocking
from .credentials import checked_token

__all__ = [
    "CURRENT_PERIOD_USAGE_PATH",
    "HARD_LIMIT_PATH",
    "PLAN_INFO_PATH",
    "AccountUsage",
    "OnDemand",
    "UsageWindow",
    "account_usage",
    "bar",
    "fetch_account_usage",
    "parse_hard_limit",
    "parse_period_usage",
    "parse_plan_info",
]

log = logging.getLogger("nodecode_cursor.account.dashboard")

CURRENT_PERIOD_USAGE_PATH = "/aiserver.v1.DashboardService/GetCurrentPeriodUsage"
PLAN_INFO_PATH = "/aiserver.v1.DashboardService/GetPlanInfo"
HARD_LIMIT_PATH = "/aiserver.v1.DashboardService/GetHardLimit"

# GetHardLimitResponse.hard_limit at int32's top stands for "no limit" (§13).
UNLIMITED_HARD_LIMIT = 2_147_483_647
# Each call's whole budget: a person is waiting at a prompt for one block.
DASHBOARD_TIMEOUT_SECONDS = 10.0
# Epoch milliseconds past 2100 are garbage, not a period's end.
_MAX_EPOCH_MS = 4_102_444_800_000
_BAR_WIDTH = 20
_DAY_SECONDS = 86_400.0

OnDemandState = Literal["off", "limited", "unlimited"]


@dataclass(frozen=True, slots=True)
class UsageWindow:
    """One window of the plan's included usage and how much of it is used (0..100+)."""

    key: str  # "total", "auto", "api"
    name: str  # what a person reads
    percent: float


@dataclass(frozen=True, slots=True)
class OnDemand:
    """Spend beyond the plan (usage-based pricing): off, or used against a limit (USD)."""

    state: OnDemandState
    used_usd: float | None = None
    limit_usd: float | None = None  # None when unlimited or unknown


@dataclass(frozen=True, slots=True)
class AccountUsage:
    """What the dashboard says of the current period, read from its three answers."""

    plan: str | None = None
    windows: tuple[UsageWindow, ...] = ()
    included_usd: float | None = None  # the plan's included usage, when said
    spent_usd: float | None = None  # of it, used this period
    on_demand: OnDemand | None = None  # None: not said (GetHardLimit unanswered, nothing in usage)
    period_start: float | None = None  # epoch seconds
    period_end: float | None = None  # epoch seconds: when the period resets
    message: str | None = None  # the dashboard's own display message
    enabled: bool = True
    notes: tuple[str, ...] = field(default=())  # what could not be asked, one line each

    def highest(self) -> UsageWindow | None:
        """Return the window used the most, or None when there is none."""
        return max(self.windows, key=lambda w: w.percent, default=None)

    def as_dict(self) -> dict[str, Any]:
        """Return the usage as plain JSON-ready data (what ``usage --json`` prints)."""
        on_demand = None
        if self.on_demand is not None:
            on_demand = {
                "state": self.on_demand.state,
                "used_usd": self.on_demand.used_usd,
                "limit_usd": self.on_demand.limit_usd,
            }
        return {
            "plan": self.plan,
            "windows": [
                {"key": w.key, "name": w.name, "percent_used": round(w.percent, 2)}
                for w in self.windows
            ],
            "included_usd": self.included_usd,
            "spent_usd": self.spent_usd,
            "beyond_plan": on_demand,
            "period_start": _iso(self.period_start),
            "period_end": _iso(self.period_end),
            "message": self.message,
            "enabled": self.enabled,
            "notes": list(self.notes),
        }

    def text(self, now: float) -> str:
        """Return the compact block a person reads, with the reset counted from NOW (epoch s)."""
        head = f"Cursor plan: {self.plan or 'unknown'}"
        if self.included_usd is not None and self.spent_usd is not None:
            head += f" ({_usd(self.spent_usd)} of {_usd(self.included_usd)} included used)"
        lines = [head]
        if not self.enabled:
            lines.append("  usage is not metered for this account")
        width = max((len(w.name) for w in self.windows), default=0)
        for window in self.windows:
            lines.append(f"  {window.name:<{width}}  {bar(window.percent)} {window.percent:5.1f}%")
        if self.on_demand is not None:
            lines.append(f"  beyond the plan: {_on_demand_text(self.on_demand)}")
        if self.period_end is not None:
            lines.append(f"  resets {reset_text(self.period_end, now)}")
        if self.message:
            lines.append(f"  {self.message}")
        lines.extend(f"  ({note})" for note in self.notes)
        return "\n".join(lines)


def bar(percent: float, width: int = _BAR_WIDTH) -> str:
    """Return a text bar of WIDTH cells filled to PERCENT (clamped to 0..100)."""
    filled = round(max(0.0, min(100.0, percent)) / 100 * width)
    return "[" + "#" * filled + "." * (width - filled) + "]"


def reset_text(period_end: float, now: float) -> str:
    """Return when the period resets: its local date and "in N days" (today, tomorrow)."""
    date = datetime.datetime.fromtimestamp(period_end).date().isoformat()
    days = math.ceil((period_end - now) / _DAY_SECONDS)
    if days <= 0:
        return f"{date} (due now)"
    return f"{date} (in {days} day{'s' if days != 1 else ''})"


def _usd(value: float) -> str:
    """Return VALUE as dollars with cents."""
    return f"${value:,.2f}"


def _on_demand_text(on_demand: OnDemand) -> str:
    """Return the one phrase for spend beyond the plan."""
    if on_demand.state == "off":
        return "off (usage-based pricing is not on)"
    used = _usd(on_demand.used_usd) if on_demand.used_usd is not None else "unknown"
    if on_demand.state == "unlimited" or on_demand.limit_usd is None:
        return f"{used} spent, no limit"
    return f"{used} of {_usd(on_demand.limit_usd)} limit"


def _iso(epoch: float | None) -> str | None:
    """Return EPOCH seconds as an ISO 8601 UTC timestamp, or None."""
    if epoch is None:
        return None
    moment = datetime.datetime.fromtimestamp(epoch, tz=datetime.UTC)
    return moment.isoformat().replace("+00:00", "Z")


# Parsing (pure) -------------------------------------------------------------------------------


def _number(value: Any) -> float | None:
    """Return VALUE as a finite number: proto3 JSON sends int64 as a string, others as numbers."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        number = float(value)
    elif isinstance(value, str):
        try:
            number = float(value.strip())
        except ValueError:
            return None
    else:
        return None
    return number if math.isfinite(number) else None


def _field(data: Mapping[str, Any], camel: str) -> Any:
    """Return the field CAMEL (proto3 JSON name) or its snake_case original name, or None."""
    if camel in data:
        return data[camel]
    snake = "".join(f"_{c.lower()}" if c.isupper() else c for c in camel)
    return data.get(snake)


def _epoch_seconds(value: Any) -> float | None:
    """Return epoch milliseconds VALUE as seconds, or None when absent or implausible."""
    millis = _number(value)
    if millis is None or millis <= 0 or millis > _MAX_EPOCH_MS:
        return None
    return millis / 1000


def _cents(value: Any) -> float | None:
    """Return a cents field as dollars, or None."""
    cents = _number(value)
    return cents / 100 if cents is not None else None


def _percent(plan: Mapping[str, Any], name: str, spend: str, limit: str) -> float | None:
    """Return the window's percent used: said outright, else its spend over its limit."""
    said = _number(_field(plan, name))
    if said is not None:
        return max(0.0, said)
    used, cap = _number(_field(plan, spend)), _number(_field(plan, limit))
    if used is not None and cap is not None and cap > 0:
        return max(0.0, used / cap * 100)
    return None


_WINDOWS = (
    ("total", "Total", "totalPercentUsed", "totalSpend", "limit"),
    ("auto", "Auto + Composer", "autoPercentUsed", "autoSpend", "autoLimit"),
    ("api", "API", "apiPercentUsed", "apiSpend", "apiLimit"),
)


@dataclass(frozen=True, slots=True)
class PeriodUsage:
    """What GetCurrentPeriodUsage says (the other two calls add the plan and the limit)."""

    windows: tuple[UsageWindow, ...]
    included_usd: float | None
    spent_usd: float | None
    beyond_used_usd: float | None
    beyond_limit_usd: float | None
    period_start: float | None
    period_end: float | None
    message: str | None
    enabled: bool


def parse_period_usage(data: Any) -> PeriodUsage:
    """Return what a GetCurrentPeriodUsage answer (decoded JSON) says; ProviderError if not one."""
    if not isinstance(data, Mapping):
        raise ProviderError("Cursor's usage answer was not a JSON object")
    plan = _field(data, "planUsage")
    plan = plan if isinstance(plan, Mapping) else {}
    windows = tuple(
        UsageWindow(key, name, percent)
        for key, name, said, spend, cap in _WINDOWS
        if (percent := _percent(plan, said, spend, cap)) is not None
    )
    spend = _field(data, "spendLimitUsage")
    spend = spend if isinstance(spend, Mapping) else {}
    # A person's own limit first; a team's pool when that is all there is.
    beyond_limit = next(
        (v for k in ("individualLimit", "pooledLimit") if (v := _cents(_field(spend, k)))), None
    )
    beyond_used = next(
        (
            v
            for k in ("individualUsed", "totalSpend", "pooledUsed")
            if (v := _cents(_field(spend, k))) is not None
        ),
        None,
    )
    if beyond_used is None and beyond_limit is not None:
        remaining = _cents(_field(spend, "individualRemaining"))
        if remaining is not None:
            beyond_used = max(0.0, beyond_limit - remaining)
    message = next(
        (
            text.strip()
            for k in ("displayMessage", "autoModelSelectedDisplayMessage")
            if isinstance(text := _field(data, k), str) and text.strip()
        ),
        None,
    )
    enabled = _field(data, "enabled")
    return PeriodUsage(
        windows=windows,
        included_usd=_cents(_field(plan, "limit")),
        spent_usd=_cents(_field(plan, "totalSpend")),
        beyond_used_usd=beyond_used,
        beyond_limit_usd=beyond_limit,
        period_start=_epoch_seconds(_field(data, "billingCycleStart")),
        period_end=_epoch_seconds(_field(data, "billingCycleEnd")),
        message=message,
        # Absent means false in proto3 JSON, but a body with no plan at all says nothing.
        enabled=bool(enabled) if isinstance(enabled, bool) else bool(plan),
    )


def parse_plan_info(data: Any) -> str | None:
    """Return the plan's name a GetPlanInfo answer holds, or None."""
    if not isinstance(data, Mapping):
        return None
    info = _field(data, "planInfo")
    name = _field(info, "planName") if isinstance(info, Mapping) else None
    return name.strip() if isinstance(name, str) and name.strip() else None


def parse_hard_limit(data: Any) -> tuple[OnDemandState, float | None] | None:
    """Return (state, limit in USD) a GetHardLimit answer holds, or None when it says nothing.

    ``hard_limit`` is in dollars (not cents); int32's top means no limit; a zero
    limit, or ``noUsageBasedAllowed``, means spend beyond the plan is off.
    """
    if not isinstance(data, Mapping):
        return None
    if _field(data, "noUsageBasedAllowed") is True:
        return ("off", None)
    limit = _number(_field(data, "hardLimit"))
    if limit is None or limit <= 0:
        return ("off", None)
    if limit >= UNLIMITED_HARD_LIMIT:
        return ("unlimited", None)
    return ("limited", limit)


def account_usage(
    period: PeriodUsage,
    plan: str | None = None,
    hard_limit: tuple[OnDemandState, float | None] | None = None,
    notes: tuple[str, ...] = (),
) -> AccountUsage:
    """Return the account's usage from the three answers (the last two may be missing)."""
    on_demand: OnDemand | None
    if hard_limit is not None:
        state, limit = hard_limit
        used = period.beyond_used_usd if state != "off" else None
        on_demand = OnDemand(state, used if used is not None else 0.0, limit)
        if state == "off":
            on_demand = OnDemand("off")
    elif period.beyond_limit_usd is not None:
        on_demand = OnDemand("limited", period.beyond_used_usd or 0.0, period.beyond_limit_usd)
    else:
        on_demand = None
    return AccountUsage(
        plan=plan,
        windows=period.windows,
        included_usd=period.included_usd,
        spent_usd=period.spent_usd,
        on_demand=on_demand,
        period_start=period.period_start,
        period_end=period.period_end,
        message=period.message,
        enabled=period.enabled,
        notes=notes,
    )


# Asking the service (I/O) ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Asking:
    """How each dashboard call goes: its timeout and its proxy setting (None: the environment)."""

    timeout: float
    proxy: str | None


def _post(ask: _Asking, base_url: str, path: str, headers: dict[str, str], what: str) -> Any:
    """Return the decoded JSON answer of one dashboard call; ProviderError on refusal or garbage.

    The whole answer comes within the call's timeout and weighs at most
    ``limits.DASHBOARD_MAX_BYTES`` (``unary.unary``'s bounds), or it is an error.
    """
    url = base_url.rstrip("/") + path
    answer = unary_blocking(
        url,
        headers=headers,
        content=b"{}",
        timeout=ask.timeout,
        proxy=ask.proxy,
        max_bytes=limits.DASHBOARD_MAX_BYTES,
    )
    content = answer.content
    if content is None:
        limit = limits.DASHBOARD_MAX_BYTES // (1024 * 1024)
        raise ProviderError(
            f"Cursor's answer to {what} passed {limit} MiB; not read", code="oversized_answer"
        )
    if answer.status != 200:
        raise dashboard_refusal(answer.status, content, what)
    try:
        return json.loads(content)
    except (ValueError, RecursionError):
        raise ProviderError(f"Cursor's answer to {what} was not JSON") from None


def fetch_account_usage(
    token: str | None,
    base_url: str,
    *,
    client_version: str | None = None,
    proxy: str | None = None,
    timeout: float = DASHBOARD_TIMEOUT_SECONDS,
) -> AccountUsage:
    """Return the account's usage, asking each call once; raise on a refused period usage.

    Blocking (run it in a worker thread from a loop). NotSignedIn without a token;
    ProviderError when GetCurrentPeriodUsage is refused or unreachable; the plan's
    name and the hard limit are best-effort and become notes when they fail.
    """
    if not token:
        raise NotSignedIn()
    token = checked_token(token, "the credential")
    headers = rpc_headers(token, limits.client_version(client_version), str(uuid.uuid4()))
    headers.update({"content-type": "application/json", "accept": "application/json"})
    ask = _Asking(timeout, proxy)
    notes: list[str] = []
    period = parse_period_usage(
        _post(ask, base_url, CURRENT_PERIOD_USAGE_PATH, headers, "the usage question")
    )
    plan: str | None = None
    hard: tuple[OnDemandState, float | None] | None = None
    try:
        headers["x-request-id"] = str(uuid.uuid4())
        plan = parse_plan_info(_post(ask, base_url, PLAN_INFO_PATH, headers, "GetPlanInfo"))
    except CursorError as exc:
        log.debug("plan info unavailable: %s", exc.detail)
        notes.append("the plan's name could not be read")
    try:
        headers["x-request-id"] = str(uuid.uuid4())
        hard = parse_hard_limit(_post(ask, base_url, HARD_LIMIT_PATH, headers, "GetHardLimit"))
    except CursorError as exc:
        log.debug("hard limit unavailable: %s", exc.detail)
    return account_usage(period, plan, hard, tuple(notes))
