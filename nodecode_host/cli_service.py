"""The commands that ask Cursor about the account: ``models``, ``usage`` and ``doctor``.

``models`` lists the models the account may use (the live roster, else the
bundled rows and why), ``usage`` the plan's usage this period from Cursor's
dashboard, ``doctor`` what works with Cursor today and what to change, each
verdict printed as it comes. Each asks the cell one question and prints its
answer, or ``--json``'s one object; what is asked and how it is checked is the
cell's (``cell.account_usage``, ``cell.doctor``), the model table ``setup.py``'s.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from . import contract
from .names import PROVIDER, for_shell
from .terminal_text import visible

__all__ = ["cmd_doctor", "cmd_models", "cmd_usage"]

# models ---------------------------------------------------------------------------------------


def cmd_models(args: argparse.Namespace) -> int:
    """Print the models; return the exit code."""
    from .setup import fetch_models, format_models, make_host

    host = make_host(args)
    try:
        live, reason, hint, rows = fetch_models(host)
        reason = for_shell(reason, hint) if reason else reason
        if args.json:
            print(
                json.dumps({"provider": PROVIDER, "live": live, "reason": reason, "models": rows})
            )
        else:
            print(visible(format_models(live, reason, rows)))
        return 0
    finally:
        host.stop()


# usage ----------------------------------------------------------------------------------------


def cmd_usage(args: argparse.Namespace) -> int:
    """Print the account's plan usage from Cursor's dashboard; return the exit code.

    One question through the cell (``cell.account_usage``), never retried; a refusal
    or an unreachable service is the usual one-line failure.
    """
    from .setup import make_host

    host = make_host(args)
    try:
        cell = host.cell_for(PROVIDER)
        # Several kept accounts: every one side by side (read with getattr: an older cell
        # has no rows to give, and shows the active account alone as before).
        listed = getattr(cell, "accounts_usage_now", None)
        several = callable(listed) and len(cell.sign_in_state().accounts) > 1
        if several and not args.json:
            print(visible(host.command(PROVIDER).run("usage")))
            return 0
        usage = host.run_async(cell.account_usage())
        if args.json:
            data = dict(usage.as_dict())
            if several and callable(listed):
                data["accounts"] = listed()
            print(json.dumps(data, ensure_ascii=False))
        else:
            print(visible(usage.text(time.time())))
        return 0
    finally:
        host.stop()


# doctor ---------------------------------------------------------------------------------------

_MARKS = {"ok": "ok  ", "fail": "FAIL", "skip": "--  "}


def cmd_doctor(args: argparse.Namespace) -> int:
    """Run the cell's checks, printing each verdict as it comes; exit 1 when one failed."""
    from .setup import make_host

    host = make_host(args)
    try:
        cell = host.cell_for(PROVIDER)

        def show(check: contract.DoctorCheck) -> None:
            # The rounds come right after the catalog check, and only once the service
            # answered: the warning stands where it is true, never after a failed reach.
            if check.name == "catalog" and check.status != "skip" and not args.no_rounds:
                print(
                    "nodecode-cursor: the round checks send one tiny prompt per transport "
                    "and per model family, which costs a few tokens (--no-rounds skips them)",
                    file=sys.stderr,
                    flush=True,
                )
            if args.json:
                return
            # The fix names the shell's command itself (the cell words it for ``doctor``).
            # A verdict may quote the service or a proxy (a refusal's text, a status line).
            verdict = visible(check.verdict, lines=False)
            print(f"{_MARKS[check.status]}  {check.name}: {verdict}", flush=True)
            if check.fix:
                print(f"      fix: {visible(check.fix, lines=False)}", flush=True)

        checks = host.run_async(cell.doctor(rounds=not args.no_rounds, report=show))
        failed = any(check.status == "fail" for check in checks)
        if args.json:
            data = {"ok": not failed, "checks": [check.as_dict() for check in checks]}
            print(json.dumps(data, ensure_ascii=False))
        return 1 if failed else 0
    finally:
        host.stop()
