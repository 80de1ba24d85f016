"""The account's own roster of models: ``GetUsableModels``, and the key check built on it.

``fetch_roster`` asks Cursor which models this account may run (an empty
request, the client headers, short timeouts) and turns the answer into rows
for ``/models``: each model once, sorted by id, with a display name and a
context window. Given the cell's ``CellState``, it also keeps in its
``models`` (``account_models.AccountModels``), per base URL and account, each
model's max-mode marker so a round can be routed on it
(``round_marker``), and the last roster, so a round on a
model only the roster names costs one roster call per start of the cell and
account, however many rounds ask at once (``round_roster``). The cell's stop
closes that state, and a fetch still in flight then keeps nothing when it lands.
``list_models`` never fails: when the live roster cannot be had it lists the
bundled rows and says why. ``check_key`` is the host's key check for a token
saved with ``/connect``.

The HTTP exchange is ``http.py``'s (``unary``); the bytes are ``connect.py``'s;
the bundled rows are ``catalog.py``'s; what a round makes of the roster, its
markers and the catalog is ``model_resolution.py``'s, the one caller for rounds.
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from dataclasses import dataclass
from typing import TYPE_CHECKING

from google.protobuf.message import DecodeError

from .. import limits
from .._proto import agent_pb2
from ..account.credentials import checked_token
from ..account.store import account_key
from ..errors import NOT_SIGNED_IN, CursorError, NotSignedIn, OutdatedClient, ProviderError
from ..transports.http import key_refusal, rpc_headers
from ..transports.unary import unary
from ..wire.connect import read_unary_body
from .account_models import ModelKey, RosterModel
from .catalog import bundled_models, find_model
from .variants import AVAILABLE_MODELS_PATH, catalog_request, parse_catalog

if TYPE_CHECKING:
    from ..state import CellState
    from .variants import ModelCatalog

__all__ = [
    "GET_USABLE_MODELS_PATH",
    "NOT_SIGNED_IN",
    "Roster",
    "RosterModel",
    "check_key",
    "fetch_catalog",
    "fetch_roster",
    "list_models",
    "parse_roster",
    "roster_marker",
    "round_catalog",
    "round_marker",
    "round_roster",
    "unavailable",
]

log = logging.getLogger("nodecode_cursor.models.listing")

GET_USABLE_MODELS_PATH = "/agent.v1.AgentService/GetUsableModels"
# A model the roster names without a bundled row gets this window.
DEFAULT_CONTEXT_WINDOW = 200_000
LONG_CONTEXT_WINDOW = 1_000_000


@dataclass(frozen=True, slots=True)
class Roster:
    """What ``/models`` shows: the live roster, or the bundled rows and why there is none."""

    models: tuple[RosterModel, ...]
    live: bool
    reason: str | None = None
    # The refusal's hint (``CursorError.hint``, e.g. /cursor login), so a host words it its way.
    hint: str | None = None


def _account(token: str) -> str:
    """Return the digest standing for TOKEN's account (``store.account_key``; no token kept).

    Keyed by the account rather than the token: a renewed token keeps its roster,
    and one account's roster never routes another account's rounds.
    """
    return account_key(token)


def _key(token: str, base_url: str) -> ModelKey:
    """Return the (base URL, account digest) key the kept rosters and markers are filed under."""
    return (base_url.rstrip("/"), _account(token))


def roster_marker(state: CellState, model_id: str, token: str, base_url: str) -> bool | None:
    """Return the max-mode marker TOKEN's last roster at BASE_URL gave ``model_id``, or None."""
    return state.models.marker(_key(token, base_url), model_id)


def round_marker(
    state: CellState, model_id: str, wire_id: str, token: str, base_url: str
) -> bool | None:
    """Return the round's account's roster marker: the routed slug's, else the model's, or None."""
    # The roster names Cursor's own slugs; a round routed to a sibling slug
    # asks about that slug first, then about the public id the turn named.
    return state.models.marker(_key(token, base_url), wire_id, model_id)


