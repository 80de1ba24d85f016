"""Which credential a Cursor round sends: the cell's answer to the host's credential question.

The ladder, for provider ``cursor`` only: a key a host's ``/connect`` saved
(``api_keys.cursor.key``), then the kept sign-in (renewed first when a round
asks and it is due), then ``CURSOR_ACCESS_TOKEN``, then ``CURSOR_API_KEY``, else
nothing. It never answers for another provider and never lends another
provider's key to Cursor. Reading auth.json is ``store.py``'s job; the refresh
is ``signin.py``'s.

A round's question (``resolve_credential_async``) is answered from what the
last one read while nothing it depends on looks changed: the home folder's and
config.json's owner and mode, auth.json's identity, size and times, the
credential environment, this process's own auth.json writes (``store.writes``), how
many sessions Cursor has ended (the lane's ``ended``),
and a kept sign-in not yet due for renewal. That look is a few ``stat`` calls
on the event loop; anything else (a read, a refresh) waits in a worker thread,
so a sign-out, a renewal or a new key in another process is seen by the next
round, and a burst of rounds reads auth.json once instead of once each.
"""

from __future__ import annotations

import os
import re
import time
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import NOT_SIGNED_IN, ConfigError, remember_secret
from ..limits import DEFAULT_BASE_URL, REFRESH_WHEN_DUE_WITHIN_SECONDS
from . import store as _store
from .signin import refresh_if_due
from .store import AUTH_FILE, CONFIG_FILE, PROVIDER, AuthStore, TokenEntry

if TYPE_CHECKING:
    import asyncio

    from ..host import Host

