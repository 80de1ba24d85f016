"""What every route family of the simulator shares: the Connect refusal and the simulator it serves.

The families (``agent.py``, ``models.py``, ``catalog.py``, ``auth.py``,
``dashboard.py``, ``server_config.py``) install their routes on
a simulator and refuse bad calls with a Connect error. They reach the
simulator only through ``RouteHost`` — the few things they use of it — so they
never import the package ``__init__`` that builds the simulator from them; the
one direction is ``__init__`` → families → this module and ``server.py``.
"""

from __future__ import annotations

import base64
import json
from typing import TYPE_CHECKING, Any, Protocol

from nodecode_cursor._proto import aiserver_pb2

from .server import Handler, HttpServer, SimRequest, SimResponse

if TYPE_CHECKING:
    from .accounts import SimAccounts

__all__ = ["OUTDATED_STYLES", "RouteHost", "bearer_refusal", "connect_error", "outdated_refusal"]

# How the simulator refuses a client version it was told to refuse (``Simulator.refuse_client``):
# "details" as Cursor was reported to in June 2026 (resource_exhausted with ErrorDetails
# error 28, title "Update Required"), "bare" as a plain Connect error naming the model.
OUTDATED_STYLES = ("details", "bare")
OUTDATED_TITLE = "Update Required"
OUTDATED_DETAIL = (
    "Your version of Cursor is no longer supported. Please update to the latest version."
)


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


def outdated_refusal(style: str) -> SimResponse:
    """Return the refusal of an outdated client in STYLE (one of OUTDATED_STYLES)."""
    if style == "bare":
        return connect_error(400, "invalid_argument", f"{OUTDATED_TITLE} for Composer 2")
    details = aiserver_pb2.ErrorDetails(
        error=aiserver_pb2.ErrorDetails.ERROR_GPT_4_VISION_PREVIEW_RATE_LIMIT
    )
    details.details.title = OUTDATED_TITLE
    details.details.detail = OUTDATED_DETAIL
    value = base64.b64encode(details.SerializeToString()).decode().rstrip("=")
    entry = {"type": "aiserver.v1.ErrorDetails", "value": value}
    return connect_error(429, "resource_exhausted", "Error", details=[entry])


class RouteHost(Protocol):
    """The simulator as a route family sees it: where to route, whom to admit, how much to keep."""

    server: HttpServer
    max_records: int | None
    valid_tokens: set[str] | None
    # The accounts a test added (accounts.py): whose call a bearer is.
    accounts: SimAccounts

    def route(self, path: str, handler: Handler) -> None:
        """Serve ``path`` with ``handler``."""

    def check_bearer(self, request: SimRequest) -> SimResponse | None:
        """Return a 401 Connect error when the request's bearer is missing or refused."""
