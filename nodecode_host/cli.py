"""The reference host's command line: ``nodecode-cursor``.

Commands: ``chat`` (the interactive REPL, ``chat.py``), ``ask`` (one turn, plain
or ``--json``), ``models``, ``login``, ``status``, ``logout`` (the cell's own
verbs), ``demo`` (a real two-round turn against the bundled simulator) and
``serve`` (an OpenAI-compatible API over the lane, ``openai_server.py``).
Global flags: ``--base-url``, ``--web-url``, ``-v`` and ``--version``;
``NODECODE_HOME`` picks the home folder.

Every command exits 0 on success and non-zero on failure: 2 for usage and config
errors, 1 for everything else, 130 when interrupted. A failure is one line on
stderr (or ``{"error": {...}}`` with ``ask --json``); a traceback only with ``-v``.
The host itself (cell loading, the turn loop) is ``refhost.py``'s.
"""

from __future__ import annotations

import argparse
import contextlib
import difflib
import json
import logging
import math
import os
import sys
import time
import traceback
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NoReturn, TextIO

from nodecode_cursor import __version__, limits
from nodecode_cursor.errors import ConfigError, CursorError, scrub

from . import limits as host_limits

__all__ = ["DEFAULT_MODEL", "UsageError", "main"]

log = logging.getLogger("nodecode_host.cli")

# Cursor's own model: included in every plan, and quick to answer.
DEFAULT_MODEL = "composer-2.5"
PROVIDER = "cursor"


class UsageError(ConfigError):
    """The command line itself is wrong (a missing argument, a bad flag)."""


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


def build_parser() -> Parser:
    """Return the command-line parser."""
    parser = Parser(
        prog="nodecode-cursor",
        description="Cursor's models through your own Cursor account: a reference Nodecode host "
        "with the nodecode-cursor cell. Home: $NODECODE_HOME (default ~/.nodecode).",
    )
    parser.add_argument("--version", action="version", version=f"nodecode-cursor {__version__}")
    _globals(parser, top=True)
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)

    chat = commands.add_parser("chat", help="an interactive chat with tools")
    _globals(chat, top=False)
    chat.add_argument("--model", help=f"the model (default {DEFAULT_MODEL})")
    chat.add_argument("--effort", help="thinking effort (low, medium, high, …) or off")
    chat.add_argument("--session", help="the session id (keys Cursor's conversation)")
    chat.add_argument("--tools", choices=("default", "none"), default="default")
    chat.add_argument("--yes", action="store_true", help="run commands and read outside cwd")

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
    ask.add_argument("prompt", nargs="*", help="the prompt ('-' reads it from stdin)")

    models = commands.add_parser("models", help="the models your account may use")
    _globals(models, top=False)
    models.add_argument("--json", action="store_true", help="print one JSON object")

    for name, text in (
        ("login", "sign in to Cursor in the browser"),
        ("status", "how the sign-in stands"),
        ("logout", "forget the kept sign-in"),
    ):
        _globals(commands.add_parser(name, help=text), top=False)
    demo = commands.add_parser(
        "demo",
        help="a real turn against the offline simulator",
        description="A real two-round turn against the bundled simulator on loopback, never "
        "Cursor: --base-url and --web-url are refused here.",
    )
    _globals(demo, top=False)

    serve = commands.add_parser("serve", help="an OpenAI-compatible API for Cursor's models")
    _globals(serve, top=False)
    serve.add_argument(
        "--host", default="127.0.0.1", help="the address to listen on (default 127.0.0.1)"
    )
    serve.add_argument(
        "--port", type=_port, default=8765, help="the port to listen on (default 8765)"
    )
    return parser


# Host set-up ---------------------------------------------------------------------------------


def home_folder() -> Path:
    """Return the host's home: $NODECODE_HOME, else ~/.nodecode."""
    from nodecode_cursor.host import default_home

    return default_home()


def make_host(
    args: argparse.Namespace,
    *,
    home: Path | None = None,
    say: Callable[[str], None] | None = None,
    overrides: dict[str, Any] | None = None,
) -> Any:
    """Return a started ReferenceHost for ARGS (flags override config.json's cursor section)."""
    from .refhost import ReferenceHost

    section: dict[str, Any] = dict(overrides or {})
    if getattr(args, "base_url", None):
        section["base_url"] = args.base_url
    if getattr(args, "web_url", None):
        section["web_url"] = args.web_url
    host = ReferenceHost(home or home_folder(), overrides={PROVIDER: section}, say=say)
    # A broken config.json is a config error before anything loads.
    for key in HOST_DEFAULTS:
        _configured(host, key)
    host.start()
    for problem in host.problems:
        print(f"warning: {problem}", file=sys.stderr)
    return host


