"""The folder a `serve` client works in, as the client says it.

People start `serve` once and point agents in many projects at it, so `serve`'s
own current directory is nobody's workspace. A round's bridged native asks
(Cursor's read, ls, shell… handed to the client's own tools) must resolve in the
client's folder. Clients say it in one of these ways, looked for in this order:

* the ``x-working-directory`` header (documented for any client);
* a line of the system prompt or of a message: Claude Code's and opencode's
  ``Working directory: /path`` (their ``<env>`` block), pi's ``Current working
  directory: /path``, qwen-code's ``I'm currently working in the directory: /path``,
  Codex's ``<cwd>/path</cwd>`` (its ``<environment_context>``).

Only an absolute path of a folder that exists on this machine, with no control
character, counts. When none is found the round gets ``""``: the lane then
keeps relative paths relative and leaves a shell tool's folder out, so the
client applies its own folder. Reading the text is pure; the one check that
touches the disk is ``is_dir``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from typing import Any

__all__ = ["HEADER", "client_folder"]

HEADER = "x-working-directory"

# One pattern per client shape; the path runs to the end of its line (or the tag).
_SAID = (
    re.compile(r"^[ \t]*(?:Current )?[Ww]orking directory:[ \t]*(/[^\n]*?)[ \t]*$", re.M),
    re.compile(r"I'm currently working in the directory:[ \t]*(/[^\n]*?)[ \t]*$", re.M),
    re.compile(r"<cwd>[ \t]*(/[^<\n]*?)[ \t]*</cwd>"),
)
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_MAX_PATH = 4096


def _usable(path: str) -> str | None:
    """Return PATH normalised when it is an absolute folder that exists here, else None."""
    path = path.strip()
    if not path.startswith("/") or len(path) > _MAX_PATH or _CONTROL.search(path):
        return None
    path = os.path.normpath(path)
    return path if os.path.isdir(path) else None


def _texts(system: str | None, messages: Iterable[Mapping[str, Any]]) -> Iterable[str]:
    """Yield the system prompt, then the text of each system, developer and user message."""
    if system:
        yield system
    for message in messages:
        if message.get("role") not in ("system", "developer", "user"):
            continue
        content = message.get("content")
        if isinstance(content, str):
            yield content
        elif isinstance(content, list):
            for part in content:
                if isinstance(part, Mapping) and isinstance(part.get("text"), str):
                    yield part["text"]


def client_folder(
    headers: Mapping[str, str], system: str | None, messages: Iterable[Mapping[str, Any]]
) -> str:
    """Return the folder the client says it works in, or "" when it says none usable."""
    said = headers.get(HEADER)
    found = _usable(said) if said is not None else None
    if found is not None:
        return found
    for text in _texts(system, messages):
        for pattern in _SAID:
            for match in pattern.finditer(text):
                found = _usable(match.group(1))
                if found is not None:
                    return found
    return ""
