"""How the command line says what went wrong: the one line, the verbose log, the exit status.

A failure is one line on stderr, or ``{"error": {...}}`` on stdout with
``--json`` (``report``); ``-v`` sends the cell's and the host's debug log to
stderr (``start_logging``) and prints a failure's traceback (``print_traceback``),
both through ``TokenRedactor``, so no token, client key or control character
reaches the terminal. Which failure exits 2 (a config fault) and how an
unexpected one is worded are here too; catching the failures is ``cli.py``'s,
and what each command prints on success is its own module's.
"""

from __future__ import annotations

import json
import logging
import os
import sys
import traceback

from . import contract
from .names import API_KEY_ENV, for_shell
from .terminal_text import visible

__all__ = ["TokenRedactor", "config_fault", "failure", "print_traceback", "report", "start_logging"]


class TokenRedactor(logging.Filter):
    """Removes credentials from log records, their tracebacks included, before they are written.

    The tokens in the environment (and serve's client key) go by value; so does
    every secret the cell holds, and anything else credential-shaped, through
    ``errors.scrub``, the package's one redaction rule.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        """Rewrite the record's message and traceback without secrets; always keep the record.

        The message's control characters are escaped as well, whoever logged it: a
        value a client or the service chose cannot forge a line or drive the terminal.
        """
        message = self.redacted(record.getMessage())
        record.msg, record.args = visible(message, lines=False), None
        if record.exc_info and not record.exc_text:
            # Formatters reuse exc_text when it is set: format the traceback here, once.
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        # A traceback quotes its exceptions' words (the service's error text among them).
        if record.exc_text:
            record.exc_text = visible(self.redacted(record.exc_text))
        if record.stack_info:
            record.stack_info = visible(self.redacted(record.stack_info))
        return True

    @staticmethod
    def redacted(text: str) -> str:
        """Return TEXT without the environment's tokens or anything shaped like a credential."""
        for name in ("CURSOR_ACCESS_TOKEN", "CURSOR_API_KEY", API_KEY_ENV):
            secret = os.environ.get(name)
            if secret and len(secret) >= 8:
                text = text.replace(secret, "[redacted]")
        return contract.scrub(text)


def start_logging(verbose: bool) -> None:
    """Send the cell's and the host's debug log to stderr when VERBOSE (tokens redacted)."""
    if not verbose:
        return
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(asctime)s %(name)s %(levelname)s %(message)s"))
    handler.addFilter(TokenRedactor())
    for name in ("nodecode_cursor", "nodecode_host"):
        package = logging.getLogger(name)
        package.setLevel(logging.DEBUG)
        package.addHandler(handler)


def print_traceback() -> None:
    """Write the failure being handled's traceback to stderr (``-v``), secrets and controls out.

    Its lines quote the exceptions' words, which may hold the service's error text.
    """
    sys.stderr.write(visible(TokenRedactor.redacted(traceback.format_exc())))


def config_fault(exc: BaseException) -> bool:
    """Return whether the cell's error EXC is a config error (exit 2, as the README says).

    A home or config.json that others own or may write is one too: the person's set-up
    is what must change, not the service.
    """
    return isinstance(exc, contract.ConfigError) or (
        isinstance(exc, contract.StoreError) and exc.code == "unsafe_home"
    )


def failure(exc: BaseException) -> tuple[int, str]:
    """Return (status, one line) for a failure that is not one of ours.

    The cell raises every failure to reach Cursor as a ``CursorError`` worded by
    the cell, so anything else here is unexpected: its kind and text, scrubbed.
    """
    return 500, contract.scrub(f"internal error: {type(exc).__name__}: {exc}")


def report(status: int, message: str, *, as_json: bool, hint: str | None = None) -> None:
    """Print a failure: JSON on stdout with --json, else one line on stderr.

    HINT is the error's ``CursorError.hint``: the sign-in's gets the shell's command added.
    """
    message = for_shell(message, hint)
    if as_json:
        print(json.dumps({"error": {"status": status, "message": message}}, ensure_ascii=False))
    else:
        print(f"nodecode-cursor: {visible(message, lines=False)}", file=sys.stderr)
