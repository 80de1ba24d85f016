"""Cursor dashboard API keys (``crsr_…``) traded for the session token a call to Cursor sends.

Cursor refuses a key minted in its dashboard as a bearer (401). The key is
first exchanged: ``POST {base}/auth/exchange_user_api_key`` with the key as the
bearer and ``{}`` as the body answers ``{"accessToken", "refreshToken"}``, the
access token a JWT of about an hour (``type: api_key_token``); renewing it is
exchanging the key again (docs/protocol.md, "API keys", has the sources).

``bearer`` is the one door every call to Cursor takes for its credential (a
round's, the roster's, the catalog's, the dashboard's, ``/connect``'s check,
doctor's): a ``crsr_`` key comes out as a session token, anything else as it
went in. The session token is kept in this process's memory per key (under a
digest of the key, never the key) and base URL until five minutes before its
``exp``, then the key is exchanged again; the exchanges of one key run one at
a time, so the rounds of a burst share one. Nothing is written to disk: a new
process exchanges again.

Choosing which credential is the ladder's (``credentials.py``); the HTTP call
and its failures are ``transports/http.py``'s; the cursor-agent lane never
comes here (Cursor's CLI exchanges the key it is handed itself).
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import threading
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TypeGuard

from .. import limits
from ..errors import CredentialError, ProviderError, StoreError, remember_secret
from .store import AuthStore, token_expiry

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = [
    "API_KEY_PREFIX",
    "DEFAULT_SOURCE",
    "EXCHANGE_PATH",
    "KEY_REFUSED",
    "Kept",
    "bearer",
    "bearer_async",
    "described",
    "exchange_state",
    "is_api_key",
    "kept",
    "source_of",
]

log = logging.getLogger("nodecode_cursor.account.key_exchange")

# What a key minted in Cursor's dashboard starts with (Integrations → API keys).
API_KEY_PREFIX = "crsr_"
EXCHANGE_PATH = "/auth/exchange_user_api_key"
# The Connect-free code a refused key's error carries, for hosts that branch on it.
KEY_REFUSED = "api_key_refused"
# Where a key a caller names no source for came from, when neither the
# environment nor /connect's saved key is it.
DEFAULT_SOURCE = "the credential the host passed"
# A bearer is visible ASCII without spaces, as ``credentials.checked_token`` requires.
_TOKEN_SHAPE = re.compile(r"[\x21-\x7e]+")


def is_api_key(token: str | None) -> TypeGuard[str]:
    """Return whether TOKEN is a Cursor dashboard API key (which must be exchanged)."""
    return token is not None and token.startswith(API_KEY_PREFIX)


@dataclass(frozen=True, slots=True)
class Kept:
    """A session token an exchange answered and when it stops being used; its repr hides it."""

    token: str
    # Seconds since the epoch: five minutes before the token's ``exp``.
    until: float

    def __repr__(self) -> str:
        return f"Kept(until={self.until:.0f})"

    def fresh(self, now: float) -> bool:
        """Return whether the token may still be sent at NOW."""
        return now < self.until


# Per (digest of the key, base URL): the session token kept, and the lock its exchanges
# take so concurrent calls wait for one exchange instead of each making their own.
_kept: dict[tuple[str, str], Kept] = {}
_locks: dict[tuple[str, str], threading.Lock] = {}
_guard = threading.Lock()


def _slot(key: str, base_url: str) -> tuple[str, str]:
    """Return where KEY's session token for BASE_URL is kept (a digest: the key is not kept)."""
    return hashlib.sha256(key.encode("utf-8")).hexdigest(), base_url.rstrip("/")


def kept(key: str, base_url: str = limits.DEFAULT_BASE_URL) -> Kept | None:
    """Return the session token this process holds for KEY at BASE_URL, fresh or not, or None."""
    return _kept.get(_slot(key, base_url))


def forget(session_token: str) -> bool:
    """Forget every kept exchange whose session token is SESSION_TOKEN; return whether one was.

    Cursor refusing a kept session token before it is due (the key was revoked, the
    session ended) must not make every later call send it until it expires: the
    next call exchanges the key again, and a revoked key is then refused in words.
    """
    with _guard:
        slots = [slot for slot, kept in _kept.items() if kept.token == session_token]
        for slot in slots:
            del _kept[slot]
    return bool(slots)


def source_of(key: str, home: Path | str | None, fallback: str = DEFAULT_SOURCE) -> str:
    """Return where KEY came from, in the words an error shows: a variable, /connect, FALLBACK."""
    for name in ("CURSOR_API_KEY", "CURSOR_ACCESS_TOKEN"):
        if os.environ.get(name, "").strip() == key:
            return name
    if home is not None:
        try:
            store = AuthStore(home)
            if store.api_key() == key:
                return "the key saved by /connect"
            from .accounts import listed  # here: accounts imports this module's store only

            for account in listed(store):
                if account.entry.access_token == key:
                    return f"the kept account {account.name}"
        except StoreError:
            pass  # an unreadable auth.json names no source; the fallback still says one
    return fallback


