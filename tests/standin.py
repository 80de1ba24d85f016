"""The stand-in ``cursor-agent`` for tests: put it on PATH, choose its transcript, read its log.

The stand-in itself is ``tests/agent_standin/cursor-agent`` (a small Python script);
its transcripts are ``tests/agent_standin/transcripts/``. ``StandIn`` sets the
environment a test's lane run (in process or a CLI subprocess) gives it and reads
back, from the log the stand-in appends, what each run was given.
"""

from __future__ import annotations

import json
import os
import select
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

FOLDER = Path(__file__).resolve().parent / "agent_standin"
TRANSCRIPTS = FOLDER / "transcripts"
API_KEY = "key_standin_0123456789abcdef"
VERSION = "2026.06.04-standin"


@dataclass
class StandIn:
    """The stand-in on PATH for one test."""

    monkeypatch: pytest.MonkeyPatch
    log: Path

    def play(self, transcript: str, *, resume: str | None = None) -> None:
        """Make the next runs replay TRANSCRIPT and expect ``--resume RESUME`` (None: none)."""
        self.monkeypatch.setenv("STANDIN_TRANSCRIPT", str(TRANSCRIPTS / transcript))
        self.monkeypatch.setenv("STANDIN_EXPECT_RESUME", resume or "none")

    def runs(self) -> list[dict[str, Any]]:
        """Return what each run so far was given, oldest first."""
        if not self.log.exists():
            return []
        return [json.loads(line) for line in self.log.read_text("utf-8").splitlines()]

    def env(self) -> dict[str, str]:
        """Return the variables a subprocess needs to run the stand-in as this test set it."""
        names = ("PATH", "STANDIN_LOG", "STANDIN_TRANSCRIPT", "STANDIN_EXPECT_RESUME")
        return {name: os.environ[name] for name in names if name in os.environ}


def put_on_path(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, *, key: bool = True) -> StandIn:
    """Return the stand-in, first on PATH, logging under TMP_PATH (with an API key when KEY)."""
    monkeypatch.setenv("PATH", f"{FOLDER}{os.pathsep}{os.environ.get('PATH', '')}")
    log = tmp_path / "standin-log.jsonl"
    monkeypatch.setenv("STANDIN_LOG", str(log))
    monkeypatch.delenv("CURSOR_ACCESS_TOKEN", raising=False)
    if key:
        monkeypatch.setenv("CURSOR_API_KEY", API_KEY)
    else:
        monkeypatch.delenv("CURSOR_API_KEY", raising=False)
    return StandIn(monkeypatch, log)


def gone(pid: int, within: float = 60.0) -> bool:
    """Return whether process PID has ended (gone, or a zombie left for its parent) in time.

    Woken by the process's end (its pidfd turns readable); WITHIN only stops a hung test.
    """
    try:
        fd = os.pidfd_open(pid)
    except ProcessLookupError:
        return True  # reaped already
    try:
        readable, _, _ = select.select([fd], [], [], within)
    finally:
        os.close(fd)
    return bool(readable)


def pidfd(pid: int) -> int:
    """Return a file descriptor that becomes readable when process PID ends (Linux 5.3+).

    Open it while the process is known to run, so a reused pid cannot stand in for it.
    """
    return os.pidfd_open(pid)


def ended(fd: int, within: float) -> bool:
    """Return whether the process behind the pidfd FD ended within WITHIN seconds (closes FD)."""
    try:
        readable, _, _ = select.select([fd], [], [], within)
        return bool(readable)
    finally:
        os.close(fd)


def running_in_group(group: int) -> list[int]:
    """Return the pids of the processes of process group GROUP not yet ended (zombies are)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except (FileNotFoundError, ProcessLookupError, IndexError):
            continue
        # After the name: state, ppid, pgrp.
        if int(fields[2]) == group and fields[0] not in ("Z", "X"):
            found.append(int(entry.name))
    return found
