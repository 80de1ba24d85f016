"""The guard between the host and Cursor's CLI: the CLI's end passes through; the host's ends all.

Each test runs the real guard script (``nodecode_cursor/lanes/agent_guard.py``) as the
cursor-agent lane does, leading a new process group and holding a pipe's read
end, over a small shell command standing in for the CLI.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from standin import ended, pidfd, running_in_group

import nodecode_cursor.lanes.agent_guard

GUARD = Path(nodecode_cursor.lanes.agent_guard.__file__)


class Guarded:
    """One guarded command: the guard's process and the host's end of its pipe."""

    def __init__(self, *command: str) -> None:
        watch, self.host_end = os.pipe()
        try:
            self.process = subprocess.Popen(
                [sys.executable, "-I", "-S", str(GUARD), str(watch), "--", *command],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=True,
                pass_fds=(watch,),
                bufsize=0,  # unbuffered: a line read leaves the next in the pipe, for select
            )
        finally:
            os.close(watch)

    def line(self) -> str:
        """Return the next line the command printed (waiting at most 30 s for it)."""
        assert self.process.stdout is not None
        ready, _, _ = select.select([self.process.stdout], [], [], 30)
        assert ready, "the command printed nothing"
        return self.process.stdout.readline().decode().strip()

    def close(self) -> None:
        """End whatever is left (returns nothing)."""
        if self.host_end >= 0:
            os.close(self.host_end)
            self.host_end = -1
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.communicate(timeout=30)


@pytest.fixture
def guarded() -> Iterator[list[Guarded]]:
    made: list[Guarded] = []
    yield made
    for one in made:
        one.close()


def start(made: list[Guarded], script: str) -> Guarded:
    """Return the guard running ``sh -c SCRIPT``, ended with the test."""
    one = Guarded("sh", "-c", script)
    made.append(one)
    return one


@pytest.mark.parametrize("status", [0, 1, 7, 64])
def test_the_clis_exit_status_passes_through(guarded: list[Guarded], status: int) -> None:
    one = start(guarded, f"echo out; echo err >&2; exit {status}")
    out, err = one.process.communicate(timeout=30)
    assert one.process.returncode == status
    # The CLI's streams are the host's pipes themselves, and the guard adds nothing to them.
    assert (out, err) == (b"out\n", b"err\n")


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGKILL, signal.SIGINT])
def test_the_signal_that_killed_the_cli_passes_through(
    guarded: list[Guarded], signum: signal.Signals
) -> None:
    one = start(guarded, f"kill -{int(signum)} $$")
    one.process.communicate(timeout=30)
    assert one.process.returncode == -signum


def test_the_cli_starts_with_no_signal_ignored_that_the_guard_ignores(
    guarded: list[Guarded],
) -> None:
    # Python ignores SIGPIPE and SIGXFSZ, exec keeps what is ignored, and the guard
    # catches SIGTERM: the CLI must start with each of them at its default action, as
    # it would started from the host directly (subprocess restores them too).
    one = start(guarded, "grep '^SigIgn:' /proc/$$/status")
    out, _ = one.process.communicate(timeout=30)
    ignored = int(out.decode().split()[1], 16)
    for signum in (signal.SIGPIPE, signal.SIGXFSZ, signal.SIGTERM, signal.SIGINT):
        assert not ignored & (1 << (signum - 1)), signal.Signals(signum).name


def test_sigterm_to_the_group_ends_the_cli_and_reports_its_end(guarded: list[Guarded]) -> None:
    # How the lane ends a round: SIGTERM to the whole group. The CLI ends by it; the guard
    # outlives it only to report that, so the host reads the CLI's own end.
    one = start(guarded, "echo up; exec sleep 600")
    assert one.line() == "up"
    os.killpg(one.process.pid, signal.SIGTERM)
    one.process.communicate(timeout=30)
    assert one.process.returncode == -signal.SIGTERM


def test_closing_the_host_end_kills_the_whole_group(guarded: list[Guarded]) -> None:
    # The CLI starts a child of its own in its group (a tool, a server), then waits.
    one = start(guarded, "sleep 600 & echo $!; echo $$; wait")
    child, cli = int(one.line()), int(one.line())
    watched = [pidfd(child), pidfd(cli), pidfd(one.process.pid)]
    group = one.process.pid
    assert sorted(running_in_group(group)) == sorted({group, cli, child})
    os.close(one.host_end)  # what the kernel does for a host that was SIGKILLed
    one.host_end = -1
    assert all(ended(fd, within=30) for fd in watched)
    assert running_in_group(group) == []
    one.process.communicate(timeout=30)
    assert one.process.returncode == -signal.SIGKILL


def test_a_cli_that_cannot_start_says_so(guarded: list[Guarded], tmp_path: Path) -> None:
    one = Guarded(str(tmp_path / "no-such-cli"))
    guarded.append(one)
    _, err = one.process.communicate(timeout=30)
    assert one.process.returncode == nodecode_cursor.lanes.agent_guard.CANNOT_START
    assert err.decode() == "could not start no-such-cli: No such file or directory\n"


def test_a_guard_run_without_its_pipe_is_a_usage_error() -> None:
    done = subprocess.run(
        [sys.executable, "-I", "-S", str(GUARD), "sh"], capture_output=True, timeout=30
    )
    assert done.returncode == 2
    assert done.stderr.startswith(b"usage: agent_guard.py FD -- COMMAND")
