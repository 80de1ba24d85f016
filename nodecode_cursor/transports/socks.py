"""A TCP connection through a SOCKS5 proxy, for the one dialer (``h2dial.dial``).

``socks_connect`` asks a ``socks5://`` or ``socks5h://`` proxy for a connection
to a host and port and returns the connected socket, on which the dialer then
starts TLS (or not) as on a direct one: every route that dials — HTTP/2 ``Run``,
RunSSE and its appends, the pooled unary calls — keeps its own HTTP client, and
so the trailers, behind a SOCKS proxy too. The SOCKS5 exchange (RFC 1928, with
RFC 1929's user and password) is python-socks's; this module reads the proxy's
URL. The library's failures are the error map's to word (``errormap.py``: a
refusal is "the SOCKS5 proxy would not connect: …", in python-socks's words,
which never quote the URL).

``socks5h://`` lets the proxy resolve the host name; ``socks5://`` resolves it
here and sends the address (curl's convention; our choice, docs/protocol.md §4 item 12).
The proxy's URL may hold a user and password: no error, log line or repr made
here quotes it.
"""

from __future__ import annotations

import socket
import urllib.parse

from ..errors import ConfigError

__all__ = ["SOCKS_SCHEMES", "is_socks", "socks_connect", "socks_label"]

# The SOCKS schemes the dialer speaks (SOCKS4 has no IPv6 and no password: not offered).
SOCKS_SCHEMES = ("socks5", "socks5h")
# IANA's port for SOCKS, the default when the URL names none (as curl and httpx take it).
_SOCKS_PORT = 1080


def is_socks(proxy: str) -> bool:
    """Return whether PROXY is a URL of a SOCKS proxy the dialer speaks."""
    return urllib.parse.urlsplit(proxy).scheme.lower() in SOCKS_SCHEMES


def _address(proxy: str) -> tuple[str, str, int]:
    """Return (scheme, host, port) of the SOCKS proxy PROXY; ConfigError if it has none."""
    parts = urllib.parse.urlsplit(proxy)
    try:
        host, port = parts.hostname, parts.port or _SOCKS_PORT
    except ValueError:
        host, port = None, 0
    if not host:
        raise ConfigError("the proxy setting is not a usable URL; fix it", code="bad_proxy")
    return parts.scheme.lower(), host, port


def socks_label(proxy: str) -> str:
    """Return how a connection through PROXY went, for a DEBUG line (no credentials)."""
    scheme, host, port = _address(proxy)
    shown = f"[{host}]" if ":" in host else host
    return f"through the SOCKS5 proxy ({scheme}://{shown}:{port})"


async def socks_connect(proxy: str, host: str, port: int, timeout: float) -> socket.socket:
    """Return a socket connected to HOST:PORT through the SOCKS5 proxy PROXY.

    python-socks's ``ProxyError`` when the proxy answers but will not connect (a
    refused login, the destination refused or unreachable from it, not SOCKS5 at
    all), its ``ProxyConnectionError`` (an OSError) when the proxy cannot be
    reached, its ``ProxyTimeoutError`` past TIMEOUT: the caller maps them
    (``errormap.mapped``). ConfigError (``bad_proxy``) for a URL with no usable
    host or port.
    """
    # Deferred: only a run behind a SOCKS proxy pays for the import.
    from python_socks import ProxyType
    from python_socks.async_.asyncio import Proxy

    scheme, proxy_host, proxy_port = _address(proxy)
    parts = urllib.parse.urlsplit(proxy)
    user = urllib.parse.unquote(parts.username) if parts.username else None
    password = urllib.parse.unquote(parts.password) if parts.password is not None else None
    # Built by hand, not Proxy.from_url: that reads neither socks5h:// nor a URL without a port.
    through = Proxy(
        ProxyType.SOCKS5,
        proxy_host,
        proxy_port,
        username=user,
        password=password,
        rdns=scheme == "socks5h",
    )
    return await through.connect(host, port, timeout=timeout)
