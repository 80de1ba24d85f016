"""How a round goes on after tool results, and which model fields it sends: per model, adaptive.

Two things the live service is reported to do differently by peers who both run
against it (docs/protocol.md §7b):

* the **continuation shape**. ``Shape.RESUME`` is what oh-my-pi sends: after tool
  results the run's action is ``resume_action{}``, and the turns replay each call
  as an MCP tool-call step (thinking too, when it may replay). ``Shape.MESSAGE``
  is what opencodex found working live for third-party models: the action is a
  ``user_message_action`` with a short text of ours (``RESULTS_CONTINUATION``)
  and the turns carry no MCP tool-call and no thinking steps; the calls and
  their results stay in the root prompt JSON, which is what the model reads.
* the **model fields**. ``ModelFields.BOTH`` sends ``model_details`` (3) and
  ``requested_model`` (9), as oh-my-pi does; ``ModelFields.REQUESTED_ONLY``
  sends ``requested_model`` alone, as Cursor's CLI does.

``plan`` picks the first try of a round: the shape the setting pins, else the one
learned for the model, else the model family's (``first_shape``); the fields
learned, else both. It also says which one retry the round may make on the
other shape or fields when a run shows the first was wrong (``decisions.py``
decides that; ``repeats_finished_call`` is one of its facts). What was learned
(``Learned``) is kept by the lane: in memory, and in the conversation store.

Pure: no I/O. Building the request in a shape is ``request.py``'s and
``history.py``'s; running the retry and keeping what was learned is the lane's.
"""

from __future__ import annotations

import enum
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..models.routing import model_lineage
from .seen import PassMemo

__all__ = [
    "EXTERNAL_LINEAGES",
    "RESULTS_CONTINUATION",
    "SETTINGS",
    "Learned",
    "ModelFields",
    "Plan",
    "RepeatsMemo",
    "Shape",
    "first_shape",
    "is_external",
    "learned_after",
    "other_shape",
    "plan",
    "repeats_finished_call",
    "shape_matters",
]

# The action of a MESSAGE continuation: our own words; the results are in the history.
RESULTS_CONTINUATION = "Continue from the tool results in the conversation above."

# cursor.continuation's values: "auto" (per model, adaptive), or one shape always.
SETTINGS = ("auto", "resume", "message")

# The lineages (wire.json "class") opencodex names as third-party workers: GPT,
# Claude, Gemini, Grok. Kimi, GLM and the rest it does not name keep today's shape.
EXTERNAL_LINEAGES = frozenset({"openai", "anthropic", "gemini", "xai"})
# Cursor's own model that opencodex saw behave like an external one (not its -fast tier).
_EXTERNAL_OWN = frozenset({"composer-2.5"})


class Shape(enum.Enum):
    """How a run goes on after tool results (and what its turns replay)."""

    RESUME = "resume"  # resume_action; MCP call and thinking steps in the turns
    MESSAGE = "message"  # user_message_action continuation; turns without those steps


class ModelFields(enum.Enum):
    """Which model fields the run request carries."""

    BOTH = "both"  # model_details (3) and requested_model (9)
    REQUESTED_ONLY = "requested_only"  # requested_model (9) alone


@dataclass(frozen=True, slots=True)
class Learned:
    """What a retry showed works for one model: its shape and fields (None: not learned)."""

    shape: Shape | None = None
    fields: ModelFields | None = None


@dataclass(frozen=True, slots=True)
class Plan:
    """A round's first try (``shape``, ``fields``) and the retries it may make.

    ``shape_retry``: one retry on the other shape is allowed (the setting is
    ``auto`` and the two shapes send different requests); ``fields_retry``: one
    retry with ``requested_model`` alone is allowed (the first try sends both).
    """

    shape: Shape
    fields: ModelFields
    shape_retry: bool
    fields_retry: bool


def is_external(model: str) -> bool:
    """Return whether MODEL runs on a third-party worker opencodex saw need MESSAGE."""
    bare = model.strip().lower()
    return bare in _EXTERNAL_OWN or model_lineage(bare) in EXTERNAL_LINEAGES


def first_shape(model: str) -> Shape:
    """Return the shape MODEL's family tries first: MESSAGE for external models, else RESUME."""
    return Shape.MESSAGE if is_external(model) else Shape.RESUME


def other_shape(shape: Shape) -> Shape:
    """Return the shape a retry tries after SHAPE."""
    return Shape.RESUME if shape is Shape.MESSAGE else Shape.MESSAGE


def plan(model: str, setting: str, learned: Learned | None, *, shape_matters: bool = True) -> Plan:
    """Return the round's first try and retries for MODEL under SETTING and what was LEARNED.

    SETTING is ``cursor.continuation`` ("auto", "resume", "message"; checked by the
    cell); a pinned shape is never retried. SHAPE_MATTERS says the two shapes send
    different requests for this history (``shape_matters``): else nothing to retry.
    """
    known = learned or Learned()
    if setting == "resume":
        shape, shape_retry = Shape.RESUME, False
    elif setting == "message":
        shape, shape_retry = Shape.MESSAGE, False
    else:
        shape, shape_retry = known.shape or first_shape(model), shape_matters
    fields = known.fields or ModelFields.BOTH
    return Plan(shape, fields, shape_retry, fields is ModelFields.BOTH)


