"""Shared helpers of the command-line tests: the environment, in-process and subprocess runs.

``run_main`` drives ``nodecode_host.cli.main(argv)`` in this process with its
own environment, working folder, stdin and captured stdout/stderr: what a
command prints and its exit code, without a process start-up. ``run_cli`` runs
the real ``nodecode-cursor`` as a subprocess, for what a process is the point
of: which copy of a package it imports, a pseudo-terminal, signals, a sign-in
waiting in the background. The simulator runs in the test process either way,
so each test can read what it received.
"""

from __future__ import annotations

import contextlib
import io
import logging
import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from cursor_simulator import Simulator
from nodecode_cursor.errors import NOT_SIGNED_IN
from nodecode_host.cli import main

REPO = Path(__file__).resolve().parents[2]
TOKEN = "sim-token-for-cli-tests"
# A subprocess start-up plus a round on loopback takes well under this.
RUN_TIMEOUT = 60
CLI = [sys.executable, "-m", "nodecode_host.cli"]
ENV_STATUS = "cursor: not signed in; a token from the environment (CURSOR_ACCESS_TOKEN) is used"


def sign_in_status(line: str) -> str:
    """Return the sign-in half of a status LINE (what it says of Cursor's CLI, last, set aside).

    The CLI's part names the binary found (``agent``, ``cursor-agent``) or that neither is.
    """
    head, said, tail = line.rpartition("; ")
    assert said and "agent" in tail, f"status says nothing of Cursor's CLI: {line!r}"
    return head


# The chat's standing notice: the cell's own not-signed-in sentence.
NOT_SIGNED_IN_NOTICE = f"! cursor: {NOT_SIGNED_IN}"
# The loggers -v turns on (the in-process run puts them back as they were).
_LOGGERS = ("nodecode_cursor", "nodecode_host")


def cli_env(home: Path, *, signed_out: bool = False, **extra: str) -> dict[str, str]:
    """Return the environment of a CLI run: the temp home, a token, no colours, no other token.

    ``signed_out`` leaves the token out, so only a kept sign-in (or none) is used.
    """
    env = {k: v for k, v in os.environ.items() if not k.startswith("CURSOR_")}
    env.update(NODECODE_HOME=str(home), NO_COLOR="1")
    if not signed_out:
        env["CURSOR_ACCESS_TOKEN"] = TOKEN
    env.update(extra)
    return env


@dataclass(frozen=True, slots=True)
class Run:
    """A finished command: its exit code and what it wrote."""

    returncode: int
    stdout: str
    stderr: str


@contextlib.contextmanager
def _environment(env: dict[str, str]) -> Iterator[None]:
    """Run the block with ENV as the whole of os.environ, then put the old one back."""
    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update(env)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


@contextlib.contextmanager
def _loggers_kept() -> Iterator[None]:
    """Run the block, then give the -v loggers back their handlers and levels."""
    saved = [(logging.getLogger(n), logging.getLogger(n).level) for n in _LOGGERS]
    handlers = {n: list(logging.getLogger(n).handlers) for n in _LOGGERS}
    try:
        yield
    finally:
        for logger, level in saved:
            for handler in logger.handlers[:]:
                if handler not in handlers[logger.name]:
                    logger.removeHandler(handler)
            logger.setLevel(level)


def run_main(*args: str, env: dict[str, str], cwd: Path | None = None, stdin: str = "") -> Run:
    """Return the finished ``main(ARGS)`` run in this process (ENV, CWD and STDIN its own)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.ExitStack() as stack:
        stack.enter_context(_environment(env))
        stack.enter_context(_loggers_kept())
        if cwd is not None:
            stack.enter_context(contextlib.chdir(cwd))
        stack.enter_context(contextlib.redirect_stdout(out))
        stack.enter_context(contextlib.redirect_stderr(err))
        saved_stdin, sys.stdin = sys.stdin, io.StringIO(stdin)
        try:
            code = main(list(args))
        except SystemExit as exit_:  # --version and --help end through argparse
            code = exit_.code if isinstance(exit_.code, int) else 0
        finally:
            sys.stdin = saved_stdin
    return Run(code, out.getvalue(), err.getvalue())


def run_cli(
    *args: str, env: dict[str, str], cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    """Return the finished subprocess run of ``nodecode-cursor ARGS``."""
    return subprocess.run(
        [*CLI, *args],
        env=env,
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT,
    )


def ask_json(sim: Simulator, home: Path, *args: str, cwd: Path | None = None) -> dict[str, Any]:
    """Return the JSON object ``ask --json ARGS`` printed (and check it exited 0)."""
    done = run_main("--base-url", sim.url, "ask", "--json", *args, env=cli_env(home), cwd=cwd)
    assert done.returncode == 0, done.stderr + done.stdout
    answer: dict[str, Any] = json_object(done.stdout)
    return answer


def json_object(text: str) -> dict[str, Any]:
    """Return TEXT read as one JSON object."""
    import json

    value = json.loads(text)
    assert isinstance(value, dict), text
    return value


def start_login(sim: Simulator, env: dict[str, str]) -> subprocess.Popen[str]:
    """Return a running ``nodecode-cursor login`` against the simulator, its pipes open."""
    return subprocess.Popen(
        [*CLI, "--base-url", sim.url, "--web-url", sim.url, "login"],
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def copy_cell_folder(target: Path) -> Path:
    """Copy the repo's cell folder (manifest, package, data) to TARGET; return it."""
    target.mkdir(parents=True)
    shutil.copy2(REPO / "cell.toml", target / "cell.toml")
    for name in ("models.json", "wire.json"):
        shutil.copy2(REPO / name, target / name)
    shutil.copytree(
        REPO / "nodecode_cursor",
        target / "nodecode_cursor",
        ignore=shutil.ignore_patterns("__pycache__", "*.pyc"),
    )
    return target


def spawn_chat(sim: Simulator, home: Path, cwd: Path, *extra: str, **env: str) -> Any:
    """Return a pexpect child running ``nodecode-cursor chat`` on a pseudo-terminal."""
    pexpect = pytest.importorskip("pexpect")
    return pexpect.spawn(
        sys.executable,
        [*CLI[1:], "--base-url", sim.url, "chat", *extra],
        env=env or cli_env(home, TERM="dumb"),
        cwd=str(cwd),
        encoding="utf-8",
        timeout=RUN_TIMEOUT,
        dimensions=(40, 200),
    )


def close_chat(child: Any) -> None:
    """Leave the chat with /quit and check it exited 0."""
    import pexpect

    child.sendline("/quit")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


@contextlib.contextmanager
def running_serve(
    sim: Simulator, home: Path, *args: str, env: dict[str, str] | None = None
) -> Iterator[str]:
    """Yield the first line ``serve ARGS`` writes to stderr; then stop it with SIGTERM.

    ENV is the process's environment (None: ``cli_env(home)``). Leaving the block
    asserts that the server stopped cleanly (exit 0) on SIGTERM.
    """
    process = subprocess.Popen(
        [*CLI, "--base-url", sim.url, "serve", *args],
        env=env if env is not None else cli_env(home),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stderr is not None
        yield process.stderr.readline()
        process.send_signal(signal.SIGTERM)
        assert process.wait(RUN_TIMEOUT) == 0
    finally:
        if process.poll() is None:
            process.kill()
        process.communicate()


def serve_banner(sim: Simulator, home: Path, *args: str) -> str:
    """Return the first line ``serve ARGS`` writes to stderr, after stopping it with SIGTERM."""
    with running_serve(sim, home, *args) as banner:
        return banner
