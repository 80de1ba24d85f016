"""Several Cursor accounts in one auth.json: the active one, and the others kept beside it.

``oauth_tokens.cursor`` stays the active account exactly as the one sign-in always
was, so a host (or an older cell) that reads only it keeps working and sees the
active account. Every other account the person signed in to is kept in
``oauth_tokens.cursor_accounts = {name: {access_token, refresh_token, expires_at,
email?}}``, a key an older reader never looks at. An account's name is its email
(compared without case), else the user id its token names. The active account is
never also among the others: making one active moves it out of the others and the
one it replaces in, so a refresh always has exactly one place to write back.

Each change is one read-modify-write under the store's lock (``AuthStore.update``:
atomic, mode 0600, every other field kept). What a sign-in, the refresh or a
round does with an account is theirs (``signin.py``, ``credentials.py``); this
module does no network I/O.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..errors import UnknownAccount
from .store import ACCOUNTS_KEY, PROVIDER, AuthStore, TokenEntry, token_user_id

__all__ = [
    "UNNAMED",
    "Account",
    "account_name",
    "entry_for",
    "find",
    "forget",
    "keep_sign_in",
    "listed",
    "save_renewed",
    "unknown_account",
    "use",
]

# The name of an account whose email and user id are both unknown.
UNNAMED = "(unnamed account)"


@dataclass(frozen=True, slots=True)
class Account:
    """One kept account: its name, its tokens (kept out of repr) and whether it is active."""

    name: str
    entry: TokenEntry
    active: bool


def account_name(entry: TokenEntry) -> str:
    """Return the name ENTRY's account goes by: its email, else its user id, else UNNAMED."""
    return entry.email or token_user_id(entry.access_token) or UNNAMED


def _same(a: str, b: str) -> bool:
    """Return whether two account names name one account (emails ignore case)."""
    return a.strip().casefold() == b.strip().casefold()


def _tokens(data: dict[str, Any]) -> dict[str, Any]:
    """Return DATA's ``oauth_tokens`` object, made when missing."""
    tokens = data.get("oauth_tokens")
    if not isinstance(tokens, dict):
        tokens = data["oauth_tokens"] = {}
    return tokens


def _others(data: dict[str, Any]) -> dict[str, Any]:
    """Return the accounts kept beside the active one (``cursor_accounts``), made if missing."""
    tokens = _tokens(data)
    others = tokens.get(ACCOUNTS_KEY)
    if not isinstance(others, dict):
        others = tokens[ACCOUNTS_KEY] = {}
    return others


def _tidy(data: dict[str, Any]) -> None:
    """Drop an empty ``cursor_accounts``: a person with one account keeps today's file."""
    tokens = data.get("oauth_tokens")
    if isinstance(tokens, dict) and tokens.get(ACCOUNTS_KEY) == {}:
        del tokens[ACCOUNTS_KEY]


def _read_all(data: dict[str, Any]) -> list[Account]:
    """Return every account DATA keeps: the active one first, then the others by name."""
    tokens = data.get("oauth_tokens") or {}
    found: list[Account] = []
    active = tokens.get(PROVIDER)
    if active is not None:
        entry = TokenEntry.from_json(active)
        found.append(Account(account_name(entry), entry, True))
    rest = []
    for name, raw in (tokens.get(ACCOUNTS_KEY) or {}).items():
        entry = TokenEntry.from_json(raw)
        rest.append(Account(entry.email or name, entry, False))
    return found + sorted(rest, key=lambda account: account.name.casefold())


def listed(store: AuthStore) -> list[Account]:
    """Return every kept account, the active one first (StoreError on a bad auth.json)."""
    return _read_all(store.read())


def find(store: AuthStore, name: str) -> Account | None:
    """Return the kept account NAME names (active or not), or None."""
    return next((a for a in listed(store) if _same(a.name, name)), None)


def unknown_account(name: str, kept: list[Account]) -> UnknownAccount:
    """Return the error for NAME, an account that is not kept, naming those that are."""
    names = tuple(account.name for account in kept)
    known = f"; the kept accounts are {', '.join(names)}" if names else "; none is kept"
    return UnknownAccount(
        f"no Cursor account {name} is signed in here{known} (/cursor login --add adds one)",
        account=name,
        kept=names,
    )


def entry_for(store: AuthStore, name: str) -> TokenEntry:
    """Return the tokens of the kept account NAME; UnknownAccount when it is not kept."""
    kept = listed(store)
    found = next((a for a in kept if _same(a.name, name)), None)
    if found is None:
        raise unknown_account(name, kept)
    return found.entry


