"""The host contract: what the cell needs from a Nodecode-style host, and what it gives back.

There is no Python Nodecode to import, so the seam is stated here as typed
protocols and dataclasses. A host implements ``Host`` and uses a cell object
through ``Cell``; per round it builds a
``RoundContext`` and awaits the lane, which returns a ``RoundResult`` and
streams ``StreamPart``s to ``on_part`` as they arrive. ``MemoryHost`` is a
minimal in-memory host for tests and scripts. This module holds no logic of the
protocol; it must stay small and stable.
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Protocol, runtime_checkable

__all__ = [
    "AccountUsageView",
    "Cell",
    "DoctorCheck",
    "Finish",
    "Host",
    "MemoryHost",
    "Notice",
    "NoticeLevel",
    "ReasoningDelta",
    "ResolvedCallResult",
    "ResolvedCallStart",
    "RoundContext",
    "RoundResult",
    "Route",
    "SignInState",
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


@dataclass(slots=True)
class ResolvedCallStart:
    """A tool call the provider runs itself began (shown live; never for the host to run).

    ``arguments`` is JSON text. The round's ``RoundResult.resolved`` records the call
    with its result once it is done.
    """

    id: str
    name: str
    arguments: str


@dataclass(slots=True)
class ResolvedCallResult:
    """A tool call the provider ran itself ended; ``content`` is its result as text."""

    id: str
    name: str
    content: str
    is_error: bool = False


StreamPart = (
    StreamStart
    | TextDelta
    | ReasoningDelta
    | ToolCallStart
    | ToolCallArgsDelta
    | ResolvedCallStart
    | ResolvedCallResult
    | Finish
)


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

    A ``role: "tool"`` message may say its call failed with ``"is_error": true``
    (that exact boolean; any other value, or none, is a success): it replays to
    the model as a failed result rather than as the call's output. A host that
    never sets it sends every result as a success.
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

    ``resolved`` holds the tool calls the provider already ran during the round (the
    ``cursor-agent`` lane's own tools), in order, as OpenAI chat messages that come
    before ``message``: for each call an assistant message
    ``{"role": "assistant", "content": None, "tool_calls": [{"id", "type": "function",
    "function": {"name", "arguments"}, "resolved": True}], "resolved": True}`` and then
    its result ``{"role": "tool", "tool_call_id", "content", "resolved": True}``. A host
    never runs them; one that ignores the flag still holds a valid chat history.
    ``cost_usd_estimate`` is the usage priced at the model's published rates from the
    bundled rows, an estimate (Cursor bills by plan); None when no price is known.
    """

    message: dict[str, Any]
    usage: Usage
    finish_reason: FinishReason
    request: bytes = b""
    wire_model: str = ""
    resolved: list[dict[str, Any]] = field(default_factory=list)
    # USD at the bundled rows' published rates: an estimate (Cursor bills by plan and
    # credits); None when the model has no known price.
    cost_usd_estimate: float | None = None


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


# What a host reads of a loaded cell ------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SignInState:
    """How the Cursor sign-in stands, read from auth.json and the environment, never the network.

    ``source`` is what a round would send, in the credential ladder's order:
    ``"saved key"`` (a host's /connect), ``"sign-in"`` (the kept browser sign-in),
    ``"environment"`` (``env_name`` says which variable), or None: nothing.
    """

    signed_in: bool  # a kept browser sign-in is there
    source: str | None
    email: str | None = None
    expires_at: float | None = None  # the kept sign-in's access token, epoch seconds
    session_ended: bool = False  # Cursor ended the kept sign-in's session
    env_name: str | None = None
    in_progress: bool = False  # a browser sign-in is waiting for the person
    login_url: str | None = None  # the page the latest sign-in asked the person to open
    browser_opened: bool = False  # that page was handed to the person's browser


@dataclass(frozen=True, slots=True)
class Route:
    """Where a round on a model at an effort goes: what ``Cell.route`` answers."""

    model: str  # the model id, without the provider's prefix
    requested_effort: str | None  # the effort asked for, None for off
    effort: str | None  # the effort the round asks for (None: off, or the model does not reason)
    wire_model: str  # the slug ModelDetails names on the wire
    efforts: tuple[str, ...]  # the efforts the model takes (empty: it does not reason)
    bundled: bool  # False: a model only the account's roster lists


@dataclass(frozen=True, slots=True)
class DoctorCheck:
    """One check ``Cell.doctor`` made: its verdict in a line and, when it failed, the fix."""

    name: str
    status: Literal["ok", "fail", "skip"]  # skip: not checked, and the verdict says why
    verdict: str
    fix: str | None = None

    def as_dict(self) -> dict[str, str | None]:
        """Return the check as JSON-ready data."""
        return {"name": self.name, "status": self.status, "verdict": self.verdict, "fix": self.fix}


