"""The browser sign-in to a Cursor account, and the refresh of the token it keeps.

``SignIn.start`` mints a PKCE pair and a UUID, answers the page the person
opens, and polls Cursor in a daemon thread until it hands over the tokens;
then it reads the account's email from the profile, keeps the sign-in in
auth.json and says so through the host. A newer sign-in, a logout or the cell
stopping cancels it, and a cancelled sign-in writes nothing. ``refresh_if_due``
renews the kept token before a round when it is about to lapse, holding the
store's lock so that two rounds (or two processes) refresh once.

The file format is ``store.py``'s; which credential a round sends is
``credentials.py``'s; the ``/cursor`` verbs are ``commands.py``'s.
"""

from __future__ import annotations

import base64
import hashlib
import json
import logging
import re
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, urlencode

from ..errors import (
    SIGN_IN_HINT,
    CredentialError,
    CursorError,
    ProviderError,
    Unreachable,
    remember_secret,
)
from ..limits import (
    OAUTH_CLIENT_ID,
    POLL_BACKOFF,
    POLL_FIRST_DELAY_SECONDS,
    POLL_MAX_ATTEMPTS,
    POLL_MAX_CONSECUTIVE_ERRORS,
    POLL_MAX_DELAY_SECONDS,
    POLL_REQUEST_TIMEOUT_SECONDS,
    PROFILE_TIMEOUT_SECONDS,
    REFRESH_TIMEOUT_SECONDS,
    REFRESH_WHEN_DUE_WITHIN_SECONDS,
)
from . import accounts
from .store import PROVIDER, AuthStore, TokenEntry, token_user_id

if TYPE_CHECKING:
    from collections.abc import Collection, Mapping

    from ..host import Host
    from ..transports.http import Answer

__all__ = [
    "NOTICE_KEY",
    "PollPacing",
    "SessionEnded",
    "SignIn",
    "SignInCancelled",
    "account_notice_key",
    "login_url",
    "pkce_pair",
    "profile_cookie",
    "refresh_if_due",
    "session_ended",
]

log = logging.getLogger("nodecode_cursor.account.signin")

_VERIFIER_IN_URL = re.compile(r"(verifier=)[^&\s\"']+")


class _RedactVerifier(logging.Filter):
    """Masks the PKCE verifier in httpx's request log lines.

    The poll carries the verifier in its query. The kit logs no request URL, but
    httpx logs every one at INFO, and a host may route its own calls through
    httpx in the same process: whoever reads the verifier while the poll runs
    could claim the sign-in.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        """Return True after rewriting the record's text without the verifier."""
        text = record.getMessage()
        if "verifier=" in text:
            record.msg = _VERIFIER_IN_URL.sub(r"\1[redacted]", text)
            record.args = ()
        return True


def _guard_httpx_log() -> None:
    """Install the verifier mask on httpx's logger once."""
    httpx_log = logging.getLogger("httpx")
    if not any(isinstance(f, _RedactVerifier) for f in httpx_log.filters):
        httpx_log.addFilter(_RedactVerifier())


_guard_httpx_log()

NOTICE_KEY = "cursor"
TOO_MANY_ERRORS = "Too many consecutive errors during Cursor auth polling"
POLL_TIMEOUT = "Cursor authentication polling timeout: the sign-in was not confirmed in time"
SESSION_ENDED = "Cursor ended the session: run /cursor login to sign in again"


@dataclass(frozen=True, slots=True)
class PollPacing:
    """How the sign-in paces its polls and bounds its calls (tests pass tiny delays)."""

    first_delay: float = POLL_FIRST_DELAY_SECONDS
    backoff: float = POLL_BACKOFF
    max_delay: float = POLL_MAX_DELAY_SECONDS
    max_attempts: int = POLL_MAX_ATTEMPTS
    max_consecutive_errors: int = POLL_MAX_CONSECUTIVE_ERRORS
    request_timeout: float = POLL_REQUEST_TIMEOUT_SECONDS
    profile_timeout: float = PROFILE_TIMEOUT_SECONDS


class SignInCancelled(Exception):
    """A newer sign-in, a logout or the cell stopping ended this one."""


def _base64url(raw: bytes) -> str:
    """Return ``raw`` as unpadded base64url text."""
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


def pkce_pair() -> tuple[str, str]:
    """Return (verifier, challenge): 32 random octets as base64url, and its SHA-256 likewise."""
    import secrets  # here, as uuid below: only a sign-in that starts needs them

    verifier = _base64url(secrets.token_bytes(32))
    remember_secret(verifier)  # whoever reads it while the poll runs could claim the sign-in
    challenge = _base64url(hashlib.sha256(verifier.encode("ascii")).digest())
    return verifier, challenge


