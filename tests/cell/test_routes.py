"""The route decision (core/routes.py): HTTP/2 → RunSSE → RunPoll, from the facts alone."""

from __future__ import annotations

import dataclasses

import pytest

from nodecode_cursor.core.routes import (
    DeadEnd,
    Http2Policy,
    Outcome,
    Route,
    RouteFacts,
    dead_end,
    next_route,
    remembers,
    remembers_move,
    unserved,
    wants_policy,
)

# --- the first route --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("setting", "route"),
    [("poll", Route.POLL), ("sse", Route.SSE), ("http2", Route.HTTP2), ("auto", Route.HTTP2)],
)
def test_the_setting_picks_the_first_route_over_https(setting: str, route: Route) -> None:
    assert next_route(RouteFacts(setting)) is route


def test_an_unknown_setting_has_no_route() -> None:
    assert next_route(RouteFacts("h3")) is None


def test_auto_over_cleartext_starts_on_runsse_whatever_was_remembered() -> None:
    facts = RouteFacts("auto", cleartext=True, remembered=Route.POLL)
    assert next_route(facts) is Route.SSE


@pytest.mark.parametrize("remembered", [Route.SSE, Route.POLL])
def test_auto_goes_where_the_last_run_went_when_that_was_http1(remembered: Route) -> None:
    assert next_route(RouteFacts("auto", remembered=remembered)) is remembered


def test_auto_tries_http2_again_when_http2_was_remembered() -> None:
    assert next_route(RouteFacts("auto", remembered=Route.HTTP2)) is Route.HTTP2


def test_a_forced_setting_ignores_memory_and_the_server_config() -> None:
    forced = RouteFacts("http2", remembered=Route.SSE, policy=Http2Policy.FORBIDDEN)
    assert next_route(forced) is Route.HTTP2
    assert next_route(dataclasses.replace(forced, setting="poll")) is Route.POLL


def test_auto_skips_http2_when_the_server_config_forbids_it() -> None:
    assert next_route(RouteFacts("auto", policy=Http2Policy.FORBIDDEN)) is Route.SSE
    assert next_route(RouteFacts("auto", policy=Http2Policy.REQUIRED)) is Route.HTTP2


# --- after HTTP/2 -----------------------------------------------------------------------


def after_http2(setting: str, outcome: Outcome, **facts: object) -> RouteFacts:
    """Return the facts of a run whose HTTP/2 route ended with OUTCOME under SETTING."""
    return RouteFacts(setting, tried=Route.HTTP2, outcome=outcome, **facts)  # type: ignore[arg-type]


@pytest.mark.parametrize("setting", ["auto", "http2"])
def test_a_proxy_that_cannot_carry_http2_moves_the_run_whatever_the_setting(setting: str) -> None:
    assert next_route(after_http2(setting, Outcome.NO_TUNNEL)) is Route.SSE


def test_a_failed_negotiation_moves_auto_unless_http2_is_required() -> None:
    assert next_route(after_http2("auto", Outcome.NOT_NEGOTIATED)) is Route.SSE
    forbidden = after_http2("auto", Outcome.NOT_NEGOTIATED, policy=Http2Policy.FORBIDDEN)
    assert next_route(forbidden) is Route.SSE
    required = after_http2("auto", Outcome.NOT_NEGOTIATED, policy=Http2Policy.REQUIRED)
    assert next_route(required) is None
    assert dead_end(required) is DeadEnd.HTTP2_REQUIRED


def test_forced_http2_has_no_route_after_a_failed_negotiation() -> None:
    facts = after_http2("http2", Outcome.NOT_NEGOTIATED)
    assert next_route(facts) is None
    assert dead_end(facts) is DeadEnd.HTTP2_FORCED


@pytest.mark.parametrize(
    ("status", "code", "route"),
    [
        (404, None, Route.SSE),
        (501, None, Route.SSE),
        (400, "unimplemented", Route.SSE),
        (503, "unavailable", None),
        (429, "resource_exhausted", None),
    ],
)
def test_a_refused_run_stream_moves_auto_only_when_unserved(
    status: int, code: str | None, route: Route | None
) -> None:
    facts = after_http2("auto", Outcome.REFUSED, status=status, code=code)
    assert next_route(facts) is route
    assert next_route(dataclasses.replace(facts, setting="http2")) is None


