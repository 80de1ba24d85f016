"""Which wire carries a run: ``open_run`` and its driver, ``RoutedRun``, on the core's decision.

A run goes over HTTP/2 ``Run`` (``h2run.H2Run``), RunSSE or RunPoll
(``sse.SseRun``, ``sse.PollRun``). Which one, and where it goes when its route
turns out not to carry it, is ``core.routes.next_route``'s decision; this
module is the one driver that carries it out. ``RoutedRun`` gathers the facts
(the ``transport`` setting, the remembered route, Cursor's server config, how
the route tried ended: ``run.NotCarried``), asks the decision, opens the route
it names and resends there, on a new request id, every message the run had
sent (one replay buffer, kept until the service's first message). To the lane
it is one run, whichever routes carried it. What each route does on the wire
is its own module's.
"""

from __future__ import annotations

import contextlib
import dataclasses
import enum
import logging
import uuid
from collections.abc import AsyncGenerator
from types import TracebackType
from typing import TYPE_CHECKING, Self

from .. import limits
from .._proto import agent_pb2
from ..core.routes import (
    DeadEnd,
    Http2Policy,
    Outcome,
    Route,
    RouteFacts,
    dead_end,
    next_route,
    remembers,
    remembers_move,
    wants_policy,
)
from ..errors import ConfigError, ProviderError
from ..wire.stream import ServerItem, as_message
from .h2run import H2Run
from .run import HEARTBEAT, NotCarried, RunSettings, RunTransport
from .sse import PollRun, SseRun

if TYPE_CHECKING:
    from ..account.server_config import Http2Policy as ServerPolicy
    from .runpool import RunConnections

__all__ = ["RoutedRun", "open_run"]

log = logging.getLogger(__name__)

# How each route is named in a log line.
_NAMES = {Route.HTTP2: "HTTP/2 Run", Route.SSE: "RunSSE", Route.POLL: "RunPoll"}
# How each route's refusal names it (the RPC refused).
_REFUSED_NAMES = {Route.HTTP2: "Run", Route.SSE: "RunSSE", Route.POLL: "RunPoll"}


def open_run(settings: RunSettings, connections: RunConnections | None = None) -> RoutedRun:
    """Return a new, unopened run (``async with`` opens it); ConfigError for an unknown setting.

    ``settings.transport`` is the ``transport`` setting: ``sse`` and ``poll`` force
    one route, ``http2`` forces HTTP/2 ``Run`` (prior knowledge over ``http://``),
    ``auto`` takes HTTP/2 when TLS negotiates h2 and RunSSE otherwise (always over
    ``http://``), RunSSE moving the run to RunPoll when it turns out not to be
    served (the lane sees one run either way). CONNECTIONS is the cell's HTTP/2
    pool and memory of what worked (``runpool.RunConnections``); without it an
    HTTP/2 run dials a connection of its own.
    """
    if settings.transport not in limits.RUN_TRANSPORTS:
        names = ", ".join(f'"{name}"' for name in limits.RUN_TRANSPORTS)
        raise ConfigError(
            f'the cursor.transport setting must be one of {names}, not "{settings.transport}"',
            code="bad_config",
        )
    return RoutedRun(settings, connections)


class Leg(enum.Enum):
    """Where the run stands with the route it is on (the driver's one state)."""

    # Not entered yet: no route chosen.
    UNOPENED = "unopened"
    # On a route that has not answered: it may yet not carry the run (the replay is kept).
    TRYING = "trying"
    # The route answered: it carries the run, and nothing will be resent.
    CARRYING = "carrying"
    # The stream ended on the route: it carried the run to its end.
    ENDED = "ended"
    # Left: the route's run is closed.
    CLOSED = "closed"


