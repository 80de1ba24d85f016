"""The errors the cell raises, as a small hierarchy a host can catch.

Every error carries an HTTP-like ``status``, a one-line ``detail`` fit to show a person,
``retryable``, ``hint`` (what to do about it, such as ``/cursor login``, or None) and
``code``: a machine-readable name for what went wrong or None (the Connect code such as
``resource_exhausted``/``not_found``, the ErrorDetails name such as ``BAD_MODEL_NAME``,
the lane's own ``conversation_refused`` and ``reply_too_large``, or for ConfigError one
of ``unknown_model``, ``unsupported_effort``, ``not_signed_in``, ``history_conflict``,
``bad_token``, ``bad_proxy``, ``bad_config``, ``no_api_key``, ``agent_missing``,
``outdated_client``).
``code`` is data for a report; code that decides by kind tests the class
(``NotSignedIn``, ``ModelNotFound``, ``ResourceExhausted``, ``Unreachable``),
never the text. ``str()``
is the one line. No error ever holds a token: callers build details from the service's
words and our own, never from headers or request bodies. ``json_kind`` names a JSON
value's kind for an error that must not echo the value. ``scrub`` removes what is shaped
like a credential and, by value, every secret the cell was handed or made
(``remember_secret``: the bearer, the refresh token, an API key, the PKCE verifier), so
an opaque key a service echoes is caught too; every error, and the host's log filter,
goes through it. Mapping the service's errors onto these classes is ``connect.py``'s
job; mapping a request's failures is ``transports/errormap.py``'s (no answer) and
``transports/http.py``'s (a refusal)."""

from __future__ import annotations

import ipaddress
import math
import re
from urllib.parse import urlsplit

__all__ = [
    "CLIENT_VERSION_HINT",
    "MOVE_ASIDE_HINT",
    "NOT_SIGNED_IN",
    "SIGN_IN_HINT",
    "BadUrl",
    "ConfigError",
    "CredentialError",
    "CursorError",
    "ModelNotFound",
    "NotSignedIn",
    "OutdatedClient",
    "ProtocolError",
    "ProviderError",
    "ResourceExhausted",
    "StoreError",
    "StreamIncomplete",
    "UnknownAccount",
    "Unreachable",
    "check_cleartext",
    "json_kind",
    "loggable",
    "remember_secret",
    "scrub",
]

# What a person does to get a credential, in the chat's words (a host may translate it).
SIGN_IN_HINT = "/cursor login"
# What a person does when Cursor stops accepting this client's version.
CLIENT_VERSION_HINT = (
    "set CURSOR_CLIENT_VERSION (or cursor.client_version in config.json) to a current "
    "Cursor CLI build (cli-YYYY.MM.DD-<build>; with Cursor's CLI installed and up to date, "
    "the cell reads its version by itself)"
)
# The way out of a corrupt auth.json, as a chat says it (a StoreError's hint, code "corrupt").
MOVE_ASIDE_HINT = "/cursor logout --move-aside"
NOT_SIGNED_IN = "Cursor is not signed in: run /cursor login, or set CURSOR_ACCESS_TOKEN"

# What a credential looks like inside someone else's error text:
# * a bearer header value right after a quote (httpx quotes a refused header whole,
#   ``b'Bearer abc s3cr3t\nX: y'``) or after ``authorization:``: everything up to
#   the closing quote or the end of the line, since a token with a space in it has
#   a short first word;
# * any other ``Bearer`` followed by a long word (the capital B and the length keep
#   prose like "the bearer token" or "(Bearer token missing)" intact);
# * a JWT (Cursor's tokens are JWTs).
_CREDENTIAL_SHAPES = re.compile(
    r"(?<=['\"])Bearer\s[^'\"\r\n]*"
    r"|(?i:authorization)['\"]?\s*[:=,]\s*['\"]?Bearer\s[^'\"\r\n]*"
    r"|Bearer\s+[^\s'\"]{8,}"
    r"|eyJ[A-Za-z0-9_-]{6,}\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*"
)


# The exact secrets this process holds, newest last. Process-wide, not on CellState: an
# error is built wherever it happens (a sign-in thread, a host's log filter) with no
# state at hand, and a secret must be scrubbed from every one. Bounded, oldest dropped.
# Each step below is one dict operation, atomic under the GIL, so threads need no lock
# (and this pure module imports no threading).
_SECRETS: dict[str, None] = {}
_MAX_SECRETS = 256
# Shorter values are too likely to be ordinary words to replace everywhere.
_MIN_SECRET_CHARS = 8


def remember_secret(value: str | None) -> None:
    """Add VALUE to the secrets ``scrub`` removes by value (returns nothing; short ones skipped)."""
    if not value or len(value) < _MIN_SECRET_CHARS:
        return
    _SECRETS.pop(value, None)
    _SECRETS[value] = None  # to the end: the newest
    while len(_SECRETS) > _MAX_SECRETS:
        oldest = next(iter(tuple(_SECRETS)), None)
        if oldest is None:
            break
        _SECRETS.pop(oldest, None)


