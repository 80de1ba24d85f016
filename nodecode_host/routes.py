"""``serve``'s routes: what each path answers, and each round's request run and answered.

The paths are ``GET /v1/models`` (and ``/v1/models/{id}``), ``POST
/v1/chat/completions`` (OpenAI's Chat Completions), ``POST /v1/responses``
(OpenAI's Responses), ``POST /v1/messages`` and ``/v1/messages/count_tokens``
(Anthropic's Messages), each also without ``/v1``. A round's request is read by
its API's module into a ``RoundRequest`` and a ``Reply`` (``openai_api.py``,
``responses_api.py`` with ``responses_reply.py``, ``anthropic_api.py``); here it is checked (the
``cursor-agent`` lane only by opt-in, an effort the model cannot take fitted),
run as one round through the host's ``cursor`` lane (a demand Cursor has no field
for checked and retried once, ``api_round.py``), and answered whole or streamed
as Server-Sent Events while its parts arrive. A client that goes away mid-round
cancels its round. An error is answered in its API's own shape.

``ApiServer`` is the HTTP server (``http_server.py``: connections, the gate, the
deadlines and caps; ``http_exchange.py``: answering one request) answering with
these routes, and ``serve`` runs one until cancelled. The Cursor token is the
cell's own business (its credential ladder): this server never sees one unless
the cell raises an error, and errors never carry tokens. The host (cell loading,
config) is ``refhost.py``'s; the ``serve`` command that starts this server from a
shell is ``cli_serve.py``'s.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any, Protocol

from . import anthropic_api, contract, responses_api, responses_reply, responses_store
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
from .http_exchange import ClientGone, Exchange, error_message
from .http_server import DEFAULT_LISTEN_HOST, DEFAULT_PORT, HttpServer, cancel, loggable
from .names import API_KEY_ENV
from .offered_tools import OfferedOnly
from .openai_api import (
    ChatReply,
    internal_error,
    models_object,
    parse_chat_request,
)
from .working_folder import client_folder

if TYPE_CHECKING:
    from nodecode_cursor.host import Cell, RoundContext, RoundResult, StreamPart

__all__ = [
    "API_KEY_ENV",
    "ApiRoutes",
    "ApiServer",
    "ServedHost",
    "serve",
]

log = logging.getLogger(__name__)

PROVIDER = "cursor"
# The request header naming which of the person's kept Cursor accounts runs a round.
ACCOUNT_HEADER = "x-cursor-account"
# The lane that runs Cursor's own CLI (nodecode_cursor.cell.AGENT_LANE).
AGENT_LANE = "cursor-agent"

Lane = Callable[["RoundContext"], Awaitable["RoundResult"]]
Parse = Callable[[bytes, Mapping[str, str]], Awaitable[tuple[RoundRequest, Reply]]]


class ServedHost(Protocol):
    """What the server needs of a started host: the lane and the cell that gives it."""

    def lane(self, provider: str) -> Lane:
        """Return the provider's lane."""
        ...

    def cell_for(self, provider: str) -> Cell:
        """Return the cell that gives the provider's lane."""
        ...


# One streamed round's queue items: bytes to send, the round's end, or its failure.
_END = object()


