"""Which route carries a run, decided from what is known: the setting, the URL, what failed.

A run goes over one of three routes (docs/protocol.md §4, §4b): HTTP/2 ``Run``,
RunSSE (+ BidiAppend), RunPoll (+ BidiAppend). Which one, and where a run goes
when its route turns out not to carry it, is one pure function, as
``decisions.decide`` is for what a round does after a run: ``next_route`` takes
a frozen ``RouteFacts`` (the ``transport`` setting, whether the URL is
cleartext, the route that last worked there, what Cursor's server config says
of HTTP/2, and how the route just tried ended) and returns the ``Route`` to
take, or None when there is none (the failure stands). The order is HTTP/2 →
RunSSE → RunPoll:

- first (nothing tried): ``poll``, ``sse`` and ``http2`` force their route;
  ``auto`` takes RunSSE over ``http://``, else the route that last carried a run
  to the base URL when that was RunSSE or RunPoll, else RunSSE when the server
  config forbids HTTP/2, else HTTP/2;
- after HTTP/2: a proxy that cannot carry it moves the run to RunSSE (whatever
  the setting: never a silent bypass of the proxy); a failed negotiation (ALPN)
  moves it under ``auto`` unless the server config requires HTTP/2; a stream the
  service refused before any message (unimplemented, or never taken) moves it
  under ``auto``;
- after RunSSE (unless the setting is ``sse``): a refusal as unimplemented (HTTP
  404 or 501, Connect ``unimplemented``), or a stream that ended before its first
  message (closed, cut, or an end frame clean or ``unimplemented``) moves it to
  RunPoll;
- after RunPoll: nothing.

A route that sent a message carried the run: nothing moves it (``answered``).
``wants_policy`` says when the server config is worth asking before deciding
(a failed negotiation under ``auto``), ``dead_end`` why there is no route when
that needs its own words, and ``remembers`` (``remembers_move``) whether the
route that carried a run (that a run moved to from HTTP/2) is kept for the next
run to the same base URL. This module only decides: the
driver (``transports/run_route.py``) opens the routes, asks the server config,
resends what the run had sent and logs; no I/O happens here.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

__all__ = [
    "DeadEnd",
    "Http2Policy",
    "Outcome",
    "Route",
    "RouteFacts",
    "dead_end",
    "next_route",
    "remembers",
    "remembers_move",
    "unserved",
    "wants_policy",
]


class Route(enum.StrEnum):
    """A route a run can take (the value is the route's name in logs, records and memory)."""

    HTTP2 = "http2"
    SSE = "sse"
    POLL = "poll"


class Outcome(enum.Enum):
    """How the route just tried ended without carrying the run (before any message)."""

    NOT_TRIED = "not_tried"  # no route tried yet: the run's first choice
    NO_TUNNEL = "no_tunnel"  # the proxy cannot carry HTTP/2 (its scheme; it refused CONNECT)
    NOT_NEGOTIATED = "not_negotiated"  # TLS chose another protocol than h2 by ALPN
    REFUSED = "refused"  # the route's request was answered with an error (status, code)
    STREAM_REFUSED = "stream_refused"  # HTTP/2: the service never took the stream
    ENDED_EMPTY = "ended_empty"  # the stream ended (clean, closed or cut) before a message
    END_ERROR = "end_error"  # its end frame carried an error (code) before any message


class Http2Policy(enum.Enum):
    """What Cursor's server config says of HTTP/2 for the account, as the choice reads it."""

    UNKNOWN = "unknown"  # not asked, or unspecified
    FORBIDDEN = "forbidden"  # FORCE_ALL_DISABLED, FORCE_BIDI_DISABLED
    REQUIRED = "required"  # FORCE_ALL_ENABLED, FORCE_BIDI_ENABLED


class DeadEnd(enum.Enum):
    """Why no route is left, when that needs words of its own (else the route's error stands)."""

    ROUTE_ERROR = "route_error"  # the failure of the route tried is the run's
    HTTP2_FORCED = "http2_forced"  # the setting is http2 and the server does not speak it
    HTTP2_REQUIRED = "http2_required"  # the server config allows no route but HTTP/2


@dataclass(frozen=True, slots=True)
class RouteFacts:
    """What is known when a route is chosen: everything ``next_route`` looks at.

    ``setting`` is the ``transport`` setting (``auto``, ``sse``, ``poll``,
    ``http2``); ``cleartext`` that the base URL is ``http://``; ``remembered`` the
    route that last carried a run to the base URL (None: none known); ``policy``
    what Cursor's server config says of HTTP/2. ``tried`` is the route that just
    failed to carry the run (None: none yet) and ``outcome`` how; ``status`` and
    ``code`` the HTTP status and Connect code of its refusal or end frame;
    ``answered`` that it sent a message before it failed.
    """

    setting: str
    cleartext: bool = False
    remembered: Route | None = None
    policy: Http2Policy = Http2Policy.UNKNOWN
    tried: Route | None = None
    outcome: Outcome = Outcome.NOT_TRIED
    status: int | None = None
    code: str | None = None
    answered: bool = False


def unserved(status: int | None, code: str | None) -> bool:
    """Return whether a refusal says the route is not served (HTTP 404, 501, ``unimplemented``)."""
    return status in (404, 501) or code == "unimplemented"


def next_route(facts: RouteFacts) -> Route | None:
    """Return the route the run takes next, or None when none is left (the failure stands)."""
    if facts.tried is None:
        return _first(facts)
    if facts.answered:
        return None  # the route carried the run: what failed after is the run's
    if facts.tried is Route.HTTP2:
        return _after_http2(facts)
    if facts.tried is Route.SSE:
        return _after_sse(facts)
    return None


def _first(facts: RouteFacts) -> Route | None:
    """Return the route a run starts on (None for a setting that names none)."""
    forced = {"poll": Route.POLL, "sse": Route.SSE, "http2": Route.HTTP2}
    if facts.setting in forced:
        return forced[facts.setting]
    if facts.setting != "auto":
        return None
    if facts.cleartext:
        return Route.SSE
    if facts.remembered in (Route.SSE, Route.POLL):
        return facts.remembered
    if facts.policy is Http2Policy.FORBIDDEN:
        return Route.SSE
    return Route.HTTP2


def _after_http2(facts: RouteFacts) -> Route | None:
    """Return where a run goes when HTTP/2 did not carry it."""
    outcome = facts.outcome
    if outcome is Outcome.NO_TUNNEL:
        return Route.SSE  # the proxy is honoured over HTTP/1.1, whatever the setting
    if facts.setting != "auto":
        return None
    if outcome is Outcome.NOT_NEGOTIATED:
        return None if facts.policy is Http2Policy.REQUIRED else Route.SSE
    if outcome is Outcome.STREAM_REFUSED:
        return Route.SSE
    if outcome is Outcome.REFUSED and unserved(facts.status, facts.code):
        return Route.SSE
    return None


def _after_sse(facts: RouteFacts) -> Route | None:
    """Return where a run goes when RunSSE did not carry it."""
    if facts.setting == "sse":
        return None
    outcome = facts.outcome
    if outcome is Outcome.ENDED_EMPTY:
        return Route.POLL
    if outcome is Outcome.END_ERROR and facts.code == "unimplemented":
        return Route.POLL
    if outcome is Outcome.REFUSED and unserved(facts.status, facts.code):
        return Route.POLL
    return None


def wants_policy(facts: RouteFacts) -> bool:
    """Return whether Cursor's server config can change the next route and is not known yet.

    Only a failed HTTP/2 negotiation under ``auto`` (oh-my-pi's moment, docs/protocol.md
    §4b): a healthy round costs no extra call.
    """
    return (
        facts.tried is Route.HTTP2
        and facts.outcome is Outcome.NOT_NEGOTIATED
        and facts.setting == "auto"
        and facts.policy is Http2Policy.UNKNOWN
    )


def dead_end(facts: RouteFacts) -> DeadEnd:
    """Return why ``next_route`` found no route for FACTS, when that has words of its own."""
    if facts.tried is Route.HTTP2 and facts.outcome is Outcome.NOT_NEGOTIATED:
        if facts.setting == "http2":
            return DeadEnd.HTTP2_FORCED
        if facts.policy is Http2Policy.REQUIRED:
            return DeadEnd.HTTP2_REQUIRED
    return DeadEnd.ROUTE_ERROR


def remembers(facts: RouteFacts) -> bool:
    """Return whether the route that carries this run is kept for the base URL's next run.

    Only where ``auto`` would read it (or ``http2`` could have moved the run): over
    ``https://`` with a setting that chooses.
    """
    return facts.setting in ("auto", "http2") and not facts.cleartext


def remembers_move(facts: RouteFacts) -> bool:
    """Return whether the route a run moves to after FACTS is kept at once for the next run.

    A run leaving HTTP/2 because the service or the negotiation would not have it
    spares the next run the same try; a proxy that cannot carry HTTP/2 is the
    proxy's doing, tried again each run (it may be a setting of this round alone).
    """
    return (
        remembers(facts) and facts.tried is Route.HTTP2 and facts.outcome is not Outcome.NO_TUNNEL
    )
