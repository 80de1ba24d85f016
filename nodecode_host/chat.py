"""The interactive chat of ``nodecode-cursor chat``: a prompt, streamed turns, slash commands.

``ChatRepl`` reads a line, runs it as a turn on the host (``refhost.py``) with
the host's tools, and streams the answer (``render.py``): text live, reasoning
dimmed, each tool call and its result. Slash commands change the model, the
effort or the session, list the models and reach the cell's own ``/cursor``
command (with completion through readline when Python has it). Standing notices
are printed above the prompt until the cell clears them.

Ctrl-C during a turn stops it cleanly (the text so far stays in the history);
Ctrl-C or Ctrl-D at the prompt leaves. The host's set-up (``make_host``, the
model and effort, the model table) is ``setup.py``'s, shared with the
``cli_*.py`` commands.
"""

from __future__ import annotations

import argparse
import logging
import math
import sys
import time
import traceback
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from . import __version__, contract
from .errors import HostError
from .host_tools import HostTools
from .native_tools import NativeTools, runner_for
from .refhost import ReferenceHost
from .render import Style, TerminalView, Waiting
from .setup import (
    PROVIDER,
    allow_secret,
    checked_route,
    confirm,
    fetch_models,
    format_models,
    make_host,
    native_tools_on,
    route_for,
    unknown_model_line,
)
from .terminal_text import visible
from .toolbox import Toolbox
from .turn import Conversation, TurnOutcome

if TYPE_CHECKING:
    from nodecode_cursor.host import AccountUsageView

__all__ = ["SLASH_COMMANDS", "ChatRepl", "run_chat"]

log = logging.getLogger(__name__)

PROMPT = "> "
# The chat's own standing notice while there is no Cursor credential at all (the
# host's key, apart from the cell's own "cursor" notices).
NOT_SIGNED_IN_KEY = "chat.not-signed-in"
# The chat's standing notice when the plan runs low (the dashboard, after a turn).
USAGE_KEY = "chat.usage"
# How often, at most, the chat asks the dashboard after a turn: the plan moves slowly,
# and every question is a request on the person's account.
USAGE_CHECK_SECONDS = 300.0
# The levels that warn, highest first: each warns once per period.
USAGE_LEVELS = (95, 80)

SLASH_COMMANDS = {
    "/models": "list the models your account may use",
    "/model": "NAME — switch the model",
    "/effort": "LEVEL|off — set the thinking effort",
    "/cursor": "login | status | usage | logout — sign in to Cursor, see your plan",
    "/cost": "the session's estimated cost at published rates",
    "/new": "start a new session",
    "/help": "this list",
    "/quit": "leave",
}


def typed_so_far() -> str:
    """Return the line the person is typing at the prompt ("" without readline)."""
    readline = sys.modules.get("readline")
    if readline is None:
        return ""
    try:
        return str(readline.get_line_buffer())
    except Exception:  # a readline stand-in without the call
        return ""


def money(usd: float) -> str:
    """Return an estimate in dollars as the footer shows it: cents, or "<$0.01" below one."""
    return "<$0.01" if usd < 0.005 else f"${usd:.2f}"


def new_session_id() -> str:
    """Return a fresh session id (it keys Cursor's conversation)."""
    return f"chat-{uuid.uuid4().hex[:12]}"


def not_signed_in_notice() -> str:
    """Return the chat's standing notice while there is no credential: the cell's own sentence."""
    return f"{PROVIDER}: {contract.NOT_SIGNED_IN}"


