"""The run's wire over HTTP/1.1: the server's messages streamed in, one BidiAppend each out.

A Cursor run is two halves (docs/protocol.md §4). The client half is one unary
``BidiAppend`` POST per ``AgentClientMessage``, numbered from 0 and sent
strictly in order. The server half is one long streamed answer, by either of
two routes:

* ``RunSSE`` (``SseRun``): the POST's answer streams Connect frames of
  ``AgentServerMessage``. The run exists for the service once RunSSE answered
  200, so append 0 (the run request) goes only after that: an append that
  arrives earlier can be lost.
* ``RunPoll`` (``PollRun``): the POST's answer streams Connect frames of
  ``BidiPollResponse{seqno, data (base64 of one message), eof}``
  (``wire/poll.py`` checks and unwraps them). Its own
  client (oh-my-pi's HTTP/1 bridge) opens it only after append 0 was
  accepted, and so does this one.

Both share everything but the reader: an append task drains a queue one POST
at a time, a heartbeat task queues a ``client_heartbeat`` when nothing else was
written for a period, and the consumer side hands the lane decoded messages
with backpressure (``run.RunStream``). ``run.RunTransport`` is the small protocol the lane speaks;
``run_route.open_run`` is the one place that picks a route for a run (the
``transport`` setting: ``auto`` tries RunSSE and falls back to RunPoll when
RunSSE is refused as unimplemented or ends before its first message).
This module knows bytes, sockets and timing; what the messages mean (folding,
answering) is left to ``fold.py`` and ``answers.py``, and when to retry is the
lane's call.
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
import logging
from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING, Self

from .. import limits
from .._proto import aiserver_pb2
from ..core.routes import Outcome, Route
from ..errors import CursorError, ProtocolError, ProviderError, StreamIncomplete
from ..wire.connect import Payload, encode_frame
from ..wire.poll import PollFrames
from ..wire.stream import ServerItem, StreamReader
from .errormap import Cut, unreachable
from .http import http_error, rpc_headers
from .run import (
    STREAM_CUT,
    NotCarried,
    RunSettings,
    RunState,
    RunStream,
    after_end,
    after_end_error,
    grpc_end,
)

if TYPE_CHECKING:
    from .h1conn import H1Pool, H1Response, H1Route

__all__ = [
    "APPEND_PATH",
    "RUN_POLL_PATH",
    "RUN_SSE_PATH",
    "Appending",
    "PollRun",
    "SseRun",
    "append_timeout",
]

log = logging.getLogger(__name__)

RUN_SSE_PATH = "/agent.v1.AgentService/RunSSE"
RUN_POLL_PATH = "/agent.v1.AgentService/RunPoll"
APPEND_PATH = "/aiserver.v1.BidiService/BidiAppend"

# BidiPollRequest.poll_mode: every client we know of sends 1; its meaning is not public.
_POLL_MODE = 1


def append_timeout(size: int, settings: RunSettings) -> float:
    """Return the deadline of one append carrying SIZE bytes: a base plus 1 s per 128 KiB."""
    return settings.append_base_timeout + size / settings.append_bytes_per_extra_second


# A refusal's body past this is not read: its status alone says it.
_MAX_REFUSAL_BYTES = 1 << 20


async def _drain(chunks: AsyncIterator[bytes]) -> int:
    """Return how many bytes a stream's body still held after the end frame, read briefly.

    Only a body read to its terminating chunk lets the connection go back to the
    pool for the next round; a server that keeps it open longer than the bound
    loses the connection instead, and what it sends later is not counted.
    """
    extra = 0
    try:
        async with asyncio.timeout(limits.DRAIN_SECONDS):
            async for chunk in chunks:
                extra += len(chunk)
    except (TimeoutError, Cut):
        log.debug("the stream did not end after its end frame; its connection is not kept")
    return extra


class Appending(enum.Enum):
    """Where a run's appends stand: one state, moved by the run, waited on through one Event.

    httpcore's ``HTTPConnectionState`` is the model. ``HELD`` until the appends
    may go (RunSSE answered 200; a poll run starts ``OPEN``); ``OPEN`` or
    ``SENDING_FIRST`` before append 0 was accepted; ``IDLE`` or ``SENDING`` after.
    """

    # Appends wait: RunSSE has not answered 200 yet (the service may not know the run).
    HELD = "held"
    # Appends may go; append 0 was not accepted yet and none is on the wire.
    OPEN = "open"
    # Append 0 is on the wire.
    SENDING_FIRST = "sending first"
    # Append 0 was accepted (RunPoll may open); none is on the wire.
    IDLE = "idle"
    # A later append is on the wire.
    SENDING = "sending"

    @property
    def may_send(self) -> bool:
        """Return whether appends may go in this state."""
        return self is not Appending.HELD

    @property
    def first_accepted(self) -> bool:
        """Return whether append 0 was accepted (RunPoll opens only then)."""
        return self in (Appending.IDLE, Appending.SENDING)

    @property
    def on_the_wire(self) -> bool:
        """Return whether an append's POST is on the wire."""
        return self in (Appending.SENDING_FIRST, Appending.SENDING)