class RoutedRun:
    """One run on the route the core decides, moved to the next one when its route fails it.

    ``route`` names the route the run is on (``http2``, ``sse``, ``poll``), from
    the start the one it opens on; ``request_id``, ``saw_end``, ``end_error`` and
    ``cut`` are the run's on it.
    """

    def __init__(self, settings: RunSettings, connections: RunConnections | None) -> None:
        self.settings = settings
        # The first route's request id (each route moved to takes a new one).
        self.request_id = str(uuid.uuid4())
        self.saw_end = False
        self.end_error: ProviderError | None = None
        self.cut: str | None = None
        self.leg = Leg.UNOPENED
        self._connections = connections
        self._run: RunTransport | None = None
        # Every message sent but heartbeats, while the route may still fail the run:
        # what a new route is sent first. Emptied for good once the service answers.
        self._replay: list[bytes] = []
        self._facts = RouteFacts(
            settings.transport, cleartext=settings.base_url.lower().startswith("http://")
        )
        # What Cursor's server config said, in its own terms (for the words it is quoted in).
        self._policy: ServerPolicy | None = None
        self._facts = self._first_facts()
        first = next_route(self._facts)
        assert first is not None  # open_run let only a known setting through
        self.route = first

    def __repr__(self) -> str:
        return f"RoutedRun(route={self.route.value!r}, request_id={self.request_id!r})"

    # --- opening ------------------------------------------------------------------

    async def __aenter__(self) -> Self:
        await self._enter(self.route, None, self.request_id)
        return self

    def _first_facts(self) -> RouteFacts:
        """Return the facts the first route is chosen from: the memory and the kept config.

        Both are read without waiting (the config only as kept: asking it waits for a
        failed negotiation, ``routes.wants_policy``).
        """
        facts = self._facts
        connections = self._connections
        if connections is None or not remembers(facts):
            return facts
        settings = self.settings
        found = connections.remembered(settings.base_url)
        remembered = Route(found) if found in tuple(Route) else None
        self._policy = connections.server_configs.cached(settings.base_url, settings.token)
        return dataclasses.replace(facts, remembered=remembered, policy=_policy(self._policy))

    async def _enter(
        self, route: Route, moved: NotCarried | None, request_id: str | None = None
    ) -> None:
        """Open ROUTE's run (after MOVED, the way the last route failed) and resend the replay.

        REQUEST_ID names the run (None: a new one). A route whose opening fails it
        (HTTP/2's dial) is decided past, as in ``batches``.
        """
        while True:
            run = self._make(route, request_id)
            request_id = None
            self._say(route, run.request_id, moved)
            try:
                await run.__aenter__()
            except NotCarried as failed:
                route = await self._past(route, failed, run)
                moved = failed
                continue
            break
        self._run, self.route, self.request_id = run, route, run.request_id
        self.leg = Leg.TRYING
        for message in self._replay:
            run.send(message)

    def _make(self, route: Route, request_id: str | None) -> RunTransport:
        """Return a new, unopened run on ROUTE; each reports a route that does not carry it."""
        if route is Route.HTTP2:
            return H2Run(self.settings, self._connections, request_id, movable=True)
        if route is Route.SSE:
            return SseRun(self.settings, request_id, movable=True)
        return PollRun(self.settings, request_id)

    async def _past(self, tried: Route, failed: NotCarried, run: RunTransport) -> Route:
        """Return the route the run takes after TRIED failed it as FAILED says; else raise.

        The route's error is the run's when no route is left (or the decision's own
        words for a server without HTTP/2); a stream that ended is the run's end.
        """
        facts = dataclasses.replace(
            self._facts,
            tried=tried,
            outcome=failed.outcome,
            status=failed.status,
            code=failed.code,
        )
        if wants_policy(facts):
            facts = await self._with_policy(facts)
        route = next_route(facts)
        if route is not None:
            if remembers_move(facts) and self._connections is not None:
                self._connections.remember(self.settings.base_url, route.value)
            return route
        end = dead_end(facts)
        if end is DeadEnd.HTTP2_FORCED:
            raise ProviderError(
                f"{self.settings.base_url} does not speak HTTP/2 ({failed}); set"
                " cursor.transport to auto or sse",
                status=502,
            ) from None
        if end is DeadEnd.HTTP2_REQUIRED:
            said = self._policy.name if self._policy is not None else "HTTP/2 only"
            raise ProviderError(
                f"{self.settings.base_url} does not speak HTTP/2 ({failed}), and Cursor's"
                f" server config for this account ({said}) allows no other transport; check"
                " the proxy or network between here and Cursor",
                status=502,
            ) from None
        if failed.error is not None:
            raise failed.error from None
        raise _Ended(run)

    async def _with_policy(self, facts: RouteFacts) -> RouteFacts:
        """Return FACTS with what Cursor's server config says of HTTP/2 (asked, or kept)."""
        from ..account.server_config import ask_server_config

        configs = self._connections.server_configs if self._connections is not None else None
        self._policy = await ask_server_config(self.settings, configs)
        return dataclasses.replace(facts, policy=_policy(self._policy))

    def _say(self, route: Route, request_id: str, moved: NotCarried | None) -> None:
        """Log, at DEBUG, which route the run takes and why."""
        settings = self.settings
        facts = self._facts
        if moved is None:
            if facts.cleartext and facts.setting == "auto":
                log.debug("cleartext base URL: the run goes over RunSSE (transport setting auto)")
            elif facts.remembered is route and route is not Route.HTTP2:
                log.debug(
                    "run %s: %s, as the last run to %s went (transport setting %s)",
                    request_id,
                    _NAMES[route],
                    settings.base_url,
                    settings.transport,
                )
            elif facts.policy is Http2Policy.FORBIDDEN and route is Route.SSE:
                said = self._policy.name if self._policy is not None else "no HTTP/2"
                log.debug("run %s: RunSSE, as Cursor's server config says %s", request_id, said)
            return
        if moved.outcome is Outcome.NO_TUNNEL:
            log.debug(
                "run %s: RunSSE, as HTTP/2 cannot go through the proxy: %s", request_id, moved
            )
        elif moved.outcome is Outcome.NOT_NEGOTIATED:
            policy = self._policy
            said = (
                f"; Cursor's server config says {policy.name}"
                if policy is not None and policy.forbids_http2
                else ""
            )
            log.debug("run %s: RunSSE, as %s: %s%s", request_id, settings.base_url, moved, said)
        else:
            why = str(moved)
            left = self.route
            if moved.outcome is Outcome.REFUSED and moved.error is not None:
                # The decision moved it, so the refusal said the route is not served.
                why = (
                    f"{_REFUSED_NAMES[left]} refused as unimplemented"
                    f" (HTTP {moved.status}: {moved.error.detail})"
                )
            verb = "moves to" if route is not Route.POLL else "streams over"
            log.debug(
                "run %s %s %s as run %s: %s",
                self.request_id,
                verb,
                _NAMES[route],
                request_id,
                why,
            )

    # --- the run ------------------------------------------------------------------

    def send(self, message: bytes) -> None:
        """Queue one serialized AgentClientMessage on the run's route (kept to resend while
        the route may still fail the run)."""
        if self.leg is Leg.TRYING and message != HEARTBEAT:
            self._replay.append(message)
        if self._run is not None:
            self._run.send(message)

    async def messages(self) -> AsyncGenerator[agent_pb2.AgentServerMessage, None]:
        """Yield the server's messages, whichever routes carried them."""
        async with contextlib.aclosing(self.batches()) as batches:
            async for batch in batches:
                for item in batch:
                    yield as_message(item)

    async def batches(self) -> AsyncGenerator[list[ServerItem], None]:
        """Yield the server's messages a read at a time; move the run when its route fails it."""
        while True:
            run, route = self._run, self.route
            assert run is not None
            try:
                async with contextlib.aclosing(run.batches()) as batches:
                    async for batch in batches:
                        if self.leg is Leg.TRYING:
                            self.leg = Leg.CARRYING
                            self._replay.clear()
                        yield batch
            except NotCarried as failed:
                try:
                    following = await self._past(route, failed, run)
                except _Ended:
                    self._ended(run)
                    return
                await self._leave(run)
                await self._enter(following, failed)
                continue
            self._ended(run)
            return

    def _ended(self, run: RunTransport) -> None:
        """Take RUN's end as the run's: the route carried it to its end."""
        self.leg = Leg.ENDED
        self._copy(run)

    def _copy(self, run: RunTransport) -> None:
        """Take RUN's end state as this run's."""
        self.saw_end, self.end_error, self.cut = run.saw_end, run.end_error, run.cut
        self.request_id = run.request_id

    async def _leave(self, run: RunTransport) -> None:
        """Close RUN, a route that did not carry the run."""
        self._run = None
        await run.__aexit__(None, None, None)

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        run, self._run = self._run, None
        carried = self.leg in (Leg.CARRYING, Leg.ENDED)
        self.leg = Leg.CLOSED
        if run is None:
            return
        try:
            await run.__aexit__(exc_type, exc, tb)
        finally:
            self._copy(run)
            connections = self._connections
            if carried and connections is not None and remembers(self._facts):
                connections.remember(self.settings.base_url, self.route.value)


class _Ended(Exception):
    """No route is left for a run whose stream ended: RUN's end is the run's."""

    def __init__(self, run: RunTransport) -> None:
        super().__init__("the stream ended before its first message")
        self.run = run


def _policy(found: ServerPolicy | None) -> Http2Policy:
    """Return what the server config FOUND says of HTTP/2, as the route decision reads it."""
    if found is None:
        return Http2Policy.UNKNOWN
    if found.forbids_http2:
        return Http2Policy.FORBIDDEN
    if found.requires_http2:
        return Http2Policy.REQUIRED
    return Http2Policy.UNKNOWN
