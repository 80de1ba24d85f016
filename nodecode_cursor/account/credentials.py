"""Which credential a Cursor round sends: the cell's answer to the host's credential question.

The ladder, for provider ``cursor`` only: a key a host's ``/connect`` saved
(``api_keys.cursor.key``), then the kept sign-in (renewed first when a round
asks and it is due), then ``CURSOR_ACCESS_TOKEN``, then ``CURSOR_API_KEY``, else
nothing. It never answers for another provider and never lends another
provider's key to Cursor. Reading auth.json is ``store.py``'s job; the refresh
is ``signin.py``'s.
"""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING

from ..errors import NOT_SIGNED_IN, ConfigError, remember_secret
from ..limits import DEFAULT_BASE_URL
from .signin import refresh_if_due
from .store import PROVIDER, AuthStore

if TYPE_CHECKING:
    from ..host import Host

__all__ = [
    "ENV_ACCESS_TOKEN",
    "ENV_API_KEY",
    "NOT_SIGNED_IN",
    "checked_token",
    "env_credential",
    "resolve_credential",
    "resolve_credential_async",
]

ENV_ACCESS_TOKEN = "CURSOR_ACCESS_TOKEN"
ENV_API_KEY = "CURSOR_API_KEY"

# A bearer token is visible ASCII without spaces (JWTs, Cursor keys). Anything else cannot
# go into an Authorization header, and the HTTP stack's complaint would quote the header,
# token and all, into an error a person reads: refuse it here, naming only its source.
_TOKEN_SHAPE = re.compile(r"[\x21-\x7e]+")


def checked_token(token: str, source: str) -> str:
    """Return ``token`` when it can be sent as a bearer; else ConfigError naming ``source``."""
    if _TOKEN_SHAPE.fullmatch(token):
        remember_secret(token)  # every bearer passes here: scrubbed by value from then on
        return token
    raise ConfigError(
        f"the Cursor token from {source} has characters a token cannot hold "
        "(a space, a line break or a non-ASCII character); set it again",
        code="bad_token",
    )


def env_credential() -> str | None:
    """Return CURSOR_ACCESS_TOKEN, else CURSOR_API_KEY (blank values do not count), else None."""
    for name in (ENV_ACCESS_TOKEN, ENV_API_KEY):
        value = os.environ.get(name, "").strip()
        if value:
            return checked_token(value, name)
    return None


def resolve_credential(
    host: Host,
    provider: str = PROVIDER,
    *,
    for_round: bool = False,
    base_url: str = DEFAULT_BASE_URL,
    proxy: str | None = None,
    ended: set[str] | None = None,
) -> str | None:
    """Return the bearer token for ``provider`` (only ``cursor`` is answered), or None.

    ``for_round`` renews a kept sign-in that is due first; any other question
    (status, a probe) never refreshes and never touches the network. A corrupt
    auth.json raises StoreError; a refused refresh raises CredentialError; a token
    no request could carry raises ConfigError naming where it came from, never the token.
    PROXY (the ``cursor.proxy`` setting; None: the proxy environment) carries the refresh;
    a session Cursor ends is noted in ENDED (``signin.refresh_if_due``).
    """
    if provider != PROVIDER:
        return None
    store = AuthStore(host.home)
    key = store.api_key()
    if key:
        return checked_token(key, f"{store.path} (api_keys.{PROVIDER}.key)")
    if for_round:
        entry = refresh_if_due(store, base_url, host=host, proxy=proxy, ended=ended)
    else:
        entry = store.entry()
    if entry is not None:
        return checked_token(entry.access_token, f"{store.path} (oauth_tokens.{PROVIDER})")
    return env_credential()


async def resolve_credential_async(
    host: Host,
    provider: str = PROVIDER,
    *,
    for_round: bool = False,
    base_url: str = DEFAULT_BASE_URL,
    proxy: str | None = None,
    ended: set[str] | None = None,
) -> str | None:
    """Return ``resolve_credential`` run in a worker thread (a refresh may wait on the network)."""
    import asyncio  # here: a command that runs no round (status) never loads it

    return await asyncio.to_thread(
        resolve_credential,
        host,
        provider,
        for_round=for_round,
        base_url=base_url,
        proxy=proxy,
        ended=ended,
    )
