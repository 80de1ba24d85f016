"""One turn of the reference host: a lane's rounds and the host's tool calls between them.

A turn calls the lane, runs the tool calls the round hands back, adds the
results to the history and calls again, until the model stops, calls no tool
the host runs, or ``max_rounds`` is reached. A round's resolved calls (Cursor's
own tools run in place, calls the service ran, native asks refused; flagged
``"resolved": true``) are kept in the history and never run here. ``Turn`` keeps
the turn's account (usage, cost, rounds, the messages it added) and takes each
step by name; ``Conversation`` is the chat it runs in, ``TurnOutcome`` what it
ended with, ``TurnObserver`` what it shows as it goes.

Which lane, and the event loop the round runs on, are ``refhost.ReferenceHost``'s
(``run_turn`` drives these steps); the tools are the ``toolbox.Toolbox``'s;
showing a turn on a terminal is ``render.py``'s.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from . import contract

if TYPE_CHECKING:
    from nodecode_cursor.host import (
        Host,
        NativeRunner,
        RoundContext,
        RoundResult,
        StreamPart,
        Usage,
    )

    from .toolbox import Toolbox

__all__ = [
    "Conversation",
    "RoundHeard",
    "Turn",
    "TurnObserver",
    "TurnOutcome",
    "host_calls",
]

# The round lines keep the name `-v` has always shown them under (tests/host/test_cli_ask.py).
log = logging.getLogger(__name__)


@dataclass(slots=True)
class Conversation:
    """One chat as the host keeps it: the model, the effort, the session and the history."""

    model: str
    effort: str | None = None
    system: str | None = None
    session_id: str | None = None
    messages: list[dict[str, Any]] = field(default_factory=list)
    cwd: str | None = None
    request_timeout: float | None = None
    credential: str | None = None
    provider: str = "cursor"


@dataclass(slots=True)
class TurnOutcome:
    """What a turn ended with: the last assistant message and the turn's accounting."""

    message: dict[str, Any]
    finish_reason: Literal["stop", "tool_calls"]
    usage: Usage
    rounds: int
    wire_model: str = ""
    interrupted: bool = False
    # Tool calls of the last message the host did not run (max rounds, or tools from a file).
    unrun: list[dict[str, Any]] = field(default_factory=list)
    # Calls the provider ran itself (cursor-agent's tools), as RoundResult.resolved gives them.
    resolved: list[dict[str, Any]] = field(default_factory=list)
    # The rounds' estimated cost summed (USD at published rates); None when a round had none.
    cost_usd_estimate: float | None = None
    # Every message the turn added to the history, in order (resolved calls included).
    messages: list[dict[str, Any]] = field(default_factory=list)
    # How many earlier messages the last round's request folded into a summary to fit
    # its history budget (RoundResult.folded), and why.
    folded: int = 0
    fold_reason: str = ""
    # The kept Cursor account the last round ran on, when the cell chose among several,
    # and every move to another account before any output, in order, as
    # {"round", "from", "to", "reason"} (RoundResult.account, RoundResult.failovers).
    account: str | None = None
    failovers: list[dict[str, Any]] = field(default_factory=list)


class TurnObserver:
    """What a turn shows as it goes; the default shows nothing."""

    def part(self, part: StreamPart) -> None:
        """Show one stream part."""

    def round_done(self, result: RoundResult) -> None:
        """Show that a round finished."""

    def tool_call(self, call: dict[str, Any]) -> None:
        """Show a tool call about to run."""

    def tool_result(self, call: dict[str, Any], text: str) -> None:
        """Show the result of a tool call."""


def _add_cost(total: float | None, rounds: int, result: RoundResult) -> float | None:
    """Return the turn's estimate with RESULT's added: unknown once any round's is unknown."""
    more = result.cost_usd_estimate
    if more is None or (total is None and rounds > 1):
        return None
    return (total or 0.0) + more


