"""The interactive chat of ``nodecode-cursor chat``: a prompt, streamed turns, slash commands.

``ChatRepl`` reads a line, runs it as a turn on the host (``refhost.py``) with
the host's tools, and streams the answer (``render.py``): text live, reasoning
dimmed, each tool call and its result. Slash commands change the model, the
effort or the session, list the models and reach the cell's own ``/cursor``
command (with completion through readline when Python has it). Standing notices
are printed above the prompt until the cell clears them.

Ctrl-C during a turn stops it cleanly (the text so far stays in the history);
Ctrl-C or Ctrl-D at the prompt leaves. The host's set-up (``make_host``, the
model and effort, the model table) is ``setup.py``'s, shared with ``cli.py``.
"""

from __future__ import annotations

import argparse
import sys
import traceback
import uuid
from pathlib import Path
from typing import TextIO

from . import __version__, contract
from .errors import HostError
from .host_tools import HostTools, Toolbox
from .refhost import Conversation, ReferenceHost
from .render import Style, TerminalView
from .setup import (
    PROVIDER,
    allow_secret,
    checked_route,
    confirm,
    fetch_models,
    format_models,
    make_host,
    route_for,
    unknown_model_line,
)
from .terminal_text import visible

__all__ = ["SLASH_COMMANDS", "ChatRepl", "run_chat"]

PROMPT = "> "
# The chat's own standing notice while there is no Cursor credential at all (the
# host's key, apart from the cell's own "cursor" notices).
NOT_SIGNED_IN_KEY = "chat.not-signed-in"
NOT_SIGNED_IN_NOTICE = "cursor: not signed in: /cursor login, or set CURSOR_ACCESS_TOKEN"

SLASH_COMMANDS = {
    "/models": "list the models your account may use",
    "/model": "NAME — switch the model",
    "/effort": "LEVEL|off — set the thinking effort",
    "/cursor": "login | status | logout — sign in to Cursor",
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


def new_session_id() -> str:
    """Return a fresh session id (it keys Cursor's conversation)."""
    return f"chat-{uuid.uuid4().hex[:12]}"


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
    ) -> None:
        self.host = host
        self.conversation = conversation
        self.tools = tools
        self.out = out or sys.stdout
        self.style = Style(self.out)
        self.roster_ids: list[str] = []
        self.at_prompt = False
        # -v: a failure that is not one of ours shows its traceback on stderr.
        self.verbose = verbose

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

    def check_sign_in(self) -> None:
        """Stand the not-signed-in notice while no credential is there; clear it once one is.

        Read fresh before each prompt (auth.json and the environment, never the
        network): a sign-in finishing in the background clears it, a logout brings it back.
        """
        try:
            missing = self.host.cell_for(PROVIDER).credential(PROVIDER) is None
        except (HostError, contract.CursorError):
            missing = False  # a broken auth.json or token is the turn's (or /cursor's) to say
        self.host.notice(NOT_SIGNED_IN_NOTICE if missing else None, key=NOT_SIGNED_IN_KEY)

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
                return 0
            self.at_prompt = False
            line = line.strip()
            if not line:
                continue
            if line.startswith("/"):
                if not self.slash(line):
                    return 0
                continue
            self.turn(line)

    def turn(self, text: str) -> None:
        """Run TEXT as one turn and show it."""
        messages = self.conversation.messages
        before = len(messages)
        messages.append({"role": "user", "content": text})
        view = TerminalView(self.out, style=self.style, reasoning=self.out)
        try:
            outcome = self.host.run_turn(self.conversation, self.tools, observer=view)
        except (HostError, contract.CursorError) as exc:
            view.close()
            if len(messages) == before + 1:
                messages.pop()  # nothing was answered: the history stays as it was
            # Only a terminal's line editor recalls the line; piped input has no ↑.
            recall = self.style.dim(" (↑ recalls your line)") if sys.stdin.isatty() else ""
            self.write(self.style.red(f"error: {visible(str(exc), lines=False)}") + recall)
            return
        except Exception as exc:  # a bug, or a tool that broke: the chat goes on
            view.close()
            del messages[before:]  # the turn left no whole exchange: drop it all
            if self.verbose:
                traceback.print_exc()
            line = contract.scrub(f"error: internal error: {type(exc).__name__}: {exc}")
            self.write(self.style.red(visible(line, lines=False)))
            return
        view.close()
        if outcome.interrupted:
            self.write(self.style.dim("(interrupted — the text so far is kept)"))
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
            elif name == "/new":
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
            self.write(self.style.dim("(interrupted)"))
        except Exception as exc:  # a bug must not end the chat
            if self.verbose:
                traceback.print_exc()
            line = contract.scrub(f"error: internal error: {type(exc).__name__}: {exc}")
            self.write(self.style.red(visible(line, lines=False)))
        return True

    def models(self) -> None:
        """Write the account's models (or the bundled ones and why)."""
        live, reason, rows = fetch_models(self.host)
        if live:
            self.roster_ids = [str(row.get("id")) for row in rows]
        self.write(format_models(live, reason, rows))

    def model(self, name: str) -> None:
        """Switch to the model NAME (or say which one is in use)."""
        if not name:
            self.write(f"model: cursor/{self.conversation.model}")
            return
        note = ""
        try:
            route = route_for(self.host, name, self.conversation.effort, self.roster_ids)
        except contract.UnknownModel as exc:
            raise HostError(unknown_model_line(exc)) from None
        except contract.BadEffort:
            route = checked_route(self.host, name, None, self.roster_ids, defaults=False)
            note = " (effort reset to off: the model does not take the one set)"
        self.remember(route.model, route.bundled)
        self.conversation.model, self.conversation.effort = route.model, route.effort
        self.write(f"model: cursor/{route.model}, effort {route.effort or 'off'}{note}")

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
                catalog = self.host.cell_for(PROVIDER).catalog()
                options = [str(m["id"]) for m in catalog.get("models", [])] + self.roster_ids
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
        repl = ChatRepl(host, conversation, tools, verbose=bool(getattr(args, "verbose", False)))
        if not route.bundled:
            repl.remember(route.model, route.bundled)
        holder.append(repl)
        return repl.loop()
    finally:
        host.stop()
