"""One request as a route sees it, and how it is answered: ``Exchange``.

An ``Exchange`` is one request on one connection once ``serve``'s server has let
it in: its method, path, headers and body, and the calls that answer it over
h11 (a whole JSON answer, a CORS preflight, or an SSE stream's head, its events
and its end), with ``closed`` for a route that must notice the client going away
(it bounds what the client sends meanwhile) and ``hold`` for the round it runs.
It keeps what the request's log line says (status, model, account, why an
error was answered). Accepting connections, reading heads and bodies, the gate,
the deadlines and caps, and closing are ``http_server.py``'s; what each path
answers is ``routes.py``'s.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Mapping
from typing import Any, Protocol

import h11

from . import limits as host_limits
from .serve_gate import Gate

__all__ = ["READ_SIZE", "AnswerFailed", "ClientGone", "Exchange", "Server", "error_message"]

log = logging.getLogger(__name__)

# How much one read of a connection takes.
READ_SIZE = 65536
# What an Exchange sends through h11.
_Event = h11.Response | h11.Data | h11.EndOfMessage


class ClientGone(Exception):
    """The client closed its connection (a route raises it to end the exchange quietly)."""


class AnswerFailed(ConnectionError):
    """An answer the connection can no longer carry (h11 refused the event): it is closed."""


class Server(Protocol):
    """What an exchange asks of the server it came through (``http_server.HttpServer``)."""

    @property
    def gate(self) -> Gate:
        """Return the checks every request passes (its CORS headers go on each answer)."""
        ...

    def hold(self, task: asyncio.Task[Any]) -> None:
        """Count TASK among what the server's ``close`` ends."""
        ...


class Exchange:
    """One request on one connection as a route sees it: its head, its body, how to answer.

    It also keeps what the request's log line says: the status answered, the
    model asked for and, for an error, why.
    """

    def __init__(
        self,
        server: Server,
        conn: h11.Connection,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        head: h11.Request | None,
    ) -> None:
        self._server = server
        self._conn = conn
        self._reader = reader
        self._writer = writer
        # As sent, for the log line; upper-cased, for the routes. No head: h11 could not read it.
        self.method_sent = head.method.decode("latin-1") if head is not None else ""
        self.method = self.method_sent.upper()
        self.target = head.target.decode("latin-1") if head is not None else ""
        pairs = head.headers if head is not None else []
        self.headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in pairs}
        self.body = b""
        self.status: int | None = None  # None: the client left before the answer
        self.model: str | None = None
        self.reason: str | None = None
        # The kept Cursor account the round ran on and any move before output, for the log.
        self.account: str | None = None

    @property
    def path(self) -> str:
        """Return the request's path, without its query."""
        return self.target.split("?", 1)[0]

    def hold(self, task: asyncio.Task[Any]) -> None:
        """Count TASK (a round this request runs) among what the server's ``close`` ends."""
        self._server.hold(task)

    @property
    def unanswered(self) -> bool:
        """Return whether no answer has begun (an error can still be sent whole)."""
        return self._conn.our_state is h11.SEND_RESPONSE

    async def send_json(self, status: int, obj: Mapping[str, Any], *, close: bool = False) -> None:
        """Send a whole JSON answer (headers alone to a HEAD request)."""
        body = json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        headers = [
            ("content-type", "application/json"),
            ("content-length", str(len(body))),
        ]
        if close:
            headers.append(("connection", "close"))
        if status >= 400:
            self.reason = error_message(obj)
        # An answer to HEAD has the headers alone (h11 refuses a body there, and the
        # connection would be lost: Claude Code's first request is HEAD /).
        events: list[_Event] = [h11.Response(status_code=status, headers=headers)]
        if self.method != "HEAD":
            events.append(h11.Data(data=body))
        await self._send(*events, h11.EndOfMessage())

    async def send_preflight(self, headers: list[tuple[str, str]]) -> None:
        """Answer a CORS preflight: 204 with HEADERS, and the connection closed."""
        await self._send(
            h11.Response(
                status_code=204,
                headers=[*headers, ("content-length", "0"), ("connection", "close")],
            )
        )
        await self.end()

    async def start_stream(self, first: bytes = b"", *, end: bool = False) -> None:
        """Send the head of an SSE stream (chunked: h11 adds the encoding), with FIRST,
        the start of its body, in the same write (and its end, with END)."""
        head = h11.Response(
            status_code=200,
            headers=[
                ("content-type", "text/event-stream; charset=utf-8"),
                ("cache-control", "no-cache"),
                ("x-accel-buffering", "no"),
            ],
        )
        await self._send(head, *self._body(first, end=end))

    async def send(self, data: bytes, *, end: bool = False) -> None:
        """Send DATA as part of the answer's body (and, with END, the body's end with it)."""
        await self._send(*self._body(data, end=end))

    @staticmethod
    def _body(data: bytes, *, end: bool) -> list[_Event]:
        """Return the h11 events that send DATA (none when empty), then the end with END."""
        events: list[_Event] = [h11.Data(data=data)] if data else []
        if end:
            events.append(h11.EndOfMessage())
        return events

    async def end(self) -> None:
        """End the answer's body."""
        await self._send(h11.EndOfMessage())

    async def closed(self) -> None:
        """Return when the client closes its side, or sends more than a small pipelined
        request's worth while its round runs (that closes the connection and cancels the
        round: what it sends waits in h11, which would hold it all)."""
        waiting = 0
        while True:
            data = await self._reader.read(READ_SIZE)
            if not data:
                return
            waiting += len(data)
            if waiting > host_limits.SERVE_MAX_PENDING_BYTES:
                log.info(
                    "closing a connection that sent more than %d bytes while its round ran",
                    host_limits.SERVE_MAX_PENDING_BYTES,
                )
                return
            self._conn.receive_data(data)

    async def _send(self, *events: _Event) -> None:
        """Send h11 EVENTS in one write and wait until the socket takes them; AnswerFailed
        if h11 refuses one (what came before it is still sent)."""
        out: list[bytes] = []
        try:
            for event in events:
                if isinstance(event, h11.Response):
                    self.status = event.status_code
                    cors = self._server.gate.cors_headers(self.headers.get("origin"))
                    if cors and event.status_code != 204:
                        headers = [*event.headers, *cors]
                        event = h11.Response(status_code=event.status_code, headers=headers)
                try:
                    data = self._conn.send(event)
                except h11.LocalProtocolError as exc:
                    raise AnswerFailed(str(exc)) from exc
                if data:
                    out.append(data)
        finally:
            if out:
                self._writer.write(b"".join(out))
        if out:
            await self._writer.drain()


def error_message(obj: Mapping[str, Any]) -> str:
    """Return the message of an error body (OpenAI's or Anthropic's shape), or ''."""
    error = obj.get("error")
    message = error.get("message") if isinstance(error, Mapping) else None
    return message if isinstance(message, str) else ""