def _add_usage(total: Usage, more: Usage) -> None:
    """Add MORE's counts into TOTAL (the context occupancy is the latest round's)."""
    total.input += more.input
    total.output += more.output
    total.cache_read += more.cache_read
    total.cache_write += more.cache_write
    total.reasoning += more.reasoning
    if more.context_tokens is not None:
        total.context_tokens = more.context_tokens


class RoundHeard:
    """What one round has streamed so far (its text and thinking), each part shown as it comes."""

    def __init__(self, view: TurnObserver) -> None:
        self.view = view
        self.text: list[str] = []
        self.thinking: list[str] = []

    def on_part(self, part: StreamPart) -> None:
        """Keep PART's text or thinking, and show it (the round's ``on_part``)."""
        if isinstance(part, contract.TextDelta):
            self.text.append(part.text)
        elif isinstance(part, contract.ReasoningDelta):
            self.thinking.append(part.text)
        self.view.part(part)


def host_calls(result: RoundResult) -> list[dict[str, Any]]:
    """Return the tool calls of RESULT's message the host is to run (the resolved ones left out)."""
    return [
        call
        for call in result.message.get("tool_calls") or []
        if not (isinstance(call, dict) and call.get("resolved") is True)
    ]


def _names(calls: list[dict[str, Any]]) -> list[str]:
    """Return the function name of each of CALLS."""
    return [str(call.get("function", {}).get("name", "")) for call in calls]