def scrub(text: str) -> str:
    """Return ``text`` with every known secret, and anything shaped like a credential,
    replaced by ``[redacted]``."""
    # A snapshot (tuple() of a dict is atomic); longer first, as one may hold a shorter.
    known = sorted(tuple(_SECRETS), key=len, reverse=True)
    for secret in known:
        if secret in text:
            text = text.replace(secret, "[redacted]")
    return _CREDENTIAL_SHAPES.sub("[redacted]", text)


def loggable(value: object, limit: int = 200) -> str:
    """Return VALUE (a client's or the service's) as one safe log field: control and
    non-ASCII characters as escapes, so it cannot forge a line or drive a terminal;
    at most LIMIT characters."""
    shown = str(value).encode("unicode_escape").decode("ascii")
    return shown if len(shown) <= limit else shown[:limit] + "…"


class CursorError(Exception):
    """The base of every error the cell raises on purpose."""

    status: int = 500
    retryable: bool = False
    code: str | None = None
    hint: str | None = None

    def __init__(
        self,
        detail: str,
        *,
        status: int | None = None,
        retryable: bool | None = None,
        code: str | None = None,
        hint: str | None = None,
    ) -> None:
        """Keep DETAIL, CODE and HINT; STATUS and RETRYABLE override the class's defaults."""
        # Details are often built from a library's exception text, which can quote a
        # request header; scrubbing here covers every error the cell raises.
        detail = scrub(detail)
        super().__init__(detail)
        self.detail = detail
        if status is not None:
            self.status = status
        if retryable is not None:
            self.retryable = retryable
        self.code = code
        if hint is not None:
            self.hint = hint

    def __str__(self) -> str:
        """Return the one line a person reads."""
        return self.detail

    def __repr__(self) -> str:
        """Return the class, status, code and detail (never anything else the caller held)."""
        code = f", code={self.code!r}" if self.code is not None else ""
        return f"{type(self).__name__}(status={self.status}{code}, detail={self.detail!r})"


class ProviderError(CursorError):
    """Cursor's service refused or failed the request (the status says how)."""

    status = 502


class ModelNotFound(ProviderError):
    """Cursor did not know the model asked for (Connect ``not_found``, ``BAD_MODEL_NAME``)."""

    status = 404


class ResourceExhausted(ProviderError):
    """A bare Connect ``resource_exhausted``: no ErrorDetails say why (the lane rotates)."""

    status = 429
    retryable = True


class StreamIncomplete(ProviderError):
    """The stream ended (or went silent) before the turn was complete; a retry may work."""

    status = 502
    retryable = True


class Unreachable(ProviderError):
    """A request got no answer at all: no connection, a dropped line, TLS, a timeout.

    ``why`` names the kind of failure (the library's exception class, e.g.
    ``ConnectError``) for a line that must not carry more than that.
    """

    status = 502
    retryable = True

    def __init__(self, detail: str, *, why: str) -> None:
        """Keep DETAIL (the URL and the cause) and WHY (the failure's kind)."""
        super().__init__(detail)
        self.why = why


class ProtocolError(ProviderError):
    """The bytes on the wire broke the Connect or protobuf framing."""

    status = 502


class ConfigError(CursorError):
    """The request cannot be made as asked: unknown model or effort, not signed in."""

    status = 400


class NotSignedIn(ConfigError):
    """There is no Cursor credential at all: nothing saved, no sign-in, no environment token."""

    hint = SIGN_IN_HINT

    def __init__(self) -> None:
        """Make the one not-signed-in error (its sentence is ``NOT_SIGNED_IN``)."""
        super().__init__(NOT_SIGNED_IN, code="not_signed_in")


class OutdatedClient(ConfigError, ProviderError):
    """Cursor no longer accepts this client's version ("Update Required"): not retryable.

    Both kinds at once: the service refused (so every path that carries a service
    error carries it) and the fix is a setting (so a host words it as one, never as
    a rate limit to wait out).
    """

    status = 400
    retryable = False
    hint = CLIENT_VERSION_HINT

    def __init__(self, said: str, sent: str | None = None, origin: str | None = None) -> None:
        """Make the error from what the service SAID, the version SENT (and its ORIGIN), the fix."""
        self.said = said
        self.sent = sent
        which = "this client version"
        if sent is not None:
            which = f"client version {sent}" + (f" ({origin})" if origin else "")
        super().__init__(
            f"Cursor no longer accepts {which} ({said}): {CLIENT_VERSION_HINT}",
            code="outdated_client",
        )

    def naming(self, sent: str, origin: str | None = None) -> OutdatedClient:
        """Return this refusal naming the version SENT and where it came from (ORIGIN)."""
        return OutdatedClient(self.said, sent, origin)


class CredentialError(CursorError):
    """The credential was refused or Cursor ended the session; sign in again."""

    status = 401