def test_a_stream_the_service_never_took_moves_auto_but_not_forced_http2() -> None:
    assert next_route(after_http2("auto", Outcome.STREAM_REFUSED)) is Route.SSE
    facts = after_http2("http2", Outcome.STREAM_REFUSED)
    assert next_route(facts) is None
    assert dead_end(facts) is DeadEnd.ROUTE_ERROR


def test_an_http2_stream_that_ended_before_a_message_stays_the_runs_end() -> None:
    assert next_route(after_http2("auto", Outcome.ENDED_EMPTY)) is None


# --- after RunSSE -----------------------------------------------------------------------


def after_sse(setting: str, outcome: Outcome, **facts: object) -> RouteFacts:
    """Return the facts of a run whose RunSSE route ended with OUTCOME under SETTING."""
    return RouteFacts(setting, tried=Route.SSE, outcome=outcome, **facts)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("outcome", "status", "code", "route"),
    [
        (Outcome.REFUSED, 404, "unimplemented", Route.POLL),
        (Outcome.REFUSED, 501, None, Route.POLL),
        (Outcome.REFUSED, 405, "unimplemented", Route.POLL),
        (Outcome.REFUSED, 503, "unavailable", None),
        (Outcome.ENDED_EMPTY, None, None, Route.POLL),
        (Outcome.END_ERROR, None, "unimplemented", Route.POLL),
        (Outcome.END_ERROR, None, "resource_exhausted", None),
        (Outcome.END_ERROR, None, None, None),
    ],
)
def test_runsse_moves_to_runpoll_when_it_is_not_served(
    outcome: Outcome, status: int | None, code: str | None, route: Route | None
) -> None:
    for setting in ("auto", "http2"):  # http2: RunSSE was reached through a proxy's refusal
        assert next_route(after_sse(setting, outcome, status=status, code=code)) is route
    assert next_route(after_sse("sse", outcome, status=status, code=code)) is None


def test_runpoll_is_the_last_route() -> None:
    facts = RouteFacts("auto", tried=Route.POLL, outcome=Outcome.REFUSED, status=404)
    assert next_route(facts) is None


def test_a_route_that_answered_is_never_left() -> None:
    for tried in Route:
        facts = RouteFacts("auto", tried=tried, outcome=Outcome.ENDED_EMPTY, answered=True)
        assert next_route(facts) is None


# --- what the driver asks of the decision -----------------------------------------------


def test_the_server_config_is_wanted_only_after_a_failed_negotiation_under_auto() -> None:
    assert wants_policy(after_http2("auto", Outcome.NOT_NEGOTIATED))
    assert not wants_policy(
        after_http2("auto", Outcome.NOT_NEGOTIATED, policy=Http2Policy.FORBIDDEN)
    )
    assert not wants_policy(after_http2("http2", Outcome.NOT_NEGOTIATED))
    assert not wants_policy(after_http2("auto", Outcome.NO_TUNNEL))
    assert not wants_policy(RouteFacts("auto"))


def test_memory_is_kept_only_where_a_setting_chooses_over_https() -> None:
    assert remembers(RouteFacts("auto")) and remembers(RouteFacts("http2"))
    assert not remembers(RouteFacts("auto", cleartext=True))
    assert not remembers(RouteFacts("sse")) and not remembers(RouteFacts("poll"))


def test_a_move_off_http2_is_remembered_unless_the_proxy_made_it() -> None:
    assert remembers_move(after_http2("auto", Outcome.NOT_NEGOTIATED))
    assert remembers_move(after_http2("auto", Outcome.STREAM_REFUSED))
    assert not remembers_move(after_http2("auto", Outcome.NO_TUNNEL))
    assert not remembers_move(after_sse("auto", Outcome.ENDED_EMPTY))


def test_unserved_reads_the_status_and_the_code() -> None:
    assert unserved(404, None) and unserved(501, None) and unserved(200, "unimplemented")
    assert not unserved(405, None) and not unserved(None, None)
