"""The run's wire over HTTP/1.1: one RunSSE stream in, one ordered BidiAppend per message out.

A Cursor run is two halves (docs/protocol.md §4). The server half is a POST to
``RunSSE`` whose answer streams Connect frames of ``AgentServerMessage``; the
client half is one unary ``BidiAppend`` POST per ``AgentClientMessage``,
numbered from 0 and sent strictly in order. The service answers RunSSE only as
appends arrive, so the two run concurrently: a reader task decodes frames as
they come, an append task drains a queue one POST at a time, and a heartbeat
task queues a ``client_heartbeat`` every few seconds while the run is open.

``SseRun`` is that transport; ``RunTransport`` is the small protocol the lane
speaks and ``open_run`` the one place that picks a transport for a run, so an
HTTP/2 ``Run`` or a ``RunPoll`` transport can sit beside it without the lane
changing.
This module knows bytes, sockets and timing; what the messages mean (folding,
answering) is left to ``fold.py`` and ``answers.py``, and when to retry is the
lane's call.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from collections.abc import AsyncGenerator, Callable, Iterator
from dataclasses import dataclass
from types import TracebackType
from typing import Any, Protocol, TypeVar, runtime_checkable

import httpx
from google.protobuf.message import DecodeError

from . import limits
from ._proto import agent_pb2, aiserver_pb2
from .connect import (
    FrameDecoder,
    classify_connect_error,
    encode_frame,
    parse_end_stream,
    parse_refusal,
)
from .errors import (
    ConfigError,
    CursorError,
    ModelNotFound,
    ProtocolError,
    ProviderError,
    StreamIncomplete,
)

__all__ = [
    "APPEND_PATH",
    "RUN_SSE_PATH",
    "RunSettings",
    "RunTransport",
    "SseRun",
    "append_timeout",
    "http_error",
    "open_run",
    "proxied_client",
    "reaching",
    "run_client",
    "run_headers",
    "unreachable",
]

log = logging.getLogger("nodecode_cursor.transport")

RUN_SSE_PATH = "/agent.v1.AgentService/RunSSE"
APPEND_PATH = "/aiserver.v1.BidiService/BidiAppend"

CONNECT_TIMEOUT_SECONDS = limits.CONNECT_TIMEOUT_SECONDS

# The two kinds of client the cell builds: async for runs and the roster, sync for sign-in.
ClientT = TypeVar("ClientT", httpx.Client, httpx.AsyncClient)

_HEARTBEAT = agent_pb2.AgentClientMessage(
    client_heartbeat=agent_pb2.ClientHeartbeat()
).SerializeToString()


@dataclass(frozen=True, slots=True)
class RunSettings:
    """Where and how a run connects; the timing knobs exist so tests can shrink them."""

    base_url: str
    token: str
    client_version: str
    proxy: str | None = None
    request_timeout: float = limits.DEFAULT_REQUEST_TIMEOUT_SECONDS
    heartbeat_seconds: float = limits.HEARTBEAT_SECONDS
    append_base_timeout: float = limits.APPEND_BASE_TIMEOUT_SECONDS
    append_bytes_per_extra_second: int = limits.APPEND_BYTES_PER_EXTRA_SECOND
    connect_timeout: float = CONNECT_TIMEOUT_SECONDS

    def __repr__(self) -> str:
        # The token never appears in a repr, a log line or an error.
        return f"RunSettings(base_url={self.base_url!r}, client_version={self.client_version!r})"


@runtime_checkable
class RunTransport(Protocol):
    """What the lane needs of a run's wire, whichever transport carries it."""

    settings: RunSettings
    request_id: str
    saw_end: bool
    end_error: ProviderError | None
    cut: str | None

    def send(self, message: bytes) -> None:
        """Queue one serialized AgentClientMessage to go after those already queued."""
        ...

    def messages(self) -> AsyncGenerator[agent_pb2.AgentServerMessage, None]:
        """Yield the server's messages as they arrive, until the stream ends."""
        ...

    async def __aenter__(self) -> RunTransport: ...

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None: ...


def open_run(settings: RunSettings) -> RunTransport:
    """Return a new, unopened transport for one run (``async with`` opens it)."""
    return SseRun(settings)


