"""``doctor``: what works with Cursor today, one check at a time, and what to change when not.

The checks run in order, each ending in one verdict (ok, failed, or not
checked) and, on failure, the fix: the credential (which one, its expiry, a
refresh when due), reaching the service one layer at a time (``reach.py``: DNS,
the proxy, the connection, TLS — these need no credential) and then its HTTP
answer, the client version
(Cursor refusing an outdated client names ``CURSOR_CLIENT_VERSION``), the
account's roster (``GetUsableModels``) and the model catalog
(``AvailableModels``), then — only when asked, since they cost a few tokens —
one tiny round on each transport (RunSSE, RunPoll) and one on a model of each
family the account can use (Composer, Claude, GPT, …), with the wire slug it
used. A check that cannot run because an earlier one failed says so.

The cell object (``cell.doctor``) runs this with its own settings and state;
the lane, listing, catalog parsing and credentials are their own modules'.
"""

from __future__ import annotations

import asyncio
import datetime
import logging
import time
import uuid
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Protocol

from .. import limits
from ..account import key_exchange
from ..account.credentials import resolve_credential
from ..account.store import CORRUPT
from ..errors import (
    CLIENT_VERSION_HINT,
    MOVE_ASIDE_HINT,
    CursorError,
    NotSignedIn,
    OutdatedClient,
    ProviderError,
    StoreError,
    Unreachable,
)
from ..host import DoctorCheck, Host, RoundContext, RoundResult, Route, SignInState
from ..models.catalog import find_model
from ..models.listing import GET_USABLE_MODELS_PATH, fetch_roster
from ..models.variants import AVAILABLE_MODELS_PATH, catalog_request, parse_catalog
from ..transports.errormap import DOCTOR_HINT
from ..transports.http import http_error, rpc_headers
from ..transports.unary import unary

if TYPE_CHECKING:
    from ..account.client_version import ClientVersion
    from ..state import CellState

__all__ = ["FAMILIES", "diagnose", "family_of"]

log = logging.getLogger("nodecode_cursor.diagnose.doctor")


class _Settings(Protocol):
    """The cell settings doctor reads."""

    @property
    def base_url(self) -> str: ...

    @property
    def proxy(self) -> str | None: ...

    @property
    def client_version(self) -> str | None: ...


class DoctoredCell(Protocol):
    """What doctor needs of the cell (``cell.CursorCell`` is one), named here so this
    module does not import the cell that imports it."""

    @property
    def host(self) -> Host | None: ...

    @property
    def state(self) -> CellState | None: ...

    @property
    def settings(self) -> _Settings: ...

    def client_version(self) -> ClientVersion:
        """Return the client version calls send and where it came from."""
        ...

    def sign_in_state(self) -> SignInState:
        """Return how the sign-in stands."""
        ...

    def route(
        self, model: str, effort: str | None, *, roster: Iterable[str] | None = None
    ) -> Route:
        """Return where a round on MODEL at EFFORT goes."""
        ...

    async def stream_round(self, ctx: RoundContext) -> RoundResult:
        """Return one round on Cursor."""
        ...


# The families a round is tried on, by the model id's first word; the order is the report's.
FAMILIES = ("composer", "claude", "gpt", "gemini", "grok", "kimi")
PROMPT = "Reply with the single word: ok"
ROUND_TIMEOUT_SECONDS = 60.0
# The shell's way past a corrupt auth.json (the cell's MOVE_ASIDE_HINT is a chat's).
MOVE_ASIDE_COMMAND = "nodecode-cursor logout --move-aside"

Report = Callable[[DoctorCheck], None]


def family_of(model_id: str) -> str | None:
    """Return the family MODEL_ID belongs to (its first word), or None for another."""
    head = model_id.split("-", 1)[0].lower()
    return head if head in FAMILIES else None


def _ok(name: str, verdict: str) -> DoctorCheck:
    return DoctorCheck(name, "ok", verdict)


def _fail(name: str, verdict: str, fix: str) -> DoctorCheck:
    return DoctorCheck(name, "fail", verdict, fix)


