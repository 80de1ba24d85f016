"""What tools/omp-models.py and tools/wire-rows.py share: reading omp's rows, writing ours.

Development tooling only. Both scripts read the "cursor" section of an oh-my-pi
checkout's bundled catalog, keep the rows the cursor-agent transport serves,
turn each into a row of their own, and write the rows sorted by id as
pretty-printed JSON with a trailing newline (so a rerun writes the same bytes).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

CATALOG = Path("packages") / "catalog" / "src" / "models.json"

Row = dict[str, Any]


def cursor_rows(checkout: Path) -> dict[str, Row]:
    """Return the cursor-agent rows of the checkout's bundled catalog, by id."""
    bundled = json.loads((checkout / CATALOG).read_text(encoding="utf-8"))
    section = bundled.get("cursor") or {}
    # Only rows the cursor-agent transport serves; anything else in the section
    # would be a row this cell cannot run. Both files name the same models.
    return {key: row for key, row in section.items() if row.get("api") == "cursor-agent"}


def render(checkout: Path, make_row: Callable[[str, Row], Row]) -> str:
    """Return the output file's text: ``make_row`` of every row, sorted by id."""
    rows = [make_row(key, row) for key, row in sorted(cursor_rows(checkout).items())]
    return json.dumps(rows, indent=2, ensure_ascii=False) + "\n"


def main(argv: list[str], usage: str, make_row: Callable[[str, Row], Row]) -> int:
    """Write the rows of ``argv[1]``'s checkout to ``argv[2]``; return the exit status."""
    if len(argv) != 3:
        print(usage, file=sys.stderr)
        return 2
    Path(argv[2]).write_text(render(Path(argv[1]), make_row), encoding="utf-8")
    return 0
