"""The cell object a host loads: ``nodecode_cursor.cell:cell``.

It declares what the cell contributes — the ``cursor`` lane (and ``cursor-agent``,
the same models through Cursor's own CLI: ``agent_lane.py``), the catalog row,
the credential resolver, the model listing, the ``/cursor`` command — and
installs or removes them when the host starts or stops it. It reads its config
section into ``Settings`` (``cell_settings.py``); ``"cursor": {"enabled": false}``
vetoes the cell: then nothing is installed.
The work itself lives in the modules named below; this file only wires them to
the host, importing each on first use so that loading the cell stays cheap.
"""

from __future__ import annotations

import os
import time
from collections.abc import Awaitable, Callable, Iterable
from typing import TYPE_CHECKING, Any

from . import limits
from .cell_settings import AGENT_LANE, PROVIDER, Settings
from .errors import CursorError, NotSignedIn, OutdatedClient, check_cleartext

if TYPE_CHECKING:
    # The contract's types, for annotations: loading the cell does not load the contract.
    from .account.client_version import ClientVersion, InstalledVersions
    from .account.dashboard import AccountUsage
    from .account.overview import AccountRow
    from .commands import CursorCommand
    from .host import DoctorCheck, Host, RoundContext, RoundResult, Route, SignInState
    from .models.listing import Roster
    from .state import CellState

__all__ = ["PROVIDER", "CursorCell", "cell"]

NOTICE_KEY = "cursor"

Lane = Callable[["RoundContext"], Awaitable["RoundResult"]]