class ApiRoutes:
    """The routes' state: the host they serve from, what was listed, what is in flight."""

    def __init__(self, host: ServedHost, *, allow_agent_lane: bool = False) -> None:
        self.host = host
        # The cursor-agent lane runs Cursor's CLI with its tools approved: opt-in only.
        self.allow_agent_lane = allow_agent_lane
        self.rounds_in_flight = 0
        # The ids GET /v1/models listed last (unknown-model hints name only these).
        self._listed: list[str] | None = None
        # Responses kept for previous_response_id (in memory, bounded).
        self.responses = responses_store.ResponseStore()

    # Routing --------------------------------------------------------------------------------

    async def answer(self, exchange: Exchange) -> None:
        """Answer one request (``http_server.Routes``)."""
        path = exchange.path.rstrip("/") or "/"
        method = exchange.method
        try:
            if path in ("/v1/models", "/models"):
                if method != "GET":
                    raise ApiError(405, f"{method} is not allowed on {path}")
                await exchange.send_json(200, await self._models())
                return
            if path.startswith(("/v1/models/", "/models/")):
                if method != "GET":
                    raise ApiError(405, f"{method} is not allowed on {path}")
                await exchange.send_json(200, await self._model(path))
                return
            parse = self._parsers().get(path)
            if parse is not None:
                if method != "POST":
                    raise ApiError(405, f"{method} is not allowed on {path}")
                await self._answer(exchange, await parse(exchange.body, exchange.headers))
                return
            if path in ("/v1/messages/count_tokens", "/messages/count_tokens"):
                if method != "POST":
                    raise ApiError(405, f"{method} is not allowed on {path}")
                await exchange.send_json(200, anthropic_api.count_tokens(exchange.body))
                return
            raise ApiError(404, f"no such route: {method} {path}", code="not_found")
        except ApiError as exc:
            await exchange.send_json(exc.status, _error_body(path, exc))
        except (ClientGone, ConnectionError, OSError):
            raise
        except Exception as exc:
            if not exchange.unanswered:
                raise  # the answer already began: only closing the connection is left
            error = _unexpected(exc)
            await exchange.send_json(error.status, _error_body(path, error))

    def refusal_body(self, path: str, status: int, message: str, code: str) -> dict[str, Any]:
        """Return the gate's refusal of a request to PATH in its API's error shape."""
        return _error_body(path, ApiError(status, message, code=code))

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

    def _parsers(self) -> dict[str, Parse]:
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
        return asked.round, responses_reply.ResponsesReply(asked, self.responses)

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

    async def _answer(self, exchange: Exchange, asked: tuple[RoundRequest, Reply]) -> None:
        """Answer one round's request, streamed or whole, as its API's REPLY says."""
        request, reply = asked
        exchange.model = request.requested_model
        # Bridged asks resolve in the client's folder, never serve's own by accident.
        request.working_folder = client_folder(exchange.headers, request.system, request.messages)
        # Only the person's own kept accounts can be named: an unknown one fails the round.
        request.account = (exchange.headers.get(ACCOUNT_HEADER) or "").strip() or None
        self._refuse_agent_lane(request.model)
        log.debug(
            "round request: model %s, %d messages, %d tools, stream %s, session %s",
            loggable(request.requested_model),
            len(request.messages),
            len(request.tools),
            request.stream,
            loggable(request.session_id or "-"),
        )
        self._fit_effort(request)
        if request.stream:
            await self._stream(exchange, request, reply)
        else:
            await self._complete(exchange, request, reply)

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
        # A call of a tool the request did not offer never reaches the client.
        if not request.demanding:
            guard = OfferedOnly(request)
            return _told(guard.settle(await lane(request.context(guard.wrap(on_part)))))
        result = _told(OfferedOnly(request).settle(await lane(request.context())))
        problem = answer_problem(result, request)
        if problem is not None:
            log.info("retrying a round that missed its demand: %s", problem)
            result = OfferedOnly(request).settle(await lane(request.context(firmer=True)))
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

    async def _complete(self, exchange: Exchange, request: RoundRequest, reply: Reply) -> None:
        """Answer a non-streamed request with its API's whole answer (or the round's error)."""
        self._lane()  # no lane: refused before the round is counted
        round_task = asyncio.create_task(self._settle(request))
        exchange.hold(round_task)
        watch = asyncio.create_task(exchange.closed())
        self.rounds_in_flight += 1
        try:
            await asyncio.wait({round_task, watch}, return_when=asyncio.FIRST_COMPLETED)
            if not round_task.done():
                log.info("the client went away; the round is cancelled")
                raise ClientGone
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
            await cancel(round_task, watch)
        _note_account(exchange, result)
        await exchange.send_json(200, reply.answer(result))

    async def _stream(self, exchange: Exchange, request: RoundRequest, reply: Reply) -> None:
        """Answer a streamed request with its API's SSE events as the round's parts arrive."""
        self._lane()
        queue: asyncio.Queue[object] = asyncio.Queue()

        def on_part(part: StreamPart) -> None:
            for event in reply.events(part):
                queue.put_nowait(event)

        async def play() -> None:
            try:
                result = await self._settle(request, on_part)
                _note_account(exchange, result)
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
        exchange.hold(round_task)
        watch = asyncio.create_task(exchange.closed())
        self.rounds_in_flight += 1
        started = False
        held: object = None  # an item taken while gathering a write, handled next
        try:
            while True:
                item = await _next(queue, watch, round_task) if held is None else held
                held = None
                if isinstance(item, ApiError):
                    if not started:
                        await exchange.send_json(item.status, reply.error_body(item))
                        return
                    # Headers are gone: say it in the stream, and end without a normal close.
                    said = error_message(item.body())
                    exchange.reason = f"failed mid-stream: {item.status} {said}"
                    await exchange.send(reply.failed(item))
                    await exchange.end()
                    return
                # The events the round queued meanwhile go in the same write (a burst of
                # rounds then costs a send per burst of events, not one per event).
                batch: list[bytes] = []
                end = item is _END
                if not end:
                    assert isinstance(item, bytes)
                    batch.append(item)
                    while not queue.empty():
                        more = queue.get_nowait()
                        if isinstance(more, bytes):
                            batch.append(more)
                            continue
                        end = more is _END
                        held = None if end else more
                        break
                data = b"".join(batch)
                if not started:
                    started = True
                    await exchange.start_stream(data, end=end)
                else:
                    await exchange.send(data, end=end)
                if end:
                    return
        finally:
            self.rounds_in_flight -= 1
            await cancel(round_task, watch)


