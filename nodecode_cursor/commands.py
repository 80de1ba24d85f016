"""The ``/cursor`` command: ``login``, ``status``, ``usage``, ``accounts``, ``use`` and ``logout``.

Each verb answers at once. ``login`` starts the browser sign-in
(``signin.py``), opens the page in the person's browser when there is a
display (``login --no-browser`` does not) and returns the page to open;
``login --add`` keeps the account signed in until now beside the new one
(``accounts.py``); ``login --api-key`` keeps an API key as an account instead
(``key_account.py``; the key from ``CURSOR_API_KEY`` or /connect's, never the
line typed); ``accounts`` lists the kept accounts with their plan and
usage (the cell's ``accounts_text``), ``use EMAIL`` makes one active, and
``logout EMAIL`` forgets one (``logout`` alone, the active one, saying which
becomes active);
``status`` adds how several kept accounts stand (``standing_lines.py``);
``usage`` shows the account's plan usage (the cell's ``usage_text``, from
Cursor's dashboard: a few lines, or one saying why not); ``status`` says where the
credential comes from without refreshing or touching the network; ``logout``
forgets the kept sign-in (every other field of auth.json stays) and clears the
cell's notices. The cell (``cell.py``) registers this command with its host.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from . import limits
from .account import accounts
from .account.browser import open_page
from .account.credentials import ENV_ACCESS_TOKEN, ENV_API_KEY, env_credential
from .account.key_exchange import exchange_state, is_api_key
from .account.signin import NOTICE_KEY, PollPacing, SignIn, account_notice_key, session_ended
from .account.store import CORRUPT, PROVIDER, AuthStore
from .errors import NOT_SIGNED_IN, ConfigError, CursorError, StoreError, UnknownAccount
from .limits import DEFAULT_BASE_URL, DEFAULT_WEB_URL

if TYPE_CHECKING:
    from collections.abc import Callable, Collection

    from .account.key_account import KeyAdded
    from .host import Host
    from .state import CellState

__all__ = ["USAGE", "VERBS", "CursorCommand"]

VERBS = ("accounts", "login", "logout", "status", "usage", "use")
USAGE = (
    "usage: /cursor login [--add] [--no-browser] [--api-key] [--move-aside] | status | usage | "
    "accounts | "
    "use EMAIL | logout [EMAIL] [--move-aside]"
)


class CursorCommand:
    """``/cursor login | status | logout`` for one host."""

    name = "cursor"
    description = "Sign in to Cursor, or out"
    argument_hint = "login | status | usage | logout"

    def __init__(
        self,
        host: Host,
        base_url: str = DEFAULT_BASE_URL,
        web_url: str = DEFAULT_WEB_URL,
        pacing: PollPacing | None = None,
        *,
        proxy: str | None = None,
        ended: Collection[str] = frozenset(),
        on_logout: Callable[[], None] | None = None,
        usage: Callable[[], str] | None = None,
        accounts: Callable[[], str] | None = None,
        agent_status: Callable[[], str | None] | None = None,
        state: CellState | None = None,
    ) -> None:
        self.host = host
        # The cell's state: failover and its threshold (cursor.failover, .account_threshold).
        self.state = state
        # What the cell forgets of the account when it signs out (its kept rosters
        # and catalogs: the next account must not route on this one's).
        self.on_logout = on_logout
        # Digests of the refresh tokens Cursor ended (the cell's CellState.ended_sessions).
        self.ended = ended
        # The cell's dashboard question (``cell.usage_text``); None: not offered.
        self.usage = usage
        # The cell's list of kept accounts with their usage (``cell.accounts_text``).
        self.accounts = accounts
        # What the cell says of its cursor-agent lane (None: nothing, e.g. not installed).
        self.agent_status = agent_status
        self.store = AuthStore(host.home)
        self.base_url = base_url
        # PROXY is the cursor.proxy setting: the sign-in goes the way the cell's rounds go.
        self.signin = SignIn(host, self.store, base_url, web_url, pacing, proxy=proxy)

    def run(self, argline: str = "") -> str:
        """Return the one line answering ``/cursor <argline>`` (an empty line asks for status)."""
        words = argline.split()
        verb = words[0].lower() if words else "status"
        if verb in ("login", "logout") and "--move-aside" in words[1:]:
            said, moved = self.move_aside()
            if said is not None:
                if not moved:
                    return said  # it could not be moved: the verb would only fail on it
                rest = " ".join(word for word in words if word != "--move-aside")
                return f"{said}\n{self.run(rest)}"
        named = [word for word in words[1:] if not word.startswith("--")]
        if verb == "login" and "--api-key" in words[1:]:
            return self.login_key(None, add="--add" in words[1:])
        if verb == "login":
            return self.login(browser="--no-browser" not in words[1:], add="--add" in words[1:])
        if verb == "logout" and len(named) <= 1:
            return self.logout(named[0] if named else None)
        if verb == "status":
            return self.status()
        if verb == "usage" and self.usage is not None:
            return self.usage()
        if verb == "accounts" and self.accounts is not None:
            return self.accounts()
        if verb == "use" and len(named) == 1:
            return self.use(named[0])
        return USAGE

    def complete(self, prefix: str = "") -> list[str]:
        """Return the verbs that start with ``prefix``."""
        start = prefix.strip().lower()
        return [verb for verb in VERBS if verb.startswith(start)]

    def login(self, *, browser: bool = True, add: bool = False) -> str:
        """Start a sign-in (cancelling one in progress); return the page to open.

        ADD keeps the account active until now beside the new one (a sign-in to
        another account); without it the new sign-in replaces it, as it always did.

        With BROWSER the page is also opened in the person's browser when there is a
        display (``browser.open_page``); the page is in the line either way. A corrupt
        auth.json is reported at once: the sign-in could not be kept anyway.
        """
        try:
            self.store.read()
        except StoreError as exc:
            return f"{PROVIDER}: {exc.detail}"
        line = self.signin.start(add=add)
        page = self.signin.page
        if browser and page is not None:
            self.signin.browser_opened = open_page(page)
            if self.signin.browser_opened:
                line += " (opened in your browser)"
        return line

    def login_key(self, key: str | None, *, add: bool) -> str:
        """Keep the API key KEY as an account (``keep_key``); return the line saying so.

        KEY None takes the key from ``CURSOR_API_KEY``, else the one a host's /connect
        saved: a key is never typed on the command's line. A refused key keeps nothing.
        """
        try:
            added = self.keep_key(key, add=add)
        except CursorError as exc:
            return f"{PROVIDER}: {exc.detail}"
        line = f"{PROVIDER}: kept the API key of {added.name} as an account, now active"
        if added.replaced_sign_in:
            line += ", in place of its browser sign-in"
        if added.aside is not None:
            line += f"; {added.aside} is kept: /cursor use {added.aside} switches back"
        return line

    def keep_key(self, key: str | None, *, add: bool) -> KeyAdded:
        """Return the API key KEY kept as the active account; CursorError keeps nothing.

        KEY None: ``CURSOR_API_KEY``, else the key a host's /connect saved. ADD keeps
        the account active until now beside it (``key_account.add_key_account``).
        Blocking: one exchange and one profile read.
        """
        from .account.key_account import add_key_account

        source = "the key given"
        if key is None:
            key = os.environ.get(ENV_API_KEY, "").strip() or None
            source = ENV_API_KEY
        if key is None:
            key = self.store.api_key()
            source = "the key saved by /connect"
        if not key:
            raise ConfigError(
                f"no API key to keep: set {ENV_API_KEY} (or save one with /connect) and "
                "run /cursor login --add --api-key again; nothing was kept",
                code="no_api_key",
            )
        added = add_key_account(
            self.store,
            key,
            add=add,
            base_url=self.base_url,
            web_url=self.signin.web_url,
            proxy=self.signin.proxy,
            source=source,
        )
        self.host.notice(None, key=NOTICE_KEY)  # the notice was the account active until now
        return added

    def move_aside(self) -> tuple[str | None, bool]:
        """Return (the line to say or None, whether a corrupt auth.json was moved aside).

        The way out of a file the cell will not overwrite (``AuthStore.move_aside``):
        it is kept beside, renamed, so nothing in it is lost; a file that reads well
        is left alone (None), and any other fault is the verb's own to report.
        """
        try:
            self.store.read()
            return None, False
        except StoreError as exc:
            if exc.code != CORRUPT:
                return None, False
        try:
            kept = self.store.move_aside()
        except StoreError as exc:
            return f"{PROVIDER}: {exc.detail}", False
        name = self.store.path.name
        return f"{PROVIDER}: moved the unreadable {name} aside to {kept} (kept, mode 0600)", True

    def status(self) -> str:
        """Return where the credential comes from, in a line; never refreshes, never dials.

        The cell adds whether ``cursor-agent`` is on the PATH, and its version.
        """
        line = self._sign_in_status()
        agent = self.agent_status() if self.agent_status is not None else None
        line = f"{line}; {agent}" if agent else line
        several = self._accounts_status()
        return f"{line}\n{PROVIDER}: {several}" if several else line

    def _accounts_status(self) -> str | None:
        """Return how several kept accounts stand (``standing_lines``); None for one or none."""
        try:
            kept = accounts.listed(self.store)
        except StoreError:
            return None  # the first line said why already
        if len(kept) < 2:
            return None
        # Here: a status with one account loads neither the account table nor sqlite3.
        from .account.key_account import is_key_account
        from .account.standing_lines import accounts_status, refused_lately

        names = [account.name for account in kept]
        return accounts_status(
            names,
            next((account.name for account in kept if account.active), None),
            [account.name for account in kept if is_key_account(account.entry)],
            refused_lately(self.host.home, names),
            failover=self.state.failover if self.state is not None else True,
            threshold=(
                self.state.account_threshold
                if self.state is not None
                else limits.ACCOUNT_THRESHOLD_PERCENT
            ),
        )

    def _sign_in_status(self) -> str:
        """Return the sign-in's half of the status line."""
        try:
            entry = self.store.entry()
            key = self.store.api_key()
            kept = accounts.listed(self.store)
        except StoreError as exc:
            return f"{PROVIDER}: {exc.detail}"
        pending = self.signin.in_progress
        if entry is not None:
            line = (
                f"{PROVIDER}: signed in as {entry.email}"
                if entry.email
                else f"{PROVIDER}: signed in"
            )
            if is_api_key(entry.access_token):
                line += " with an API key (kept as an account)"
            if session_ended(entry, self.ended):
                line += ", but Cursor ended this session: run /cursor login"
            if is_api_key(key):
                line += f"; the API key saved by /connect is used first, {self._exchange(key)}"
            elif key:
                line += "; a key saved by /connect is used first"
            line += self._others(len(kept) - 1)
            return line + ("; a sign-in is in progress" if pending else "")
        if pending:
            return f"{PROVIDER}: a sign-in is in progress"
        if kept:
            return (
                f"{PROVIDER}: no account is active; {len(kept)} kept: /cursor use EMAIL "
                "makes one active (/cursor accounts lists them)"
            )
        if is_api_key(key):
            return (
                f"{PROVIDER}: not signed in; the API key saved by /connect is used, "
                f"{self._exchange(key)}"
            )
        if key:
            return f"{PROVIDER}: not signed in; a key saved by /connect is used"
        try:
            from_env = env_credential() is not None
        except ConfigError as exc:  # a token no request could carry
            return f"{PROVIDER}: {exc.detail}"
        if from_env:
            # Name the variable: a person who wants it gone must know which one to unset.
            name = next(n for n in (ENV_ACCESS_TOKEN, ENV_API_KEY) if os.environ.get(n, "").strip())
            value = os.environ[name].strip()
            if is_api_key(value):
                return (
                    f"{PROVIDER}: not signed in; an API key from the environment ({name}) "
                    f"is used, {self._exchange(value)}"
                )
            return f"{PROVIDER}: not signed in; a token from the environment ({name}) is used"
        return f"{PROVIDER}: {NOT_SIGNED_IN}"

    @staticmethod
    def _others(count: int) -> str:
        """Return what the status line adds of COUNT accounts kept beside the active one."""
        if count <= 0:
            return ""
        which = "1 other account is" if count == 1 else f"{count} other accounts are"
        return f"; {which} kept (/cursor accounts lists them)"

    def _exchange(self, key: str) -> str:
        """Return how KEY's exchange for a session token stands (this process's, never dialled)."""
        return exchange_state(key, self.base_url)

    def logout(self, name: str | None = None) -> str:
        """Forget the account NAME (None: the active one, after cancelling a sign-in in progress).

        The line says what was done and which account is active now: a second logout
        must not claim to sign out again. Every other field of auth.json stays.
        """
        cancelled = self.signin.cancel() if name is None else False
        try:
            # Checked and removed under the store's lock: another process may sign in or out.
            forgot, active = accounts.forget(self.store, name)
        except UnknownAccount as exc:
            return f"{PROVIDER}: {exc.detail}"
        except StoreError as exc:
            return f"{PROVIDER}: {exc.detail}; the kept tokens are still on disk"
        if forgot is not None:
            self.host.notice(None, key=account_notice_key(forgot))
        if name is None or active is None:
            self.host.notice(None, key=NOTICE_KEY)
        if self.on_logout is not None:
            self.on_logout()
        if forgot is None:
            if cancelled:
                return f"{PROVIDER}: sign-in cancelled; nothing was kept"
            return f"{PROVIDER}: not signed in; nothing to forget"
        if name is None:
            if active is None:
                return f"{PROVIDER}: signed out"
            return f"{PROVIDER}: signed out of {forgot}; {active} is active now"
        now = f"{active} is active" if active is not None else "no account is active"
        return f"{PROVIDER}: forgot the account {forgot}; {now}"

    def use(self, name: str) -> str:
        """Make the kept account NAME the active one; return the line saying so."""
        try:
            chosen = accounts.use(self.store, name)
        except UnknownAccount as exc:
            return f"{PROVIDER}: {exc.detail}"
        except StoreError as exc:
            return f"{PROVIDER}: {exc.detail}"
        self.host.notice(None, key=NOTICE_KEY)  # the notice was the account active until now
        if session_ended(chosen.entry, self.ended):
            return (
                f"{PROVIDER}: {chosen.name} is active now, but Cursor ended its session: "
                "run /cursor login to sign in to it again"
            )
        return f"{PROVIDER}: {chosen.name} is active now"

    def stop(self) -> None:
        """Cancel a sign-in in progress (the cell is stopping)."""
        self.signin.cancel()