def run_headers(token: str, client_version: str, request_id: str) -> dict[str, str]:
    """Return the headers every Cursor RPC carries (RunSSE adds its streaming ones).

    The roster (``listing.py``) sends the same ones with its own request id.
    """
    return {
        "authorization": f"Bearer {token}",
        "x-cursor-client-type": "cli",
        "x-cursor-client-version": client_version,
        "x-ghost-mode": "true",
        "connect-protocol-version": "1",
        "x-request-id": request_id,
    }


def append_timeout(size: int, settings: RunSettings) -> float:
    """Return the deadline of one append carrying SIZE bytes: a base plus 1 s per 128 KiB."""
    return settings.append_base_timeout + size / settings.append_bytes_per_extra_second


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


def unreachable(url: str, exc: BaseException) -> ProviderError:
    """Return the error for a request to URL that never got an answer: the URL and the cause."""
    cause = str(exc) or type(exc).__name__
    return ProviderError(f"could not reach {url}: {cause}", status=502, retryable=True)


@contextlib.contextmanager
def reaching(url: str) -> Iterator[None]:
    """Return a context in which httpx failing to get an answer from URL is ``unreachable``.

    Every request the cell makes goes through one of these, so a dead service,
    a refused connection or a proxy that drops the line reads the same everywhere.
    Catch what means something else (a stream going silent) inside it.
    """
    try:
        yield
    except httpx.HTTPError as exc:
        raise unreachable(url, exc) from None


# What the reader hands the consumer: a batch of messages, the end (None), or a failure.
_Item = list[agent_pb2.AgentServerMessage] | BaseException | None


def proxied_client(
    factory: Callable[..., ClientT], *, proxy: str | None = None, **options: Any
) -> ClientT:
    """Return ``factory(proxy=proxy, trust_env=True, **options)``; ConfigError for a bad proxy.

    Every client the cell builds comes through here (runs, the roster, the sign-in
    and refresh), so they all go the same way. httpx refuses a proxy it cannot use
    (an unknown scheme, ``socks5://`` without socksio) with a ValueError or
    ImportError whose text quotes the proxy URL, which may carry a user and
    password: the error names the setting, never its value.
    """
    try:
        return factory(proxy=proxy, trust_env=True, **options)
    except (ValueError, ImportError) as exc:
        where = (
            "the cursor.proxy setting"
            if proxy
            else "the proxy environment (HTTPS_PROXY, HTTP_PROXY, ALL_PROXY)"
        )
        why = "needs the socksio package" if isinstance(exc, ImportError) else "is not a usable URL"
        raise ConfigError(
            f"the proxy in {where} {why}; fix or unset it", code="bad_proxy"
        ) from None


def run_client(settings: RunSettings) -> httpx.AsyncClient:
    """Return the HTTP/1.1 client a run talks through; ConfigError for an unusable proxy."""
    return proxied_client(
        httpx.AsyncClient,
        proxy=settings.proxy,
        http1=True,
        http2=False,
        timeout=httpx.Timeout(settings.request_timeout, connect=settings.connect_timeout),
    )


