"""What ``accounts`` shows: every kept Cursor account, its plan and usage, and which is active.

``account_rows`` reads the kept accounts (``accounts.py``) and asks Cursor's
dashboard (``dashboard.fetch_account_usage``) for each one it can: an account
whose session Cursor ended, or whose dashboard cannot be asked, gets a row
saying why instead. ``rows_text`` is the block a person reads. Blocking (a
dashboard question each): a loop runs it in a worker thread. Where the rows
are shown, and through which terminal filter, is the host's business.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..errors import CursorError
from .accounts import listed
from .credentials import account_credential
from .dashboard import AccountUsage, fetch_account_usage
from .signin import session_ended
from .store import PROVIDER, AuthStore

if TYPE_CHECKING:
    from ..host import Host

__all__ = ["AccountRow", "account_rows", "rows_text"]


@dataclass(frozen=True, slots=True)
class AccountRow:
    """One kept account as ``accounts`` shows it."""

    name: str
    active: bool
    usage: AccountUsage | None = None  # None: not asked, or the dashboard did not answer
    why: str | None = None  # why there is no usage, in one line
    ended: bool = False  # Cursor ended this account's session


def account_rows(
    host: Host,
    *,
    base_url: str,
    proxy: str | None,
    client_version: str | None,
    ended: set[str],
    dashboard: bool = True,
) -> list[AccountRow]:
    """Return a row per kept account, the active one first; with DASHBOARD, their usage too.

    Each account's own token asks its own dashboard (renewed first when due, written
    back to that account alone); a refusal is that row's ``why``, never the list's end.
    """
    rows: list[AccountRow] = []
    for account in listed(AuthStore(host.home)):
        if session_ended(account.entry, ended):
            rows.append(
                AccountRow(
                    account.name,
                    account.active,
                    why="Cursor ended this session: /cursor login --add signs in again",
                    ended=True,
                )
            )
            continue
        if not dashboard:
            rows.append(AccountRow(account.name, account.active))
            continue
        try:
            token = account_credential(
                host, account.name, base_url=base_url, proxy=proxy, ended=ended
            )
            usage = fetch_account_usage(token, base_url, client_version=client_version, proxy=proxy)
        except CursorError as exc:
            rows.append(AccountRow(account.name, account.active, why=exc.detail))
            continue
        rows.append(AccountRow(account.name, account.active, usage=usage))
    return rows


def _usage_text(row: AccountRow) -> str:
    """Return what one row says after the name: the plan and how much of it is used."""
    if row.usage is None:
        return f"({row.why})" if row.why else ""
    plan = row.usage.plan or "plan unknown"
    highest = row.usage.highest()
    used = f", {highest.percent:.1f}% used" if highest is not None else ""
    return f"{plan}{used}"


def rows_text(rows: list[AccountRow]) -> str:
    """Return the block ``accounts`` prints: a head line, then one line per account."""
    if not rows:
        return f"{PROVIDER}: no account is signed in (/cursor login signs in to one)"
    count = "1 account" if len(rows) == 1 else f"{len(rows)} accounts"
    active = any(row.active for row in rows)
    head = f"{PROVIDER}: {count}" + (
        " (* active)" if active else "; none is active (/cursor use EMAIL makes one active)"
    )
    width = max(len(row.name) for row in rows)
    lines = [head]
    for row in rows:
        mark = "*" if row.active else " "
        lines.append(f"{mark} {row.name:<{width}}  {_usage_text(row)}".rstrip())
    return "\n".join(lines)
