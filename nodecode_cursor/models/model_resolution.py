"""A round's model, resolved in one step: the host's model and effort to the request's fields.

A host names a model (``gpt-5.4``, ``claude-opus-5-5``, or an id only the account's
roster lists) and an effort. Before a round builds its request, this module says,
once, everything the round needs to know of that model:

1. the bundled row (``routing`` over wire.json, ``catalog`` over models.json): the
   effort the round asks (``BadEffort`` when the model does not take it) and the
   wire slug that effort routes to; a model no row names must be on the account's
   roster (``UnknownModel`` naming near ids, or why the roster could not be asked);
2. the roster's max-mode marker for the slug (this account's, at this base URL);
3. the catalog's variant (``variants.on_variant``): RequestedModel becomes the base
   id plus parameter values while ModelDetails keeps the slug;
4. the retries the model allows, as facts: the discovery-id fields (the slug
   untouched) for one retry after model-not-found, and whether a bare refusal may be
   a variant the catalog had not named (worth asking the catalog again once).

The answer is one frozen ``ResolvedModel`` the lane hands to the request build and
to its retry decisions. The deciding is pure (``asked``, ``listed``, ``resolved``:
no I/O, no clock; tested without sockets); ``resolve`` is the thin async part that
fetches the roster and the catalog through ``listing`` (kept in the cell's
``account_models.AccountModels``) and asks the round's token when it is needed.
``fresh_variant`` asks the catalog again for the one variant retry.

What a slug means on the wire is ``routing.py``'s; the catalog's shape is
``variants.py``'s; when the roster and catalog are fetched and kept is
``listing.py``'s; the token is the lane's (``credentials``); what to do when a run
fails is the lane's.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .. import limits
from ..errors import ConfigError, CursorError, NotSignedIn, loggable
from . import catalog, listing, routing, variants

if TYPE_CHECKING:
    from ..host import RoundContext
    from ..state import CellState
    from .account_models import RosterModel
    from .routing import WireModel
    from .variants import ModelCatalog

__all__ = [
    "Asked",
    "ResolvedModel",
    "asked",
    "fresh_variant",
    "listed",
    "may_retry_on_variant",
    "resolve",
    "resolved",
]

log = logging.getLogger("nodecode_cursor.models.model_resolution")


@dataclass(frozen=True, slots=True)
class Asked:
    """What the host's model and effort route to before the account is asked."""

    model: str
    # The effort the round asks: None for off, a model that does not reason, or a
    # roster-only model (its slug says any effort).
    effort: str | None
    # The wire slug: the bundled row's route for the effort, else the model id itself.
    wire_id: str
    bundled: bool


@dataclass(frozen=True, slots=True)
class ResolvedModel:
    """Everything a round needs of its model, decided once before the request is built."""

    model: str
    effort: str | None
    wire_id: str
    # The name the request shows: the bundled row's, else the roster's, else the id.
    name: str
    bundled: bool
    # The roster's max-mode marker for the slug (or the model), None when it gave none.
    marker: bool | None
    # RequestedModel/ModelDetails of the first run: normalized, on the catalog's variant.
    wire: WireModel
    # The fields of the one retry after model-not-found: the slug sent untouched.
    discovery: WireModel
    # Whether a bare refusal of ``wire`` may be a variant the catalog did not name in
    # time: a bundled model with effort siblings, its slug sent bare.
    variant_retry: bool
    # Whether the model's tool schemas are projected before Cursor sees them.
    project_schemas: bool


def asked(model: str, effort: str | None) -> Asked:
    """Return where MODEL at EFFORT routes by the bundled rows; BadEffort when it may not.

    A model the rows lack is routed as its own slug, asking no effort; its effort is
    still checked (a misspelt level fails whatever the model, before any network).
    """
    if routing.is_bundled(model):
        chosen = routing.round_effort(model, effort)
        return Asked(model, chosen, routing.wire_model_id(model, chosen), True)
    routing.checked_effort(effort)
    return Asked(model, None, model, False)


def listed(model: str, roster: Sequence[RosterModel]) -> RosterModel:
    """Return ROSTER's row for MODEL; the UnknownModel error naming near ids when it has none."""
    entry = next((row for row in roster if row.id == model), None)
    if entry is None:
        raise routing.unknown_model(model, [row.id for row in roster])
    return entry


