"""auth.json: the kept Cursor sign-in, read and written safely beside everything else in it.

The host's ``auth.json`` holds other providers' keys and tokens too, so every
write is a read-modify-write under a ``filelock`` lock (``auth.json.lock``
beside it), written atomically (a temp file in the same folder, then
``os.replace``) with mode 0600, and keeps every field it does not own. This
module owns ``oauth_tokens.cursor = {access_token, refresh_token, expires_at,
email?}`` and reads ``api_keys.cursor.key`` (a key saved by a host's
``/connect``). A file that is not what it should be is never overwritten:
every read and write raises ``StoreError`` naming the path and the fault.
Before it is trusted, the home folder (and ``config.json`` in it, which names
where tokens are sent) must belong to this user and be writable by nobody else,
auth.json must be a regular file of bounded size (a FIFO or a device would hang
every read), and the lock file must not be a link. Temp files a killed write left
behind (they may hold tokens) are removed by the next write or logout.

The sign-in flow, the refresh and the credential ladder live elsewhere
(``signin.py``, ``credentials.py``); this module does no network I/O.
"""

from __future__ import annotations

import base64
import contextlib
import json
import math
import os
import stat
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import MOVE_ASIDE_HINT, StoreError, json_kind, remember_secret
from ..limits import EXPIRY_MARGIN_SECONDS, FALLBACK_TOKEN_LIFETIME_SECONDS

if TYPE_CHECKING:
    from filelock import FileLock

__all__ = [
    "ACCOUNTS_KEY",
    "AUTH_FILE",
    "CORRUPT",
    "MAX_AUTH_FILE_BYTES",
    "PROVIDER",
    "UNSAFE_HOME",
    "AuthStore",
    "TokenEntry",
    "account_key",
    "token_expiry",
    "token_user_id",
    "writes",
]

AUTH_FILE = "auth.json"
PROVIDER = "cursor"
# Where the accounts other than the active one are kept, beside ``oauth_tokens.cursor``
# (accounts.py owns them): a key an older reader of ``oauth_tokens.cursor`` never looks at.
ACCOUNTS_KEY = "cursor_accounts"
# A token payload longer than this is not one Cursor issued; it is not decoded.
MAX_CLAIMS_CHARS = 64 * 1024

# auth.json holds secrets: only its owner may read it, or list the folder holding it.
FILE_MODE = 0o600
DIR_MODE = 0o700
# An auth.json larger than this is not one a host wrote: it is refused, not read whole.
MAX_AUTH_FILE_BYTES = 4 * 1024 * 1024
# Folder and config.json bits that let someone else change where tokens go.
_OTHERS_WRITE = stat.S_IWGRP | stat.S_IWOTH
CONFIG_FILE = "config.json"
# StoreError's code for an auth.json whose content is at fault: moving it aside is the way out.
CORRUPT = "corrupt"
# StoreError's code for a home (or config.json) others own or may write: a config error.
UNSAFE_HOME = "unsafe_home"
# A key absent from auth.json (told apart from one that holds null).
_MISSING = object()
# auth.json writes and moves by this process so far (``writes``): a reader that kept
# what it read knows at once that this process changed the file since.
_writes = [0]


def writes() -> int:
    """Return how many times this process wrote or moved aside an auth.json so far."""
    return _writes[0]