def _skip(name: str, why: str) -> DoctorCheck:
    return DoctorCheck(name, "skip", f"not checked: {why}")


def _credential(cell: DoctoredCell) -> tuple[DoctorCheck, str | None]:
    """Return the credential's check and the token a round would send (renewed when due)."""
    name = "credential"
    try:
        state = cell.sign_in_state()
        assert cell.host is not None and cell.state is not None
        token = resolve_credential(
            cell.host,
            "cursor",
            for_round=True,
            base_url=cell.settings.base_url,
            proxy=cell.settings.proxy,
            ended=cell.state.ended_sessions,
        )
    except StoreError as exc:
        if exc.code != CORRUPT:
            return _fail(name, exc.detail, "change what the line above names, then run again"), None
        # The file is named in the verdict; the fix is the one command that gets past it.
        verdict = exc.detail.replace(MOVE_ASIDE_HINT, MOVE_ASIDE_COMMAND)
        fix = f"{MOVE_ASIDE_COMMAND} (keeps it as auth.json.corrupt-<time>), then sign in again"
        return _fail(name, verdict, fix), None
    except CursorError as exc:
        return _fail(name, exc.detail, "sign in again: nodecode-cursor login"), None
    if not token:
        fix = "sign in with nodecode-cursor login, or set CURSOR_ACCESS_TOKEN"
        return _fail(name, "no credential: not signed in", fix), None
    if key_exchange.is_api_key(token):
        return _api_key(cell, token)
    if state.source == "saved key":
        return _ok(name, "a key saved by /connect"), token
    if state.source == "environment":
        return _ok(name, f"a token from the environment ({state.env_name})"), token
    renewed = cell.sign_in_state()
    who = f" as {renewed.email}" if renewed.email else ""
    expiry = ""
    if renewed.expires_at is not None:
        when = datetime.datetime.fromtimestamp(renewed.expires_at).strftime("%Y-%m-%d %H:%M")
        expiry = f", renewed when due (expires {when})"
    return _ok(name, f"the kept sign-in{who}{expiry}"), token


def _api_key(cell: DoctoredCell, key: str) -> tuple[DoctorCheck, str | None]:
    """Return an API key's check, exchanged for a session token, and that token (None: refused)."""
    assert cell.host is not None
    settings = cell.settings
    try:
        token = key_exchange.bearer(
            key,
            base_url=settings.base_url,
            proxy=settings.proxy,
            client_version=settings.client_version,
            home=cell.host.home,
        )
    except CursorError as exc:
        fix = "check the key in Cursor's dashboard (Integrations → API keys) or run /connect again"
        if exc.retryable or isinstance(exc, Unreachable):
            fix = "try again later; the checks below say whether the service is reached"
        return _fail("credential", exc.detail, fix), None
    return _ok("credential", key_exchange.described(key, cell.host.home, settings.base_url)), token


def _client_version_refused(exc: ProviderError) -> bool:
    """Return whether EXC is Cursor refusing this client's version (by its type or code).

    Cursor's own words for it are read once, where its answer is classified
    (``wire.connect.OUTDATED_CLIENT_TEXT`` makes an ``OutdatedClient``); a
    ``failed_precondition`` refusal of the roster is taken as the same.
    """
    return isinstance(exc, OutdatedClient) or exc.code == "failed_precondition"


async def _reach_signed_out(cell: DoctoredCell, version: ClientVersion) -> DoctorCheck:
    """Return the reach check made with no credential: any HTTP answer means reached."""
    settings = cell.settings
    headers = rpc_headers("", version.value, str(uuid.uuid4()))
    del headers["authorization"]
    url = settings.base_url.rstrip("/") + GET_USABLE_MODELS_PATH
    try:
        answer = await unary(
            url,
            headers=headers,
            timeout=limits.ROSTER_TIMEOUT_SECONDS,
            proxy=settings.proxy,
            max_bytes=0,
        )
    except Unreachable as exc:
        fix = (
            "the checks above passed, so the request failed further on: check that "
            "--base-url names Cursor's service and that the proxy (the cursor.proxy "
            "setting, HTTPS_PROXY) lets the request through"
        )
        return _fail("reaching the service", exc.detail.removesuffix(DOCTOR_HINT), fix)
    return _ok(
        "reaching the service",
        f"{settings.base_url} answered (HTTP {answer.status} without a credential)",
    )


