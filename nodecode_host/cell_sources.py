"""Where the reference host finds its cells, and how it imports one.

A cell comes from an entry point in the group ``nodecode.cells`` (read by
``distributions.py``; ``NODECODE_ENTRY_POINTS=0`` turns them off) or from a
drop-in folder ``$NODECODE_HOME/cells/*/cell.toml`` (its ``entry`` names the
cell as ``module:attr``, its ``[config.*]`` tables the sections' defaults).
``discover_cells`` lists them, folders first; ``import_cell`` imports one, a
folder first on the import path and refused before the import when it lacks the
package it names (``CellNotInFolder``); ``outside_folder`` words the warning for
a folder's cell whose module was loaded from elsewhere.

What the host then does with a cell (the veto, starting it, its lanes and
commands) is ``refhost.py``'s.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from .distributions import entry_points as installed_entry_points
from .errors import HostConfigError

__all__ = [
    "ENTRY_POINTS_ENV",
    "ENTRY_POINT_GROUP",
    "CellNotInFolder",
    "CellSource",
    "discover_cells",
    "import_cell",
    "outside_folder",
]


ENTRY_POINT_GROUP = "nodecode.cells"
# "0" (or "off", "no", "false") makes the host ignore entry points and load only
# drop-in folders: how a person (or a test) proves a folder loads on its own.
ENTRY_POINTS_ENV = "NODECODE_ENTRY_POINTS"


@dataclass(frozen=True, slots=True)
class CellSource:
    """Where a cell comes from: an entry point, or a drop-in folder's cell.toml."""

    name: str
    origin: Literal["entry point", "folder"]
    entry: str
    folder: Path | None = None
    # Config sections the manifest declares (a folder's [config.*] tables) and their defaults.
    defaults: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)


def _entry_points_enabled() -> bool:
    """Return whether entry-point discovery is on (NODECODE_ENTRY_POINTS not falsy)."""
    value = os.environ.get(ENTRY_POINTS_ENV, "").strip().lower()
    return value not in {"0", "off", "no", "false"}


def _folder_source(manifest: Path) -> CellSource:
    """Return the CellSource a cell.toml describes; HostConfigError when it is unusable."""
    import tomllib  # here: a home without drop-in folders never parses TOML

    try:
        data = tomllib.loads(manifest.read_text("utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise HostConfigError(f"cannot read the cell manifest {manifest}: {exc}") from None
    entry = data.get("entry")
    if not isinstance(entry, str) or ":" not in entry:
        raise HostConfigError(f'{manifest}: entry must be "module:attr"')
    config = data.get("config") or {}
    defaults = {k: dict(v) for k, v in config.items() if isinstance(v, dict)}
    name = data.get("name") if isinstance(data.get("name"), str) else manifest.parent.name
    return CellSource(str(name), "folder", entry, manifest.parent, defaults)


def discover_cells(
    home: Path, *, entry_points: bool | None = None
) -> tuple[list[CellSource], list[str]]:
    """Return (the cells found, one line per folder that could not be read), folders first."""
    found: list[CellSource] = []
    problems: list[str] = []
    for manifest in sorted((home / "cells").glob("*/cell.toml")):
        try:
            found.append(_folder_source(manifest))
        except HostConfigError as exc:
            problems.append(str(exc))
    if entry_points if entry_points is not None else _entry_points_enabled():
        # Read as importlib.metadata reads them, without its import (distributions.py).
        for point in installed_entry_points(ENTRY_POINT_GROUP):
            found.append(CellSource(point.name, "entry point", point.value))
    return found, problems


class CellNotInFolder(HostConfigError):
    """A drop-in folder's cell.toml names a module the folder does not hold."""


def outside_folder(source: CellSource, module_file: str | None) -> str | None:
    """Return the warning for a folder's cell whose module came from elsewhere, or None."""
    if source.folder is None or module_file is None:
        return None
    if Path(module_file).resolve().is_relative_to(source.folder.resolve()):
        return None
    return (
        f"cell {source.name} (folder {source.folder}) was loaded from {module_file}, "
        "outside its folder: a copy imported earlier shadows the folder's"
    )


def import_cell(source: CellSource) -> tuple[Any, str | None]:
    """Return (the cell object SOURCE names, the file of its module).

    A folder goes first on the import path. The host has imported nothing of any
    cell yet (``contract.py``), so the folder's copy of a package is the one loaded,
    even where the same package is installed too.
    """
    module_name, _, attr = source.entry.partition(":")
    if source.folder is not None:
        folder = str(source.folder)
        top = module_name.partition(".")[0]
        # Checked before the import: without its package, the folder would quietly lend
        # its name to whichever copy is installed.
        if importlib.machinery.PathFinder.find_spec(top, [folder]) is None:
            raise CellNotInFolder(
                f"the folder {folder} holds no {top} package (its cell.toml names "
                f'"{source.entry}"); copy the package into the folder, or remove the folder'
            )
        if folder not in sys.path:
            sys.path.insert(0, folder)
    module = importlib.import_module(module_name)
    target: Any = module
    for part in attr.split("."):
        target = getattr(target, part)
    return target, getattr(module, "__file__", None)
