"""What the simulated account's plan says of each model: its slugs, its window, whose it is.

Cursor refuses a run bare when the request is past the model's context window,
when the account's roster does not list the model, and, while the account's pool
for third-party models is spent, for every model that is not Cursor's own
(docs/protocol.md §9). To refuse the same, the simulator needs each slug's
context window and owner, and a roster that lists what a real account's plan
allows. Those come from the rows the cell bundles (``nodecode_cursor/data``:
models.json for windows, wire.json for the sibling slugs each model routes to),
read as plain data: Cursor sells those models, so an account lists them.
"""

from __future__ import annotations

import functools
import json
from importlib import resources
from typing import Any

__all__ = ["bundled_slugs", "context_window", "cursor_own"]


def _rows(name: str) -> list[dict[str, Any]]:
    """Return the rows of the bundled data file NAME."""
    text = resources.files("nodecode_cursor").joinpath("data", name).read_text("utf-8")
    rows = json.loads(text)
    return [row for row in rows if isinstance(row, dict) and isinstance(row.get("id"), str)]


@functools.cache
def _windows() -> dict[str, int]:
    """Return each model id and sibling slug with its context window in tokens."""
    windows = {
        row["id"]: int(row["context_window"])
        for row in _rows("models.json")
        if isinstance(row.get("context_window"), int)
    }
    for row in _rows("wire.json"):
        window = windows.get(row["id"])
        if window is None:
            continue
        for slug in _slugs_of(row):
            windows.setdefault(slug, window)
    return windows


def _slugs_of(row: dict[str, Any]) -> list[str]:
    """Return the wire slugs one wire.json row routes to (its efforts and max routes)."""
    routing = row.get("routing")
    routes = row.get("max_routes")
    slugs = [v for v in routing.values() if isinstance(v, str)] if isinstance(routing, dict) else []
    slugs += [k for k in routes if isinstance(k, str)] if isinstance(routes, dict) else []
    return slugs


@functools.cache
def bundled_slugs() -> tuple[str, ...]:
    """Return every model id and sibling slug the bundled rows name, sorted."""
    found = {row["id"] for row in _rows("wire.json")} | set(_windows())
    for row in _rows("wire.json"):
        found.update(_slugs_of(row))
    return tuple(sorted(found))


def context_window(*slugs: str) -> int | None:
    """Return the context window of the first of SLUGS the rows know, or None."""
    windows = _windows()
    return next((windows[s] for s in slugs if s in windows), None)


def cursor_own(slug: str) -> bool:
    """Return whether SLUG is Cursor's own model (Composer, Auto, cursor-*), not a third party's."""
    return slug in ("auto", "default") or slug.startswith(("composer-", "cursor-"))
