"""What ``accounts`` and ``usage`` show: every kept Cursor account, its plan and usage.

``account_rows`` reads the kept accounts (``accounts.py``) and asks Cursor's
dashboard (``dashboard.fetch_account_usage``) for each one it can (an API key
kept as an account asks with its session token): an account whose session
Cursor ended, or whose dashboard cannot be asked, gets a row saying why
instead. Each row also says whether it is an API key, and the refusal standing
against it that the shared table holds (``standing_lines.refused_lately``).
``rows_text`` is the block ``accounts`` prints;
``usage_table`` the accounts side by side, window by window, as ``usage`` prints
them when several are kept; ``row_dict`` a row as ``usage --json`` gives it. Blocking (a
dashboard question each): a loop runs it in a worker thread. Where the rows
are shown, and through which terminal filter, is the host's business.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import CursorError
from .accounts import listed
from .credentials import account_credential
from .dashboard import AccountUsage, fetch_account_usage, reset_text
from .key_account import is_key_account
from .key_exchange import bearer
from .signin import session_ended
from .standing_lines import Refusal, refusal_text, refused_lately
from .store import PROVIDER, AuthStore

if TYPE_CHECKING:
    from ..host import Host

__all__ = ["AccountRow", "account_rows", "row_dict", "rows_text", "usage_table"]


@dataclass(frozen=True, slots=True)
class AccountRow:
    """One kept account as ``accounts`` shows it."""

    name: str
    active: bool
    usage: AccountUsage | None = None  # None: not asked, or the dashboard did not answer
    why: str | None = None  # why there is no usage, in one line
    ended: bool = False  # Cursor ended this account's session
    key: bool = False  # an API key kept as an account (key_account.py)
    refused: Refusal | None = None  # Cursor refused it lately: rounds skip it until then


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
    kept = listed(AuthStore(host.home))
    refused = refused_lately(Path(host.home), [account.name for account in kept])
    for account in kept:
        key, stands = is_key_account(account.entry), refused.get(account.name)
        if session_ended(account.entry, ended):
            rows.append(
                AccountRow(
                    account.name,
                    account.active,
                    why="Cursor ended this session: /cursor login --add signs in again",
                    ended=True,
                    key=key,
                    refused=stands,
                )
            )
            continue
        if not dashboard:
            rows.append(AccountRow(account.name, account.active, key=key, refused=stands))
            continue
        try:
            token = account_credential(
                host, account.name, base_url=base_url, proxy=proxy, ended=ended
            )
            # A key kept as an account asks as its session token (key_exchange.bearer).
            token = bearer(
                token,
                base_url=base_url,
                proxy=proxy,
                client_version=client_version,
                source=f"the kept account {account.name}",
            )
            usage = fetch_account_usage(token, base_url, client_version=client_version, proxy=proxy)
        except CursorError as exc:
            rows.append(
                AccountRow(account.name, account.active, why=exc.detail, key=key, refused=stands)
            )
            continue
        rows.append(AccountRow(account.name, account.active, usage=usage, key=key, refused=stands))
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
    names = [row.name + (" (API key)" if row.key else "") for row in rows]
    width = max(len(name) for name in names)
    lines = [head]
    for row, name in zip(rows, names, strict=True):
        mark = "*" if row.active else " "
        lines.append(f"{mark} {name:<{width}}  {_usage_text(row)}".rstrip())
        if row.refused is not None:
            lines.append(f"    {refusal_text(row.refused)}")
    if any(row.refused is not None for row in rows):
        lines.append(
            "  (a round that names no account skips a refused one until then; "
            "--account EMAIL still runs on it)"
        )
    return "\n".join(lines)


def usage_table(rows: list[AccountRow], now: float, threshold: float | None = None) -> str:
    """Return the kept accounts side by side: plan, each window's percent used, the reset.

    NOW (epoch seconds) counts the days to each reset; THRESHOLD (a percent, None: not
    shown) marks a window at or past it, the one past which no round starts there.
    """
    if not rows:
        return rows_text(rows)
    keys: dict[str, str] = {}
    for row in rows:
        for window in row.usage.windows if row.usage is not None else ():
            keys.setdefault(window.key, window.name)
    header = ["  account", "plan", *keys.values(), "resets"]
    table: list[list[str]] = []
    notes: list[str] = []
    for row in rows:
        name = ("* " if row.active else "  ") + row.name
        if row.usage is None:
            table.append([name, "-", *("-" for _ in keys), "-"])
            notes.append(f"  {row.name}: {row.why or 'usage unknown'}")
            continue
        percents = {w.key: w.percent for w in row.usage.windows}
        cells = []
        for key in keys:
            value = percents.get(key)
            mark = "!" if threshold is not None and value is not None and value >= threshold else ""
            cells.append("-" if value is None else f"{value:.1f}%{mark}")
        end = row.usage.period_end
        table.append(
            [name, row.usage.plan or "?", *cells, "-" if end is None else reset_text(end, now)]
        )
    widths = [max(len(line[i]) for line in [header, *table]) for i in range(len(header))]
    lines = [f"{PROVIDER}: usage of {len(rows)} accounts (* active)"]
    lines.extend(
        "  ".join(cell.ljust(width) for cell, width in zip(line, widths, strict=True)).rstrip()
        for line in [header, *table]
    )
    if threshold is not None and any("!" in cell for line in table for cell in line[2:]):
        lines.append(f"  (! at or past {threshold:g}%: rounds that name no account go elsewhere)")
    lines.extend(notes)
    return "\n".join(lines)


def row_dict(row: AccountRow) -> dict[str, object]:
    """Return ROW as plain JSON-ready data: the account, whether active, its usage or why not."""
    return {
        "account": row.name,
        "active": row.active,
        "usage": row.usage.as_dict() if row.usage is not None else None,
        "error": row.why,
        "api_key": row.key,
        "refused": (
            None
            if row.refused is None
            else {
                "cause": row.refused.cause,
                "at": row.refused.at,
                "until": row.refused.until,
            }
        ),
    }
