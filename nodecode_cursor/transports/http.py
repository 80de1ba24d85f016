"""The cell's HTTP kit: TLS, proxy settings, RPC headers, one unary call, the CONNECT tunnel.

Every request the cell makes to Cursor is built from these parts, so they all
go the same way and fail the same way:

* ``tls_context`` (the one verifying context, cached per certificate settings
  and ALPN) and ``check_proxies`` (a ``cursor.proxy`` setting or proxy
  environment the dialer cannot use is refused, naming the setting);
* ``rpc_headers``: the headers every Cursor RPC carries;
* ``Answer`` (status and body) and ``ClientPool``: what a unary call
  (``unary.py``, over ``h1conn.py``) returns and where it finds its pool;
* ``connect_tunnel``: an HTTP CONNECT asked of a proxy and its answer parsed,
  for HTTP/2's dial (``h2dial.py``) and doctor's proxy check (``reach.py``);
* a refused call classified from its Connect body (``http_error``,
  ``key_refusal``, ``dashboard_refusal``, each in the words its command shows).

A request that got no answer (socket, TLS, HTTP/1.1, a proxy) is mapped onto the
cell's errors by ``errormap.mapped``, the one place the libraries' failures are
caught.

What a call's body means is its caller's (``listing.py``, ``server_config.py``,
``dashboard.py``, ``signin.py``, ``doctor.py``); the run's streams are
``sse.py``'s and ``h2run.py``'s.
"""

from __future__ import annotations

import asyncio
import base64
import functools
import os
import ssl
import urllib.parse
import urllib.request
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass
from typing import Protocol

from ..errors import (
    SIGN_IN_HINT,
    ConfigError,
    ModelNotFound,
    OutdatedClient,
    ProviderError,
    remember_secret,
)
from ..wire.connect import classify_connect_error, parse_refusal

__all__ = [
    "MAX_PROXY_HEAD",
    "PROXY_ENV",
    "Answer",
    "ClientPool",
    "TunnelClosed",
    "TunnelHeadTooLarge",
    "TunnelSpoke",
    "authority",
    "check_proxies",
    "connect_tunnel",
    "dashboard_refusal",
    "http_error",
    "key_refusal",
    "proxy_authorization",
    "proxy_environment",
    "read_capped",
    "rpc_headers",
    "tls_context",
]

# The proxy schemes the one dialer speaks (h2dial.py: CONNECT, TLS then CONNECT; socks.py).
PROXY_SCHEMES = ("http", "https", "socks5", "socks5h")

# A proxy that answers CONNECT with more head than this is not one we talk to.
MAX_PROXY_HEAD = 16 * 1024

# Refusals a later try may get past, when no Connect error says otherwise.
_RETRY_STATUSES = (429, 503, 504)


# --- TLS and proxies ---------------------------------------------------------------------------


def tls_context(alpn: tuple[str, ...] = ()) -> ssl.SSLContext:
    """Return the TLS context the cell's clients verify certificates with, offering ALPN.

    Built as httpx builds its default (``SSL_CERT_FILE`` or ``SSL_CERT_DIR`` when
    set, else certifi's bundle) and kept for the process per those two settings and
    ALPN: building one costs tens of milliseconds of blocking work and memory the
    allocator keeps, so a client per round must not build its own. This is the one
    process-wide cache of the cell; a context is read-only once built.
    """
    return _tls_context(os.environ.get("SSL_CERT_FILE"), os.environ.get("SSL_CERT_DIR"), alpn)


@functools.lru_cache(maxsize=8)
def _tls_context(
    cert_file: str | None, cert_dir: str | None, alpn: tuple[str, ...]
) -> ssl.SSLContext:
    """Return a new verifying context for these certificate settings (the cache's key)."""
    if cert_file:
        context = ssl.create_default_context(cafile=cert_file)
    elif cert_dir:
        context = ssl.create_default_context(capath=cert_dir)
    else:
        import certifi  # deferred: only a context actually built pays for it

        context = ssl.create_default_context(cafile=certifi.where())
    if alpn:
        context.set_alpn_protocols(list(alpn))
    return context


# What the environment's proxy answer depends on (``urllib.request.getproxies_environment``
# and ``proxy_bypass``, which skip HTTP_PROXY under CGI's REQUEST_METHOD): a key for
# memoising what is read from it, so a round does not scan the whole environment.
PROXY_ENV = (
    "http_proxy",
    "HTTP_PROXY",
    "https_proxy",
    "HTTPS_PROXY",
    "all_proxy",
    "ALL_PROXY",
    "no_proxy",
    "NO_PROXY",
    "REQUEST_METHOD",
)


def proxy_environment() -> tuple[str | None, ...]:
    """Return the values of ``PROXY_ENV`` now (a memo key, cheap to read every round)."""
    return tuple(os.environ.get(name) for name in PROXY_ENV)


