"""Simulator route: ``agent.v1.AgentService/GetServerConfig``, the account's HTTP/2 policy.

It checks the call as Cursor would (POST, a bearer, ``application/proto``, the
client headers, an empty request) and answers ``GetServerConfigResponse{7
http2_config}`` as bare bytes, or in one Connect frame (``framed``). A test
sets the answer (``http2_config``: 0 unspecified, 1 FORCE_ALL_DISABLED, 2
FORCE_ALL_ENABLED, 3 FORCE_BIDI_DISABLED, 4 FORCE_BIDI_ENABLED), a refusal, a
raw body or a delay, and reads how many calls came. The route is an ordinary
one, so the simulator serves it over HTTP/1.1 and over HTTP/2 alike.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field

from nodecode_cursor._proto import agent_pb2

from .family import RouteHost, connect_error
from .server import SimRequest, SimResponse

__all__ = ["PATH", "ServerConfigState", "install"]

PATH = "/agent.v1.AgentService/GetServerConfig"


@dataclass
class ServerConfigState:
    """The route's script: the answer, a refusal, a raw body, a delay; and the calls seen."""

    http2_config: int = 0
    framed: bool = False
    refusal: tuple[int, str, str] | None = None
    raw_body: bytes | None = None
    delay: float = 0.0
    calls: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def refuse(self, status: int, code: str, message: str = "refused") -> None:
        """Make the next calls answer a Connect error."""
        self.refusal = (status, code, message)


def answer_bytes(http2_config: int) -> bytes:
    """Return GetServerConfigResponse{7 http2_config} (any number: the enum is open)."""
    return agent_pb2.GetServerConfigResponse(http2_config=http2_config).SerializeToString()  # type: ignore[arg-type]


def install(sim: RouteHost) -> ServerConfigState:
    """Serve GetServerConfig on ``sim``; return its state."""
    state = ServerConfigState()

    def handle(request: SimRequest) -> SimResponse:
        """Return the scripted answer, the scripted refusal, or the error for a bad call."""
        with state.lock:
            state.calls += 1
        if request.method != "POST":
            return connect_error(405, "unimplemented", "GetServerConfig takes POST")
        refused = sim.check_bearer(request)
        if refused is not None:
            return refused
        if request.headers.get("content-type") != "application/proto":
            return connect_error(415, "invalid_argument", "content-type must be application/proto")
        for name, value in (("x-cursor-client-type", "cli"), ("x-ghost-mode", "true")):
            if request.headers.get(name) != value:
                return connect_error(400, "invalid_argument", f"{name} must be {value}")
        if request.body:
            # GetServerConfigRequest has no field: the request is zero bytes.
            return connect_error(400, "invalid_argument", "GetServerConfigRequest is empty")
        if state.delay:
            # A slow answer; one whose client gave up is not waited out (a long delay
            # then costs a test nothing).
            deadline = time.monotonic() + state.delay
            while (left := deadline - time.monotonic()) > 0:
                if request.wait_gone(left):
                    return connect_error(499, "canceled", "the client went away")
        if state.refusal is not None:
            status, code, message = state.refusal
            return connect_error(status, code, message)
        if state.raw_body is not None:
            body = state.raw_body
        else:
            body = answer_bytes(state.http2_config)
            if state.framed:
                # One data frame, then the end frame with no error: 02, length 2, {}.
                body = b"\x00" + len(body).to_bytes(4, "big") + body + b"\x02\x00\x00\x00\x02{}"
        return SimResponse(200, {"content-type": "application/proto"}, body)

    sim.route(PATH, handle)
    return state