def keep_sign_in(store: AuthStore, entry: TokenEntry, *, add: bool) -> str | None:
    """Keep a finished sign-in's ENTRY as the active account; return the account set aside.

    With ADD the account active until now (another one) is kept among the others
    and its name returned; without, it is replaced, as one sign-in always replaced
    the last (the others stay). The account signed in to leaves the others if it
    was among them: it is kept once, active.
    """
    name = account_name(entry)
    aside: list[str] = []

    def change(data: dict[str, Any]) -> bool:
        """Return True after making ENTRY active in DATA."""
        tokens = _tokens(data)
        others = _others(data)
        for key in [k for k in others if _same(k, name)]:
            del others[key]
        current = tokens.get(PROVIDER)
        if add and current is not None:
            before = TokenEntry.from_json(current)
            if not _same(account_name(before), name):
                others[account_name(before)] = before.as_json()
                aside.append(account_name(before))
        tokens[PROVIDER] = entry.as_json()
        _tidy(data)
        return True

    store.update(change)
    return aside[0] if aside else None


def use(store: AuthStore, name: str) -> Account:
    """Make the kept account NAME the active one; return it (UnknownAccount when not kept).

    The account it replaces is kept among the others, so nothing is forgotten.
    """
    chosen: list[Account] = []

    def change(data: dict[str, Any]) -> bool:
        """Return whether DATA changed after swapping NAME into ``oauth_tokens.cursor``."""
        kept = _read_all(data)
        found = next((a for a in kept if _same(a.name, name)), None)
        if found is None:
            raise unknown_account(name, kept)
        chosen.append(Account(found.name, found.entry, True))
        if found.active:
            return False
        tokens = _tokens(data)
        others = _others(data)
        for key in [k for k in others if _same(k, found.name)]:
            del others[key]
        current = tokens.get(PROVIDER)
        if current is not None:
            before = TokenEntry.from_json(current)
            others[account_name(before)] = before.as_json()
        tokens[PROVIDER] = found.entry.as_json()
        _tidy(data)
        return True

    store.update(change)
    return chosen[0]


def forget(store: AuthStore, name: str | None = None) -> tuple[str | None, str | None]:
    """Forget the account NAME (None: the active one); return (forgotten, active now).

    Forgetting the active account makes the next kept one (by name) active; the
    forgotten name is None when there was nothing to forget (NAME None and no
    active account). UnknownAccount when NAME is not kept.
    """
    said: list[str | None] = []

    def change(data: dict[str, Any]) -> bool:
        """Return whether DATA changed after forgetting the account."""
        kept = _read_all(data)
        if name is None:
            found = next((a for a in kept if a.active), None)
            if found is None:
                said.extend([None, None])
                return False
        else:
            found = next((a for a in kept if _same(a.name, name)), None)
            if found is None:
                raise unknown_account(name, kept)
        tokens = _tokens(data)
        others = _others(data)
        if found.active:
            del tokens[PROVIDER]
            rest = [a for a in kept if not a.active]
            if rest:
                following = rest[0]
                for key in [k for k in others if _same(k, following.name)]:
                    del others[key]
                tokens[PROVIDER] = following.entry.as_json()
                said.extend([found.name, following.name])
            else:
                said.extend([found.name, None])
        else:
            for key in [k for k in others if _same(k, found.name)]:
                del others[key]
            active = next((a.name for a in kept if a.active), None)
            said.extend([found.name, active])
        _tidy(data)
        return True

    store.update(change)
    return said[0], said[1]


def save_renewed(store: AuthStore, name: str, renewed: TokenEntry) -> bool:
    """Write RENEWED back where the account NAME lives; return whether it is still kept.

    The caller holds the store's lock (a refresh): an account forgotten meanwhile
    is not brought back.
    """
    kept: list[bool] = []

    def change(data: dict[str, Any]) -> bool:
        """Return whether DATA changed after putting RENEWED in NAME's place."""
        tokens = data.get("oauth_tokens") or {}
        active = tokens.get(PROVIDER)
        if active is not None and _same(account_name(TokenEntry.from_json(active)), name):
            tokens[PROVIDER] = renewed.as_json()
            kept.append(True)
            return True
        others = tokens.get(ACCOUNTS_KEY) or {}
        for key, raw in others.items():
            if _same(TokenEntry.from_json(raw).email or key, name):
                others[key] = renewed.as_json()
                kept.append(True)
                return True
        return False

    store.update(change)
    return bool(kept)
