"""Which Cursor model a round names on the wire, at which effort, in which mode.

A public model id (``gpt-5.4``, ``claude-opus-5-5``) is not always what Cursor's
service is asked for. Per model, ``nodecode_cursor/data/wire.json`` (written by
``tools/wire-rows.py`` from oh-my-pi's bundled rows) says which wire slug each
thinking effort routes to, the slug to send when no effort routes one, the
max-mode markers, whether tool schemas need projecting, and the model's lineage.
This module combines those rows into the request's model fields:

1. ``round_effort``: the effort a round asks for: none when thinking is off or the
   model does not reason; a config error when the model does not take it, or
   when it is no known level at all (``checked_effort``), whatever the model.
2. ``wire_model_id``: the wire slug: ``routing[effort or "off"]``, else the row's
   ``request``, else the model id.
3. ``resolve_wire_model``: what RequestedModel and ModelDetails carry. An
   OpenAI-class sibling slug whose suffix names an effort goes as its base id plus
   the parameter ``reasoning=<effort>`` (none for ``-none``), while ModelDetails
   keeps the sibling slug; other classes send the slug as it is; ``composer-2.5``
   pins ``fast=false``. The "discovered" mode sends the slug untouched: the one
   retry after the service answers model-not-found.
4. ``resolve_max_mode``: the max-mode flag for the routed slug.

``route`` is the one answer a host asks for: is this model at this effort allowed
(``UnknownModel`` / ``BadEffort`` when not, with the fields a host words its own
message from), and which model, effort and wire slug a round on it names. "Off"
is spelled one way: an effort of None, "" or "off" (any case) is thinking off.

Pure: no I/O but reading the bundled rows once (lazily, on first use, never at
import), no clock, no network. The host's catalog view of the same models is
``catalog.py``'s; schema projection itself is ``schema.py``'s; the K3 writer table
is ``writers.py``'s; asking the account's roster is ``listing.py``'s; combining
these with the roster and the catalog for one round is ``model_resolution.py``'s.
"""

from __future__ import annotations

import difflib
import functools
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Literal

from nodecode_cursor.errors import BadEffort, UnknownModel
from nodecode_cursor.host import Route
from nodecode_cursor.models import catalog

__all__ = [
    "EFFORTS",
    "OFF",
    "Route",
    "WireModel",
    "WireRow",
    "checked_effort",
    "collapse_variant",
    "is_bundled",
    "is_k3",
    "known_models",
    "model_row",
    "needs_schema_projection",
    "resolve_max_mode",
    "resolve_wire_model",
    "round_effort",
    "route",
    "unknown_model",
    "wire_model_id",
]

PROVIDER = "cursor"

# omp's thinking efforts, weakest first ("off" is not one: it is no effort).
EFFORTS = ("minimal", "low", "medium", "high", "xhigh", "max")
# The one word for "no thinking" (None and "" mean it too).
OFF = "off"

# The variant suffixes a sibling slug collapses by, each to the effort tier it
# names ("off" for -none). Longest match wins, so -extra-high beats -high and
# -xhigh beats -high. -max is no tier on qwen models, where it is part of the name.
_EFFORT_SUFFIXES: tuple[tuple[str, str], ...] = (
    ("-extra-high", "xhigh"),
    ("-minimal", "minimal"),
    ("-medium", "medium"),
    ("-xhigh", "xhigh"),
    ("-none", "off"),
    ("-high", "high"),
    ("-low", "low"),
    ("-max", "max"),
)
_SUFFIX_EXCEPTIONS = {"-max": "qwen"}

# Cursor's parallel SKU lanes: the lane stays on the base id while the effort
# token before it selects the sibling (gpt-5.2-high-fast -> gpt-5.2-fast, high).
_LANE_SUFFIXES = ("-fast",)

# Tiers Cursor serves in max mode when nothing more specific says.
_MAX_MODE_TIERS = frozenset({"xhigh", "max"})

# RequestedModel parameters pinned per exact wire slug: a bare composer-2.5
# resolves to its Fast tier server-side unless told otherwise (omp #9012).
_FIXED_PARAMETERS: Mapping[str, tuple[tuple[str, str], ...]] = {
    "composer-2.5": (("fast", "false"),),
}