@dataclass(frozen=True, slots=True)
class TokenEntry:
    """The kept sign-in; the tokens stay out of ``repr`` so no log line can carry them."""

    access_token: str = field(repr=False)
    refresh_token: str = field(repr=False)
    expires_at: float
    email: str | None = None

    def __post_init__(self) -> None:
        """Remember both tokens as secrets, so no error or log line can carry them."""
        remember_secret(self.access_token)
        remember_secret(self.refresh_token)

    def as_json(self) -> dict[str, Any]:
        """Return the entry as auth.json keeps it (email only when known)."""
        out: dict[str, Any] = {
            "access_token": self.access_token,
            "refresh_token": self.refresh_token,
            "expires_at": self.expires_at,
        }
        if self.email:
            out["email"] = self.email
        return out

    @classmethod
    def from_json(cls, raw: dict[str, Any]) -> TokenEntry:
        """Return the entry auth.json keeps as RAW (its shape checked by ``AuthStore.read``)."""
        return cls(
            raw["access_token"], raw["refresh_token"], raw["expires_at"], raw.get("email") or None
        )

    def due_within(self, seconds: float, now: float | None = None) -> bool:
        """Return whether the token expires within ``seconds`` of ``now``."""
        return self.expires_at - (time.time() if now is None else now) < seconds

    @classmethod
    def from_tokens(
        cls, access: str, refresh: str, email: str | None = None, *, now: float | None = None
    ) -> TokenEntry:
        """Return a fresh entry whose expiry comes from the access token's own ``exp``."""
        return cls(access, refresh, token_expiry(access, now=now), email or None)


def token_claims(token: str) -> dict[str, Any]:
    """Return the JWT's payload decoded without verifying it ({} when it is not a JWT).

    The cell never verifies a signature (it holds no key to verify with): it only
    reads ``exp`` and ``sub``, so the standard library's base64 and json suffice.
    """
    parts = token.split(".")
    if len(parts) != 3 or len(parts[1]) > MAX_CLAIMS_CHARS:
        return {}
    payload = parts[1]
    try:
        raw = base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4))
        claims = json.loads(raw)
    except (ValueError, RecursionError):
        return {}
    return claims if isinstance(claims, dict) else {}


def token_expiry(token: str, *, now: float | None = None) -> int:
    """Return when the token is kept as expiring: its ``exp`` less 5 min, else now + 1 h."""
    exp = token_claims(token).get("exp")
    # JSON parsers accept NaN and Infinity; neither is a moment a token can expire at.
    if isinstance(exp, int | float) and not isinstance(exp, bool) and math.isfinite(exp):
        return int(exp) - EXPIRY_MARGIN_SECONDS
    return int(time.time() if now is None else now) + FALLBACK_TOKEN_LIFETIME_SECONDS


def token_user_id(token: str) -> str | None:
    """Return the Cursor user id the token names: its ``sub`` after ``provider|``, or None."""
    sub = token_claims(token).get("sub")
    if not isinstance(sub, str):
        return None
    user = sub.split("|", 1)[1] if "|" in sub else sub
    return user.strip() or None


def account_key(token: str) -> str:
    """Return the digest standing for TOKEN's account: of its user id, else of the token.

    What the cell files per account (rosters, catalogs, a conversation's wire id)
    is kept under it: every token of one user (renewed, or an API key's session
    token) shares it, and no token is kept.
    """
    import hashlib  # here: only a round asks, and loading the store stays cheap

    user = token_user_id(token)
    seed = f"user:{user}" if user is not None else f"token:{token}"
    return hashlib.sha256(seed.encode("utf-8", "surrogatepass")).hexdigest()


