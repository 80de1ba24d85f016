"""Only the tools a served request offered reach its client: any other call the model makes is
dropped, and the answer says so.

A model may call a tool by any name: one the client never offered, or any at all
under ``tool_choice: "none"`` (each API reads its request so that ``RoundRequest.tools``
holds exactly the tools offered after ``tool_choice``). A client handed such a call
may run whatever its own tool of that name does. ``OfferedOnly`` filters one round,
both ways it is answered: the stream's parts as they come (``part``, the calls
renumbered so the kept ones stay contiguous) and the whole result (``settle``). A
dropped call becomes one line of the answer's text naming it (``dropped_line``), and a
round left with no call finishes ``stop``. Calls the round settled itself (the
``resolved`` ones) are the round's, never the client's to run, and are left alone.

Pure, no sockets; ``routes.py`` applies it to every round of all three APIs.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from . import contract

if TYPE_CHECKING:
    from nodecode_cursor.host import RoundResult, StreamPart

    from .api_round import RoundRequest

__all__ = ["OfferedOnly", "dropped_line"]

log = logging.getLogger(__name__)


def dropped_line(names: list[str]) -> str:
    """Return the answer's line saying the model called NAMES, tools this request did not offer."""
    listed = ", ".join(f"`{name}`" for name in dict.fromkeys(names))
    return (
        f"[The model called {listed}, not a tool this request offered; the call was not "
        "passed on: that tool is not available.]"
    )


class OfferedOnly:
    """One round's filter: tool calls to tools REQUEST did not offer never reach the client."""

    def __init__(self, request: RoundRequest) -> None:
        self.offered = frozenset(
            str((tool.get("function") or {}).get("name")) for tool in request.tools
        )
        self._kept: dict[int, int] = {}  # the round's call index -> the index the client sees
        self._dropped: dict[int, str] = {}  # the round's call index -> the name it called
        self._said = False  # the dropped line went out in the stream
        self._texted = False  # answer text went out before it

    def wrap(
        self, on_part: Callable[[StreamPart], None] | None
    ) -> Callable[[StreamPart], None] | None:
        """Return ON_PART behind this filter (None stays None)."""
        if on_part is None:
            return None
        sink = on_part

        def filtered(part: StreamPart) -> None:
            for kept in self.part(part):
                sink(kept)

        return filtered

    def part(self, part: StreamPart) -> list[StreamPart]:
        """Return what the client is streamed for the round's PART (none for a dropped call's)."""
        if isinstance(part, contract.ToolCallStart):
            if part.name not in self.offered:
                self._dropped[part.index] = part.name
                log.info("a call of %s, a tool the request did not offer, was dropped", part.name)
                return []
            index = self._kept.setdefault(part.index, len(self._kept))
            return [contract.ToolCallStart(index, part.id, part.name)]
        if isinstance(part, contract.ToolCallArgsDelta):
            if part.index in self._dropped:
                return []
            index = self._kept.get(part.index, part.index)
            return [contract.ToolCallArgsDelta(index, part.delta)]
        if isinstance(part, contract.Finish) and self._dropped:
            said: list[StreamPart] = []
            if not self._said:
                self._said = True
                line = dropped_line(list(self._dropped.values()))
                said.append(contract.TextDelta(f"\n\n{line}" if self._texted else line))
            reason = part.reason if self._kept or part.reason != "tool_calls" else "stop"
            return [*said, contract.Finish(reason)]
        if isinstance(part, contract.TextDelta) and part.text:
            self._texted = True
        return [part]

    def settle(self, result: RoundResult) -> RoundResult:
        """Return RESULT without the calls of tools not offered, its text saying which were."""
        calls: list[dict[str, Any]] = list(result.message.get("tool_calls") or [])
        kept = [c for c in calls if _name(c) in self.offered]
        if len(kept) == len(calls):
            return result
        names = [_name(c) for c in calls if _name(c) not in self.offered]
        message = dict(result.message)
        text = str(message.get("content") or "")
        line = dropped_line(names)
        message["content"] = f"{text}\n\n{line}" if text else line
        if kept:
            message["tool_calls"] = kept
        else:
            message.pop("tool_calls", None)
        reason = result.finish_reason
        if not kept and reason == "tool_calls":
            reason = "stop"
        messages = list(result.messages)
        if messages and messages[-1] is result.message:
            messages[-1] = message
        return dataclasses.replace(result, message=message, finish_reason=reason, messages=messages)


def _name(call: dict[str, Any]) -> str:
    """Return the name a tool call entry calls."""
    return str((call.get("function") or {}).get("name"))
