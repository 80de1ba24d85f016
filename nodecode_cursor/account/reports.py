"""What the cell object answers a host about the person's account: sign-in, usage, kept accounts.

``sign_in_state`` reads auth.json and the environment (never the network) into
the contract's ``SignInState``; ``usage_now`` asks Cursor's dashboard with the
credential a round would send; ``kept_rows`` asks it for each kept account and
keeps each usage read for the rounds' choice of account. The cell object
(``cell.py``) calls these with its host, settings and state. Reading auth.json
is ``store.py``'s, the credential ladder ``credentials.py``'s, the dashboard's
questions ``dashboard.py``'s and a row's wording ``overview.py``'s. Each
function imports what it uses when it runs, as the cell does, so a command
loads only what it asks. The last two block: a loop runs them in a worker thread.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from ..cell_settings import PROVIDER

if TYPE_CHECKING:
    from ..cell_settings import Settings
    from ..host import Host, SignInState
    from ..state import CellState
    from .dashboard import AccountUsage
    from .overview import AccountRow
    from .signin import SignIn

__all__ = ["kept_rows", "sign_in_state", "usage_now"]


def sign_in_state(home: Path, signin: SignIn, ended: set[str]) -> SignInState:
    """Return how the sign-in under HOME stands (never refreshes or dials); StoreError if bad.

    SIGNIN is the ``/cursor`` command's sign-in (whether one waits for the person);
    ENDED the sessions Cursor ended this process (``CellState.ended_sessions``).
    """
    from ..host import SignInState
    from .accounts import listed
    from .credentials import ENV_ACCESS_TOKEN, ENV_API_KEY
    from .signin import session_ended
    from .store import AuthStore

    store = AuthStore(home)
    entry = store.entry()
    key = store.api_key()
    kept = tuple(account.name for account in listed(store))
    env_name = next(
        (n for n in (ENV_ACCESS_TOKEN, ENV_API_KEY) if os.environ.get(n, "").strip()), None
    )
    source = "saved key" if key else "sign-in" if entry else "environment" if env_name else None
    return SignInState(
        signed_in=entry is not None,
        source=source,
        email=entry.email if entry else None,
        expires_at=entry.expires_at if entry else None,
        session_ended=entry is not None and session_ended(entry, ended),
        env_name=env_name,
        in_progress=signin.in_progress,
        login_url=signin.page,
        browser_opened=signin.browser_opened,
        accounts=kept,
    )


def usage_now(
    host: Host, settings: Settings, client_version: Callable[[], str | None], ended: set[str]
) -> AccountUsage:
    """Return the account's usage from Cursor's dashboard (NotSignedIn, ProviderError if not).

    The credential is the one a round would send, renewed first when due;
    CLIENT_VERSION is asked only once the credential is known.
    """
    from .credentials import resolve_credential
    from .dashboard import fetch_account_usage

    token = resolve_credential(
        host,
        PROVIDER,
        for_round=True,
        base_url=settings.base_url,
        proxy=settings.proxy,
        ended=ended,
    )
    if token:
        from .key_exchange import bearer

        token = bearer(
            token,
            base_url=settings.base_url,
            proxy=settings.proxy,
            client_version=settings.client_version,
            home=host.home,
        )
    return fetch_account_usage(
        token, settings.base_url, client_version=client_version(), proxy=settings.proxy
    )


def kept_rows(
    host: Host, settings: Settings, client_version: str | None, state: CellState
) -> list[AccountRow]:
    """Return each kept account's ``overview.AccountRow``, its usage asked (blocking).

    Each usage read is kept for the rounds' choice too (``AccountBook``), so a
    ``usage`` or ``accounts`` refreshes what the next round knows.
    """
    from .account_book import used_percent
    from .overview import account_rows

    rows = account_rows(
        host,
        base_url=settings.base_url,
        proxy=settings.proxy,
        client_version=client_version,
        ended=state.ended_sessions,
    )
    book = state.accounts
    book.load()  # a row is written whole: what another process kept must not be lost
    for row in rows:
        if row.usage is not None:
            book.note_usage(row.name, used_percent(row.usage))
            book.persist(row.name)
    return rows