def learned_after(
    first: Plan, learned: Learned | None, shape: Shape, fields: ModelFields
) -> Learned | None:
    """Return what to remember once a round worked on SHAPE and FIELDS after FIRST's try.

    None when both are FIRST's (nothing new); what was LEARNED before stays for the other.
    """
    if shape is first.shape and fields is first.fields:
        return None
    known = learned or Learned()
    return Learned(
        shape=shape if shape is not first.shape else known.shape,
        fields=fields if fields is not first.fields else known.fields,
    )


def shape_matters(messages: Sequence[Mapping[str, Any]]) -> bool:
    """Return whether the two shapes build different requests for MESSAGES.

    They do when the history does not end on a user message (the action differs)
    or an assistant message in it made calls or thought (the turns differ).
    """
    if not messages:
        return False
    last = messages[-1]
    if not isinstance(last, Mapping) or last.get("role") != "user":
        return True
    return any(
        isinstance(m, Mapping)
        and m.get("role") == "assistant"
        and bool(m.get("tool_calls") or m.get("reasoning_content"))
        for m in messages
    )


def _arguments(text: Any) -> Any:
    """Return a call's arguments as a value to compare (parsed JSON, else the text itself)."""
    if not isinstance(text, str):
        return text
    try:
        return json.loads(text)
    except ValueError:
        return text


def _call(call: Any) -> tuple[str, str] | None:
    """Return (name, canonical arguments) of a chat-completions tool call, or None.

    Arguments nested too deep to read, or whose keys cannot be sorted, read as none.
    """
    if not isinstance(call, Mapping):
        return None
    function = call.get("function")
    if not isinstance(function, Mapping) or not isinstance(function.get("name"), str):
        return None
    try:
        arguments = _arguments(function.get("arguments") or "{}")
        return str(function["name"]), json.dumps(arguments, sort_keys=True, default=str)
    except (TypeError, ValueError, RecursionError):
        return None


class RepeatsMemo(PassMemo):
    """What ``repeats_finished_call`` read of a session's messages (``seen.PassMemo``).

    Of the current turn (the messages after the last user message, ``last_user``):
    the call ids its tool messages answered, the calls (name and arguments) an
    answered id names, and the calls no tool message answered yet, by id.
    """

    __slots__ = ("answered", "finished", "last_user", "pending")

    def __init__(self) -> None:
        super().__init__()
        self.reset()

    def reset(self) -> None:
        """Forget what was read."""
        super().reset()
        self._turn(-1)

    def _turn(self, last_user: int) -> None:
        """Start the turn after the user message at LAST_USER (-1: before the first)."""
        self.last_user = last_user
        self.answered: set[Any] = set()
        self.finished: set[tuple[str, str]] = set()
        self.pending: dict[Any, list[tuple[str, str]]] = {}

    def read(self, messages: Sequence[Any]) -> None:
        """Read the MESSAGES not read yet (all of them when they do not go on from those)."""
        start = self.known(messages)
        try:
            for index in range(start, len(messages)):
                message = messages[index]
                if not isinstance(message, Mapping):
                    continue
                role = message.get("role")
                if role == "user":
                    self._turn(index)
                elif role == "tool":
                    self._answer(message.get("tool_call_id"))
                elif role == "assistant":
                    self._calls(message.get("tool_calls"))
            self.seen += messages[start:]
        except BaseException:
            self.reset()
            raise

    def _answer(self, call_id: Any) -> None:
        """Record that a tool message answered CALL_ID (an id no set can hold answers none)."""
        try:
            self.answered.add(call_id)
        except TypeError:
            return
        made = self.pending.pop(call_id, None)
        if made is not None:
            self.finished.update(made)

    def _calls(self, calls: Any) -> None:
        """Record an assistant message's CALLS: finished when answered, else pending."""
        if not isinstance(calls, Iterable) or isinstance(calls, str | bytes | Mapping):
            return
        for call in calls:
            made = _call(call)
            if made is None:
                continue
            call_id = call.get("id")
            try:
                answered = call_id in self.answered
            except TypeError:  # an id no set can hold: no tool message answered it
                continue
            if answered:
                self.finished.add(made)
            else:
                self.pending.setdefault(call_id, []).append(made)


def repeats_finished_call(
    messages: Sequence[Mapping[str, Any]],
    reply: Mapping[str, Any],
    memo: RepeatsMemo | None = None,
) -> bool:
    """Return whether REPLY asks again for a call whose result MESSAGES already hold.

    Same tool name and the same arguments (as JSON values) as a call of the current
    turn (after the person's last message) a tool message answered, on a history that
    goes on from tool results: the model ignored the results it was given. A person
    who asks again ("and again") may well get the same call: that is no repeat.
    MEMO is what an earlier round of the session read (``RepeatsMemo``).
    """
    asked = [_call(call) for call in reply.get("tool_calls") or ()]
    if not any(asked):
        return False
    memo = memo if memo is not None else RepeatsMemo()
    memo.read(messages)
    if memo.last_user == len(messages) - 1:
        return False  # the round answers a person's message, not tool results
    finished = memo.finished
    return any(call in finished for call in asked if call is not None)
