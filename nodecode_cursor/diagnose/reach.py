"""Reaching the service one layer at a time, for ``doctor``: DNS, the proxy, the connection, TLS.

A request that got no answer is one ``Unreachable`` whose cause may lie in any
layer; a person needs to know which layer to fix. ``check_network`` walks them
in order, each on a short-lived socket of its own on the running event loop,
with the kit's parts (``h2dial.proxy_for`` picks the proxy, ``http.tls_context``
verifies, ``http.connect_tunnel`` asks for the tunnel) and the kit's error map
(``errormap.mapped`` at ``Step.PROBE``: a library's failure comes back as
``errormap.Failed``, plain facts), and returns one ``DoctorCheck`` per layer —
the verdict in a line and, on failure, what to set:

* ``dns``: the base URL's host resolves here (``loop.getaddrinfo``; a ``.invalid``
  name fails without a query, as RFC 6761 asks); behind a proxy the proxy
  resolves it, so a name that does not resolve here is said, not failed;
* ``proxy``: the proxy this URL goes through — the ``cursor.proxy`` setting, else
  the standard variables as the kit reads them (``NO_PROXY`` exempts a host) —
  accepts a connection and, for an ``http://`` or ``https://`` proxy (TLS to it
  first) and an ``https://`` service, opens a CONNECT tunnel to the service;
* ``connection``: the service accepts a TCP connection (direct routes only; the
  proxy's tunnel is the connection otherwise);
* ``tls``: for ``https://``, a handshake that verifies the certificate with the
  cell's own ``http.tls_context()``, its failure said plainly.

Nothing here sends an HTTP request to the service; the HTTP answer, and the
order of every other check, are ``doctor.py``'s.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import os
import socket
import urllib.parse
import urllib.request
from dataclasses import dataclass

from .. import limits
from ..errors import scrub
from ..host import DoctorCheck
from ..transports.errormap import Failed, Step, mapped
from ..transports.h2dial import proxy_for, split_url
from ..transports.http import TunnelHeadTooLarge, connect_tunnel, proxy_authorization, tls_context
from ..transports.http import authority as _authority

__all__ = ["NETWORK_CHECKS", "ProxyRoute", "check_network", "proxy_route"]

# The checks check_network returns, in order (doctor skips them by these names).
NETWORK_CHECKS = ("dns", "proxy", "connection", "tls")

_DEFAULT_PORTS = {"http": 80, "https": 443, "socks5": 1080, "socks5h": 1080}
_ADDRESS_FIX = (
    "check the address in --base-url (cursor.base_url) and that the network lets it through; "
    "a network that only goes out through a proxy needs it in cursor.proxy or HTTPS_PROXY"
)


@dataclass(frozen=True, slots=True)
class ProxyRoute:
    """The proxy a URL goes through: where it is and which setting named it.

    The proxy's URL may carry a user and password: only ``where`` (host and
    port) is ever shown, and ``authorization`` never leaves the CONNECT.
    """

    scheme: str
    host: str
    port: int
    source: str
    authorization: str | None = None

    @property
    def where(self) -> str:
        """Return the proxy's host:port, as a person reads it."""
        return f"{self.scheme}://{_authority(self.host, self.port)}"

    def __repr__(self) -> str:
        return f"ProxyRoute({self.where!r}, source={self.source!r})"


@dataclass(frozen=True, slots=True)
class _Target:
    scheme: str
    host: str
    port: int


