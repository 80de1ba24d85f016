"""The sign-in commands: ``login``, ``status``, ``logout``, ``accounts`` and ``use``.

Each runs the cell's ``/cursor`` verb of that name and says its line as a shell
says it (the chat's ``/cursor …`` verbs worded as ``nodecode-cursor …``), with an
exit status a script can read: ``login`` waits for the browser sign-in with a
progress line and asks whether to add an account beside the one signed in; a
corrupt ``auth.json`` is moved aside on ``--move-aside`` or when asked. The sign-in
itself (the page, the poll, the kept tokens) is the cell's; the flags are
``cli_parser.py``'s and a failure's line ``cli_report.py``'s.
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import TYPE_CHECKING

from . import contract
from . import limits as host_limits
from .cli_report import report
from .names import PROVIDER, for_shell
from .terminal_text import visible

if TYPE_CHECKING:
    from nodecode_cursor.host import Cell, SignInState

    from .refhost import ReferenceHost

__all__ = ["cmd_accounts", "cmd_login", "cmd_logout", "cmd_status", "cmd_use"]

NOT_SIGNED_IN_SHELL = "not signed in: run nodecode-cursor login, or set CURSOR_ACCESS_TOKEN"


def _cursor(host: ReferenceHost) -> Cell:
    """Return the cursor cell, after its /cursor command (a vetoed or missing cell says so)."""
    host.command(PROVIDER)
    return host.cell_for(PROVIDER)


def cmd_status(args: argparse.Namespace) -> int:
    """Print how the sign-in stands; return the exit code."""
    from .setup import make_host

    host = make_host(args)
    try:
        cell = _cursor(host)
        # The /cursor verbs answer a broken auth.json or token as a line, as a chat wants;
        # a shell wants the line and a failing exit code too (neither refreshes nor dials).
        cell.credential(PROVIDER)
        # The line may carry the profile's email, which the service chose.
        print(visible(_shell_status(host.command(PROVIDER).run("status"))))
        return 0
    finally:
        host.stop()


def _shell_status(line: str) -> str:
    """Return the cell's status LINE (worded for a chat) as a shell says it."""
    chat = f"{PROVIDER}: {contract.NOT_SIGNED_IN}"
    if line.startswith(chat):
        line = f"{PROVIDER}: {NOT_SIGNED_IN_SHELL}" + line.removeprefix(chat)
    return _shell_words(line)


def cmd_logout(args: argparse.Namespace) -> int:
    """Forget the kept sign-in; return the exit code."""
    from .setup import make_host

    host = make_host(args)
    try:
        cell = _cursor(host)
        if _corrupt_moved_aside(args, cell):
            print(visible(host.command(PROVIDER).run("logout --move-aside")))
            return 0
        before = cell.sign_in_state()  # a broken auth.json fails the command, and stays as it is
        if args.email:
            return _forget_account(host, cell, args.email, before)
        line = host.command(PROVIDER).run("logout")
        after = cell.sign_in_state()
        if after.signed_in and after.accounts == before.accounts:
            # The write failed: say so in one line, where the sign-in stays and how to
            # remove it, and fail, for the tokens are still there.
            why = line.removeprefix(PROVIDER + ": ").split("; the kept tokens", 1)[0]
            kept = host.home / "auth.json"
            report(
                500,
                f"logout failed: {why}; the sign-in is still on disk in {kept}: make its folder "
                "writable and run logout again, or remove that file (it also holds any key "
                "saved with /connect)",
                as_json=False,
            )
            return 1
        print(visible(line))
        return 0
    finally:
        host.stop()


def _forget_account(host: ReferenceHost, cell: Cell, email: str, before: SignInState) -> int:
    """Forget the kept account EMAIL (``logout EMAIL``); return the exit code."""
    line = _shell_words(host.command(PROVIDER).run(f"logout {email}"))
    after = cell.sign_in_state()
    # The line names accounts: the service chose their emails.
    if len(after.accounts) == len(before.accounts):
        report(400, line.removeprefix(PROVIDER + ": "), as_json=False)
        return 1
    print(visible(line))
    return 0


def cmd_accounts(args: argparse.Namespace) -> int:
    """Print the kept accounts, each one's plan and usage, and which is active."""
    from .setup import make_host

    host = make_host(args)
    try:
        cell = _cursor(host)
        cell.sign_in_state()  # a broken auth.json fails the command
        # Emails and the dashboard's plan names are the service's text.
        print(visible(_shell_words(host.command(PROVIDER).run("accounts"))))
        return 0
    finally:
        host.stop()


def cmd_use(args: argparse.Namespace) -> int:
    """Make the kept account EMAIL the active one; return the exit code."""
    from .setup import make_host

    host = make_host(args)
    try:
        cell = _cursor(host)
        cell.sign_in_state()  # a broken auth.json fails the command
        line = _shell_words(host.command(PROVIDER).run(f"use {args.email}"))
        now = cell.sign_in_state()
        if not now.accounts or now.accounts[0].casefold() != args.email.strip().casefold():
            report(400, line.removeprefix(PROVIDER + ": "), as_json=False)
            return 1
        print(visible(line))
        return 0
    finally:
        host.stop()