class StoreError(CursorError):
    """auth.json cannot be read or written safely; the file is left as it was."""

    status = 500


# Config errors a host words for its own audience: the fields say what went wrong, so a
# host never parses ``detail`` (the cell's own wording, kept for hosts that show it as is).


class UnknownModel(ConfigError):
    """No bundled row names the model, and neither does the account's roster when asked."""

    def __init__(
        self,
        detail: str,
        *,
        model: str,
        near: tuple[str, ...] = (),
        unchecked: str | None = None,
    ) -> None:
        """Keep MODEL, the NEAR ids and why the roster could not be checked (UNCHECKED)."""
        super().__init__(detail, code="unknown_model")
        self.model = model
        self.near = near
        self.unchecked = unchecked


class UnknownAccount(ConfigError):
    """A round or a verb named an account the person has not signed in to (never another's)."""

    hint = "/cursor accounts"

    def __init__(self, detail: str, *, account: str, kept: tuple[str, ...] = ()) -> None:
        """Keep the ACCOUNT named and the names of the accounts KEPT instead."""
        super().__init__(detail, code="unknown_account")
        self.account = account
        self.kept = kept


class BadEffort(ConfigError):
    """The effort is no known level (``model`` None), or one ``model`` does not take."""

    def __init__(
        self, detail: str, *, model: str | None, effort: str, allowed: tuple[str, ...]
    ) -> None:
        """Keep MODEL, the refused EFFORT and the efforts ALLOWED instead (off aside)."""
        super().__init__(detail, code="unsupported_effort")
        self.model = model
        self.effort = effort
        self.allowed = allowed


def json_kind(value: object) -> str:
    """Return what VALUE is called in JSON, never the value itself: "a number", "null"…"""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true or false"
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN or Infinity"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "an empty string" if not value else "a string"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def check_cleartext(url: str, setting: str) -> None:
    """Return quietly when URL is https, or http to a loopback host; else raise BadUrl.

    The bearer and the refresh token travel to these URLs: in clear, only to this
    machine (127.0.0.0/8, ::1, localhost). SETTING names the setting in the message;
    the error's fields let a host name it as the person gave it (a flag, a key).
    """
    if "://" not in url:
        # "127.0.0.1:8080" or "api2.cursor.sh": urlsplit reads no scheme (or a wrong one).
        head = url.split("/", 1)[0].rsplit("@", 1)[-1]
        host = head.rsplit(":", 1)[0].strip("[]") if head.count(":") == 1 else head.strip("[]")
        scheme = "http" if _loopback_host(host.lower()) else "https"
        raise BadUrl(setting, url, "has no scheme", f"add {scheme}://, as in {scheme}://{url}")
    try:
        parts = urlsplit(url)
        host = (parts.hostname or "").lower()
        netloc = parts.netloc.rsplit("@", 1)[-1]  # never a password from the URL
    except ValueError:
        raise BadUrl(setting, url, "is not a URL", "give an https:// URL") from None
    scheme = parts.scheme.lower()
    if scheme == "https" and host:
        return
    if scheme == "http" and _loopback_host(host):
        return
    if not host:
        raise BadUrl(setting, url, "names no host", "give an https:// URL with its host")
    if scheme == "http":
        raise BadUrl(
            setting,
            url,
            "would send tokens in clear (http:// is only for a loopback host such as "
            "127.0.0.1 or localhost)",
            f"use https://{netloc}",
        )
    instead = "http" if _loopback_host(host) else "https"
    raise BadUrl(
        setting, url, f"uses {scheme}://, which is not supported", f"use {instead}://{netloc}"
    )


class BadUrl(ConfigError):
    """A URL setting the cell will not send tokens to: which, what is wrong and the fix.

    ``setting`` is the cell's name for it (``base_url``); a host that knows the person
    gave it as a flag names the flag instead, from these fields, never the text.
    """

    def __init__(self, setting: str, url: str, problem: str, fix: str) -> None:
        """Keep SETTING, the URL as shown (no password), the PROBLEM and the FIX."""
        shown = _without_password(url)
        super().__init__(f"{setting} {shown} {problem}: {fix}", code="bad_config")
        self.setting = setting
        self.url = shown
        self.problem = problem
        self.fix = fix


def _without_password(url: str) -> str:
    """Return URL without the user and password a URL may carry before its host."""
    scheme, sep, rest = url.partition("://")
    if not sep:
        return url
    head, slash, tail = rest.partition("/")
    return f"{scheme}://{head.rsplit('@', 1)[-1]}{slash}{tail}"


def _loopback_host(host: str) -> bool:
    """Return whether HOST names this machine: localhost, 127.0.0.0/8 or ::1.

    ``x.localhost`` is not taken for this machine: RFC 6761 asks resolvers to keep
    it on loopback, but not every one does (glibc asks DNS), and a token in clear
    must not depend on what a resolver decides.
    """
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