def check_proxies(proxy: str | None) -> None:
    """Refuse a PROXY setting, or a proxy environment, the dialer cannot use (returns nothing).

    Every request of the kit asks this first (``h1conn.h1_route``, the HTTP/2
    dial's caller): every proxy variable is checked, as httpx checks them all
    when it builds a client, whether or not this request would use it. A URL
    whose scheme the dialer does not speak, or with no usable host or port, is
    ConfigError (``bad_proxy``) naming the setting, never its value (it may hold
    a user and password). A setting or environment found usable is not checked
    again (only a refusal is worth the work every time: it raises).
    """
    _check_proxies(proxy, proxy_environment())


@functools.lru_cache(maxsize=64)
def _check_proxies(proxy: str | None, _env: tuple[str | None, ...]) -> None:
    """Raise ``bad_proxy`` unless PROXY, or else the environment (_ENV its key), is usable."""
    environment = urllib.request.getproxies_environment()
    found = [proxy] if proxy else [url for name, url in environment.items() if name != "no"]
    for url in found:
        if url and not _usable_proxy(url):
            raise _bad_proxy(proxy)


def _usable_proxy(url: str) -> bool:
    """Return whether URL names a proxy the dialer speaks, with a host and a port in range."""
    try:
        parts = urllib.parse.urlsplit(url)
        _ = parts.port  # ValueError when out of range or not a number
    except ValueError:
        return False
    return parts.scheme.lower() in PROXY_SCHEMES and bool(parts.hostname)


def _bad_proxy(proxy: str | None) -> ConfigError:
    """Return the error for an unusable proxy: it names the setting, never its value."""
    where = (
        "the cursor.proxy setting"
        if proxy
        else "the proxy environment (HTTPS_PROXY, HTTP_PROXY, ALL_PROXY)"
    )
    return ConfigError(
        f"the proxy in {where} is not a usable URL; fix or unset it", code="bad_proxy"
    )


def rpc_headers(
    token: str, client_version: str, request_id: str, original_request_id: str | None = None
) -> dict[str, str]:
    """Return the headers every Cursor RPC carries (RunSSE adds its streaming ones).

    The unary calls send the same ones with their own request id. A resumed run
    adds ``x-original-request-id``: the round's first run.
    """
    headers = {
        "authorization": f"Bearer {token}",
        "x-cursor-client-type": "cli",
        "x-cursor-client-version": client_version,
        "x-ghost-mode": "true",
        "connect-protocol-version": "1",
        "x-request-id": request_id,
    }
    if original_request_id:
        headers["x-original-request-id"] = original_request_id
    return headers


# --- what went wrong, as the cell's errors ---------------------------------------------------


def http_error(status: int, body: bytes, what: str) -> ProviderError:
    """Return the error for a refused call: its Connect JSON body classified, else the status.

    A bare 404 (no Connect error to say more) is taken as the model not being found.
    """
    parsed = parse_refusal(body)
    if parsed is not None:
        return classify_connect_error(parsed, http_status=status)
    retryable = status in (429, 502, 503, 504)
    kind = ModelNotFound if status == 404 else ProviderError
    return kind(f"{what} answered HTTP {status}", status=status, retryable=retryable)


def _coded(status: int, body: bytes) -> tuple[str, ProviderError] | None:
    """Return a refusal body's Connect code and its classification, or None when it has none."""
    parsed = parse_refusal(body)
    code = parsed.get("code") if parsed is not None else None
    if parsed is None or not isinstance(code, str):
        return None
    return code, classify_connect_error(parsed, http_status=status)


def key_refusal(status: int, body: bytes) -> ProviderError:
    """Return the refusal as ``HTTP <status> <connect code>``, the line a key check shows.

    Its status, code and retryability are the Connect error's, classified as every
    other Connect error is (``connect.classify_connect_error``); a body that is no
    Connect error keeps the HTTP status.
    """
    found = _coded(status, body)
    if found is None:
        return ProviderError(
            f"HTTP {status} unknown", status=status, retryable=status in _RETRY_STATUSES
        )
    code, classified = found
    if isinstance(classified, OutdatedClient):
        return classified  # its words say which setting to change: kept whole
    return ProviderError(
        f"HTTP {status} {code}",
        status=classified.status,
        retryable=classified.retryable,
        code=classified.code,
    )


def dashboard_refusal(status: int, body: bytes, what: str) -> ProviderError:
    """Return the one-line error for a refused dashboard call, classified as Connect errors are."""
    found = _coded(status, body)
    if found is None:
        return ProviderError(
            f"Cursor's dashboard refused {what}: HTTP {status}",
            status=status if 400 <= status < 600 else 502,
            retryable=status in _RETRY_STATUSES,
        )
    code, classified = found
    sign_in = status in (401, 403) or code == "unauthenticated"
    return ProviderError(
        f"Cursor's dashboard refused {what}: HTTP {status} {code}"
        + (f"; run {SIGN_IN_HINT}" if sign_in else ""),
        status=classified.status,
        retryable=classified.retryable,
        code=classified.code,
        hint=SIGN_IN_HINT if sign_in else None,
    )


