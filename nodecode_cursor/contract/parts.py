"""What a round streams to its host as it runs: the stream parts, in the order they come.

``on_part`` (``rounds.RoundContext``) receives each part as the service sends
it: the stream's start, text and reasoning deltas, the host's tool calls and
their argument deltas, the calls the round resolves itself, the finish. This
module only states their shapes: the ``cursor`` lane's core makes them
(``core/fold.py``, ``core/answers.py``), the ``cursor-agent`` lane's reader
(``lanes/agent_stream.py``) too, and the host renders them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

__all__ = [
    "Finish",
    "FinishReason",
    "ReasoningDelta",
    "ResolvedCallResult",
    "ResolvedCallStart",
    "StreamPart",
    "StreamStart",
    "TextDelta",
    "ToolCallArgsDelta",
    "ToolCallStart",
]

FinishReason = Literal["stop", "tool_calls"]


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
