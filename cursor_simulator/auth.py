"""Simulator routes for the sign-in: ``/auth/poll``, ``/oauth/token``, ``/api/auth/me``, and
the API-key exchange ``/auth/exchange_user_api_key``.

It also serves the sign-in page itself (``/loginDeepControl``, where ``login``
sends the person): a real HTML page whose Confirm button posts a form to
``/loginDeepControl/confirm``, which confirms that sign-in as Cursor's site does
once the person signs in there; so a person can drive ``nodecode-cursor login``
against the simulator in a browser.

``install(sim)`` serves the three and returns an ``AuthState`` tests script:
a queue of poll outcomes (pending 404, tokens, a 500, a body that is not JSON,
a cut connection), the refresh's answer (a new token, rotated or not,
``shouldLogout``, a refusal, no token), and the profile's answer. It records
what it received (the poll's uuid and verifier, the refresh bodies) and counts
refresh calls under a lock, because tests call it from several processes.
Access tokens it issues are real HS256 JWTs with ``exp`` and ``sub`` (and the
``email`` of an account a test added, ``accounts.py``) so the cell's expiry
arithmetic can be checked; ``sign_in_as`` makes the next sign-in that account's,
and ``give_key`` makes an API key that account's (its exchange names the account).
The cell's side lives in ``signin.py`` and ``store.py``.
"""

from __future__ import annotations

import html
import json
import threading
import time
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Literal
from urllib.parse import parse_qs, unquote

import jwt

from .server import Cut, SimRequest, SimResponse, json_response

__all__ = ["EXCHANGE_PATH", "AuthState", "PollOutcome", "RefreshMode", "install", "make_token"]

# Signs the simulator's tokens; the cell never verifies them, it only reads their claims.
SIGNING_KEY = "nodecode-cursor-simulator-signing-key-0123456789"
OAUTH_CLIENT_ID = "KbZUR41cY7W6zRSdpSUJ7I7mLYBKOCmB"
EXCHANGE_PATH = "/auth/exchange_user_api_key"

PollOutcome = Literal["pending", "tokens", "error", "not-json", "cut", "incomplete"]
RefreshMode = Literal["ok", "rotate", "logout", "refuse", "no-token"]


def make_token(sub: str = "auth0|user_123", lifetime: float = 3600.0, **claims: Any) -> str:
    """Return a signed HS256 JWT naming ``sub`` and expiring ``lifetime`` seconds from now."""
    now = int(time.time())
    payload = {"sub": sub, "iat": now, "exp": now + int(lifetime), **claims}
    return jwt.encode(payload, SIGNING_KEY, algorithm="HS256")


