"""The reference host's command line: ``nodecode-cursor``.

Commands: ``chat`` (the interactive REPL, ``chat.py``), ``ask`` (one turn, plain
or ``--json``), ``models``, ``login``, ``status``, ``logout``, ``accounts``,
``use`` (the cell's own verbs; ``--account`` on ``ask``, ``chat`` and ``serve``
picks the kept account rounds run on), ``usage`` (the plan at a glance),
``doctor`` (what works with Cursor today), ``demo`` (a real two-round turn
against the bundled simulator) and ``serve`` (the OpenAI- and
Anthropic-compatible API, ``routes.py``).
Global flags: ``--base-url``, ``--web-url``, ``-v`` and ``--version``;
``NODECODE_HOME`` picks the home folder.

Every command exits 0 on success and non-zero on failure: 2 for usage and config
errors, 1 for everything else, 130 when interrupted. A failure is one line on
stderr (or ``{"error": {...}}`` with ``ask --json``); a traceback only with ``-v``.
The host itself (cell loading, the turn loop) is ``refhost.py``'s; what every
command sets up alike (the host, the model and effort, the model table) is
``setup.py``'s; the chat is ``chat.py``'s and the API server ``routes.py``'s
(over ``http_server.py``).
Nothing of the cell is imported before the host has loaded the cells (``contract.py``).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import math
import os
import signal
import sys
import time
import traceback
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, TextIO

from . import contract
from . import limits as host_limits
from .errors import HostConfigError, HostError, UsageError
from .names import DEFAULT_MODEL, PROVIDER, for_shell
from .terminal_text import visible

if TYPE_CHECKING:
    from nodecode_cursor.host import Cell, SignInState

    from .host_tools import Toolbox
    from .refhost import ReferenceHost
    from .routes import ApiServer

# Each command imports what it runs, inside its handler: `status` or `--version` need not
# load the API server, the chat, the tools or importlib.metadata (benchmarks/startup.py).
# The API server's client-key variable, named here so redacting a log line loads nothing.
API_KEY_ENV = "NODECODE_SERVE_API_KEY"

__all__ = ["DEFAULT_MODEL", "UsageError", "main"]

log = logging.getLogger("nodecode_host.cli")


class Parser(argparse.ArgumentParser):
    """An argument parser that raises instead of exiting, so ``--json`` can answer in JSON."""

    def error(self, message: str) -> NoReturn:
        """Raise the usage error MESSAGE."""
        raise UsageError(f"{message} (see {self.prog} --help)")


def _positive_int(text: str) -> int:
    """Return TEXT as an integer ≥ 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


def _positive_float(text: str) -> float:
    """Return TEXT as a finite number > 0."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    # float() takes "nan", "inf" and 1e400 (which overflows to inf): none is a duration.
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"not a finite number: {text!r}")
    if value <= 0:
        raise argparse.ArgumentTypeError("must be more than 0")
    return value


def _port(text: str) -> int:
    """Return TEXT as a TCP port number, 1..65535."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if not 1 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"must be a port from 1 to 65535, not {value}")
    return value


def _globals(parser: argparse.ArgumentParser, *, top: bool) -> None:
    """Add the global flags; on subcommands they default to 'not given' so either place works."""
    default = None if top else argparse.SUPPRESS
    parser.add_argument(
        "--base-url", default=default, help="Cursor's agent service (overrides config.json)"
    )
    parser.add_argument(
        "--web-url", default=default, help="Cursor's sign-in site (overrides config.json)"
    )
    parser.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        default=False if top else argparse.SUPPRESS,
        help="debug logging on stderr (never tokens), tracebacks on failure",
    )


def _account_flag(parser: argparse.ArgumentParser) -> None:
    """Add --account: which kept Cursor account runs the rounds (overrides cursor.account)."""
    parser.add_argument(
        "--account",
        metavar="EMAIL",
        help="the kept Cursor account the rounds run on (default: cursor.account, else the "
        "active one; `accounts` lists them)",
    )


def _demo_flags(demo: argparse.ArgumentParser) -> None:
    """Add demo's flags: -v, and the URL flags hidden (taken only to be refused by name)."""
    for flag in ("--base-url", "--web-url"):
        demo.add_argument(flag, default=argparse.SUPPRESS, help=argparse.SUPPRESS)
    demo.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        default=argparse.SUPPRESS,
        help="debug logging on stderr (never tokens), tracebacks on failure",
    )


