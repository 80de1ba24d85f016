"""The base every run's transport shares: its settings, what the lane needs of it, the run's stream.

A run is the client's messages out and the server's messages in, over one of
three routes (HTTP/2 ``Run``, RunSSE, RunPoll). What they share lives here:

* ``RunSettings``: where and how a run connects (the token never in a repr);
* ``RunTransport``: the small protocol the lane (and ``lanes/pump.py``) speaks;
* ``RunStream``: the outbox, the heartbeat and the consumer side with its
  backpressure, which ``h2run.H2Run`` and ``sse.SseRun``/``sse.PollRun``
  build on, each writing and reading its own wire; its ``RunState`` says where
  the stream is;
* ``NotCarried``: what a route says, instead of failing the run, when it did
  not carry it (refused, or over before any message), for the driver
  (``run_route.RoutedRun``) to move the run by ``core.routes.next_route``;
* a stream's end: ``grpc_end`` (a ``grpc-status`` trailer), ``after_end`` and
  ``after_end_error`` (nothing may follow a Connect end frame), ``STREAM_CUT``.

What goes on each wire is its route's module's (``h2run.py``, ``sse.py``);
which route a run takes is ``run_route.py``'s.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import enum
import logging
import urllib.parse
import uuid
from collections.abc import AsyncGenerator, Callable, Mapping
from dataclasses import dataclass, field
from types import TracebackType
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from .. import limits
from .._proto import agent_pb2
from ..core.routes import Outcome
from ..errors import CursorError, ProtocolError, ProviderError, StreamIncomplete
from ..wire.connect import (
    CONNECT_CODE_STATUS,
    FrameDecoder,
    classify_connect_error,
    parse_end_stream,
)
from ..wire.stream import ServerItem, as_message

if TYPE_CHECKING:
    from .clients import HttpClients

__all__ = [
    "HEARTBEAT",
    "STREAM_CUT",
    "NotCarried",
    "RunSettings",
    "RunState",
    "RunStream",
    "RunTransport",
    "after_end",
    "after_end_error",
    "grpc_end",
]

log = logging.getLogger(__name__)

# A client heartbeat, serialized: queued when nothing was written for a period, and
# never resent when a run moves to another route.
HEARTBEAT = agent_pb2.AgentClientMessage(
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
    connect_timeout: float = limits.CONNECT_TIMEOUT_SECONDS
    # Which route streams the run: "auto" (RunSSE, else RunPoll), "sse" or "poll".
    transport: str = limits.DEFAULT_RUN_TRANSPORT
    # A run that resumes a broken one names the round's first run (its request id)
    # in x-original-request-id, on the stream's POST and every append.
    original_request_id: str | None = None
    # The cell's pooled clients (CellState.http_clients); None: the run builds its own.
    clients: HttpClients | None = field(default=None, compare=False)

    def __repr__(self) -> str:
        # The token never appears in a repr, a log line or an error.
        return (
            f"RunSettings(base_url={self.base_url!r}, client_version={self.client_version!r},"
            f" transport={self.transport!r})"
        )


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

    def batches(self) -> AsyncGenerator[list[ServerItem], None]:
        """Yield the server's messages a network read at a time, until the stream ends.

        A text or thinking delta may come as its text (``wire.stream.ServerItem``).
        """
        ...

    async def __aenter__(self) -> RunTransport: ...

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None: ...


# A stream the service (or the line to it) ended mid-answer, as a person reads it.
STREAM_CUT = "the service closed the stream before the answer ended"

# What the reader hands the consumer: a batch of messages, the end (None), or a failure.
_Item = list[ServerItem] | BaseException | None


# gRPC status numbers (a ``grpc-status`` trailer) by the Connect code that names them.
_GRPC_CODES = (
    "ok",
    "canceled",
    "unknown",
    "invalid_argument",
    "deadline_exceeded",
    "not_found",
    "already_exists",
    "permission_denied",
    "resource_exhausted",
    "failed_precondition",
    "aborted",
    "out_of_range",
    "unimplemented",
    "internal",
    "unavailable",
    "data_loss",
    "unauthenticated",
)


def grpc_end(trailers: Mapping[str, str]) -> tuple[bool, ProviderError | None]:
    """Return whether TRAILERS end the stream gRPC's way (``grpc-status``), and its error.

    A stream with no Connect end frame may end so (oh-my-pi's terminal-error
    tests; docs/protocol.md §3): status 0 is a clean end, any other fails the
    round with its status and message, over HTTP/2 and RunSSE alike.
    """
    status = trailers.get("grpc-status")
    if status is None:
        return False, None
    # ASCII digits only: str.isdigit() takes "²", which int() refuses.
    number = int(status) if status.isascii() and status.isdigit() else 2
    if number == 0:
        return True, None
    code = _GRPC_CODES[number] if number < len(_GRPC_CODES) else "unknown"
    # gRPC percent-encodes the message; a malformed escape stays as sent.
    message = urllib.parse.unquote(trailers.get("grpc-message", ""))
    classified = classify_connect_error(
        {"code": code, "message": message}, http_status=CONNECT_CODE_STATUS.get(code)
    )
    if type(classified) is ProviderError:
        # Worded with the trailer's own status; a kind the lane acts on stays as it is.
        said = f": {message}" if message else ""
        classified = ProviderError(
            f"Cursor's stream ended with gRPC status {number} ({code}){said}",
            status=classified.status,
            retryable=classified.retryable,
            code=classified.code,
        )
    return True, classified


def after_end(decoder: FrameDecoder) -> bool:
    """Return whether anything followed the end frame in what DECODER was fed.

    ``FrameDecoder.read`` stops at the end frame and keeps what follows buffered, so
    any byte still pending came after it.
    """
    return decoder.pending > 0


def after_end_error() -> ProtocolError:
    """Return the error of a stream that sent bytes after its Connect end frame."""
    return ProtocolError(
        "Cursor sent data after end of stream (bytes after the Connect end frame); "
        "the answer cannot be trusted (try again)"
    )


class RunState(enum.Enum):
    """Where a run's stream is (httpcore's ``HTTPConnectionState`` is the model)."""

    # Nothing from the service yet: the route may still turn out not to carry the run.
    AWAITING = "awaiting"
    # The service's messages are coming: the route carries the run.
    ANSWERING = "answering"
    # The stream is over (its end, its close, a failure): nothing more is sent.
    ENDED = "ended"
    # Left: every task stopped, every socket released.
    CLOSED = "closed"


class NotCarried(Exception):
    """The route did not carry the run: it failed, or ended, before the service's first message.

    A run made ``movable`` says so from ``batches`` (or, for HTTP/2's dial, from
    entering) instead of failing: the driver (``run_route.RoutedRun``) reads
    OUTCOME, STATUS and CODE with ``core.routes.next_route`` and moves the run, or
    ends it with ERROR (None: the stream ended, and its end, ``saw_end``,
    ``end_error`` and ``cut``, is the run's). The message says why, for the log.
    """

    def __init__(
        self,
        why: str,
        outcome: Outcome,
        *,
        status: int | None = None,
        code: str | None = None,
        error: ProviderError | None = None,
    ) -> None:
        super().__init__(why)
        self.outcome = outcome
        self.status = status
        self.code = code
        self.error = error


class RunStream:
    """What every transport's run shares: the outbox, the heartbeat and the consumer side.

    A subclass writes what ``send`` queues (appends, or the body of an HTTP/2
    stream, re-arming ``_last_write`` at each write) and reads the server's half,
    handing batches to ``_deliver`` and the end (None) or a failure to ``_finish``.
    ``messages`` yields what was delivered, with backpressure: a reader whose
    consumer is behind waits, so a fast stream waits in the socket. ``state``
    (a ``RunState``) is the one thing that says where the stream is.
    """

    def __init__(self, settings: RunSettings, request_id: str | None) -> None:
        self.settings = settings
        self.request_id = request_id or str(uuid.uuid4())
        self.saw_end = False
        self.end_error: ProviderError | None = None
        self.cut: str | None = None
        self.failure: CursorError | None = None
        # Messages waiting to go, oldest first.
        self._outbox: collections.deque[bytes] = collections.deque()
        self._queued = asyncio.Event()
        self.state = RunState.AWAITING
        self._last_write = 0.0
        self._inbox: asyncio.Queue[_Item] = asyncio.Queue()
        self._held = 0  # messages in the inbox's batches, not yet taken by the consumer
        # Set while the consumer keeps up; the reader waits on it (backpressure).
        self._room = asyncio.Event()
        self._room.set()
        self._tasks: list[asyncio.Task[None]] = []

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Stop every task and close what the run holds; safe to call twice."""
        raise NotImplementedError

    @property
    def ended(self) -> bool:
        """Return whether the stream is over (end frame, close, failure): nothing more is sent."""
        return self.state is RunState.ENDED or self.state is RunState.CLOSED

    def send(self, message: bytes) -> None:
        """Queue one serialized AgentClientMessage; dropped once the stream is over."""
        if self.ended:
            return
        self._outbox.append(message)
        self._queued.set()

    async def messages(self) -> AsyncGenerator[agent_pb2.AgentServerMessage, None]:
        """Yield the server's messages as they arrive; raise the run's failure if it fails."""
        async with contextlib.aclosing(self.batches()) as batches:
            async for batch in batches:
                for item in batch:
                    yield as_message(item)

    async def batches(self) -> AsyncGenerator[list[ServerItem], None]:
        """Yield the messages of each network read as one list; raise the run's failure if it fails.

        The lane's hot path: one step of a generator per read rather than per message.
        """
        inbox = self._inbox
        while True:
            item = await inbox.get()
            if isinstance(item, list):
                self._held -= len(item)
            if not self._behind():
                self._room.set()
            if item is None:
                return
            if isinstance(item, BaseException):
                raise item
            yield item

    def _finish(self, item: _Item) -> None:
        """Mark the stream over and hand the consumer its last item."""
        if self.state is not RunState.CLOSED:
            self.state = RunState.ENDED
        self._inbox.put_nowait(item)

    def _take_end(self, end: bytes, check_end: Callable[[], None] | None = None) -> None:
        """Take the end frame's payload END: the stream's end, and its error if any.

        CHECK_END, when given, may refuse a clean end first (it raises).
        """
        end_error = parse_end_stream(end)
        if end_error is None and check_end is not None:
            check_end()
        self.saw_end = True
        self.end_error = end_error
        log.debug(
            "run %s end frame%s",
            self.request_id,
            f": {end_error.detail}" if end_error else "",
        )

    async def _deliver(self, batch: list[ServerItem]) -> None:
        """Hand the consumer BATCH; wait while it is behind (backpressure)."""
        if self.state is RunState.AWAITING:
            self.state = RunState.ANSWERING
        self._inbox.put_nowait(batch)
        self._held += len(batch)
        if self._behind():
            # The consumer is behind: stop reading until it catches up, so a fast
            # stream waits in the socket, not in this process.
            self._room.clear()
            await self._room.wait()

    def _behind(self) -> bool:
        """Return whether the consumer is behind: too many reads or messages waiting."""
        return (
            self._inbox.qsize() >= limits.RUN_INBOX_BATCHES
            or self._held >= limits.RUN_INBOX_MESSAGES
        )

    async def _heartbeat(self) -> None:
        """Queue a client heartbeat whenever nothing was written for a whole period."""
        period = self.settings.heartbeat_seconds
        loop = asyncio.get_running_loop()
        while not self.ended:
            wait = self._last_write + period - loop.time()
            if wait <= 0:
                # A message still queued is the next write the service sees; a
                # heartbeat behind it would say nothing more.
                if not self._outbox:
                    self.send(HEARTBEAT)
                wait = period
            await asyncio.sleep(wait)

    def _silence(self) -> StreamIncomplete:
        """Return the error for a stream that sent nothing for the request timeout."""
        seconds = self.settings.request_timeout
        return StreamIncomplete(
            f"Cursor sent nothing for {seconds:g} s; the stream is incomplete (try again)"
        )