def proxy_route(base_url: str, configured: str | None) -> tuple[ProxyRoute | None, str]:
    """Return the proxy BASE_URL goes through (None: direct) and, when none, why not.

    ``cursor.proxy`` carries every request; else the environment is read as the
    kit reads it (``h2dial.proxy_for``: the scheme's variable, else ALL_PROXY;
    ``NO_PROXY`` exempts a host), so doctor checks the proxy the rounds use.
    ValueError for a proxy URL that is not usable (its text names the setting,
    never the URL).
    """
    if configured:
        return _parse_proxy(configured, "the cursor.proxy setting"), ""
    scheme, host, _ = split_url(base_url)
    found = {
        name: url for name, url in urllib.request.getproxies_environment().items() if name != "no"
    }
    if not any(found.values()):
        return None, "no proxy is set"
    proxy = proxy_for(base_url, None)
    if proxy is None:
        if found.get(scheme) or found.get("all"):
            return None, f"NO_PROXY exempts {host}"
        return None, "no proxy is set for this URL"
    source = f"{scheme.upper()}_PROXY" if found.get(scheme) == proxy else "ALL_PROXY"
    return _parse_proxy(proxy, source), ""


def _parse_proxy(proxy: str, source: str) -> ProxyRoute:
    """Return the route PROXY names; ValueError (naming SOURCE only) when it is unusable."""
    parts = urllib.parse.urlsplit(proxy)
    scheme = parts.scheme.lower()
    try:
        host, port = parts.hostname, parts.port or _DEFAULT_PORTS.get(scheme)
    except ValueError:
        host, port = None, None
    if scheme not in _DEFAULT_PORTS or not host or port is None:
        raise ValueError(f"the proxy in {source} is not a usable URL")
    return ProxyRoute(scheme, host, port, source, proxy_authorization(parts))


async def check_network(base_url: str, configured_proxy: str | None) -> list[DoctorCheck]:
    """Return the dns, proxy, connection and tls checks for BASE_URL, in that order."""
    scheme, host, port = split_url(base_url)
    target = _Target(scheme, host, port)
    try:
        proxy, why_direct = proxy_route(base_url, configured_proxy)
    except ValueError as exc:
        fix = "fix the proxy URL (scheme://host:port) or unset it"
        return [
            await _dns(target, None),
            DoctorCheck("proxy", "fail", str(exc), fix),
            _skip("connection", "the proxy is not usable"),
            _skip("tls", "the proxy is not usable"),
        ]
    checks = [await _dns(target, proxy)]
    if checks[0].status == "fail":
        return [*checks, *(_skip(name, "the name does not resolve") for name in NETWORK_CHECKS[1:])]
    stream: tuple[asyncio.StreamReader, asyncio.StreamWriter] | None = None
    try:
        if proxy is None:
            checks.append(_skip("proxy", f"{why_direct}: the connection goes direct"))
            check, stream = await _connect_direct(target)
            checks.append(check)
        else:
            check, stream = await _through_proxy(proxy, target)
            checks.append(check)
            checks.append(_skip("connection", f"the proxy at {proxy.where} connects"))
        if target.scheme != "https":
            checks.append(_skip("tls", "the base URL is cleartext http://"))
        elif stream is None:
            failed = "the proxy" if checks[-2].status == "fail" else "the connection"
            checks.append(_skip("tls", f"{failed} failed"))
        else:
            checks.append(await _handshake(target, stream))
    finally:
        if stream is not None:
            _close(stream[1])
    return checks


def _skip(name: str, why: str) -> DoctorCheck:
    return DoctorCheck(name, "skip", f"not checked: {why}")


async def _dns(target: _Target, proxy: ProxyRoute | None) -> DoctorCheck:
    """Return the dns check: TARGET's host resolves here (behind PROXY it need not)."""
    host = target.host
    with contextlib.suppress(ValueError):
        ipaddress.ip_address(host)
        return DoctorCheck("dns", "ok", f"{host} is an address: nothing to resolve")
    loop = asyncio.get_running_loop()
    why: str | None = None
    if host == "invalid" or host.endswith(".invalid"):
        # RFC 6761 §6.4: such a name never resolves, so no query is sent for it.
        why = "a .invalid name never resolves (RFC 6761)"
    else:
        try:
            async with asyncio.timeout(limits.CONNECT_TIMEOUT_SECONDS):
                with mapped(Step.PROBE):
                    found = await loop.getaddrinfo(host, target.port, type=socket.SOCK_STREAM)
        except TimeoutError:
            why = "no answer in time"
        except UnicodeError:
            # Python's IDNA encoding refuses the name before any query: ours, not the network's.
            why = "not a host name (a label is empty or longer than 63 characters)"
        except Failed as failed:
            why = failed.words
    if why is not None:
        if proxy is not None:
            verdict = (
                f"{host} does not resolve here ({why}); the proxy at {proxy.where} resolves it"
            )
            return DoctorCheck("dns", "ok", verdict)
        fix = (
            "check the host name in --base-url (cursor.base_url) and the machine's DNS "
            "(a VPN or a corporate network may need its proxy: cursor.proxy or HTTPS_PROXY)"
        )
        return DoctorCheck("dns", "fail", f"{host} does not resolve: {why}", fix)
    addresses = sorted({str(entry[4][0]) for entry in found})
    shown = ", ".join(addresses[:3]) + (", …" if len(addresses) > 3 else "")
    return DoctorCheck("dns", "ok", f"{host} resolves to {shown}")


