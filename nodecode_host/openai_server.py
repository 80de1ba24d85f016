"""A local HTTP server for OpenAI, Anthropic and Responses API clients: Cursor's models.

``serve`` listens on 127.0.0.1 (loopback only, by default) and answers
``GET /v1/models``, ``POST /v1/chat/completions`` (OpenAI), ``POST /v1/messages``
and ``/v1/messages/count_tokens`` (Anthropic) and ``POST /v1/responses``, each
request one round through the cell's ``cursor`` lane, streamed as Server-Sent Events when the
client asks. HTTP/1.1 is parsed with h11 (sans-I/O) over asyncio streams:
keep-alive, chunked bodies, several connections at once. A client that goes
away mid-round cancels its round. When ``NODECODE_SERVE_API_KEY`` is set every
request must carry ``Authorization: Bearer <key>``. Every request passes
``serve_gate.Gate`` on its head alone (origin, Host, key, content type) before
its body is read or any route sees it; headers are capped, each phase of a
request has a deadline, connections are capped, and an ``accept()`` that fails
for want of file descriptors is logged in one line and retried. The Cursor token is the
cell's own business (its credential ladder); this server never sees one unless
the cell raises an error, and errors never carry tokens.

What the JSON means is ``openai_api.py``'s, ``anthropic_api.py``'s and
``responses_api.py``'s; the round itself is the lane's; the
host (cell loading, config) is ``refhost.py``'s; the ``serve`` command that starts
this server from a shell is ``cli.py``'s.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import ipaddress
import json
import logging
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any, Protocol

import h11

from . import anthropic_api, contract, responses_api
from . import limits as host_limits
from .api_round import (
    MODEL_PREFIX,
    ApiError,
    Reply,
    RoundRequest,
    answer_problem,
    error_for,
    nearest_effort,
    replay_parts,
    settled,
)
from .errors import HostError
from .openai_api import (
    ChatReply,
    error_object,
    internal_error,
    models_object,
    parse_chat_request,
)
from .serve_gate import Gate, Preflight, Refusal

if TYPE_CHECKING:
    from nodecode_cursor.host import Cell, RoundContext, RoundResult, StreamPart

__all__ = [
    "API_KEY_ENV",
    "DEFAULT_LISTEN_HOST",
    "DEFAULT_PORT",
    "ApiServer",
    "authority",
    "loopback",
    "serve",
]

log = logging.getLogger("nodecode_host.openai_server")

API_KEY_ENV = "NODECODE_SERVE_API_KEY"
DEFAULT_LISTEN_HOST = "127.0.0.1"
DEFAULT_PORT = 8765
PROVIDER = "cursor"
# The lane that runs Cursor's own CLI (nodecode_cursor.cell.AGENT_LANE).
AGENT_LANE = "cursor-agent"
# A chat request with inline images can be large; anything past this is refused
# rather than held in memory.
MAX_BODY_BYTES = 64 * 1024 * 1024
_READ_SIZE = 65536
# accept() failures for want of resources (asyncio retries them on its own after a pause).
_ACCEPT_ERRNOS = frozenset({errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM})

Lane = Callable[["RoundContext"], Awaitable["RoundResult"]]


class ServedHost(Protocol):
    """What the server needs of a started host: the lane and the cell that gives it."""

    def lane(self, provider: str) -> Lane:
        """Return the provider's lane."""
        ...

    def cell_for(self, provider: str) -> Cell:
        """Return the cell that gives the provider's lane."""
        ...


class _Gone(Exception):
    """The client closed its connection."""


# One streamed round's queue items: bytes to send, the round's end, or its failure.
_END = object()