def parse_roster(body: bytes) -> tuple[RosterModel, ...]:
    """Return the rows of a GetUsableModels answer (bare or framed), sorted by id, each once."""
    try:
        answer = agent_pb2.GetUsableModelsResponse.FromString(read_unary_body(body))
    except (DecodeError, RecursionError):
        raise ProviderError(
            "Cursor's model roster did not parse as GetUsableModelsResponse"
        ) from None
    rows: dict[str, RosterModel] = {}
    for details in answer.models:
        model_id = details.model_id
        if not model_id or model_id in rows:
            continue
        names = [
            details.display_name,
            details.display_name_short,
            details.display_model_id,
            *details.aliases,
        ]
        name = next((n for n in names if n), model_id)
        bundled = find_model(model_id) or find_model(details.display_model_id)
        window = bundled.context_window if bundled is not None else DEFAULT_CONTEXT_WINDOW
        if any("1M" in n for n in [*names, model_id]):
            window = LONG_CONTEXT_WINDOW
        marker = details.max_mode if details.HasField("max_mode") else None
        rows[model_id] = RosterModel(model_id, name, window, marker)
    return tuple(rows[k] for k in sorted(rows))


def _keep(state: CellState, key: ModelKey, models: tuple[RosterModel, ...]) -> None:
    """Keep the roster and its max-mode markers under KEY unless STATE is closed (returns nothing).

    A closed state is a stopped cell's: a fetch that lands after the stop keeps nothing.
    """
    if not state.models.keep_roster(key, models):
        log.debug("roster landed after the cell stopped; not kept")


async def fetch_roster(
    token: str | None,
    base_url: str,
    *,
    state: CellState | None = None,
    client_version: str | None = None,
    timeout: float = limits.ROSTER_TIMEOUT_SECONDS,
    proxy: str | None = None,
) -> tuple[RosterModel, ...]:
    """Return the account's roster; raise NotSignedIn without a token, ProviderError on refusal.

    The roster and its max-mode markers are kept in STATE (None: nowhere). PROXY is
    the ``cursor.proxy`` setting (None: the proxy environment), so the roster goes
    the way rounds go. A token no header can carry, or a proxy the kit cannot use,
    is a ConfigError naming the problem, never the token or the proxy's URL.
    """
    body = await _unary(
        token,
        base_url,
        GET_USABLE_MODELS_PATH,
        b"",
        client_version=client_version,
        timeout=timeout,
        proxy=proxy,
        max_bytes=limits.ROSTER_MAX_BYTES,
        state=state,
    )
    assert token is not None  # _unary refuses a missing one
    models = parse_roster(body)
    if state is not None:
        _keep(state, _key(token, base_url), models)
    return models


async def _unary(
    token: str | None,
    base_url: str,
    path: str,
    body: bytes,
    *,
    client_version: str | None,
    timeout: float,
    proxy: str | None,
    max_bytes: int,
    state: CellState | None = None,
) -> bytes:
    """Return the body of a 200 answer to a unary ``application/proto`` call to PATH.

    An answer past MAX_BYTES is a ProviderError (``oversized_answer``), read no further.

    Raises NotSignedIn without a token, ConfigError for a token no header can carry
    or an unusable proxy, ProviderError (``HTTP <status> <code>``) for a refusal.
    """
    if not token:
        raise NotSignedIn()
    token = checked_token(token, "the key given")
    url = base_url.rstrip("/") + path
    version = limits.client_version(client_version)
    headers = rpc_headers(token, version, str(uuid.uuid4()))
    headers["content-type"] = "application/proto"
    # The state's pooled client: the call reuses the rounds' kept-alive connections.
    clients = state.http_clients if state is not None else None
    answer = await unary(
        url,
        headers=headers,
        content=body,
        timeout=timeout,
        proxy=proxy,
        clients=clients,
        max_bytes=max_bytes,
    )
    if answer.content is None:
        raise ProviderError(
            f"Cursor's answer to {path} passed {max_bytes // (1024 * 1024)} MiB; not read",
            code="oversized_answer",
        )
    if answer.status != 200:
        refused = key_refusal(answer.status, answer.content)
        if isinstance(refused, OutdatedClient):
            refused = refused.naming(version)  # the person needs to know what was sent
        raise refused
    return answer.content


