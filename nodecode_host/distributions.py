"""What the installed distributions declare, read without ``importlib.metadata``.

``importlib.metadata`` costs more to import than the whole of ``nodecode-cursor
status`` may take (it loads ``email``, ``zipfile`` and ``importlib.resources``),
and a host asks it two things only: the entry points of one group (how cells are
found, ``cell_sources.discover_cells``) and one distribution's version (``--version``).
Both are read here the way ``importlib.metadata`` reads them from the folders on
``sys.path``: each ``*.dist-info`` or ``*.egg-info`` folder names its distribution
before its first dash, names are compared normalized (PEP 503, ``-``/``_``/``.``
alike, any case), and the first folder found for a name wins, in ``sys.path``
order. ``entry_points.txt`` is read as ``importlib.metadata`` reads it (sections,
``name = value``, ``#``/``;`` comments); the version is the ``Version:`` header of
``METADATA`` (``PKG-INFO`` in an egg-info). Zip archives on the path and the
distributions of custom ``sys.meta_path`` finders are not looked in: a cell
installed in either is not found (use a drop-in folder). ``benchmarks/startup.py``
measures what this saves: a third of ``status``'s CPU (docs/architecture.md). Loading
what an entry point names is the caller's.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterable, Iterator
from typing import NamedTuple

__all__ = ["EntryPoint", "entry_points", "normalized", "version"]

_SUFFIXES = (".dist-info", ".egg-info")
_SEPARATORS = re.compile(r"[-_.]+")


class EntryPoint(NamedTuple):
    """One entry point: its NAME, its VALUE (``module:attr``) and its distribution's folder."""

    name: str
    value: str
    group: str
    folder: str


def normalized(name: str) -> str:
    """Return the distribution NAME as ``importlib.metadata`` compares it (``my_dist``)."""
    return _SEPARATORS.sub("_", name).lower()


def _folders(path: Iterable[str] | None) -> Iterator[tuple[str, str]]:
    """Yield (normalized name, folder) for the first metadata folder of each distribution."""
    seen: set[str] = set()
    for entry in sys.path if path is None else path:
        root = entry or "."
        try:
            children = os.listdir(root)
        except OSError:  # not a folder (a zip archive, a file), or gone
            continue
        for child in children:
            low = child.lower()
            if not low.endswith(_SUFFIXES):
                continue
            name = normalized(low.rpartition(".")[0].partition("-")[0])
            if name in seen:
                continue
            seen.add(name)
            yield name, os.path.join(root, child)


def _read(path: str) -> str | None:
    """Return the text of the file PATH, or None when it cannot be read."""
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read()
    except (OSError, UnicodeDecodeError):
        return None


def _pairs(text: str, group: str) -> Iterator[tuple[str, str]]:
    """Yield (name, value) for each entry of the section GROUP in an entry_points.txt TEXT."""
    section: str | None = None
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("[") and line.endswith("]"):
            section = line[1:-1].strip()
            continue
        if section == group and "=" in line:
            name, _, value = line.partition("=")
            yield name.strip(), value.strip()


def entry_points(group: str, *, path: Iterable[str] | None = None) -> list[EntryPoint]:
    """Return the entry points in GROUP of every distribution on PATH (``sys.path``)."""
    found: list[EntryPoint] = []
    for _, folder in _folders(path):
        text = _read(os.path.join(folder, "entry_points.txt"))
        if text is not None:
            found.extend(EntryPoint(n, v, group, folder) for n, v in _pairs(text, group))
    return found


def version(distribution: str, *, path: Iterable[str] | None = None) -> str | None:
    """Return the version DISTRIBUTION declares on PATH (``sys.path``), or None if not found."""
    wanted = normalized(distribution)
    for name, folder in _folders(path):
        if name != wanted:
            continue
        for metadata in ("METADATA", "PKG-INFO"):
            text = _read(os.path.join(folder, metadata))
            if text is None:
                continue
            for line in text.splitlines():
                if not line.strip():
                    break  # the headers end at the first blank line
                if line.lower().startswith("version:"):
                    return line.partition(":")[2].strip()
        return None
    return None