def catalog_models(host: Any) -> dict[str, dict[str, Any]]:
    """Return the cursor lane's catalog models by id."""
    cell = host.cell_for(PROVIDER)
    row = cell.catalog()
    return {str(m["id"]): m for m in row.get("models", [])}


def resolve_model(host: Any, name: str | None, extra: Sequence[str] = ()) -> str:
    """Return the model id NAME names (``cursor/`` prefix allowed); ConfigError with the nearest."""
    configured = None if name else _configured(host, "model")
    model = (name or configured or DEFAULT_MODEL).strip()
    model = model.removeprefix(f"{PROVIDER}/")
    # The roster repeats catalog ids: each may appear once among the nearest.
    known = list(dict.fromkeys([*catalog_models(host), *(m for m in extra if m)]))
    if model in known:
        return model
    # Not a bundled row: the account's own roster may still list it (one call, made
    # only for a model the bundled rows lack).
    live, why, rows = fetch_models(host)
    roster = [str(row["id"]) for row in rows if row.get("id")] if live else []
    if model in roster:
        return model
    known = list(dict.fromkeys([*known, *roster]))
    nearest = difflib.get_close_matches(model, known, n=5, cutoff=0.4)
    if not nearest:
        nearest = [k for k in known if model.split("-")[0] in k][:5]
    hint = f" Nearest supported: {', '.join(nearest)}." if nearest else ""
    unchecked = "" if live else f" The live roster could not be checked ({why})."
    raise ConfigError(
        f"unknown model {PROVIDER}/{model}{_from_file(host, 'model', configured)}.{hint}"
        f"{unchecked} (`nodecode-cursor models` lists them)",
        code="unknown_model",
    )


def resolve_effort(host: Any, model: str, effort: str | None) -> str | None:
    """Return the effort to ask MODEL for (None = off); ConfigError naming the model's efforts."""
    configured = None
    if effort is None:
        effort = configured = _configured(host, "effort")
    if effort is None or effort.strip().lower() in ("", "off", "none"):
        return None
    effort = effort.strip().lower()
    from nodecode_cursor.routing import EFFORTS, checked_effort

    try:
        checked_effort(effort)  # a misspelt level is refused whatever the model
    except ConfigError as exc:
        raise ConfigError(
            f"{exc.detail}{_from_file(host, 'effort', configured)}", code=exc.code
        ) from None
    row = catalog_models(host).get(model)
    if row is None or not row.get("reasoning"):
        return None  # a model that does not reason is asked no effort at all

    supported = list(row.get("efforts") or EFFORTS)
    if effort not in supported:
        raise ConfigError(
            f"effort {effort!r}{_from_file(host, 'effort', configured)} is not supported by "
            f"{PROVIDER}/{model}; its efforts: {', '.join(supported)}, or off"
        )
    return effort


# The host's own defaults at config.json's top level, and what each must be.
HOST_DEFAULTS = {
    "model": f'a model id string, e.g. "{DEFAULT_MODEL}"',
    "effort": 'an effort string, e.g. "high", or "off"',
}


def _configured(host: Any, key: str) -> str | None:
    """Return the host's default KEY (model, effort) from config.json's top level.

    ConfigError when it is there but not a string: ignoring it would quietly run
    another model than the one the person set.
    """
    value = host.config_file().get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        from .refhost import json_kind

        raise ConfigError(
            f'"{key}" in {host.config_path} must be {HOST_DEFAULTS[key]}, not {json_kind(value)}'
        )
    return value if value.strip() else None


def _from_file(host: Any, key: str, configured: str | None) -> str:
    """Return the note that KEY's value came from config.json (empty when it came from argv)."""
    return "" if configured is None else f' (the "{key}" in {host.config_path})'


# ask ------------------------------------------------------------------------------------------


def _read_history(path: str) -> list[dict[str, Any]]:
    """Return the chat messages in the JSON file PATH; ConfigError when it is not that."""
    try:
        raw = json.loads(Path(path).read_text("utf-8"))
    except OSError as exc:
        raise ConfigError(f"cannot read the history {path}: {exc.strerror or exc}") from None
    except (ValueError, UnicodeDecodeError, RecursionError) as exc:
        raise ConfigError(f"the history {path} is not JSON: {exc}") from None
    if not isinstance(raw, list) or not all(
        isinstance(m, dict) and isinstance(m.get("role"), str) for m in raw
    ):
        raise ConfigError(f"the history {path} must be a JSON array of messages with a role")
    return raw