class ApiServer(HttpServer):
    """``serve``'s server: the HTTP server answering with the API routes."""

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
        close_timeout: float = host_limits.SERVE_CLOSE_SECONDS,
        allow_agent_lane: bool = False,
    ) -> None:
        self.api = ApiRoutes(host, allow_agent_lane=allow_agent_lane)
        super().__init__(
            self.api,
            api_key=api_key,
            allowed_origins=allowed_origins,
            max_connections=max_connections,
            header_timeout=header_timeout,
            body_timeout=body_timeout,
            idle_timeout=idle_timeout,
            close_timeout=close_timeout,
        )

    @property
    def rounds_in_flight(self) -> int:
        """Return how many rounds the routes are running now."""
        return self.api.rounds_in_flight


async def _next(
    queue: asyncio.Queue[object], watch: asyncio.Task[None], round_task: asyncio.Task[None]
) -> object:
    """Return the queue's next item; raise ClientGone when the client closes first.

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
        raise ClientGone
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
    """Serve the three APIs from HOST_OBJ's cursor lane until cancelled.

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


def _note_account(exchange: Exchange, result: RoundResult) -> None:
    """Put the account RESULT ran on, and each move before output, in the request's log line."""
    account = getattr(result, "account", None)  # a cell from an older folder may not set it
    if account is None:
        return
    moves = [
        f"moved from {switch.from_account} ({switch.reason})"
        for switch in getattr(result, "failovers", None) or []
    ]
    exchange.account = account + (f", {'; '.join(moves)}" if moves else "")


def _told(result: RoundResult) -> RoundResult:
    """Return RESULT, after logging that its request folded history (when it did)."""
    folded = getattr(result, "folded", 0)  # a cell from an older folder may not set it
    if folded:
        log.info("the request folded %d earlier messages (%s)", folded, result.fold_reason)
    return result
