"""Finding Cursor's CLI: its names, where it is, its version, and what status says of it.

The CLI installs as ``agent`` (its name since 2026), keeping ``cursor-agent`` as
a legacy alias some installs lack; ``cursor.agent_path`` names one instead. The
lane itself (running a turn) is ``agent_lane.py``'s; this module is what a
command that runs no turn needs — ``status`` and routing read it — and it loads
nothing else of the lane.
"""

from __future__ import annotations

import os
import shutil

from .. import limits

__all__ = [
    "AGENT_BINARIES",
    "AGENT_BINARY",
    "AGENT_PREFIX",
    "INSTALL_HINT",
    "LANE",
    "agent_model",
    "agent_status_line",
    "agent_version",
    "find_agent",
    "named",
]

LANE = "cursor-agent"
AGENT_BINARY = "cursor-agent"
# The names the CLI installs under, looked for in this order: ``agent`` now,
# ``cursor-agent`` the legacy alias some installs lack (docs/protocol.md §14).
AGENT_BINARIES = ("agent", AGENT_BINARY)
AGENT_PREFIX = f"{LANE}/"
INSTALL_HINT = "install it with: curl https://cursor.com/install -fsS | bash"


def agent_model(model: str) -> str:
    """Return MODEL as the CLI names it: without a ``cursor-agent/`` or ``cursor/`` prefix."""
    name = model.strip()
    for prefix in (AGENT_PREFIX, "cursor/"):
        name = name.removeprefix(prefix)
    return name


def find_agent(configured: str | None = None) -> str | None:
    """Return the CLI's path: CONFIGURED when given, else ``agent``, else ``cursor-agent``.

    A configured path is used as it is (its absence is then said, not hidden by a
    search); None when no name is on the PATH.
    """
    if configured:
        found = shutil.which(configured)
        return found or (configured if os.path.isfile(configured) else None)
    for name in AGENT_BINARIES:
        found = shutil.which(name)
        if found:
            return found
    return None


def named(path: str) -> str:
    """Return the binary's name as a message says it (``agent``, ``cursor-agent``, ...)."""
    return os.path.basename(path) or path


def agent_version(path: str) -> str | None:
    """Return what ``PATH --version`` prints (its first line), or None when it does not answer."""
    import subprocess  # here: only a CLI that was found is asked

    try:
        done = subprocess.run(
            [path, "--version"],
            capture_output=True,
            text=True,
            timeout=limits.AGENT_VERSION_TIMEOUT_SECONDS,
            stdin=subprocess.DEVNULL,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    lines = [line.strip() for line in done.stdout.splitlines() if line.strip()]
    return lines[0] if done.returncode == 0 and lines else None


def agent_status_line(*, required: bool, configured: str | None = None) -> str:
    """Return the status words for the CLI: which binary, its version and path, or none found.

    When it is the chosen lane and missing, the words say how to install it.
    """
    path = find_agent(configured)
    if path is None:
        what = (
            f"{configured} (cursor.agent_path) does not exist"
            if configured
            else "neither agent nor cursor-agent is on the PATH"
        )
        if required:
            return f"{what} ({INSTALL_HINT})"
        return f"{what} (the cursor-agent lane is unavailable)"
    version = agent_version(path)
    name = named(path)
    where = "cursor.agent_path" if configured else "the PATH"
    if version:
        return f"{name} {version} is on {where} ({path})"
    return f"{name} is on {where} ({path})"
