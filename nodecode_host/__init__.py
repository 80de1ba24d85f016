"""The reference host: a Nodecode-style host in miniature that runs cells from a terminal.

It discovers cells (entry points in ``nodecode.cells`` and drop-in folders),
runs the turn loop with its own bounded, confined tools, and offers the
``nodecode-cursor`` command: chat, ask, models, sign-in, the offline demo and
``serve``, an OpenAI-compatible API. It reaches the cell only through the host
contract (``nodecode_cursor.host``), the cell's errors and the cell object, the
way any host would, and imports none of them before the cells are loaded
(``contract.py``); nothing in the cell imports it.
"""

from __future__ import annotations

from typing import Any

__all__ = ["__version__"]


def __getattr__(name: str) -> Any:
    """Return ``__version__`` on first use, read from the installed distribution's metadata."""
    if name != "__version__":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from .distributions import version as installed_version

    # The host ships in the nodecode-cursor distribution; its version is the distribution's
    # (read without importlib.metadata, whose import alone costs more than --version may).
    version = installed_version("nodecode-cursor") or "0.0.0+unknown"
    globals()["__version__"] = version
    return version
