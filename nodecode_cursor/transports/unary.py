"""One unary call to Cursor over the kit: ``unary`` (async) and ``unary_blocking``.

Every unary call the cell makes — the roster, the catalog, the server config,
the dashboard, doctor's, the sign-in poll, the profile, the token refresh and
the key exchange — is one request on the kit's own HTTP/1.1 (``h1conn.H1Pool``,
dialed by ``h2dial.dial`` directly or through any proxy it speaks), its
``http.Answer`` (status and body) back. ``unary_blocking`` runs the same call on
a loop of its own for a caller that blocks (a sign-in's thread, a round's
refresh, the dashboard). What a body means is the caller's; a request that got
no answer is ``Unreachable`` (``errormap.py``).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
from collections.abc import Mapping

from .h1conn import H1Pool, h1_route
from .http import Answer, ClientPool

__all__ = ["unary", "unary_blocking"]


async def unary(
    url: str,
    *,
    headers: Mapping[str, str],
    content: bytes = b"",
    timeout: float,
    proxy: str | None = None,
    clients: ClientPool | None = None,
    max_bytes: int | None = None,
    method: str = "POST",
) -> Answer:
    """Return the answer to one request (METHOD, CONTENT) to URL; ``Unreachable`` when none came.

    Over the kit's own HTTP/1.1 (``h1conn.H1Pool``, dialed by ``h2dial.dial``
    directly or through any proxy it speaks): CLIENTS' pool of the runs'
    connections (the rounds' kept-alive ones), else a pool of its own closed
    after the call. TIMEOUT bounds the whole call, connection, head and body
    (``late`` past it: a body trickled a byte at a time ends there too). With
    MAX_BYTES, a body longer than that is read no further (its content None).
    ConfigError for an unusable proxy.
    """
    if clients is not None:
        return await clients.unary(url, headers, content, timeout, proxy, max_bytes, method)
    route = h1_route(url, proxy)
    pool = H1Pool()
    try:
        return await pool.unary(route, url, headers, content, timeout, max_bytes, method)
    finally:
        await pool.aclose()


def unary_blocking(
    url: str,
    *,
    headers: Mapping[str, str],
    content: bytes = b"",
    timeout: float,
    proxy: str | None,
    max_bytes: int | None = None,
    method: str = "POST",
) -> Answer:
    """Return ``unary``'s answer (its deadline and cap) to a caller that blocks.

    The call runs on a loop in a thread of its own, so the caller may be on a
    loop's thread or not (a sign-in's thread, a round's refresh, the dashboard),
    and one deadline bounds the whole call as on a loop.
    """
    call = unary(
        url,
        headers=headers,
        content=content,
        timeout=timeout,
        proxy=proxy,
        max_bytes=max_bytes,
        method=method,
    )
    with concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="cursor-unary") as worker:
        return worker.submit(asyncio.run, call).result()
