"""Probes the tests use to see what a round left behind: open descriptors and sockets."""

from __future__ import annotations

import os


def open_fds() -> set[int] | None:
    """Return the process's open descriptor numbers, or None where /proc is missing."""
    try:
        return {int(n) for n in os.listdir("/proc/self/fd")}
    except OSError:
        return None


def fd_target(fd: int) -> str:
    """Return what descriptor FD points at ("socket:[…]", a path), or "?" when it is gone."""
    try:
        return os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        return "?"


def open_sockets() -> int:
    """Return how many sockets this process holds open."""
    return sum(1 for fd in open_fds() or () if fd_target(fd).startswith("socket:"))
