"""One round across the seam: what the host hands the lane, and what the lane hands back.

Per round a host builds a ``RoundContext`` (the chat history, the model, the
tools, the credential and the overrides of the cell's settings) and awaits the
lane, which returns a ``RoundResult``: a plain chat-completions assistant
message, the round's resolved calls, its ``Usage`` and the accounts it ran on
(``AccountSwitch`` for each failover). The parts streamed meanwhile are
``parts.py``'s, the in-place tool calls ``native_calls.py``'s; how a round is
run is the lanes' (``lanes/lane.py``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .hosting import Host
from .native_calls import NativeRunner
from .parts import FinishReason, StreamPart

__all__ = ["AccountSwitch", "RoundContext", "RoundResult", "Usage"]


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
