"""Simulator routes: the account dashboard, ``aiserver.v1.DashboardService`` (three calls).

``GetCurrentPeriodUsage``, ``GetPlanInfo`` and ``GetHardLimit`` are answered
the way Cursor answers them (docs/protocol.md §13): Connect unary, in JSON when
asked in ``application/json`` (proto3 JSON names, int64 as strings) and in
protobuf when asked in ``application/proto``. Each call is checked like the
other unary routes (a bearer, the Connect protocol header, the client headers,
a body that decodes). The default account is on a Pro plan part-way through its
period, without usage-based pricing; a test sets the percents, turns
usage-based pricing on, moves the period, or refuses any of the calls.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field

from google.protobuf import json_format
from google.protobuf.message import Message

from nodecode_cursor._proto import aiserver_pb2
from nodecode_cursor.wire import connect

from .family import RouteHost, connect_error
from .server import SimRequest, SimResponse

__all__ = ["HARD_LIMIT_PATH", "PATHS", "PLAN_INFO_PATH", "USAGE_PATH", "DashboardState", "install"]

USAGE_PATH = "/aiserver.v1.DashboardService/GetCurrentPeriodUsage"
PLAN_INFO_PATH = "/aiserver.v1.DashboardService/GetPlanInfo"
HARD_LIMIT_PATH = "/aiserver.v1.DashboardService/GetHardLimit"
PATHS = (USAGE_PATH, PLAN_INFO_PATH, HARD_LIMIT_PATH)

_CLIENT_HEADERS = {"x-cursor-client-type": "cli", "x-ghost-mode": "true"}
_DAY_MS = 86_400_000
UNLIMITED = 2_147_483_647


@dataclass
class DashboardState:
    """The account's script: plan, percents, spend beyond the plan, period; refusals; calls."""

    plan_name: str = "Pro"
    included_cents: int = 2000
    total_percent: float = 42.5
    auto_percent: float = 20.0
    api_percent: float = 65.0
    # Spend beyond the plan: None is usage-based pricing off; else the hard limit in dollars.
    hard_limit_dollars: int | None = None
    beyond_spent_cents: int = 0
    period_start_ms: int = 0
    period_end_ms: int = 0
    display_message: str = ""
    # Per path: (HTTP status, Connect code, message).
    refusals: dict[str, tuple[int, str, str]] = field(default_factory=dict)
    calls: dict[str, int] = field(default_factory=dict)
    content_types: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def __post_init__(self) -> None:
        if not self.period_start_ms:
            now = int(time.time() * 1000)
            self.period_start_ms = now - 18 * _DAY_MS
            self.period_end_ms = now + 12 * _DAY_MS

    def refuse(self, path: str, status: int, code: str, message: str = "refused") -> None:
        """Make the calls to PATH answer a Connect error."""
        with self.lock:
            self.refusals[path] = (status, code, message)

    def set_percents(
        self, total: float, auto: float | None = None, api: float | None = None
    ) -> None:
        """Set how much of each window is used (auto and api default to TOTAL)."""
        with self.lock:
            self.total_percent = total
            self.auto_percent = total if auto is None else auto
            self.api_percent = total if api is None else api

    def usage_based(self, limit_dollars: int, spent_cents: int) -> None:
        """Turn usage-based pricing on: a hard limit, SPENT_CENTS already spent beyond the plan."""
        with self.lock:
            self.hard_limit_dollars = limit_dollars
            self.beyond_spent_cents = spent_cents

    def new_period(self, days: int = 30) -> None:
        """Start a new period now, DAYS long, with nothing used."""
        now = int(time.time() * 1000)
        with self.lock:
            self.period_start_ms, self.period_end_ms = now, now + days * _DAY_MS
            self.total_percent = self.auto_percent = self.api_percent = 0.0
            self.beyond_spent_cents = 0

    def count(self, path: str) -> int:
        """Return how many calls PATH had."""
        with self.lock:
            return self.calls.get(path, 0)

    # The answers ------------------------------------------------------------------------

    def usage(self) -> aiserver_pb2.GetCurrentPeriodUsageResponse:
        """Return the GetCurrentPeriodUsage answer for the script as it stands."""
        spent = round(self.included_cents * self.total_percent / 100)
        answer = aiserver_pb2.GetCurrentPeriodUsageResponse(
            billing_cycle_start=self.period_start_ms,
            billing_cycle_end=self.period_end_ms,
            enabled=True,
            display_message=self.display_message,
        )
        plan = answer.plan_usage
        plan.total_spend = spent
        plan.included_spend = spent
        plan.limit = self.included_cents
        plan.remaining = max(0, self.included_cents - spent)
        plan.total_percent_used = self.total_percent
        plan.auto_percent_used = self.auto_percent
        plan.api_percent_used = self.api_percent
        beyond = answer.spend_limit_usage
        beyond.limit_type = "user"
        beyond.total_spend = self.beyond_spent_cents
        if self.hard_limit_dollars is not None and self.hard_limit_dollars < UNLIMITED:
            limit = self.hard_limit_dollars * 100
            beyond.individual_limit = limit
            beyond.individual_used = self.beyond_spent_cents
            beyond.individual_remaining = max(0, limit - self.beyond_spent_cents)
        return answer

    def plan_info(self) -> aiserver_pb2.GetPlanInfoResponse:
        """Return the GetPlanInfo answer."""
        answer = aiserver_pb2.GetPlanInfoResponse()
        answer.plan_info.plan_name = self.plan_name
        answer.plan_info.included_amount_cents = self.included_cents
        answer.plan_info.price = "$20/mo"
        answer.plan_info.billing_cycle_end = self.period_end_ms
        return answer

    def hard_limit(self) -> aiserver_pb2.GetHardLimitResponse:
        """Return the GetHardLimit answer: off, or the limit in dollars."""
        if self.hard_limit_dollars is None:
            return aiserver_pb2.GetHardLimitResponse(no_usage_based_allowed=True)
        return aiserver_pb2.GetHardLimitResponse(hard_limit=self.hard_limit_dollars)


