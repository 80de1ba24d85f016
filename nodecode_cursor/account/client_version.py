"""Which client version the cell sends, and the installed Cursor CLI's, read once a day.

Cursor refuses a client version it no longer supports ("Update Required"), and the
pin in ``limits`` ages. When Cursor's CLI is installed, its build is one Cursor
served recently, so the cell reads it (the folder its install resolves into, else
its ``--version``: ``lanes/agent_identity.py``) and sends it when it is newer than
the pin. Reading may start a process, so the answer (found or not) is kept in the
host's home (``cursor-client-version.json``, written whole under a lock) and asked
again after ``limits.CLIENT_VERSION_CHECK_SECONDS``; a started cell also keeps it
in memory (``InstalledVersions``). Keeping it is only a saving: a file that cannot
be read or written is passed by, never an error.

The order (environment, setting, installed CLI, pin) is ``limits.client_version``'s,
pure; this module only finds the installed one and words where the value came from.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .. import limits
from ..lanes.agent_cli import locate_agent
from ..lanes.agent_identity import build_of, install_version, version_output

__all__ = [
    "CACHE_FILE",
    "ClientVersion",
    "Installed",
    "InstalledVersions",
    "choose",
    "read_installed",
]

log = logging.getLogger("nodecode_cursor.account.client_version")

CACHE_FILE = "cursor-client-version.json"
# The file holds three short fields: anything larger is not ours and is not read.
_MAX_CACHE_BYTES = 4096
# Another process finding the version holds the lock for one --version at most.
_LOCK_SECONDS = limits.AGENT_VERSION_TIMEOUT_SECONDS + 5.0
_FILE_MODE = 0o600
_DIR_MODE = 0o700


@dataclass(frozen=True, slots=True)
class Installed:
    """The installed Cursor CLI's version as the header carries it, and the binary's path."""

    version: str
    path: str


@dataclass(frozen=True, slots=True)
class ClientVersion:
    """The client version a call sends and where it came from (``limits.client_version_choice``)."""

    value: str
    # "env", "setting", "installed" or "default".
    source: str
    # The installed CLI's path, when the value is its version.
    path: str | None = None

    def origin(self) -> str:
        """Return where the value came from, in words (``from CURSOR_CLIENT_VERSION``, …)."""
        if self.source == "env":
            return f"from {limits.CLIENT_VERSION_ENV}"
        if self.source == "setting":
            return "from the cursor.client_version setting"
        if self.source == "installed":
            return f"from Cursor's CLI at {self.path}"
        return "the built-in default"


def choose(configured: str | None, installed: Installed | None) -> ClientVersion:
    """Return the version to send given the setting CONFIGURED and the INSTALLED CLI's."""
    value, source = limits.client_version_choice(
        configured, installed.version if installed else None
    )
    path = installed.path if source == "installed" and installed else None
    return ClientVersion(value, source, path)


def read_installed(home: Path, agent_path: str | None, *, now: float) -> Installed | None:
    """Return the installed CLI's version: the home's kept answer when fresh, else read anew.

    AGENT_PATH is the ``cursor.agent_path`` setting (None: the PATH). A fresh answer
    is one kept less than a day before NOW for the same setting; a new one is kept.
    """
    cache = Path(home) / CACHE_FILE
    kept = _kept(cache, agent_path, now)
    if kept is not None:
        return kept[0]
    with _locked(cache):
        # Another process may have read it while this one waited for the lock.
        kept = _kept(cache, agent_path, now)
        if kept is not None:
            return kept[0]
        found = _look(agent_path)
        _keep(cache, agent_path, found, now)
    return found


class InstalledVersions:
    """What a started cell knows of the installed CLI's version, asked again after a day."""

    def __init__(self, home: Path, agent_path: str | None) -> None:
        self.home = home
        self.agent_path = agent_path
        self._lock = threading.Lock()
        self._known: tuple[float, Installed | None] | None = None

    def fresh(self, now: float | None = None) -> bool:
        """Return whether ``get`` would answer from memory (no file read, no process)."""
        known = self._known
        now = time.time() if now is None else now
        return known is not None and 0 <= now - known[0] < limits.CLIENT_VERSION_CHECK_SECONDS

    def get(self, now: float | None = None) -> Installed | None:
        """Return the installed CLI's version (None: none found); blocking on its first read."""
        now = time.time() if now is None else now
        with self._lock:
            if self.fresh(now):
                assert self._known is not None
                return self._known[1]
            found = read_installed(self.home, self.agent_path, now=now)
            self._known = (now, found)
            return found


def _look(agent_path: str | None) -> Installed | None:
    """Return the version of the CLI found now (its folder, else its --version), or None."""
    located = locate_agent(agent_path)
    if located.path is None:
        return None
    build = located.build or install_version(located.path)
    if build is None:
        said = version_output(located.path)
        build = build_of(said) if said else None
    if build is None:
        log.debug("Cursor's CLI at %s names no build; the pinned version stays", located.path)
        return None
    return Installed(f"cli-{build}", located.path)


def _kept(cache: Path, agent_path: str | None, now: float) -> tuple[Installed | None] | None:
    """Return (the kept answer,) when CACHE holds a fresh one for AGENT_PATH, else None."""
    try:
        with cache.open("rb") as handle:
            raw = handle.read(_MAX_CACHE_BYTES + 1)
        data: Any = json.loads(raw.decode("utf-8")) if len(raw) <= _MAX_CACHE_BYTES else None
    except (OSError, UnicodeDecodeError, ValueError, RecursionError):
        return None
    if not isinstance(data, dict) or data.get("agent_path") != agent_path:
        return None
    checked = data.get("checked_at")
    if not isinstance(checked, (int, float)) or isinstance(checked, bool):
        return None
    if not 0 <= now - checked < limits.CLIENT_VERSION_CHECK_SECONDS:
        return None
    version, path = data.get("version"), data.get("path")
    if version is None:
        return (None,)
    # What goes into a header must be a build, whatever the file was made to hold.
    if not isinstance(version, str) or not isinstance(path, str) or build_of(version) is None:
        return None
    return (Installed(version, path),)


@contextlib.contextmanager
def _locked(cache: Path) -> Iterator[None]:
    """Hold the cache's file lock while the body runs (without it when it cannot be had)."""
    from filelock import FileLock, Timeout  # deferred: only a day's first round reads this

    try:
        cache.parent.mkdir(mode=_DIR_MODE, parents=True, exist_ok=True)
        lock = FileLock(str(cache) + ".lock", mode=_FILE_MODE, timeout=_LOCK_SECONDS)
        lock.acquire()
    except (OSError, Timeout) as exc:
        log.debug("%s cannot be locked (%s); read without keeping order", cache, exc)
        yield
        return
    try:
        yield
    finally:
        lock.release()


def _keep(cache: Path, agent_path: str | None, found: Installed | None, now: float) -> None:
    """Write the answer to CACHE whole (a temp file, then a rename); a failure is only logged."""
    data = {
        "checked_at": now,
        "agent_path": agent_path,
        "version": found.version if found else None,
        "path": found.path if found else None,
    }
    try:
        fd, tmp = tempfile.mkstemp(dir=cache.parent, prefix=f".{CACHE_FILE}.", suffix=".tmp")
    except OSError as exc:
        log.debug("%s cannot be written (%s)", cache, exc.strerror)
        return
    try:
        os.fchmod(fd, _FILE_MODE)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(data, handle)
            handle.write("\n")
        os.replace(tmp, cache)
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        log.debug("%s cannot be written (%s)", cache, exc.strerror)
