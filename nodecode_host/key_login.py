"""``login --api-key``: keep a Cursor API key (``crsr_…``) as one more account, from a shell.

The key is read without ever reaching argv: from a prompt that does not echo
it when stdin is a terminal, else the first line of stdin
(``printf %s "$KEY" | nodecode-cursor login --add --api-key``), else
``CURSOR_API_KEY``, else the key a host's /connect saved. The cell's /cursor
command exchanges it once, learns its email and keeps it
(``CursorCommand.keep_key``); this module only reads the key, asks whether to
add it beside the account signed in, and prints the outcome in a shell's words.
A refused key raises the cell's CredentialError, which ``cli.main`` reports.
"""

from __future__ import annotations

import argparse
import getpass
import sys
from typing import TYPE_CHECKING

from . import contract
from .errors import HostConfigError, UsageError
from .names import PROVIDER
from .terminal_text import visible

if TYPE_CHECKING:
    from nodecode_cursor.host import SignInState

__all__ = ["cmd_login_key", "read_key"]

PROMPT = "Cursor API key (crsr_…; not shown): "
NO_KEY = (
    "no API key given: type it at the prompt on a terminal, pipe it "
    '(printf %s "$KEY" | nodecode-cursor login --add --api-key) or set CURSOR_API_KEY; '
    "nothing was kept"
)


def read_key() -> str | None:
    """Return the key typed at a prompt (stdin a terminal) or stdin's first line; None if blank."""
    if sys.stdin.isatty():
        try:
            typed = getpass.getpass(PROMPT)
        except EOFError:
            return None
    else:
        typed = sys.stdin.readline()
    return typed.strip() or None


def _adding(args: argparse.Namespace, state: SignInState) -> bool:
    """Return whether the key is added beside the account signed in (``--add``, or asked)."""
    from .setup import ask

    if args.add or not state.signed_in:
        return True
    who = f" as {visible(state.email, lines=False)}" if state.email else ""
    if sys.stdin.isatty() and ask(
        f"cursor: already signed in{who}; keep that account and add the key beside it? [y/N] "
    ):
        return True
    print(
        f"cursor: already signed in{who}; the key replaces it "
        "(login --add --api-key keeps it and adds the key)",
        flush=True,
    )
    return False


def cmd_login_key(args: argparse.Namespace) -> int:
    """Keep the API key read from the person as an account; return the exit code."""
    from .setup import make_host

    key = read_key()
    host = make_host(args)
    try:
        command = host.command(PROVIDER)
        cell = host.cell_for(PROVIDER)
        keep = getattr(command, "keep_key", None)
        if keep is None:
            raise HostConfigError("this nodecode-cursor cell cannot keep API keys as accounts")
        state = cell.sign_in_state()  # a broken auth.json fails the command, and stays
        try:
            added = keep(key, add=_adding(args, state))
        except contract.ConfigError as exc:
            if exc.code != "no_api_key":
                raise
            # The cell's words are a chat's; a shell reads where its own command takes one.
            raise UsageError(NO_KEY) from None
        # The email is the service's text.
        line = f"cursor: kept the API key of {added.name} as an account, now active"
        if added.replaced_sign_in:
            line += ", in place of its browser sign-in"
        if added.aside is not None:
            line += f"; {added.aside} is kept: nodecode-cursor use {added.aside} switches back"
        print(visible(line))
        return 0
    finally:
        host.stop()
