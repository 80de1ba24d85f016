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
    "NATIVE_KINDS",
    "AccountSwitch",
    "AccountUsageView",
    "Cell",
    "DoctorCheck",
    "Finish",
    "Host",
    "MemoryHost",
    "NativeCall",
    "NativeOutcome",
    "NativeRunner",
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
    """A resolved call opened: one the round settles itself, never for the host to run.

    ``by`` says who settles it: ``"host"`` (run in place by ``run_native``),
    ``"cursor"`` (Cursor ran it: the service on its side, or the cursor-agent CLI)
    or ``"cell"`` (refused: no runner, or a kind the host does not serve).
    ``arguments`` is JSON text. The round's ``RoundResult.messages`` (and, for the
    cursor-agent lane, ``RoundResult.resolved``) records the call with its result.
    """

    id: str
    name: str
    arguments: str
    by: Literal["host", "cursor", "cell"] = "cursor"


@dataclass(slots=True)
class ResolvedCallResult:
    """The result of the resolved call ``id``: what the model read, and whether it failed."""

    id: str
    name: str
    content: str
    failed: bool = False


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


# Cursor's own tools, run in place ----------------------------------------------------------

# The kinds of native call a host may serve (``RoundContext.native_kinds``).
NATIVE_KINDS = frozenset({"read", "ls", "grep", "glob", "shell", "write", "edit", "delete"})


@dataclass(frozen=True, slots=True)
class NativeCall:
    """One of Cursor's own tools the service asks the client to run now, mid-run.

    ``kind`` is one of ``NATIVE_KINDS``; ``id`` the call's id (the service's tool call
    id). Which fields a kind reads:

    * ``read``: ``path``; ``offset`` (first line, 1-based) and ``limit`` (lines at
      most), each None for the whole file;
    * ``ls``: ``path`` (a folder); ``limit`` (entries at most) or None;
    * ``grep``: ``pattern`` (a regular expression), ``path`` (folder or file, "" for
      the working folder), ``glob`` (only files whose name matches) or None,
      ``case_insensitive``, ``output_mode`` (``content``, ``files_with_matches`` or
      ``count``), ``limit`` or None;
    * ``glob``: ``pattern`` (a glob such as ``*.py`` or ``src/**/*.ts``), ``path``
      (where to look, "" for the working folder), ``limit`` or None;
    * ``shell``: ``command``, ``cwd`` (the working folder the service named, else the
      round's), ``timeout`` (seconds) or None;
    * ``write``: ``path`` and ``content`` (the file's whole new text);
    * ``edit``: ``path`` and ``edits``, each (old text, new text), applied in order;
    * ``delete``: ``path``.

    Paths are as the service sent them: relative ones are to the round's cwd.
    """

    kind: str
    id: str
    path: str = ""
    offset: int | None = None
    limit: int | None = None
    pattern: str = ""
    glob: str | None = None
    case_insensitive: bool = False
    output_mode: str = "content"
    command: str = ""
    cwd: str = ""
    timeout: float | None = None
    content: str = ""
    edits: tuple[tuple[str, str], ...] = ()

    def arguments(self) -> dict[str, Any]:
        """Return the arguments KIND reads, as the JSON object the record shows."""
        fields: dict[str, tuple[str, ...]] = {
            "read": ("path", "offset", "limit"),
            "ls": ("path", "limit"),
            "grep": ("pattern", "path", "glob", "case_insensitive", "output_mode", "limit"),
            "glob": ("pattern", "path", "limit"),
            "shell": ("command", "cwd", "timeout"),
            "write": ("path", "content"),
            "edit": ("path", "edits"),
            "delete": ("path",),
        }
        out: dict[str, Any] = {}
        for name in fields.get(self.kind, ()):
            value = getattr(self, name)
            if value is None or value == () or (name == "case_insensitive" and not value):
                continue
            if name == "edits":
                value = [{"old_text": old, "new_text": new} for old, new in value]
            out[name] = value
        return out


@dataclass(frozen=True, slots=True)
class NativeOutcome:
    """What running a ``NativeCall`` came to: done, failed or refused.

    ``text`` is what the model reads: the result when done, the reason otherwise.
    A done outcome may carry the structured fields the typed result needs (the cell
    derives what is missing from ``text``):

    * ``read``: ``content`` (the lines returned), ``total_lines``, ``file_size``
      (bytes), ``truncated``;
    * ``ls``: ``entries`` (names, folders ending with ``/``), ``truncated``;
    * ``grep``: ``matches`` (path, line number, line), ``truncated``;
    * ``glob``: ``entries`` (paths), ``truncated``;
    * ``shell``: ``exit_code``, ``stdout``, ``stderr``, ``duration_ms``;
    * ``write``: ``file_size``; ``edit``: ``diff``;
    * ``delete``: ``file_size``, ``content`` (what the file held).

    ``refused`` is the person's or the policy's no (the call never ran); ``failed``
    is a call that ran and broke.
    """

    status: Literal["done", "failed", "refused"]
    text: str = ""
    content: str | None = None
    total_lines: int | None = None
    file_size: int | None = None
    truncated: bool = False
    entries: tuple[str, ...] = ()
    matches: tuple[tuple[str, int, str], ...] = ()
    exit_code: int | None = None
    stdout: str | None = None
    stderr: str = ""
    duration_ms: int = 0
    diff: str = ""

    @classmethod
    def done(cls, text: str, **fields: Any) -> NativeOutcome:
        """Return a done outcome with result TEXT and the structured FIELDS."""
        return cls("done", text, **fields)

    @classmethod
    def failed(cls, reason: str) -> NativeOutcome:
        """Return a failed outcome: the call ran and broke, for REASON."""
        return cls("failed", reason)

    @classmethod
    def refused(cls, reason: str) -> NativeOutcome:
        """Return a refused outcome: the person or the policy said no, for REASON."""
        return cls("refused", reason)


