"""Cursor's dashboard: the three answers read by hand-written JSON, and the calls over sockets."""

from __future__ import annotations

import datetime
import json
import socket
import time

import pytest

from cursor_simulator import Simulator
from cursor_simulator.dashboard import HARD_LIMIT_PATH, PLAN_INFO_PATH, USAGE_PATH
from nodecode_cursor.account.dashboard import (
    AccountUsage,
    OnDemand,
    UsageWindow,
    account_usage,
    bar,
    fetch_account_usage,
    parse_hard_limit,
    parse_period_usage,
    parse_plan_info,
)
from nodecode_cursor.errors import NotSignedIn, ProviderError

# An answer as Connect JSON carries it: proto3 JSON names, int64 as strings, cents.
PERIOD = {
    "billingCycleStart": "1785542400000",
    "billingCycleEnd": "1788220800000",
    "planUsage": {
        "totalSpend": 1650,
        "includedSpend": 1650,
        "remaining": 350,
        "limit": 2000,
        "autoPercentUsed": 31.25,
        "apiPercentUsed": 96,
        "totalPercentUsed": 82.5,
    },
    "spendLimitUsage": {
        "totalSpend": 1234,
        "individualLimit": 5000,
        "individualUsed": 1234,
        "individualRemaining": 3766,
        "limitType": "user",
    },
    "enabled": True,
    "displayMessage": "You've used 82% of your included usage",
}


def test_period_usage_reads_windows_money_and_the_period() -> None:
    period = parse_period_usage(PERIOD)
    assert period.windows == (
        UsageWindow("total", "Total", 82.5),
        UsageWindow("auto", "Auto + Composer", 31.25),
        UsageWindow("api", "API", 96.0),
    )
    assert (period.included_usd, period.spent_usd) == (20.0, 16.5)
    assert (period.beyond_used_usd, period.beyond_limit_usd) == (12.34, 50.0)
    assert (period.period_start, period.period_end) == (1785542400.0, 1788220800.0)
    assert period.message == "You've used 82% of your included usage"
    assert period.enabled


def test_period_usage_without_percents_divides_spend_by_limit_and_takes_snake_case() -> None:
    period = parse_period_usage(
        {"plan_usage": {"total_spend": 500, "limit": 2000}, "billing_cycle_end": 1788220800000}
    )
    assert period.windows == (UsageWindow("total", "Total", 25.0),)
    assert period.period_end == 1788220800.0


def test_period_usage_that_is_no_object_is_a_provider_error() -> None:
    with pytest.raises(ProviderError, match="not a JSON object"):
        parse_period_usage(["nope"])


def test_implausible_period_bounds_are_left_out() -> None:
    period = parse_period_usage({"billingCycleEnd": "99999999999999999", "billingCycleStart": "x"})
    assert (period.period_start, period.period_end) == (None, None)


def test_plan_info_and_hard_limit() -> None:
    assert parse_plan_info({"planInfo": {"planName": "Pro+", "price": "$60/mo"}}) == "Pro+"
    assert parse_plan_info({"planInfo": {}}) is None
    assert parse_hard_limit({"hardLimit": 50}) == ("limited", 50.0)
    assert parse_hard_limit({"noUsageBasedAllowed": True, "hardLimit": 50}) == ("off", None)
    assert parse_hard_limit({}) == ("off", None)  # proto3 JSON leaves out a zero limit
    assert parse_hard_limit({"hardLimit": 2147483647}) == ("unlimited", None)


def test_the_hard_limit_says_whether_spend_beyond_the_plan_is_on() -> None:
    period = parse_period_usage(PERIOD)
    assert account_usage(period, "Pro", ("off", None)).on_demand == OnDemand("off")
    assert account_usage(period, "Pro", ("limited", 50.0)).on_demand == OnDemand(
        "limited", 12.34, 50.0
    )
    assert account_usage(period, "Pro", ("unlimited", None)).on_demand == OnDemand(
        "unlimited", 12.34, None
    )
    # GetHardLimit unanswered: the usage's own limit speaks.
    assert account_usage(period).on_demand == OnDemand("limited", 12.34, 50.0)


