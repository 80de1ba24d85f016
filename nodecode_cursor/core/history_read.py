"""The history read once, and kept read: roles, calls, content, which result answers which call.

Request building walks the history several times (the pairing of calls and
results, the fold's units, the root prompt, the turns). ``HistoryRead`` reads
each message once: its role, its calls, its content items, the result that
answers each call, and the history's *units* (a user message, or an assistant
message with the results of its calls; what the fold keeps or folds whole).

It is a left fold, kept between rounds as a ``seen.PassMemo``: a later round
whose messages go on from those it read reads only the new ones (``HistoryRead.read``),
so building a long session's request grows with what is new, not with the
history. A history that does not go on from them, or tools offered under other
wire names, is read again from the first message.

Pure: values only. What the blobs hold is ``history.py``'s; what folds is
``fold_history.py``'s.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..wire.values import finite
from .fold_history import TranscriptMemo
from .seen import PassMemo

__all__ = [
    "Call",
    "HistoryRead",
    "Item",
    "Items",
    "content_items",
    "failed_result",
    "history_role",
    "items_text",
    "normalize_call_id",
    "parse_data_url",
    "tool_call_id",
]

# Cursor takes tool-call ids in this charset and at most this long.
_CALL_ID_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")
_CALL_ID_MAX = 64

_DATA_URL = re.compile(r"^data:([^;,]+);base64,(.*)$", re.DOTALL)


def normalize_call_id(call_id: str) -> str:
    """Return CALL_ID within Cursor's charset ([A-Za-z0-9_-], others as '_'), at most 64 chars."""
    return _CALL_ID_UNSAFE.sub("_", call_id)[:_CALL_ID_MAX]


def parse_data_url(url: Any) -> tuple[str, str] | None:
    """Return (mime type, base64 text) of a ``data:…;base64,`` URL, else None."""
    if not isinstance(url, str):
        return None
    match = _DATA_URL.match(url)
    return (match.group(1), match.group(2)) if match else None


# The roles that read as another in the history (the others read as themselves):
# developer and system messages in the history ride as user turns. The lane takes
# the ones that open the history as the system prompt, so only later ones get here.
_HISTORY_ROLE = {"developer": "user", "system": "user"}


# Content items: a string stays a string; parts become ("text", text) or
# ("image", mime, base64). Images without a data: URL are left out.
Item = tuple[str, ...]
Items = str | tuple[Item, ...]


def content_items(content: Any) -> Items:
    """Return chat CONTENT as content items."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    out: list[Item] = []
    for part in content:
        if not isinstance(part, dict):
            continue
        kind = part.get("type")
        if kind == "text":
            text = part.get("text")
            out.append(("text", text if isinstance(text, str) else ""))
        elif kind == "image_url":
            image_url = part.get("image_url")
            url = image_url.get("url") if isinstance(image_url, dict) else image_url
            parsed = parse_data_url(url)
            if parsed is not None:
                out.append(("image", parsed[0], parsed[1]))
    return tuple(out)


def items_text(items: Items, *, images: bool = False) -> str:
    """Return the text of ITEMS joined by newlines; an image as ``[MIME image]`` when IMAGES."""
    if isinstance(items, str):
        return items
    lines = []
    for item in items:
        if item[0] == "text":
            lines.append(item[1])
        elif images:
            lines.append(f"[{item[1]} image]")
    return "\n".join(lines)


@dataclass(slots=True)
class Call:
    """One tool call of an assistant message, as the history holds it."""

    raw_id: str
    call_id: str
    name: str
    arguments: Any  # the host's arguments: usually a JSON string
    # what the memo keys of its root blob and its step hold of it, made once
    key: tuple[str, str, Hashable]
    # the arguments parsed, once: the root prompt and the turn step both need them
    parsed: dict[str, Any] | None = None
    # the index of the tool message answering it, and whether that says it failed
    # (set by the pairing)
    result: int | None = None
    failed: bool = False

    def arguments_object(self) -> dict[str, Any]:
        """Return the call's arguments as a JSON object (parsed on first use)."""
        if self.parsed is None:
            self.parsed = _arguments_object(self.arguments)
        return self.parsed


