"""The host contract: what the cell needs from a Nodecode-style host, and what it gives back.

There is no Python Nodecode to import, so the seam is stated here as typed
protocols and dataclasses. A host implements ``Host``; per round it builds a
``RoundContext`` and awaits the lane, which returns a ``RoundResult`` and
streams ``StreamPart``s to ``on_part`` as they arrive. ``MemoryHost`` is a
minimal in-memory host for tests and scripts. This module holds no logic of the
protocol; it must stay small and stable.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Protocol, runtime_checkable

__all__ = [
    "Finish",
    "Host",
    "MemoryHost",
    "Notice",
    "NoticeLevel",
    "ReasoningDelta",
    "RoundContext",
    "RoundResult",
    "StreamPart",
    "StreamStart",
    "TextDelta",
    "ToolCallArgsDelta",
    "ToolCallStart",
    "Usage",
    "default_home",
]

NoticeLevel = Literal["info", "warning", "error"]
FinishReason = Literal["stop", "tool_calls"]


def default_home() -> Path:
    """Return the host's home: ``$NODECODE_HOME``, else ``~/.nodecode``."""
    env = os.environ.get("NODECODE_HOME")
    return Path(env).expanduser() if env else Path.home() / ".nodecode"


@dataclass(frozen=True, slots=True)
class Notice:
    """A standing notice a cell shows above the prompt until it clears its key."""

    key: str
    text: str
    level: NoticeLevel = "warning"


@runtime_checkable
class Host(Protocol):
    """What the cell needs from the host that loads it."""

    @property
    def home(self) -> Path:
        """The host's home folder (auth.json, config.json, cells/)."""
        ...

    def config(self, section: str) -> Mapping[str, Any]:
        """Return the config section ``section`` (empty when absent)."""
        ...

    def notice(self, text: str | None, *, key: str, level: NoticeLevel = "warning") -> None:
        """Show a standing notice under ``key``; ``None`` clears it."""
        ...

    def say(self, text: str) -> None:
        """Print one line into the host's chat (background work reports this way)."""
        ...


# Stream parts, in the order a round emits them. Not frozen: a long answer emits one per
# delta, and a frozen dataclass's constructor costs several times a plain one's.
@dataclass(slots=True)
class StreamStart:
    """The round's stream opened; ``model`` is the wire model it asked for."""

    model: str


@dataclass(slots=True)
class TextDelta:
    """More assistant text."""

    text: str


@dataclass(slots=True)
class ReasoningDelta:
    """More reasoning (thinking) text."""

    text: str


@dataclass(slots=True)
class ToolCallStart:
    """A tool call opened at ``index`` of the message's tool_calls."""

    index: int
    id: str
    name: str


@dataclass(slots=True)
class ToolCallArgsDelta:
    """More argument text of the tool call at ``index``."""

    index: int
    delta: str


@dataclass(slots=True)
class Finish:
    """The round finished with ``reason``."""

    reason: FinishReason


StreamPart = StreamStart | TextDelta | ReasoningDelta | ToolCallStart | ToolCallArgsDelta | Finish


@dataclass(slots=True)
class Usage:
    """Token counts of one round; ``input`` excludes cache reads and writes."""

    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_write: int = 0
    reasoning: int = 0
    context_tokens: int | None = None

    @property
    def total(self) -> int:
        """Return input + output + cache read + cache write."""
        return self.input + self.output + self.cache_read + self.cache_write

    def as_dict(self) -> dict[str, int | None]:
        """Return the counts as a plain JSON-ready dict."""
        return {
            "input": self.input,
            "output": self.output,
            "cache_read": self.cache_read,
            "cache_write": self.cache_write,
            "reasoning": self.reasoning,
            "total": self.total,
            "context_tokens": self.context_tokens,
        }


@dataclass(slots=True)
class RoundContext:
    """Everything one round needs from the host.

    ``messages`` are OpenAI-chat-shaped. The system/developer messages that open
    them (before any other role) are the system prompt when ``system`` is None
    (joined by blank lines) and are left out of the history either way, so
    ``system`` wins when given; a system/developer message later in the history
    rides as a user turn. ``tools`` are OpenAI function tools. ``credential`` is a
    bearer token the host resolved; leave it None to get the cell's own credential
    ladder, which renews a due sign-in before the round. A credential that is the
    kept sign-in's access token (what ``cell.credential("cursor")`` returns, which
    never renews) also goes through that ladder when ``host`` is set, so a due
    sign-in is renewed and the round sends the renewed token; any other credential
    is sent as it is. ``session_id`` keys the conversation; None makes the round
    ephemeral.
    """

    model: str
    messages: list[dict[str, Any]]
    effort: str | None = None
    system: str | None = None
    tools: list[dict[str, Any]] = field(default_factory=list)
    session_id: str | None = None
    cwd: str | None = None
    credential: str | None = None
    base_url: str | None = None
    request_timeout: float | None = None
    # Per-append deadline base (seconds; 1 s per 128 KiB is added); None: limits' default.
    append_timeout: float | None = None
    proxy: str | None = None
    client_version: str | None = None
    # Which route streams the run: "auto", "sse" or "poll"; None: the cell's setting.
    transport: str | None = None
    on_part: Callable[[StreamPart], None] | None = None
    host: Host | None = None


@dataclass(slots=True)
class RoundResult:
    """What one round returns: a plain chat-completions assistant message and its accounting.

    ``request`` is the run request's bytes as sent. ``wire_model`` is the slug the
    round was routed to (ModelDetails' model id, e.g. ``gpt-5.4-high`` for gpt-5.4 at
    high), even where RequestedModel carries the base id and an effort parameter.
    """

    message: dict[str, Any]
    usage: Usage
    finish_reason: FinishReason
    request: bytes = b""
    wire_model: str = ""


class MemoryHost:
    """A minimal host held in memory: a home folder, config sections, notices and said lines."""

    def __init__(self, home: Path | str, config: Mapping[str, Mapping[str, Any]] | None = None):
        self._home = Path(home)
        self._config = {k: dict(v) for k, v in (config or {}).items()}
        self.notices: dict[str, Notice] = {}
        self.said: list[str] = []

    @property
    def home(self) -> Path:
        """The host's home folder."""
        return self._home

    def config(self, section: str) -> Mapping[str, Any]:
        """Return the config section (empty when absent)."""
        return self._config.get(section, {})

    def notice(self, text: str | None, *, key: str, level: NoticeLevel = "warning") -> None:
        """Set or clear the standing notice under ``key``."""
        if text is None:
            self.notices.pop(key, None)
        else:
            self.notices[key] = Notice(key, text, level)

    def say(self, text: str) -> None:
        """Keep a line the cell said."""
        self.said.append(text)