class _Version(argparse.Action):
    """``--version``: print the version, read only when asked (importlib.metadata is slow)."""

    def __call__(self, parser: argparse.ArgumentParser, *_: Any) -> NoReturn:
        from . import __version__

        print(f"nodecode-cursor {__version__}")
        parser.exit()


def build_parser() -> Parser:
    """Return the command-line parser."""
    parser = Parser(
        prog="nodecode-cursor",
        description="Cursor's models through your own Cursor account: a reference Nodecode host "
        "with the nodecode-cursor cell. Home: $NODECODE_HOME (default ~/.nodecode).",
    )
    parser.add_argument("--version", action=_Version, nargs=0, help="show the version and exit")
    _globals(parser, top=True)
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)

    chat = commands.add_parser("chat", help="an interactive chat with tools")
    _globals(chat, top=False)
    chat.add_argument("--model", help=f"the model (default {DEFAULT_MODEL})")
    chat.add_argument("--effort", help="thinking effort (low, medium, high, …) or off")
    chat.add_argument("--session", help="the session id (keys Cursor's conversation)")
    _account_flag(chat)
    chat.add_argument("--tools", choices=("default", "none"), default="default")
    chat.add_argument("--yes", action="store_true", help="run commands and read outside cwd")
    chat.add_argument(
        "--native-tools",
        choices=("on", "off"),
        help="run Cursor's own tools in place (default on with --tools default)",
    )

    ask = commands.add_parser("ask", help="one turn, non-interactive")
    _globals(ask, top=False)
    ask.add_argument("--model", help=f"the model (default {DEFAULT_MODEL})")
    ask.add_argument("--effort", help="thinking effort (low, medium, high, …) or off")
    ask.add_argument("--system", help="the system prompt")
    ask.add_argument("--history", help="a JSON array of chat messages the prompt is appended to")
    ask.add_argument(
        "--tools", default="default", help="default, none, or a JSON file of tools (returned)"
    )
    ask.add_argument("--session", help="the session id (keys Cursor's conversation)")
    _account_flag(ask)
    ask.add_argument("--json", action="store_true", help="print one JSON object")
    ask.add_argument(
        "--max-rounds",
        type=_positive_int,
        default=host_limits.MAX_ROUNDS,
        help="rounds at most; 1 returns the first round's tool calls unrun",
    )
    ask.add_argument(
        "--timeout", type=_positive_float, help="seconds without data before the round fails"
    )
    ask.add_argument("--yes", action="store_true", help="run commands and read outside cwd")
    ask.add_argument(
        "--native-tools",
        choices=("on", "off"),
        help="run Cursor's own tools in place (default on with --tools default)",
    )
    ask.add_argument("prompt", nargs="*", help="the prompt ('-' reads it from stdin)")

    models = commands.add_parser("models", help="the models your account may use")
    _globals(models, top=False)
    models.add_argument("--json", action="store_true", help="print one JSON object")

    login = commands.add_parser("login", help="sign in to Cursor in the browser")
    _globals(login, top=False)
    login.add_argument(
        "--no-browser", action="store_true", help="print the sign-in page, do not open it"
    )
    login.add_argument(
        "--add",
        action="store_true",
        help="keep the account signed in now and add another one (asked on a terminal)",
    )
    login.add_argument(
        "--api-key",
        action="store_true",
        help="keep a Cursor API key as an account (read from a prompt or stdin, never argv)",
    )
    for name, text in (
        ("status", "how the sign-in stands"),
        ("logout", "forget the active account's sign-in, or the account EMAIL's"),
        ("accounts", "the kept Cursor accounts, each one's plan and usage, which is active"),
        ("use", "make the kept account EMAIL the active one"),
    ):
        _globals(commands.add_parser(name, help=text), top=False)
    commands.choices["logout"].add_argument(
        "email", nargs="?", metavar="EMAIL", help="the account to forget (default: the active)"
    )
    commands.choices["use"].add_argument("email", metavar="EMAIL", help="the account to use")
    for name in ("login", "logout"):
        _move_aside_flag(commands.choices[name])

    usage = commands.add_parser("usage", help="your plan's usage this period (Cursor's dashboard)")
    _globals(usage, top=False)
    usage.add_argument("--json", action="store_true", help="print one JSON object")

    doctor = commands.add_parser(
        "doctor",
        help="what works with Cursor today, and what to change",
        description="Checks the credential, reaching the service, the client version, the "
        "roster and catalog, then one tiny round per transport and per model family "
        "(rounds cost a few tokens; --no-rounds skips them). Exits 1 when a check failed.",
    )
    _globals(doctor, top=False)
    doctor.add_argument("--json", action="store_true", help="print one JSON object")
    doctor.add_argument("--no-rounds", action="store_true", help="skip the rounds (no tokens)")
    demo = commands.add_parser(
        "demo",
        help="a real turn against the offline simulator",
        description="A real two-round turn against the bundled simulator on loopback, never "
        "Cursor.",
    )
    _demo_flags(demo)

    serve = commands.add_parser("serve", help="an OpenAI-compatible API for Cursor's models")
    _globals(serve, top=False)
    serve.add_argument(
        "--host", default="127.0.0.1", help="the address to listen on (default 127.0.0.1)"
    )
    _account_flag(serve)
    serve.add_argument(
        "--port", type=_port, default=8765, help="the port to listen on (default 8765)"
    )
    serve.add_argument(
        "--allow-origin",
        action="append",
        default=[],
        metavar="ORIGIN",
        help="a web origin (such as http://localhost:3000) whose pages may call the API; "
        "repeatable (requests from any other page are refused)",
    )
    serve.add_argument(
        "--allow-agent-lane",
        action="store_true",
        help="serve cursor-agent/... models (and the cursor-agent lane setting): every client "
        "then runs Cursor's CLI with its shell and file tools approved, as you, in this "
        "folder; needs a client key in " + API_KEY_ENV,
    )
    return parser


