"""``demo``: a real two-round turn with a tool handoff against the bundled simulator, never Cursor.

The demo makes a home and a working folder of its own in a temporary folder,
starts ``cursor_simulator`` on loopback and runs one turn through the real host
and cell: the model asks for ``read_file``, the host runs it, the next round
answers. Nothing of the person's home, token or folder is read or written, and
``--base-url``/``--web-url`` are refused by name. The simulator is
``cursor_simulator``'s; the turn is run as ``ask`` runs one (``refhost.py``).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from .errors import HostConfigError, UsageError

__all__ = ["DEMO_FILE", "DEMO_MODEL", "DEMO_PROMPT", "DEMO_TEXT", "DEMO_TOKEN", "cmd_demo"]

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
