"""What every route family of the simulator shares: the Connect refusal and the simulator it serves.

The families (``agent.py``, ``models.py``, ``catalog.py``, ``auth.py``,
``dashboard.py``, ``server_config.py``) install their routes on
a simulator and refuse bad calls with a Connect error. They reach the
simulator only through ``RouteHost`` — the few things they use of it — so they
never import the package ``__init__`` that builds the simulator from them; the
one direction is ``__init__`` → families → this module and ``server.py``.
"""

from __future__ import annotations

import json
from typing import Any, Protocol

from .server import Handler, HttpServer, SimRequest, SimResponse

__all__ = ["RouteHost", "bearer_refusal", "connect_error"]


def connect_error(status: int, code: str, message: str, **extra: Any) -> SimResponse:
    """Return a refused unary call: a Connect error JSON body with an HTTP status."""
    body = json.dumps({"code": code, "message": message, **extra}, separators=(",", ":"))
    return SimResponse(status, {"content-type": "application/json"}, body.encode())


def bearer_refusal(request: SimRequest, valid_tokens: set[str] | None) -> SimResponse | None:
    """Return a 401 Connect error when REQUEST's bearer is missing or not in VALID_TOKENS."""
    auth = request.headers.get("authorization", "")
    token = auth.removeprefix("Bearer ").strip() if auth.startswith("Bearer ") else ""
    if not token:
        return connect_error(401, "unauthenticated", "missing bearer token")
    # None accepts any non-empty bearer; a set accepts only its members.
    if valid_tokens is not None and token not in valid_tokens:
        return connect_error(401, "unauthenticated", "invalid bearer token")
    return None


class RouteHost(Protocol):
    """The simulator as a route family sees it: where to route, whom to admit, how much to keep."""

    server: HttpServer
    max_records: int | None
    valid_tokens: set[str] | None

    def route(self, path: str, handler: Handler) -> None:
        """Serve ``path`` with ``handler``."""

    def check_bearer(self, request: SimRequest) -> SimResponse | None:
        """Return a 401 Connect error when the request's bearer is missing or refused."""