# ask ------------------------------------------------------------------------------------------


def _read_history(path: str) -> list[dict[str, Any]]:
    """Return the chat messages in the JSON file PATH; HostConfigError when it is not that."""
    try:
        raw = json.loads(Path(path).read_text("utf-8"))
    except OSError as exc:
        raise HostConfigError(f"cannot read the history {path}: {exc.strerror or exc}") from None
    except (ValueError, UnicodeDecodeError, RecursionError) as exc:
        raise HostConfigError(f"the history {path} is not JSON: {exc}") from None
    if not isinstance(raw, list) or not all(
        isinstance(m, dict) and isinstance(m.get("role"), str) for m in raw
    ):
        raise HostConfigError(f"the history {path} must be a JSON array of messages with a role")
    return raw


def _toolbox(spec: str, *, assume_yes: bool, interactive: bool) -> Toolbox:
    """Return the toolbox --tools SPEC names: the host's own, none, or definitions from a file."""
    from .host_tools import HostTools, Toolbox, load_tool_file
    from .setup import allow_secret, confirm

    if spec == "none":
        return Toolbox()
    if spec == "default":
        return HostTools(
            Path.cwd(),
            assume_yes=assume_yes,
            confirm=confirm if interactive else None,
            allow_secret=allow_secret if interactive else None,
        )
    return load_tool_file(spec)


