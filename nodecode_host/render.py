"""How the reference host shows a turn on a terminal: text live, reasoning dimmed, tools framed.

``Style`` colours text only when the stream is a terminal and ``NO_COLOR`` is
unset. Everything the model controls passes through ``terminal_text.visible``
first, so its control characters are shown, never obeyed. ``TerminalView`` is a
``TurnObserver`` that writes stream parts as they arrive: assistant text as it
is, reasoning dimmed (or nowhere), each tool call with its arguments and a
bounded preview of its result. Running the turn is ``refhost.py``'s job; this
module only writes.
"""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING, Any, TextIO

from . import contract
from .refhost import TurnObserver
from .terminal_text import visible

if TYPE_CHECKING:
    from nodecode_cursor.host import RoundResult, StreamPart

__all__ = ["Style", "TerminalView", "call_summary", "result_preview"]

# A tool result preview shows at most this much: the model sees it all, the person a glimpse.
_PREVIEW_LINES = 8
_PREVIEW_CHARS = 600
_ARGS_CHARS = 160
# How a resolved call is marked, by who settled it (ResolvedCallStart.by).
_RESOLVED_MARKS = {"host": "run in place", "cursor": "run by Cursor", "cell": "refused"}


class Style:
    """ANSI styling that is switched off for pipes, files and NO_COLOR."""

    def __init__(self, stream: TextIO, *, enabled: bool | None = None) -> None:
        if enabled is None:
            enabled = stream.isatty() and not os.environ.get("NO_COLOR")
        self.enabled = enabled

    def _wrap(self, code: str, text: str) -> str:
        """Return TEXT wrapped in the SGR CODE when styling is on."""
        return f"\x1b[{code}m{text}\x1b[0m" if self.enabled and text else text

    def dim(self, text: str) -> str:
        """Return TEXT dimmed."""
        return self._wrap("2", text)

    def bold(self, text: str) -> str:
        """Return TEXT in bold."""
        return self._wrap("1", text)

    def cyan(self, text: str) -> str:
        """Return TEXT in cyan (tool calls)."""
        return self._wrap("36", text)

    def yellow(self, text: str) -> str:
        """Return TEXT in yellow (notices)."""
        return self._wrap("33", text)

    def red(self, text: str) -> str:
        """Return TEXT in red (errors)."""
        return self._wrap("31", text)


def call_summary(call: dict[str, Any]) -> str:
    """Return a tool call as one short line, safe for a terminal: name(arguments)."""
    function = call.get("function") or {}
    name = visible(str(function.get("name", "?")), lines=False)
    arguments = str(function.get("arguments", ""))
    try:
        compact = json.dumps(json.loads(arguments), ensure_ascii=False, separators=(", ", ": "))
    except (json.JSONDecodeError, TypeError):
        compact = arguments
    if len(compact) > _ARGS_CHARS:
        compact = compact[: _ARGS_CHARS - 1] + "…"
    return f"{name}({visible(compact, lines=False)})"


def result_preview(text: str) -> str:
    """Return the first lines of a tool result, safe for a terminal, saying how much more."""
    lines = text.split("\n") if text else [""]
    if len(lines) > 1 and not lines[-1]:
        lines.pop()  # the line feed ending the last line opens no new one
    shown = "\n".join(visible(line, lines=False) for line in lines[:_PREVIEW_LINES])
    if len(shown) > _PREVIEW_CHARS:
        shown = shown[:_PREVIEW_CHARS] + "…"
    if len(lines) > _PREVIEW_LINES:
        shown += f"\n… ({len(lines) - _PREVIEW_LINES} more lines)"
    return shown


class TerminalView(TurnObserver):
    """Writes a turn to a terminal as it streams."""

    def __init__(
        self,
        out: TextIO,
        *,
        style: Style | None = None,
        reasoning: TextIO | None = None,
        tools: TextIO | None = None,
        rounds: bool = False,
    ) -> None:
        self.out = out
        self.style = style or Style(out)
        # Where reasoning goes (None hides it) and where tool calls are shown.
        self.reasoning = reasoning
        self.tools = tools or out
        self.rounds = rounds
        self.round_number = 0
        self._last: str | None = None  # "text" or "reasoning": what the open line holds
        self._ended = True  # whether what was written last ended its line

    def _end_line(self) -> None:
        """Close the open line of streamed text or reasoning, if any."""
        if self._last == "reasoning" and self.reasoning is not None and not self._ended:
            self.reasoning.write("\n")
            self.reasoning.flush()
        elif self._last == "text" and not self._ended:
            self.out.write("\n")
            self.out.flush()
        self._last = None
        self._ended = True

    def part(self, part: StreamPart) -> None:
        """Write one stream part."""
        if isinstance(part, contract.StreamStart):
            self.round_number += 1
            if self.rounds:
                self._end_line()
                label = f"── round {self.round_number} · {visible(part.model, lines=False)} ──"
                self.tools.write(self.style.dim(label) + "\n")
                self.tools.flush()
        elif isinstance(part, contract.ReasoningDelta):
            if self.reasoning is None:
                return
            if self._last == "text":
                self._end_line()
            if self._last != "reasoning":
                # Marked in words too, so a transcript without colour still tells them apart.
                self.reasoning.write(self.style.dim("thinking: "))
            self._last = "reasoning"
            self._ended = part.text.endswith("\n")
            self.reasoning.write(self.style.dim(visible(part.text)))
            self.reasoning.flush()
        elif isinstance(part, contract.TextDelta):
            if self._last == "reasoning":
                self._end_line()
            self._last = "text"
            self._ended = part.text.endswith("\n")
            self.out.write(visible(part.text))
            self.out.flush()
        elif isinstance(part, contract.ToolCallStart):
            self._end_line()
        elif isinstance(part, contract.ResolvedCallStart):
            # Shown as a handed-off call is, marked by who settled it.
            self._end_line()
            call = {"function": {"name": part.name, "arguments": part.arguments}}
            mark = _RESOLVED_MARKS.get(part.by, part.by)
            self.tools.write(self.style.cyan("→ " + call_summary(call)) + f" ({mark})\n")
            self.tools.flush()
        elif isinstance(part, contract.ResolvedCallResult):
            self._end_line()
            preview = result_preview(part.content).replace("\n", "\n  ")
            self.tools.write(self.style.dim("  " + preview) + "\n")
            self.tools.flush()

    def round_done(self, result: RoundResult) -> None:
        """Close the round's open line."""
        self._end_line()

    def tool_call(self, call: dict[str, Any]) -> None:
        """Write the call about to run."""
        self._end_line()
        self.tools.write(self.style.cyan("→ " + call_summary(call)) + "\n")
        self.tools.flush()

    def tool_result(self, call: dict[str, Any], text: str) -> None:
        """Write a preview of the call's result."""
        preview = result_preview(text).replace("\n", "\n  ")
        self.tools.write(self.style.dim("  " + preview) + "\n")
        self.tools.flush()

    def unrun(self, calls: list[dict[str, Any]]) -> None:
        """Write the calls the host returns without running them."""
        self._end_line()
        for call in calls:
            self.tools.write(self.style.cyan("→ " + call_summary(call)) + " (not run)\n")
        self.tools.flush()

    def close(self) -> None:
        """End whatever line is open."""
        self._end_line()
