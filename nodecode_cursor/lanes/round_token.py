"""The token a round of the ``cursor`` lane sends: the host's, a named account's, or the ladder's.

``token`` answers the round's question once its model's effort is known good
(``model_resolution.resolve`` asks it): a credential the host gave (renewed
first when it is the kept sign-in that is due, never replaced by another), the
kept account the round names or was given (``RoundContext.account``,
``failover.round_accounts``: that account's token or an error, never another's),
else the cell's credential ladder (``credentials.resolve_credential_async``); a
``crsr_`` API key is exchanged for its session token first (``key_exchange``).
``given`` is the token of an account a round moved to, already had. Reading
auth.json and a refresh wait in worker threads, never on the event loop; which
account a round runs on is ``failover.py``'s.
"""

from __future__ import annotations

import asyncio
import functools
import logging

from .. import limits
from ..account import credentials, key_exchange
from ..account.accounts import unknown_account
from ..account.credentials import checked_token
from ..account.signin import refresh_if_due
from ..account.store import AuthStore
from ..errors import NotSignedIn, StoreError
from ..host import Host, RoundContext
from ..state import CellState

__all__ = ["credential", "given", "renewed_if_kept_sign_in", "token"]

log = logging.getLogger("nodecode_cursor.lanes.round_token")


async def token(ctx: RoundContext, state: CellState, account: str | None = None) -> str:
    """Return the round's bearer: its credential (ACCOUNT's, when named), a key exchanged first."""
    chosen = await credential(ctx, state, account)
    return await key_exchange.bearer_async(
        chosen,
        base_url=ctx.base_url or limits.DEFAULT_BASE_URL,
        proxy=ctx.proxy,
        client_version=ctx.client_version,
        home=ctx.host.home if ctx.host is not None else None,
        source="the round's credential" if ctx.credential else key_exchange.DEFAULT_SOURCE,
    )


async def given(token: str) -> str:
    """Return TOKEN (the account a round moved to: its token is already had)."""
    return token


async def credential(ctx: RoundContext, state: CellState, account: str | None = None) -> str:
    """Return the round's credential; raise the not-signed-in ConfigError when there is none.

    ACCOUNT, the kept account the round was given (``failover.round_accounts``),
    goes before ``ctx.account``.

    A token no header can carry (a space, a line break, non-ASCII) is refused here
    with a ConfigError naming its source, before the HTTP stack can quote it.
    """
    base_url = ctx.base_url or limits.DEFAULT_BASE_URL
    if ctx.credential:
        given = credentials.checked_token(ctx.credential, "the round's credential")
        if ctx.host is None:
            return given
        # The host chose this credential: when it is the kept sign-in (cell.credential
        # never renews), only that sign-in is renewed when due; no other credential
        # (a saved key, the environment) ever takes its place. auth.json is read and
        # the refresh waits in a worker thread, never on the event loop.
        return await asyncio.to_thread(
            renewed_if_kept_sign_in, ctx.host, given, base_url, ctx.proxy, state.ended_sessions
        )

    token: str | None
    named = account or ctx.account
    if named and ctx.host is None:
        raise unknown_account(named, [])  # no home: no account is kept
    if ctx.host is not None and named:
        # A named account sends its own token or fails: never another account's.
        return await asyncio.to_thread(
            functools.partial(
                credentials.account_credential,
                ctx.host,
                named,
                base_url=base_url,
                proxy=ctx.proxy,
                ended=state.ended_sessions,
            )
        )
    if ctx.host is not None:
        token = await credentials.resolve_credential_async(
            ctx.host,
            "cursor",
            for_round=True,
            base_url=base_url,
            proxy=ctx.proxy,
            ended=state.ended_sessions,
        )
    else:
        token = credentials.env_credential()
    if not token:
        raise NotSignedIn()
    return token


def renewed_if_kept_sign_in(
    host: Host, token: str, base_url: str, proxy: str | None, ended: set[str]
) -> str:
    """Return TOKEN, or the kept sign-in's renewed access token when TOKEN is that sign-in.

    Blocking (reads auth.json, may refresh through PROXY, the round's): run it in a
    worker thread. An auth.json that cannot be read, or a sign-in that is not TOKEN's,
    leaves TOKEN as given.
    """
    store = AuthStore(host.home)
    try:
        entry = store.entry()
    except StoreError as exc:
        log.debug("auth.json unreadable; using the round's credential as given: %s", exc.detail)
        return token
    if entry is None or entry.access_token != token:
        return token
    renewed = refresh_if_due(store, base_url, host=host, proxy=proxy, ended=ended)
    if renewed is None:  # forgotten meanwhile (a logout): send what the host chose
        return token
    if renewed.access_token != token:
        log.debug("the round's credential is the kept sign-in; sending it renewed")
    return checked_token(renewed.access_token, f"{store.path} (oauth_tokens.cursor)")