def cmd_ask(args: argparse.Namespace) -> int:
    """Run one turn; print its answer (or one JSON object); return the exit code."""
    from .setup import checked_route, make_host, native_tools_on

    prompt = " ".join(args.prompt).strip()
    if prompt == "-":
        prompt = sys.stdin.read().strip()
    history = _read_history(args.history) if args.history else []
    if not prompt and not history:
        raise UsageError("ask needs a PROMPT (or --history)")
    from .native_tools import runner_for
    from .refhost import Conversation
    from .render import Style, TerminalView

    host = make_host(args)
    try:
        route = checked_route(host, args.model, args.effort)
        model, effort = route.model, route.effort
        interactive = sys.stdin.isatty() and not args.json
        tools = _toolbox(args.tools, assume_yes=args.yes, interactive=interactive)
        messages = list(history)
        if prompt:
            messages.append({"role": "user", "content": prompt})
        conversation = Conversation(
            model=model,
            effort=effort,
            system=args.system,
            session_id=args.session,
            messages=messages,
            cwd=str(Path.cwd()),
            request_timeout=args.timeout,
        )
        view = None
        if not args.json:
            view = TerminalView(
                sys.stdout,
                reasoning=sys.stderr if sys.stderr.isatty() else None,
                tools=sys.stderr,
                style=Style(sys.stderr),
            )
        native = None
        if native_tools_on(host, args.native_tools, args.tools):
            native = runner_for(tools, assume_yes=args.yes, interactive=interactive)
        outcome = host.run_turn(
            conversation,
            tools,
            max_rounds=args.max_rounds,
            observer=view,
            native=native,
            native_kinds=native.kinds if native is not None else frozenset(),
        )
        _show_notices(host, sys.stderr)
        if outcome.interrupted:
            raise KeyboardInterrupt
        if args.json:
            usage: dict[str, Any] = dict(outcome.usage.as_dict())
            if outcome.cost_usd_estimate is not None:
                # At the bundled rows' published rates; absent when a model has none.
                usage["cost_usd_estimate"] = outcome.cost_usd_estimate
            answer = {
                "message": outcome.message,
                "finish_reason": outcome.finish_reason,
                "usage": usage,
                "model": model,
                "wire_model": outcome.wire_model,
                "rounds": outcome.rounds,
                # The calls the provider ran itself (cursor-agent's tools), call and result.
                "resolved": outcome.resolved,
                "messages": outcome.messages,
                # Earlier messages the last request sent as a summary to fit Cursor's limits.
                "folded": {"messages": outcome.folded, "reason": outcome.fold_reason},
            }
            if outcome.account is not None:
                # Several kept accounts: the one the turn ended on, and each move before output.
                answer["account"] = outcome.account
                answer["failovers"] = outcome.failovers
            print(json.dumps(answer, ensure_ascii=False))
        elif view is not None:
            view.close()
            if outcome.unrun:
                view.unrun(outcome.unrun)
        return 0
    finally:
        host.stop()


def _show_notices(host: ReferenceHost, stream: TextIO) -> None:
    """Write the host's standing notices to STREAM."""
    from .render import Style

    style = Style(stream)
    for notice in host.notices():
        stream.write(style.yellow(f"! {visible(notice.text, lines=False)}") + "\n")
    stream.flush()


# models ---------------------------------------------------------------------------------------


def cmd_models(args: argparse.Namespace) -> int:
    """Print the models; return the exit code."""
    from .setup import fetch_models, format_models, make_host

    host = make_host(args)
    try:
        live, reason, hint, rows = fetch_models(host)
        reason = for_shell(reason, hint) if reason else reason
        if args.json:
            print(
                json.dumps({"provider": PROVIDER, "live": live, "reason": reason, "models": rows})
            )
        else:
            print(visible(format_models(live, reason, rows)))
        return 0
    finally:
        host.stop()


# usage ----------------------------------------------------------------------------------------


def cmd_usage(args: argparse.Namespace) -> int:
    """Print the account's plan usage from Cursor's dashboard; return the exit code.

    One question through the cell (``cell.account_usage``), never retried; a refusal
    or an unreachable service is the usual one-line failure.
    """
    from .setup import make_host

    host = make_host(args)
    try:
        cell = host.cell_for(PROVIDER)
        # Several kept accounts: every one side by side (read with getattr: an older cell
        # has no rows to give, and shows the active account alone as before).
        listed = getattr(cell, "accounts_usage_now", None)
        several = callable(listed) and len(cell.sign_in_state().accounts) > 1
        if several and not args.json:
            print(visible(host.command(PROVIDER).run("usage")))
            return 0
        usage = host.run_async(cell.account_usage())
        if args.json:
            data = dict(usage.as_dict())
            if several and callable(listed):
                data["accounts"] = listed()
            print(json.dumps(data, ensure_ascii=False))
        else:
            print(visible(usage.text(time.time())))
        return 0
    finally:
        host.stop()


# doctor ---------------------------------------------------------------------------------------

_MARKS = {"ok": "ok  ", "fail": "FAIL", "skip": "--  "}


