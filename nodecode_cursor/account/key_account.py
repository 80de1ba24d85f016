"""A Cursor API key (``crsr_…``) kept as one more account, named by the email it belongs to.

``add_key_account`` exchanges the key once (``key_exchange.bearer``: a refused
key is a CredentialError and nothing is kept), reads whose it is from the
profile with the session token the exchange answered (``signin.fetch_email``,
as the browser sign-in does; else the ``email`` claim of that token), and keeps
it in auth.json as an account entry (``accounts.keep_sign_in``: atomic, mode
0600, under the lock, every other field kept). The entry's ``access_token`` is
the key itself and never expires (``KEY_EXPIRES_AT``), so no refresh is ever
tried on it; every call to Cursor already takes the key through
``key_exchange.bearer``, which trades it for a session token in memory.
``refresh_token`` is the key too: it is what renews the session (exchanging it
again), and it keeps the entry's shape.

Where the key comes from (a prompt, stdin, ``CURSOR_API_KEY``, a host's
``/connect``) is the caller's; the key never reaches argv, a log or an error.
"""

from __future__ import annotations

from dataclasses import dataclass

from .. import limits
from ..errors import CredentialError, ProviderError, remember_secret
from . import accounts, key_exchange
from .credentials import checked_token
from .store import AuthStore, TokenEntry, token_claims

__all__ = ["KEY_EXPIRES_AT", "KeyAdded", "add_key_account", "is_key_account"]

# A key does not expire (Cursor revokes it instead): its entry says so with the last
# second of year 9999, far past any margin a refresh checks.
KEY_EXPIRES_AT = 253402300799.0
# How long reading the profile may take after the exchange.
PROFILE_TIMEOUT_SECONDS = 10.0


@dataclass(frozen=True, slots=True)
class KeyAdded:
    """A key kept as an account: its name (email), the account it set aside, if any, and
    whether it took the place of a browser sign-in to the same account."""

    name: str
    aside: str | None
    replaced_sign_in: bool = False


def is_key_account(entry: TokenEntry) -> bool:
    """Return whether ENTRY is an API key kept as an account (not a browser sign-in)."""
    return key_exchange.is_api_key(entry.access_token)


def add_key_account(
    store: AuthStore,
    key: str,
    *,
    add: bool,
    base_url: str = limits.DEFAULT_BASE_URL,
    web_url: str = limits.DEFAULT_WEB_URL,
    proxy: str | None = None,
    client_version: str | None = None,
    source: str = "the key given",
) -> KeyAdded:
    """Return the key KEY kept as the active account (ADD keeps the one active until now).

    Blocking (one exchange and one profile read, through PROXY). A key that is no
    ``crsr_`` key, or one Cursor refuses, raises CredentialError naming SOURCE and
    never the key; a profile that will not say whose key it is, too; any other
    failure of the exchange is its ProviderError. Whatever is raised, nothing is kept.
    """
    # Deferred: loading the account package stays cheap (the kit).
    from .signin import fetch_email

    key = key.strip()
    if not key_exchange.is_api_key(key):
        raise CredentialError(
            f"{source} is not a Cursor API key (those start with "
            f"{key_exchange.API_KEY_PREFIX}; make one at cursor.com/dashboard, "
            "Integrations → API keys); nothing was kept",
            status=400,
            code="not_an_api_key",
        )
    checked_token(key, source)
    remember_secret(key)
    try:
        session = key_exchange.bearer(
            key, base_url=base_url, proxy=proxy, client_version=client_version, source=source
        )
    except CredentialError as exc:  # a refused key: the person must know nothing was kept
        raise CredentialError(
            f"{exc.detail}; nothing was kept", status=exc.status, code=exc.code, hint=exc.hint
        ) from None
    email = fetch_email(proxy, web_url, session, PROFILE_TIMEOUT_SECONDS)
    if email is None:  # the profile would not say: the session token may name it
        claimed = token_claims(session).get("email")
        email = claimed.strip() or None if isinstance(claimed, str) else None
    if email is None:
        raise ProviderError(
            f"Cursor took {source} but its profile did not say whose it is; nothing was "
            "kept: try again later",
            status=502,
            code="key_owner_unknown",
        )
    entry = TokenEntry(key, key, KEY_EXPIRES_AT, email)
    # An account is kept once: a key for an account signed in to in the browser takes
    # that sign-in's place, and the person is told so (their sign-in is not kept beside it).
    earlier = accounts.find(store, accounts.account_name(entry))
    aside = accounts.keep_sign_in(store, entry, add=add)
    replaced = earlier is not None and not is_key_account(earlier.entry)
    return KeyAdded(accounts.account_name(entry), aside, replaced)