def resolved(
    route: Asked,
    marker: bool | None,
    found: ModelCatalog | None,
    roster_name: str | None = None,
) -> ResolvedModel:
    """Return the resolved model of ROUTE given the account's MARKER and catalog FOUND.

    ROSTER_NAME is the roster's name for a roster-only model (None for a bundled one).
    """
    model, wire_id = route.model, route.wire_id
    # The roster's marker counts only when the bundled row has none of its own.
    normalized = routing.resolve_wire_model(model, wire_id, "normalized", marker)
    # A sibling slug the account's catalog names as a variant goes as the variant's
    # base id and parameters (a bare sibling slug is refused; docs/protocol.md §10a).
    wire = variants.on_variant(normalized, found)
    row = catalog.find_model(model)
    return ResolvedModel(
        model=model,
        effort=route.effort,
        wire_id=wire_id,
        name=row.name if row is not None else (roster_name or model),
        bundled=route.bundled,
        marker=marker,
        wire=wire,
        discovery=routing.resolve_wire_model(model, wire_id, "discovered", marker),
        variant_retry=may_retry_on_variant(model, wire),
        project_schemas=routing.needs_schema_projection(model),
    )


async def resolve(
    ctx: RoundContext, state: CellState, token_of: Callable[[], Awaitable[str]]
) -> tuple[str, ResolvedModel]:
    """Return the round's token and its resolved model; the ConfigError when it has none.

    TOKEN_OF gives the round's token; it is asked only once the effort is known good.
    A roster-only model asks the account's roster (one fetch per STATE, base URL and
    account); not signed in, or a roster that cannot be had, is the unknown-model
    error saying why, but an unusable proxy is that ConfigError itself (the round could
    not go either). The catalog is asked as ``listing.round_catalog`` says, and never
    fails the round.
    """
    route = asked(ctx.model, ctx.effort)
    base_url = ctx.base_url or limits.DEFAULT_BASE_URL
    roster_name: str | None = None
    if route.bundled:
        token = await token_of()
    else:
        token, roster_name = await _on_roster(ctx, state, route.model, token_of)
    marker = listing.round_marker(state, route.model, route.wire_id, token, base_url)
    found = await listing.round_catalog(
        state, token, base_url, client_version=ctx.client_version, proxy=ctx.proxy
    )
    return token, resolved(route, marker, found, roster_name)


async def _on_roster(
    ctx: RoundContext, state: CellState, model: str, token_of: Callable[[], Awaitable[str]]
) -> tuple[str, str]:
    """Return (token, roster name) for MODEL, a model the bundled rows lack; else UnknownModel.

    The roster is asked with the round's token (once per STATE, base URL and account).
    """
    try:
        token = await token_of()
    except NotSignedIn as exc:
        raise routing.unknown_model(model, unchecked=exc.detail) from None
    base_url = ctx.base_url or limits.DEFAULT_BASE_URL
    try:
        roster = await listing.round_roster(
            state, token, base_url, client_version=ctx.client_version, proxy=ctx.proxy
        )
    except ConfigError:
        raise  # an unusable proxy: the round could not go either, so say that, not the model
    except CursorError as exc:
        log.debug("roster unavailable for %s: %s", loggable(model), loggable(exc.detail))
        raise routing.unknown_model(model, unchecked=exc.detail) from None
    entry = listed(model, roster)
    log.debug("%s is not bundled; the account's roster lists it", loggable(model))
    return token, entry.name


async def fresh_variant(
    ctx: RoundContext, state: CellState, token: str, wire: WireModel
) -> WireModel:
    """Return WIRE on the variant a freshly asked catalog names; WIRE itself when none.

    The one retry after Cursor refused a bare slug: the catalog may not have named
    the variant in time when the round began.
    """
    fresh = await listing.round_catalog(
        state,
        token,
        ctx.base_url or limits.DEFAULT_BASE_URL,
        client_version=ctx.client_version,
        proxy=ctx.proxy,
        refresh=True,
    )
    return variants.on_variant(wire, fresh)


def may_retry_on_variant(model: str, wire: WireModel) -> bool:
    """Return whether a bare refusal of WIRE may be a missing variant shape worth one retry.

    Only a slug sent bare (no parameters, the base id itself) of a bundled model
    that has effort siblings can be a variant the catalog did not name in time.
    """
    if wire.parameters or wire.requested_id != wire.details_id or not routing.is_bundled(model):
        return False
    return bool(routing.model_row(model).routing)
