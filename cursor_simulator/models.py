"""Simulator routes: the account roster, ``agent.v1.AgentService/GetUsableModels``.

It checks the call the way Cursor would (a bearer, ``application/proto``, the
Connect protocol header, the client headers every RPC carries, an empty or
decodable request) and answers a violation with a Connect error, else the
scripted roster as a bare ``GetUsableModelsResponse``. A test can script the
roster, a refusal (HTTP status + Connect error body), or a raw body.

The roster is also what the agent route admits: a run on a model it does not
list is refused bare (``agent.AgentService.refuse_unlisted_models``), as Cursor
refused a model the plan did not allow (opencodex commit f3a7cd4a). By default
it lists every model the bundled rows name (``plan.bundled_slugs``), the way a
plan that allows all of Cursor's models does.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

from nodecode_cursor._proto import agent_pb2
from nodecode_cursor.wire import connect

from . import plan
from .family import RouteHost, connect_error
from .server import SimRequest, SimResponse

PATH = "/agent.v1.AgentService/GetUsableModels"

# What every RPC carries (PROTOCOL.md §2) besides the bearer and content type.
_CLIENT_HEADERS = {"x-cursor-client-type": "cli", "x-ghost-mode": "true"}
_PRESENT_HEADERS = ("x-cursor-client-version", "x-request-id")


@dataclass
class RosterEntry:
    """One roster row as the simulator serves it."""

    model_id: str
    display_name: str = ""
    display_model_id: str = ""
    display_name_short: str = ""
    aliases: tuple[str, ...] = ()
    max_mode: bool | None = None


@dataclass
class ModelsState:
    """The roster's script: rows, or a refusal, or a raw body; and the calls seen."""

    roster: list[RosterEntry] = field(default_factory=list)
    refusal: tuple[int, str, str] | None = None
    raw_body: bytes | None = None
    calls: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def refuse(self, status: int, code: str, message: str = "refused") -> None:
        """Make the next calls answer a Connect error."""
        self.refusal = (status, code, message)

    def lists(self, *model_ids: str) -> bool | None:
        """Return whether the roster lists one of MODEL_IDS (by id or alias); None: no roster.

        A roster the script replaced by a refusal or a raw body, or an empty one,
        says nothing, so it admits every model.
        """
        with self.lock:
            if self.refusal is not None or self.raw_body is not None or not self.roster:
                return None
            known = {e.model_id for e in self.roster} | {a for e in self.roster for a in e.aliases}
        return any(model_id in known for model_id in model_ids if model_id)


def named_roster() -> list[RosterEntry]:
    """Return a small roster shaped like an account's: a few models, one max-mode marker."""
    return [
        RosterEntry("claude-opus-4-8-high", "Claude Opus 4.8 High"),
        RosterEntry("claude-opus-4-8-max", "Claude Opus 4.8 Max", max_mode=True),
        RosterEntry("composer-2.5", "Composer 2.5"),
        RosterEntry("gpt-5.4", "GPT-5.4"),
        RosterEntry("gpt-5.4-high", "", display_name_short="GPT-5.4 High"),
        RosterEntry("gemini-3.1-pro", "", display_model_id="gemini-3.1-pro", aliases=("1M",)),
    ]


def _default_roster() -> list[RosterEntry]:
    """Return the named roster, then every other model the bundled rows name (a plan that
    allows them all)."""
    named = named_roster()
    taken = {entry.model_id for entry in named}
    return named + [RosterEntry(slug) for slug in plan.bundled_slugs() if slug not in taken]


def install(sim: RouteHost) -> ModelsState:
    """Serve GetUsableModels on ``sim``; return its state."""
    state = ModelsState(roster=_default_roster())

    def handle(request: SimRequest) -> SimResponse:
        """Return the roster, the scripted refusal, or the Connect error for a bad call."""
        with state.lock:
            state.calls += 1
        if request.method != "POST":
            return connect_error(405, "unimplemented", "GetUsableModels takes POST")
        refused = sim.check_bearer(request)
        if refused is not None:
            return refused
        if request.headers.get("content-type") != "application/proto":
            return connect_error(415, "invalid_argument", "content-type must be application/proto")
        if request.headers.get("connect-protocol-version") != "1":
            return connect_error(400, "invalid_argument", "connect-protocol-version must be 1")
        for name, value in _CLIENT_HEADERS.items():
            if request.headers.get(name) != value:
                return connect_error(400, "invalid_argument", f"{name} must be {value}")
        for name in _PRESENT_HEADERS:
            if not request.headers.get(name):
                return connect_error(400, "invalid_argument", f"{name} is missing")
        try:
            agent_pb2.GetUsableModelsRequest.FromString(connect.read_unary_body(request.body))
        except Exception:
            return connect_error(400, "invalid_argument", "request did not decode")
        if state.refusal is not None:
            status, code, message = state.refusal
            return connect_error(status, code, message)
        if state.raw_body is not None:
            return SimResponse(200, {"content-type": "application/proto"}, state.raw_body)
        answer = agent_pb2.GetUsableModelsResponse()
        account = sim.accounts.of_request(request)
        roster = account.roster if account is not None and account.roster is not None else None
        for entry in state.roster if roster is None else roster:
            details = answer.models.add(
                model_id=entry.model_id,
                display_name=entry.display_name,
                display_model_id=entry.display_model_id,
                display_name_short=entry.display_name_short,
            )
            details.aliases.extend(entry.aliases)
            if entry.max_mode is not None:
                details.max_mode = entry.max_mode
        body = answer.SerializeToString()
        return SimResponse(200, {"content-type": "application/proto"}, body)

    sim.route(PATH, handle)
    return state