def _toolbox(spec: str, *, assume_yes: bool, interactive: bool) -> Any:
    """Return the toolbox --tools SPEC names: the host's own, none, or definitions from a file."""
    from .host_tools import HostTools, Toolbox, load_tool_file

    if spec == "none":
        return Toolbox()
    if spec == "default":
        return HostTools(
            Path.cwd(), assume_yes=assume_yes, confirm=_confirm if interactive else None
        )
    return load_tool_file(spec)


def _confirm(command: str) -> bool:
    """Return whether the person allows COMMAND (asked on the terminal)."""
    try:
        answer = input(f"run `{command}`? [y/N] ")
    except EOFError:
        return False
    return answer.strip().lower() in ("y", "yes")


def cmd_ask(args: argparse.Namespace) -> int:
    """Run one turn; print its answer (or one JSON object); return the exit code."""
    from .refhost import Conversation
    from .render import Style, TerminalView

    prompt = " ".join(args.prompt).strip()
    if prompt == "-":
        prompt = sys.stdin.read().strip()
    history = _read_history(args.history) if args.history else []
    if not prompt and not history:
        raise UsageError("ask needs a PROMPT (or --history)")
    host = make_host(args)
    try:
        model = resolve_model(host, args.model)
        effort = resolve_effort(host, model, args.effort)
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
        outcome = host.run_turn(conversation, tools, max_rounds=args.max_rounds, observer=view)
        _show_notices(host, sys.stderr)
        if outcome.interrupted:
            raise KeyboardInterrupt
        if args.json:
            answer = {
                "message": outcome.message,
                "finish_reason": outcome.finish_reason,
                "usage": outcome.usage.as_dict(),
                "model": model,
                "wire_model": outcome.wire_model,
                "rounds": outcome.rounds,
            }
            print(json.dumps(answer, ensure_ascii=False))
        elif view is not None:
            view.close()
            if outcome.unrun:
                view.unrun(outcome.unrun)
        return 0
    finally:
        host.stop()


def _show_notices(host: Any, stream: TextIO) -> None:
    """Write the host's standing notices to STREAM."""
    from .render import Style

    style = Style(stream)
    for notice in host.notices():
        stream.write(style.yellow(f"! {notice.text}") + "\n")
    stream.flush()


# models ---------------------------------------------------------------------------------------


def roster_rows(roster: Any) -> tuple[bool, str | None, list[dict[str, Any]]]:
    """Return (live, why not live, rows) of what the cell's list_models answered."""
    items = getattr(roster, "models", roster)
    rows: list[dict[str, Any]] = []
    for item in items or ():
        if isinstance(item, dict):
            row = dict(item)
        else:
            row = {
                key: getattr(item, key)
                for key in ("id", "name", "context_window", "max_mode")
                if hasattr(item, key)
            }
        rows.append(row)
    return bool(getattr(roster, "live", True)), getattr(roster, "reason", None), rows


def fetch_models(host: Any) -> tuple[bool, str | None, list[dict[str, Any]]]:
    """Return (live, why not live, rows): the account's roster, else the bundled rows."""
    cell = host.cell_for(PROVIDER)
    catalog = catalog_models(host)
    try:
        live, reason, rows = roster_rows(host.run_async(cell.list_models()))
    except CursorError as exc:
        live, reason, rows = False, str(exc), []
    if not rows:
        rows = [
            {"id": m["id"], "name": m.get("name"), "context_window": m.get("context_window")}
            for m in catalog.values()
        ]
        live = False
        reason = reason or "the account's roster is not available"
    for row in rows:
        bundled = catalog.get(str(row.get("id")))
        row.setdefault("efforts", list(bundled.get("efforts") or []) if bundled else [])
    return live, reason, rows


def format_models(live: bool, reason: str | None, rows: list[dict[str, Any]]) -> str:
    """Return the model table a person reads."""
    if live:
        head = f"Cursor models your account may use ({len(rows)}):"
    else:
        head = f"Cursor's bundled models ({len(rows)}); the live list is missing: {reason}"
    cells = []
    for row in rows:
        context = row.get("context_window")
        window = f"{int(context) // 1000}k" if isinstance(context, int) else ""
        efforts = ",".join(row.get("efforts") or []) or "-"
        cells.append((str(row.get("id")), window, efforts, str(row.get("name") or "")))
    # Each column as wide as its widest cell: a long effort list must not push the name out.
    widths = [max((len(cell[i]) for cell in cells), default=0) for i in range(3)]
    lines = [head]
    for ident, window, efforts, name in cells:
        line = f"  {ident:<{widths[0]}}  {window:>{widths[1]}}  {efforts:<{widths[2]}}  {name}"
        lines.append(line.rstrip())
    return "\n".join(lines)


