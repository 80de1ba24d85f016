"""Which wire carries a run: ``open_run`` picks RunSSE, RunPoll or HTTP/2 ``Run``.

The one place a run's route is chosen (the ``transport`` setting), above both
families of transport: the HTTP/1.1 routes (``sse.SseRun``,
``sse.PollRun``) and the HTTP/2 one with its fallback
(``h2run.ChosenRun``), so neither of those modules imports the other's caller.
What a route does on the wire is its own module's.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from .. import limits
from ..errors import ConfigError
from .h2run import ChosenRun
from .run import RunSettings, RunTransport
from .sse import PollRun, SseRun

if TYPE_CHECKING:
    from .runpool import RunConnections

__all__ = ["open_run"]

log = logging.getLogger(__name__)


def open_run(settings: RunSettings, connections: RunConnections | None = None) -> RunTransport:
    """Return a new, unopened transport for one run (``async with`` opens it).

    ``settings.transport`` picks the route: ``sse`` and ``poll`` force one,
    ``http2`` forces HTTP/2 ``Run`` (prior knowledge over ``http://``), ``auto``
    takes HTTP/2 when TLS negotiates h2 and RunSSE otherwise (always over
    ``http://``), RunSSE moving the run to RunPoll when it turns out not to be
    served (the lane sees one run either way). CONNECTIONS is the cell's HTTP/2
    pool and memory of what worked (``runpool.RunConnections``); without it an
    HTTP/2 run dials a connection of its own.
    """
    choice = settings.transport
    if choice == "poll":
        return PollRun(settings)
    if choice == "sse":
        return SseRun(settings)
    cleartext = settings.base_url.lower().startswith("http://")
    if choice == "auto" and cleartext:
        log.debug("cleartext base URL: the run goes over RunSSE (transport setting auto)")
        return SseRun(settings, fall_back_to_poll=True)
    if choice in ("auto", "http2"):
        return ChosenRun(settings, connections, forced=choice == "http2")
    names = ", ".join(f'"{name}"' for name in limits.RUN_TRANSPORTS)
    raise ConfigError(
        f'the cursor.transport setting must be one of {names}, not "{choice}"',
        code="bad_config",
    )
