"""Finding Cursor's CLI: its names, where it is, its version, and what status says of it.

The CLI installs as ``agent`` (its name since 2026), keeping ``cursor-agent`` as
a legacy alias some installs lack; ``cursor.agent_path`` names one instead. Other
programs install an ``agent`` too (the Grok CLI), so one named ``agent`` is used
only when it is Cursor's (``agent_identity.py`` tells); otherwise it is passed
over, and status says why. The lane itself (running a turn) is
``agent_lane.py``'s; this module is what a command that runs no turn needs —
``status`` and routing read it — and it loads nothing else of the lane.
"""

from __future__ import annotations

import os
import shutil
from typing import NamedTuple

__all__ = [
    "AGENT_BINARIES",
    "AGENT_BINARY",
    "AGENT_PREFIX",
    "INSTALL_HINT",
    "LANE",
    "Located",
    "agent_model",
    "agent_status_line",
    "agent_version",
    "find_agent",
    "locate_agent",
    "missing_words",
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


class Located(NamedTuple):
    """Where Cursor's CLI is (None: nowhere), and what was passed over on the way, and why.

    A named tuple: ``status`` loads this module, and dataclasses would double its cost.
    """

    path: str | None
    # One phrase per binary passed over: "agent (/usr/bin/agent) is not Cursor's CLI: …".
    passed_over: tuple[str, ...] = ()
    # The build, when telling the binary apart already read it.
    build: str | None = None


def locate_agent(configured: str | None = None) -> Located:
    """Return where the CLI is: CONFIGURED, else Cursor's ``agent``, else ``cursor-agent``.

    A configured path is used as it is (the person named it; its absence is then
    said, not hidden by a search). An ``agent`` on the PATH is used only when it is
    Cursor's CLI; ``cursor-agent`` is Cursor's name alone.
    """
    if configured:
        found = shutil.which(configured)
        return Located(found or (configured if os.path.isfile(configured) else None))
    passed: list[str] = []
    for name in AGENT_BINARIES:
        found = shutil.which(name)
        if not found:
            continue
        if name == AGENT_BINARY:
            return Located(found, tuple(passed))
        from .agent_identity import identify  # deferred: only an agent found is looked at

        identity = identify(found)
        if identity.cursor:
            return Located(found, tuple(passed), identity.build)
        passed.append(f"{name} ({found}) is not Cursor's CLI: {identity.why}")
    return Located(None, tuple(passed))


def find_agent(configured: str | None = None) -> str | None:
    """Return the CLI's path (``locate_agent``'s), or None when there is none."""
    return locate_agent(configured).path


def named(path: str) -> str:
    """Return the binary's name as a message says it (``agent``, ``cursor-agent``, ...)."""
    return os.path.basename(path) or path


def agent_version(path: str) -> str | None:
    """Return the CLI's version: its install folder's build, else what ``PATH --version`` prints."""
    from .agent_identity import install_version, version_output  # deferred: a CLI was found

    return install_version(path) or version_output(path)


def missing_words(located: Located, configured: str | None) -> str:
    """Return why no CLI was found, naming what was passed over (LOCATED found none)."""
    if configured:
        return f"{configured} (cursor.agent_path) does not exist"
    if located.passed_over:
        return "no Cursor CLI is on the PATH: " + ", ".join(located.passed_over)
    return "neither agent nor cursor-agent is on the PATH"


def agent_status_line(*, required: bool, configured: str | None = None) -> str:
    """Return the status words for the CLI: which binary, its version and path, or none found.

    A binary passed over (an ``agent`` that is not Cursor's) is named with why.
    When it is the chosen lane and missing, the words say how to install it.
    """
    located = locate_agent(configured)
    path = located.path
    if path is None:
        what = missing_words(located, configured)
        if required:
            return f"{what} ({INSTALL_HINT})"
        return f"{what} (the cursor-agent lane is unavailable)"
    version = located.build or agent_version(path)
    name = named(path)
    where = "cursor.agent_path" if configured else "the PATH"
    shown = f"{name} {version}" if version else name
    line = f"{shown} is on {where} ({path})"
    if located.passed_over:
        line += " (passed over: " + ", ".join(located.passed_over) + ")"
    return line