def cmd_models(args: argparse.Namespace) -> int:
    """Print the models; return the exit code."""
    host = make_host(args)
    try:
        live, reason, rows = fetch_models(host)
        reason = for_shell(reason) if reason else reason
        if args.json:
            print(
                json.dumps({"provider": PROVIDER, "live": live, "reason": reason, "models": rows})
            )
        else:
            print(format_models(live, reason, rows))
        return 0
    finally:
        host.stop()


# login, status, logout ------------------------------------------------------------------------


def check_sign_in_state(host: Any, *, credential: bool = False) -> None:
    """Raise the StoreError of a corrupt auth.json (and, with CREDENTIAL, of an unusable token).

    The ``/cursor`` verbs answer such faults as a line, as a chat wants; a shell wants
    the line and a failing exit code too. Never refreshes, never dials.
    """
    from nodecode_cursor.credentials import resolve_credential
    from nodecode_cursor.store import AuthStore

    if credential:
        resolve_credential(host, PROVIDER)
    else:
        AuthStore(host.home).read()


def cmd_status(args: argparse.Namespace) -> int:
    """Print how the sign-in stands; return the exit code."""
    host = make_host(args)
    try:
        host.command(PROVIDER)  # a vetoed or missing cell says so first
        check_sign_in_state(host, credential=True)
        print(host.command(PROVIDER).run("status"))
        return 0
    finally:
        host.stop()


def cmd_logout(args: argparse.Namespace) -> int:
    """Forget the kept sign-in; return the exit code."""
    host = make_host(args)
    try:
        command = host.command(PROVIDER)
        check_sign_in_state(host)
        print(command.run("logout"))
        return 0
    finally:
        host.stop()


def _in_progress(status: str) -> bool:
    """Return whether a status line says a sign-in is under way."""
    return "in progress" in status.lower()


def _signed_in(status: str) -> bool:
    """Return whether a status line says the person is signed in."""
    lowered = status.lower()
    return "signed in" in lowered and "not signed in" not in lowered


def _login_page(line: str) -> str | None:
    """Return the sign-in page the cell's login line names, or None when it names none."""
    for word in line.split():
        if word.startswith(("http://", "https://")):
            return word
    return None


def cmd_login(args: argparse.Namespace) -> int:
    """Start the browser sign-in and wait for it with a progress line; return the exit code."""
    said: list[str] = []
    host = make_host(args, say=said.append)
    try:
        command = host.command(PROVIDER)
        check_sign_in_state(host)  # the sign-in could not be kept anyway
        started = time.monotonic()
        progress = sys.stderr.isatty()
        try:
            started_line = command.run("login")
            url = _login_page(started_line)
            if url is None:
                print(started_line, flush=True)  # not a page to open: the cell's own words
            else:
                # The cell's line is worded for a chat ("finishes in the background"); a
                # shell waits here, so it gets the page and what it is waiting for.
                print(f"cursor: open {url} in a browser to sign in", flush=True)
                if not progress:
                    print("waiting for the browser sign-in (Ctrl-C cancels)", file=sys.stderr)
            while _in_progress(command.run("status")):
                if progress:
                    waited = int(time.monotonic() - started)
                    sys.stderr.write(
                        f"\rwaiting for the browser sign-in… {waited}s (Ctrl-C cancels)"
                    )
                    sys.stderr.flush()
                time.sleep(host_limits.LOGIN_PROGRESS_SECONDS)
            # The sign-in says how it went just after it stops being "in progress".
            signin = getattr(command, "signin", None)
            if signin is not None and hasattr(signin, "wait"):
                signin.wait(host_limits.LOGIN_PROGRESS_SECONDS * 20)
        except KeyboardInterrupt:
            if progress:
                sys.stderr.write("\r\x1b[K")
            print("cursor: sign-in cancelled", file=sys.stderr)
            return 130
        if progress:
            sys.stderr.write("\r\x1b[K")
        for line in said:
            print(line)
        if not said:
            print(command.run("status"))
        return 0 if any(_signed_in(line) for line in said) else 1
    finally:
        host.stop()  # ends a sign-in still in progress (a cancelled one writes nothing)