def cmd_doctor(args: argparse.Namespace) -> int:
    """Run the cell's checks, printing each verdict as it comes; exit 1 when one failed."""
    from .setup import make_host

    host = make_host(args)
    try:
        cell = host.cell_for(PROVIDER)

        def show(check: contract.DoctorCheck) -> None:
            # The rounds come right after the catalog check, and only once the service
            # answered: the warning stands where it is true, never after a failed reach.
            if check.name == "catalog" and check.status != "skip" and not args.no_rounds:
                print(
                    "nodecode-cursor: the round checks send one tiny prompt per transport "
                    "and per model family, which costs a few tokens (--no-rounds skips them)",
                    file=sys.stderr,
                    flush=True,
                )
            if args.json:
                return
            # The fix names the shell's command itself (the cell words it for ``doctor``).
            # A verdict may quote the service or a proxy (a refusal's text, a status line).
            verdict = visible(check.verdict, lines=False)
            print(f"{_MARKS[check.status]}  {check.name}: {verdict}", flush=True)
            if check.fix:
                print(f"      fix: {visible(check.fix, lines=False)}", flush=True)

        checks = host.run_async(cell.doctor(rounds=not args.no_rounds, report=show))
        failed = any(check.status == "fail" for check in checks)
        if args.json:
            data = {"ok": not failed, "checks": [check.as_dict() for check in checks]}
            print(json.dumps(data, ensure_ascii=False))
        return 1 if failed else 0
    finally:
        host.stop()