async def fetch_catalog(
    token: str | None,
    base_url: str,
    *,
    state: CellState | None = None,
    client_version: str | None = None,
    timeout: float = limits.CATALOG_TIMEOUT_SECONDS,
    proxy: str | None = None,
) -> ModelCatalog:
    """Return the account's model catalog (AvailableModels); raise as ``fetch_roster`` does.

    The catalog is kept in STATE (None: nowhere) with the time it came, unless the
    state was closed meanwhile (a stopped cell keeps nothing).
    """
    body = await _unary(
        token,
        base_url,
        AVAILABLE_MODELS_PATH,
        catalog_request(),
        client_version=client_version,
        timeout=timeout,
        proxy=proxy,
        max_bytes=limits.CATALOG_MAX_BYTES,
        state=state,
    )
    assert token is not None  # _unary refuses a missing one
    catalog = parse_catalog(read_unary_body(body))
    if state is not None:
        state.models.keep_catalog(_key(token, base_url), time.monotonic(), catalog)
    return catalog


async def round_catalog(
    state: CellState,
    token: str,
    base_url: str,
    *,
    client_version: str | None = None,
    proxy: str | None = None,
    refresh: bool = False,
    wait: float = limits.CATALOG_WAIT_SECONDS,
) -> ModelCatalog | None:
    """Return the catalog a round routes by: the kept one while young, else a fresh one.

    A missing or aged catalog (or REFRESH) is fetched — one fetch per account and
    loop however many rounds ask — and waited for at most WAIT seconds; past that,
    or when the fetch fails, the round gets the kept catalog (aged or not), else
    None, and never an error: the round then goes in the bundled shape.
    """
    key = _key(token, base_url)
    loop = asyncio.get_running_loop()
    kept = state.models.catalog(key)
    if kept is not None and not refresh:
        at, catalog = kept
        if time.monotonic() - at < limits.CATALOG_MAX_AGE_SECONDS:
            return catalog

    def start() -> asyncio.Task[ModelCatalog]:
        fetch = fetch_catalog(
            token, base_url, state=state, client_version=client_version, proxy=proxy
        )
        task = loop.create_task(fetch, name="cursor-catalog")
        task.add_done_callback(lambda done: _catalog_landed(state, loop, key, done))
        return task

    task = state.models.catalog_fetch(loop, key, start)
    stale = kept[1] if kept is not None else None
    try:
        # Shielded: a round that stops waiting leaves the fetch to land for the next one.
        # asyncio.timeout, not wait_for: Python 3.11's wait_for returns the result when a
        # cancel meets the fetch's landing, and the cancelled round then runs on.
        async with asyncio.timeout(wait):
            return await asyncio.shield(task)
    except TimeoutError:
        log.debug("the model catalog did not come within %g s; routing without it", wait)
    except CursorError as exc:
        log.debug("the model catalog is unavailable: %s", exc.detail)
    return stale


def _catalog_landed(
    state: CellState,
    loop: asyncio.AbstractEventLoop,
    key: ModelKey,
    task: asyncio.Task[ModelCatalog],
) -> None:
    """Drop the finished catalog fetch from the flights (returns nothing)."""
    state.models.catalog_fetch_done(loop, key, task)
    if not task.cancelled():
        task.exception()  # retrieved: a failure nobody awaits is not logged as lost


async def round_roster(
    state: CellState,
    token: str | None,
    base_url: str,
    *,
    client_version: str | None = None,
    proxy: str | None = None,
) -> tuple[RosterModel, ...]:
    """Return the account's roster for a round: the one STATE keeps, else fetched and kept there.

    Concurrent rounds of one account on one loop share a single fetch. Raises as
    ``fetch_roster`` does; a refusal is not kept, so a later round asks again.
    """
    if not token:
        return await fetch_roster(token, base_url, client_version=client_version, proxy=proxy)
    key = _key(token, base_url)
    loop = asyncio.get_running_loop()
    kept = state.models.roster(key)
    if kept is not None:
        return kept

    def start() -> asyncio.Task[tuple[RosterModel, ...]]:
        fetch = fetch_roster(
            token, base_url, state=state, client_version=client_version, proxy=proxy
        )
        task = loop.create_task(fetch, name="cursor-roster")
        task.add_done_callback(lambda done: _landed(state, loop, key, done))
        return task

    flight = state.models.join_roster_fetch(loop, key, start)
    try:
        # Shielded: one round cancelled must not cancel the fetch the others wait on.
        return await asyncio.shield(flight.task)
    except asyncio.CancelledError:
        state.models.leave_roster_fetch(flight)
        raise