def _shell_words(line: str) -> str:
    """Return LINE with the chat's /cursor verbs worded as this command line's."""
    return line.replace("/cursor ", "nodecode-cursor ")


def _corrupt_moved_aside(args: argparse.Namespace, cell: Cell) -> bool:
    """Return whether auth.json is corrupt and is to be moved aside (--move-aside, or asked).

    A file that reads well answers False; any other fault, or a corrupt file the
    person keeps in place, raises the cell's StoreError, which names the way out.
    """
    from .setup import ask

    try:
        cell.sign_in_state()
    except contract.StoreError as exc:
        if exc.code != "corrupt":
            raise
        if getattr(args, "move_aside", False):
            return True
        if sys.stdin.isatty() and ask(
            f"{visible(for_shell(str(exc), exc.hint), lines=False)}\n"
            "move it aside and go on? [y/N] "
        ):
            return True
        raise
    return False


def _adding(args: argparse.Namespace, state: SignInState | None) -> bool:
    """Return whether this ``login`` adds an account beside the one signed in (``--add``, or asked).

    Signed in already: a terminal is asked whether to keep that account and add
    another; a run without one replaces it, as a new sign-in always did, and says
    how to add one instead.
    """
    from .setup import ask

    if state is None or not state.signed_in:
        return bool(args.add)
    who = f" as {visible(state.email, lines=False)}" if state.email else ""
    if args.add:
        print(f"cursor: signed in{who}; the new account is added beside it", flush=True)
        return True
    if sys.stdin.isatty() and ask(
        f"cursor: already signed in{who}; keep that account and add another? [y/N] "
    ):
        return True
    print(
        f"cursor: already signed in{who}; a new sign-in replaces it when it finishes "
        "(login --add keeps it and adds another account)",
        flush=True,
    )
    return False


def _signed_in_anew(before: SignInState | None, after: SignInState) -> bool:
    """Return whether AFTER holds a kept sign-in that BEFORE did not (a new one was kept)."""
    if not after.signed_in:
        return False
    return (
        before is None
        or not before.signed_in
        or (after.expires_at, after.email)
        != (
            before.expires_at,
            before.email,
        )
    )


def cmd_login(args: argparse.Namespace) -> int:
    """Start the browser sign-in and wait for it with a progress line; return the exit code."""
    from .setup import make_host

    if args.api_key:
        from .key_login import cmd_login_key

        return cmd_login_key(args)

    said: list[str] = []
    host = make_host(args, say=said.append)
    try:
        cell = _cursor(host)
        command = host.command(PROVIDER)
        aside = " --move-aside" if _corrupt_moved_aside(args, cell) else ""
        # A broken auth.json: the sign-in could not be kept anyway (moved aside: none was).
        before = None if aside else cell.sign_in_state()
        add = _adding(args, before)
        started = time.monotonic()
        progress = sys.stderr.isatty()
        try:
            verb = "login --no-browser" if args.no_browser else "login"
            verb += " --add" if add else ""
            moved, _, started_line = command.run(verb + aside).rpartition("\n")
            if moved:
                print(visible(moved), flush=True)
            url = cell.sign_in_state().login_url
            if url is None:
                print(visible(started_line), flush=True)  # not a page to open: the cell's own words
            else:
                # The cell's line is worded for a chat ("finishes in the background"); a
                # shell waits here, so it gets the page and what it is waiting for.
                print(
                    f"cursor: open {visible(url, lines=False)} in a browser to sign in", flush=True
                )
                if cell.sign_in_state().browser_opened:
                    print("cursor: the page is open in your browser", flush=True)
                if not progress:
                    print("waiting for the browser sign-in (Ctrl-C cancels)", file=sys.stderr)
            while cell.sign_in_state().in_progress:
                if progress:
                    waited = int(time.monotonic() - started)
                    sys.stderr.write(
                        f"\rwaiting for the browser sign-in… {waited}s (Ctrl-C cancels)"
                    )
                    sys.stderr.flush()
                time.sleep(host_limits.LOGIN_PROGRESS_SECONDS)
            # The sign-in says how it went just after it stops being in progress.
            deadline = time.monotonic() + host_limits.LOGIN_SAY_SECONDS
            while not said and time.monotonic() < deadline:
                time.sleep(host_limits.LOGIN_PROGRESS_SECONDS / 10)
        except KeyboardInterrupt:
            if progress:
                sys.stderr.write("\r\x1b[K")
            print("cursor: sign-in cancelled", file=sys.stderr)
            return 130
        if progress:
            sys.stderr.write("\r\x1b[K")
        # What the sign-in says names the profile's email: the service's text. Its verbs
        # are a chat's (/cursor use …); a shell reads its own.
        for line in said:
            print(visible(_shell_words(line)))
        if not said:
            print(visible(command.run("status")))
        return 0 if _signed_in_anew(before, cell.sign_in_state()) else 1
    finally:
        host.stop()  # ends a sign-in still in progress (a cancelled one writes nothing)
