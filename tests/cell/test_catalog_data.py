"""The bundled data: models.json and wire.json agree, look sane, and regenerate exactly.

The regeneration check needs oh-my-pi's catalog extract. Locally and in CI it
sits beside the repository clone, at ../shared/reference/omp; when it is absent
that check is skipped, the rest still run.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from nodecode_cursor.models import catalog, routing

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "nodecode_cursor" / "data"
OMP = REPO.parent / "shared" / "reference" / "omp"
SLUG = re.compile(r"^[a-z0-9][a-z0-9._-]*$")
EFFORTS = {"minimal", "low", "medium", "high", "xhigh", "max"}


def _load(name: str) -> list[dict[str, Any]]:
    """Return the rows of one bundled data file."""
    rows: list[dict[str, Any]] = json.loads((DATA / name).read_text(encoding="utf-8"))
    return rows


def test_the_two_files_name_the_same_models() -> None:
    models = [row["id"] for row in _load("models.json")]
    wire = [row["id"] for row in _load("wire.json")]
    assert models == sorted(models)
    assert wire == sorted(wire)
    assert len(set(wire)) == len(wire)
    assert set(wire) <= set(models)
    assert set(models) == set(wire)


def test_every_routing_target_is_a_plausible_slug() -> None:
    for row in _load("wire.json"):
        targets = [*row["routing"].values(), *row["max_routes"]]
        if row["request"] is not None:
            targets.append(row["request"])
        for target in targets:
            assert SLUG.match(target), (row["id"], target)
        assert SLUG.match(row["id"]), row["id"]


def test_routing_matches_declared_efforts() -> None:
    models = {row["id"]: row for row in _load("models.json")}
    for row in _load("wire.json"):
        declared = set(models[row["id"]]["efforts"])
        assert declared <= EFFORTS, row["id"]
        routed = set(row["routing"]) - {"off"}
        assert routed <= EFFORTS, row["id"]
        if routed:
            assert routed == declared, row["id"]
        if row["request"] is not None:
            assert row["request"] in row["routing"].values(), row["id"]


def test_rows_have_catalog_fields() -> None:
    for row in _load("models.json"):
        assert row["name"]
        assert row["context_window"] > 0
        assert row["max_output"] > 0
        assert set(row["input"]) <= {"text", "image"} and "text" in row["input"]
        assert not row["efforts"] or row["reasoning"]
        assert set(row["cost"]) >= {"input", "output", "cache_read", "cache_write"}


def test_catalog_row() -> None:
    row = catalog.catalog_row("https://example.test")
    assert row["provider"] == "cursor"
    assert row["name"] == "Cursor (Claude, GPT, etc.)"
    assert row["base_url"] == "https://example.test"
    assert row["env"] == ["CURSOR_ACCESS_TOKEN", "CURSOR_API_KEY"]
    by_id = {model["id"]: model for model in row["models"]}
    assert list(by_id) == routing.known_models()
    opus = by_id["claude-opus-5-5"]
    assert opus["context_window"] == 1_000_000
    assert opus["max_output"] == 64_000
    assert opus["efforts"] == ["low", "medium", "high", "xhigh", "max"]
    assert opus["reasoning"] is True
    assert opus["input"] == ["text", "image"]
    assert opus["price"] == {"input": 4, "output": 20, "cache_read": 0.2, "cache_write": 5}
    # priced at zero: a plan's allowance, not a price
    for plan_only in ("composer-1", "composer-1.5", "default", "kimi-k2.5", "grok-code-fast-1"):
        assert by_id[plan_only]["price"] is None, plan_only
    luna = by_id["gpt-5.6-luna"]["price"]
    assert luna["long_context"]["input_threshold"] == 272_000
    assert luna["long_context"]["input"] == 0.4
    # a caller editing its copy does not change the next one
    row["models"].clear()
    assert len(catalog.catalog_row("x")["models"]) == len(by_id)


def test_bundled_models_are_typed_rows() -> None:
    rows = catalog.bundled_models()
    assert all(isinstance(row, catalog.ModelRow) for row in rows)
    found = catalog.find_model("gpt-5.4")
    assert found is not None and found.context_window == 1_000_000
    assert catalog.find_model("no-such-model") is None


def test_root_symlinks_point_into_the_package() -> None:
    # The layout puts these three at the root; the package ships the real files
    # (nodecode_cursor/data/), so a wheel carries them and the root only links.
    for name in ("models.json", "wire.json", "external-tool-handoff.md"):
        link = REPO / name
        assert link.is_symlink()
        assert not Path(link.readlink()).is_absolute()
        assert link.resolve() == (DATA / name).resolve()


@pytest.mark.skipif(
    not OMP.is_dir(), reason="the oh-my-pi reference extract is not beside the repo"
)
@pytest.mark.parametrize(
    ("tool", "name"), [("omp-models.py", "models.json"), ("wire-rows.py", "wire.json")]
)
def test_tools_regenerate_the_data_exactly(tool: str, name: str, tmp_path: Path) -> None:
    out = tmp_path / name
    subprocess.run([sys.executable, str(REPO / "tools" / tool), str(OMP), str(out)], check=True)
    assert out.read_bytes() == (DATA / name).read_bytes()
