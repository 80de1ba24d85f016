"""The reference host's command line: ``nodecode-cursor``.

For now only ``--version``; the chat, ask, models, sign-in and demo commands
arrive with the reference-host issue.
"""

from __future__ import annotations

import argparse

from . import __version__


def main(argv: list[str] | None = None) -> int:
    """Run the command line; return the exit code."""
    parser = argparse.ArgumentParser(
        prog="nodecode-cursor", description="Cursor's models through your own Cursor account."
    )
    parser.add_argument("--version", action="version", version=f"nodecode-cursor {__version__}")
    parser.parse_args(argv)
    parser.print_help()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
