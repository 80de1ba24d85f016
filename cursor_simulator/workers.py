"""How the simulated service's model workers take a continuation, as each peer reports it.

Two projects that run against the live service report different things
(docs/protocol.md §7b), so the simulator can behave either way
(``AgentService.external_continuation``):

* ``"opencodex"`` (lidge-jun/opencodex ``src/adapters/cursor/discovery.ts``
  ``cursorNeedsExternalToolContinuation``, ``protobuf-request.ts``
  ``conversationTurns``; seen live 2026-08-20): a third-party model's worker
  (GPT, Claude, Gemini, Grok, and ``composer-2.5`` but not its ``-fast`` tier)
  refuses turns that carry an MCP tool-call or thinking step — ``step_completed``,
  then the run ends ``invalid_argument`` — and, resumed after tool results,
  ignores them: it asks again for the call the history already answered.
* ``"omp"`` (can1357/oh-my-pi ``packages/ai/src/providers/cursor*``): both
  shapes work.

And ``AgentService.both_model_fields_refused``: opencodex reports that an external
worker answers a request carrying both ``model_details`` and ``requested_model``
with ``invalid_argument`` before any token; oh-my-pi sends both.

This module only says what a worker does with what it read; reading the blobs
over KV and playing the steps is the player's.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from nodecode_cursor._proto import agent_pb2

from .steps import Checkpoint, End, EndError, Step, StepCompleted, StepStarted, ToolCall, TurnEnded

__all__ = [
    "OMP",
    "OPENCODEX",
    "REFUSED_FIELDS",
    "REFUSED_TURNS",
    "is_external",
    "last_finished_call",
    "refused",
    "refused_turn_steps",
    "repeat_call",
    "step_ids",
]

OPENCODEX = "opencodex"
OMP = "omp"

# Third-party workers by their requested id (the simulator cannot read the cell's rows).
_EXTERNAL = re.compile(r"^(?:gpt-|o\d|claude|gemini|grok|cursor-grok)")
_EXTERNAL_OWN = frozenset({"composer-2.5"})

# What the worker ends a run with that it refuses (Connect code, message).
REFUSED_TURNS = ("invalid_argument", "the worker could not read the conversation turns")
REFUSED_FIELDS = ("invalid_argument", "model_details and requested_model together")


def is_external(model_id: str) -> bool:
    """Return whether MODEL_ID runs on a third-party worker (opencodex's list)."""
    bare = model_id.strip().lower()
    return bare in _EXTERNAL_OWN or _EXTERNAL.match(bare) is not None


def step_ids(turn: bytes) -> list[bytes]:
    """Return the step blob ids a ConversationTurnStructure blob names ([] when unreadable)."""
    try:
        parsed = agent_pb2.ConversationTurnStructure.FromString(turn)
    except Exception:
        return []
    return [bytes(step) for step in parsed.agent_conversation_turn.steps]


def refused_turn_steps(steps: Sequence[bytes]) -> bool:
    """Return whether any of STEPS (ConversationStep blobs) is an MCP call or thinking step."""
    for data in steps:
        try:
            step = agent_pb2.ConversationStep.FromString(data)
        except Exception:
            continue
        kind = step.WhichOneof("message")
        if kind == "thinking_message":
            return True
        if kind == "tool_call" and step.tool_call.HasField("mcp_tool_call"):
            return True
    return False


def last_finished_call(history: Sequence[Mapping[str, Any]]) -> tuple[str, dict[str, Any]] | None:
    """Return (tool name, arguments) of the last call the tool results ending HISTORY answer."""
    if not history or history[-1].get("role") != "tool":
        return None
    answered = {
        str(part.get("toolCallId"))
        for message in history
        if message.get("role") == "tool"
        for part in message.get("content") or ()
        if isinstance(part, dict) and part.get("type") == "tool-result"
    }
    for message in reversed(history):
        if message.get("role") != "assistant":
            continue
        for part in reversed(message.get("content") or []):
            if (
                isinstance(part, dict)
                and part.get("type") == "tool-call"
                and str(part.get("toolCallId")) in answered
            ):
                args = part.get("args")
                return str(part.get("toolName")), args if isinstance(args, dict) else {}
    return None


def repeat_call(name: str, args: dict[str, Any]) -> list[Step]:
    """Return the steps of a worker that ignored the results: it asks for NAME(ARGS) again."""
    said = json.dumps(args, separators=(",", ":"))
    return [
        StepStarted(),
        ToolCall(name, args),
        StepCompleted(),
        TurnEnded(input=len(said) // 4 + 1, output=8),
        Checkpoint(),
        End(),
    ]


def refused(why: tuple[str, str], *, step_first: bool) -> list[Step]:
    """Return the steps of a refused run: ``step_completed`` first when STEP_FIRST, then WHY."""
    code, message = why
    head: list[Step] = [StepStarted(), StepCompleted()] if step_first else []
    return [*head, EndError(code, message)]
