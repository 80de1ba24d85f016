"""Shared fixtures: a running simulator, a throwaway NODECODE_HOME, and the suite's leak checks.

Every test runs under three checks that cost nothing when they pass:

* no thread it started is still alive afterwards (simulator threads, named
  ``sim-…``, are the simulator's own business and are joined by its ``stop``);
* no asyncio task it created is still pending afterwards;
* the process holds at most ``FD_SLACK`` more open file descriptors than
  before (a forgotten socket, httpx client, file or subprocess pipe).

Each check waits for things that are already going away: a thread is joined,
and the tasks and descriptors, which nothing announces the end of, are looked at
again until they are gone (the bound only stops a hung test).
Descriptors are process-wide, so should the last check ever misfire on
something opened lazily and kept on purpose, ``NODECODE_TEST_FD_CHECK=marked``
restricts it to tests marked ``@pytest.mark.leakcheck``.

Every test also runs with the proxy variables cleared so that httpx never
routes a loopback request through a proxy from the developer's shell, and with
the process-wide set of secrets ``errors.scrub`` removes as it was before the
test: a property test that feeds arbitrary text as a token (Hypothesis draws
string literals from our own modules, such as ``"nodecode-cursor "``) must not
teach every later test's error text to redact the command it names.

The suite's children start with Ctrl-C and Ctrl-\\ as a terminal gives them: a
test runner a non-interactive shell started in the background (``cmd &``) has
SIGINT and SIGQUIT ignored, every child would inherit that, and the tests of
Ctrl-C in ``chat`` and ``login`` and of the agent guard's signals would fail
for the runner's sake, not the code's.
"""

from __future__ import annotations

import asyncio
import os
import signal
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from probes import fd_target, open_fds, settled, threads_left

from cursor_simulator import Simulator
from cursor_simulator.models import named_roster
from nodecode_cursor import errors
from nodecode_cursor.state import CellState

if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)
if signal.getsignal(signal.SIGQUIT) is signal.SIG_IGN:
    signal.signal(signal.SIGQUIT, signal.SIG_DFL)

# How long a leak may take to go away on its own (a thread finishing its last
# line, a socket closing) before it counts as a leak: generous, since a passing
# test does not wait it out, and a busy machine may take a while.
LEAK_GRACE_SECONDS = 30.0
# Descriptors a marked test may leave open (e.g. a lazily opened /dev/urandom).
FD_SLACK = 2

_PROXY_VARS = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "leakcheck: check file descriptors even under NODECODE_TEST_FD_CHECK=marked"
    )
    config.addinivalue_line(
        "markers",
        "sim_answer_timeout(seconds): how long sim fixture scripts wait for answers",
    )
    config.addinivalue_line(
        "markers",
        "sim_named_roster: the sim's roster is its six named rows, not every bundled"
        " model (for tests of how a host reads a small roster)",
    )


def _pending_tasks() -> set[asyncio.Task[object]]:
    """Return every asyncio task not yet done, on any loop, in this process."""
    found: set[asyncio.Task[object]] = set()
    # Where asyncio keeps its weak registry differs by Python version.
    for name in ("_all_tasks", "_scheduled_tasks", "_eager_tasks"):
        registry = getattr(asyncio.tasks, name, None)
        if registry is None:
            continue
        for task in list(registry):
            if not task.done():
                found.add(task)
    return found


@pytest.fixture(autouse=True)
def _no_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in _PROXY_VARS:
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")


@pytest.fixture(autouse=True)
def _own_secrets() -> Iterator[None]:
    kept = dict(errors._SECRETS)
    yield
    errors._SECRETS.clear()
    errors._SECRETS.update(kept)


@pytest.fixture(autouse=True)
def _no_browser(monkeypatch: pytest.MonkeyPatch) -> None:
    # A sign-in opens the person's browser when there is a display: never during tests,
    # unless a test names a stand-in with BROWSER.
    for var in ("BROWSER", "DISPLAY", "WAYLAND_DISPLAY"):
        monkeypatch.delenv(var, raising=False)


@pytest.fixture(autouse=True)
def _leak_check(request: pytest.FixtureRequest) -> Iterator[None]:
    threads_before = set(threading.enumerate())
    tasks_before = _pending_tasks()
    check_fds = (
        os.environ.get("NODECODE_TEST_FD_CHECK", "all") != "marked"
        or request.node.get_closest_marker("leakcheck") is not None
    )
    fds_before = open_fds() if check_fds else None

    yield

    def new_tasks() -> set[asyncio.Task[object]]:
        return _pending_tasks() - tasks_before

    names = threads_left(threads_before, skip=("sim-",), within=LEAK_GRACE_SECONDS)
    if names:
        pytest.fail(f"test left threads running: {names}", pytrace=False)
    if not settled(lambda: not new_tasks(), LEAK_GRACE_SECONDS):
        tasks = sorted(repr(t.get_coro()) for t in new_tasks())
        pytest.fail(f"test left asyncio tasks pending: {tasks}", pytrace=False)
    if fds_before is not None:

        def grown() -> set[int]:
            now = open_fds() or set()
            return now - fds_before

        if not settled(lambda: len(grown()) <= FD_SLACK, LEAK_GRACE_SECONDS):
            leaked = sorted(f"{fd}->{fd_target(fd)}" for fd in grown())
            pytest.fail(f"test left file descriptors open: {leaked}", pytrace=False)


@pytest.fixture
def sim(request: pytest.FixtureRequest) -> Iterator[Simulator]:
    """Yield a started simulator on 127.0.0.1; it is stopped (threads joined) afterwards.

    ``@pytest.mark.sim_answer_timeout(SECONDS)`` on a test or module (``pytestmark``)
    bounds how long a script waits for an answer the client never sends, so a
    test that withholds one ends quickly instead of after the simulator's own 30 s.
    ``@pytest.mark.sim_named_roster`` serves the six named roster rows instead of
    every bundled model.
    """
    simulator = Simulator()
    marker = request.node.get_closest_marker("sim_answer_timeout")
    if marker is not None:
        simulator.agent.answer_timeout = float(marker.args[0])
    if request.node.get_closest_marker("sim_named_roster") is not None:
        # The test reads how a host treats a small account roster (its picks,
        # completions, doctor's rounds per family); runs stay checked against it.
        simulator.models.roster = named_roster()
    simulator.start()
    try:
        yield simulator
    finally:
        simulator.stop()


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Return an empty directory set as NODECODE_HOME for this test."""
    path = tmp_path / "nodecode-home"
    path.mkdir()
    monkeypatch.setenv("NODECODE_HOME", str(path))
    return path


# A proxy URL httpx cannot use, with a password that must never show in any error.
BAD_PROXY = "foo://user:pw-s3cr3t@proxy.invalid:1"


@pytest.fixture
def bad_proxy_environment(monkeypatch: pytest.MonkeyPatch) -> str:
    """Point every proxy variable at BAD_PROXY; return it."""
    for name in ("HTTPS_PROXY", "HTTP_PROXY", "ALL_PROXY"):
        monkeypatch.setenv(name, BAD_PROXY)
    monkeypatch.delenv("NO_PROXY", raising=False)
    monkeypatch.delenv("no_proxy", raising=False)
    return BAD_PROXY


@pytest.fixture
def state() -> CellState:
    """Return a fresh CellState: what a started cell keeps between rounds, for this test alone."""
    return CellState()