async def _reach_and_roster(
    cell: DoctoredCell, token: str, sent: ClientVersion
) -> tuple[list[DoctorCheck], list[str]]:
    """Return the reach, client-version and roster checks, and the roster's model ids."""
    settings = cell.settings
    # The version in use and where it came from: a refusal then says what to change.
    version = f"{sent.value} ({sent.origin()})"
    reached = _ok("reaching the service", f"{settings.base_url} answered")
    try:
        models = await fetch_roster(
            token,
            settings.base_url,
            state=cell.state,
            client_version=sent.value,
            proxy=settings.proxy,
        )
    except ProviderError as exc:
        if isinstance(exc, Unreachable):
            # DNS, the proxy, the connection and TLS passed (reach.py) before this.
            fix = (
                "the checks above passed, so the request failed further on: check that "
                "--base-url names Cursor's service and that the proxy (the cursor.proxy "
                "setting, HTTPS_PROXY) lets the request through"
            )
            return [
                _fail("reaching the service", exc.detail.removesuffix(DOCTOR_HINT), fix),
                _skip("client version", "the service was not reached"),
                _skip("roster", "the service was not reached"),
            ], []
        if _client_version_refused(exc):
            fix = CLIENT_VERSION_HINT
            return [
                reached,
                _fail("client version", f"{version} refused: {exc.detail}", fix),
                _skip("roster", "the client version was refused"),
            ], []
        if exc.status == 401:
            fix = "sign in again: nodecode-cursor login"
        else:
            fix = "try again later; if it stays, run with -v and report the line"
        return [
            reached,
            _ok("client version", f"{version} (not refused)"),
            _fail("roster", f"GetUsableModels refused: {exc.detail}", fix),
        ], []
    ids = [model.id for model in models]
    roster = (
        _ok("roster", f"{len(ids)} models for this account")
        if ids
        else _fail("roster", "the account's roster is empty", "check the plan at cursor.com")
    )
    return [reached, _ok("client version", f"{version} accepted"), roster], ids


async def _catalog(cell: DoctoredCell, token: str, version: ClientVersion) -> DoctorCheck:
    """Return the catalog's check: AvailableModels asked once, its variants parsed."""
    name = "catalog"
    settings = cell.settings
    url = settings.base_url.rstrip("/") + AVAILABLE_MODELS_PATH
    headers = rpc_headers(token, version.value, str(uuid.uuid4()))
    headers["content-type"] = "application/proto"
    try:
        answer = await unary(
            url,
            headers=headers,
            content=catalog_request(),
            timeout=limits.ROSTER_TIMEOUT_SECONDS,
            proxy=settings.proxy,
        )
        content = answer.content or b""
        if answer.status != 200:
            raise http_error(answer.status, content, "AvailableModels")
        catalog = parse_catalog(content)
    except CursorError as exc:
        fix = "rounds route by the bundled rows meanwhile; nothing to set unless rounds fail"
        return _fail(name, f"AvailableModels: {exc.detail}", fix)
    return _ok(name, f"{len(catalog.entries)} models, {len(catalog.routes)} variants")


def _pick(cell: DoctoredCell, ids: Iterable[str]) -> dict[str, str]:
    """Return one model per family the account can use, by family (bundled rows preferred)."""
    picked: dict[str, str] = {}
    roster = list(ids)
    for model in sorted(roster, key=lambda m: (find_model(m) is None, m)):
        family = family_of(model)
        if family is None or family in picked:
            continue
        try:
            cell.route(model, None, roster=roster)
        except CursorError:
            continue
        picked[family] = model
    return {family: picked[family] for family in FAMILIES if family in picked}


async def _round(cell: DoctoredCell, token: str, model: str, transport: str) -> str:
    """Return the wire slug a tiny round on MODEL over TRANSPORT used; the cell's error if not."""
    route = cell.route(model, None, roster=[model])
    ctx = RoundContext(
        model=route.model,
        messages=[{"role": "user", "content": PROMPT}],
        effort=route.effort,
        session_id=None,
        credential=token,
        request_timeout=ROUND_TIMEOUT_SECONDS,
        transport=transport,
    )
    result = await cell.stream_round(ctx)
    return result.wire_model or route.wire_model


