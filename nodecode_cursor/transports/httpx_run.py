"""A run's HTTP/1.1 through httpx: only behind a proxy the kit's own client cannot use.

RunSSE, RunPoll and the appends go through the kit's own HTTP/1.1 client
(``h1conn.H1Pool``) wherever it can reach the service (directly, an ``http://``
proxy, a SOCKS5 one). Behind any other proxy (``https://``) they go through
httpx, which drops a chunked body's trailers (a ``grpc-status`` end is then not
seen; the Connect end frame still is). ``Answer`` is what ``sse.py`` reads an
answer through, whichever client got it; ``HttpxAnswer`` is httpx's, its
failures mapped by ``errormap.mapped``; ``run_client`` the client a run builds
when the cell has none pooled. Issue 37 (item 1) would retire this module with
a dialer that speaks every proxy.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from typing import TYPE_CHECKING, Protocol

import httpx

from .errormap import Cut, Step, mapped
from .http import proxied_client, read_capped

if TYPE_CHECKING:
    from .run import RunSettings

__all__ = ["Answer", "HttpxAnswer", "run_client"]


def run_client(settings: RunSettings) -> httpx.AsyncClient:
    """Return the HTTP/1.1 client a run talks through; ConfigError for an unusable proxy."""
    return proxied_client(
        httpx.AsyncClient,
        proxy=settings.proxy,
        http1=True,
        http2=False,
        timeout=httpx.Timeout(settings.request_timeout, connect=settings.connect_timeout),
    )


class Answer(Protocol):
    """A streamed answer to the stream's POST, whichever client got it (h1conn's or httpx's)."""

    status: int

    @property
    def trailers(self) -> Mapping[str, str]:
        """Return the body's trailer fields (once it ended)."""
        ...

    def chunks(self) -> AsyncIterator[bytes]:
        """Yield the body; TimeoutError on silence, ``errormap.Cut`` when it was cut."""
        ...

    async def read(self, max_bytes: int | None = None) -> bytes | None:
        """Return the whole body."""
        ...

    async def aclose(self) -> None:
        """Release the connection."""
        ...


class HttpxAnswer:
    """An httpx streamed response as an ``Answer`` (no trailers: httpx drops them)."""

    def __init__(self, response: httpx.Response) -> None:
        self._response = response
        self.status = response.status_code
        self.trailers: Mapping[str, str] = {}

    async def chunks(self) -> AsyncIterator[bytes]:
        """Yield the body as httpx reads it; its failures as ``Answer`` says."""
        chunks = self._response.aiter_bytes()
        while True:
            with mapped(Step.STREAM):
                chunk = await anext(chunks, None)
            if chunk is None:
                return
            yield chunk

    async def read(self, max_bytes: int | None = None) -> bytes | None:
        """Return the whole body (None once it passes MAX_BYTES; b"" when it could not be read)."""
        try:
            with mapped(Step.STREAM):
                return await read_capped(self._response.aiter_bytes(), max_bytes)
        except (TimeoutError, Cut):
            return b""

    async def aclose(self) -> None:
        """Close the response."""
        await self._response.aclose()