# demo -----------------------------------------------------------------------------------------

DEMO_TOKEN = "demo-token"
DEMO_MODEL = "composer-2.5"
DEMO_FILE = "release-notes.txt"
DEMO_TEXT = "nodecode-cursor 0.1.0: the cursor lane, sign-in, the roster and the reference host.\n"
DEMO_PROMPT = f'What do the release notes say? Use read_file with {{"path": "{DEMO_FILE}"}}.'


def cmd_demo(args: argparse.Namespace) -> int:
    """Run a real two-round turn with a tool handoff against the bundled simulator."""
    import tempfile

    from cursor_simulator import Simulator

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
    with tempfile.TemporaryDirectory(prefix="nodecode-demo-") as scratch, Simulator() as sim:
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


def cmd_serve(args: argparse.Namespace) -> int:
    """Serve the OpenAI-compatible API until Ctrl-C; return the exit code."""
    from .openai_server import main_serve

    return main_serve(args)


# Entry ----------------------------------------------------------------------------------------

_HANDLERS: dict[str, Callable[[argparse.Namespace], int]] = {
    "ask": cmd_ask,
    "models": cmd_models,
    "login": cmd_login,
    "status": cmd_status,
    "logout": cmd_logout,
    "demo": cmd_demo,
    "serve": cmd_serve,
}


class TokenRedactor(logging.Filter):
    """Removes credentials from log records, their tracebacks included, before they are written.

    The tokens in the environment go by value; anything else credential-shaped
    goes by ``errors.scrub``, the package's one redaction rule.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        """Rewrite the record's message and traceback without secrets; always keep the record."""
        record.msg, record.args = self.redacted(record.getMessage()), None
        if record.exc_info and not record.exc_text:
            # Formatters reuse exc_text when it is set: format the traceback here, once.
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = self.redacted(record.exc_text)
        if record.stack_info:
            record.stack_info = self.redacted(record.stack_info)
        return True

    @staticmethod
    def redacted(text: str) -> str:
        """Return TEXT without the environment's tokens or anything shaped like a credential."""
        for name in ("CURSOR_ACCESS_TOKEN", "CURSOR_API_KEY"):
            secret = os.environ.get(name)
            if secret and len(secret) >= 8:
                text = text.replace(secret, "[redacted]")
        return scrub(text)


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


def _failure(exc: BaseException, base_url: str | None) -> tuple[int, str]:
    """Return (status, one line) for a failure that is not one of ours."""
    module = type(exc).__module__
    if module.startswith(("httpx", "httpcore")) or isinstance(exc, ConnectionError):
        where = base_url or limits.DEFAULT_BASE_URL
        cause = scrub(str(exc)) or type(exc).__name__
        return 502, f"could not reach {where}: {cause}"
    return 500, scrub(f"internal error: {type(exc).__name__}: {exc}")


def for_shell(message: str) -> str:
    """Return MESSAGE with the shell's sign-in command added to a hint worded for the chat."""
    if "/cursor login" in message:
        return message + " (from a shell: nodecode-cursor login)"
    return message


def _report(status: int, message: str, *, as_json: bool) -> None:
    """Print a failure: JSON on stdout with --json, else one line on stderr."""
    message = for_shell(message)
    if as_json:
        print(json.dumps({"error": {"status": status, "message": message}}, ensure_ascii=False))
    else:
        print(f"nodecode-cursor: {message}", file=sys.stderr)


# The commands that take --json: only their usage errors answer in JSON.
JSON_COMMANDS = ("ask", "models")


def _command_named(arguments: Sequence[str]) -> str | None:
    """Return the command ARGUMENTS name (the first word that is one), or None."""
    return next((word for word in arguments if word in _HANDLERS or word == "chat"), None)


def _usage_line(message: str, command: str | None) -> str:
    """Return the usage error MESSAGE pointing at COMMAND's own help when one was named."""
    if command is None:
        return message
    if command == "serve" and "--api-key" in message:
        from .openai_server import API_KEY_ENV

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
        parser.print_help()
        return 0
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
    except CursorError as exc:
        if verbose:
            traceback.print_exc()
        _report(exc.status, str(exc), as_json=as_json)
        return 2 if isinstance(exc, ConfigError) else 1
    except Exception as exc:
        if verbose:
            traceback.print_exc()
        status, line = _failure(exc, getattr(args, "base_url", None))
        _report(status, line, as_json=as_json)
        return 1


if __name__ == "__main__":
    raise SystemExit(main())