@dataclass
class AuthState:
    """The scriptable sign-in service: knobs tests set, and what it saw."""

    sim: Any
    sub: str = "auth0|user_123"
    token_lifetime: float = 3600.0
    # Poll: a confirmed uuid (the person signed in on its page) gets tokens; otherwise
    # outcomes are served in order, and an empty queue answers pending (404).
    poll_queue: deque[PollOutcome] = field(default_factory=deque)
    confirmed: set[str] = field(default_factory=set)
    # When set, a sign-in confirms itself after this many pending polls (as if the
    # person had signed in on the page): for driving ``nodecode-cursor login`` by hand.
    auto_confirm_after: int | None = None
    polls: list[dict[str, str]] = field(default_factory=list)
    issued: list[tuple[str, str, str]] = field(default_factory=list)
    # Refresh.
    refresh_mode: RefreshMode = "ok"
    refresh_delay: float = 0.0
    refresh_calls: int = 0
    refresh_bodies: list[bytes] = field(default_factory=list)
    refreshed: list[str] = field(default_factory=list)
    # Profile: None answers the token's own user id as sub.
    email: str | None = "person@example.com"
    profile_sub: str | None = None
    profile_status: int = 200
    profile_delay: float = 0.0
    profile_cookies: list[str] = field(default_factory=list)
    # API-key exchange (/auth/exchange_user_api_key). None accepts any ``crsr_`` key; a set
    # accepts only its members. ``exchange_status`` other than 200 answers that status
    # (e.g. 500) whatever the key; ``exchange_lifetime`` is the session token's life.
    api_keys: set[str] | None = None
    exchange_status: int = 200
    exchange_lifetime: float = 3600.0
    exchange_delay: float = 0.0
    exchanges: int = 0
    exchanged: list[str] = field(default_factory=list)
    # Whose each key is (``give_key``): its exchange answers that account's token, which
    # names its email; a key no account owns answers ``sub``'s, as one account always did.
    key_owners: dict[str, str] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    _serial: int = 0
    # Whose each refresh token is (a refresh renews that user's token, not self.sub's).
    _refresh_subs: dict[str, str] = field(default_factory=dict, repr=False)

    def queue_poll(self, *outcomes: PollOutcome) -> None:
        """Append poll outcomes to serve in order."""
        self.poll_queue.extend(outcomes)

    def confirm(self, login_id: str) -> None:
        """Act as if the person signed in on the page of ``login_id``: its polls get tokens."""
        self.confirmed.add(login_id)

    def sign_in_as(self, email: str) -> None:
        """Make the next sign-ins confirm as the account EMAIL (added with sim.accounts.add)."""
        self.sub = self.sim.accounts.named(email).sub

    def give_key(self, key: str, email: str) -> None:
        """Make KEY an API key of the account EMAIL (added with sim.accounts.add)."""
        with self._lock:
            self.key_owners[key] = self.sim.accounts.named(email).sub

    def _claims(self, sub: str) -> dict[str, Any]:
        """Return the claims a token of SUB carries besides sub: its account's email, if any."""
        accounts = getattr(self.sim, "accounts", None)
        account = accounts.by_sub(sub) if accounts is not None else None
        return {"email": account.email} if account is not None else {}

    def issue_token(self, sub: str | None = None) -> str:
        """Return a new access token for SUB (default: ``self.sub``), accepted by the service."""
        with self._lock:
            self._serial += 1
            serial = self._serial
        sub = sub or self.sub
        token = make_token(sub, self.token_lifetime, jti=f"t{serial}", **self._claims(sub))
        valid = getattr(self.sim, "valid_tokens", None)
        if isinstance(valid, set):
            valid.add(token)
        return token

    def issue_refresh_token(self, sub: str | None = None) -> str:
        """Return a new opaque refresh token, remembered as SUB's (default: ``self.sub``)."""
        with self._lock:
            self._serial += 1
            token = f"refresh-{self._serial}-sim"
            self._refresh_subs[token] = sub or self.sub
            return token

    # --- handlers --------------------------------------------------------------------

    def poll(self, request: SimRequest) -> SimResponse:
        """Answer one ``GET /auth/poll`` with the next scripted outcome."""
        if request.method != "GET":
            return json_response(405, {"error": "method not allowed"})
        query = request.query
        self.polls.append({"uuid": query.get("uuid", ""), "verifier": query.get("verifier", "")})
        if not query.get("uuid") or not query.get("verifier"):
            return json_response(400, {"error": "uuid and verifier are required"})
        if self.auto_confirm_after is not None:
            seen = sum(1 for poll in self.polls if poll["uuid"] == query["uuid"])
            if seen > self.auto_confirm_after:
                self.confirmed.add(query["uuid"])
        if query["uuid"] in self.confirmed:
            outcome: PollOutcome = "tokens"
        else:
            outcome = self.poll_queue.popleft() if self.poll_queue else "pending"
        if outcome == "pending":
            return json_response(404, {"error": "not found"})
        if outcome == "error":
            return json_response(500, {"error": "internal"})
        if outcome == "not-json":
            return SimResponse(200, {"content-type": "text/html"}, b"<html>oops</html>")
        if outcome == "cut":
            return SimResponse(200, {"content-type": "application/json"}, _cut_body())
        if outcome == "incomplete":
            return json_response(200, {"accessToken": self.issue_token()})
        access, refresh = self.issue_token(), self.issue_refresh_token()
        self.issued.append((query["uuid"], access, refresh))
        return json_response(200, {"accessToken": access, "refreshToken": refresh})

    def refresh(self, request: SimRequest) -> SimResponse:
        """Answer one ``POST /oauth/token`` as ``refresh_mode`` says."""
        with self._lock:
            self.refresh_calls += 1
            self.refresh_bodies.append(request.body)
        if request.method != "POST":
            return json_response(405, {"error": "method not allowed"})
        if "application/json" not in request.headers.get("content-type", ""):
            return json_response(415, {"error": "expected application/json"})
        try:
            body = json.loads(request.body)
        except ValueError:
            return json_response(400, {"error": "invalid_request"})
        if (
            not isinstance(body, dict)
            or body.get("grant_type") != "refresh_token"
            or body.get("client_id") != OAUTH_CLIENT_ID
            or not isinstance(body.get("refresh_token"), str)
            or not body["refresh_token"]
        ):
            return json_response(400, {"error": "invalid_request"})
        if self.refresh_delay:
            time.sleep(self.refresh_delay)
        with self._lock:
            sub = self._refresh_subs.get(body["refresh_token"], self.sub)
        account = self.sim.accounts.by_sub(sub) if hasattr(self.sim, "accounts") else None
        mode = self.refresh_mode
        if account is not None and account.refresh_mode is not None:
            mode = account.refresh_mode
        if mode == "logout":
            return json_response(200, {"access_token": "", "shouldLogout": True})
        if mode == "refuse":
            return json_response(401, {"error": "invalid_grant"})
        if mode == "no-token":
            return json_response(200, {})
        access = self.issue_token(sub)
        with self._lock:
            self.refreshed.append(access)
        answer: dict[str, Any] = {"access_token": access}
        if mode == "rotate":
            answer["refresh_token"] = self.issue_refresh_token(sub)
        return json_response(200, answer)

    def exchange(self, request: SimRequest) -> SimResponse:
        """Answer one ``POST /auth/exchange_user_api_key``: a session token for a ``crsr_`` key.

        As peers saw it live (diegosouzapw/OmniRoute ``open-sse/services/cursorApiKeyAuth.ts``,
        PR #10729; sudosubin/pi-frontier PR #30): the key as the bearer, ``{}`` as the body,
        ``{accessToken, refreshToken}`` back, the access token a JWT of about an hour
        whose ``type`` is ``api_key_token``. Each call counts, so tests can see how many.
        """
        with self._lock:
            self.exchanges += 1
        if request.method != "POST":
            return json_response(405, {"error": "method not allowed"})
        if "application/json" not in request.headers.get("content-type", ""):
            return json_response(415, {"error": "expected application/json"})
        try:
            body = json.loads(request.body)
        except ValueError:
            return json_response(400, {"error": "invalid_request"})
        if not isinstance(body, dict):
            return json_response(400, {"error": "invalid_request"})
        if self.exchange_delay:
            time.sleep(self.exchange_delay)
        if self.exchange_status != 200:
            return json_response(self.exchange_status, {"error": "scripted"})
        auth = request.headers.get("authorization", "")
        key = auth.removeprefix("Bearer ").strip() if auth.startswith("Bearer ") else ""
        if not key.startswith("crsr_") or (self.api_keys is not None and key not in self.api_keys):
            return json_response(401, {"error": "ERROR_BAD_USER_API_KEY"})
        with self._lock:
            self._serial += 1
            serial = self._serial
            sub = self.key_owners.get(key, self.sub)
        access = make_token(
            sub, self.exchange_lifetime, type="api_key_token", jti=f"k{serial}", **self._claims(sub)
        )
        valid = getattr(self.sim, "valid_tokens", None)
        if isinstance(valid, set):
            valid.add(access)
        with self._lock:
            self.exchanged.append(access)
        return json_response(200, {"accessToken": access, "refreshToken": access})

    def profile(self, request: SimRequest) -> SimResponse:
        """Answer one ``GET /api/auth/me`` when the session cookie names a real token's user."""
        cookie = request.headers.get("cookie", "")
        self.profile_cookies.append(cookie)
        if self.profile_delay:
            time.sleep(self.profile_delay)
        if self.profile_status != 200:
            return json_response(self.profile_status, {"error": "scripted"})
        prefix = "WorkosCursorSessionToken="
        value = next(
            (part.strip()[len(prefix) :] for part in cookie.split(";") if prefix in part), ""
        )
        user, sep, token = unquote(value).partition("::")
        if not sep:
            return json_response(401, {"error": "no session"})
        try:
            claims = jwt.decode(token, SIGNING_KEY, algorithms=["HS256"])
        except jwt.PyJWTError:
            return json_response(401, {"error": "bad session"})
        token_user = str(claims.get("sub", "")).split("|")[-1]
        if token_user != user:
            return json_response(401, {"error": "session names another user"})
        sub = self.profile_sub if self.profile_sub is not None else user
        account = self.sim.accounts.by_sub(user) if hasattr(self.sim, "accounts") else None
        email = account.email if account is not None else self.email
        return json_response(200, {"email": email, "sub": sub})


