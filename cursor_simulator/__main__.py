"""Run the simulator from the command line: ``python -m cursor_simulator [--port N] …``.

For a person driving ``nodecode-cursor`` by hand against it: it prints the URL
it listens on (``--port 0``, the default, picks a free port), serves a sign-in
page with a Confirm button (or confirms by itself with ``--confirm-sign-ins``),
and its switches make the model slow to think (``--think``), the stream slow
(``--slow-stream``) or cut short (``--cut-stream``). A busy port is one line.
The simulated services themselves are the package's modules.
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import math
import signal
import sys
import threading
from collections.abc import Iterator

from . import Simulator
from .records import RunRecord
from .scripted_model import scripted_model
from .steps import CutStream, Step, Text

PROG = "python -m cursor_simulator"


def _seconds(text: str) -> float:
    """Return TEXT as a finite number of seconds ≥ 0."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more seconds, not {text!r}")
    return value


def _port(text: str) -> int:
    """Return TEXT as a port number, 0 (pick a free one) to 65535."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"must be a port from 0 to 65535, not {value}")
    return value


def cut_after_first_text(run: RunRecord) -> Iterator[Step]:
    """Return the demo model's steps, cut off (a TCP reset) right after its first text."""
    for step in scripted_model(run):
        yield step
        if isinstance(step, Text):
            yield CutStream(reset=True)
            return


def build_parser() -> argparse.ArgumentParser:
    """Return the simulator's command-line parser."""
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="A local simulator of Cursor's services on 127.0.0.1 (not Cursor). "
        "Point nodecode-cursor at the URL it prints: nodecode-cursor --base-url URL "
        "--web-url URL login (or chat, ask, …).",
    )
    parser.add_argument(
        "--port", type=_port, default=0, help="port to listen on (default 0: a free one)"
    )
    parser.add_argument(
        "--confirm-sign-ins",
        action="store_true",
        help="confirm each browser sign-in after one pending poll, without opening the page",
    )
    parser.add_argument(
        "--think",
        type=_seconds,
        default=0.0,
        metavar="SECONDS",
        help="the model's think time: a pause before each answer's first token",
    )
    parser.add_argument(
        "--slow-stream",
        type=_seconds,
        default=0.0,
        metavar="SECONDS",
        help="a pause between the streamed messages of every answer",
    )
    parser.add_argument(
        "--cut-stream",
        action="store_true",
        help="cut every answer's connection right after its first text (a broken stream)",
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    """Serve until interrupted; return the exit code."""
    args = build_parser().parse_args(argv)
    done = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: done.set())
    try:
        # A simulator left running remembers only its newest requests and runs.
        sim = Simulator(port=args.port, max_records=1000)
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            print(
                f"{PROG}: port {args.port} is in use; pick another with --port, "
                "or leave --port out for a free one",
                file=sys.stderr,
            )
        else:
            why = exc.strerror or "the system refused"
            print(f"{PROG}: cannot listen on 127.0.0.1:{args.port}: {why}", file=sys.stderr)
        return 2
    with sim:
        sim.agent.first_token_delay = args.think
        sim.agent.frame_delay = args.slow_stream
        if args.cut_stream:
            sim.agent.default = cut_after_first_text
        if args.confirm_sign_ins:
            sim.auth.auto_confirm_after = 1
            signing = "sign-ins confirm by themselves"
        else:
            signing = "open the sign-in page login prints and press Confirm"
        print(f"simulator listening on {sim.url}", flush=True)
        print(
            f"  nodecode-cursor --base-url {sim.url} --web-url {sim.url} login   ({signing})",
            flush=True,
        )
        with contextlib.suppress(KeyboardInterrupt):
            done.wait()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
