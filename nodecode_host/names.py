"""What every command of the reference host calls things: the provider, the default model, hints.

Kept apart from ``setup.py`` (which starts a host) so that a command that starts
none — ``--version``, a usage error, the line a failure prints — loads nothing
else: ``cli_parser.py`` and ``cli_report.py`` read these at their top, ``setup.py``
re-exports them.
"""

from __future__ import annotations

__all__ = [
    "API_KEY_ENV",
    "CURSOR_KEY_PREFIX",
    "DEFAULT_MODEL",
    "HOME_ENV",
    "PROVIDER",
    "SHELL_HINTS",
    "for_shell",
]

# Cursor's own model: included in every plan, and quick to answer.
DEFAULT_MODEL = "composer-2.5"
PROVIDER = "cursor"
HOME_ENV = "NODECODE_HOME"
# The API server's client-key variable, named here so redacting a log line loads nothing.
API_KEY_ENV = "NODECODE_SERVE_API_KEY"
# How a Cursor API key begins (the cell's ``key_exchange.API_KEY_PREFIX``): the command
# line is checked for one without loading the cell, so a typed key is never echoed.
CURSOR_KEY_PREFIX = "crsr_"

# The cell's hints (worded for a chat) and the shell commands that do the same.
SHELL_HINTS = {
    "/cursor login": "nodecode-cursor login",
    "/cursor logout --move-aside": "nodecode-cursor logout --move-aside",
}


def for_shell(message: str, hint: str | None) -> str:
    """Return MESSAGE speaking shell: the cell's HINT (a chat's verb) as the shell's command.

    HINT is the error's ``hint`` (``CursorError.hint``, a roster's ``hint``): the cell
    words it for a chat (/cursor login), and a shell does the same with a command.
    """
    shell = SHELL_HINTS.get(hint or "")
    if shell is not None and hint:
        return message.replace(hint, shell)
    return message