class CellCommand(Protocol):
    """A slash command a cell installs (``/cursor``)."""

    def run(self, argline: str) -> str:
        """Return the command's one-line answer to ARGLINE."""
        ...

    def complete(self, prefix: str) -> list[str]:
        """Return the completions of PREFIX."""
        ...


class ModelEntry(Protocol):
    """One model of a cell's listing."""

    @property
    def id(self) -> str:
        """The model id."""
        ...

    @property
    def name(self) -> str:
        """The model's display name."""
        ...

    @property
    def context_window(self) -> int:
        """The model's context window, in tokens."""
        ...

    @property
    def max_mode(self) -> bool | None:
        """Whether the model runs in max mode (None: not said)."""
        ...

    @property
    def max_context_window(self) -> int | None:
        """The model's context window in max mode, in tokens (None: not said)."""
        ...

    @property
    def images(self) -> bool | None:
        """Whether the model takes images (None: not said)."""
        ...

    @property
    def thinking(self) -> bool | None:
        """Whether the model thinks (None: not said)."""
        ...

    @property
    def parameters(self) -> tuple[tuple[str, tuple[str, ...]], ...]:
        """Each parameter the model takes and its values (empty: not said)."""
        ...


class ModelList(Protocol):
    """What ``list_models`` answers: the account's models, or the bundled ones and why."""

    @property
    def models(self) -> Sequence[ModelEntry]:
        """The models."""
        ...

    @property
    def live(self) -> bool:
        """Whether the account's own roster answered."""
        ...

    @property
    def reason(self) -> str | None:
        """Why the live roster is missing (None when live)."""
        ...


class UsageWindowView(Protocol):
    """One window of a plan's included usage (what ``AccountUsageView.windows`` holds)."""

    @property
    def key(self) -> str:
        """The window's key: "total", "auto" or "api"."""
        ...

    @property
    def name(self) -> str:
        """The window's name, as a person reads it."""
        ...

    @property
    def percent(self) -> float:
        """How much of the window is used, 0..100 (more when over)."""
        ...


class AccountUsageView(Protocol):
    """What ``Cell.account_usage`` answers: the account's current period at a glance."""

    @property
    def windows(self) -> Sequence[UsageWindowView]:
        """The plan's usage windows."""
        ...

    @property
    def period_end(self) -> float | None:
        """When the period resets, epoch seconds (None: not said)."""
        ...

    def as_dict(self) -> dict[str, Any]:
        """Return the usage as JSON-ready data."""
        ...

    def text(self, now: float) -> str:
        """Return the compact block a person reads, the reset counted from NOW (epoch s)."""
        ...


@runtime_checkable
class Cell(Protocol):
    """The cell object a host loads (``nodecode_cursor.cell:cell``), as a host sees it."""

    name: str
    provider: str

    def start(self, host: Host) -> bool:
        """Install the cell into HOST; return False when its config vetoes it."""
        ...

    def stop(self) -> None:
        """Take the cell out of its host."""
        ...

    @property
    def lanes(self) -> Mapping[str, Callable[[RoundContext], Awaitable[RoundResult]]]:
        """The provider lanes the cell installs (none when not started)."""
        ...

    @property
    def commands(self) -> Mapping[str, CellCommand]:
        """The slash commands the cell installs, by name (none when not started)."""
        ...

    def catalog(self) -> dict[str, Any]:
        """Return the catalog row: the provider and its bundled models."""
        ...

    def credential(self, provider: str) -> str | None:
        """Return the token for PROVIDER without refreshing; None when there is none."""
        ...

    async def list_models(self, key: str | None = None) -> ModelList:
        """Return the account's models, or the bundled ones and why."""
        ...

    async def check_key(self, key: str) -> str | None:
        """Return None when the service accepts KEY, else the line saying why not."""
        ...

    def route(
        self,
        model: str,
        effort: str | None,
        *,
        roster: Iterable[str] | None = None,
        unchecked: str | None = None,
    ) -> Route:
        """Return where a round on MODEL at EFFORT goes; UnknownModel or BadEffort when not."""
        ...

    def sign_in_state(self) -> SignInState:
        """Return how the sign-in stands, never touching the network."""
        ...

    async def account_usage(self) -> AccountUsageView:
        """Return the account's usage from the service's dashboard; the cell's errors if not."""
        ...

    async def doctor(
        self, *, rounds: bool = True, report: Callable[[DoctorCheck], None] | None = None
    ) -> list[DoctorCheck]:
        """Return what works with the service today, check by check (ROUNDS cost tokens)."""
        ...
