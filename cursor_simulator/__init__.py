"""A local stand-in for Cursor's services, for tests and the offline demo — never Cursor itself.

``Simulator`` is a real HTTP/1.1 server on 127.0.0.1 (h11, threads) that serves
the agent service (RunSSE, RunPoll, BidiAppend, and Run over HTTP/2 — prior
knowledge on the same port, or ALPN on a TLS port ``listen_tls`` opens), the
roster (GetUsableModels), the catalog (AvailableModels), the server config, the
dashboard and the sign-in endpoints (auth/poll, oauth/token, the profile). It checks what it
receives — content types, headers, protobuf bodies — and answers a protocol
violation with a Connect error, so it doubles as a conformance checker. Each
route family lives in its own module (which never imports this one: it sees
the simulator through ``family.RouteHost``) and installs itself here; tests script
behaviour per path with ``route`` or through the families' own knobs.

Run it by hand with ``python -m cursor_simulator --port N``.
"""

from __future__ import annotations

import ssl
from collections.abc import Callable
from types import TracebackType
from typing import Any

from . import agent, auth, catalog, dashboard, models, server_config
from .accounts import SimAccounts
from .family import OUTDATED_STYLES, bearer_refusal, connect_error, outdated_refusal
from .server import Cut, HttpServer, SimRequest, SimResponse

__all__ = ["Cut", "SimRequest", "SimResponse", "Simulator", "connect_error"]


class Simulator:
    """The simulated Cursor: start it, point ``base_url`` and ``web_url`` at ``url``, stop it."""

    def __init__(
        self,
        *,
        port: int = 0,
        valid_tokens: set[str] | None = None,
        max_records: int | None = None,
    ) -> None:
        """Bind 127.0.0.1:PORT (0 picks one) and install every route family; serve on start."""
        # max_records bounds what a long-lived simulator remembers (requests, runs);
        # None, for tests, keeps everything.
        self.server = HttpServer(port=port, max_records=max_records)
        self.max_records = max_records
        # None accepts any non-empty bearer; a set accepts only its members.
        self.valid_tokens = valid_tokens
        # Client versions (x-cursor-client-version) every bearer-checked route refuses as
        # outdated, "*" for any, and in which of OUTDATED_STYLES (refuse_client sets both).
        self.refused_client_versions: set[str] = set()
        # Cursor refuses a dashboard API key (crsr_…) sent as the bearer with 401: it must
        # be exchanged for a session token first (/auth/exchange_user_api_key). Seen live by
        # diegosouzapw/OmniRoute (open-sse/services/cursorApiKeyAuth.ts, PR #10729) and
        # sudosubin/pi-frontier (PR #30). False lets a raw key through as any bearer.
        self.refuse_raw_api_keys = True
        self.outdated_style = "details"
        # Several accounts (accounts.py): tokens naming an email, each its own plan and roster.
        self.accounts = SimAccounts(dashboard.DashboardState)
        self.models = models.install(self)
        self.catalog = catalog.install(self)
        self.auth = auth.install(self)
        self.agent = agent.install(self, catalog=self.catalog, roster=self.models)
        self.dashboard = dashboard.install(self)
        self.server_config = server_config.install(self)

    @property
    def url(self) -> str:
        """Return the base URL (serves both the API and the web routes)."""
        return self.server.url

    @property
    def requests(self) -> list[SimRequest]:
        """Return every request received so far, in order."""
        return self.server.requests

    def requests_to(self, path: str) -> list[SimRequest]:
        """Return the requests received for ``path``."""
        return [r for r in self.server.requests if r.path == path]

    def wait_until(self, done: Callable[[], bool], seconds: float = 60.0) -> bool:
        """Return whether DONE() holds, looked at again as each request comes or is
        answered, for up to SECONDS (the default only stops a hung test)."""
        return self.server.wait_until(done, seconds)

    def route(self, path: str, handler: Any) -> None:
        """Serve ``path`` with ``handler`` (a function of SimRequest → SimResponse)."""
        self.server.route(path, handler)

    def check_bearer(self, request: SimRequest) -> SimResponse | None:
        """Return a 401 Connect error when the request's bearer is missing or refused.

        A client version told to be refused (``refuse_client``) gets the outdated-client
        refusal instead, before the bearer is looked at; a raw ``crsr_`` API key is refused
        while ``refuse_raw_api_keys`` (on by default, as Cursor does).
        """
        version = request.headers.get("x-cursor-client-version")
        refused = self.refused_client_versions
        if version is not None and ("*" in refused or version in refused):
            return outdated_refusal(self.outdated_style)
        if self.refuse_raw_api_keys and request.headers.get("authorization", "").startswith(
            "Bearer crsr_"
        ):
            return connect_error(401, "unauthenticated", "an API key is not a session token")
        return bearer_refusal(request, self.valid_tokens)

    def refuse_client(self, *versions: str, style: str = "details") -> None:
        """Refuse VERSIONS ("*": every version) as outdated, in STYLE; none given: refuse none."""
        if style not in OUTDATED_STYLES:
            raise ValueError(f"style must be one of {OUTDATED_STYLES}, not {style!r}")
        self.refused_client_versions = set(versions)
        self.outdated_style = style

    def listen_tls(self, context: ssl.SSLContext) -> str:
        """Also serve every route over TLS with CONTEXT (its ALPN offers h2 or not); return the URL.

        The URL names ``localhost``: the test certificate must be issued for it.
        """
        return self.server.listen_tls(context)

    def start(self) -> Simulator:
        """Start serving; return self."""
        self.server.start()
        return self

    def stop(self) -> None:
        """Stop serving and close every connection."""
        self.server.stop()

    def __enter__(self) -> Simulator:
        """Start serving; return self."""
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        """Stop serving, whatever ended the block."""
        self.stop()
