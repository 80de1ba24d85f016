"""The ``cursor-agent`` lane's sessions, kept on disk: which CLI session each host session resumes.

The CLI keeps a conversation under a session id of its own (the ``result``
event's ``session_id``); the next turn of the same host session passes it back as
``--resume``. The table lives in ``<home>/cursor-agent/sessions.json`` (mode
0600, written whole to a temporary file and renamed, under a file lock, so two
processes sharing the home never tear it) and so survives a restart. An id is
never replaced by an empty one. A file that cannot be read as the table is set
aside and a fresh one started: a lost id costs a fresh CLI session, never a
failed round. The table keeps the most recently used entries only.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any

from filelock import FileLock

from .. import limits
from .agent_stream import valid_session_id

__all__ = ["AgentSessions"]

FOLDER = "cursor-agent"
FILE_NAME = "sessions.json"
FILE_MODE = 0o600
DIR_MODE = 0o700
_VERSION = 1


class AgentSessions:
    """The table of host session → CLI session id under a host's home."""

    def __init__(self, home: Path | str) -> None:
        self.folder = Path(home) / FOLDER
        self.path = self.folder / FILE_NAME

    def get(self, host_session: str) -> str | None:
        """Return the CLI session id kept for HOST_SESSION, or None."""
        with self._locked():
            entry = self._read().get(host_session)
        return valid_session_id(entry.get("id")) if isinstance(entry, dict) else None

    def keep(self, host_session: str, cli_session: str | None) -> bool:
        """Keep CLI_SESSION for HOST_SESSION; return whether it was kept (an empty id never is)."""
        session = valid_session_id(cli_session)
        if session is None:
            return False
        with self._locked():
            table = self._read()
            table[host_session] = {"id": session, "updated": time.time()}
            if len(table) > limits.MAX_AGENT_SESSIONS:
                newest = sorted(table.items(), key=lambda item: _updated(item[1]), reverse=True)
                table = dict(newest[: limits.MAX_AGENT_SESSIONS])
            self._write(table)
        return True

    # The file ---------------------------------------------------------------------------------

    @contextlib.contextmanager
    def _locked(self) -> Any:
        """Hold the table's file lock for the block (the folder is made first)."""
        self.folder.mkdir(parents=True, exist_ok=True, mode=DIR_MODE)
        lock = FileLock(str(self.path) + ".lock", timeout=limits.AGENT_SESSIONS_LOCK_SECONDS)
        with lock:
            yield

    def _read(self) -> dict[str, Any]:
        """Return the table's entries; a file that is not the table is set aside (empty then)."""
        try:
            raw = json.loads(self.path.read_text("utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, UnicodeDecodeError, ValueError, RecursionError):
            raw = None
        sessions = raw.get("sessions") if isinstance(raw, dict) else None
        if isinstance(sessions, dict):
            return {k: v for k, v in sessions.items() if isinstance(v, dict)}
        # Kept for a person to look at, never read again; the next write starts afresh.
        with contextlib.suppress(OSError):
            os.replace(self.path, self.path.with_name(f"{FILE_NAME}.corrupt-{int(time.time())}"))
        return {}

    def _write(self, table: dict[str, Any]) -> None:
        """Write TABLE whole: a temporary file, mode 0600, renamed over the old one."""
        body = json.dumps({"version": _VERSION, "sessions": table}, indent=1).encode("utf-8")
        fd, tmp = tempfile.mkstemp(dir=self.folder, prefix=".sessions.", suffix=".tmp")
        try:
            os.fchmod(fd, FILE_MODE)
            with os.fdopen(fd, "wb") as out:
                out.write(body)
                out.flush()
                os.fsync(out.fileno())
            os.replace(tmp, self.path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise


def _updated(entry: Any) -> float:
    """Return when ENTRY was last kept (0 when it does not say)."""
    value = entry.get("updated") if isinstance(entry, dict) else None
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0.0