def described(key: str, home: Path | str | None, base_url: str = limits.DEFAULT_BASE_URL) -> str:
    """Return how status and doctor name an API key: where it came from, and its exchange."""
    return f"API key ({source_of(key, home, 'given')}), {exchange_state(key, base_url)}"


def exchange_state(key: str, base_url: str = limits.DEFAULT_BASE_URL) -> str:
    """Return how KEY's exchange stands in this process: until when its session token is used."""
    found = kept(key, base_url)
    if found is not None and found.fresh(time.time()):
        until = time.strftime("%H:%M", time.localtime(found.until))
        return f"exchanged for a session token until {until}"
    return "exchanged for a session token at its first call"


def bearer(
    token: str,
    *,
    base_url: str = limits.DEFAULT_BASE_URL,
    proxy: str | None = None,
    client_version: str | None = None,
    home: Path | str | None = None,
    source: str = DEFAULT_SOURCE,
) -> str:
    """Return the bearer a call to Cursor sends for TOKEN: a ``crsr_`` key's session token.

    Blocking (it may dial Cursor through PROXY): run it in a worker thread from a
    loop. A token that is no API key is returned as given. A refused key raises
    CredentialError ("Cursor refused the API key (from …)"), naming where it came
    from (``source_of`` with HOME, else SOURCE) and never the key; any other failure
    is a ProviderError (``Unreachable`` when no answer came).
    """
    if not is_api_key(token):
        return token
    remember_secret(token)
    slot = _slot(token, base_url)
    found = _kept.get(slot)
    if found is not None and found.fresh(time.time()):
        return found.token
    with _guard:
        lock = _locks.setdefault(slot, threading.Lock())
    with lock:
        # Another call may have exchanged the key while this one waited for the lock.
        found = _kept.get(slot)
        if found is not None and found.fresh(time.time()):
            return found.token
        fresh = _exchange(
            token, base_url, proxy, client_version, lambda: source_of(token, home, source)
        )
        _kept[slot] = fresh
        log.debug(
            "a Cursor API key (%s) was exchanged for a session token, used until %s",
            slot[0][:8],
            time.strftime("%H:%M", time.localtime(fresh.until)),
        )
        return fresh.token


async def bearer_async(
    token: str,
    *,
    base_url: str = limits.DEFAULT_BASE_URL,
    proxy: str | None = None,
    client_version: str | None = None,
    home: Path | str | None = None,
    source: str = DEFAULT_SOURCE,
) -> str:
    """Return ``bearer``'s answer; an exchange waits in a worker thread, a kept token does not."""
    if not is_api_key(token):
        return token
    found = _kept.get(_slot(token, base_url))
    if found is not None and found.fresh(time.time()):
        remember_secret(token)
        return found.token
    import asyncio  # here: the status and doctor paths that never exchange stay light

    return await asyncio.to_thread(
        bearer,
        token,
        base_url=base_url,
        proxy=proxy,
        client_version=client_version,
        home=home,
        source=source,
    )


def _exchange(
    key: str,
    base_url: str,
    proxy: str | None,
    client_version: str | None,
    source: Callable[[], str],
) -> Kept:
    """Return the session token Cursor answers for KEY; raise as ``bearer`` says."""
    # Deferred: the cell's start loads this module and must stay cheap (the kit).
    from ..transports.http import rpc_headers
    from .signin import call

    url = base_url.rstrip("/") + EXCHANGE_PATH
    headers = rpc_headers(key, limits.client_version(client_version), str(uuid.uuid4()))
    headers["content-type"] = "application/json"
    answer = call(
        proxy, "POST", url, limits.KEY_EXCHANGE_TIMEOUT_SECONDS, headers=headers, content=b"{}"
    )
    content = answer.content or b""
    if answer.status in (401, 403):
        raise CredentialError(
            f"Cursor refused the API key (from {source()}): check it in Cursor's dashboard "
            "or run /connect again",
            status=401,
            code=KEY_REFUSED,
        )
    if answer.status != 200:
        retryable = answer.status == 429 or answer.status >= 500
        raise ProviderError(
            f"Cursor could not exchange the API key (from {source()}) for a session token: "
            f"HTTP {answer.status}; try again later",
            status=answer.status if 400 <= answer.status < 600 else 502,
            retryable=retryable,
        )
    token = _access_token(content)
    if token is None:
        raise ProviderError(
            f"Cursor's answer to the exchange of the API key (from {source()}) "
            "carried no session token; try again later",
            retryable=True,
        )
    remember_secret(token)
    return Kept(token, float(token_expiry(token)))


def _access_token(body: bytes) -> str | None:
    """Return the ``accessToken`` of an exchange's JSON answer, when it is one a header carries."""
    try:
        data = json.loads(body)
    except (ValueError, RecursionError):
        return None
    token = data.get("accessToken") if isinstance(data, dict) else None
    # What a header can carry (``credentials.checked_token``'s shape): anything else is
    # no token, and an error quoting it would put a secret in front of a person.
    if not isinstance(token, str) or not _TOKEN_SHAPE.fullmatch(token):
        return None
    return token
