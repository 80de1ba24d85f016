"""How the reference host shows a turn on a terminal: text live, reasoning dimmed, tools framed.

``Style`` colours text only when the stream is a terminal and ``NO_COLOR`` is
unset. Everything the model controls passes through ``terminal_text.visible``
first, so its control characters are shown, never obeyed. ``TerminalView`` is a
``TurnObserver`` that writes stream parts as they arrive: assistant text as it
is, reasoning dimmed (or nowhere), each tool call with its arguments and a
bounded preview of its result. ``Waiting`` is the elapsed-time line a terminal
shows while nothing else is written (the model thinking, a tool running), cleared
the moment output starts; a pipe never gets it. Running the turn is
``turn.py``'s job; this module only writes.
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, TextIO

from . import contract
from .terminal_text import visible
from .turn import TurnObserver

if TYPE_CHECKING:
    from nodecode_cursor.host import RoundResult, StreamPart

__all__ = [
    "Style",
    "TerminalView",
    "Waiting",
    "call_summary",
    "paused",
    "result_preview",
    "wipe",
]

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


# The waiting line's frames, and how often it is redrawn.
_FRAMES = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
_TICK_SECONDS = 0.1
# The line being shown now, if any: a question asked on the terminal pauses it.
_shown: list[Waiting] = []


class Waiting:
    """An elapsed-time line (``⠋ waiting for cursor/model… 3s``) on a terminal, until stopped.

    Drawn by a thread of its own, over and over on one line, and wiped (spaces over
    it, back to the line's start) by ``stop`` before anything else is written: no
    escape sequence, so the terminal sees no control byte but CR. On a pipe or file
    it does nothing.
    """

    def __init__(self, out: TextIO, *, style: Style | None = None) -> None:
        self.out = out
        self.enabled = out.isatty()
        self.style = style or Style(out)
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._drawn = 0  # the width of the line drawn last (0: none shown)
        self.label = ""

    def start(self, label: str) -> None:
        """Show LABEL with the time since now (replacing a line already shown)."""
        self.stop()
        if not self.enabled:
            return
        self.label = label
        self._stop = threading.Event()
        self._thread = threading.Thread(
            target=self._draw, args=(label, time.monotonic(), self._stop), daemon=True
        )
        _shown.append(self)
        self._thread.start()

    @property
    def showing(self) -> bool:
        """Whether the line is being drawn."""
        return self._thread is not None

    def stop(self) -> None:
        """Wipe the line, if one is shown, and stop drawing it."""
        thread, self._thread = self._thread, None
        if thread is None:
            return
        self._stop.set()
        thread.join()
        with contextlib.suppress(ValueError):
            _shown.remove(self)
        with self._lock:
            if self._drawn:
                self.out.write(wipe(self._drawn))
                self.out.flush()
                self._drawn = 0

    def _draw(self, label: str, since: float, stop: threading.Event) -> None:
        """Redraw LABEL and the elapsed seconds every tick until STOP is set."""
        tick = 0
        while not stop.is_set():
            waited = int(time.monotonic() - since)
            frame = _FRAMES[tick % len(_FRAMES)]
            with self._lock:
                if stop.is_set():
                    return
                text = f"{frame} {label}… {waited}s"
                pad = " " * max(0, self._drawn - len(text))  # over a longer line drawn before
                self.out.write("\r" + self.style.dim(text) + pad)
                self.out.flush()
                self._drawn = max(self._drawn, len(text))
            tick += 1
            stop.wait(_TICK_SECONDS)


def wipe(width: int) -> str:
    """Return what blanks a line WIDTH characters wide and returns to its start."""
    return "\r" + " " * width + "\r"


@contextlib.contextmanager
def paused() -> Iterator[None]:
    """Return a context in which no waiting line is drawn (a question is being asked).

    The line shown before comes back afterwards, its clock started anew.
    """
    shown = list(_shown)
    for line in shown:
        line.stop()
    try:
        yield
    finally:
        for line in shown:
            line.start(line.label)


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
        waiting: Waiting | None = None,
    ) -> None:
        self.out = out
        # The elapsed-time line while nothing streams (None: none, as on a pipe).
        self.waiting = waiting
        self.model = ""
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

    def wait(self, label: str) -> None:
        """Show the waiting line with LABEL until the next output (when there is a line)."""
        if self.waiting is not None:
            self.waiting.start(label)

    def quiet(self) -> None:
        """Wipe the waiting line before something is written."""
        if self.waiting is not None:
            self.waiting.stop()

    def part(self, part: StreamPart) -> None:
        """Write one stream part."""
        if not isinstance(part, contract.StreamStart | contract.Finish):
            self.quiet()
        if isinstance(part, contract.StreamStart):
            self.round_number += 1
            if self.rounds:
                self.quiet()
                self._end_line()
                label = f"── round {self.round_number} · {visible(part.model, lines=False)} ──"
                self.tools.write(self.style.dim(label) + "\n")
                self.tools.flush()
            if self.waiting is not None and not self.waiting.showing:
                self.wait(f"waiting for cursor/{visible(part.model, lines=False)}")
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
            if part.by == "host":
                # Run in place now, while the round waits: its result part wipes the line.
                self.wait(f"running {visible(part.name, lines=False)}")
        elif isinstance(part, contract.ResolvedCallResult):
            self._end_line()
            preview = result_preview(part.content).replace("\n", "\n  ")
            self.tools.write(self.style.dim("  " + preview) + "\n")
            self.tools.flush()

    def round_done(self, result: RoundResult) -> None:
        """Close the round's open line."""
        self.quiet()
        self._end_line()

    def tool_call(self, call: dict[str, Any]) -> None:
        """Write the call about to run, then show that it runs."""
        self.quiet()
        self._end_line()
        self.tools.write(self.style.cyan("→ " + call_summary(call)) + "\n")
        self.tools.flush()
        name = visible(str((call.get("function") or {}).get("name", "?")), lines=False)
        self.wait(f"running {name}")

    def tool_result(self, call: dict[str, Any], text: str) -> None:
        """Write a preview of the call's result; the next round is then awaited."""
        self.quiet()
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
        self.quiet()
        self._end_line()
