"""Run the simulator from the command line: ``python -m cursor_simulator --port N``."""

from __future__ import annotations

import argparse
import contextlib
import signal
import threading

from . import Simulator


def main(argv: list[str] | None = None) -> int:
    """Serve until interrupted; return the exit code."""
    parser = argparse.ArgumentParser(
        prog="python -m cursor_simulator",
        description="A local simulator of Cursor's services on 127.0.0.1 (not Cursor).",
    )
    parser.add_argument("--port", type=int, default=0, help="port to listen on (0 picks one)")
    parser.add_argument(
        "--confirm-sign-ins",
        action="store_true",
        help="confirm each browser sign-in after one pending poll (to try nodecode-cursor login)",
    )
    args = parser.parse_args(argv)
    done = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: done.set())
    # A simulator left running remembers only its newest requests and runs.
    with Simulator(port=args.port, max_records=1000) as sim:
        if args.confirm_sign_ins:
            sim.auth.auto_confirm_after = 1
        print(f"simulator listening on {sim.url}", flush=True)
        with contextlib.suppress(KeyboardInterrupt):
            done.wait()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
