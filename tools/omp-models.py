#!/usr/bin/env python3
"""Write the cell's models.json from an oh-my-pi checkout.

Usage: python tools/omp-models.py OMP_CHECKOUT OUT_FILE

Development tooling only: the cell ships the file this writes (as
nodecode_cursor/data/models.json) and never runs this script. It reads
oh-my-pi's bundled catalog (OMP_CHECKOUT/packages/catalog/src/models.json,
provider "cursor") and keeps what a host's model catalog reads, one row per
model, sorted by id:

  id              the public model id (what a turn on cursor/<id> names)
  name            the display name
  context_window  contextWindow, in tokens
  max_output      maxTokens, in tokens
  input           the input kinds ("text", "image")
  reasoning       whether the model thinks
  efforts         thinking.efforts, the efforts a round may ask ([] for none)
  cost            USD per million tokens: input, output, cache_read,
                  cache_write, and long_context (input_threshold plus the same
                  four prices) when the row has a long-context tier

Prices are copied as they stand, zeros included: deciding that a zero price
is a plan's rather than a price is the catalog's job (nodecode_cursor/models/catalog.py).
What the wire reads of the same rows (routing, max mode) is tools/wire-rows.py's.
The output is pretty-printed JSON with a trailing newline, so a rerun on the
same checkout writes the same bytes.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import omp_catalog

# omp's cost keys -> ours; the order here is the order written.
PRICE_KEYS = (
    ("input", "input"),
    ("output", "output"),
    ("cacheRead", "cache_read"),
    ("cacheWrite", "cache_write"),
)


def prices(cost: dict[str, Any]) -> dict[str, Any]:
    """Return omp's cost block in our field names, long-context tier included when present."""
    out: dict[str, Any] = {ours: cost.get(theirs, 0) for theirs, ours in PRICE_KEYS}
    tier = cost.get("longContext")
    if tier:
        long_context: dict[str, Any] = {"input_threshold": tier["inputThreshold"]}
        long_context.update({ours: tier.get(theirs, 0) for theirs, ours in PRICE_KEYS})
        out["long_context"] = long_context
    return out


def model_row(model_id: str, row: dict[str, Any]) -> dict[str, Any]:
    """Return one catalog row as models.json stores it."""
    thinking = row.get("thinking") or {}
    return {
        "id": model_id,
        "name": row.get("name") or model_id,
        "context_window": row["contextWindow"],
        "max_output": row["maxTokens"],
        "input": list(row.get("input") or ["text"]),
        "reasoning": bool(row.get("reasoning")),
        "efforts": list(thinking.get("efforts") or []),
        "cost": prices(row.get("cost") or {}),
    }


def render(checkout: Path) -> str:
    """Return the output file's text for the checkout."""
    return omp_catalog.render(checkout, model_row)


if __name__ == "__main__":
    sys.exit(omp_catalog.main(sys.argv, __doc__.split("\n\n")[1], model_row))