# Lineage by id, for slugs the bundled rows do not name (a roster-only sibling).
_CLASS_PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"^(?:gpt-\d|o\d)"), "openai"),
    (re.compile(r"^claude"), "anthropic"),
    (re.compile(r"kimi|^k\d"), "kimi"),
    (re.compile(r"grok"), "xai"),
    (re.compile(r"^gemini"), "gemini"),
)
_K3_PATTERN = re.compile(r"(?:^|[-/])k3(?:$|-)", re.IGNORECASE)

_DATA_FILE = "wire.json"

WireMode = Literal["normalized", "discovered"]


@dataclass(frozen=True, slots=True)
class WireRow:
    """What the wire reads of one bundled model."""

    id: str
    request: str | None
    routing: Mapping[str, str]
    max_mode: bool | None
    max_routes: Mapping[str, bool]
    projection: bool
    model_class: str
    family: str | None


@dataclass(frozen=True, slots=True)
class WireModel:
    """The model fields of one request: RequestedModel and ModelDetails."""

    requested_id: str
    details_id: str
    parameters: tuple[tuple[str, str], ...]
    max_mode: bool


def _optional_str(value: Any, field: str) -> str | None:
    """Return VALUE when it is a string or None, else raise ValueError naming FIELD."""
    if value is None or isinstance(value, str):
        return value
    raise ValueError(f"wire.json: {field} is not a string: {value!r}")


def _row(raw: Any) -> WireRow:
    """Return one wire.json entry as a WireRow."""
    if not isinstance(raw, dict) or not isinstance(raw.get("id"), str):
        raise ValueError(f"wire.json: a row without an id: {raw!r}")
    model_id: str = raw["id"]
    routing = raw.get("routing") or {}
    max_routes = raw.get("max_routes") or {}
    if not isinstance(routing, dict) or not all(
        isinstance(key, str) and isinstance(value, str) for key, value in routing.items()
    ):
        raise ValueError(f"wire.json: {model_id}.routing is not effort -> slug")
    if not isinstance(max_routes, dict) or not all(
        isinstance(key, str) and isinstance(value, bool) for key, value in max_routes.items()
    ):
        raise ValueError(f"wire.json: {model_id}.max_routes is not slug -> bool")
    max_mode = raw.get("max_mode")
    if max_mode is not None and not isinstance(max_mode, bool):
        raise ValueError(f"wire.json: {model_id}.max_mode is not a bool")
    return WireRow(
        id=model_id,
        request=_optional_str(raw.get("request"), f"{model_id}.request"),
        routing=MappingProxyType(dict(routing)),
        max_mode=max_mode,
        max_routes=MappingProxyType(dict(max_routes)),
        projection=bool(raw.get("projection")),
        model_class=_optional_str(raw.get("class"), f"{model_id}.class") or "unknown",
        family=_optional_str(raw.get("family"), f"{model_id}.family"),
    )


@functools.cache
def _rows() -> Mapping[str, WireRow]:
    """Return the wire rows by id, read from the package's data on first call."""
    rows = sorted((_row(item) for item in catalog.data_rows(_DATA_FILE)), key=lambda r: r.id)
    return MappingProxyType({row.id: row for row in rows})


def known_models() -> list[str]:
    """Return every bundled model id, sorted."""
    return list(_rows())


def unknown_model(
    model: str, roster_ids: Iterable[str] = (), unchecked: str | None = None
) -> UnknownModel:
    """Return the config error for an unknown MODEL, naming the nearest bundled or roster ids.

    ``unchecked`` is why the account's live roster could not be asked, when it could not.
    """
    known = list(dict.fromkeys([*_rows(), *roster_ids]))
    nearest = difflib.get_close_matches(model, known, n=5, cutoff=0.0)
    hint = f" Nearest known: {', '.join(nearest)}." if nearest else ""
    note = f" The live roster could not be checked ({unchecked})." if unchecked else ""
    return UnknownModel(
        f"Unknown Cursor model {model!r}.{hint}{note}",
        model=model,
        near=tuple(nearest),
        unchecked=unchecked,
    )


