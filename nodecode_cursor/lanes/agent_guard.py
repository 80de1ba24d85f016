"""Stands between the host and Cursor's CLI so that nothing of the CLI outlives the host.

Run as a script by path (``python -I -S agent_guard.py FD -- CLI ARGS...``; the
cursor-agent lane, ``agent_lane.py``, starts it), never imported: it uses the
standard library only, so it runs the same whichever copy of the cell is loaded.
The host starts it as the leader of a new process group and keeps the write end
of a pipe whose read end is FD. The guard starts the CLI in its own group, with
the standard streams, environment and working folder it was given, and then:

* when FD reads end of file, the host has closed it or died (a SIGKILL included:
  the kernel closes a dead process's files), and the guard kills its whole
  process group with SIGKILL: the CLI, whatever the CLI started in its group, and
  the guard itself;
* otherwise it waits for the CLI and ends the way the CLI ended: the same exit
  status, or killed by the same signal, so the host reads the CLI's own outcome;
* a SIGTERM sent to the group (how the host ends a round) reaches the CLI as
  usual; the guard itself outlives it only to report how the CLI ended.

What the CLI starts in a group or session of its own is beyond any group signal
and is left to it. Deciding when to end a round is the lane's.
"""

from __future__ import annotations

import os
import signal
import sys
import threading

# The exit status when the CLI cannot be started at all (a shell's "not executable").
CANNOT_START = 127


def _ignore(signum: int, frame: object) -> None:
    """Do nothing: the CLI got the same SIGTERM; the guard waits to report its end."""


def _watch(fd: int) -> None:
    """Block until the host's end of FD closes, then kill the whole group (returns never)."""
    while True:
        try:
            chunk = os.read(fd, 512)
        except OSError:
            chunk = b""
        if not chunk:
            break
    os.killpg(0, signal.SIGKILL)


def _start(command: list[str], fd: int) -> int:
    """Return the pid of COMMAND started in this group, its signals as by default, without FD."""
    pid = os.fork()
    if pid:
        return pid
    try:
        os.close(fd)  # the CLI must not hold the pipe: only the host's end decides
        # As the CLI would start without the guard: Python ignores SIGPIPE and SIGXFSZ,
        # and an ignored signal stays ignored across exec.
        for signum in (signal.SIGTERM, signal.SIGPIPE, signal.SIGXFSZ):
            signal.signal(signum, signal.SIG_DFL)
        os.execvp(command[0], command)
    except OSError as exc:
        name = os.path.basename(command[0])
        os.write(2, f"could not start {name}: {exc.strerror or exc}\n".encode(errors="replace"))
    os._exit(CANNOT_START)


def main(argv: list[str]) -> int:
    """Run the CLI ARGV names under the guard; return its exit status (or die by its signal)."""
    if len(argv) < 4 or argv[2] != "--" or not (argv[1].isascii() and argv[1].isdigit()):
        os.write(2, b"usage: agent_guard.py FD -- COMMAND [ARGS...]\n")
        return 2
    fd, command = int(argv[1]), argv[3:]
    signal.signal(signal.SIGTERM, _ignore)
    pid = _start(command, fd)
    threading.Thread(target=_watch, args=(fd,), daemon=True).start()
    # The CLI's stdin and stdout are its own: the host's reader sees end of file when it ends.
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 0)
    os.dup2(devnull, 1)
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status):
        signum = os.WTERMSIG(status)
        if signum != signal.SIGKILL:  # SIGKILL cannot be caught, nor its action set
            signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)
        return 128 + signum  # only if the signal could not end this process
    return os.waitstatus_to_exitcode(status)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
