"""Run the simulator from the command line: ``python -m nodecode_cursor.simulator --port N``."""

from __future__ import annotations

import argparse
import contextlib
import signal
import threading

from . import Simulator


def main(argv: list[str] | None = None) -> int:
    """Serve until interrupted; return the exit code."""
    parser = argparse.ArgumentParser(
        prog="python -m nodecode_cursor.simulator",
        description="A local simulator of Cursor's services on 127.0.0.1 (not Cursor).",
    )
    parser.add_argument("--port", type=int, default=0, help="port to listen on (0 picks one)")
    args = parser.parse_args(argv)
    done = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: done.set())
    with Simulator(port=args.port) as sim:
        print(f"simulator listening on {sim.url}", flush=True)
        with contextlib.suppress(KeyboardInterrupt):
            done.wait()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
