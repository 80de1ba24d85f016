"""What the simulated agent service saw of each run: ``RunRecord`` and ``AppendRecord``.

A ``RunRecord`` holds everything one run received and did — its headers, the
client's messages in seqno order, the blobs served, the answers to each ask,
the handoffs, the usage reported, and every protocol violation — so a test can
read it after the round. The routes (``agent.py``) and the player
(``player.py``) write it; this module only says what is kept.
"""

from __future__ import annotations

import base64
import json
import queue
import threading
from dataclasses import dataclass, field
from typing import Any

from nodecode_cursor._proto import agent_pb2

from .steps import RefuseAppends, TurnEnded

__all__ = ["AppendRecord", "RunRecord"]


@dataclass
class AppendRecord:
    """One accepted BidiAppend: its seqno, headers and decoded AgentClientMessage."""

    seqno: int
    headers: dict[str, str]
    message: agent_pb2.AgentClientMessage


@dataclass
class RunRecord:
    """Everything one run received and did; read it after the round (or under ``lock``)."""

    request_id: str
    headers: dict[str, str] = field(default_factory=dict)
    appends: list[AppendRecord] = field(default_factory=list)
    run_request: agent_pb2.AgentRunRequest | None = None
    rules: list[agent_pb2.CursorRule] = field(default_factory=list)
    tools: list[agent_pb2.McpToolDefinition] = field(default_factory=list)
    served: dict[str, bytes] = field(default_factory=dict)
    answers: dict[int, list[agent_pb2.AgentClientMessage]] = field(default_factory=dict)
    handoffs: list[str] = field(default_factory=list)
    # The name each ToolCall step called its tool by (rendered when render_tool_names is).
    called: list[str] = field(default_factory=list)
    # The answer to each AskQuery step, in order.
    query_answers: list[agent_pb2.InteractionResponse] = field(default_factory=list)
    # Each Native step's ask member and the result message it was answered with.
    native_results: list[tuple[str, Any]] = field(default_factory=list)
    usage: list[TurnEnded] = field(default_factory=list)
    heartbeats: int = 0
    after_end: int = 0
    violations: list[str] = field(default_factory=list)
    refusal: RefuseAppends | None = None
    streamed: bool = False
    ended: bool = False
    # "sse" or "poll": which route streams this run (None until one registers it).
    route: str | None = None
    # Appends the service lost because they came before RunSSE registered the run.
    lost_appends: int = 0
    # The simulator account (accounts.SimAccount) whose bearer opened the run; None: a
    # bearer no account claims (the single account).
    account: Any = None
    # The run's root prompt blobs as tokens (bytes / 4), when the window check measured them.
    root_tokens: int | None = None
    # The run x-original-request-id names (a resume of a broken run), the text the
    # checkpoint it resumes from had already said, and the text this run streamed.
    original: RunRecord | None = None
    resumed_text: str | None = None
    # The streamed text's pieces, joined on reading: a long answer appended to one
    # string would copy all of it per delta.
    text_parts: list[str] = field(default_factory=list, repr=False)
    inbox: queue.Queue[agent_pb2.AgentClientMessage] = field(default_factory=queue.Queue)
    lock: threading.Lock = field(default_factory=threading.Lock)
    next_id: int = 1
    # The service's misread_images_over when the run began: the scripted model says it
    # could not read an image past this many bytes (None: it reads any).
    misread_images_over: int | None = None

    def messages(self) -> list[agent_pb2.AgentClientMessage]:
        """Return the client messages received so far, in seqno order."""
        with self.lock:
            return [a.message for a in self.appends]

    def root_messages(self) -> list[dict[str, Any]]:
        """Return the root prompt messages the client served, parsed, in request order."""
        if self.run_request is None:
            return []
        found = []
        for blob_id in self.run_request.conversation_state.root_prompt_messages_json:
            data = self.served.get(blob_id.hex())
            if data is None:
                continue
            try:
                found.append(json.loads(data))
            except ValueError:
                continue
        return found

    def prompt(self) -> str:
        """Return the text of the run request's user message ('' for a resume)."""
        if self.run_request is None:
            return ""
        action = self.run_request.action
        if action.HasField("user_message_action"):
            return str(action.user_message_action.user_message.text)
        return ""

    def images(self) -> list[bytes]:
        """Return the images the run carries: the action's, then the root prompt's data URLs."""
        found: list[bytes] = []
        if self.run_request is not None:
            action = self.run_request.action
            if action.HasField("user_message_action"):
                context = action.user_message_action.user_message.selected_context
                found += [bytes(image.data) for image in context.selected_images]
        for message in self.root_messages():
            content = message.get("content") if isinstance(message, dict) else None
            for part in content if isinstance(content, list) else []:
                if not isinstance(part, dict) or part.get("type") != "image":
                    continue
                url = part.get("image")
                if isinstance(url, str) and "," in url:
                    try:
                        found.append(base64.b64decode(url.split(",", 1)[1]))
                    except ValueError:
                        continue
        return found

    @property
    def text(self) -> str:
        """Return the text this run streamed."""
        return "".join(self.text_parts)