def read_calls(message: Mapping[str, Any], names: Mapping[str, str]) -> list[Call]:
    """Return an assistant message's tool calls (a name NAMES maps, under its wire name)."""
    raw = message.get("tool_calls")
    if not isinstance(raw, list):
        return []
    calls = []
    for call in raw:
        if not isinstance(call, dict):
            continue
        function = call.get("function")
        function = function if isinstance(function, dict) else {}
        call_id = call.get("id")
        name = function.get("name")
        raw_id = call_id if isinstance(call_id, str) else ""
        wire_id = normalize_call_id(raw_id)
        wire_name = names.get(name, name) if isinstance(name, str) else ""
        arguments = function.get("arguments")
        key = (wire_id, wire_name, _arguments_key(arguments))
        calls.append(Call(raw_id, wire_id, wire_name, arguments, key))
    return calls


def _arguments_object(arguments: Any) -> dict[str, Any]:
    """Return a call's arguments as a JSON object; an empty one when they do not parse as one.

    A NaN or an infinity in them (a host's dict, or the ``NaN`` / ``Infinity`` that
    Python's JSON reader takes) becomes None: the root blob and the step's Values
    both go out as JSON, which has no such numbers.
    """
    if isinstance(arguments, dict):
        return finite(arguments)  # type: ignore[no-any-return]
    if isinstance(arguments, str):
        try:
            parsed = _parse_arguments(arguments)
        except (ValueError, RecursionError):
            return {}
        if isinstance(parsed, dict):
            return parsed
    return {}


def _finite_float(text: str) -> float | None:
    """Return the float TEXT spells, or None when it overflows to an infinity."""
    number = float(text)
    return number if math.isfinite(number) else None


# Call arguments as JSON, a NaN, an infinity or an overflowing number read as None
# while parsing, rather than by a second walk over what was parsed (``finite``).
_ARGUMENTS = json.JSONDecoder(parse_float=_finite_float, parse_constant=lambda _: None)
# Its scanner: (text, index) -> (value, end), StopIteration when no value starts there.
_SCAN: Callable[[str, int], tuple[Any, int]] = _ARGUMENTS.scan_once  # type: ignore[attr-defined]


def _parse_arguments(text: str) -> Any:
    """Return the JSON value TEXT holds (``_ARGUMENTS.decode``); ValueError when it holds none.

    A value that starts at the first character and ends at the last (compact JSON,
    as hosts send arguments) is read by the decoder's scanner alone: ``decode``
    would skip no whitespace either, and its two frames and two regex matches
    cost more than the scan. Anything else goes through ``decode``.
    """
    try:
        value, end = _SCAN(text, 0)
    except StopIteration:  # no value at the first character (whitespace, or none)
        return _ARGUMENTS.decode(text)
    return value if end == len(text) else _ARGUMENTS.decode(text)


def _arguments_key(arguments: Any) -> Hashable:
    """Return a hashable key for a call's arguments (the host's string itself, when a string)."""
    if isinstance(arguments, str) or arguments is None:
        return arguments
    try:
        return ("json", json.dumps(arguments, sort_keys=True, default=str))
    except (TypeError, ValueError):
        return ("repr", repr(arguments))


def failed_result(message: Mapping[str, Any]) -> bool:
    """Return whether a tool message says its call failed (``"is_error": true``; nothing else)."""
    return message.get("is_error") is True


def history_role(message: Mapping[str, Any]) -> str:
    """Return MESSAGE's role in the history: developer and system as user, a non-string as ""."""
    role = message.get("role")
    return _HISTORY_ROLE.get(role, role) if isinstance(role, str) else ""


def tool_call_id(message: Mapping[str, Any]) -> str:
    """Return a tool message's raw call id ('' when it has none)."""
    raw = message.get("tool_call_id")
    return raw if isinstance(raw, str) else ""


def _worthy(items: Items) -> bool:
    """Return whether a user message of ITEMS makes a turn: it has text or an image."""
    if isinstance(items, str):
        return bool(items.strip())
    return any(item[0] == "image" for item in items) or bool(items_text(items).strip())