def test_the_block_shows_plan_bars_spend_and_reset() -> None:
    now = 1788220800.0 - 11.5 * 86400
    usage = account_usage(parse_period_usage(PERIOD), "Pro", ("limited", 50.0))
    date = datetime.datetime.fromtimestamp(1788220800.0).date().isoformat()
    assert usage.text(now).splitlines() == [
        "Cursor plan: Pro ($16.50 of $20.00 included used)",
        "  Total            [################....]  82.5%",
        "  Auto + Composer  [######..............]  31.2%",
        "  API              [###################.]  96.0%",
        "  beyond the plan: $12.34 of $50.00 limit",
        f"  resets {date} (in 12 days)",
        "  You've used 82% of your included usage",
    ]


def test_bar_clamps() -> None:
    assert bar(-5, 4) == "[....]"
    assert bar(50, 4) == "[##..]"
    assert bar(250, 4) == "[####]"


def test_as_dict_is_json_ready() -> None:
    usage = AccountUsage(plan="Pro", windows=(UsageWindow("total", "Total", 10.0),))
    data = json.loads(json.dumps(usage.as_dict()))
    assert data["windows"] == [{"key": "total", "name": "Total", "percent_used": 10.0}]
    assert data["beyond_plan"] is None


# Over sockets ---------------------------------------------------------------------------------


def test_fetch_asks_the_three_calls_once_each_in_connect_json(sim: Simulator) -> None:
    sim.dashboard.usage_based(limit_dollars=40, spent_cents=1000)
    usage = fetch_account_usage("tok", sim.url)
    assert usage.plan == "Pro"
    assert usage.on_demand == OnDemand("limited", 10.0, 40.0)
    assert [w.percent for w in usage.windows] == [42.5, 20.0, 65.0]
    assert usage.period_end is not None and usage.period_end > time.time()
    for path in (USAGE_PATH, PLAN_INFO_PATH, HARD_LIMIT_PATH):
        assert sim.dashboard.count(path) == 1
        (request,) = sim.requests_to(path)
        assert request.body == b"{}"
        assert request.headers["content-type"] == "application/json"
        assert request.headers["authorization"] == "Bearer tok"


def test_a_refused_usage_question_is_one_line_and_not_retried(sim: Simulator) -> None:
    sim.dashboard.refuse(USAGE_PATH, 401, "unauthenticated", "bad token")
    with pytest.raises(ProviderError) as caught:
        fetch_account_usage("tok", sim.url)
    assert str(caught.value) == (
        "Cursor's dashboard refused the usage question: HTTP 401 unauthenticated; run /cursor login"
    )
    assert sim.dashboard.count(USAGE_PATH) == 1
    assert sim.dashboard.count(PLAN_INFO_PATH) == 0


def test_refused_plan_info_and_hard_limit_leave_a_note_not_a_failure(sim: Simulator) -> None:
    sim.dashboard.refuse(PLAN_INFO_PATH, 500, "internal", "boom")
    sim.dashboard.refuse(HARD_LIMIT_PATH, 403, "permission_denied", "team only")
    usage = fetch_account_usage("tok", sim.url)
    assert usage.plan is None
    assert usage.notes == ("the plan's name could not be read",)
    assert usage.on_demand is None  # neither the hard limit nor a usage limit said anything


def test_an_unreachable_dashboard_says_could_not_reach() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(ProviderError, match=r"^could not reach http://127\.0\.0\.1:\d+/aiserver"):
        fetch_account_usage("tok", f"http://127.0.0.1:{port}", timeout=2)


def test_no_token_is_not_signed_in() -> None:
    with pytest.raises(NotSignedIn):
        fetch_account_usage(None, "http://127.0.0.1:9")