def _round_fix(exc: CursorError) -> str:
    """Return what to change when a round failed as EXC says."""
    if isinstance(exc, NotSignedIn) or exc.status == 401:
        return "sign in again: nodecode-cursor login"
    if isinstance(exc, OutdatedClient) or exc.code == "failed_precondition":
        return "set CURSOR_CLIENT_VERSION to a current Cursor CLI build"
    return "the model's wire shape may have changed: pick another model meanwhile, and report it"


async def diagnose(cell: DoctoredCell, *, rounds: bool, report: Report) -> list[DoctorCheck]:
    """Return every check's verdict, in order, each also handed to REPORT as it is known."""
    checks: list[DoctorCheck] = []

    def add(check: DoctorCheck) -> None:
        checks.append(check)
        report(check)

    from .reach import check_network

    credential, token = await asyncio.to_thread(_credential, cell)
    add(credential)
    # May read the installed CLI's version (once a day): off the loop.
    version = await asyncio.to_thread(cell.client_version)
    # The layers below HTTP need no credential: a person signed out still learns them.
    network = await check_network(cell.settings.base_url, cell.settings.proxy)
    for check in network:
        add(check)
    broken = next((c.name for c in network if c.status == "fail"), None)
    later = ("reaching the service", "client version", "roster", "catalog", "transports", "rounds")
    if broken is not None:
        for name in later:
            add(_skip(name, f"the {broken} check failed"))
        return checks
    if token is None:
        # The service's HTTP answer needs no credential either: only what follows does.
        reach = await _reach_signed_out(cell, version)
        add(reach)
        why = "no credential" if reach.status == "ok" else "the service was not reached"
        for name in later[1:]:
            add(_skip(name, why))
        return checks
    found, ids = await _reach_and_roster(cell, token, version)
    for check in found:
        add(check)
    reached = any(c.name == "reaching the service" and c.status == "ok" for c in found)
    if not reached:
        for name in ("catalog", "transports", "rounds"):
            add(_skip(name, "the service was not reached"))
        return checks
    add(await _catalog(cell, token, version))
    if not rounds:
        add(_skip("transports", "they need a round (--no-rounds)"))
        add(_skip("rounds", "--no-rounds"))
        return checks
    families = _pick(cell, ids)
    probe = families.get("composer") or next(iter(families.values()), None)
    if probe is None:
        add(_skip("transports", "no model of a known family on the roster"))
        return checks
    for transport, path in (("http2", "HTTP/2 Run"), ("sse", "RunSSE"), ("poll", "RunPoll")):
        name = f"transport {transport}"
        started = time.monotonic()
        try:
            await _round(cell, token, probe, transport)
        except CursorError as exc:
            add(_fail(name, f"{path} on {probe}: {exc.detail}", _transport_fix(transport)))
        else:
            add(_ok(name, f"{path} on {probe} ({time.monotonic() - started:.1f} s)"))
    for family, model in families.items():
        name = f"round {family}"
        try:
            wire = await _round(cell, token, model, "auto")
        except CursorError as exc:
            add(_fail(name, f"{model}: {exc.detail}", _round_fix(exc)))
        else:
            add(_ok(name, f"{model} answered (wire model {wire})"))
    return checks


def _transport_fix(transport: str) -> str:
    """Return what to set when TRANSPORT failed."""
    if transport == "http2":
        return (
            '"auto" falls back to HTTP/1.1 by itself when HTTP/2 does not negotiate; to skip '
            'HTTP/2 altogether, set "transport": "sse" in the cursor section of config.json '
            "(a proxy that breaks HTTP/2 is the usual cause)"
        )
    other = "poll" if transport == "sse" else "sse"
    return (
        f'set "transport": "{other}" in the cursor section of config.json while this one is '
        'refused ("auto" moves to RunPoll by itself when RunSSE is not served)'
    )