PAGE_PATH = "/loginDeepControl"
CONFIRM_PATH = "/loginDeepControl/confirm"


def _html(status: int, title: str, body: str) -> SimResponse:
    """Return a small HTML page (BODY is markup the caller escaped)."""
    page = (
        "<!doctype html>\n<html lang=en><head><meta charset=utf-8>"
        f"<title>{title}</title></head><body><h1>{title}</h1>{body}</body></html>\n"
    )
    return SimResponse(status, {"content-type": "text/html; charset=utf-8"}, page.encode())


def sign_in_page(state: AuthState, request: SimRequest) -> SimResponse:
    """Answer ``GET /loginDeepControl``: the page with a Confirm button for its uuid."""
    login_id = request.query.get("uuid", "")
    if request.method != "GET" or not login_id:
        return _html(400, "Not a sign-in page", "<p>This page needs the uuid login gave.</p>")
    shown = html.escape(login_id, quote=True)
    form = (
        "<p>The Cursor simulator (not Cursor) asks whether to sign in this session.</p>"
        f'<form method=post action="{CONFIRM_PATH}">'
        f'<input type=hidden name=uuid value="{shown}">'
        "<button type=submit>Confirm</button></form>"
    )
    return _html(200, "Sign in to the Cursor simulator", form)


def confirm_page(state: AuthState, request: SimRequest) -> SimResponse:
    """Answer the Confirm button's ``POST /loginDeepControl/confirm``: that sign-in is done."""
    if request.method != "POST":
        return _html(405, "Confirm with the button", "<p>Open the sign-in page again.</p>")
    fields = parse_qs(request.body.decode("utf-8", "replace"))
    login_id = (fields.get("uuid") or [""])[0]
    if not login_id:
        return _html(400, "Not a sign-in", "<p>The form carried no uuid.</p>")
    state.confirm(login_id)
    return _html(
        200,
        "Signed in to the Cursor simulator",
        "<p>You can close this page: nodecode-cursor login finishes by itself.</p>",
    )


def _cut_body() -> Iterator[bytes]:
    """Yield nothing and cut the connection, so the answer never completes."""
    raise Cut(reset=True)
    yield b""  # pragma: no cover - makes this a generator


def install(sim: Any) -> AuthState:
    """Serve the sign-in routes on ``sim``; return their state."""
    state = AuthState(sim)
    sim.route("/auth/poll", state.poll)
    sim.route("/oauth/token", state.refresh)
    sim.route("/api/auth/me", state.profile)
    sim.route(EXCHANGE_PATH, state.exchange)
    sim.route(PAGE_PATH, lambda request: sign_in_page(state, request))
    sim.route(CONFIRM_PATH, lambda request: confirm_page(state, request))
    return state