class CursorCell:
    """The nodecode-cursor cell: what it gives a host, and its start/stop."""

    name = "nodecode-cursor"
    provider = PROVIDER

    def __init__(self) -> None:
        self.host: Host | None = None
        self.settings = Settings()
        self._command: CursorCommand | None = None
        # What the cell keeps between rounds; made by start, closed and dropped by stop.
        self.state: CellState | None = None
        # The installed Cursor CLI's version, read on first need (client_version.py).
        self._installed: InstalledVersions | None = None

    # Life cycle -------------------------------------------------------------------------

    @property
    def started(self) -> bool:
        """Return whether the cell is installed in a host (started and not vetoed)."""
        return self.host is not None

    def start(self, host: Host) -> bool:
        """Install the cell into ``host``; return False when its config vetoes it."""
        settings = Settings.from_section(host.config(PROVIDER))
        if not settings.enabled:
            return False
        # Deferred: loading the cell stays cheap (a host loads every cell at start-up).
        from .commands import CursorCommand
        from .state import CellState

        self.host = host
        self.settings = settings
        self._installed = None
        self.state = CellState(home=host.home)
        self.state.max_reply_bytes = settings.max_reply_bytes
        self.state.failover = settings.failover
        self.state.account_threshold = settings.account_threshold
        self._command = CursorCommand(
            host,
            base_url=settings.base_url,
            web_url=settings.web_url,
            proxy=settings.proxy,
            ended=self.state.ended_sessions,
            on_logout=self.state.forget_accounts,
            usage=self.usage_text,
            accounts=self.accounts_text,
            agent_status=self._agent_status,
            state=self.state,
        )
        return True

    def stop(self) -> None:
        """Take the cell out of its host: end a sign-in, forget conversations, clear notices."""
        if self._command is not None:
            self._command.stop()
        if self.state is not None:
            self.state.close()  # a roster fetch still in flight keeps nothing
        self.state = None
        if self.host is not None:
            self.host.notice(None, key=NOTICE_KEY)
        self.host = None
        self._command = None
        self._installed = None

    # What the host reads ----------------------------------------------------------------

    @property
    def lanes(self) -> dict[str, Lane]:
        """Return the provider lanes the cell installs (none when not started)."""
        return {PROVIDER: self.stream_round, AGENT_LANE: self.agent_round} if self.started else {}

    @property
    def commands(self) -> dict[str, CursorCommand]:
        """Return the slash commands the cell installs, by name (none when not started)."""
        return {"cursor": self._command} if self._command is not None else {}

    def catalog(self) -> dict[str, Any]:
        """Return the catalog row: the provider and every bundled model."""
        # Deferred: loading the cell stays cheap (the catalog parses its rows)
        from .models.catalog import catalog_row

        return catalog_row(self.settings.base_url)

    def credential(self, provider: str) -> str | None:
        """Return the token for ``provider`` (only ``cursor``); never refreshes."""
        if provider != PROVIDER or self.host is None:
            return None
        # Deferred: loading the cell stays cheap
        from .account.credentials import resolve_credential

        return resolve_credential(self.host, PROVIDER, base_url=self.settings.base_url)

    async def list_models(self, key: str | None = None) -> Roster:
        """Return the account's roster (or the bundled rows and why the live one is missing)."""
        # Deferred: loading the cell stays cheap (httpx, protobuf)
        from .models.listing import list_models, unavailable

        token = key if key is not None else self.credential(PROVIDER)
        if token:
            try:
                token = await self._bearer(token, "the key given" if key else None)
            except CursorError as exc:  # the roster's own failure: the bundled rows, and why
                return unavailable(exc)
        version = await self.client_version_soon()
        return await list_models(
            token,
            self.settings.base_url,
            state=self.state,
            client_version=version.value,
            proxy=self.settings.proxy,
        )

    async def check_key(self, key: str) -> str | None:
        """Return None when Cursor accepts ``key``, else the line saying why not."""
        # Deferred: loading the cell stays cheap (httpx, protobuf)
        from .models.listing import check_key

        try:
            key = await self._bearer(key, "the key given to /connect")
        except CursorError as exc:
            return exc.detail
        version = await self.client_version_soon()
        return await check_key(
            key,
            self.settings.base_url,
            state=self.state,
            client_version=version.value,
            proxy=self.settings.proxy,
        )

    async def _bearer(self, token: str, source: str | None) -> str:
        """Return what a call to Cursor sends for TOKEN: a ``crsr_`` key's session token.

        SOURCE names where a key came from when neither the environment nor
        /connect's saved key is it (``key_exchange.source_of``).
        """
        # Deferred: loading the cell stays cheap
        from .account import key_exchange

        return await key_exchange.bearer_async(
            token,
            base_url=self.settings.base_url,
            proxy=self.settings.proxy,
            client_version=self.settings.client_version,
            home=self.host.home if self.host is not None else None,
            source=source or key_exchange.DEFAULT_SOURCE,
        )

    def route(
        self,
        model: str,
        effort: str | None,
        *,
        roster: Iterable[str] | None = None,
        unchecked: str | None = None,
    ) -> Route:
        """Return where a round on MODEL at EFFORT goes; UnknownModel or BadEffort when not allowed.

        ROSTER is the account's model ids when the host asked for them (a model only
        the roster lists is allowed then); UNCHECKED is why it could not ask.
        """
        # Deferred: loading the cell stays cheap (routing loads the catalog)
        from .models.routing import route

        agent = self._agent_route(model, effort)
        if agent is not None:
            return agent
        return route(model, effort, roster=roster, unchecked=unchecked)

    def sign_in_state(self) -> SignInState:
        """Return how the sign-in stands (never refreshes or dials); StoreError on a bad file."""
        if self.host is None or self._command is None or self.state is None:
            from .host import SignInState

            return SignInState(signed_in=False, source=None)
        # Deferred: loading the cell stays cheap
        from .account.reports import sign_in_state

        return sign_in_state(self.host.home, self._command.signin, self.state.ended_sessions)

    async def account_usage(self) -> AccountUsage:
        """Return the account's usage from Cursor's dashboard (NotSignedIn, ProviderError if not).

        One question, never retried; the credential is the one a round would send,
        renewed first when due.
        """
        # Deferred: loading the cell stays cheap (asyncio is not loaded by then)
        import asyncio

        return await asyncio.to_thread(self.account_usage_now)

    def account_usage_now(self) -> AccountUsage:
        """Return ``account_usage``'s answer, blocking (a slash command runs outside a loop)."""
        if self.host is None or self.state is None:
            raise NotSignedIn()
        # Deferred: loading the cell stays cheap (httpx, protobuf)
        from .account.reports import usage_now

        return usage_now(
            self.host,
            self.settings,
            lambda: self.client_version().value,
            self.state.ended_sessions,
        )

    async def doctor(
        self, *, rounds: bool = True, report: Callable[[DoctorCheck], None] | None = None
    ) -> list[DoctorCheck]:
        """Return what works with Cursor today, check by check, each also handed to REPORT.

        ROUNDS runs one tiny round per transport and per model family (they cost tokens).
        """
        # Deferred: loading the cell stays cheap
        from .diagnose.doctor import diagnose

        return await diagnose(self, rounds=rounds, report=report or (lambda check: None))

    def usage_text(self) -> str:
        """Return ``/cursor usage``'s answer: the compact block (every kept account side by
        side when there are several), or one line saying why not."""
        try:
            if len(self.sign_in_state().accounts) > 1:
                from .account.overview import usage_table

                rows = self._account_rows()
                return usage_table(rows, time.time(), self.settings.account_threshold)
            return self.account_usage_now().text(time.time())
        except CursorError as exc:
            return f"{PROVIDER}: {exc.detail}"

    def accounts_usage_now(self) -> list[dict[str, object]]:
        """Return each kept account's usage as ``usage --json`` lists it (blocking)."""
        from .account.overview import row_dict

        return [row_dict(row) for row in self._account_rows()]

    def _account_rows(self) -> list[AccountRow]:
        """Return each kept account's ``overview.AccountRow``, its usage asked (blocking).

        ``reports.kept_rows`` keeps each usage read for the rounds' choice of account too.
        """
        if self.host is None or self.state is None:
            return []
        # Deferred: loading the cell stays cheap (protobuf)
        from .account.reports import kept_rows

        return kept_rows(self.host, self.settings, self.client_version().value, self.state)

    def accounts_text(self) -> str:
        """Return ``/cursor accounts``' answer: each kept account, its plan and usage (blocking)."""
        # Deferred: loading the cell stays cheap (httpx, protobuf)
        from .account.overview import rows_text

        try:
            rows = self._account_rows()
        except CursorError as exc:  # auth.json unreadable: the one line saying why
            return f"{PROVIDER}: {exc.detail}"
        return rows_text(rows)

    async def stream_round(self, ctx: RoundContext) -> RoundResult:
        """Return one round on Cursor, with the cell's settings filling what ``ctx`` leaves open."""
        # Deferred: loading the cell stays cheap (httpx, protobuf; dataclasses, loaded with
        # the contract by now)
        import dataclasses

        from .lanes import lane

        if ctx.base_url:
            check_cleartext(ctx.base_url, "the round's base_url")
        if self._takes_agent_lane(ctx.model):
            return await self.agent_round(ctx)
        version = await self.client_version_soon(ctx.client_version)
        filled = dataclasses.replace(
            ctx,
            host=ctx.host or self.host,
            base_url=ctx.base_url or self.settings.base_url,
            client_version=version.value,
            proxy=ctx.proxy or self.settings.proxy,
            transport=ctx.transport or self.settings.transport,
            history_budget=ctx.history_budget or self.settings.history_budget,
            continuation=ctx.continuation or self.settings.continuation,
            account=ctx.account or self.settings.account,
        )
        try:
            return await lane.stream_round(filled, self.state)
        except OutdatedClient as exc:
            # Only here is it known what was sent and why: the person needs both.
            raise exc.naming(version.value, version.origin()) from exc

    def client_version(self, configured: str | None = None) -> ClientVersion:
        """Return the client version calls send and where it came from (blocking once a day).

        CONFIGURED is a round's own value, before the cell's setting. The installed
        CLI is looked for only when neither the environment nor a setting names one.
        """
        # Deferred: loading the cell stays cheap
        from .account.client_version import InstalledVersions, choose

        configured = configured or self.settings.client_version
        if (configured or "").strip() == limits.DEFAULT_CLIENT_VERSION:
            # A host filling in a manifest's default names no choice of the person's.
            configured = None
        if os.environ.get(limits.CLIENT_VERSION_ENV, "").strip() or (configured or "").strip():
            return choose(configured, None)
        if self.host is None:
            return choose(None, None)
        if self._installed is None:
            self._installed = InstalledVersions(self.host.home, self.settings.agent_path)
        return choose(None, self._installed.get())

    async def client_version_soon(self, configured: str | None = None) -> ClientVersion:
        """Return ``client_version``'s answer without blocking the loop when it must look."""
        installed = self._installed
        named = (
            os.environ.get(limits.CLIENT_VERSION_ENV, "").strip()
            or (configured or self.settings.client_version or "").strip()
        )
        named = "" if named == limits.DEFAULT_CLIENT_VERSION else named  # as client_version
        if named or self.host is None or (installed is not None and installed.fresh()):
            return self.client_version(configured)  # nothing to look for on disk
        # Deferred: loading the cell stays cheap (asyncio is loaded by any caller by now)
        import asyncio

        return await asyncio.to_thread(self.client_version, configured)

    # The cursor-agent lane ------------------------------------------------------------------

    def _takes_agent_lane(self, model: str) -> bool:
        """Return whether a round on MODEL goes to cursor-agent (its prefix, or the setting)."""
        # Deferred: loading the cell stays cheap
        from .lanes.agent_cli import AGENT_PREFIX

        return model.strip().startswith(AGENT_PREFIX) or self.settings.lane == AGENT_LANE

    def _agent_route(self, model: str, effort: str | None) -> Route | None:
        """Return the route of a cursor-agent round on MODEL (None: the model is not one).

        The CLI names its own models (``auto``, ``gpt-5.4``, ``sonnet-4.5-thinking``…) and
        checks them itself, so any name goes; its effort is part of the name, so the
        round asks none (a misspelt level is still refused).
        """
        if not self._takes_agent_lane(model):
            return None
        # Deferred: loading the cell stays cheap (routing loads the catalog)
        from .host import Route
        from .lanes.agent_cli import agent_model
        from .models.catalog import find_model
        from .models.routing import checked_effort

        requested = checked_effort((effort or "").strip().lower() or None)
        name = agent_model(model)
        # The prefix stays on the model a host keeps, so each round finds this lane again.
        kept = model.strip() if model.strip().startswith(f"{AGENT_LANE}/") else name
        return Route(kept, requested, None, name, (), find_model(name) is not None)

    def _agent_status(self) -> str:
        """Return what /cursor status says of the CLI: which binary, its version, or none."""
        # Deferred: loading the cell stays cheap
        from .lanes.agent_cli import agent_status_line

        return agent_status_line(
            required=self.settings.lane == AGENT_LANE, configured=self.settings.agent_path
        )

    async def agent_round(self, ctx: RoundContext) -> RoundResult:
        """Return one round run by Cursor's own CLI, ``cursor-agent`` (see agent_lane.py)."""
        # Deferred: loading the cell stays cheap
        import dataclasses  # loaded with the contract by now; not with the cell

        from .lanes.agent_lane import stream_agent_round

        filled = dataclasses.replace(ctx, host=ctx.host or self.host)
        return await stream_agent_round(
            filled,
            isolate_home=self.settings.agent_isolate_home,
            agent_path=self.settings.agent_path,
            max_reply_bytes=self.settings.max_reply_bytes,
        )


cell = CursorCell()
