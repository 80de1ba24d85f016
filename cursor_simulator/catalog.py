"""Simulator routes: the model catalog, ``aiserver.v1.AiService/AvailableModels``.

Cursor's catalog names each model by its base id and lists its *variants*: the
parameter values (``reasoning=high``, ``thinking=true``, ...) that make up one
pick, each with the sibling slug GetUsableModels lists for it (its legacy
slug). The simulator serves a small catalog shaped like that, checks the call
the way the other unary routes do, and records the flags each request set. A
test can replace the models, refuse the call or answer a raw body.

The agent route reads the same catalog to refuse what the real service
refuses: a variant's sibling slug sent as ``RequestedModel.model_id`` with no
parameters (see ``agent.AgentService.refuse_bare_siblings``). The parameter
values below are illustrative, not a copy of Cursor's catalog.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

from nodecode_cursor._proto import aiserver_pb2
from nodecode_cursor.wire import connect

from .family import RouteHost, connect_error
from .server import SimRequest, SimResponse

__all__ = ["PATH", "CatalogModel", "CatalogState", "Variant", "default_catalog", "install"]

PATH = "/aiserver.v1.AiService/AvailableModels"

_CLIENT_HEADERS = {"x-cursor-client-type": "cli", "x-ghost-mode": "true"}


@dataclass(frozen=True)
class Variant:
    """One pick of a catalog model: its parameter values, its sibling slug, max mode."""

    slug: str
    parameters: tuple[tuple[str, str], ...]
    max_mode: bool = False
    display_name: str = ""
    default: bool = False


@dataclass(frozen=True)
class CatalogModel:
    """One catalog model: base id, display name, context windows, parameter axes, variants."""

    name: str
    display_name: str
    context: int = 200_000
    max_context: int = 0
    images: bool = True
    thinking: bool = True
    variants: tuple[Variant, ...] = ()

    def axes(self) -> dict[str, list[str]]:
        """Return each parameter id with the values its variants use, in first-seen order."""
        found: dict[str, list[str]] = {}
        for variant in self.variants:
            for key, value in variant.parameters:
                values = found.setdefault(key, [])
                if value not in values:
                    values.append(value)
        return found

    def message(self) -> aiserver_pb2.AvailableModel:
        """Return the model as the catalog serves it."""
        model = aiserver_pb2.AvailableModel(
            name=self.name,
            supports_agent=True,
            supports_thinking=self.thinking,
            supports_images=self.images,
            supports_max_mode=any(v.max_mode for v in self.variants),
            supports_non_max_mode=True,
            context_token_limit=self.context,
            context_token_limit_for_max_mode=self.max_context,
            client_display_name=self.display_name,
        )
        for key, values in self.axes().items():
            definition = model.parameter_definitions.add(id=key, name=key.capitalize())
            kind = definition.parameter_type.enum_parameter
            for value in values:
                kind.values.add(value=value, display_name=value.capitalize())
        for variant in self.variants:
            config = model.variants.add(
                display_name=variant.display_name or variant.slug,
                is_max_mode=variant.max_mode,
                legacy_slug=variant.slug,
                variant_string_representation=variant.slug,
            )
            if variant.default:
                config.is_default_non_max_config = True
            for key, value in variant.parameters:
                config.parameter_values.add(id=key, value=value)
            model.legacy_slugs.append(variant.slug)
        return model


def _efforts(
    base: str, key: str, levels: tuple[str, ...], *extra: tuple[str, str]
) -> tuple[Variant, ...]:
    """Return one variant per effort level: slug ``base-level``, parameters EXTRA + key=level."""
    return tuple(
        Variant(f"{base}-{level}", (*extra, (key, level)), default=level == "medium")
        for level in levels
    )


def default_catalog() -> list[CatalogModel]:
    """Return the simulator's catalog: a Claude and two GPT models with effort variants."""
    return [
        CatalogModel(
            "claude-sonnet-5",
            "Claude Sonnet 5",
            context=200_000,
            max_context=1_000_000,
            variants=(
                *_efforts(
                    "claude-sonnet-5",
                    "effort",
                    ("low", "medium", "high", "xhigh"),
                    ("thinking", "true"),
                ),
                Variant(
                    "claude-sonnet-5-max",
                    (("thinking", "true"), ("effort", "high"), ("context", "1m")),
                    max_mode=True,
                ),
            ),
        ),
        CatalogModel(
            "gpt-5.4-mini",
            "GPT-5.4 Mini",
            context=272_000,
            variants=_efforts("gpt-5.4-mini", "reasoning", ("low", "medium", "high")),
        ),
        CatalogModel(
            "gpt-5.6-sol",
            "GPT-5.6 Sol",
            context=272_000,
            max_context=1_000_000,
            variants=_efforts(
                "gpt-5.6-sol", "reasoning", ("low", "medium", "high"), ("context", "272k")
            ),
        ),
    ]


@dataclass
class CatalogState:
    """The catalog's script: models, or a refusal, or a raw body; and the requests seen."""

    models: list[CatalogModel] = field(default_factory=default_catalog)
    refusal: tuple[int, str, str] | None = None
    raw_body: bytes | None = None
    requests: list[aiserver_pb2.AvailableModelsRequest] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def calls(self) -> int:
        """Return how many AvailableModels calls were answered or refused."""
        with self.lock:
            return len(self.requests)

    def refuse(self, status: int, code: str, message: str = "refused") -> None:
        """Make the next calls answer a Connect error."""
        self.refusal = (status, code, message)

    def variant(self, slug: str) -> tuple[CatalogModel, Variant] | None:
        """Return the model and variant whose sibling slug is SLUG, or None."""
        with self.lock:
            models = list(self.models)
        for model in models:
            for variant in model.variants:
                if variant.slug == slug:
                    return model, variant
        return None


def install(sim: RouteHost) -> CatalogState:
    """Serve AvailableModels on ``sim``; return its state."""
    state = CatalogState()

    def handle(request: SimRequest) -> SimResponse:
        """Return the catalog, the scripted refusal, or the Connect error for a bad call."""
        if request.method != "POST":
            return connect_error(405, "unimplemented", "AvailableModels takes POST")
        refused = sim.check_bearer(request)
        if refused is not None:
            return refused
        if request.headers.get("content-type") != "application/proto":
            return connect_error(415, "invalid_argument", "content-type must be application/proto")
        for name, value in _CLIENT_HEADERS.items():
            if request.headers.get(name) != value:
                return connect_error(400, "invalid_argument", f"{name} must be {value}")
        if not request.headers.get("x-cursor-client-version"):
            return connect_error(400, "invalid_argument", "x-cursor-client-version is missing")
        try:
            asked = aiserver_pb2.AvailableModelsRequest.FromString(
                connect.read_unary_body(request.body)
            )
        except Exception:
            return connect_error(400, "invalid_argument", "request did not decode")
        with state.lock:
            state.requests.append(asked)
            refusal, raw, models = state.refusal, state.raw_body, list(state.models)
        if refusal is not None:
            status, code, message = refusal
            return connect_error(status, code, message)
        if raw is not None:
            return SimResponse(200, {"content-type": "application/proto"}, raw)
        answer = aiserver_pb2.AvailableModelsResponse(use_model_parameters=True)
        for model in models:
            answer.model_names.append(model.name)
            answer.models.append(model.message())
        return SimResponse(200, {"content-type": "application/proto"}, answer.SerializeToString())

    sim.route(PATH, handle)
    return state