# Runs one native call while the run waits; cancelled when the round is.
NativeRunner = Callable[[NativeCall], Awaitable[NativeOutcome]]


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

    ``run_native`` runs Cursor's own tools in place: when the service asks for a
    kind in ``native_kinds`` the lane awaits the runner in a task of its own (the
    stream keeps being read, heartbeats keep going), answers in the ask's typed
    result and records the call as resolved (``RoundResult.messages``). Cancelling
    the round cancels the runner. Without a runner, or for a kind not served, the
    ask is refused as it always was (and recorded as a refused resolved call).
    """

    model: str
    messages: list[dict[str, Any]]
    effort: str | None = None
    system: str | None = None
    # The host's OpenAI function tools: every one is offered (one named like a native
    # tool under a wire name, its calls filed under its own name; bridge.py).
    tools: list[dict[str, Any]] = field(default_factory=list)
    session_id: str | None = None
    # The folder the round's native asks resolve in; None: this process's own. "" says
    # it is the client's, unknown here (serve): relative paths stay relative and a
    # bridged shell call names no folder, so the client's own folder applies.
    cwd: str | None = None
    credential: str | None = None
    base_url: str | None = None
    request_timeout: float | None = None
    # Per-append deadline base (seconds; 1 s per 128 KiB is added); None: limits' default.
    append_timeout: float | None = None
    proxy: str | None = None
    client_version: str | None = None
    # Which route streams the run: "auto", "http2", "sse" or "poll"; None: the cell's setting.
    transport: str | None = None
    # The request's history budget as (root blobs, root-JSON bytes); None: the cell's
    # setting. The environment's CURSOR_HISTORY_BUDGET wins over both.
    history_budget: tuple[int, int] | None = None
    on_part: Callable[[StreamPart], None] | None = None
    host: Host | None = None
    # Cursor's own tools run in place (see NativeCall): the runner, and the kinds it serves.
    # None, or a kind left out: an ask of that kind goes to an equivalent host tool in
    # ``tools`` when there is one (bridge.py), else it is refused.
    run_native: NativeRunner | None = None
    native_kinds: frozenset[str] = frozenset()
    # How a run goes on after tool results: "auto" (per model, adaptive), "resume" or
    # "message" (docs/protocol.md §7b); None: the cell's setting (cursor.continuation).
    continuation: str | None = None
    # Which of the person's kept Cursor accounts runs the round, by email (accounts.py);
    # None: the cell's setting (cursor.account), else the active account. Only a kept
    # account can be named, and only when ``credential`` is None (a host's own wins).
    account: str | None = None


@dataclass(frozen=True, slots=True)
class AccountSwitch:
    """A round moved from one kept Cursor account to another before any output (failover).

    ``reason`` says why Cursor refused ``from_account``: ``usage_pricing``,
    ``usage_limit``, ``pool_spent`` or ``refused`` (a bare refusal).
    """

    from_account: str
    to_account: str
    reason: str

    def as_dict(self) -> dict[str, str]:
        """Return the switch as plain JSON-ready data (what ``ask --json`` prints)."""
        return {"from": self.from_account, "to": self.to_account, "reason": self.reason}


@dataclass(slots=True)
class RoundResult:
    """What one round returns: a plain chat-completions assistant message and its accounting.

    ``messages`` is every message the round adds to the history, in order, and always
    ends with ``message``. Before it come the round's *resolved calls*, each an
    assistant message whose one ``tool_calls`` entry carries ``"resolved": true``
    followed by its ``role: "tool"`` message (also ``"resolved": true``, and
    ``"is_error": true`` when it failed or was refused): Cursor's own tools run in
    place, calls the service ran itself, and native asks refused. The text and
    thinking streamed before each resolved call sit on its assistant message, so the
    order is kept. A host keeps them all in the history and never runs them; the next
    round replays them as completed steps. ``message`` holds only what came after the
    last resolved call, and the host's own calls (``finish_reason`` says whether there
    are any). A host that knows nothing of the flag and appends ``messages`` still
    holds a valid chat history; one that appends only ``message`` loses the resolved
    calls and the text before them, as before this field existed it never had them.

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
    # Every message the round adds to the history, in order; ``message`` is the last.
    # Out of the repr: it repeats ``message``, and a repr of a long answer twice over
    # doubled the peak memory of a round (tests/cell/test_faults.py's 50 MiB stream).
    messages: list[dict[str, Any]] = field(default_factory=list, repr=False)
    # How many earlier history messages the request folded into a summary to fit its
    # history budget (0: none), and why ("" when none).
    folded: int = 0
    fold_reason: str = ""
    # The kept account (its email) the round ran on, when the cell chose among several
    # (None: one account, a host's own credential, a key); and each move to another
    # account before any output, in order (``cursor.failover``).
    account: str | None = None
    failovers: list[AccountSwitch] = field(default_factory=list)


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
    # Every kept account's name (its email), the active one first (accounts.py).
    accounts: tuple[str, ...] = ()


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

    @property
    def hint(self) -> str | None:
        """What to do about the missing roster, as ``CursorError.hint`` says it (or None)."""
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