class ChatRepl:
    """The read–turn–print loop of one chat."""

    def __init__(
        self,
        host: ReferenceHost,
        conversation: Conversation,
        tools: Toolbox,
        *,
        out: TextIO | None = None,
        verbose: bool = False,
        usage_interval: float = USAGE_CHECK_SECONDS,
        clock: Callable[[], float] = time.monotonic,
        native: NativeTools | None = None,
    ) -> None:
        self.host = host
        # Cursor's own tools, run in place mid-round (None: refused, as Cursor is told).
        self.native = native
        self.conversation = conversation
        self.tools = tools
        self.out = out or sys.stdout
        self.style = Style(self.out)
        self.roster_ids: list[str] = []
        # Whether roster_ids are the account's whole roster (fetched live), not a few ids.
        self.roster_live = False
        self.roster_asked = False
        self.at_prompt = False
        # -v: a failure that is not one of ours shows its traceback on stderr.
        self.verbose = verbose
        # The session's estimated cost: the priced turns' sum, and how many had no price.
        self.cost_total = 0.0
        self.cost_turns = 0
        self.unpriced_turns = 0
        # The plan's standing notice: when the dashboard was last asked, for which
        # period, and the highest level already warned in it.
        self.usage_interval = usage_interval
        self.clock = clock
        self.usage_asked_at: float | None = None
        self.usage_period: float | None = None
        self.usage_level = 0
        # The turns that answered and those that failed: piped input whose every turn
        # failed exits non-zero, so a script sees that nothing was answered.
        self.turns_answered = 0
        self.turns_failed = 0

    # Output -------------------------------------------------------------------------------

    def write(self, text: str = "") -> None:
        """Write one line (the caller made any text it did not write itself visible)."""
        self.out.write(text + "\n")
        self.out.flush()

    def say(self, text: str) -> None:
        """Write a line a cell said (it may arrive from a background thread at the prompt)."""
        text = visible(text)
        if not self.at_prompt:
            self.out.write(text + "\n")
        elif self.out.isatty():
            # Over the prompt line, then the prompt again with what was typed so far, so
            # the person sees where their input goes (readline keeps its own buffer).
            self.out.write("\r\x1b[K" + text + "\n" + PROMPT + typed_so_far())
        else:
            self.out.write("\n" + text + "\n" + PROMPT)
        self.out.flush()

    def gap(self) -> str:
        """Return the space after the ^C a terminal echoed ("" on a pipe, which echoes none)."""
        return " " if self.out.isatty() else ""

    def check_sign_in(self) -> None:
        """Stand the not-signed-in notice while no credential is there; clear it once one is.

        Read fresh before each prompt (auth.json and the environment, never the
        network): a sign-in finishing in the background clears it, a logout brings it back.
        """
        try:
            missing = self.host.cell_for(PROVIDER).credential(PROVIDER) is None
        except (HostError, contract.CursorError):
            missing = False  # a broken auth.json or token is the turn's (or /cursor's) to say
        self.host.notice(not_signed_in_notice() if missing else None, key=NOT_SIGNED_IN_KEY)

    def show_notices(self) -> None:
        """Write the standing notices above the prompt."""
        for notice in self.host.notices():
            self.write(self.style.yellow(f"! {visible(notice.text, lines=False)}"))

    def banner(self) -> None:
        """Write who is talking to whom."""
        effort = self.conversation.effort or "off"
        self.write(
            self.style.bold(f"nodecode-cursor {__version__}")
            + f" — cursor/{self.conversation.model}, effort {effort}, "
            + f"session {self.conversation.session_id}. /help lists the commands."
        )

    # The loop -----------------------------------------------------------------------------

    def loop(self) -> int:
        """Run until the person leaves; return the exit code."""
        self.install_completion()
        self.banner()
        while True:
            self.check_sign_in()
            self.show_notices()
            self.at_prompt = True
            try:
                line = input(PROMPT)
            except (EOFError, KeyboardInterrupt):
                self.at_prompt = False
                self.write()
                return self.exit_code()
            self.at_prompt = False
            line = line.strip()
            if not line:
                continue
            if line.startswith("/"):
                if not self.slash(line):
                    return self.exit_code()
                continue
            self.turn(line)

    def exit_code(self) -> int:
        """Return how the chat ends: 1 when input was piped and every turn failed, else 0."""
        piped = not sys.stdin.isatty()
        return 1 if piped and self.turns_failed and not self.turns_answered else 0

    def turn(self, text: str) -> None:
        """Run TEXT as one turn and show it."""
        messages = self.conversation.messages
        before = len(messages)
        messages.append({"role": "user", "content": text})
        waiting = Waiting(self.out, style=self.style)
        view = TerminalView(self.out, style=self.style, reasoning=self.out, waiting=waiting)
        view.wait(f"waiting for cursor/{visible(self.conversation.model, lines=False)}")
        try:
            outcome = self.host.run_turn(
                self.conversation,
                self.tools,
                observer=view,
                native=self.native,
                native_kinds=self.native.kinds if self.native is not None else frozenset(),
            )
        except BaseException as exc:
            view.close()  # the waiting line stops and is wiped, whatever ended the turn
            if not isinstance(exc, Exception):
                raise
            self.failed_turn(exc, before)
            return
        view.close()
        self.turns_answered += 1
        self.after_turn(outcome)

    def failed_turn(self, exc: Exception, before: int) -> None:
        """Say why the turn failed, leaving the history as it was before it (BEFORE messages)."""
        messages = self.conversation.messages
        if isinstance(exc, HostError | contract.CursorError):
            if len(messages) == before + 1:
                messages.pop()  # nothing was answered: the history stays as it was
            # Only a terminal's line editor recalls the line; piped input has no ↑.
            recall = self.style.dim(" (↑ recalls your line)") if sys.stdin.isatty() else ""
            self.write(self.style.red(f"error: {visible(str(exc), lines=False)}") + recall)
        else:  # a bug, or a tool that broke: the chat goes on
            del messages[before:]  # the turn left no whole exchange: drop it all
            if self.verbose:
                traceback.print_exception(exc)
            line = contract.scrub(f"error: internal error: {type(exc).__name__}: {exc}")
            self.write(self.style.red(visible(line, lines=False)))
        self.turns_failed += 1

    def after_turn(self, outcome: TurnOutcome) -> None:
        """Write the turn's footers and how it ended; keep the history whole."""
        messages = self.conversation.messages
        self.footer(outcome)
        self.context_footer(outcome.usage.context_tokens)
        if outcome.interrupted:
            # A terminal has echoed ^C where the cursor was: a space keeps the words apart.
            self.write(self.gap() + self.style.dim("(interrupted — the text so far is kept)"))
        elif outcome.unrun:
            # Keep the history whole: each call the host stopped short of gets a result.
            for call in outcome.unrun:
                messages.append(
                    {
                        "role": "tool",
                        "tool_call_id": str(call.get("id", "")),
                        "content": "not run: the host stopped the turn (too many rounds)",
                    }
                )
            self.write(self.style.dim(f"(stopped after {outcome.rounds} rounds)"))
        self.check_usage()

    def footer(self, outcome: TurnOutcome) -> None:
        """Write the turn's tokens and estimated cost, and add the cost to the session's."""
        if outcome.rounds == 0:
            return
        usage = outcome.usage
        line = f"── tokens in {usage.input} / out {usage.output}"
        if usage.cache_read:
            line += f" / cache {usage.cache_read}"
        if outcome.cost_usd_estimate is not None:
            self.cost_total += outcome.cost_usd_estimate
            self.cost_turns += 1
            line += f" · est. {money(outcome.cost_usd_estimate)}"
        else:
            self.unpriced_turns += 1
        self.write(self.style.dim(line + " ──"))

    def cost(self) -> None:
        """Write the session's estimated cost so far (/cost)."""
        if not self.cost_turns:
            self.write("cost: no estimate yet (no turn on a model with a published price)")
        else:
            turns = f"{self.cost_turns} turn{'s' if self.cost_turns != 1 else ''}"
            self.write(
                f"cost: about ${self.cost_total:.4f} over {turns}, at the models' published "
                "rates (an estimate: Cursor bills by plan and credits)"
            )
        if self.unpriced_turns:
            self.write(
                f"  {self.unpriced_turns} turn(s) on models without a known price are not counted"
            )

    def check_usage(self) -> None:
        """Warn with a standing notice once the plan passes 80 % or 95 % of a window.

        Asked after a turn, at most once per ``usage_interval``; never on a slash command.
        A new period clears the notice; a failure to ask stays quiet (``/cursor usage``
        is where a person asks and hears why not).
        """
        now = self.clock()
        if self.usage_asked_at is not None and now - self.usage_asked_at < self.usage_interval:
            return
        self.usage_asked_at = now
        try:
            usage = self.host.run_async(self.host.cell_for(PROVIDER).account_usage())
        except (HostError, contract.CursorError, KeyboardInterrupt) as exc:
            log.debug("plan usage not checked: %s", exc)
            return
        if usage.period_end != self.usage_period:
            self.usage_period, self.usage_level = usage.period_end, 0
            self.host.notice(None, key=USAGE_KEY)
        self.usage_notice(usage)

    def usage_notice(self, usage: AccountUsageView) -> None:
        """Stand the notice for the highest level USAGE's fullest window passed, once per level."""
        fullest = max(usage.windows, key=lambda w: w.percent, default=None)
        if fullest is None:
            return
        level = next((lv for lv in USAGE_LEVELS if fullest.percent >= lv), 0)
        if level <= self.usage_level:
            return
        self.usage_level = level
        text = f"cursor: {fullest.percent:.0f}% of your plan's {fullest.name} usage is used"
        if usage.period_end is not None:
            days = max(0, math.ceil((usage.period_end - time.time()) / 86_400))
            text += f"; it resets in {days} day{'s' if days != 1 else ''}"
        self.host.notice(text + " (/cursor usage)", key=USAGE_KEY, level="warning")

    def context_footer(self, context_tokens: int | None) -> None:
        """Write how full the model's context is after the turn ("context N / window")."""
        if context_tokens is None:
            return
        window = None
        try:
            catalog = self.host.cell_for(PROVIDER).catalog()
            row = next(
                (m for m in catalog.get("models", []) if m.get("id") == self.conversation.model),
                None,
            )
            window = row.get("context_window") if isinstance(row, dict) else None
        except (HostError, contract.CursorError):
            window = None
        shown = f"{window:,}" if isinstance(window, int) else "?"
        self.write(self.style.dim(f"context {context_tokens:,} / {shown}"))

    # Slash commands -----------------------------------------------------------------------

    def slash(self, line: str) -> bool:
        """Run a slash command; return False when the person leaves."""
        name, _, rest = line.partition(" ")
        rest = rest.strip()
        try:
            if name in ("/quit", "/exit"):
                return False
            if name == "/help":
                for command, text in SLASH_COMMANDS.items():
                    self.write(f"  {command:<8} {text}")
                self.write("  Ctrl-C stops a turn; Ctrl-C or Ctrl-D at the prompt leaves.")
            elif name == "/cost":
                self.cost()
            elif name == "/new":
                self.cost_total, self.cost_turns, self.unpriced_turns = 0.0, 0, 0
                self.conversation.messages.clear()
                self.conversation.session_id = new_session_id()
                self.write(f"new session {self.conversation.session_id}")
            elif name == "/models":
                self.models()
            elif name == "/model":
                self.model(rest)
            elif name == "/effort":
                self.effort(rest)
            elif name == "/cursor":
                self.write(visible(self.host.command("cursor").run(rest)))
            else:
                self.write(f"unknown command {name}; /help lists them")
        except (HostError, contract.CursorError) as exc:
            self.write(self.style.red(f"error: {visible(str(exc), lines=False)}"))
        except KeyboardInterrupt:  # Ctrl-C stops a slow command (/models), not the chat
            self.write(self.gap() + self.style.dim("(interrupted)"))
        except Exception as exc:  # a bug must not end the chat
            if self.verbose:
                traceback.print_exc()
            line = contract.scrub(f"error: internal error: {type(exc).__name__}: {exc}")
            self.write(self.style.red(visible(line, lines=False)))
        return True

    def models(self) -> None:
        """Write the account's models (or the bundled ones and why)."""
        live, reason, _, rows = fetch_models(self.host)
        self.keep_roster(live, rows)
        self.write(visible(format_models(live, reason, rows)))  # names the service chose

    def keep_roster(self, live: bool, rows: list[dict[str, Any]]) -> None:
        """Keep the account's roster when ROWS are it (LIVE): suggestions come from it then."""
        self.roster_asked = True
        if live:
            self.roster_ids = [str(row.get("id")) for row in rows]
            self.roster_live = True

    def account_roster(self) -> list[str] | None:
        """Return the account's model ids (asked once per chat, then kept), or None if unknown."""
        if not self.roster_asked:
            live, _, _, rows = fetch_models(self.host)
            self.keep_roster(live, rows)
        return self.roster_ids if self.roster_live else None

    def model(self, name: str) -> None:
        """Switch to the model NAME (or say which one is in use)."""
        if not name:
            self.write(f"model: cursor/{self.conversation.model}")
            return
        note = ""
        roster = self.account_roster()
        try:
            if roster is not None:  # known: nothing more to ask the account
                cell = self.host.cell_for(PROVIDER)
                route = cell.route(name, self.conversation.effort, roster=roster)
            else:
                route = route_for(self.host, name, self.conversation.effort, self.roster_ids)
        except contract.UnknownModel as exc:
            raise HostError(unknown_model_line(exc, roster=roster)) from None
        except contract.BadEffort:
            route = checked_route(self.host, name, None, self.roster_ids, defaults=False)
            note = " (effort reset to off: the model does not take the one set)"
        self.remember(route.model, route.bundled)
        self.conversation.model, self.conversation.effort = route.model, route.effort
        self.write(f"model: cursor/{route.model}, effort {route.effort or 'off'}{note}")
        if roster is not None and route.model not in roster:
            # Said before a round is spent on it: Cursor may well refuse the model.
            self.write(
                self.style.yellow(
                    f"note: your account's roster does not list {route.model}; Cursor may "
                    "refuse its rounds (/models lists the account's models)"
                )
            )

    def effort(self, level: str) -> None:
        """Set the thinking effort (or say which one is set)."""
        if not level:
            self.write(f"effort: {self.conversation.effort or 'off'}")
            return
        route = checked_route(
            self.host, self.conversation.model, level, self.roster_ids, defaults=False
        )
        self.remember(route.model, route.bundled)
        if route.requested_effort is not None and route.effort is None:
            self.write(f"cursor/{route.model} does not reason; effort stays off")
        self.conversation.effort = route.effort
        self.write(f"effort: {route.effort or 'off'}")

    def remember(self, model: str, bundled: bool) -> None:
        """Keep MODEL among the roster's ids when only the roster lists it (no second fetch)."""
        if not bundled and model not in self.roster_ids:
            self.roster_ids.append(model)

    # Completion ---------------------------------------------------------------------------

    def completions(self, line: str, word: str) -> list[str]:
        """Return the completions of WORD, the last word of LINE."""
        if " " not in line:
            return [c for c in SLASH_COMMANDS if c.startswith(word)] + (
                ["/exit"] if "/exit".startswith(word) and word.startswith("/e") else []
            )
        head, _, rest = line.partition(" ")
        try:
            if head == "/cursor":
                options = list(self.host.command("cursor").complete(rest))
            elif head == "/model":
                # The account's roster when known (never asked here: Tab must not wait).
                options = list(self.roster_ids)
                if not self.roster_live:
                    catalog = self.host.cell_for(PROVIDER).catalog()
                    options += [str(m["id"]) for m in catalog.get("models", [])]
            elif head == "/effort":
                cell = self.host.cell_for(PROVIDER)
                route = cell.route(self.conversation.model, None, roster=self.roster_ids)
                options = [*route.efforts, "off"]
            else:
                return []
        except (HostError, contract.CursorError):
            return []
        # A cell may answer whole argument lines; readline completes the last word.
        words = [option.split(" ")[-1] for option in options]
        return sorted({w for w in words if w.startswith(word)})

    def install_completion(self) -> None:
        """Complete slash commands, models, efforts and /cursor verbs with Tab, when possible."""
        if not sys.stdin.isatty():
            return
        try:
            # Here, not at the top: only a terminal needs it, and some Pythons lack it.
            import readline
        except ImportError:  # pragma: no cover - Python built without readline
            return

        def complete(word: str, state: int) -> str | None:
            options = self.completions(readline.get_line_buffer(), word)
            return options[state] if state < len(options) else None

        readline.set_completer_delims(" ")
        readline.set_completer(complete)
        readline.parse_and_bind("tab: complete")


def run_chat(args: argparse.Namespace) -> int:
    """Run ``nodecode-cursor chat``; return the exit code."""
    holder: list[ChatRepl] = []

    def say(text: str) -> None:
        if holder:
            holder[0].say(text)
        else:
            print(text, flush=True)

    host = make_host(args, say=say)
    try:
        route = checked_route(host, args.model, args.effort)
        cwd = Path.cwd()
        tools = (
            HostTools(cwd, assume_yes=args.yes, confirm=confirm, allow_secret=allow_secret)
            if args.tools == "default"
            else Toolbox()
        )
        conversation = Conversation(
            model=route.model,
            effort=route.effort,
            session_id=args.session or new_session_id(),
            cwd=str(cwd),
        )
        native = None
        if native_tools_on(host, getattr(args, "native_tools", None), args.tools):
            native = runner_for(tools, assume_yes=args.yes, interactive=True)
        repl = ChatRepl(
            host,
            conversation,
            tools,
            verbose=bool(getattr(args, "verbose", False)),
            native=native,
        )
        if not route.bundled:
            repl.remember(route.model, route.bundled)
        holder.append(repl)
        return repl.loop()
    finally:
        host.stop()