class Turn:
    """One turn's running account, and the steps ``ReferenceHost.run_turn`` takes in order.

    Each round: ``context`` (the conversation so far, the tools, the runner), the
    lane run by the host, then ``interrupted`` (Ctrl-C during the round) or ``took``
    (what the round brought, added to the history), ``ending`` (whether the turn
    ends there), and ``run_calls`` (the host's tool calls run, their results added).
    """

    def __init__(self, conversation: Conversation, tools: Toolbox, view: TurnObserver) -> None:
        self.conversation = conversation
        self.tools = tools
        self.view = view
        self.total = contract.Usage()
        self.rounds = 0
        self.wire = ""
        self.cost: float | None = None
        self.resolved: list[dict[str, Any]] = []
        self.added: list[dict[str, Any]] = []  # every message this turn adds, in order
        self.account: str | None = None  # the kept account the last round ran on
        self.failovers: list[dict[str, Any]] = []  # every move before output, in order

    def add(self, *messages: dict[str, Any]) -> None:
        """Add MESSAGES to the conversation's history and to what this turn added."""
        self.conversation.messages.extend(messages)
        self.added.extend(messages)

    def context(
        self,
        host: Host,
        heard: RoundHeard,
        native: NativeRunner | None,
        native_kinds: frozenset[str],
    ) -> RoundContext:
        """Return the next round's context: the history so far, the tools, the native runner."""
        conversation = self.conversation
        return contract.RoundContext(
            model=conversation.model,
            messages=list(conversation.messages),
            effort=conversation.effort,
            system=conversation.system,
            tools=self.tools.definitions(),
            session_id=conversation.session_id,
            cwd=conversation.cwd,
            credential=conversation.credential,
            request_timeout=conversation.request_timeout,
            on_part=heard.on_part,
            host=host,
            run_native=native,
            native_kinds=native_kinds if native is not None else frozenset(),
        )

    def interrupted(self, heard: RoundHeard) -> TurnOutcome:
        """Return the outcome of a round stopped by the person: what streamed so far is kept."""
        kept: dict[str, Any] = {"role": "assistant", "content": "".join(heard.text) or None}
        if heard.thinking:
            kept["reasoning_content"] = "".join(heard.thinking)
        if heard.text or heard.thinking:
            self.add(kept)
        return self._outcome(kept, "stop", interrupted=True)

    def _outcome(
        self,
        message: dict[str, Any],
        finish_reason: Literal["stop", "tool_calls"],
        **more: Any,
    ) -> TurnOutcome:
        """Return the turn's outcome ending on MESSAGE, with the turn's running account."""
        return TurnOutcome(
            message,
            finish_reason,
            self.total,
            self.rounds,
            self.wire,
            cost_usd_estimate=self.cost,
            messages=self.added,
            account=self.account,
            failovers=self.failovers,
            **more,
        )

    def took(self, result: RoundResult, seconds: float) -> None:
        """Count RESULT's round (usage, cost, wire model), add its messages, and show it done."""
        conversation = self.conversation
        self.rounds += 1
        self._note_accounts(result)
        usage = result.usage
        log.info(
            "round %d: model %s (wire %s), effort %s, session %s, finish %s, "
            "usage in %d out %d cache read %d write %d, %.2fs",
            self.rounds,
            conversation.model,
            result.wire_model or "-",
            conversation.effort or "off",
            conversation.session_id or "-",
            result.finish_reason,
            usage.input,
            usage.output,
            usage.cache_read,
            usage.cache_write,
            seconds,
        )
        _add_usage(self.total, result.usage)
        self.cost = _add_cost(self.cost, self.rounds, result)
        # Read with getattr: a cell from an older folder may not set it.
        self.resolved.extend(getattr(result, "resolved", None) or [])
        self.wire = result.wire_model or self.wire
        # Every message the round added: its resolved calls, then its last message.
        self.add(*(getattr(result, "messages", None) or [result.message]))
        self.view.round_done(result)

    def _note_accounts(self, result: RoundResult) -> None:
        """Keep RESULT's account and its moves (read with getattr: an older cell lacks them)."""
        self.account = getattr(result, "account", None) or self.account
        for switch in getattr(result, "failovers", None) or []:
            said = switch.as_dict() if hasattr(switch, "as_dict") else dict(switch)
            self.failovers.append({"round": self.rounds, **said})

    def ending(
        self, result: RoundResult, calls: list[dict[str, Any]], max_rounds: int
    ) -> TurnOutcome | None:
        """Return the turn's outcome when it ends with RESULT's round, else None (calls to run).

        It ends when the model stopped or called no tool the host runs, and when
        MAX_ROUNDS rounds have run (the calls then returned unrun).
        """
        # Read with getattr: a cell from an older folder may not set it.
        folded = getattr(result, "folded", 0)
        fold_reason = getattr(result, "fold_reason", "")
        if folded:
            log.info("round %d: %d earlier messages folded (%s)", self.rounds, folded, fold_reason)
        if result.finish_reason != "tool_calls" or not calls:
            return self._outcome(
                result.message,
                "stop",
                resolved=self.resolved,
                folded=folded,
                fold_reason=fold_reason,
            )
        names = _names(calls)
        if self.rounds >= max_rounds or not any(self.tools.runs(name) for name in names):
            return self._outcome(
                result.message,
                "tool_calls",
                unrun=calls,
                resolved=self.resolved,
                folded=folded,
                fold_reason=fold_reason,
            )
        return None

    def run_calls(self, result: RoundResult, calls: list[dict[str, Any]]) -> TurnOutcome | None:
        """Run CALLS and add each result; return the outcome when the person stopped it, else None.

        Stopped mid-way (Ctrl-C), every call still gets a result, the skipped ones
        saying they were not run, so the history stays whole.
        """
        names = _names(calls)
        for index, call in enumerate(calls):
            self.view.tool_call(call)
            try:
                output = self.tools.run(
                    names[index], str(call.get("function", {}).get("arguments", ""))
                )
            except KeyboardInterrupt:
                # Keep the history whole: every call gets a result, even the skipped ones.
                for skipped in calls[index:]:
                    self.add(_tool_message(skipped, "interrupted by the person; not run"))
                return self._outcome(result.message, "stop", interrupted=True)
            self.add(_tool_message(call, output))
            self.view.tool_result(call, output)
        return None


def _tool_message(call: dict[str, Any], content: str) -> dict[str, Any]:
    """Return the tool message carrying CONTENT as CALL's result (``is_error`` if it failed)."""
    message: dict[str, Any] = {
        "role": "tool",
        "tool_call_id": str(call.get("id", "")),
        "content": content,
    }
    from .toolbox import ToolFailure  # here: a command that runs no tools never loads them

    if isinstance(content, ToolFailure):
        message["is_error"] = True  # the contract's failed result: the model sees an error
    return message
