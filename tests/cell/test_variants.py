"""The catalog's variants: request flags, parsing and the wire model they produce, by hand bytes."""

from __future__ import annotations

import pytest
from protobytes import ld, text, vi

from nodecode_cursor.errors import ProtocolError
from nodecode_cursor.models.routing import WireModel
from nodecode_cursor.models.variants import catalog_request, on_variant, parse_catalog


def variant(slug: str, *params: tuple[str, str], max_mode: bool = False) -> bytes:
    """Return ModelVariantConfig{1 parameter_values, 3 is_max_mode, 9 string form, 11 slug}."""
    body = b"".join(ld(1, text(1, key), text(2, value)) for key, value in params)
    if max_mode:
        body += vi(3, 1)
    return body + text(9, slug) + text(11, slug)


def model(name: str, display: str, *variants: bytes, **flags: int) -> bytes:
    """Return AvailableModel{1 name, 5 supports_agent, 15 context, 17 display, 30 variants}."""
    body = text(1, name) + vi(5, flags.get("agent", 1)) + vi(15, 272_000) + text(17, display)
    if flags.get("chat_only"):
        body += vi(4, 1)
    if flags.get("retention"):
        body += vi(46, 1)
    # parameter_definitions (29): {1 id "reasoning", 4 type{2 enum{1 values{1 "low"}}}}
    body += ld(29, text(1, "reasoning"), ld(4, ld(2, ld(1, text(1, "low")))))
    return body + b"".join(ld(30, v) for v in variants)


def test_the_request_sets_the_flags_the_maintained_client_sets() -> None:
    # 2 include_long_context_models, 5 use_model_parameters, 7 do_not_use_markdown,
    # 12 use_cloud_agent_effort_modes: all true.
    assert catalog_request() == b"\x10\x01\x28\x01\x38\x01\x60\x01"


def test_variants_route_their_slugs_to_base_id_and_parameters() -> None:
    body = ld(
        2,
        model(
            "gpt-5.4-mini",
            "GPT-5.4 Mini",
            variant("gpt-5.4-mini-low", ("reasoning", "low")),
            variant("gpt-5.4-mini-max", ("reasoning", "high"), ("context", "1m"), max_mode=True),
        ),
    )
    catalog = parse_catalog(body)
    low = catalog.route("gpt-5.4-mini-low")
    assert low is not None
    assert (low.model_id, low.parameters, low.max_mode) == (
        "gpt-5.4-mini",
        (("reasoning", "low"),),
        False,
    )
    top = catalog.route("gpt-5.4-mini-max")
    assert top is not None and top.max_mode
    assert top.parameters == (("reasoning", "high"), ("context", "1m"))
    entry = catalog.entry_for("gpt-5.4-mini-low")
    assert entry is not None and entry.display_name == "GPT-5.4 Mini"
    assert entry.context_window == 272_000
    assert entry.axes == (("reasoning", ("low",)),)


def test_on_variant_keeps_the_sibling_slug_in_model_details() -> None:
    catalog = parse_catalog(
        ld(
            2,
            model(
                "claude-sonnet-5", "Sonnet", variant("claude-sonnet-5-medium", ("effort", "medium"))
            ),
        )
    )
    bare = WireModel("claude-sonnet-5-medium", "claude-sonnet-5-medium", (), False)
    routed = on_variant(bare, catalog)
    assert routed == WireModel(
        "claude-sonnet-5", "claude-sonnet-5-medium", (("effort", "medium"),), False
    )
    other = WireModel("composer-2.5", "composer-2.5", (("fast", "false"),), False)
    assert on_variant(other, catalog) is other
    assert on_variant(bare, None) is bare


def test_models_a_run_cannot_use_are_left_out() -> None:
    body = (
        ld(2, model("chat-only", "C", variant("chat-only-low"), chat_only=1))
        + ld(2, model("no-agent", "N", variant("no-agent-low"), agent=0))
        + ld(2, model("kept-forever", "K", variant("kept-forever-low"), retention=1))
    )
    catalog = parse_catalog(body)
    assert catalog.entries == () and not catalog.routes


def test_the_first_variant_naming_a_slug_wins() -> None:
    body = ld(
        2,
        model(
            "m",
            "M",
            variant("m-low", ("reasoning", "low")),
            variant("m-low", ("reasoning", "minimal")),
        ),
    )
    route = parse_catalog(body).route("m-low")
    assert route is not None and route.parameters == (("reasoning", "low"),)


def test_a_malformed_answer_is_a_protocol_error() -> None:
    with pytest.raises(ProtocolError, match="did not decode"):
        parse_catalog(b"\x12\xff")