def is_bundled(model: str) -> bool:
    """Return whether the bundled rows name MODEL."""
    return model in _rows()


def model_row(model: str) -> WireRow:
    """Return MODEL's wire row; raise ConfigError for a model the bundled rows lack."""
    row = _rows().get(model)
    if row is None:
        raise unknown_model(model)
    return row


def checked_effort(effort: str | None) -> str | None:
    """Return EFFORT when it is a known level (None for off); else the unsupported_effort error.

    Checked whatever the model: a misspelt level is refused even where the model
    would ignore a real one.
    """
    if effort is None or effort == OFF:
        return None
    if effort not in EFFORTS:
        raise BadEffort(
            f"Thinking effort {effort!r} is not a known level. "
            f"Known efforts: {OFF}, {', '.join(EFFORTS)}",
            model=None,
            effort=effort,
            allowed=EFFORTS,
        )
    return effort


def round_effort(model: str, effort: str | None) -> str | None:
    """Return the effort a round on MODEL asks for, or None for thinking off."""
    model_row(model)
    effort = checked_effort(effort)
    if effort is None:
        return None
    bundled = catalog.find_model(model)
    # A model that does not reason is asked no effort at all, whatever the host
    # chose: omp sends none rather than refusing the round.
    if bundled is None or not bundled.reasoning:
        return None
    supported = tuple(bundled.efforts or EFFORTS)
    if effort not in supported:
        raise BadEffort(
            f"Thinking effort {effort} is not supported by {PROVIDER}/{model}. "
            f"Supported efforts: {', '.join(supported)}",
            model=model,
            effort=effort,
            allowed=supported,
        )
    return effort


def route(
    model: str,
    effort: str | None,
    *,
    roster: Iterable[str] | None = None,
    unchecked: str | None = None,
) -> Route:
    """Return where a round on MODEL at EFFORT goes; UnknownModel or BadEffort when it may not.

    MODEL may carry the ``cursor/`` prefix; EFFORT is read in any case, None, "" and
    "off" meaning off. A model the bundled rows lack is allowed when ROSTER (the
    account's model ids, when the host asked for them) lists it; it is sent as the
    roster names it and asks no effort (its slug says any). UNCHECKED is why the
    roster could not be asked, for the UnknownModel error.
    """
    model = model.strip().removeprefix(f"{PROVIDER}/")
    asked = (effort or "").strip().lower() or None
    requested = checked_effort(asked)  # a misspelt level is refused whatever the model
    if is_bundled(model):
        chosen = round_effort(model, requested)
        bundled = catalog.find_model(model)
        efforts = tuple(bundled.efforts or EFFORTS) if bundled and bundled.reasoning else ()
        return Route(model, requested, chosen, wire_model_id(model, chosen), efforts, True)
    ids = list(roster or ())
    if model in ids:
        return Route(model, requested, None, model, (), False)
    raise unknown_model(model, ids, unchecked)


def wire_model_id(model: str, effort: str | None) -> str:
    """Return the wire slug a round on MODEL at EFFORT is routed to."""
    row = model_row(model)
    rounded = round_effort(model, effort)
    return row.routing.get(rounded or "off") or row.request or model


def _suffix_tier(lower: str) -> tuple[str, str] | None:
    """Return (suffix, tier) of the longest effort suffix LOWER ends with, or None."""
    bare = lower.rsplit("/", 1)[-1]
    winner: tuple[str, str] | None = None
    for suffix, tier in _EFFORT_SUFFIXES:
        if not lower.endswith(suffix):
            continue
        exception = _SUFFIX_EXCEPTIONS.get(suffix)
        if exception is not None and bare.startswith(exception):
            continue
        if winner is None or len(suffix) > len(winner[0]):
            winner = (suffix, tier)
    return winner