async def _open(
    host: str, port: int, *, tls: bool = False
) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """Return a stream pair to HOST:PORT (over verified TLS with TLS), within the connect timeout.

    TimeoutError past it; ``errormap.Failed`` when the connection could not be had.
    """
    async with asyncio.timeout(limits.CONNECT_TIMEOUT_SECONDS):
        with mapped(Step.PROBE):
            return await asyncio.open_connection(
                host,
                port,
                ssl=tls_context(("http/1.1",)) if tls else None,
                server_hostname=host if tls else None,
            )


async def _connect_direct(
    target: _Target,
) -> tuple[DoctorCheck, tuple[asyncio.StreamReader, asyncio.StreamWriter] | None]:
    """Return the connection check and, when it passed, the open stream to TARGET."""
    where = _authority(target.host, target.port)
    try:
        stream = await _open(target.host, target.port)
    except TimeoutError:
        verdict = f"{where} did not accept a connection within {limits.CONNECT_TIMEOUT_SECONDS:g} s"
        return DoctorCheck("connection", "fail", verdict, _ADDRESS_FIX), None
    except Failed as failed:
        verdict = f"{where} refused the connection: {failed.words}"
        return DoctorCheck("connection", "fail", verdict, _ADDRESS_FIX), None
    return DoctorCheck("connection", "ok", f"{where} accepts connections"), stream


async def _through_proxy(
    proxy: ProxyRoute, target: _Target
) -> tuple[DoctorCheck, tuple[asyncio.StreamReader, asyncio.StreamWriter] | None]:
    """Return the proxy check and, when it tunnels to TARGET, the open tunnel."""
    named = f"the proxy at {proxy.where} ({proxy.source})"
    fix = f"start the proxy, or fix or unset {proxy.source} to connect directly"
    tunnels = proxy.scheme in ("http", "https")
    try:
        # An https:// proxy is spoken to over TLS first, verified as the service is.
        reader, writer = await _open(proxy.host, proxy.port, tls=proxy.scheme == "https")
    except TimeoutError:
        verdict = f"{named} did not accept a connection within {limits.CONNECT_TIMEOUT_SECONDS:g} s"
        return DoctorCheck("proxy", "fail", verdict, fix), None
    except Failed as failed:
        return DoctorCheck("proxy", "fail", f"{named} refused: {failed.words}", fix), None
    if not tunnels or target.scheme != "https":
        _close(writer)
        how = (
            "the kit sends it absolute-form requests"
            if tunnels
            else f"a {proxy.scheme} proxy's tunnel is not checked here"
        )
        return DoctorCheck("proxy", "ok", f"{named} accepts connections ({how})"), None
    authority = _authority(target.host, target.port)
    try:
        async with asyncio.timeout(limits.CONNECT_TIMEOUT_SECONDS):
            with mapped(Step.PROBE):
                code, raw_line = await connect_tunnel(
                    reader, writer, authority, proxy.authorization
                )
    except (TimeoutError, TunnelHeadTooLarge, Failed) as exc:
        _close(writer)
        why = "no answer in time" if isinstance(exc, TimeoutError) else str(exc)
        return DoctorCheck("proxy", "fail", f"{named} failed CONNECT {authority}: {why}", fix), None
    # The proxy's own words, one printable line: it reaches a terminal.
    # A proxy may echo the Proxy-Authorization it was sent: scrubbed (a secret).
    status_line = scrub("".join(c for c in raw_line if c.isprintable()).strip())[:200]
    if code is not None and 200 <= code < 300:
        return DoctorCheck("proxy", "ok", f"{named} tunnels to {authority}"), (reader, writer)
    _close(writer)
    if code == 407:
        fix = (
            f"the proxy wants a sign-in: put it in {proxy.source} as http://user:password@host:port"
        )
    else:
        fix = (
            f"ask for {target.host} to be let through the proxy, "
            f"or exempt it with NO_PROXY to connect directly"
        )
    return DoctorCheck(
        "proxy", "fail", f"{named} refused CONNECT {authority}: {status_line}", fix
    ), None