def login_url(web_url: str, challenge: str, login_id: str) -> str:
    """Return the page the person opens to sign in."""
    query = urlencode(
        {"challenge": challenge, "uuid": login_id, "mode": "login", "redirectTarget": "cli"}
    )
    return f"{web_url.rstrip('/')}/loginDeepControl?{query}"


def profile_cookie(user_id: str, token: str) -> str:
    """Return the Cookie header value that presents ``token`` as the web session."""
    return "WorkosCursorSessionToken=" + quote(f"{user_id}::{token}", safe="")


def call(
    proxy: str | None,
    method: str,
    url: str,
    timeout: float,
    *,
    headers: Mapping[str, str] | None = None,
    content: bytes = b"",
) -> Answer:
    """Return the answer to one blocking request through the cell's HTTP kit (no redirect followed).

    PROXY is the ``cursor.proxy`` setting (None: the proxy environment), so the
    sign-in, the refresh and the key exchange go the way rounds go; ConfigError
    for an unusable one, ``Unreachable`` when no answer came within TIMEOUT.
    """
    # Deferred: CursorCell.start loads this module and must stay cheap (the kit).
    from ..transports.unary import unary_blocking

    return unary_blocking(
        url, headers=headers or {}, content=content, timeout=timeout, proxy=proxy, method=method
    )


def fetch_email(proxy: str | None, web_url: str, token: str, timeout: float) -> str | None:
    """Return the account's email from its profile, or None when it cannot be read or disagrees."""
    user = token_user_id(token)
    if user is None:
        return None
    try:
        answer = call(
            proxy,
            "GET",
            f"{web_url.rstrip('/')}/api/auth/me",
            timeout,
            headers={"accept": "application/json", "cookie": profile_cookie(user, token)},
        )
    except Unreachable as exc:
        log.debug("profile unreachable: %s", exc.why)
        return None
    if answer.status != 200:
        log.debug("profile refused: HTTP %s", answer.status)
        return None
    try:
        profile = json.loads(answer.content or b"")
    except ValueError:
        return None
    if not isinstance(profile, dict):
        return None
    sub = profile.get("sub")
    # The profile must name the token's own user, with or without the provider prefix.
    if not isinstance(sub, str) or sub.split("|")[-1].strip() != user:
        log.debug("profile names another user; email left unknown")
        return None
    email = profile.get("email")
    if not isinstance(email, str):
        return None
    return email.strip() or None


def poll_tokens(
    proxy: str | None,
    base_url: str,
    login_id: str,
    verifier: str,
    pacing: PollPacing,
    cancelled: threading.Event,
) -> tuple[str, str]:
    """Return (access, refresh) once Cursor confirms the sign-in; raise CursorError or cancel.

    PROXY is the ``cursor.proxy`` setting (None: the proxy environment).
    """
    url = f"{base_url.rstrip('/')}/auth/poll"
    query = urlencode({"uuid": login_id, "verifier": verifier})
    delay = pacing.first_delay
    errors = 0
    for attempt in range(pacing.max_attempts):
        if cancelled.wait(delay):
            raise SignInCancelled()
        status: int | None
        try:
            answer = call(proxy, "GET", f"{url}?{query}", pacing.request_timeout)
            status, body = answer.status, answer.content or b""
            last = f"HTTP {status} from {url}"
        except Unreachable as exc:
            status, body = None, b""
            # The URL without its query: the verifier must never reach a person's screen.
            last = f"no answer from {url} ({exc.why})"
            log.debug("auth poll %d: no answer (%s)", attempt + 1, exc.why)
        if cancelled.is_set():
            raise SignInCancelled()
        if status == 404:
            errors = 0
            delay = min(delay * pacing.backoff, pacing.max_delay)
            continue
        data = _json_object(body) if status is not None and 200 <= status < 300 else None
        if data is not None:
            access, refresh = data.get("accessToken"), data.get("refreshToken")
            if isinstance(access, str) and access and isinstance(refresh, str) and refresh:
                return access, refresh
            raise CredentialError("Cursor answered the sign-in poll without both tokens")
        # A refusal, a body that is not JSON, or no answer at all: three in a row end it.
        log.debug("auth poll %d: not an answer (HTTP %s)", attempt + 1, status)
        if status is not None and 200 <= status < 300:
            last += ", not a JSON object"
        errors += 1
        if errors >= pacing.max_consecutive_errors:
            raise ProviderError(f"{TOO_MANY_ERRORS} (the last: {last})")
    raise ProviderError(POLL_TIMEOUT)


