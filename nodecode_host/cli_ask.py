"""``ask``: one turn from the shell, its answer printed as it streams or as one JSON object.

It reads the prompt (``-`` for stdin) and a ``--history`` file, chooses the
tools (``--tools``: the host's own, none, or definitions from a file that are
offered and handed back unrun), runs the turn on the host and prints the answer:
streamed to the terminal, or ``--json``'s one object with the usage, the rounds
and the messages. The turn loop is ``refhost.py``'s and ``turn.py``'s, the tools
``host_tools.py``'s, the streaming view ``render.py``'s; the interactive chat is
``chat.py``'s.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from .errors import HostConfigError, UsageError
from .terminal_text import visible

if TYPE_CHECKING:
    from .host_tools import Toolbox
    from .refhost import ReferenceHost

__all__ = ["cmd_ask"]


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
