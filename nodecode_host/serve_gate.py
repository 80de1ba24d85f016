"""Who ``serve`` lets in: the checks every request passes, on its head alone, before any route.

A web page in the person's browser can reach a loopback server: a cross-site
``text/plain`` POST needs no preflight, and a DNS-rebinding name makes the
browser send the page's own ``Host``. So ``Gate.admit`` refuses, before a byte
of the body is read: a request carrying an ``Origin`` that the person did not
allow (``serve --allow-origin``); without a client key, a ``Host`` that does not
name the bound loopback address or ``localhost``; a wrong or missing key when
one is set; a body that is not ``application/json``. It answers a CORS
preflight only for an allowed origin. Sans-I/O: reading and writing are
``http_server.py``'s, the routes themselves ``routes.py``'s.
"""

from __future__ import annotations

import hmac
import ipaddress
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

__all__ = ["Gate", "Preflight", "Refusal"]

_PREFLIGHT_HEADERS = (
    "authorization, content-type, x-session-id, x-api-key, anthropic-version, anthropic-beta, "
    "x-cursor-account"
)


@dataclass(frozen=True, slots=True)
class Refusal:
    """A request turned away: the status, OpenAI's error code and the line saying why."""

    status: int
    message: str
    code: str


@dataclass(frozen=True, slots=True)
class Preflight:
    """A CORS preflight from an allowed origin: the response headers that answer it."""

    headers: list[tuple[str, str]] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Gate:
    """The bound address, the client key (or None) and the origins the person allowed."""

    listen_host: str
    port: int
    api_key: str | None = None
    allowed_origins: Sequence[str] = ()

    def admit(self, method: str, headers: Mapping[str, str]) -> Refusal | Preflight | None:
        """Return None to serve the request, a Refusal to answer instead, or a Preflight."""
        origin = headers.get("origin")
        if origin is not None and origin.rstrip("/") not in self._origins():
            # Who was refused, never the value: the log and the answer stay free of it.
            return Refusal(
                403,
                "requests from a web page are refused unless its origin is allowed "
                "(serve --allow-origin ORIGIN)",
                "origin_not_allowed",
            )
        if self.api_key is None and not self._host_ok(headers.get("host")):
            return Refusal(
                403,
                "without a client key this server answers only requests addressed to "
                f"{self.listen_host} or localhost",
                "host_not_allowed",
            )
        if method == "OPTIONS" and origin is not None:
            return Preflight(self.cors_headers(origin) + self._preflight_extra())
        if not self._authorized(headers):
            return Refusal(
                401,
                "a valid API key is required (Authorization: Bearer …)",
                "invalid_api_key",
            )
        if method not in ("GET", "HEAD", "OPTIONS") and not _is_json(
            headers.get("content-type", "")
        ):
            return Refusal(415, "request bodies must be application/json", "unsupported_media_type")
        return None

    def cors_headers(self, origin: str | None) -> list[tuple[str, str]]:
        """Return the CORS headers an answer to ORIGIN carries (none for no or a foreign one)."""
        if origin is None or origin.rstrip("/") not in self._origins():
            return []
        return [("access-control-allow-origin", origin), ("vary", "origin")]

    def _preflight_extra(self) -> list[tuple[str, str]]:
        """Return what a preflight answer adds: the methods and headers allowed."""
        return [
            ("access-control-allow-methods", "GET, POST, OPTIONS"),
            ("access-control-allow-headers", _PREFLIGHT_HEADERS),
            ("access-control-max-age", "600"),
        ]

    def _origins(self) -> set[str]:
        """Return the allowed origins as compared (no trailing slash)."""
        return {o.rstrip("/") for o in self.allowed_origins}

    def _host_ok(self, host: str | None) -> bool:
        """Return whether the Host header names the bound loopback address or localhost."""
        if not host:
            return False
        name, port = _split_host(host.strip().lower())
        if port is not None and port != self.port:
            return False
        if name == "localhost":
            return True
        try:
            return ipaddress.ip_address(name) == ipaddress.ip_address(self.listen_host.strip("[]"))
        except ValueError:
            return False

    def _authorized(self, headers: Mapping[str, str]) -> bool:
        """Return whether the request carries the client key (any request when none is set)."""
        if self.api_key is None:
            return True
        # Anthropic's clients send the key as x-api-key; OpenAI's as a bearer token.
        anthropic_key = headers.get("x-api-key")
        if anthropic_key is not None:
            return hmac.compare_digest(anthropic_key.strip().encode(), self.api_key.encode())
        scheme, _, key = headers.get("authorization", "").partition(" ")
        if scheme.lower() != "bearer":
            return False
        return hmac.compare_digest(key.strip().encode(), self.api_key.encode())


def _split_host(host: str) -> tuple[str, int | None]:
    """Return the Host header's name (brackets off) and port (None when absent or bad)."""
    if host.startswith("["):
        name, _, rest = host[1:].partition("]")
        port_text = rest[1:] if rest.startswith(":") else ""
    elif host.count(":") == 1:
        name, _, port_text = host.partition(":")
    else:
        name, port_text = host, ""
    if not port_text:
        return name, None
    return name, int(port_text) if port_text.isascii() and port_text.isdigit() else -1


def _is_json(content_type: str) -> bool:
    """Return whether CONTENT_TYPE is application/json (parameters such as charset allowed)."""
    return content_type.split(";", 1)[0].strip().lower() == "application/json"