# login, status, logout ------------------------------------------------------------------------


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
    return for_shell(line, contract.SIGN_IN_HINT)


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
            _report(
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
        _report(400, line.removeprefix(PROVIDER + ": "), as_json=False)
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
            _report(400, line.removeprefix(PROVIDER + ": "), as_json=False)
            return 1
        print(visible(line))
        return 0
    finally:
        host.stop()


def _shell_words(line: str) -> str:
    """Return LINE with the chat's /cursor verbs worded as this command line's."""
    return line.replace("/cursor ", "nodecode-cursor ")


def _move_aside_flag(parser: argparse.ArgumentParser) -> None:
    """Add --move-aside: the way out of a corrupt auth.json, asked on a terminal otherwise."""
    parser.add_argument(
        "--move-aside",
        action="store_true",
        help="move a corrupt auth.json aside (kept as auth.json.corrupt-<time>) and go on",
    )


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


# demo -----------------------------------------------------------------------------------------

DEMO_TOKEN = "demo-token"
DEMO_MODEL = "composer-2.5"
DEMO_FILE = "release-notes.txt"
DEMO_TEXT = "nodecode-cursor 0.1.0: the cursor lane, sign-in, the roster and the reference host.\n"
DEMO_PROMPT = f'What do the release notes say? Use read_file with {{"path": "{DEMO_FILE}"}}.'


def _simulator_class() -> Any:
    """Return the bundled simulator's class; HostConfigError in one line when it is absent."""
    # Imported here: the simulator is the demo's alone, and it loads the installed cell's
    # protobuf code, which no other command should pay for (or load before the cells).
    try:
        from cursor_simulator import Simulator
    except ImportError as exc:
        raise HostConfigError(
            "the demo needs the bundled simulator (the cursor_simulator package and pyjwt), "
            f"which could not be imported ({exc.name or 'a module'} is missing): install the "
            "project with pip install -e . from its repository"
        ) from None
    return Simulator


def cmd_demo(args: argparse.Namespace) -> int:
    """Run a real two-round turn with a tool handoff against the bundled simulator."""
    import tempfile
    import uuid

    from .setup import make_host

    simulator = _simulator_class()

    from .host_tools import HostTools
    from .refhost import Conversation
    from .render import Style, TerminalView

    given = [
        flag
        for flag, value in (
            ("--base-url", getattr(args, "base_url", None)),
            ("--web-url", getattr(args, "web_url", None)),
        )
        if value
    ]
    if given:
        # The demo is offline by design: it must never dial the URL given for Cursor.
        raise UsageError(
            f"demo always runs against its own bundled simulator; {' and '.join(given)} "
            "cannot be used with it (see nodecode-cursor demo --help)"
        )
    style = Style(sys.stdout)
    with tempfile.TemporaryDirectory(prefix="nodecode-demo-") as scratch, simulator() as sim:
        # The demo's own home and working folder: nothing of the person's is read or written,
        # and their Cursor token never goes to the simulator.
        home, work = Path(scratch) / "home", Path(scratch) / "work"
        home.mkdir()
        work.mkdir()
        (work / DEMO_FILE).write_text(DEMO_TEXT, "utf-8")
        print(style.yellow("OFFLINE DEMO — the bundled simulator on loopback, not Cursor."))
        print(style.dim(f"simulator: {sim.url}   working folder: {work}"))
        host = make_host(args, home=home, overrides={"base_url": sim.url, "web_url": sim.url})
        try:
            conversation = Conversation(
                model=DEMO_MODEL,
                messages=[{"role": "user", "content": DEMO_PROMPT}],
                session_id=f"demo-{uuid.uuid4().hex[:8]}",
                cwd=str(work),
                credential=DEMO_TOKEN,
            )
            print(style.bold("you> ") + DEMO_PROMPT)
            view = TerminalView(sys.stdout, style=style, reasoning=sys.stdout, rounds=True)
            tools = HostTools(work)
            outcome = host.run_turn(conversation, tools, observer=view)
            view.close()
            usage = outcome.usage
            print(
                style.dim(
                    f"── done: {outcome.rounds} rounds, finish {outcome.finish_reason}, "
                    f"tokens in {usage.input} / out {usage.output} ──"
                )
            )
            if outcome.interrupted:
                raise KeyboardInterrupt
            if outcome.rounds < 2 or outcome.finish_reason != "stop":
                print("the demo turn did not complete its tool handoff", file=sys.stderr)
                return 1
            return 0
        finally:
            host.stop()


# serve ----------------------------------------------------------------------------------------


def cmd_serve(args: argparse.Namespace) -> int:
    """Serve the OpenAI-compatible API on ``args.host``:``args.port`` until Ctrl-C or SIGTERM.

    The client key comes from NODECODE_SERVE_API_KEY only (never argv: secrets
    do not belong in a process listing). Listening beyond loopback without one is
    refused: it would lend the Cursor account to the whole network.
    """
    import asyncio

    from .http_server import DEFAULT_LISTEN_HOST, DEFAULT_PORT, authority, loopback
    from .routes import API_KEY_ENV, serve
    from .setup import make_host

    listen_host = str(getattr(args, "host", None) or DEFAULT_LISTEN_HOST)
    port = int(getattr(args, "port", None) or DEFAULT_PORT)
    api_key = os.environ.get(API_KEY_ENV, "").strip() or None
    if not loopback(listen_host) and api_key is None:
        raise HostConfigError(
            f"refusing to listen on {listen_host} without a client key: set {API_KEY_ENV} "
            "(or listen on 127.0.0.1)"
        )
    allow_agent_lane = bool(getattr(args, "allow_agent_lane", False))
    if allow_agent_lane and api_key is None:
        raise HostConfigError(
            f"--allow-agent-lane lets clients run commands as you: set {API_KEY_ENV} to a "
            "client key first, so only your own clients can"
        )
    host = make_host(args)
    try:
        host.lane(PROVIDER)  # not installed or disabled: say so before listening

        def announce(server: ApiServer) -> None:
            where = "loopback only" if loopback(listen_host) else "reachable from the network"
            key = f"clients must send {API_KEY_ENV}" if api_key else "no client key required"
            print(
                f"nodecode-cursor: serving Cursor's models at {server.url} ({where}; {key}). "
                "Ctrl-C stops.",
                file=sys.stderr,
                flush=True,
            )

        async def run() -> None:
            task = asyncio.current_task()
            if task is not None:
                # SIGTERM (a service manager stopping us) ends the server as Ctrl-C does.
                with contextlib.suppress(NotImplementedError, RuntimeError):
                    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, task.cancel)
            with contextlib.suppress(asyncio.CancelledError):
                await serve(
                    host,
                    listen_host=listen_host,
                    port=port,
                    api_key=api_key,
                    allowed_origins=tuple(getattr(args, "allow_origin", None) or ()),
                    allow_agent_lane=allow_agent_lane,
                    ready=announce,
                )
            print("nodecode-cursor: stopped", file=sys.stderr)

        try:
            asyncio.run(run())
        except KeyboardInterrupt:
            print("nodecode-cursor: stopped", file=sys.stderr)
        except OSError as exc:
            raise HostConfigError(
                f"cannot listen on {authority(listen_host, port)}: {exc.strerror or exc}"
            ) from None
    finally:
        host.stop()
    return 0


# Entry ----------------------------------------------------------------------------------------

_HANDLERS: dict[str, Callable[[argparse.Namespace], int]] = {
    "ask": cmd_ask,
    "models": cmd_models,
    "login": cmd_login,
    "status": cmd_status,
    "logout": cmd_logout,
    "accounts": cmd_accounts,
    "use": cmd_use,
    "usage": cmd_usage,
    "doctor": cmd_doctor,
    "demo": cmd_demo,
    "serve": cmd_serve,
}


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


def _logging(verbose: bool) -> None:
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


