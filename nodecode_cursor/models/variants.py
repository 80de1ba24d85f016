"""Cursor's model catalog (``AvailableModels``): variants as a base id plus parameter values.

Cursor names a pick such as ``gpt-5.4-mini`` at low reasoning two ways: the
account's roster lists the *sibling slug* ``gpt-5.4-mini-low``, while the run
must ask for the model's **base id plus its parameter values**
(``RequestedModel{model_id: "gpt-5.4-mini", parameters: [reasoning=low]}``).
A sibling slug sent with no parameters is refused with a bare
``resource_exhausted`` (docs/protocol.md §10a). The catalog says which
parameters each slug stands for: every variant of an ``AvailableModel`` names
its legacy slug (and a string representation) beside its parameter values and
max-mode flag.

This module is pure: it builds the request body, parses the answer into a
``ModelCatalog`` (routes by slug, and what ``/models`` shows of each model),
and rewrites a routed ``WireModel`` onto a variant. Asking the service, and
keeping the answer per account, is ``listing.py``'s job; putting a round on its
variant is ``model_resolution.py``'s.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from google.protobuf.message import DecodeError

from .._proto import aiserver_pb2
from ..errors import ProtocolError
from .routing import WireModel

__all__ = [
    "AVAILABLE_MODELS_PATH",
    "CatalogEntry",
    "ModelCatalog",
    "VariantRoute",
    "catalog_request",
    "on_variant",
    "parse_catalog",
]

AVAILABLE_MODELS_PATH = "/aiserver.v1.AiService/AvailableModels"


@dataclass(frozen=True, slots=True)
class VariantRoute:
    """What a run asks for to get one variant: the base id, its parameter values, max mode."""

    model_id: str
    parameters: tuple[tuple[str, str], ...]
    max_mode: bool


@dataclass(frozen=True, slots=True)
class CatalogEntry:
    """What the catalog says of one model, for ``/models`` and the server's model list."""

    name: str
    display_name: str
    context_window: int
    max_context_window: int
    images: bool
    thinking: bool
    # Each parameter id with the values it takes, in the catalog's order.
    axes: tuple[tuple[str, tuple[str, ...]], ...]
    slugs: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class ModelCatalog:
    """The parsed catalog: a route per slug, and an entry per model."""

    routes: Mapping[str, VariantRoute] = field(default_factory=dict)
    entries: tuple[CatalogEntry, ...] = ()

    def route(self, slug: str) -> VariantRoute | None:
        """Return the route of the variant SLUG names (its legacy slug or string form), or None."""
        return self.routes.get(slug)

    def entry_for(self, model_id: str) -> CatalogEntry | None:
        """Return the entry a bundled MODEL_ID meets: by base id, else by a variant's slug."""
        for entry in self.entries:
            if entry.name == model_id:
                return entry
        for entry in self.entries:
            if model_id in entry.slugs:
                return entry
        return None


def catalog_request() -> bytes:
    """Return the AvailableModels request body: the flags oh-my-pi's discovery sets.

    include_long_context_models (2), use_model_parameters (5), do_not_use_markdown (7)
    and use_cloud_agent_effort_modes (12), all true: without use_model_parameters the
    catalog carries no variants to route by.
    """
    request = aiserver_pb2.AvailableModelsRequest(
        include_long_context_models=True,
        use_model_parameters=True,
        do_not_use_markdown=True,
        use_cloud_agent_effort_modes=True,
    )
    return request.SerializeToString()


def _usable(model: aiserver_pb2.AvailableModel) -> bool:
    """Return whether a run of this cell can use MODEL at all.

    A chat-only model, one that says it takes no agent, and one that requires data
    retention (this cell always asks for ghost mode, so the service would refuse
    every run) are left out, as oh-my-pi's discovery leaves them out.
    """
    return bool(
        model.name
        and model.supports_agent
        and not model.is_chat_only
        and not model.requires_data_retention
    )


def parse_catalog(body: bytes) -> ModelCatalog:
    """Return the catalog an AvailableModels answer (bare protobuf) holds; ProtocolError if not.

    A slug is routed by the first variant that names it (legacy slug, else its string
    representation), so a duplicate never silently changes an earlier route.
    """
    try:
        answer = aiserver_pb2.AvailableModelsResponse.FromString(body)
    except DecodeError:
        raise ProtocolError("Cursor's AvailableModels answer did not decode") from None
    routes: dict[str, VariantRoute] = {}
    entries: list[CatalogEntry] = []
    for model in answer.models:
        if not _usable(model):
            continue
        slugs: list[str] = []
        for variant in model.variants:
            route = VariantRoute(
                model.name,
                tuple((p.id, p.value) for p in variant.parameter_values),
                variant.is_max_mode,
            )
            for key in (variant.legacy_slug, variant.variant_string_representation):
                if key and key not in routes:
                    routes[key] = route
                if key and key not in slugs:
                    slugs.append(key)
        slugs.extend(s for s in model.legacy_slugs if s not in slugs)
        axes = tuple(
            (
                definition.id,
                tuple(
                    v.value
                    for v in (
                        *definition.parameter_type.enum_parameter.values,
                        *definition.parameter_type.boolean_parameter.values,
                    )
                ),
            )
            for definition in model.parameter_definitions
            if definition.id
        )
        entries.append(
            CatalogEntry(
                name=model.name,
                display_name=model.client_display_name or model.name,
                context_window=model.context_token_limit,
                max_context_window=model.context_token_limit_for_max_mode,
                images=model.supports_images,
                thinking=model.supports_thinking,
                axes=axes,
                slugs=tuple(slugs),
            )
        )
    return ModelCatalog(routes, tuple(entries))


def on_variant(wire: WireModel, catalog: ModelCatalog | None) -> WireModel:
    """Return WIRE asking for the catalog's variant of its slug; WIRE itself when none.

    ``ModelDetails`` keeps naming the account-usable sibling slug (``details_id``);
    ``RequestedModel`` becomes the variant's base id, parameter values and max mode.
    """
    if catalog is None:
        return wire
    route = catalog.route(wire.details_id)
    if route is None:
        return wire
    return WireModel(
        requested_id=route.model_id,
        details_id=wire.details_id,
        parameters=route.parameters,
        max_mode=route.max_mode,
    )