async def _handshake(
    target: _Target, stream: tuple[asyncio.StreamReader, asyncio.StreamWriter]
) -> DoctorCheck:
    """Return the tls check: a verifying handshake with TARGET over STREAM."""
    writer = stream[1]
    try:
        async with asyncio.timeout(limits.CONNECT_TIMEOUT_SECONDS):
            with mapped(Step.PROBE):
                await writer.start_tls(tls_context(), server_hostname=target.host)
    except TimeoutError:
        verdict = f"the TLS handshake with {target.host} got no answer in time"
        return DoctorCheck("tls", "fail", verdict, _NOT_TLS_FIX)
    except Failed as failed:
        if failed.verify_code is not None:
            return _untrusted(target, failed)
        verdict = f"the TLS handshake with {target.host} failed: {failed.reason or failed.words}"
        return DoctorCheck("tls", "fail", verdict, _NOT_TLS_FIX)
    ssl_object = writer.get_extra_info("ssl_object")
    version = ssl_object.version() if ssl_object is not None else None
    return DoctorCheck("tls", "ok", f"{target.host}'s certificate is trusted ({version or 'TLS'})")


_NOT_TLS_FIX = (
    "something on the way does not speak TLS on this port: check the port in --base-url, "
    "and the proxy"
)


# OpenSSL's verify results (X509_V_ERR_*), which the fix branches on; never the message.
_CERT_NOT_YET_VALID = 9
_CERT_HAS_EXPIRED = 10
_HOSTNAME_MISMATCH = 62


def _untrusted(target: _Target, exc: Failed) -> DoctorCheck:
    """Return the failed tls check for a certificate EXC did not verify, with what to set."""
    why = (exc.verify_message or exc.reason or "verification failed").rstrip(".")
    verdict = f"the certificate {target.host} presented is not trusted: {why}"
    if exc.verify_code in (_CERT_NOT_YET_VALID, _CERT_HAS_EXPIRED):
        fix = "check this machine's clock and date; if they are right, the server's certificate is"
        return DoctorCheck("tls", "fail", verdict, fix + " out of date")
    if exc.verify_code == _HOSTNAME_MISMATCH:
        fix = (
            "the certificate is for another name: check the host in --base-url; a proxy or "
            "firewall that inspects TLS may be answering in the service's place"
        )
        return DoctorCheck("tls", "fail", verdict, fix)
    cert_file = os.environ.get("SSL_CERT_FILE")
    if cert_file:
        fix = (
            f"SSL_CERT_FILE ({cert_file}) does not hold the CA that signed it: add that CA "
            "(PEM) to the file"
        )
    else:
        fix = (
            "a corporate proxy or firewall that inspects TLS signs with its own CA: set "
            "SSL_CERT_FILE to a PEM bundle holding that CA (ask your IT for it)"
        )
    return DoctorCheck("tls", "fail", verdict, fix)


def _close(writer: asyncio.StreamWriter) -> None:
    """Close WRITER's transport at once (returns nothing)."""
    with contextlib.suppress(Exception):
        writer.transport.abort()