def _json_object(body: bytes) -> dict[str, Any] | None:
    """Return ``body`` parsed as a JSON object, or None."""
    try:
        data = json.loads(body)
    except (ValueError, RecursionError):
        return None
    return data if isinstance(data, dict) else None


class SignIn:
    """The browser sign-in: at most one in progress, finishing in a daemon thread."""

    def __init__(
        self,
        host: Host,
        store: AuthStore,
        base_url: str,
        web_url: str,
        pacing: PollPacing | None = None,
        *,
        proxy: str | None = None,
    ) -> None:
        self.host = host
        self.store = store
        self.base_url = base_url
        self.web_url = web_url
        self.pacing = pacing or PollPacing()
        # The cursor.proxy setting (None: the proxy environment) for the poll and the profile.
        self.proxy = proxy
        # Guards the current flow, and makes "cancel" and "write the tokens" exclusive:
        # once cancel() returns, the cancelled flow can no longer write.
        self._guard = threading.Lock()
        self._cancel: threading.Event | None = None
        self._thread: threading.Thread | None = None
        # The page the latest sign-in asked the person to open (the cell's sign_in_state).
        self.page: str | None = None
        # Whether that page was handed to the person's browser (commands.py opens it).
        self.browser_opened = False

    @property
    def in_progress(self) -> bool:
        """Return whether a sign-in is running."""
        with self._guard:
            return self._cancel is not None and not self._cancel.is_set()

    def start(self, *, add: bool = False) -> str:
        """Cancel any sign-in in progress, start a new one, and return the line to show now.

        ADD keeps the account active until now among the others when the new one is
        another (``accounts.keep_sign_in``); without it the new sign-in replaces it.
        """
        self.cancel()
        import uuid

        verifier, challenge = pkce_pair()
        login_id = str(uuid.uuid4())
        cancel = threading.Event()
        thread = threading.Thread(
            target=self._run,
            args=(login_id, verifier, cancel, add),
            name="cursor-sign-in",
            daemon=True,
        )
        url = login_url(self.web_url, challenge, login_id)
        with self._guard:
            self._cancel, self._thread, self.page = cancel, thread, url
            self.browser_opened = False
        thread.start()
        return f"cursor: open {url} in a browser to sign in; this finishes in the background"

    def cancel(self) -> bool:
        """Cancel the sign-in in progress; return whether there was one."""
        with self._guard:
            cancel, self._cancel = self._cancel, None
            if cancel is None or cancel.is_set():
                return False
            cancel.set()
            return True

    def wait(self, timeout: float | None = None) -> bool:
        """Wait for the latest sign-in's thread to end; return whether it has (for tests, CLI)."""
        with self._guard:
            thread = self._thread
        if thread is None:
            return True
        thread.join(timeout)
        return not thread.is_alive()

    def _run(self, login_id: str, verifier: str, cancel: threading.Event, add: bool) -> None:
        """Poll, read the email, keep the tokens and say how it went (the background half)."""
        try:
            access, refresh = poll_tokens(
                self.proxy, self.base_url, login_id, verifier, self.pacing, cancel
            )
            email = fetch_email(self.proxy, self.web_url, access, self.pacing.profile_timeout)
            entry = TokenEntry.from_tokens(access, refresh, email)
            with self._guard:
                if cancel.is_set():
                    raise SignInCancelled()
                aside = accounts.keep_sign_in(self.store, entry, add=add)
                if self._cancel is cancel:
                    self._cancel = None
            self.host.notice(None, key=NOTICE_KEY)
            self.host.notice(None, key=account_notice_key(accounts.account_name(entry)))
            said = f"{PROVIDER}: signed in as {email}" if email else f"{PROVIDER}: signed in"
            if aside is not None:
                said += f" (now active; {aside} is kept: /cursor use {aside} switches back)"
            self.host.say(said)
            log.info("cursor sign-in kept (email %s)", "known" if email else "unknown")
        except SignInCancelled:
            log.debug("cursor sign-in cancelled")
        except CursorError as exc:
            self._fail(cancel, exc.detail)
        except Exception as exc:  # a background thread must never die with a traceback
            log.debug("cursor sign-in failed unexpectedly: %s", type(exc).__name__)
            self._fail(cancel, f"unexpected {type(exc).__name__}")

    def _fail(self, cancel: threading.Event, detail: str) -> None:
        """Report a failed sign-in (unless it was cancelled meanwhile)."""
        with self._guard:
            if cancel.is_set():
                return
            if self._cancel is cancel:
                self._cancel = None
        line = f"{PROVIDER}: sign-in failed: {detail}"
        self.host.notice(line, key=NOTICE_KEY, level="warning")
        self.host.say(line)


