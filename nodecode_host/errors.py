"""The reference host's own errors: what goes wrong on the host's side of the seam.

A broken ``config.json``, an unreadable ``cell.toml``, a bad command line, a
tools or history file that is not what it should be, a lane no cell gives: these
are the host's faults to report, never a cell's, so they are not the cell's
``ConfigError``. Each is one line a person reads; the command line exits 2 for
every ``HostError``. The cell's own errors reach the host through ``contract.py``.
"""

from __future__ import annotations

__all__ = ["HostConfigError", "HostError", "UsageError"]


class HostError(Exception):
    """A fault on the host's side; ``detail`` is the one line a person reads."""

    status = 400

    def __init__(self, detail: str) -> None:
        """Keep DETAIL, the one line."""
        super().__init__(detail)
        self.detail = detail

    def __str__(self) -> str:
        """Return the one line."""
        return self.detail


class HostConfigError(HostError):
    """The host cannot do what it was set up to: config.json, a manifest, a file, no lane."""


class UsageError(HostError):
    """The command line itself is wrong (a missing argument, a bad flag)."""