_REQUESTS = {
    USAGE_PATH: aiserver_pb2.GetCurrentPeriodUsageRequest,
    PLAN_INFO_PATH: aiserver_pb2.GetPlanInfoRequest,
    HARD_LIMIT_PATH: aiserver_pb2.GetHardLimitRequest,
}


def install(sim: RouteHost) -> DashboardState:
    """Serve the three dashboard calls on ``sim``; return their state."""
    state = DashboardState()

    def answer_for(path: str, request: SimRequest) -> Message:
        # An account a test added answers from its own plan (accounts.py).
        account = sim.accounts.of_request(request)
        own = account.dashboard if account is not None else state
        with own.lock:
            if path == USAGE_PATH:
                return own.usage()
            if path == PLAN_INFO_PATH:
                return own.plan_info()
            return own.hard_limit()

    def handle(request: SimRequest) -> SimResponse:
        """Return the path's answer, its scripted refusal, or the Connect error for a bad call."""
        path = request.path
        with state.lock:
            state.calls[path] = state.calls.get(path, 0) + 1
            state.content_types.append(request.headers.get("content-type", ""))
            refusal = state.refusals.get(path)
        if request.method != "POST":
            return connect_error(405, "unimplemented", "dashboard calls take POST")
        refused = sim.check_bearer(request)
        if refused is not None:
            return refused
        if request.headers.get("connect-protocol-version") != "1":
            return connect_error(400, "invalid_argument", "connect-protocol-version must be 1")
        for name, value in _CLIENT_HEADERS.items():
            if request.headers.get(name) != value:
                return connect_error(400, "invalid_argument", f"{name} must be {value}")
        if not request.headers.get("x-cursor-client-version"):
            return connect_error(400, "invalid_argument", "x-cursor-client-version is missing")
        kind = request.headers.get("content-type", "")
        message_type = _REQUESTS[path]
        try:
            if kind == "application/json":
                json_format.Parse(request.body.decode("utf-8") or "{}", message_type())
            elif kind == "application/proto":
                message_type.FromString(connect.read_unary_body(request.body))
            else:
                return connect_error(415, "invalid_argument", f"unsupported content-type {kind!r}")
        except Exception:
            return connect_error(400, "invalid_argument", "request did not decode")
        if refusal is not None:
            status, code, text = refusal
            return connect_error(status, code, text)
        message = answer_for(path, request)
        if kind == "application/json":
            body = json.dumps(json_format.MessageToDict(message)).encode()
            return SimResponse(200, {"content-type": "application/json"}, body)
        data = message.SerializeToString()
        return SimResponse(200, {"content-type": "application/proto"}, data)

    for path in PATHS:
        sim.route(path, handle)
    return state
