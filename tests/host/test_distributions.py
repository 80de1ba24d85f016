"""The host's own reader of installed distributions answers as ``importlib.metadata`` does.

``distributions.py`` stands in for ``importlib.metadata`` at start-up (cells by
entry point, ``--version``). Each test asks both the same question, of this
interpreter's ``sys.path`` or of a made-up path with the cases that decide an
answer: a name spelt two ways, the same distribution twice (the first wins), an
egg-info, comments and other groups in ``entry_points.txt``, a path entry that is
not a folder.
"""

from __future__ import annotations

import importlib.metadata
from pathlib import Path

from nodecode_host import distributions
from nodecode_host.cell_sources import ENTRY_POINT_GROUP


def stdlib_points(group: str, path: list[str] | None = None) -> list[tuple[str, str]]:
    """Return (name, value) of GROUP's entry points as importlib.metadata finds them on PATH."""
    if path is None:
        points = importlib.metadata.entry_points(group=group)
    else:
        # entry_points() of one path: its unique distributions, as entry_points() keeps them.
        seen: set[str] = set()
        found = []
        for dist in importlib.metadata.distributions(path=path):
            name = distributions.normalized(dist.metadata["Name"])
            if name in seen:
                continue
            seen.add(name)
            found.extend(p for p in dist.entry_points if p.group == group)
        points = importlib.metadata.EntryPoints(found)
    return sorted((p.name, p.value) for p in points)


def ours(group: str, path: list[str] | None = None) -> list[tuple[str, str]]:
    """Return (name, value) of GROUP's entry points as distributions.py finds them on PATH."""
    return sorted((p.name, p.value) for p in distributions.entry_points(group, path=path))


def test_this_interpreters_cells_and_scripts_are_found_alike() -> None:
    assert ours(ENTRY_POINT_GROUP) == stdlib_points(ENTRY_POINT_GROUP)
    assert ("cursor", "nodecode_cursor.cell:cell") in ours(ENTRY_POINT_GROUP)
    assert ours("console_scripts") == stdlib_points("console_scripts")


def test_this_interpreters_version_is_read_alike() -> None:
    for name in ("nodecode-cursor", "nodecode_cursor", "NodeCode.Cursor", "pytest", "httpx"):
        assert distributions.version(name) == importlib.metadata.version(name)
    assert distributions.version("no-such-distribution-here") is None


def _dist(root: Path, folder: str, name: str, version: str, points: str | None) -> None:
    """Write a distribution's metadata FOLDER under ROOT."""
    where = root / folder
    where.mkdir(parents=True)
    header = "METADATA" if folder.endswith(".dist-info") else "PKG-INFO"
    (where / header).write_text(
        f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n\nVersion: not this\n"
    )
    if points is not None:
        (where / "entry_points.txt").write_text(points)


def test_a_made_up_path_is_read_alike(tmp_path: Path) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    points = (
        "# a comment\n; another\n[console_scripts]\nrun = a.cli:main\n\n"
        f"[{ENTRY_POINT_GROUP}]\n  alpha = alpha_cell.cell:cell\n"
    )
    _dist(first, "Alpha_Cell-1.0.dist-info", "alpha-cell", "1.0", points)
    # The same distribution later on the path, spelt another way: the first one wins.
    later = f"[{ENTRY_POINT_GROUP}]\nalpha = stale.cell:cell\n"
    _dist(second, "alpha.cell-0.9.dist-info", "alpha.cell", "0.9", later)
    _dist(second, "beta-2.0.egg-info", "beta", "2.0", f"[{ENTRY_POINT_GROUP}]\nbeta=b:cell\n")
    _dist(second, "gamma-3.0.dist-info", "gamma", "3.0", None)  # no entry points at all
    not_a_folder = tmp_path / "archive.zip"
    not_a_folder.write_bytes(b"")
    path = [str(not_a_folder), str(first), str(tmp_path / "missing"), str(second)]

    assert ours(ENTRY_POINT_GROUP, path) == stdlib_points(ENTRY_POINT_GROUP, path)
    assert ours(ENTRY_POINT_GROUP, path) == [("alpha", "alpha_cell.cell:cell"), ("beta", "b:cell")]
    assert ours("console_scripts", path) == stdlib_points("console_scripts", path)
    for name, version in (
        ("alpha-cell", "1.0"),
        ("ALPHA.CELL", "1.0"),
        ("beta", "2.0"),
        ("gamma", "3.0"),
    ):
        assert distributions.version(name, path=path) == version
        stdlib = next(iter(importlib.metadata.distributions(name=name, path=path)))
        assert stdlib.version == version
    assert distributions.version("delta", path=path) is None
