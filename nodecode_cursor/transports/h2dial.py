"""Reaching a Cursor base URL: TCP, a proxy's CONNECT tunnel or SOCKS5, then TLS with ALPN.

``dial`` returns an asyncio stream pair that speaks HTTP/2 from its first byte:
over ``https://`` once TLS negotiated ``h2`` by ALPN, over ``http://`` with
prior knowledge (RFC 9113 §3.3). The proxy is the ``cursor.proxy`` setting,
else the standard variables (``HTTPS_PROXY``/``HTTP_PROXY``/``ALL_PROXY``, with
``NO_PROXY``), as httpx reads them; an ``http://`` proxy carries a CONNECT
tunnel, an ``https://`` one the same tunnel inside TLS to the proxy (the
service's own TLS then runs inside that: TLS in TLS, which asyncio's
``start_tls`` does over a TLS transport since Python 3.11), a ``socks5://`` or
``socks5h://`` one a SOCKS5 connection (``socks.py``); another scheme cannot
carry one here. Whatever keeps HTTP/2
from this route (ALPN chose something else, the proxy cannot tunnel, the proxy
refused the CONNECT) is ``H2Unavailable``,
so the caller can take HTTP/1.1 instead and say why; failing to reach the
service at all is the ordinary ``unreachable`` error. Certificates are checked
as httpx checks them (``http.tls_context``: certifi's bundle, or
``SSL_CERT_FILE``/``SSL_CERT_DIR``). What goes over the stream is ``h2conn.py``'s.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import ssl
import urllib.parse
import urllib.request
from dataclasses import dataclass, field

from ..errors import ConfigError
from .errormap import Step, mapped
from .http import (
    TunnelHeadTooLarge,
    authority,
    connect_tunnel,
    proxy_authorization,
    proxy_environment,
    tls_context,
)
from .socks import is_socks, socks_connect, socks_label

__all__ = [
    "TUNNEL_SCHEMES",
    "Dialed",
    "H2Unavailable",
    "ProxyAddress",
    "ProxyCannotTunnel",
    "dial",
    "proxy_address",
    "proxy_for",
    "split_url",
]


# The proxy schemes whose proxy carries an HTTP CONNECT tunnel (https: TLS to the proxy first).
TUNNEL_SCHEMES = ("http", "https")


class H2Unavailable(Exception):
    """HTTP/2 cannot be had on this route (the reason is the message); HTTP/1.1 may."""


class ProxyCannotTunnel(H2Unavailable):
    """The proxy cannot carry HTTP/2 here (its scheme, or it refused the CONNECT)."""


@dataclass(frozen=True, slots=True)
class Dialed:
    """A connected stream pair ready for HTTP/2, and how it got there (for the DEBUG line)."""

    reader: asyncio.StreamReader
    writer: asyncio.StreamWriter
    how: str


def split_url(url: str) -> tuple[str, str, int]:
    """Return (scheme, host, port) of a base URL; ConfigError for one that is not http(s)."""
    parts = urllib.parse.urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https") or not parts.hostname:
        raise ConfigError(f"the base URL must be http:// or https://: {url!r}", code="bad_config")
    port = parts.port or (443 if scheme == "https" else 80)
    return scheme, parts.hostname, port


def proxy_for(base_url: str, configured: str | None) -> str | None:
    """Return the proxy URL a request to BASE_URL goes through, or None to go direct.

    The ``cursor.proxy`` setting wins; else the environment, as httpx's
    ``trust_env`` reads it (``NO_PROXY`` exempts a host). The answer is kept per
    URL and proxy variables: reading the whole environment cost every round a
    scan of it (``benchmarks/serve_load.py``'s profile).
    """
    if configured:
        return configured
    scheme, host, _ = split_url(base_url)
    return _environment_proxy(scheme, host, proxy_environment())


@functools.lru_cache(maxsize=64)
def _environment_proxy(scheme: str, host: str, _env: tuple[str | None, ...]) -> str | None:
    """Return the environment's proxy for SCHEME://HOST (_ENV: the variables it depends on)."""
    found = urllib.request.getproxies_environment()
    if host and urllib.request.proxy_bypass(host):
        return None
    return found.get(scheme) or found.get("all") or None


async def dial(
    base_url: str,
    proxy: str | None,
    *,
    connect_timeout: float,
    alpn: tuple[str, ...] = ("h2", "http/1.1"),
    url: str | None = None,
) -> Dialed:
    """Return a stream pair to BASE_URL that speaks HTTP/2; H2Unavailable when it cannot.

    Raises ProviderError (``unreachable``, naming URL when given, else BASE_URL)
    when the service or the proxy cannot be reached at all, and ConfigError for a
    proxy URL that is not usable at all. With ALPN ``("http/1.1",)`` the stream
    is for HTTP/1.1 (``h1conn.py``): whatever TLS negotiated is taken.
    """
    named = url or base_url
    scheme, host, port = split_url(base_url)
    socks = proxy is not None and is_socks(proxy)
    tunnel = proxy_address(proxy) if proxy and not socks else None
    writer: asyncio.StreamWriter | None = None
    try:
        # Mapped outside the deadline: its TimeoutError is the connection timing out.
        with mapped(Step.CONNECT, named):
            async with asyncio.timeout(connect_timeout):
                if socks:
                    assert proxy is not None
                    via = socks_label(proxy)
                    sock = await socks_connect(proxy, host, port, connect_timeout)
                    context = _tls(alpn) if scheme == "https" else None
                    try:
                        reader, writer = await asyncio.open_connection(
                            sock=sock, ssl=context, server_hostname=host if context else None
                        )
                    except BaseException:
                        sock.close()
                        raise
                elif tunnel is None:
                    context = _tls(alpn) if scheme == "https" else None
                    reader, writer = await asyncio.open_connection(
                        host, port, ssl=context, server_hostname=host if context else None
                    )
                    via = "directly"
                else:
                    reader, writer = await asyncio.open_connection(
                        tunnel.host,
                        tunnel.port,
                        ssl=_tls(("http/1.1",)) if tunnel.tls else None,
                        server_hostname=tunnel.host if tunnel.tls else None,
                    )
                    await _connect_tunnel(reader, writer, host, port, tunnel.authorization)
                    if scheme == "https":
                        # Inside an https:// proxy's TLS this is TLS in TLS (Python >= 3.11).
                        await writer.start_tls(_tls(alpn), server_hostname=host)
                    via = (
                        f"through the {'TLS ' if tunnel.tls else ''}proxy's CONNECT tunnel"
                        f" ({authority(tunnel.host, tunnel.port)})"
                    )
    except BaseException:
        # Unreachable (mapped), H2Unavailable (the proxy refused the tunnel), a cancellation.
        _close(writer)
        raise
    if scheme == "http" or "h2" not in alpn:
        if "h2" in alpn:
            return Dialed(reader, writer, f"prior knowledge over cleartext, {via}")
        return Dialed(reader, writer, f"HTTP/1.1 over {scheme}, {via}")
    ssl_object = writer.get_extra_info("ssl_object")
    chosen = ssl_object.selected_alpn_protocol() if ssl_object is not None else None
    if chosen != "h2":
        _close(writer)
        raise H2Unavailable(f"TLS negotiated {chosen or 'no protocol'} by ALPN, not h2")
    return Dialed(reader, writer, f"TLS negotiated h2 by ALPN, {via}")


def _tls(alpn: tuple[str, ...]) -> ssl.SSLContext:
    """Return a client TLS context verifying as httpx does, offering ALPN protocols ALPN."""
    return tls_context(alpn)


@dataclass(frozen=True, slots=True)
class ProxyAddress:
    """Where an HTTP proxy listens, whether it is reached over TLS, and its credentials.

    ``authorization`` is the ``Proxy-Authorization`` value (a secret: not in the repr).
    """

    host: str
    port: int
    tls: bool
    authorization: str | None = field(default=None, repr=False)


def proxy_address(proxy: str) -> ProxyAddress:
    """Return where the http:// or https:// proxy PROXY listens, and its credentials.

    ProxyCannotTunnel for another scheme (a SOCKS one is ``socks.py``'s);
    ConfigError (``bad_proxy``) for a URL with no usable host or port.

    The proxy's URL may hold a user and password: no error here quotes it.
    """
    parts = urllib.parse.urlsplit(proxy)
    scheme = parts.scheme.lower()
    if scheme not in TUNNEL_SCHEMES:
        raise ProxyCannotTunnel(
            f"the proxy is {scheme or 'schemeless'}://, and HTTP/2 tunnels only through an"
            " http:// or https:// proxy's CONNECT or a socks5:// one"
        )
    tls = scheme == "https"
    try:
        host, port = parts.hostname, parts.port or (443 if tls else 80)
    except ValueError:
        host, port = None, 0
    if not host:
        raise ConfigError("the proxy setting is not a usable URL; fix it", code="bad_proxy")
    return ProxyAddress(host, port, tls, proxy_authorization(parts))


async def _connect_tunnel(
    reader: asyncio.StreamReader,
    writer: asyncio.StreamWriter,
    host: str,
    port: int,
    authorization: str | None,
) -> None:
    """Ask the proxy for a tunnel to HOST:PORT; H2Unavailable when it says no.

    A proxy that hangs up, or speaks inside the tunnel before TLS, fails the dial
    (its ``TunnelClosed``/``TunnelSpoke`` are socket failures to the error map).
    """
    try:
        code, status_line = await connect_tunnel(
            reader, writer, authority(host, port), authorization
        )
    except TunnelHeadTooLarge:
        raise ProxyCannotTunnel("the proxy answered CONNECT with an oversized head") from None
    if code is None or not 200 <= code < 300:
        raise ProxyCannotTunnel(f"the proxy refused the CONNECT tunnel ({status_line.strip()})")


def _close(writer: asyncio.StreamWriter | None) -> None:
    """Close WRITER's transport at once, if there is one (returns nothing)."""
    if writer is not None:
        with contextlib.suppress(Exception):
            writer.transport.abort()