class SseRun:
    """One run over RunSSE + BidiAppend; use as ``async with SseRun(...) as run``.

    ``send`` queues a message (append 0 must be the run request); ``messages``
    yields the server's messages until the end frame or the stream closing. After
    the end, ``saw_end`` tells whether the end frame came, ``end_error`` holds its
    classified error, and ``cut`` says why the stream closed early (None when it
    did not). A refused append or silence past the request timeout raises from
    ``messages``. Leaving the context closes every socket and task.
    """

    def __init__(
        self,
        settings: RunSettings,
        request_id: str | None = None,
    ) -> None:
        self.settings = settings
        self.request_id = request_id or str(uuid.uuid4())
        self.saw_end = False
        self.end_error: ProviderError | None = None
        self.cut: str | None = None
        self.appended = 0
        self.failure: CursorError | None = None
        self._client: httpx.AsyncClient | None = None
        self._response: httpx.Response | None = None
        self._outbox: asyncio.Queue[bytes] = asyncio.Queue()
        self._inbox: asyncio.Queue[_Item] = asyncio.Queue()
        # Set while the consumer keeps up; the reader waits on it (backpressure).
        self._room = asyncio.Event()
        self._room.set()
        self._tasks: list[asyncio.Task[None]] = []
        self._ended = False
        self._closed = False
        base = settings.base_url.rstrip("/")
        self.run_url = base + RUN_SSE_PATH
        self.append_url = base + APPEND_PATH

    def __repr__(self) -> str:
        return f"SseRun(request_id={self.request_id!r}, url={self.run_url!r})"

    @property
    def ended(self) -> bool:
        """Return whether the stream is over (end frame, close, failure): nothing more is sent."""
        return self._ended

    async def __aenter__(self) -> SseRun:
        settings = self.settings
        self._client = run_client(settings)
        self._headers = run_headers(settings.token, settings.client_version, self.request_id)
        self._tasks = [
            asyncio.create_task(self._read(), name=f"cursor-run-read-{self.request_id}"),
            asyncio.create_task(self._append_loop(), name=f"cursor-run-append-{self.request_id}"),
        ]
        if settings.heartbeat_seconds > 0:
            self._tasks.append(
                asyncio.create_task(self._heartbeat(), name=f"cursor-run-beat-{self.request_id}")
            )
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    def send(self, message: bytes) -> None:
        """Queue one serialized AgentClientMessage; dropped once the stream is over."""
        if self._ended or self._closed:
            return
        self._outbox.put_nowait(message)

    async def messages(self) -> AsyncGenerator[agent_pb2.AgentServerMessage, None]:
        """Yield the server's messages as they arrive; raise the run's failure if it fails."""
        while True:
            item = await self._inbox.get()
            if self._inbox.qsize() < limits.RUN_INBOX_BATCHES:
                self._room.set()
            if item is None:
                return
            if isinstance(item, BaseException):
                raise item
            for message in item:
                yield message

    async def aclose(self) -> None:
        """Stop every task, close the stream and the client; safe to call twice."""
        if self._closed:
            return
        self._closed = True
        self._ended = True
        tasks, self._tasks = self._tasks, []
        for task in tasks:
            task.cancel()
        try:
            # Gather even when our own task is being cancelled: each child must
            # have unwound before its sockets are closed under it.
            await asyncio.gather(*tasks, return_exceptions=True)
        finally:
            response, self._response = self._response, None
            client, self._client = self._client, None
            try:
                if response is not None:
                    await response.aclose()
            finally:
                if client is not None:
                    await client.aclose()

    # --- the three tasks -----------------------------------------------------------

    def _finish(self, item: _Item) -> None:
        """Mark the stream over and hand the consumer its last item."""
        self._ended = True
        self._inbox.put_nowait(item)

    async def _read(self) -> None:
        """Open RunSSE and feed decoded messages to the consumer until the stream ends."""
        try:
            await self._read_stream()
        except asyncio.CancelledError:
            raise
        except CursorError as exc:
            self._finish(exc)
        except Exception as exc:  # a bug must reach the consumer, not vanish in a task
            log.debug("the run's reader failed", exc_info=True)
            self._finish(ProtocolError(f"Reading Cursor's stream failed: {exc}"))

    async def _read_stream(self) -> None:
        """Read frames off RunSSE; return at the end frame or when the stream closes."""
        assert self._client is not None
        body = encode_frame(
            aiserver_pb2.BidiRequestId(request_id=self.request_id).SerializeToString()
        )
        headers = {
            **self._headers,
            "content-type": "application/connect+proto",
            "x-cursor-streaming": "true",
        }
        request = self._client.build_request("POST", self.run_url, headers=headers, content=body)
        with reaching(self.run_url):
            try:
                response = await self._client.send(request, stream=True)
            except httpx.TimeoutException as exc:
                if isinstance(exc, httpx.ConnectTimeout):
                    raise  # never connected: unreachable, not silent
                raise self._silence() from None
        self._response = response
        if response.status_code != 200:
            try:
                raw = await response.aread()
            except httpx.HTTPError:
                raw = b""
            refusal = http_error(response.status_code, raw, "Cursor's RunSSE")
            log.debug("run %s refused: %s", self.request_id, refusal.detail)
            raise refusal
        log.debug("run %s open", self.request_id)
        decoder = FrameDecoder()
        decode = agent_pb2.AgentServerMessage.FromString
        # Closed here when the end frame returns early, rather than by a finalizer
        # task left pending on the loop.
        chunks = response.aiter_bytes()
        try:
            async for chunk in chunks:
                batch: list[agent_pb2.AgentServerMessage] = []
                for frame in decoder.iter_feed(chunk):
                    if frame.end_stream:
                        self.saw_end = True
                        self.end_error = parse_end_stream(frame.payload)
                        log.debug(
                            "run %s end frame%s",
                            self.request_id,
                            f": {self.end_error.detail}" if self.end_error else "",
                        )
                        if batch:
                            self._inbox.put_nowait(batch)
                        self._finish(None)
                        return
                    try:
                        batch.append(decode(frame.payload))
                    except (DecodeError, RecursionError):
                        raise ProtocolError(
                            "Cursor sent a stream frame that is not an AgentServerMessage"
                        ) from None
                if batch:
                    self._inbox.put_nowait(batch)
                    if self._inbox.qsize() >= limits.RUN_INBOX_BATCHES:
                        # The consumer is behind: stop reading until it catches up, so
                        # a fast stream waits in the socket, not in this process.
                        self._room.clear()
                        await self._room.wait()
        except httpx.TimeoutException:
            raise self._silence() from None
        except httpx.TransportError as exc:
            # The connection dropped mid-answer. Whether that loses anything is
            # the completeness rule's call (fold.py), not the transport's...
            self.cut = f"the stream was cut: {exc or type(exc).__name__}"
        else:
            self.cut = "the stream closed before its end frame"
        finally:
            close = getattr(chunks, "aclose", None)
            if close is not None:
                await close()
        log.debug("run %s closed early: %s", self.request_id, self.cut)
        if decoder.pending:
            # ...unless a frame had begun: more was coming, so the turn was not over.
            raise StreamIncomplete(
                f"Cursor's answer is incomplete: {self.cut} inside a frame (try again)"
            )
        self._finish(None)

    def _silence(self) -> StreamIncomplete:
        """Return the error for a stream that sent nothing for the request timeout."""
        seconds = self.settings.request_timeout
        return StreamIncomplete(
            f"Cursor sent nothing for {seconds:g} s; the stream is incomplete (try again)"
        )

    async def _append_loop(self) -> None:
        """Send queued messages as BidiAppends, one at a time, in order."""
        try:
            while True:
                message = await self._outbox.get()
                if self._ended:
                    continue  # nothing goes after the end frame
                await self._append(message)
        except asyncio.CancelledError:
            raise
        except CursorError as exc:
            # The first refused append fails the run; the consumer wakes on it.
            log.debug(
                "append #%d of run %s refused: %s", self.appended, self.request_id, exc.detail
            )
            self.failure = exc
            self._finish(exc)
        except Exception as exc:
            log.debug("the run's append task failed", exc_info=True)
            self.failure = ProtocolError(f"Sending to Cursor failed: {exc}")
            self._finish(self.failure)

    async def _append(self, message: bytes) -> None:
        """POST one BidiAppend carrying MESSAGE with the next seqno; raise if refused."""
        assert self._client is not None
        seqno = self.appended
        body = aiserver_pb2.BidiAppendRequest(
            request_id=aiserver_pb2.BidiRequestId(request_id=self.request_id),
            append_seqno=seqno,
            data_binary=message,
        ).SerializeToString()
        deadline = append_timeout(len(body), self.settings)
        headers = {**self._headers, "content-type": "application/proto"}
        with reaching(self.append_url):
            try:
                async with asyncio.timeout(deadline):
                    response = await self._client.post(
                        self.append_url, content=body, headers=headers, timeout=deadline
                    )
            except (TimeoutError, httpx.TimeoutException):
                raise ProviderError(
                    f"Cursor did not accept append #{seqno} within {round(deadline, 1):g} s",
                    status=504,
                    retryable=True,
                ) from None
        if response.status_code != 200:
            raise http_error(response.status_code, response.content, "Cursor's BidiAppend")
        self.appended = seqno + 1

    async def _heartbeat(self) -> None:
        """Queue a client heartbeat every period while the run is open."""
        period = self.settings.heartbeat_seconds
        while not self._ended:
            await asyncio.sleep(period)
            self.send(_HEARTBEAT)