class _BidiRun(RunStream):
    """What RunSSE and RunPoll share beyond ``RunStream`` (whose heartbeat and consumer
    side H2Run has too): the append queue and its task, the stream's POST and reader.

    ``send`` queues a message (append 0 must be the run request); ``messages``
    yields the server's messages until the end frame or the stream closing.
    After the end, ``saw_end`` tells whether the end frame came, ``end_error``
    holds its classified error, and ``cut`` says why the stream closed early
    (None when it did not). A refused append or silence past the request
    timeout raises from ``messages``. ``route`` names the route that streams
    the run (``sse`` or ``poll``). Leaving the context closes every socket and
    task. Subclasses pick the route. Made MOVABLE (by the driver,
    ``run_route.RoutedRun``), a RunSSE run that was refused, or that ended
    before its first message, says so with ``run.NotCarried`` rather than
    ending: whether the run moves to RunPoll is ``core.routes.next_route``'s call.
    """

    route = Route.SSE
    # Append 0 waits for RunSSE's 200: before that the service may not know the
    # run and lose the append. benchmarks/register_first.py turns it off to
    # measure what the wait costs; nothing else should.
    register_first = True

    def __init__(
        self,
        settings: RunSettings,
        request_id: str | None = None,
        *,
        movable: bool = False,
    ) -> None:
        super().__init__(settings, request_id)
        self.appended = 0
        self.movable = movable
        # The run's HTTP/1.1: the cell's (or the run's own) pool of connections along
        # _h1_route, whatever the proxy (the one dialer reaches through each).
        self._h1_route: H1Route | None = None
        self._pool: H1Pool | None = None
        # Whether the pool is this run's own (closed with it) or the cell's.
        self._own_client = True
        self._response: H1Response | None = None
        # The outbox's head stays there until its append was accepted, so a
        # restarted append task resends it. Whether appends may go, whether append 0
        # was accepted (RunPoll opens only then) and whether one is on the wire (a run
        # that ended lets it finish, briefly, so its connection goes back to the pool)
        # are one state; _appending_moved is set, and replaced, at each move.
        self.appending = Appending.HELD
        self._appending_moved = asyncio.Event()
        self._appender: asyncio.Task[None] | None = None
        base = settings.base_url.rstrip("/")
        self.run_url = base + RUN_SSE_PATH
        self.poll_url = base + RUN_POLL_PATH
        self.append_url = base + APPEND_PATH
        self._headers = rpc_headers(
            settings.token, settings.client_version, self.request_id, settings.original_request_id
        )

    def __repr__(self) -> str:
        url = self.run_url if self.route is Route.SSE else self.poll_url
        return f"{type(self).__name__}(request_id={self.request_id!r}, url={url!r})"

    async def __aenter__(self) -> Self:
        from .h1conn import H1Pool, h1_route

        settings = self.settings
        self._h1_route = h1_route(settings.base_url, settings.proxy)
        self._own_client = settings.clients is None
        self._pool = H1Pool() if settings.clients is None else await settings.clients.h1()
        self._last_write = asyncio.get_running_loop().time()
        if self.route is Route.POLL or not self.register_first:
            self._move_appending(Appending.OPEN)
        self._tasks = [asyncio.create_task(self._read(), name=f"cursor-run-read-{self.request_id}")]
        self._start_appender()
        if settings.heartbeat_seconds > 0:
            self._tasks.append(
                asyncio.create_task(self._heartbeat(), name=f"cursor-run-beat-{self.request_id}")
            )
        return self

    async def aclose(self) -> None:
        """Stop every task, close the stream and the client; safe to call twice."""
        if self.state is RunState.CLOSED:
            return
        self.state = RunState.CLOSED
        if self.saw_end and self.appending.on_the_wire:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(limits.DRAIN_SECONDS):
                    await self._appending_until(lambda state: not state.on_the_wire)
        tasks, self._tasks = self._tasks, []
        if self._appender is not None:
            tasks.append(self._appender)
            self._appender = None
        for task in tasks:
            task.cancel()
        try:
            # Gather even when our own task is being cancelled: each child must
            # have unwound before its sockets are closed under it.
            await asyncio.gather(*tasks, return_exceptions=True)
        finally:
            response, self._response = self._response, None
            pool, self._pool = self._pool, None
            try:
                if response is not None:
                    await response.aclose()
            finally:
                if pool is not None and self._own_client:
                    await pool.aclose()

    # --- the reader ------------------------------------------------------------------

    async def _read(self) -> None:
        """Stream the run's answer by its route and feed the consumer until the stream ends."""
        try:
            if self.route is Route.SSE:
                await self._read_sse()
                return
            log.debug(
                "run %s streams over RunPoll (transport setting %s)",
                self.request_id,
                self.settings.transport,
            )
            await self._read_poll()
        except asyncio.CancelledError:
            raise
        except (CursorError, NotCarried) as exc:
            self._finish(exc)
        except Exception as exc:  # a bug must reach the consumer, not vanish in a task
            log.debug("the run's reader failed", exc_info=True)
            self._finish(ProtocolError(f"Reading Cursor's stream failed: {exc}"))

    async def _read_sse(self) -> None:
        """Stream RunSSE; NotCarried (when movable) if it was refused or ended before a message."""
        body = encode_frame(
            aiserver_pb2.BidiRequestId(request_id=self.request_id).SerializeToString()
        )
        headers = {
            **self._headers,
            "content-type": "application/connect+proto",
            "connect-accept-encoding": "gzip",
            "x-cursor-streaming": "true",
        }
        response = await self._open_stream(self.run_url, body, headers)
        if response.status != 200:
            refusal = await self._refusal(response, "Cursor's RunSSE")
            log.debug("run %s refused: %s", self.request_id, refusal.detail)
            if self.movable:
                # Whether RunPoll may take the run is the route decision's.
                why = f"RunSSE refused (HTTP {response.status}: {refusal.detail})"
                raise NotCarried(
                    why,
                    Outcome.REFUSED,
                    status=response.status,
                    code=refusal.code,
                    error=refusal,
                )
            raise refusal
        # The run is registered: the appends may go (append 0 first).
        self._move_appending(Appending.OPEN)
        log.debug(
            "run %s streams over RunSSE (transport setting %s)",
            self.request_id,
            self.settings.transport,
        )
        await self._stream_frames(response, None, None)
        if self.movable and self.state is RunState.AWAITING:
            what = "its end frame" if self.saw_end else (self.cut or "closing")
            error = self.end_error
            raise NotCarried(
                f"RunSSE ended before its first message ({what})",
                Outcome.ENDED_EMPTY if error is None else Outcome.END_ERROR,
                code=None if error is None else error.code,
            )
        self._finish(None)

    async def _read_poll(self) -> None:
        """Stream RunPoll once append 0 was accepted; return at the end frame or the close."""
        # RunPoll returns the messages of a run whose request the service must
        # already have accepted: it opens only after append 0 got its 2xx.
        await self._appending_until(lambda state: state.first_accepted)
        request = aiserver_pb2.BidiPollRequest(
            request_id=aiserver_pb2.BidiRequestId(request_id=self.request_id),
            poll_mode=_POLL_MODE,
        )
        headers = {
            **self._headers,
            "content-type": "application/connect+proto",
            "connect-accept-encoding": "gzip",
        }
        body = encode_frame(request.SerializeToString())
        response = await self._open_stream(self.poll_url, body, headers)
        if response.status != 200:
            refusal = await self._refusal(response, "Cursor's RunPoll")
            log.debug("run %s refused: %s", self.request_id, refusal.detail)
            raise refusal
        reader = PollFrames()
        await self._stream_frames(response, reader.messages, reader.check_end)
        self._finish(None)

    async def _open_stream(self, url: str, body: bytes, headers: dict[str, str]) -> H1Response:
        """Return the streamed answer of a POST to URL (any status); raise if none came."""
        settings = self.settings
        assert self._pool is not None and self._h1_route is not None
        try:
            answer = await self._pool.request(
                self._h1_route,
                url,
                headers,
                body,
                connect_timeout=settings.connect_timeout,
                read_timeout=settings.request_timeout,
            )
        except TimeoutError:
            raise self._silence() from None
        self._response = answer
        return answer

    async def _refusal(self, response: H1Response, what: str) -> ProviderError:
        """Return the error a non-200 answer to the stream's POST carries."""
        try:
            raw = await response.read(_MAX_REFUSAL_BYTES) or b""
        except (TimeoutError, Cut):
            raw = b""
        return http_error(response.status, raw, what)

    async def _stream_frames(
        self,
        response: H1Response,
        decode: Callable[[list[Payload]], list[ServerItem]] | None,
        check_end: Callable[[], None] | None,
    ) -> None:
        """Deliver the messages of RESPONSE's frames until the end frame or the close.

        DECODE turns a read's data payloads into its batch (None: they are
        AgentServerMessages, read as ``wire.stream.StreamReader`` reads them).

        Sets ``saw_end``/``end_error`` at the end frame (CHECK_END, when given,
        may refuse a clean end first) or at a ``grpc-status`` trailer, and ``cut``
        when the stream closed early.
        """
        decoder = StreamReader()
        # Closed here when the end frame returns early, rather than by a finalizer
        # task left pending on the loop.
        chunks = response.chunks()
        try:
            async for chunk in chunks:
                if decode is None:
                    batch = decoder.read_items(chunk)
                    end = decoder.end
                else:
                    payloads, end = decoder.read(chunk)
                    batch = decode(payloads)
                if end is not None:
                    self._take_end(end, check_end)
                    if batch:
                        await self._deliver(batch)
                    # Nothing may follow the end frame (Connect's grammar): not in
                    # this chunk, nor in what the body still holds.
                    trailing = after_end(decoder)
                    if await _drain(chunks) or trailing:
                        raise after_end_error()
                    return
                if batch:
                    await self._deliver(batch)
        except TimeoutError:
            raise self._silence() from None
        except Cut as exc:
            # The connection dropped mid-answer. Whether that loses anything is
            # the completeness rule's call (fold.py), not the transport's...
            log.debug("run %s cut: %s", self.request_id, exc)
            self.cut = STREAM_CUT
        else:
            # No end frame: the body's trailers may still end it gRPC's way.
            self.saw_end, self.end_error = grpc_end(response.trailers)
            if self.saw_end:
                log.debug(
                    "run %s ended by its grpc-status trailer%s",
                    self.request_id,
                    f": {self.end_error.detail}" if self.end_error else "",
                )
                return
            self.saw_end, self.end_error = False, None
            self.cut = "the stream closed before its end frame"
        finally:
            close = getattr(chunks, "aclose", None)
            if close is not None:
                await close()
        log.debug("run %s closed early: %s", self.request_id, self.cut)
        if decoder.pending:
            # ...unless a frame had begun: more was coming, so the turn was not over.
            raise StreamIncomplete(
                f"Cursor's answer is incomplete: {self.cut}, partway through a message (try again)"
            )

    # --- the appends -----------------------------------------------------------------

    def _move_appending(self, state: Appending) -> None:
        """Move the appends to STATE and wake whoever waits on a move (returns nothing)."""
        self.appending = state
        moved, self._appending_moved = self._appending_moved, asyncio.Event()
        moved.set()

    async def _appending_until(self, wanted: Callable[[Appending], bool]) -> None:
        """Return once the appends' state is one WANTED accepts."""
        while not wanted(self.appending):
            await self._appending_moved.wait()

    def _start_appender(self) -> None:
        """Start the task that sends the queued messages as appends."""
        self._appender = asyncio.create_task(
            self._append_loop(), name=f"cursor-run-append-{self.request_id}"
        )

    async def _append_loop(self) -> None:
        """Send queued messages as BidiAppends, one at a time, in order, once appends may go."""
        try:
            await self._appending_until(lambda state: state.may_send)
            while True:
                while not self._outbox:
                    self._queued.clear()
                    await self._queued.wait()
                if self.ended:
                    self._outbox.clear()  # nothing goes after the end frame
                    continue
                message = self._outbox[0]
                accepted = self.appending.first_accepted
                self._move_appending(Appending.SENDING if accepted else Appending.SENDING_FIRST)
                try:
                    await self._append(message)
                    accepted = True
                finally:
                    self._move_appending(Appending.IDLE if accepted else Appending.OPEN)
                self._outbox.popleft()
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

    async def _post(
        self, url: str, body: bytes, headers: dict[str, str], timeout: float
    ) -> tuple[int, bytes]:
        """Return the status and body of one POST on the run's HTTP/1.1; raise if unanswered."""
        assert self._pool is not None and self._h1_route is not None
        answer = await self._pool.request(
            self._h1_route,
            url,
            headers,
            body,
            connect_timeout=self.settings.connect_timeout,
            read_timeout=timeout,
        )
        try:
            content = await answer.read()
        except Cut as cut:
            raise unreachable(url, cut) from None
        finally:
            await answer.aclose()
        return answer.status, content or b""

    async def _append(self, message: bytes) -> None:
        """POST one BidiAppend carrying MESSAGE with the next seqno; raise if refused."""
        seqno = self.appended
        body = aiserver_pb2.BidiAppendRequest(
            request_id=aiserver_pb2.BidiRequestId(request_id=self.request_id),
            append_seqno=seqno,
            data_binary=message,
        ).SerializeToString()
        deadline = append_timeout(len(body), self.settings)
        headers = {
            **self._headers,
            "content-type": "application/proto",
            "x-cursor-streaming": "true",
        }
        # Any write shows the service the client is alive: the heartbeat waits a
        # whole period from here.
        self._last_write = asyncio.get_running_loop().time()
        try:
            async with asyncio.timeout(deadline):
                status, content = await self._post(self.append_url, body, headers, deadline)
        except TimeoutError:
            raise ProviderError(
                f"Cursor did not accept append #{seqno} within {round(deadline, 1):g} s",
                status=504,
                retryable=True,
            ) from None
        if not 200 <= status < 300:
            raise http_error(status, content, "Cursor's BidiAppend")
        self.appended = seqno + 1


class SseRun(_BidiRun):
    """One run over RunSSE + BidiAppend; use as ``async with SseRun(...) as run``.

    Append 0 goes once RunSSE answered 200. Made ``movable``, a refusal or an end
    before the first message is ``NotCarried`` (the driver may move the run to
    RunPoll, on a new request id).
    """

    route = Route.SSE


class PollRun(_BidiRun):
    """One run over RunPoll + BidiAppend; use as ``async with PollRun(...) as run``.

    Append 0 goes first; RunPoll opens once it was accepted.
    """

    route = Route.POLL