def _collapse(wire_id: str) -> tuple[str, str | None]:
    """Return (base id, tier) of WIRE_ID; tier "off" for -none, None when no suffix names one."""
    lower = wire_id.lower()
    rule = _suffix_tier(lower)
    if rule is not None:
        return wire_id[: len(wire_id) - len(rule[0])], rule[1]
    for lane in _LANE_SUFFIXES:
        if not lower.endswith(lane):
            continue
        trimmed = lower[: len(lower) - len(lane)]
        inner = _suffix_tier(trimmed)
        if inner is None:
            continue
        base = wire_id[: len(trimmed) - len(inner[0])]
        if base and not base.endswith("/"):
            return base + wire_id[len(trimmed) :], inner[1]
    return wire_id, None


def collapse_variant(wire_id: str) -> tuple[str, str | None]:
    """Return (base id, effort parameter or None) of a sibling slug."""
    base, tier = _collapse(wire_id)
    return base, (None if tier == "off" else tier)


def _tier_is_max(wire_id: str) -> bool:
    """Return whether WIRE_ID's tier is one Cursor serves in max mode."""
    return _collapse(wire_id)[1] in _MAX_MODE_TIERS


def resolve_max_mode(model: str, wire_id: str, roster_marker: bool | None = None) -> bool:
    """Return whether the round sends WIRE_ID in max mode."""
    # MODEL may be a roster-only model the bundled rows lack: then only the
    # roster's marker and the slug's tier speak.
    row = _rows().get(model)
    if row is not None and wire_id in row.max_routes:
        return row.max_routes[wire_id]
    marker = row.max_mode if row is not None and row.max_mode is not None else roster_marker
    own = marker if marker is not None else _tier_is_max(wire_id)
    if row is None or not row.routing or wire_id == model:
        return own
    targets = list(row.routing.values())
    if model in targets:
        # A bare/thinking pair puts its own id on the wire: the row's marker
        # describes every member (claude-opus-4-7-max is false on both).
        return own
    # A collapsed family's marker is an OR over its tiers, so it speaks for an
    # unrouted slug only when no member's tier explains it (omp #9478).
    if marker is True and not any(_tier_is_max(target) for target in targets):
        return True
    return _tier_is_max(wire_id)


def _model_class(model_id: str) -> str:
    """Return MODEL_ID's lineage: its bundled row's class, else what the id says."""
    row = _rows().get(model_id)
    if row is not None:
        return row.model_class
    bare = model_id.lower().rsplit("/", 1)[-1]
    for pattern, lineage in _CLASS_PATTERNS:
        if pattern.search(bare):
            return lineage
    return "unknown"


def model_lineage(model_id: str) -> str:
    """Return MODEL_ID's lineage ("openai", "anthropic", ...; "unknown"): row class, else id."""
    return _model_class(model_id)


def resolve_wire_model(
    model: str,
    wire_id: str,
    mode: WireMode = "normalized",
    roster_marker: bool | None = None,
) -> WireModel:
    """Return the RequestedModel/ModelDetails fields for WIRE_ID routed from MODEL."""
    max_mode = resolve_max_mode(model, wire_id, roster_marker)
    if mode == "discovered":
        return WireModel(wire_id, wire_id, (), max_mode)
    if mode != "normalized":
        raise ValueError(f"unknown wire mode {mode!r}")
    base, tier = _collapse(wire_id)
    if tier is not None and base and _model_class(base) == "openai":
        # Cursor checks the two ids apart: ModelDetails names the sibling the
        # account may use, RequestedModel the base id with its effort parameter.
        parameters = () if tier == "off" else (("reasoning", tier),)
        return WireModel(base, wire_id, parameters, max_mode)
    return WireModel(wire_id, wire_id, _FIXED_PARAMETERS.get(wire_id, ()), max_mode)


def needs_schema_projection(model: str) -> bool:
    """Return whether MODEL's tool schemas must be projected before Cursor sees them."""
    row = _rows().get(model)
    if row is not None:
        return row.projection
    # omp's provider rule for models its rows do not cover: the Fable family.
    return "fable" in model.lower()


def is_k3(model: str) -> bool:
    """Return whether MODEL is a Kimi K3 model (family k3), whose thinking replays."""
    row = _rows().get(model)
    if row is not None:
        return row.family == "k3"
    return _K3_PATTERN.search(model) is not None
