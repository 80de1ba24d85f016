"""Whether a program is Cursor's CLI, and which build it is.

Cursor's installer puts the CLI in ``…/cursor-agent/versions/<build>/`` and links
``agent`` and ``cursor-agent`` to it; its ``--version`` prints the build
(``2026.10.01-e373342``). Another CLI installs an ``agent`` too (the Grok CLI), and
the lane runs its binary with ``--force``: a program is taken for Cursor's only
when the folder it resolves into or its ``--version`` says so. The folder is
looked at first, since running an unknown program is itself a risk; when it must
be run, it gets a short timeout, no stdin and an environment without our tokens.

Which binary to use and what status says is ``agent_cli.py``'s; what the build
means for the client-version header is ``account/client_version.py``'s.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import NamedTuple

from .. import limits

__all__ = ["Identity", "build_of", "identify", "install_version", "version_output"]

# A Cursor CLI build as it prints it: the date, then the build's short hash.
_BUILD = re.compile(r"(?:cli-)?(\d{4}\.\d{2}\.\d{2}-[0-9A-Za-z]{1,40})")
# What a --version line may say around the build (``cursor-agent 2026.10.01-e373342``).
_PREFIXES = ("cursor-agent ", "cursor agent ", "agent ", "v")
# The only variables the child keeps: enough to start (a shell, node), none of ours.
_KEPT_ENV = (
    "PATH",
    "HOME",
    "LANG",
    "LC_ALL",
    "TMPDIR",
    "SYSTEMROOT",
    "USERPROFILE",
    "LOCALAPPDATA",
)
# A --version line longer than this is cut before a message quotes it.
_QUOTED_CHARS = 60
# What identify learned, by (resolved path, size, mtime): the lane asks every round,
# and an unknown program should be run once, not once a round.
_known: dict[tuple[str, int, int], Identity] = {}
_KNOWN_MAX = 16


class Identity(NamedTuple):
    """What a program is: Cursor's CLI or not, its build when known, and how we know."""

    cursor: bool
    build: str | None
    # Why, in a few words a status line can carry ("its install folder", "its --version
    # printed …", "it did not answer --version").
    why: str


def build_of(text: str) -> str | None:
    """Return the Cursor build TEXT names whole (``2026.10.01-e373342``), or None."""
    line = text.strip()
    lowered = line.lower()
    for prefix in _PREFIXES:
        if lowered.startswith(prefix):
            line = line[len(prefix) :].strip()
            break
    found = _BUILD.fullmatch(line)
    return found.group(1) if found else None


def install_version(path: str) -> str | None:
    """Return the build of the ``cursor-agent/versions/<build>/`` folder PATH resolves into."""
    try:
        parts = Path(os.path.realpath(path)).parts
    except (OSError, ValueError):
        return None
    for index in range(len(parts) - 2):
        if parts[index] == "cursor-agent" and parts[index + 1] == "versions":
            return build_of(parts[index + 2])
    return None


def version_output(path: str, timeout: float = limits.AGENT_VERSION_TIMEOUT_SECONDS) -> str | None:
    """Return the first line ``PATH --version`` prints, or None when it does not answer.

    Run with no stdin, within TIMEOUT, in an environment holding none of our secrets
    (only what a program needs to start), so a program that is not Cursor's learns
    nothing from being asked.
    """
    import subprocess  # here: only a program that was found is asked

    env = {name: os.environ[name] for name in _KEPT_ENV if name in os.environ}
    try:
        done = subprocess.run(
            [path, "--version"],
            capture_output=True,
            text=True,
            errors="replace",
            timeout=timeout,
            stdin=subprocess.DEVNULL,
            env=env,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    lines = [line.strip() for line in done.stdout.splitlines() if line.strip()]
    return lines[0] if done.returncode == 0 and lines else None


def identify(path: str) -> Identity:
    """Return whether the program at PATH is Cursor's CLI, and its build when it says one.

    The folder it resolves into is read first; only when that says nothing is the
    program run (``version_output``, with the short identification timeout).
    """
    try:
        real = os.path.realpath(path)
        info = os.stat(real)
    except (OSError, ValueError):
        return Identity(False, None, "it cannot be read")
    key = (real, info.st_size, info.st_mtime_ns)
    known = _known.get(key)
    if known is not None:
        return known
    folder = install_version(path)
    if folder is not None:
        found = Identity(True, folder, "its install folder names a Cursor build")
    else:
        said = version_output(path, limits.AGENT_IDENTIFY_TIMEOUT_SECONDS)
        build = build_of(said) if said else None
        if build is not None:
            found = Identity(True, build, "its --version names a Cursor build")
        elif said is None:
            found = Identity(False, None, "it did not answer --version")
        else:
            found = Identity(False, None, f"its --version printed {_quoted(said)}")
    if len(_known) >= _KNOWN_MAX:
        _known.pop(next(iter(_known)))
    _known[key] = found
    return found


def _quoted(text: str) -> str:
    """Return TEXT in quotes, printable characters only, cut to a status line's share."""
    shown = "".join(ch if ch.isprintable() else "?" for ch in text)
    if len(shown) > _QUOTED_CHARS:
        shown = shown[: _QUOTED_CHARS - 1] + "…"
    return f'"{shown}"'
