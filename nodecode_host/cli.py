"""The reference host's command line: ``nodecode-cursor``, its entry point and dispatch.

Commands: ``chat`` (the interactive REPL, ``chat.py``), ``ask`` (one turn, plain
or ``--json``, ``cli_ask.py``), ``models``, ``usage`` (the plan at a glance) and
``doctor`` (what works with Cursor today), all three ``cli_service.py``'s;
``login``, ``status``, ``logout``, ``accounts``, ``use`` (the cell's own verbs,
``cli_account.py``; ``--account`` on ``ask``, ``chat`` and ``serve`` picks the
kept account rounds run on); ``demo`` (a real two-round turn against the bundled
simulator, ``cli_demo.py``) and ``serve`` (the OpenAI- and Anthropic-compatible
API, ``cli_serve.py`` over ``routes.py``).
Global flags: ``--base-url``, ``--web-url``, ``-v`` and ``--version``;
``NODECODE_HOME`` picks the home folder. The flags are ``cli_parser.py``'s.

Every command exits 0 on success and non-zero on failure: 2 for usage and config
errors, 1 for everything else, 130 when interrupted. A failure is one line on
stderr (or ``{"error": {...}}`` with ``ask --json``); a traceback only with ``-v``
(the line and the log are ``cli_report.py``'s). Here: parse, pick the command's
handler, run it, and turn what it raises into that line and exit status.
The host itself (cell loading, the turn loop) is ``refhost.py``'s; what every
command sets up alike (the host, the model and effort, the model table) is
``setup.py``'s. Nothing of the cell is imported before the host has loaded the
cells (``contract.py``).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import sys
from collections.abc import Callable, Sequence

from . import contract
from .cli_parser import ArgumentsRefused, build_parser, usage_line
from .cli_report import config_fault, failure, print_traceback, report, start_logging
from .errors import HostError, UsageError
from .names import DEFAULT_MODEL

__all__ = ["DEFAULT_MODEL", "UsageError", "main"]

# Each command's module and handler, imported only when that command runs: `status` or
# `--version` need not load the API server, the chat, the tools or importlib.metadata
# (benchmarks/startup.py, tests/host/test_startup_imports.py).
_HANDLERS: dict[str, tuple[str, str]] = {
    "chat": ("chat", "run_chat"),
    "ask": ("cli_ask", "cmd_ask"),
    "models": ("cli_service", "cmd_models"),
    "usage": ("cli_service", "cmd_usage"),
    "doctor": ("cli_service", "cmd_doctor"),
    "login": ("cli_account", "cmd_login"),
    "status": ("cli_account", "cmd_status"),
    "logout": ("cli_account", "cmd_logout"),
    "accounts": ("cli_account", "cmd_accounts"),
    "use": ("cli_account", "cmd_use"),
    "demo": ("cli_demo", "cmd_demo"),
    "serve": ("cli_serve", "cmd_serve"),
}

# The commands that take --json: only their usage errors answer in JSON.
JSON_COMMANDS = ("ask", "models", "usage", "doctor")


def _handler(command: str) -> Callable[[argparse.Namespace], int]:
    """Return COMMAND's handler, importing its module now."""
    module, name = _HANDLERS[command]
    handler: Callable[[argparse.Namespace], int] = getattr(
        importlib.import_module(f".{module}", __package__ or "nodecode_host"), name
    )
    return handler


def _command_named(arguments: Sequence[str]) -> str | None:
    """Return the command ARGUMENTS name (the first word that is one), or None."""
    return next((word for word in arguments if word in _HANDLERS), None)


def main(argv: list[str] | None = None) -> int:
    """Run the command line; return the exit code."""
    arguments = list(sys.argv[1:] if argv is None else argv)
    command = _command_named(arguments)
    as_json = "--json" in arguments and command in JSON_COMMANDS
    parser = build_parser()
    try:
        args = parser.parse(arguments)
    except ArgumentsRefused as exc:
        report(400, usage_line(exc, command, arguments), as_json=as_json)
        return 2
    as_json = bool(getattr(args, "json", False))
    verbose = bool(getattr(args, "verbose", False))
    start_logging(verbose)
    if args.command is None:
        # No command is a usage error: the help says which there are.
        parser.print_help(sys.stderr)
        return 2
    try:
        return _handler(args.command)(args)
    except KeyboardInterrupt:
        report(499, "interrupted", as_json=as_json)
        return 130
    except BrokenPipeError:
        # The reader went away (`| head`): nothing more to say, and nowhere to say it.
        with contextlib.suppress(OSError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except HostError as exc:
        if verbose:
            print_traceback()
        report(exc.status, str(exc), as_json=as_json)
        return 2
    except contract.CursorError as exc:
        if verbose:
            print_traceback()
        report(exc.status, str(exc), as_json=as_json, hint=exc.hint)
        return 2 if config_fault(exc) else 1
    except Exception as exc:
        if verbose:
            print_traceback()
        status, line = failure(exc)
        report(status, line, as_json=as_json)
        return 1


if __name__ == "__main__":
    raise SystemExit(main())