class ApiServer:
    """The server's state: the host it serves from, the key, and what is in flight."""

    def __init__(
        self,
        host: ServedHost,
        *,
        api_key: str | None = None,
        allowed_origins: tuple[str, ...] = (),
        max_connections: int = host_limits.SERVE_MAX_CONNECTIONS,
        header_timeout: float = host_limits.SERVE_HEADER_TIMEOUT_SECONDS,
        body_timeout: float = host_limits.SERVE_BODY_TIMEOUT_SECONDS,
        idle_timeout: float = host_limits.SERVE_IDLE_TIMEOUT_SECONDS,
        allow_agent_lane: bool = False,
    ) -> None:
        self.host = host
        # The cursor-agent lane runs Cursor's CLI with its tools approved: opt-in only.
        self.allow_agent_lane = allow_agent_lane
        self.api_key = api_key or None
        self.allowed_origins = allowed_origins
        self.max_connections = max_connections
        self.header_timeout = header_timeout
        self.body_timeout = body_timeout
        self.idle_timeout = idle_timeout
        self._accept_warned = 0.0
        self.listen_host = DEFAULT_LISTEN_HOST
        self.port = 0
        self.rounds_in_flight = 0
        self.connections = 0
        self._server: asyncio.Server | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        # What the request in flight on each connection answered (status, model), for its log.
        self._served: dict[int, dict[str, Any]] = {}
        # The ids GET /v1/models listed last (unknown-model hints name only these).
        self._listed: list[str] | None = None
        # Responses kept for previous_response_id (in memory, bounded).
        self.responses = responses_api.ResponseStore()
        self._previous_handler: Any = None

    @property
    def url(self) -> str:
        """Return the base URL clients use (``…/v1``)."""
        return f"http://{authority(self.listen_host, self.port)}/v1"

    # Connections ----------------------------------------------------------------------------

    @property
    def gate(self) -> Gate:
        """Return the checks every request passes before any route (``serve_gate``)."""
        return Gate(self.listen_host, self.port, self.api_key, self.allowed_origins)

    async def connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """Serve one connection: requests one after another until either side closes."""
        if self.connections >= self.max_connections:
            await _turn_away(reader, writer)
            return
        conn = h11.Connection(
            h11.SERVER, max_incomplete_event_size=host_limits.SERVE_MAX_HEADER_BYTES
        )
        self.connections += 1
        waiting = self.header_timeout  # the first request's head is due at once
        try:
            while True:
                try:
                    head = await self._read_head(conn, reader, waiting)
                except h11.RemoteProtocolError as exc:
                    await self._send_bad_request(conn, writer, exc)
                    return
                except TimeoutError:
                    log.debug("closing a connection that sent no whole request head in time")
                    return
                if head is None:
                    return
                waiting = self.idle_timeout
                started = time.monotonic()
                headers = {
                    k.decode("latin-1").lower(): v.decode("latin-1") for k, v in head.headers
                }
                self._served[id(conn)] = {
                    "origin": headers.get("origin"),
                    "method": head.method.decode("latin-1").upper(),
                }
                try:
                    if not await self._admitted(conn, writer, head, headers):
                        return
                    try:
                        body = await self._read_body(conn, reader)
                    except h11.RemoteProtocolError as exc:
                        await self._send_bad_request(conn, writer, exc)
                        return
                    except TimeoutError:
                        error = error_object(408, "the request body did not arrive in time")
                        with contextlib.suppress(h11.LocalProtocolError, ConnectionError, OSError):
                            await self._send_json(conn, writer, 408, error, close=True)
                        return
                    if body is None:
                        return
                    await self._dispatch(conn, reader, writer, head, body)
                finally:
                    self._log_request(conn, head, time.monotonic() - started)
                if h11.MUST_CLOSE in (conn.our_state, conn.their_state):
                    return
                if conn.our_state is not h11.DONE:
                    return  # the answer was cut short (client gone): nothing more to say
                conn.start_next_cycle()
        except (_Gone, ConnectionError, OSError, h11.ProtocolError):
            return
        finally:
            self.connections -= 1
            writer.close()
            with contextlib.suppress(ConnectionError, OSError):
                await writer.wait_closed()

    def _log_request(self, conn: h11.Connection, head: h11.Request, seconds: float) -> None:
        """Log one served request: method, path, status, duration and model (never a header)."""
        served = self._served.pop(id(conn), {})
        status = served.get("status", "-")  # no status: the client left before the answer
        path = head.target.decode("latin-1").split("?", 1)[0]
        reason = served.get("reason")
        log.info(
            "%s %s -> %s in %.3fs%s%s",
            _loggable(head.method.decode("latin-1")),
            _loggable(path),
            status,
            seconds,
            f" (model {_loggable(str(served['model']))})" if "model" in served else "",
            # Why an error was answered; it may quote what the client sent: scrubbed, escaped.
            f": {_loggable(contract.scrub(str(reason)))}" if reason else "",
        )

    async def _admitted(
        self,
        conn: h11.Connection,
        writer: asyncio.StreamWriter,
        head: h11.Request,
        headers: Mapping[str, str],
    ) -> bool:
        """Return whether the request may go on to its body and route; else answer it.

        The one place every route passes through, on the head alone: a refused
        request is answered and its connection closed without reading its body.
        """
        method = head.method.decode("latin-1").upper()
        verdict = self.gate.admit(method, headers)
        if verdict is None:
            declared = headers.get("content-length", "")
            if declared.isdigit() and int(declared) > MAX_BODY_BYTES:
                verdict = Refusal(413, "request body too large", "request_too_large")
            else:
                return True
        if isinstance(verdict, Preflight):
            await self._send(
                conn,
                writer,
                h11.Response(
                    status_code=204,
                    headers=[*verdict.headers, ("content-length", "0"), ("connection", "close")],
                ),
            )
            await self._send(conn, writer, h11.EndOfMessage())
            return False
        path = head.target.decode("latin-1").split("?", 1)[0]
        if verdict.code == "invalid_api_key":
            # Who was refused, never what they sent: the header may hold a real key.
            log.warning("refused %s %s: missing or wrong client API key", method, _loggable(path))
        # In the refused API's own error shape (an Anthropic client reads Anthropic's).
        body = _error_body(path, ApiError(verdict.status, verdict.message, code=verdict.code))
        await self._send_json(conn, writer, verdict.status, body, close=True)
        return False

    async def _read_head(
        self, conn: h11.Connection, reader: asyncio.StreamReader, waiting: float
    ) -> h11.Request | None:
        """Return the next request's head, or None when the client closed first.

        TimeoutError when no byte comes within WAITING, or the head is not whole
        within the header timeout of its first byte.
        """
        loop = asyncio.get_running_loop()
        deadline: float | None = None
        while True:
            event = conn.next_event()
            if event is h11.NEED_DATA:
                left = waiting if deadline is None else deadline - loop.time()
                async with asyncio.timeout(max(0.0, left)):
                    data = await reader.read(_READ_SIZE)
                if deadline is None:
                    deadline = loop.time() + self.header_timeout
                conn.receive_data(data)
                continue
            if isinstance(event, h11.Request):
                return event
            return None  # ConnectionClosed (or PAUSED, which a server in this state never sees)

    async def _read_body(self, conn: h11.Connection, reader: asyncio.StreamReader) -> bytes | None:
        """Return the request's body, or None when the client closed first.

        TimeoutError when it is not whole within the body timeout.
        """
        body = bytearray()
        async with asyncio.timeout(self.body_timeout):
            while True:
                event = conn.next_event()
                if event is h11.NEED_DATA:
                    conn.receive_data(await reader.read(_READ_SIZE))
                    continue
                if isinstance(event, h11.Data):
                    body += event.data
                    if len(body) > MAX_BODY_BYTES:
                        raise h11.RemoteProtocolError("request body too large", 413)
                elif isinstance(event, h11.EndOfMessage):
                    return bytes(body)
                else:
                    return None

    async def _send_bad_request(
        self, conn: h11.Connection, writer: asyncio.StreamWriter, exc: h11.RemoteProtocolError
    ) -> None:
        """Answer a request h11 could not parse with an error, when an answer is still due."""
        if conn.our_state not in (h11.IDLE, h11.SEND_RESPONSE):
            return
        status = exc.error_status_hint if 400 <= exc.error_status_hint < 500 else 400
        message = {
            413: "request body too large",
            431: f"request headers larger than {host_limits.SERVE_MAX_HEADER_BYTES} bytes",
        }.get(status, "malformed HTTP request")
        log.info("answered %d to a request that could not be read: %s", status, message)
        with contextlib.suppress(h11.LocalProtocolError, ConnectionError, OSError):
            await self._send_json(conn, writer, status, error_object(status, message), close=True)

    # Routing --------------------------------------------------------------------------------

    async def _dispatch(
        self,
        conn: h11.Connection,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        head: h11.Request,
        body: bytes,
    ) -> None:
        """Answer one request."""
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in head.headers}
        target = head.target.decode("latin-1")
        path = target.split("?", 1)[0].rstrip("/") or "/"
        method = head.method.decode("latin-1").upper()
        try:
            if path in ("/v1/models", "/models"):
                if method != "GET":
                    raise ApiError(405, f"{method} is not allowed on {path}")
                await self._send_json(conn, writer, 200, await self._models())
                return
            if path.startswith(("/v1/models/", "/models/")):
                if method != "GET":
                    raise ApiError(405, f"{method} is not allowed on {path}")
                await self._send_json(conn, writer, 200, await self._model(path))
                return
            parse = self._parsers().get(path)
            if parse is not None:
                if method != "POST":
                    raise ApiError(405, f"{method} is not allowed on {path}")
                await self._answer(conn, reader, writer, await parse(body, headers))
                return
            if path in ("/v1/messages/count_tokens", "/messages/count_tokens"):
                if method != "POST":
                    raise ApiError(405, f"{method} is not allowed on {path}")
                await self._send_json(conn, writer, 200, anthropic_api.count_tokens(body))
                return
            raise ApiError(404, f"no such route: {method} {path}", code="not_found")
        except ApiError as exc:
            await self._send_json(conn, writer, exc.status, _error_body(path, exc))
        except (_Gone, ConnectionError, OSError, h11.ProtocolError):
            raise
        except Exception as exc:
            if conn.our_state is not h11.SEND_RESPONSE:
                raise  # the answer already began: only closing the connection is left
            error = _unexpected(exc)
            await self._send_json(conn, writer, error.status, _error_body(path, error))

    async def _models(self) -> dict[str, Any]:
        """Return the models answer: the account's roster, else the bundled rows."""
        try:
            cell = self.host.cell_for(PROVIDER)
            roster = await cell.list_models()
        except HostError as exc:
            raise ApiError(exc.status, exc.detail) from None
        except contract.CursorError as exc:
            raise error_for(exc) from None
        if not roster.live:
            log.info("serving the bundled model rows: %s", roster.reason)
        self._listed = [m.id for m in roster.models]
        return models_object(
            (m.id, m.name, m.context_window, _catalog_extra(m)) for m in roster.models
        )

    async def _model(self, path: str) -> dict[str, Any]:
        """Return one listed model's object (``GET /v1/models/{id}``); 404 when it is not listed."""
        wanted = path.split("/models/", 1)[1].removeprefix(MODEL_PREFIX)
        for row in (await self._models())["data"]:
            if row["id"] == wanted:
                return dict(row)
        raise ApiError(
            404, f"the model {MODEL_PREFIX}{wanted} is not listed", code="model_not_found"
        )

    async def _listed_ids(self) -> list[str]:
        """Return the ids ``GET /v1/models`` lists (read once, then kept)."""
        if self._listed is None:
            with contextlib.suppress(ApiError):
                await self._models()
        return list(self._listed or [])

    async def _error_for(self, exc: contract.CursorError) -> ApiError:
        """Return the API error of EXC; an unknown model's hint names only listed models."""
        if isinstance(exc, contract.UnknownModel):
            return error_for(exc, listed=set(await self._listed_ids()))
        return error_for(exc)

    def _parsers(
        self,
    ) -> dict[str, Callable[[bytes, Mapping[str, str]], Awaitable[tuple[RoundRequest, Reply]]]]:
        """Return the round routes: each path's reader of a body into a request and its reply."""
        return {
            "/v1/chat/completions": self._chat_request,
            "/chat/completions": self._chat_request,
            "/v1/responses": self._responses_request,
            "/responses": self._responses_request,
            "/v1/messages": self._messages_request,
            "/messages": self._messages_request,
        }

    async def _chat_request(
        self, body: bytes, headers: Mapping[str, str]
    ) -> tuple[RoundRequest, Reply]:
        """Return a chat-completions request and its reply."""
        chat = parse_chat_request(body, session_header=headers.get("x-session-id"))
        return chat, ChatReply(chat)

    async def _responses_request(
        self, body: bytes, headers: Mapping[str, str]
    ) -> tuple[RoundRequest, Reply]:
        """Return a Responses API request and its reply."""
        asked = responses_api.parse_responses_request(
            body, self.responses, session_header=headers.get("x-session-id")
        )
        return asked.round, responses_api.ResponsesReply(asked, self.responses)

    async def _messages_request(
        self, body: bytes, headers: Mapping[str, str]
    ) -> tuple[RoundRequest, Reply]:
        """Return an Anthropic Messages request (its model name mapped) and its reply."""
        # Claude Code names its session in a header of its own.
        session = headers.get("x-session-id") or headers.get("x-claude-code-session-id")
        request = anthropic_api.parse_messages_request(body, session_header=session)
        listed = await self._listed_ids()
        chosen = anthropic_api.cursor_model(request.model, listed, self._model_aliases())
        if chosen != request.model:
            log.debug("model %s served by %s", request.model, chosen)
            request.model = chosen
        return request, anthropic_api.MessagesReply(request)

    def _model_aliases(self) -> Mapping[str, str]:
        """Return the configured model names (``serve.model_aliases``), client name to Cursor id."""
        config = getattr(self.host, "config", None)
        section = config("serve") if callable(config) else {}
        aliases = section.get("model_aliases") if isinstance(section, Mapping) else None
        if not isinstance(aliases, Mapping):
            return {}
        return {str(k): str(v) for k, v in aliases.items() if isinstance(v, str)}

    # Rounds ---------------------------------------------------------------------------------

    def _lane(self) -> Lane:
        """Return the cursor lane; ApiError when the host has none."""
        try:
            return self.host.lane(PROVIDER)
        except HostError as exc:
            raise ApiError(exc.status, exc.detail) from None
        except contract.CursorError as exc:
            raise error_for(exc) from None

    async def _watch(self, conn: h11.Connection, reader: asyncio.StreamReader) -> None:
        """Return when the client closes its side, or sends more than a small pipelined
        request's worth while its round runs (that closes the connection and cancels the
        round: what it sends waits in h11, which would hold it all)."""
        waiting = 0
        while True:
            data = await reader.read(_READ_SIZE)
            if not data:
                return
            waiting += len(data)
            if waiting > host_limits.SERVE_MAX_PENDING_BYTES:
                log.info(
                    "closing a connection that sent more than %d bytes while its round ran",
                    host_limits.SERVE_MAX_PENDING_BYTES,
                )
                return
            conn.receive_data(data)

    async def _answer(
        self,
        conn: h11.Connection,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        asked: tuple[RoundRequest, Reply],
    ) -> None:
        """Answer one round's request, streamed or whole, as its API's REPLY says."""
        request, reply = asked
        self._served.setdefault(id(conn), {})["model"] = request.requested_model
        self._refuse_agent_lane(request.model)
        log.debug(
            "round request: model %s, %d messages, %d tools, stream %s, session %s",
            _loggable(request.requested_model),
            len(request.messages),
            len(request.tools),
            request.stream,
            _loggable(request.session_id or "-"),
        )
        self._fit_effort(request)
        if request.stream:
            await self._stream(conn, reader, writer, request, reply)
        else:
            await self._complete(conn, reader, writer, request, reply)

    def _refuse_agent_lane(self, model: str) -> None:
        """Return when a round on MODEL may run; ApiError when it would take the agent lane.

        The ``cursor-agent`` lane runs ``cursor-agent --force --trust``, its shell and
        file tools approved for whatever the model asks: served to any client, that is a
        command runner. Only ``serve --allow-agent-lane`` (which needs a client key) lets
        it through.
        """
        if self.allow_agent_lane:
            return
        name = model.strip().lower()
        while name.startswith(MODEL_PREFIX):
            name = name.removeprefix(MODEL_PREFIX)
        config = getattr(self.host, "config", None)
        section = config(PROVIDER) if callable(config) else {}
        lane = section.get("lane") if isinstance(section, Mapping) else None
        by_setting = isinstance(lane, str) and lane.strip().lower() == AGENT_LANE
        if name.startswith(f"{AGENT_LANE}/") or by_setting:
            raise ApiError(
                403,
                "this server does not run the cursor-agent lane (Cursor's CLI with its shell "
                "and file tools approved); the person can start it with serve "
                "--allow-agent-lane, which needs a client key",
                code="agent_lane_not_allowed",
            )

    async def _settle(
        self, request: RoundRequest, on_part: Callable[[StreamPart], None] | None = None
    ) -> RoundResult:
        """Return the round's result, checked against the request's demands.

        A request that demands a tool call or JSON output is run whole (its parts
        held back), checked, and run once more with a firmer instruction when the
        answer did not keep the demand; its parts are then replayed to ON_PART.
        A second miss is a 422 the client can read.
        """
        lane = self._lane()
        if not request.demanding:
            return await lane(request.context(on_part))
        result = await lane(request.context())
        problem = answer_problem(result, request)
        if problem is not None:
            log.info("retrying a round that missed its demand: %s", problem)
            result = await lane(request.context(firmer=True))
            problem = answer_problem(result, request)
            if problem is not None:
                raise ApiError(422, f"{problem} (after one retry)", code="demand_not_met")
        result = settled(result, request)
        if on_part is not None:
            for part in replay_parts(result):
                on_part(part)
        return result

    def _fit_effort(self, request: RoundRequest) -> None:
        """Drop or move an effort the model cannot take, for clients that send one for all."""
        if not request.lenient_effort or request.effort is None:
            return
        try:
            self.host.cell_for(PROVIDER).route(request.model, request.effort)
        except contract.BadEffort as exc:
            fitted = nearest_effort(request.effort, exc.allowed)
            log.debug("effort %s fitted to %s for %s", request.effort, fitted, request.model)
            request.effort = fitted
        except (contract.CursorError, HostError):
            return  # an unknown model: the round says so in its own words

    async def _complete(
        self,
        conn: h11.Connection,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        request: RoundRequest,
        reply: Reply,
    ) -> None:
        """Answer a non-streamed request with its API's whole answer (or the round's error)."""
        self._lane()  # no lane: refused before the round is counted
        round_task = asyncio.create_task(self._settle(request))
        watch = asyncio.create_task(self._watch(conn, reader))
        self.rounds_in_flight += 1
        try:
            await asyncio.wait({round_task, watch}, return_when=asyncio.FIRST_COMPLETED)
            if not round_task.done():
                log.info("the client went away; the round is cancelled")
                raise _Gone
            try:
                result = round_task.result()
            except ApiError:
                raise
            except contract.CursorError as exc:
                raise await self._error_for(exc) from None
            except Exception as exc:
                raise _unexpected(exc) from None
        finally:
            self.rounds_in_flight -= 1
            await _cancel(round_task, watch)
        await self._send_json(conn, writer, 200, reply.answer(result))

    async def _stream(
        self,
        conn: h11.Connection,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        request: RoundRequest,
        reply: Reply,
    ) -> None:
        """Answer a streamed request with its API's SSE events as the round's parts arrive."""
        self._lane()
        queue: asyncio.Queue[object] = asyncio.Queue()

        def on_part(part: StreamPart) -> None:
            for event in reply.events(part):
                queue.put_nowait(event)

        async def play() -> None:
            try:
                result = await self._settle(request, on_part)
                ending = reply.closing(result)
            except ApiError as exc:
                queue.put_nowait(exc)
                return
            except contract.CursorError as exc:
                queue.put_nowait(await self._error_for(exc))
                return
            except Exception as exc:
                queue.put_nowait(_unexpected(exc))
                return
            for event in ending:
                queue.put_nowait(event)
            queue.put_nowait(_END)

        round_task = asyncio.create_task(play())
        watch = asyncio.create_task(self._watch(conn, reader))
        self.rounds_in_flight += 1
        started = False
        try:
            while True:
                item = await _next(queue, watch, round_task)
                if isinstance(item, ApiError):
                    if not started:
                        await self._send_json(conn, writer, item.status, reply.error_body(item))
                        return
                    # Headers are gone: say it in the stream, and end without a normal close.
                    self._served.setdefault(id(conn), {})["reason"] = (
                        f"failed mid-stream: {item.status} {_reason(item.body())}"
                    )
                    await self._send(conn, writer, h11.Data(data=reply.failed(item)))
                    await self._send(conn, writer, h11.EndOfMessage())
                    return
                if not started:
                    started = True
                    await self._send(conn, writer, _sse_head())
                if item is _END:
                    await self._send(conn, writer, h11.EndOfMessage())
                    return
                assert isinstance(item, bytes)
                await self._send(conn, writer, h11.Data(data=item))
        finally:
            self.rounds_in_flight -= 1
            await _cancel(round_task, watch)

    # Writing --------------------------------------------------------------------------------

    async def _send(self, conn: h11.Connection, writer: asyncio.StreamWriter, event: Any) -> None:
        """Send one h11 event and wait until the socket takes it."""
        if isinstance(event, h11.Response):
            served = self._served.setdefault(id(conn), {})
            served["status"] = event.status_code
            cors = self.gate.cors_headers(served.get("origin"))
            if cors and event.status_code != 204:
                event = h11.Response(status_code=event.status_code, headers=[*event.headers, *cors])
        data = conn.send(event)
        if data:
            writer.write(data)
            await writer.drain()

    async def _send_json(
        self,
        conn: h11.Connection,
        writer: asyncio.StreamWriter,
        status: int,
        obj: Mapping[str, Any],
        *,
        close: bool = False,
    ) -> None:
        """Send a whole JSON answer."""
        body = json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        headers = [
            ("content-type", "application/json"),
            ("content-length", str(len(body))),
        ]
        if close:
            headers.append(("connection", "close"))
        if status >= 400:
            self._served.setdefault(id(conn), {})["reason"] = _reason(obj)
        await self._send(conn, writer, h11.Response(status_code=status, headers=headers))
        # An answer to HEAD has the headers alone (h11 refuses a body there, and the
        # connection would be lost: Claude Code's first request is HEAD /).
        if self._served.get(id(conn), {}).get("method") != "HEAD":
            await self._send(conn, writer, h11.Data(data=body))
        await self._send(conn, writer, h11.EndOfMessage())

    # Life cycle -----------------------------------------------------------------------------

    async def start(self, listen_host: str, port: int) -> None:
        """Start listening on LISTEN_HOST:PORT (port 0 picks a free one)."""
        loop = asyncio.get_running_loop()
        self._previous_handler = loop.get_exception_handler()
        loop.set_exception_handler(self._loop_exception)
        self._server = await asyncio.start_server(self._guarded, listen_host, port)
        sockname = self._server.sockets[0].getsockname()
        self.listen_host, self.port = str(sockname[0]), int(sockname[1])

    async def _guarded(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """Serve a connection; an unexpected failure is logged (no traceback to the client).

        The work runs in a task of its own, which ``close`` cancels: Python 3.11's
        streams log an error when the task they started is itself cancelled.
        """
        task = asyncio.create_task(self.connection(reader, writer))
        self._tasks.add(task)
        try:
            await asyncio.wait({task})
        finally:
            self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            error = task.exception()
            log.error(
                "the OpenAI-compatible server failed a connection",
                exc_info=(type(error), error, error.__traceback__) if error else None,
            )

    def _loop_exception(self, loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        """Log an accept() that failed for want of resources in one line; pass on the rest.

        asyncio pauses accepting and retries on its own; its default handler would
        print a traceback for every failed accept.
        """
        error = context.get("exception")
        if isinstance(error, OSError) and error.errno in _ACCEPT_ERRNOS:
            now = time.monotonic()
            if now - self._accept_warned > 10:
                self._accept_warned = now
                log.warning(
                    "cannot accept connections for now: %s; retrying", error.strerror or error
                )
            return
        if self._previous_handler is not None:
            self._previous_handler(loop, context)
        else:
            loop.default_exception_handler(context)

    async def close(self) -> None:
        """Stop listening and close every connection."""
        if self._server is not None:
            self._server.close()
            # Python 3.11's Server does not track its connections: cancel ours (each
            # cancels its round and closes its socket on the way out).
            await _cancel(*self._tasks)
            await self._server.wait_closed()
            self._server = None
            asyncio.get_running_loop().set_exception_handler(self._previous_handler)


def _sse_head() -> h11.Response:
    """Return the response head of an SSE stream (chunked: h11 adds the encoding)."""
    return h11.Response(
        status_code=200,
        headers=[
            ("content-type", "text/event-stream; charset=utf-8"),
            ("cache-control", "no-cache"),
            ("x-accel-buffering", "no"),
        ],
    )


async def _next(
    queue: asyncio.Queue[object], watch: asyncio.Task[None], round_task: asyncio.Task[None]
) -> object:
    """Return the queue's next item; raise _Gone when the client closes first.

    The round's task is watched too: should it ever end without queueing its
    end or its error, the stream ends with an internal error instead of waiting
    for an item that will never come.
    """
    if not queue.empty():
        return queue.get_nowait()
    getter = asyncio.create_task(queue.get())
    try:
        await asyncio.wait({getter, watch, round_task}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        if not getter.done():
            getter.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await getter
    if getter.done() and not getter.cancelled():
        return getter.result()
    if not queue.empty():
        return queue.get_nowait()  # the round queued its last items and ended at once
    if watch.done():
        log.info("the client went away mid-stream; the round is cancelled")
        raise _Gone
    if round_task.cancelled():
        return _unexpected(asyncio.CancelledError())
    return _unexpected(round_task.exception() or RuntimeError("the round ended without an answer"))


def _catalog_extra(model: Any) -> dict[str, Any]:
    """Return what the account's catalog says of MODEL, for its model object (None: unknown)."""
    parameters = getattr(model, "parameters", ())
    return {
        "max_context_window": getattr(model, "max_context_window", None),
        "supports_images": getattr(model, "images", None),
        "supports_thinking": getattr(model, "thinking", None),
        "parameters": {key: list(values) for key, values in parameters} or None,
    }


def _error_body(path: str, error: ApiError) -> dict[str, Any]:
    """Return ERROR in the shape of the API PATH belongs to (Anthropic's for /v1/messages)."""
    if path.startswith(("/v1/messages", "/messages")):
        return anthropic_api.error_body(error)
    return error.body()


def _unexpected(exc: BaseException) -> ApiError:
    """Return the 500 for a failure nobody raised on purpose; its traceback goes to DEBUG only."""
    log.debug(
        "a round failed unexpectedly: %s",
        type(exc).__name__,
        exc_info=(type(exc), exc, exc.__traceback__),
    )
    return internal_error(exc)


async def _cancel(*tasks: asyncio.Task[Any]) -> None:
    """Cancel TASKS and wait for them to end (their errors are theirs, already reported)."""
    for task in tasks:
        task.cancel()
    for task in tasks:
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await task


async def serve(
    host_obj: ServedHost,
    *,
    listen_host: str = DEFAULT_LISTEN_HOST,
    port: int = DEFAULT_PORT,
    api_key: str | None = None,
    allowed_origins: tuple[str, ...] = (),
    allow_agent_lane: bool = False,
    ready: Callable[[ApiServer], None] | None = None,
) -> None:
    """Serve the OpenAI-compatible API from HOST_OBJ's cursor lane until cancelled.

    ``ready`` is called with the listening ApiServer (its ``port`` is the real
    one when PORT is 0). Cancelling the task closes every connection and
    cancels every round in flight.
    """
    server = ApiServer(
        host_obj,
        api_key=api_key,
        allowed_origins=allowed_origins,
        allow_agent_lane=allow_agent_lane,
    )
    await server.start(listen_host, port)
    try:
        if ready is not None:
            ready(server)
        await asyncio.Event().wait()  # until cancelled
    finally:
        await server.close()


def authority(listen_host: str, port: int) -> str:
    """Return ``host:port`` as a URL writes it: an IPv6 address goes in brackets."""
    if ":" in listen_host and not listen_host.startswith("["):
        listen_host = f"[{listen_host}]"  # RFC 3986: http://[::1]:8765, never http://::1:8765
    return f"{listen_host}:{port}"


def loopback(listen_host: str) -> bool:
    """Return whether LISTEN_HOST is a loopback address (or ``localhost``)."""
    if listen_host.strip().lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(listen_host.strip("[]")).is_loopback
    except ValueError:
        return False


async def _turn_away(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """Answer a connection past the cap with a readable 503 and close it without a reset."""
    body = json.dumps(
        error_object(503, "the server is at its connection limit; try again shortly")
    ).encode()
    head = (
        "HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\n"
        f"content-length: {len(body)}\r\nretry-after: 1\r\nconnection: close\r\n\r\n"
    ).encode()
    log.info("answered 503 to a connection past the cap of connections")
    try:
        with contextlib.suppress(ConnectionError, OSError, TimeoutError):
            writer.write(head + body)
            async with asyncio.timeout(5):
                await writer.drain()
            # A lingering close: closing with the request unread would make the kernel
            # answer with a reset, which can destroy the 503 before the client reads it.
            # So the side we send on is shut, and what the client still sends is read
            # and dropped (bounded in bytes and time) until it closes its own.
            if writer.can_write_eof():
                writer.write_eof()
            left = host_limits.SERVE_LINGER_BYTES
            async with asyncio.timeout(host_limits.SERVE_LINGER_SECONDS):
                while left > 0 and (chunk := await reader.read(_READ_SIZE)):
                    left -= len(chunk)
    finally:
        writer.close()  # cancelled too (the server closing): the socket goes
    with contextlib.suppress(ConnectionError, OSError):
        await writer.wait_closed()


def _reason(obj: Mapping[str, Any]) -> str:
    """Return the message of an error body (OpenAI's or Anthropic's shape), or ''."""
    error = obj.get("error")
    message = error.get("message") if isinstance(error, Mapping) else None
    return message if isinstance(message, str) else ""


def _loggable(text: str) -> str:
    """Return TEXT a client sent, escaped for a log line (the cell's rule, shared)."""
    return contract.loggable(text)