def _print_traceback() -> None:
    """Write the failure being handled's traceback to stderr (``-v``), secrets and controls out.

    Its lines quote the exceptions' words, which may hold the service's error text.
    """
    sys.stderr.write(visible(TokenRedactor.redacted(traceback.format_exc())))


def _config_fault(exc: BaseException) -> bool:
    """Return whether the cell's error EXC is a config error (exit 2, as the README says).

    A home or config.json that others own or may write is one too: the person's set-up
    is what must change, not the service.
    """
    return isinstance(exc, contract.ConfigError) or (
        isinstance(exc, contract.StoreError) and exc.code == "unsafe_home"
    )


def _failure(exc: BaseException) -> tuple[int, str]:
    """Return (status, one line) for a failure that is not one of ours.

    The cell raises every failure to reach Cursor as a ``CursorError`` worded by
    the cell, so anything else here is unexpected: its kind and text, scrubbed.
    """
    return 500, contract.scrub(f"internal error: {type(exc).__name__}: {exc}")


def _report(status: int, message: str, *, as_json: bool, hint: str | None = None) -> None:
    """Print a failure: JSON on stdout with --json, else one line on stderr.

    HINT is the error's ``CursorError.hint``: the sign-in's gets the shell's command added.
    """
    message = for_shell(message, hint)
    if as_json:
        print(json.dumps({"error": {"status": status, "message": message}}, ensure_ascii=False))
    else:
        print(f"nodecode-cursor: {visible(message, lines=False)}", file=sys.stderr)


# The commands that take --json: only their usage errors answer in JSON.
JSON_COMMANDS = ("ask", "models", "usage", "doctor")


def _command_named(arguments: Sequence[str]) -> str | None:
    """Return the command ARGUMENTS name (the first word that is one), or None."""
    return next((word for word in arguments if word in _HANDLERS or word == "chat"), None)


def _usage_line(message: str, command: str | None) -> str:
    """Return the usage error MESSAGE pointing at COMMAND's own help when one was named."""
    if "crsr_" in message:  # argparse would echo a key typed on the command line
        from .key_login import key_in_argv

        return key_in_argv()
    if command is None:
        return message
    if command == "serve" and "--api-key" in message:
        # argparse would echo the unknown arguments, the key among them: say it without.
        return (
            f"serve takes no --api-key: the client key comes from {API_KEY_ENV}, never the "
            "command line (see nodecode-cursor serve --help)"
        )
    # argparse reports a subcommand's unknown flag from the top parser: point at the
    # subcommand's help, where the flags it does take are listed.
    top = "(see nodecode-cursor --help)"
    if message.endswith(top):
        message = message.removesuffix(top) + f"(see nodecode-cursor {command} --help)"
    return message


def main(argv: list[str] | None = None) -> int:
    """Run the command line; return the exit code."""
    arguments = list(sys.argv[1:] if argv is None else argv)
    command = _command_named(arguments)
    as_json = "--json" in arguments and command in JSON_COMMANDS
    parser = build_parser()
    try:
        args = parser.parse_args(arguments)
    except UsageError as exc:
        _report(400, _usage_line(str(exc), command), as_json=as_json)
        return 2
    as_json = bool(getattr(args, "json", False))
    verbose = bool(getattr(args, "verbose", False))
    _logging(verbose)
    if args.command is None:
        # No command is a usage error: the help says which there are.
        parser.print_help(sys.stderr)
        return 2
    try:
        if args.command == "chat":
            from .chat import run_chat

            return run_chat(args)
        return _HANDLERS[args.command](args)
    except KeyboardInterrupt:
        _report(499, "interrupted", as_json=as_json)
        return 130
    except BrokenPipeError:
        # The reader went away (`| head`): nothing more to say, and nowhere to say it.
        with contextlib.suppress(OSError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except HostError as exc:
        if verbose:
            _print_traceback()
        _report(exc.status, str(exc), as_json=as_json)
        return 2
    except contract.CursorError as exc:
        if verbose:
            _print_traceback()
        _report(exc.status, str(exc), as_json=as_json, hint=exc.hint)
        return 2 if _config_fault(exc) else 1
    except Exception as exc:
        if verbose:
            _print_traceback()
        status, line = _failure(exc)
        _report(status, line, as_json=as_json)
        return 1


if __name__ == "__main__":
    raise SystemExit(main())
