#!/usr/bin/env python3
"""Write the cell's wire.json from an oh-my-pi checkout.

Usage: python tools/wire-rows.py OMP_CHECKOUT OUT_FILE

Development tooling only: the cell ships the file this writes (as
nodecode_cursor/data/wire.json) and never runs this script. It reads
oh-my-pi's bundled catalog (OMP_CHECKOUT/packages/catalog/src/models.json,
provider "cursor") and keeps what the Cursor wire reads per model, one row
per model, sorted by id, every key present in every row:

  id          the public model id
  request     requestModelId: the wire slug a round sends when no effort
              routing names one (null: the id itself)
  routing     thinking.effortRouting: effort -> wire slug, "off" included
              ({} when the row routes nothing)
  max_mode    cursorMaxMode, the row's max-mode marker (null: the row is silent)
  max_routes  cursorMaxModeRoutes: wire slug -> max mode ({} when none)
  projection  requiresCursorToolSchemaProjection: whether the model's tool
              schemas must be projected onto what Cursor's catalog accepts
  class       identity.class, the model's lineage ("openai", "anthropic", ...)
  family      identity.family ("k3", "fable", ...; null when the row has none)

How these combine into a request (effort rounding, the OpenAI sibling collapse,
max mode) is nodecode_cursor/models/routing.py's job; what the host's catalog reads of
the same rows is tools/omp-models.py's. The output is pretty-printed JSON with
a trailing newline, so a rerun on the same checkout writes the same bytes.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import omp_catalog


def wire_row(model_id: str, row: dict[str, Any]) -> dict[str, Any]:
    """Return one wire row as wire.json stores it."""
    thinking = row.get("thinking") or {}
    identity = row.get("identity") or {}
    max_mode = row.get("cursorMaxMode")
    max_routes = row.get("cursorMaxModeRoutes") or {}
    return {
        "id": model_id,
        "request": row.get("requestModelId"),
        "routing": dict(thinking.get("effortRouting") or {}),
        # Kept tri-state on purpose: a silent row lets the roster's marker decide.
        "max_mode": None if max_mode is None else bool(max_mode),
        "max_routes": {slug: bool(flag) for slug, flag in max_routes.items()},
        "projection": bool(row.get("requiresCursorToolSchemaProjection")),
        "class": identity.get("class") or "unknown",
        "family": identity.get("family"),
    }


def render(checkout: Path) -> str:
    """Return the output file's text for the checkout."""
    return omp_catalog.render(checkout, wire_row)


if __name__ == "__main__":
    sys.exit(omp_catalog.main(sys.argv, __doc__.split("\n\n")[1], wire_row))
