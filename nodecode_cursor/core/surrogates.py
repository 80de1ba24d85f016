"""Valid Unicode for the wire: every lone surrogate in a host's values replaced by U+FFFD.

A lone surrogate (JSON's ``\\ud800`` escape can carry one) cannot be sent:
protobuf refuses it. ``valid_unicode`` returns a value with each one replaced,
copying only what changed, so a history that holds one never makes a session
unusable. ``valid_messages`` does it for a round's messages, and with a
``UnicodeMemo`` reads only the messages an earlier round of the session did not.

Pure: values in, values out; the lane applies it (and logs what it changed).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from .seen import PassMemo

__all__ = ["UnicodeMemo", "valid_messages", "valid_unicode"]

_SURROGATE = re.compile("[\ud800-\udfff]")


def _valid_text(text: str) -> str:
    """Return TEXT with surrogate pairs joined and every lone surrogate as U+FFFD."""
    if text.isascii() or _SURROGATE.search(text) is None:
        return text
    # Through UTF-16: a pair spelled as two halves becomes its character, and a
    # lone half cannot decode, so it is replaced.
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


def valid_unicode(value: Any) -> tuple[Any, int]:
    """Return (VALUE with every string valid Unicode, how many strings were changed).

    A lone surrogate (JSON's ``\\ud800`` escape can carry one) cannot be sent:
    protobuf refuses it. It becomes U+FFFD, so a host's history never makes a
    session unusable. Dicts, lists and tuples are copied only where something
    changed; VALUE itself is never modified.
    """
    # The exact types a host's JSON is made of first: every round walks the whole
    # history, and an ABC check per None or number is most of that walk's cost.
    kind = type(value)
    if kind is str:
        if value.isascii():
            return value, 0
        text = _valid_text(value)
        return text, int(text is not value)
    if kind is dict:
        return _valid_mapping(value)
    if kind is list or kind is tuple:
        return _valid_items(value)
    if value is None or kind is int or kind is bool or kind is float:
        return value, 0
    if isinstance(value, str):
        text = _valid_text(value)
        return text, int(text is not value)
    if isinstance(value, Mapping):
        return _valid_mapping(value)
    if isinstance(value, list | tuple):
        return _valid_items(value)
    return value, 0


def _valid_mapping(value: Mapping[Any, Any]) -> tuple[Any, int]:
    """Return ``valid_unicode`` of a mapping: a dict copy where something changed, else VALUE."""
    changed = 0
    out: dict[Any, Any] = {}
    for key, item in value.items():
        # an ASCII key or string (most of them) is valid as it is: no call for it
        if type(key) is str and key.isascii():
            new_key, key_changes = key, 0
        else:
            new_key, key_changes = valid_unicode(key)
        if (type(item) is str and item.isascii()) or item is None:
            new_item, item_changes = item, 0
        else:
            new_item, item_changes = valid_unicode(item)
        out[new_key] = new_item
        changed += key_changes + item_changes
    return (out if changed else value), changed


def _valid_items(value: list[Any] | tuple[Any, ...]) -> tuple[Any, int]:
    """Return ``valid_unicode`` of a list or tuple: a copy where something changed, else VALUE."""
    pairs = [valid_unicode(item) for item in value]
    changed = sum(count for _, count in pairs)
    if not changed:
        return value, 0
    items = [item for item, _ in pairs]
    return (items if isinstance(value, list) else tuple(items)), changed


class UnicodeMemo(PassMemo):
    """What ``valid_messages`` made of a session's messages last round (``seen.PassMemo``).

    Each message read, as ``valid_unicode`` returned it (the same object when it
    was valid), and how many strings were changed in all.
    """

    __slots__ = ("changed", "valid")

    def __init__(self) -> None:
        super().__init__()
        self.reset()

    def reset(self) -> None:
        """Forget what was read."""
        super().reset()
        self.valid: list[Any] = []
        self.changed = 0


def valid_messages(messages: list[Any], memo: UnicodeMemo | None = None) -> tuple[list[Any], int]:
    """Return ``valid_unicode(MESSAGES)``: MESSAGES itself when every string in it is valid.

    MEMO is what an earlier round of the session read (``UnicodeMemo``): a message
    it read is not walked again.
    """
    memo = memo if memo is not None else UnicodeMemo()
    start = memo.known(messages)
    try:
        valid, changed = memo.valid, memo.changed
        for message in messages[start:]:
            fixed, count = valid_unicode(message)
            valid.append(fixed)
            changed += count
        memo.changed = changed
        memo.seen += messages[start:]
    except BaseException:
        memo.reset()
        raise
    return (list(valid) if changed else messages), changed
