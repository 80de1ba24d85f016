"""The command line's grammar: the parser, its flags, and the words a refused command line gets.

``build_parser`` gives ``nodecode-cursor``'s commands and flags; its ``Parser``
raises ``ArgumentsRefused`` instead of exiting, carrying what went wrong as
structure (the parser that refused, argparse's words, the arguments it did not
know), so ``usage_line`` words the one line a person reads without reading the
text back: pointed at the command's own help, and a client key typed on the
command line never echoed. Running a command is left to its module
(``cli_account.py``, ``cli_ask.py``, …), choosing which to ``cli.py``, and
printing the line to ``cli_report.py``. Nothing here loads a host or the cell.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Sequence
from typing import Any, NoReturn

from . import limits as host_limits
from .errors import UsageError
from .names import API_KEY_ENV, CURSOR_KEY_PREFIX, DEFAULT_MODEL

__all__ = ["PROG", "ArgumentsRefused", "Parser", "build_parser", "usage_line"]

PROG = "nodecode-cursor"


class ArgumentsRefused(UsageError):
    """The command line does not parse: who refused it, argparse's words, the unknown words."""

    def __init__(self, reason: str, prog: str, unknown: Sequence[str] = ()) -> None:
        """Keep REASON (argparse's words), PROG (the refusing parser's) and the UNKNOWN words."""
        super().__init__(f"{reason} (see {prog} --help)")
        self.reason = reason
        self.prog = prog
        self.unknown = tuple(unknown)


class Parser(argparse.ArgumentParser):
    """An argument parser that raises instead of exiting, so ``--json`` can answer in JSON."""

    def error(self, message: str) -> NoReturn:
        """Raise ArgumentsRefused for argparse's MESSAGE."""
        raise ArgumentsRefused(message, self.prog)

    def parse(self, arguments: Sequence[str]) -> argparse.Namespace:
        """Return ARGUMENTS parsed; ArgumentsRefused naming any argument no parser took."""
        args, unknown = self.parse_known_args(arguments)
        if unknown:
            # argparse's own words for them, as parse_args would say.
            raise ArgumentsRefused(
                f"unrecognized arguments: {' '.join(unknown)}", self.prog, unknown
            )
        return args


def usage_line(
    refused: ArgumentsRefused, command: str | None, arguments: Sequence[str] = ()
) -> str:
    """Return the line for REFUSED, pointing at COMMAND's own help when one was named.

    A Cursor API key among the ARGUMENTS is never echoed, wherever argparse put it (an
    unknown argument, an invalid choice of command).
    """
    if any(CURSOR_KEY_PREFIX in word for word in arguments):
        return (
            "a Cursor API key goes on no command line (other users' ps and your shell's "
            "history see it): login --add --api-key reads it from a prompt or standard "
            f"input (see {PROG} login --help)"
        )
    if command is None:
        return str(refused)
    if command == "serve" and any(word.split("=", 1)[0] == "--api-key" for word in refused.unknown):
        # argparse's words would echo the unknown arguments, the key among them.
        return (
            f"serve takes no --api-key: the client key comes from {API_KEY_ENV}, never the "
            f"command line (see {PROG} serve --help)"
        )
    if refused.prog == PROG:
        # The top parser reports a subcommand's unknown flag: point at the subcommand's
        # help, where the flags it does take are listed.
        return f"{refused.reason} (see {PROG} {command} --help)"
    return str(refused)


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
        prog=PROG,
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


def _move_aside_flag(parser: argparse.ArgumentParser) -> None:
    """Add --move-aside: the way out of a corrupt auth.json, asked on a terminal otherwise."""
    parser.add_argument(
        "--move-aside",
        action="store_true",
        help="move a corrupt auth.json aside (kept as auth.json.corrupt-<time>) and go on",
    )
