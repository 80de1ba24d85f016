"""The answered responses ``serve`` keeps in memory, for ``previous_response_id`` and references.

``ResponseStore`` holds each stored response's conversation (``Kept``: its
messages with the answer, system prompt and Cursor session) and its output items
by id, bounded by count and by what they weigh as JSON, the oldest forgotten
first; the ids of a ``store: false`` response's items are remembered only so a
reference to one can say why it is not kept. The one piece of state the
Responses API has in this host; one store per server (``routes.ApiRoutes``).

What a request or an answer looks like is ``responses_api.py``'s and
``responses_reply.py``'s; this module only keeps and finds.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from . import limits as host_limits

__all__ = ["KEPT_RESPONSES", "Kept", "ResponseStore"]


# How many answered conversations are kept for previous_response_id (oldest forgotten first).
KEPT_RESPONSES = 256


@dataclass(slots=True)
class Kept:
    """One answered response's conversation: its messages (answer included), system, session."""

    messages: list[dict[str, Any]]
    system: str | None
    session_id: str
    # Its output items by id, for item_reference.
    items: dict[str, dict[str, Any]] = field(default_factory=dict)
    # What it weighs, as JSON: its whole (``size``) and each item's (set by the store).
    size: int = 0
    item_sizes: dict[str, int] = field(default_factory=dict)


def _weight(value: Any) -> int:
    """Return how many bytes VALUE takes as JSON (what the store and the budgets count)."""
    return len(json.dumps(value, ensure_ascii=False, default=str).encode("utf-8"))


class ResponseStore:
    """Answered responses by id, for ``previous_response_id``; bounded, oldest forgotten first.

    Their output items are kept by id too (``item``), for ``item_reference``; the ids of
    a ``store: false`` response's items are remembered only to say so (``unstored``).
    """

    def __init__(
        self,
        capacity: int = KEPT_RESPONSES,
        max_bytes: int = host_limits.RESPONSES_STORE_MAX_BYTES,
    ) -> None:
        self.capacity = capacity
        self.max_bytes = max_bytes
        self.bytes = 0  # what the kept responses weigh together (``_weight``)
        self._kept: OrderedDict[str, Kept] = OrderedDict()
        # item id -> the id of the kept response it came in
        self._owner: dict[str, str] = {}
        # item ids of responses not stored, newest last (bounded like the responses)
        self._unstored: OrderedDict[str, None] = OrderedDict()

    def item(self, item_id: str) -> dict[str, Any] | None:
        """Return the kept output item ITEM_ID (None when unknown or forgotten)."""
        owner = self._owner.get(item_id)
        kept = self._kept.get(owner) if owner is not None else None
        return kept.items.get(item_id) if kept is not None else None

    def item_size(self, item_id: str) -> int:
        """Return what the kept item ITEM_ID weighs as JSON (0 when unknown)."""
        owner = self._owner.get(item_id)
        kept = self._kept.get(owner) if owner is not None else None
        return kept.item_sizes.get(item_id, 0) if kept is not None else 0

    def unstored(self, item_id: str) -> bool:
        """Return whether ITEM_ID came in a response sent with ``store: false``."""
        return item_id in self._unstored

    def forget_items(self, items: list[dict[str, Any]]) -> None:
        """Remember that ITEMS (a ``store: false`` response's) were not kept."""
        for item in items:
            if isinstance(item.get("id"), str):
                self._unstored[item["id"]] = None
        while len(self._unstored) > self.capacity * 16:
            self._unstored.popitem(last=False)

    def __len__(self) -> int:
        return len(self._kept)

    def get(self, response_id: str) -> Kept | None:
        """Return the kept conversation of RESPONSE_ID (None when unknown or forgotten)."""
        kept = self._kept.get(response_id)
        if kept is not None:
            self._kept.move_to_end(response_id)
        return kept

    def put(self, response_id: str, kept: Kept) -> None:
        """Keep KEPT under RESPONSE_ID, forgetting the oldest past the capacity or the bytes.

        The newest is kept whatever it weighs: the next turn builds on it.
        """
        kept.item_sizes = {item_id: _weight(item) for item_id, item in kept.items.items()}
        kept.size = _weight(kept.messages) + sum(kept.item_sizes.values())
        old = self._kept.pop(response_id, None)
        if old is not None:
            self.bytes -= old.size
        self._kept[response_id] = kept
        self.bytes += kept.size
        for item_id in kept.items:
            self._owner[item_id] = response_id
        while len(self._kept) > 1 and (
            len(self._kept) > self.capacity or self.bytes > self.max_bytes
        ):
            _, gone = self._kept.popitem(last=False)
            self.bytes -= gone.size
            for item_id in gone.items:
                self._owner.pop(item_id, None)
