"""The cell object a host loads: ``nodecode_cursor.cell:cell``.

It declares what the cell contributes — the ``cursor`` lane, the catalog row,
the credential resolver, the model listing, the ``/cursor`` command — and
installs or removes them when the host starts or stops it. The work itself
lives in the modules it names; this file only wires them to the host.
"""

from __future__ import annotations

from typing import Any

from .host import Host

__all__ = ["CursorCell", "cell"]


class CursorCell:
    """The nodecode-cursor cell."""

    name = "nodecode-cursor"
    provider = "cursor"

    def __init__(self) -> None:
        self.host: Host | None = None

    def start(self, host: Host) -> None:
        """Install the cell into ``host``."""
        self.host = host

    def stop(self) -> None:
        """Take the cell out of its host."""
        self.host = None

    def config(self) -> dict[str, Any]:
        """Return the cell's config section as the host holds it."""
        return dict(self.host.config("cursor")) if self.host is not None else {}


cell = CursorCell()