# --- what a unary call answers ----------------------------------------------------------------


class ClientPool(Protocol):
    """Where pooled connections come from (``clients.HttpClients`` on the cell's state)."""

    async def unary(
        self,
        url: str,
        headers: Mapping[str, str],
        content: bytes,
        timeout: float,
        proxy: str | None,
        max_bytes: int | None,
        method: str = "POST",
    ) -> Answer:
        """Return the answer to the request on the runs' connections."""
        ...


@dataclass(frozen=True, slots=True)
class Answer:
    """What a unary call answered: its status and body (None when it passed the call's cap)."""

    status: int
    content: bytes | None


async def read_capped(chunks: AsyncIterator[bytes], max_bytes: int | None) -> bytes | None:
    """Return the body CHUNKS make, or None once it passes MAX_BYTES (None: no cap)."""
    body = bytearray()
    async for chunk in chunks:
        body += chunk
        if max_bytes is not None and len(body) > max_bytes:
            return None
    return bytes(body)


# --- the CONNECT tunnel ----------------------------------------------------------------------


class TunnelHeadTooLarge(ValueError):
    """The proxy answered CONNECT with a head past ``MAX_PROXY_HEAD``."""


class TunnelClosed(OSError):
    """The proxy closed the connection before it answered the CONNECT."""


class TunnelSpoke(OSError):
    """The proxy sent bytes after its CONNECT answer, before the tunnel's TLS began.

    Those bytes would be read as if they came from inside TLS: a proxy could
    forge the service's answer. A tunnel that carries them is refused.
    """


def authority(host: str, port: int) -> str:
    """Return HOST:PORT, an IPv6 address in brackets."""
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def proxy_authorization(parts: urllib.parse.SplitResult) -> str | None:
    """Return the ``Proxy-Authorization`` value a proxy URL's user and password make, or None.

    The value carries the password: it goes in the CONNECT and nowhere else. A
    proxy may echo it back (in a refusal's status line or body): the encoded
    value and the password are remembered as secrets, so ``scrub`` takes them out
    of every error, log line and doctor verdict.
    """
    if parts.username is None:
        return None
    user = urllib.parse.unquote(parts.username)
    password = urllib.parse.unquote(parts.password or "")
    encoded = base64.b64encode(f"{user}:{password}".encode()).decode("ascii")
    for secret in (encoded, f"{user}:{password}", password):
        remember_secret(secret)
    return "Basic " + encoded


async def connect_tunnel(
    reader: asyncio.StreamReader,
    writer: asyncio.StreamWriter,
    target: str,
    authorization: str | None,
) -> tuple[int | None, str]:
    """Return the status code (None if none) and the status line the proxy answered
    ``CONNECT TARGET`` with.

    TunnelHeadTooLarge for an oversized head, TunnelClosed when the proxy hung up,
    TunnelSpoke when it said yes and sent more before the tunnel's TLS began.
    The line is the proxy's own, undecorated: a caller that shows it cleans it.
    """
    lines = [f"CONNECT {target} HTTP/1.1", f"Host: {target}"]
    if authorization is not None:
        lines.append(f"Proxy-Authorization: {authorization}")
    writer.write(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1"))
    await writer.drain()
    received = bytearray()
    end = -1
    while end < 0:
        if len(received) > MAX_PROXY_HEAD:
            raise TunnelHeadTooLarge("the answer's head is oversized")
        data = await reader.read(MAX_PROXY_HEAD + 1 - len(received))
        if not data:
            raise TunnelClosed("the proxy closed the connection during CONNECT")
        # The blank line may straddle two reads: look from just before the new bytes.
        start = max(0, len(received) - 3)
        received += data
        end = received.find(b"\r\n\r\n", start)
    head = bytes(received[: end + 4])
    if len(head) > MAX_PROXY_HEAD:
        raise TunnelHeadTooLarge("the answer's head is oversized")
    status_line = head.split(b"\r\n", 1)[0].decode("latin-1")
    fields = status_line.split(" ", 2)
    digits = fields[1] if len(fields) >= 2 else ""
    code = int(digits) if digits.isascii() and digits.isdigit() else None
    # What the proxy sent past its head came with it, or waits in the reader's buffer,
    # where TLS (started next, with no await between this check and the transport's
    # switch) would leave it to be read first. StreamReader has no public view of its
    # buffer.
    early = len(received) - len(head) + len(getattr(reader, "_buffer", b""))
    if early and code is not None and 200 <= code < 300:
        raise TunnelSpoke(
            f"the proxy sent {early} bytes after its answer to CONNECT, before the tunnel's"
            " TLS began; refusing the tunnel (a proxy must not speak inside it)"
        )
    return code, status_line