class HistoryRead(PassMemo):
    """A history's messages read once (up to the action's user message), as a left fold.

    ``rows[i]`` is message i (a non-mapping as ``{}``), ``roles[i]`` its role
    (developer and system as user; a role that is not a string as ""),
    ``content[i]`` its content items (user and tool messages; "" for others),
    ``calls[i]`` an assistant message's tool calls, each knowing the index of the
    tool message that answers it. ``units`` are the history's units in order.
    ``finish`` says which tool messages are orphans (their id names no call).
    """

    __slots__ = (
        "_owner",
        "_pending",
        "_unanswered",
        "_unit_of",
        "answering",
        "called",
        "calls",
        "content",
        "last_round_unit",
        "last_user_unit",
        "names",
        "orphans",
        "roles",
        "rows",
        "transcript",
        "turn_of",
        "units",
        "users",
        "wire",
    )

    def __init__(self, wire: Mapping[str, str] | None = None) -> None:
        super().__init__()
        self.wire: dict[str, str] = dict(wire or {})
        self.reset()

    def reset(self) -> None:
        """Forget every message read."""
        super().reset()
        self.rows: list[Mapping[str, Any]] = []
        self.roles: list[str] = []
        # message index -> that assistant message's tool calls (each knows its result)
        self.calls: dict[int, list[Call]] = {}
        # tool message indexes that answer a call
        self.answering: set[int] = set()
        # tool message indexes whose id names no call at all (``finish``)
        self.orphans: set[int] = set()
        # raw call id -> the tool's name (the first call that names it)
        self.names: dict[str, str] = {}
        # message index -> its content items (user and tool messages; "" for the others)
        self.content: list[Items] = []
        # every raw call id a call names
        self.called: set[str] = set()
        self.units: list[tuple[int, ...]] = []
        # the last unit that is a user message, and the last that is an assistant's (-1: none)
        self.last_user_unit = -1
        self.last_round_unit = -1
        # user message indexes, and the turn index of each that makes a turn
        self.users: list[int] = []
        self.turn_of: dict[int, int] = {}
        # calls no tool message answered yet, by raw id, and the message each is in
        self._pending: dict[str, Call] = {}
        self._owner: dict[str, int] = {}
        # an assistant message's index -> its unit's
        self._unit_of: dict[int, int] = {}
        # tool messages that answered no call when read: orphans unless a call names them
        self._unanswered: list[int] = []
        # the fold's last transcript of these rows
        self.transcript = TranscriptMemo()

    def read(self, messages: Sequence[Any], end: int, wire: Mapping[str, str]) -> None:
        """Read MESSAGES[:END] not read yet, their tools offered under WIRE's names.

        From the first message when they do not go on from those read, when END
        falls before them, or when WIRE is not the mapping they were read with.
        """
        if wire != self.wire:
            self.reset()
            self.wire = dict(wire)
        start = self.known(messages)
        if end < start:
            self.reset()
            start = 0
        try:
            for index in range(start, end):
                self._read(index, messages[index])
            self.seen += messages[start:end]
        except BaseException:
            self.reset()
            raise

    def _read(self, index: int, message: Any) -> None:
        """Read MESSAGE, the history's message at INDEX (the next after those read)."""
        # (a dict is a Mapping: asking its type first spares the ABC check per message)
        row = message if type(message) is dict or isinstance(message, Mapping) else {}
        self.rows.append(row)
        role = history_role(row)
        self.roles.append(role)
        units = self.units
        if role == "assistant":
            self.content.append("")
            calls = self.calls[index] = read_calls(row, self.wire)
            for call in calls:
                self._pending[call.raw_id] = call
                self._owner[call.raw_id] = index
                self.called.add(call.raw_id)
                self.names.setdefault(call.raw_id, call.name)
            self._unit_of[index] = self.last_round_unit = len(units)
            units.append((index,))
            return
        items: Items = ""
        if role in ("user", "tool"):
            items = content_items(row.get("content"))
        self.content.append(items)
        if role == "tool":
            raw_id = tool_call_id(row)
            answered = self._pending.pop(raw_id, None)
            if answered is not None:
                answered.result = index
                answered.failed = failed_result(row)
                self.answering.add(index)
                owner = self._owner.pop(raw_id)
                results = (call.result for call in self.calls[owner])
                units[self._unit_of[owner]] = (
                    owner,
                    *(result for result in results if result is not None),
                )
                return
            self._unanswered.append(index)
        elif role == "user":
            self.users.append(index)
            if _worthy(items):
                self.turn_of[index] = len(self.turn_of)
            self.last_user_unit = len(units)
        units.append((index,))

    def finish(self) -> HistoryRead:
        """Return this read, its orphans found (tool messages whose id no call names)."""
        called, rows = self.called, self.rows
        self.orphans = {i for i in self._unanswered if tool_call_id(rows[i]) not in called}
        return self
