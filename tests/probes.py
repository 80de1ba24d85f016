"""Probes the tests use to see what a round left behind: threads, open descriptors and sockets."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Collection

# Only stops a hung test: a wait below ends as soon as what it waits for happens.
HUNG_SECONDS = 60.0


def threads_left(
    before: Collection[threading.Thread],
    *,
    skip: tuple[str, ...] = (),
    within: float = HUNG_SECONDS,
) -> list[str]:
    """Return the names of the threads started since BEFORE still alive once each is joined.

    Each join ends as its thread does (a simulator connection's thread closes its
    socket first); threads named with a prefix in SKIP are not waited for nor
    named; WITHIN bounds the whole wait.
    """
    deadline = time.monotonic() + within

    def new() -> list[threading.Thread]:
        return [
            t
            for t in threading.enumerate()
            if t not in before
            and t is not threading.current_thread()
            and t.is_alive()
            and not t.name.startswith(skip)
        ]

    for thread in new():
        thread.join(max(0.0, deadline - time.monotonic()))
    return sorted(t.name for t in new())


def settled(done: Callable[[], bool], within: float = HUNG_SECONDS) -> bool:
    """Return whether DONE() holds, looking again every 20 ms for up to WITHIN seconds.

    Only for what no event announces: the process's descriptor table shrinking as
    the garbage collector or another thread closes a socket.
    """
    deadline = time.monotonic() + within
    while not done():
        if time.monotonic() >= deadline:
            return False
        threading.Event().wait(0.02)
    return True


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
