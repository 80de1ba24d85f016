"""One simulated run's stream as its player writes it: frames out, the client's answers awaited.

``RunStream`` is what a player stands on: it encodes the server's messages as
Connect frames (``_frame``, ``_update``, the end-of-stream ``_end``), paces them
(``frame_delay``, ``_sleep``), numbers the asks (``_next_id``), and waits for the
client's messages on the run's inbox (``_wait``, ``_exec_answer`` for an exec
ask's result or throw and close), giving up (``GiveUp``) when the client leaves,
the server stops or no answer comes within ``answer_timeout``. ``PlayerHost`` is
the agent service as a player sees it, so no player imports ``agent.py``, which
starts it.

What the frames say, step by step, is ``step_player.py``'s; which runs the
service refuses before any step is ``player.py``'s; how the frames reach the
client (SSE, poll frames, HTTP/2, gzip) is the routes'.
"""

from __future__ import annotations

import json
import queue
import threading
import time
from collections.abc import Callable
from typing import Any, Protocol

from nodecode_cursor._proto import agent_pb2
from nodecode_cursor.wire import connect

from .catalog import CatalogState
from .exchange import SimRequest
from .family import RouteHost
from .models import ModelsState
from .records import RunRecord

__all__ = ["GiveUp", "PlayerHost", "RunStream", "kv_answer"]


class PlayerHost(Protocol):
    """The agent service as a player sees it: its knobs, and what every run shares."""

    sim: RouteHost
    lock: threading.Lock
    by_id: dict[str, RunRecord]
    conversations: set[tuple[str, str]]
    checkpoints: dict[str, list[tuple[bytes, str]]]
    catalog: CatalogState | None
    roster: ModelsState | None
    blob_sizes: dict[bytes, int]
    context_windows: dict[str, int]
    answer_timeout: float
    frame_delay: float
    first_token_delay: float
    refuse_unknown_resume: bool
    refuse_bare_siblings: bool
    root_limit: int | None
    require_mcp_tools: bool
    render_tool_names: str | None
    external_continuation: str
    both_model_fields_refused: bool
    refuse_past_window: bool
    refuse_unlisted_models: bool
    pool_empty: bool


class GiveUp(Exception):
    """The client went away (or the server is stopping): stop playing."""


class RunStream:
    """One run's stream: frames written, asks numbered, the client's answers awaited."""

    def __init__(self, service: PlayerHost, run: RunRecord, request: SimRequest) -> None:
        self.service = service
        self.run = run
        self.request = request

    # --- waiting for the client ---------------------------------------------------

    def _alive(self) -> None:
        if self.service.sim.server.stopping or self.request.client_gone():
            raise GiveUp

    def _wait(
        self, wanted: Callable[[agent_pb2.AgentClientMessage], bool]
    ) -> agent_pb2.AgentClientMessage:
        """Return the next client message WANTED, skipping heartbeats; give up on silence."""
        deadline = time.monotonic() + self.service.answer_timeout
        while time.monotonic() < deadline:
            self._alive()
            try:
                message = self.run.inbox.get(timeout=self.request.poll_seconds)
            except queue.Empty:
                continue
            if message.HasField("client_heartbeat"):
                continue
            if wanted(message):
                return message
        self.run.violations.append("the client never answered")
        raise GiveUp

    def _next_id(self) -> int:
        with self.run.lock:
            value = self.run.next_id
            self.run.next_id += 1
            return value

    def _exec_answer(self, ask_id: int) -> list[agent_pb2.AgentClientMessage]:
        """Wait for the answer to exec ask ASK_ID: its result, or a throw and its close."""
        got: list[agent_pb2.AgentClientMessage] = []

        def ours(message: agent_pb2.AgentClientMessage) -> bool:
            if message.HasField("exec_client_message"):
                return int(message.exec_client_message.id) == ask_id
            if message.HasField("exec_client_control_message"):
                control = message.exec_client_control_message
                inner = control.stream_close if control.HasField("stream_close") else control.throw
                return int(inner.id) == ask_id
            return False

        while True:
            message = self._wait(ours)
            got.append(message)
            if message.HasField("exec_client_message"):
                break
            control = message.exec_client_control_message
            if control.HasField("stream_close"):
                break
        self.run.answers[ask_id] = got
        return got

    # --- frames -------------------------------------------------------------------

    def _frame(self, **member: Any) -> bytes:
        if self.service.frame_delay:
            self._sleep(self.service.frame_delay)
        message = agent_pb2.AgentServerMessage(**member)
        return connect.encode_frame(message.SerializeToString())

    def _update(self, **member: Any) -> bytes:
        return self._frame(interaction_update=agent_pb2.InteractionUpdate(**member))

    def _end(self, trailer: dict[str, Any]) -> bytes:
        with self.run.lock:
            self.run.ended = True
        payload = json.dumps(trailer, separators=(",", ":")).encode()
        return connect.encode_frame(payload, flags=connect.FLAG_END_STREAM)

    def _sleep(self, seconds: float) -> None:
        """Wait SECONDS, giving up as soon as the client leaves or the server stops."""
        deadline = time.monotonic() + seconds
        while True:
            self._alive()
            left = deadline - time.monotonic()
            if left <= 0:
                return
            # Woken when an HTTP/2 client leaves (its stream's end, or the connection's
            # when the server stops); over HTTP/1.1 a short sleep, then a look.
            if self.request.wait_gone(left):
                raise GiveUp


def kv_answer(ask: int) -> Callable[[agent_pb2.AgentClientMessage], bool]:
    """Return a test for the client's answer to kv ask ASK."""

    def wanted(message: agent_pb2.AgentClientMessage) -> bool:
        return message.HasField("kv_client_message") and int(message.kv_client_message.id) == ask

    return wanted
