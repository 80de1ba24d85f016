"""Simulator routes: placeholder until its issue lands."""

from __future__ import annotations

from typing import Any


def install(sim: Any) -> object:
    """Install nothing yet; return a placeholder state object."""
    return object()