class AuthStore:
    """auth.json under the host's home: the kept sign-in and the /connect key for Cursor."""

    def __init__(self, home: Path | str) -> None:
        self.path = Path(home) / AUTH_FILE
        self.lock_path = self.path.with_name(AUTH_FILE + ".lock")
        self._lock: FileLock | None = None

    # --- locking -------------------------------------------------------------------

    @contextlib.contextmanager
    def locked(self) -> Iterator[None]:
        """Hold the file lock (re-entrant in one thread; excludes other threads and processes)."""
        self._ensure_dir()
        if self.lock_path.is_symlink():
            raise StoreError(
                f"{self.lock_path} is a symbolic link; remove it (the lock is a plain file "
                "the cell makes itself), nothing will be written until then"
            )
        if self._lock is None:
            # Deferred: CursorCell.start loads this module and must stay cheap (filelock).
            from filelock import FileLock

            self._lock = FileLock(str(self.lock_path), mode=FILE_MODE)
        try:
            self._lock.acquire()
        except OSError as exc:
            raise StoreError(
                f"{self.lock_path} cannot be locked ({exc.strerror or 'the system refused'})"
            ) from None
        try:
            yield
        finally:
            self._lock.release()

    def _ensure_dir(self) -> None:
        """Create the home folder (mode 0700) when it is missing."""
        folder = self.path.parent
        if not folder.exists():
            folder.mkdir(mode=DIR_MODE, parents=True, exist_ok=True)
            # mkdir's mode is filtered by the umask; the folder holds secrets.
            os.chmod(folder, DIR_MODE)

    # --- reading -------------------------------------------------------------------

    def check_home(self) -> None:
        """Return quietly when the home folder and its config.json are the person's alone.

        StoreError, with the fix, when another user owns either or may write to it:
        they could point the cell's URLs elsewhere and collect the tokens sent there.
        """
        folder = self.path.parent
        for where in (folder, folder / CONFIG_FILE):
            try:
                info = os.stat(where)
            except FileNotFoundError:
                continue
            except OSError as exc:
                raise StoreError(
                    f"{where} cannot be checked ({exc.strerror or 'the system refused'})"
                ) from None
            if hasattr(os, "geteuid") and info.st_uid != os.geteuid():
                raise StoreError(
                    f"{where} belongs to another user; the cell uses a home only its own user "
                    f"owns (fix: chown $USER {where}, or set NODECODE_HOME to a folder of yours)",
                    code=UNSAFE_HOME,
                )
            if info.st_mode & _OTHERS_WRITE:
                raise StoreError(
                    f"{where} is writable by other users, who could redirect the sign-in "
                    f"(fix: chmod go-w {where})",
                    code=UNSAFE_HOME,
                )

    def read(self) -> dict[str, Any]:
        """Return auth.json as a dict ({} when absent); raise StoreError when it is corrupt."""
        self.check_home()
        try:
            text = self._read_text()
        except FileNotFoundError:
            return {}
        except IsADirectoryError:
            raise self._corrupt("is a directory, not a file") from None
        except UnicodeDecodeError:
            raise self._corrupt("is not text (it holds bytes that are not UTF-8)") from None
        except OSError as exc:
            raise StoreError(
                f"{self.path} cannot be read ({exc.strerror or 'the system refused'})"
            ) from None
        if not text.strip():
            return {}
        try:
            data = json.loads(text)
        except RecursionError:
            raise self._corrupt("nests deeper than any auth file should") from None
        except json.JSONDecodeError as exc:
            raise self._corrupt(
                f"is not valid JSON (line {exc.lineno}, column {exc.colno})"
            ) from None
        except ValueError:  # a number past Python's digit limit
            raise self._corrupt("holds a number too long to read") from None
        if not isinstance(data, dict):
            raise self._corrupt(f"must hold a JSON object, not {json_kind(data)}")
        self._check_shapes(data)
        return data

    def _read_text(self) -> str:
        """Return auth.json's text; StoreError when it is no regular file or too large.

        Opened without blocking and checked on what was opened: a FIFO in its place
        would otherwise hang every read, and a device or a huge file stall it.
        """
        fd = os.open(self.path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0))
        if stat.S_ISDIR(os.fstat(fd).st_mode):
            os.close(fd)  # fdopen refuses a folder and would leave the descriptor open
            raise self._corrupt("is a directory, not a file")
        with os.fdopen(fd, "rb") as handle:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode):
                raise self._corrupt("is not a regular file (a FIFO, a device or a socket)")
            if info.st_size > MAX_AUTH_FILE_BYTES:
                raise self._corrupt(
                    f"is larger than {MAX_AUTH_FILE_BYTES} bytes, more than any auth file holds"
                )
            os.set_blocking(fd, True)
            data = handle.read(MAX_AUTH_FILE_BYTES + 1)
        if len(data) > MAX_AUTH_FILE_BYTES:
            raise self._corrupt(f"is larger than {MAX_AUTH_FILE_BYTES} bytes")
        return data.decode("utf-8")

    def _check_shapes(self, data: dict[str, Any]) -> None:
        """Raise StoreError when a part this cell reads or writes has the wrong shape."""
        tokens = data.get("oauth_tokens")
        if tokens is not None:
            self._expect(isinstance(tokens, dict), "oauth_tokens", "an object", tokens)
            entry = tokens.get(PROVIDER)
            if entry is not None:
                self.check_entry(f"oauth_tokens.{PROVIDER}", entry)
            others = tokens.get(ACCOUNTS_KEY)
            if others is not None:
                where = f"oauth_tokens.{ACCOUNTS_KEY}"
                self._expect(isinstance(others, dict), where, "an object", others)
                for name, kept in others.items():
                    self.check_entry(f"{where}[{json.dumps(name)}]", kept)
        keys = data.get("api_keys")
        if keys is not None:
            self._expect(isinstance(keys, dict), "api_keys", "an object", keys)
            saved = keys.get(PROVIDER)
            if saved is not None:
                where = f"api_keys.{PROVIDER}"
                self._expect(isinstance(saved, dict), where, "an object", saved)
                key = saved.get("key")
                self._expect(key is None or isinstance(key, str), f"{where}.key", "a string", key)

    def check_entry(self, where: str, entry: object) -> None:
        """Raise StoreError when ENTRY (a kept sign-in at WHERE) is not {tokens, expiry, email?}."""
        self._expect(isinstance(entry, dict), where, "an object", entry)
        assert isinstance(entry, dict)
        for name in ("access_token", "refresh_token"):
            value = entry.get(name, _MISSING)
            self._expect(
                isinstance(value, str) and bool(value), f"{where}.{name}", "a string", value
            )
        expires = entry.get("expires_at", _MISSING)
        self._expect(
            isinstance(expires, int | float)
            and not isinstance(expires, bool)
            and math.isfinite(expires),
            f"{where}.expires_at",
            "a number",
            expires,
        )
        email = entry.get("email")
        self._expect(email is None or isinstance(email, str), f"{where}.email", "a string", email)

    def _expect(self, ok: bool, where: str, wanted: str, value: object) -> None:
        """Return quietly when ``ok``; else raise StoreError naming the path and the field."""
        if ok:
            return
        if value is _MISSING:
            raise self._corrupt(f"has no {where} (it must be {wanted})", colon=True)
        # Name the kind of value, never the value itself: it may be a secret.
        raise self._corrupt(f"{where} must be {wanted}, not {json_kind(value)}", colon=True)

    def _corrupt(self, fault: str, *, colon: bool = False) -> StoreError:
        """Return the StoreError for an auth.json whose content is at fault (code "corrupt").

        It names the file, the FAULT and the way out: the file is never overwritten,
        and ``move_aside`` (the ``logout --move-aside`` verb) keeps it and goes on.
        """
        return StoreError(
            f"{self.path}{':' if colon else ''} {fault}; nothing will be written until it is "
            f"fixed or moved aside ({MOVE_ASIDE_HINT} keeps it as {AUTH_FILE}.corrupt-<time>)",
            code=CORRUPT,
            hint=MOVE_ASIDE_HINT,
        )

    def move_aside(self, now: float | None = None) -> Path:
        """Return where the corrupt auth.json now is: renamed to auth.json.corrupt-<time>.

        Under the lock, and only while it still reads as corrupt (StoreError with code
        "corrupt"): another process may have fixed it. Kept with mode 0600 (0700 for a
        folder), for it may hold tokens. StoreError for any other fault, nothing moved.
        """
        with self.locked():
            try:
                self.read()
            except StoreError as exc:
                if exc.code != CORRUPT:
                    raise
            else:
                raise StoreError(f"{self.path} reads well now; nothing was moved")
            stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime(now))
            target = self.path.with_name(f"{AUTH_FILE}.corrupt-{stamp}")
            serial = 1
            while target.exists() or target.is_symlink():
                serial += 1
                target = self.path.with_name(f"{AUTH_FILE}.corrupt-{stamp}-{serial}")
            try:
                is_dir = self.path.is_dir() and not self.path.is_symlink()
                os.rename(self.path, target)
                _writes[0] += 1
                if not target.is_symlink():
                    os.chmod(target, DIR_MODE if is_dir else FILE_MODE)
            except OSError as exc:
                raise StoreError(
                    f"{self.path} cannot be moved aside ({exc.strerror or 'the system refused'})"
                ) from None
            return target

    def entry(self) -> TokenEntry | None:
        """Return the kept sign-in, or None."""
        raw = (self.read().get("oauth_tokens") or {}).get(PROVIDER)
        if raw is None:
            return None
        return TokenEntry.from_json(raw)

    def api_key(self) -> str | None:
        """Return the key a host's /connect saved for Cursor (``api_keys.cursor.key``), or None."""
        saved = (self.read().get("api_keys") or {}).get(PROVIDER) or {}
        key = saved.get("key")
        if not isinstance(key, str):
            return None
        remember_secret(key.strip())
        return key.strip() or None

    # --- writing -------------------------------------------------------------------

    def update(self, change: Callable[[dict[str, Any]], bool]) -> None:
        """Read, let ``change`` edit the dict in place, and write it back when it says so.

        Held under the lock throughout; a corrupt file raises before anything is written.
        """
        with self.locked():
            data = self.read()
            self._remove_leftovers()
            if change(data):
                self._write(data)

    def save_entry(self, entry: TokenEntry | None) -> None:
        """Keep ``entry`` as the sign-in (None forgets it); every other field stays."""

        def change(data: dict[str, Any]) -> bool:
            """Return whether ``data`` changed after setting or removing the entry."""
            tokens = data.get("oauth_tokens")
            if entry is None:
                if not isinstance(tokens, dict) or PROVIDER not in tokens:
                    return False  # nothing to forget: leave the file (or its absence) alone
                del tokens[PROVIDER]
                return True
            if tokens is None:
                tokens = data["oauth_tokens"] = {}
            tokens[PROVIDER] = entry.as_json()
            return True

        self.update(change)

    def _remove_leftovers(self) -> None:
        """Remove temp files a killed write left beside auth.json (the caller holds the lock)."""
        for leftover in self.path.parent.glob(".auth.json.*.tmp"):
            with contextlib.suppress(OSError):
                leftover.unlink()

    def _write(self, data: dict[str, Any]) -> None:
        """Write ``data`` atomically with mode 0600 (the caller holds the lock)."""
        self._ensure_dir()
        try:
            payload = _encoded(data)
        except (TypeError, ValueError) as exc:  # a value JSON cannot hold; nothing written yet
            raise StoreError(f"{self.path} cannot be written ({_why(exc)})") from None
        try:
            fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=".auth.json.", suffix=".tmp")
        except OSError as exc:  # a folder it cannot write in: nothing was written
            raise StoreError(f"{self.path} cannot be written ({_why(exc)})") from None
        try:
            os.fchmod(fd, FILE_MODE)
            with os.fdopen(fd, "wb") as handle:
                handle.write(payload)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(tmp, self.path)
            _writes[0] += 1
        except BaseException as exc:
            # Whatever stopped the write, the temp file goes and auth.json stays as it was.
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            if not isinstance(exc, Exception):
                raise
            raise StoreError(f"{self.path} cannot be written ({_why(exc)})") from None


def _why(exc: BaseException) -> str:
    """Return what stopped a write, in words (never an exception class)."""
    if isinstance(exc, OSError):
        return exc.strerror or "the system refused"
    return "a value JSON cannot hold"


def _encoded(data: dict[str, Any]) -> bytes:
    """Return ``data`` as auth.json's UTF-8 bytes, every string as it was read.

    Text is kept readable (``ensure_ascii=False``) unless some field holds what
    UTF-8 cannot encode (a lone surrogate, which JSON's ``\\ud800`` escape can carry):
    then every string is escaped, so that field reads back unchanged too.
    """
    try:
        return (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode("utf-8")
    except UnicodeEncodeError:
        return (json.dumps(data, indent=2, ensure_ascii=True) + "\n").encode("ascii")