__all__ = [
    "ENV_ACCESS_TOKEN",
    "ENV_API_KEY",
    "NOT_SIGNED_IN",
    "account_credential",
    "auth_looks",
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
    return _resolve(host, for_round, base_url, proxy, ended)[0]


def _resolve(
    host: Host, for_round: bool, base_url: str, proxy: str | None, ended: set[str] | None
) -> tuple[str | None, TokenEntry | None]:
    """Return Cursor's bearer token (``resolve_credential``'s) and the kept sign-in
    when that is what answered (None for a key or the environment)."""
    store = AuthStore(host.home)
    key = store.api_key()
    if key:
        return checked_token(key, f"{store.path} (api_keys.{PROVIDER}.key)"), None
    if for_round:
        entry = refresh_if_due(store, base_url, host=host, proxy=proxy, ended=ended)
    else:
        entry = store.entry()
    if entry is not None:
        token = checked_token(entry.access_token, f"{store.path} (oauth_tokens.{PROVIDER})")
        return token, entry
    return env_credential(), None


def account_credential(
    host: Host,
    account: str,
    *,
    base_url: str = DEFAULT_BASE_URL,
    proxy: str | None = None,
    ended: set[str] | None = None,
) -> str:
    """Return the bearer of the kept account ACCOUNT, renewed first when due (blocking).

    A round that names its account (``cursor.account``, ``--account``, serve's
    ``x-cursor-account``) sends that account's token and no other: an account not
    kept raises UnknownAccount, never a fall back to another credential. Its refresh
    writes its own entry back (``signin.refresh_if_due``).
    """
    store = AuthStore(host.home)
    entry = refresh_if_due(store, base_url, host=host, proxy=proxy, ended=ended, account=account)
    if entry is None:  # pragma: no cover - refresh_if_due raises for an account not kept
        raise ConfigError(f"no Cursor account {account} is signed in here", code="unknown_account")
    return checked_token(entry.access_token, f"{store.path} (account {account})")


# How long a remembered answer is given at most without reading auth.json again, even
# when nothing looks changed: a bound for another process rewriting the file twice
# within one tick of the file system's clock, at the same size, on a reused inode.
_REMEMBERED_SECONDS = 2.0


class _Remembered:
    """A round's answer and what it depended on when it was read; its repr shows no token."""

    __slots__ = ("at", "entry", "looks", "token")

    def __init__(
        self, looks: tuple[object, ...], token: str | None, entry: TokenEntry | None
    ) -> None:
        self.looks = looks
        self.token = token
        self.entry = entry
        self.at = time.monotonic()

    def __repr__(self) -> str:
        return f"_Remembered(kept sign-in: {self.entry is not None})"

    def holds(self, looks: tuple[object, ...]) -> bool:
        """Return whether this answer still stands: nothing changed, no renewal due yet."""
        if looks != self.looks or time.monotonic() - self.at > _REMEMBERED_SECONDS:
            return False
        return self.entry is None or not self.entry.due_within(REFRESH_WHEN_DUE_WITHIN_SECONDS)


# The last round's answer per (home, base URL, proxy): what each process's rounds share;
# and the read in flight for each, which the rounds arriving meanwhile wait for.
_remembered: dict[tuple[str, str, str | None], _Remembered] = {}
_reading: dict[tuple[str, str, str | None], asyncio.Task[tuple[_Remembered, str | None]]] = {}


def _looks(home: Path, ended: set[str] | None) -> tuple[object, ...]:
    """Return what a round's answer depends on, seen without reading a file.

    The home folder's and config.json's owner and mode (``AuthStore.check_home``
    refuses a home others may change), auth.json's identity, size and times, this
    process's auth.json writes, the credential environment, and how many sessions
    Cursor has ended (ENDED grows when a refresh is refused: the kept sign-in
    may be one of them).
    """

    def seen(path: Path, *, content: bool) -> tuple[int, ...] | None:
        try:
            info = os.stat(path)
        except OSError:
            return None
        kind = (info.st_dev, info.st_ino, info.st_uid, info.st_mode)
        return (*kind, info.st_size, info.st_mtime_ns, info.st_ctime_ns) if content else kind

    return (
        seen(home, content=False),
        seen(home / CONFIG_FILE, content=False),
        seen(home / AUTH_FILE, content=True),
        _store.writes(),
        os.environ.get(ENV_ACCESS_TOKEN),
        os.environ.get(ENV_API_KEY),
        len(ended) if ended else 0,
    )


def auth_looks(home: Path, ended: set[str] | None) -> tuple[object, ...]:
    """Return what the kept accounts depend on, seen without reading a file (``_looks``)."""
    return _looks(home, ended)


def _resolve_looked(
    host: Host, base_url: str, proxy: str | None, ended: set[str] | None
) -> tuple[_Remembered, str | None]:
    """Return a round's answer with what it depended on, looked at before the read."""
    looks = _looks(Path(host.home), ended)
    token, entry = _resolve(host, True, base_url, proxy, ended)
    return _Remembered(looks, token, entry), token


async def resolve_credential_async(
    host: Host,
    provider: str = PROVIDER,
    *,
    for_round: bool = False,
    base_url: str = DEFAULT_BASE_URL,
    proxy: str | None = None,
    ended: set[str] | None = None,
) -> str | None:
    """Return ``resolve_credential`` run in a worker thread (a refresh may wait on the network).

    A round's question (``for_round``) is answered without the thread while the
    answer the last round read still stands (see the module's docstring).
    """
    import asyncio  # here: a command that runs no round (status) never loads it

    if provider != PROVIDER or not for_round:
        return await asyncio.to_thread(
            resolve_credential,
            host,
            provider,
            for_round=for_round,
            base_url=base_url,
            proxy=proxy,
            ended=ended,
        )
    where = (str(host.home), base_url, proxy)
    known = _remembered.get(where)
    if known is not None and known.holds(_looks(Path(host.home), ended)):
        remember_secret(known.token)  # kept the newest secret to scrub, as each read does
        return known.token
    # One read at a time: the rounds of a burst that arrive while it runs wait for it.
    loop = asyncio.get_running_loop()
    reading = _reading.get(where)
    if reading is None or reading.get_loop() is not loop:
        reading = loop.create_task(
            asyncio.to_thread(_resolve_looked, host, base_url, proxy, ended),
            name="cursor-credential",
        )
        _reading[where] = reading
        reading.add_done_callback(lambda done: _read(where, done))
    return (await asyncio.shield(reading))[1]


def _read(
    where: tuple[str, str, str | None], done: asyncio.Task[tuple[_Remembered, str | None]]
) -> None:
    """Keep a finished read's answer for the next rounds (none when it failed)."""
    if _reading.get(where) is done:
        del _reading[where]
    if done.cancelled() or done.exception() is not None:
        return  # each waiter raises it; nothing is kept, so the next round reads again
    _remembered[where] = done.result()[0]