def _landed(
    state: CellState,
    loop: asyncio.AbstractEventLoop,
    key: ModelKey,
    task: asyncio.Task[tuple[RosterModel, ...]],
) -> None:
    """Drop the finished fetch from the flights (returns nothing); a success is kept already."""
    state.models.roster_fetch_done(loop, key, task)
    if not task.cancelled():
        # Retrieved here too: a failure no round is left to await is never logged as lost.
        task.exception()


async def check_key(
    key: str | None,
    base_url: str,
    *,
    state: CellState | None = None,
    client_version: str | None = None,
    proxy: str | None = None,
) -> str | None:
    """Return None when Cursor accepts ``key``, else the one line saying why not.

    The roster the check fetched is kept in STATE (None: nowhere), under KEY's account.
    """
    try:
        await fetch_roster(key, base_url, state=state, client_version=client_version, proxy=proxy)
    except CursorError as exc:
        return exc.detail
    return None


async def list_models(
    token: str | None,
    base_url: str,
    *,
    state: CellState | None = None,
    client_version: str | None = None,
    proxy: str | None = None,
) -> Roster:
    """Return the live roster, or the bundled rows with the reason the live one is missing.

    A live roster is kept in STATE (None: nowhere), so rounds route on its markers.
    """
    roster, answer = await asyncio.gather(
        fetch_roster(token, base_url, state=state, client_version=client_version, proxy=proxy),
        fetch_catalog(token, base_url, state=state, client_version=client_version, proxy=proxy),
        return_exceptions=True,
    )
    catalog: ModelCatalog | None = None
    if isinstance(answer, BaseException):
        if not isinstance(answer, CursorError):
            raise answer
        log.debug("model catalog unavailable: %s", answer.detail)
    else:
        catalog = answer
    if isinstance(roster, BaseException):
        if not isinstance(roster, CursorError):
            raise roster
        log.debug("roster unavailable: %s", roster.detail)
        return Roster(
            joined(_bundled(), catalog), live=False, reason=roster.detail, hint=roster.hint
        )
    return Roster(joined(roster, catalog), live=True)


def unavailable(why: CursorError) -> Roster:
    """Return the bundled rows as the roster, with WHY the live one could not be had."""
    return Roster(_bundled(), live=False, reason=why.detail, hint=why.hint)


def joined(
    models: tuple[RosterModel, ...], catalog: ModelCatalog | None
) -> tuple[RosterModel, ...]:
    """Return MODELS with what CATALOG says of each: windows, images, thinking, parameters.

    A model meets its catalog entry by base id or through a variant's slug; the
    roster's own name stays (it names the slug, e.g. "GPT-5.4 High"), and a
    catalog window, when it gives one, replaces the guessed one.
    """
    if catalog is None:
        return models
    out: list[RosterModel] = []
    for model in models:
        entry = catalog.entry_for(model.id)
        if entry is None:
            out.append(model)
            continue
        out.append(
            RosterModel(
                model.id,
                model.name,
                entry.context_window or model.context_window,
                model.max_mode,
                max_context_window=entry.max_context_window or None,
                images=entry.images,
                thinking=entry.thinking,
                parameters=entry.axes,
            )
        )
    return tuple(out)


def _bundled() -> tuple[RosterModel, ...]:
    """Return the bundled rows as roster rows: what ``/models`` lists without the live roster."""
    return tuple(
        RosterModel(row.id, row.name, row.context_window)
        for row in sorted(bundled_models(), key=lambda r: r.id)
    )