# --- refresh ----------------------------------------------------------------------------


class SessionEnded(CredentialError):
    """Cursor answered ``shouldLogout``: the session is over until the person signs in again."""

    hint = SIGN_IN_HINT


def _digest(token: str) -> str:
    """Return a digest standing for ``token`` (the token itself is never kept twice)."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def session_ended(entry: TokenEntry, ended: Collection[str]) -> bool:
    """Return whether Cursor ended ``entry``'s session: its digest is among ENDED.

    ENDED is the set ``refresh_if_due`` fills (the cell keeps it in its ``CellState``).
    """
    return _digest(entry.refresh_token) in ended


def refresh_entry(proxy: str | None, base_url: str, entry: TokenEntry) -> TokenEntry:
    """Return ``entry`` renewed by Cursor through PROXY; raise CredentialError when it refuses."""
    url = f"{base_url.rstrip('/')}/oauth/token"
    grant = {
        "grant_type": "refresh_token",
        "client_id": OAUTH_CLIENT_ID,
        "refresh_token": entry.refresh_token,
    }
    answer = call(
        proxy,
        "POST",
        url,
        REFRESH_TIMEOUT_SECONDS,
        headers={"content-type": "application/json"},
        content=json.dumps(grant, separators=(",", ":")).encode(),
    )
    data = _json_object(answer.content or b"") or {}
    if data.get("shouldLogout") is True:
        raise SessionEnded(SESSION_ENDED)
    if not 200 <= answer.status < 300:
        code = data.get("error")
        reason = f" {code}" if isinstance(code, str) and len(code) <= 64 else ""
        raise CredentialError(
            f"Cursor token refresh failed: HTTP {answer.status}{reason}; run /cursor login",
            hint=SIGN_IN_HINT,
        )
    access = data.get("access_token")
    if not isinstance(access, str) or not access:
        raise CredentialError(
            "Cursor token refresh returned no access token; run /cursor login", hint=SIGN_IN_HINT
        )
    rotated = data.get("refresh_token")
    refresh = rotated if isinstance(rotated, str) and rotated else entry.refresh_token
    return TokenEntry.from_tokens(access, refresh, entry.email)


def refresh_if_due(
    store: AuthStore,
    base_url: str,
    *,
    host: Host | None = None,
    within: float = REFRESH_WHEN_DUE_WITHIN_SECONDS,
    proxy: str | None = None,
    ended: set[str] | None = None,
    account: str | None = None,
) -> TokenEntry | None:
    """Return the kept sign-in, renewed first (once, across rounds and processes) when due.

    Only a round calls this; PROXY is its ``cursor.proxy`` (None: the proxy
    environment). ``shouldLogout`` leaves the kept sign-in as it was, adds its
    refresh token's digest to ENDED (so status can say so), raises a
    CredentialError and posts a standing notice until a login succeeds.
    ACCOUNT names a kept account (``accounts.py``) to renew instead of the active
    one: its entry alone is read and written back, its notice is its own, and an
    account not kept raises UnknownAccount.
    """

    def read() -> TokenEntry | None:
        return store.entry() if account is None else accounts.entry_for(store, account)

    entry = read()
    if entry is None or not entry.due_within(within):
        return entry
    with store.locked():
        # Another round or process may have renewed it while this one waited for the lock.
        entry = read()
        if entry is None or not entry.due_within(within):
            log.debug("cursor token already renewed by another round")
            return entry
        try:
            renewed = refresh_entry(proxy, base_url, entry)
        except SessionEnded as exc:
            if ended is not None:
                ended.add(_digest(entry.refresh_token))
            if host is not None and account is None:
                host.notice(f"{PROVIDER}: {exc.detail}", key=NOTICE_KEY, level="warning")
            elif host is not None and account is not None:
                host.notice(
                    f"{PROVIDER}: Cursor ended the session of {account}: run /cursor login "
                    "--add to sign in to it again (the other accounts go on)",
                    key=account_notice_key(account),
                    level="warning",
                )
            raise
        if account is None:
            store.save_entry(renewed)
        else:
            accounts.save_renewed(store, account, renewed)
        log.info("cursor token renewed")
        return renewed


def account_notice_key(name: str) -> str:
    """Return the key of the standing notice about the account NAME alone."""
    return f"{NOTICE_KEY}:{name.strip().casefold()}"
