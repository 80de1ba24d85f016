"""A shell command run for the model: its output bounded as it streams, its whole tree stopped.

``run_shell`` runs one command in a session of its own, keeps only the head and
tail of its output while it reads (``HeadTail``), and at its timeout kills every
process of its tree, including one that left the session but still holds the
output pipe. The command's environment lacks the host's own secrets
(``child_environment``).

Whether a command may run (the person's confirmation, ``--yes``) is
``host_tools.HostTools.run_command``'s to decide; Cursor's own shell asks run
through ``native_tools.py``, which shares ``HeadTail`` and ``child_environment``.
"""

from __future__ import annotations

import contextlib
import os
import selectors
import signal
import subprocess
import time
from collections import deque
from pathlib import Path

from . import limits as host_limits
from .toolbox import bound_output

__all__ = ["CHILD_SECRET_ENV", "HeadTail", "child_environment", "run_shell"]


# The secrets the host itself is given, which no command the model runs may inherit.
CHILD_SECRET_ENV = frozenset({"CURSOR_ACCESS_TOKEN", "CURSOR_API_KEY", "NODECODE_SERVE_API_KEY"})


def child_environment() -> dict[str, str]:
    """Return the host's environment without the secrets a command must not inherit."""
    return {k: v for k, v in os.environ.items() if k not in CHILD_SECRET_ENV}


class HeadTail:
    """A stream's first HEAD and last TAIL bytes, and how many were dropped between."""

    def __init__(self, head: int, tail: int) -> None:
        self.head = bytearray()
        self.tail: deque[bytes] = deque()
        self.tail_size = 0
        self.dropped = 0
        self._head_room = head
        self._tail_room = tail

    def add(self, chunk: bytes) -> None:
        """Keep CHUNK's part that belongs to the head or the tail (returns nothing)."""
        room = self._head_room - len(self.head)
        if room > 0:
            self.head += chunk[:room]
            chunk = chunk[room:]
        if not chunk:
            return
        self.tail.append(chunk)
        self.tail_size += len(chunk)
        while self.tail_size - len(self.tail[0]) >= self._tail_room:
            self.dropped += len(self.tail[0])
            self.tail_size -= len(self.tail.popleft())
        extra = self.tail_size - self._tail_room
        if extra > 0:
            self.tail[0] = self.tail[0][extra:]
            self.tail_size -= extra
            self.dropped += extra

    def text(self) -> str:
        """Return what was kept, the dropped middle named."""
        head = bytes(self.head).decode("utf-8", errors="replace")
        tail = b"".join(self.tail).decode("utf-8", errors="replace")
        if self.dropped:
            return f"{head}\n… [{self.dropped} bytes of output dropped] …\n{tail}"
        return head + tail


def run_shell(command: str, cwd: Path, timeout: float) -> str:
    """Return 'exit code N' and the output of COMMAND run by the shell in CWD.

    Output is read as it comes and only its head and tail are kept. At TIMEOUT the
    command's whole tree is killed and the host stops waiting, even when a child
    that left the session still holds the output open.
    """
    # A session of its own lets a timeout (or Ctrl-C) stop the command's children too.
    process = subprocess.Popen(
        command,
        shell=True,
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
        env=child_environment(),
    )
    assert process.stdout is not None
    output = HeadTail(host_limits.COMMAND_OUTPUT_HEAD_BYTES, host_limits.COMMAND_OUTPUT_TAIL_BYTES)
    deadline = time.monotonic() + timeout
    pipe = os.fstat(process.stdout.fileno()).st_ino
    timed_out = False
    try:
        with selectors.DefaultSelector() as selector:
            selector.register(process.stdout, selectors.EVENT_READ)
            while True:
                left = deadline - time.monotonic()
                if left <= 0:
                    timed_out = True
                    break
                if selector.select(left):
                    chunk = os.read(process.stdout.fileno(), 65536)
                    if not chunk:
                        break
                    output.add(chunk)
        if not timed_out:
            try:
                process.wait(max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                timed_out = True
    except BaseException:
        _kill_tree(process, pipe)
        process.stdout.close()
        process.wait()
        raise
    if timed_out:
        _kill_tree(process, pipe)
    process.stdout.close()
    process.wait()
    if timed_out:
        return bound_output(f"stopped after {timeout:g} s (timeout)\n{output.text()}")
    return bound_output(f"exit code {process.returncode}\n{output.text()}")


def _kill_tree(process: subprocess.Popen[bytes], pipe: int) -> None:
    """Stop PROCESS and everything it started: its group, its session, and any process
    still holding its output pipe (one that called setsid has left both)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
    for pid in _tree_members(process.pid, pipe):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)
    with contextlib.suppress(ProcessLookupError):
        process.kill()


def _tree_members(leader: int, pipe: int) -> list[int]:
    """Return the processes (Linux /proc) in LEADER's session, below it, or holding PIPE."""
    proc = Path("/proc")
    if not proc.is_dir():
        return []
    parents: dict[int, int] = {}
    members: set[int] = set()
    me = os.getpid()
    for entry in proc.iterdir():
        if not (entry.name.isascii() and entry.name.isdigit()) or int(entry.name) == me:
            continue
        pid = int(entry.name)
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            parents[pid] = int(fields[1])
            if int(fields[3]) == leader:  # the session the command was started in
                members.add(pid)
            for fd in (entry / "fd").iterdir():
                if os.readlink(fd) == f"pipe:[{pipe}]":
                    members.add(pid)
                    break
        except (OSError, IndexError, ValueError):
            continue
    for pid in parents:  # descendants, through however many parents
        seen: set[int] = set()
        parent = parents.get(pid)
        while parent is not None and parent not in seen and parent > 1:
            if parent == leader:
                members.add(pid)
                break
            seen.add(parent)
            parent = parents.get(parent)
    return sorted(members)
