"""Routing: effort rounding, wire slugs, the OpenAI sibling collapse, max mode.

The expected values in the tables were read by hand off the bundled rows
(nodecode_cursor/data/wire.json and models.json, from oh-my-pi's catalog), not
produced by the code under test. Each comment names the row fields that decide.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nodecode_cursor.errors import ConfigError
from nodecode_cursor.models import routing
from nodecode_cursor.models.catalog import find_model

R = "reasoning"

# (model, effort) -> (wire slug, requested id, parameters, max mode).
# Details always carry the wire slug in "normalized" mode.
ROUTES: list[tuple[str, str | None, str, str, tuple[tuple[str, str], ...], bool]] = [
    # routing.high, OpenAI class: base id + reasoning=high; max_routes says false
    ("gpt-5.4", "high", "gpt-5.4-high", "gpt-5.4", ((R, "high"),), False),
    # no "off" route: request is gpt-5.4-low
    ("gpt-5.4", None, "gpt-5.4-low", "gpt-5.4", ((R, "low"),), False),
    ("gpt-5.4", "off", "gpt-5.4-low", "gpt-5.4", ((R, "low"),), False),
    ("gpt-5.4", "xhigh", "gpt-5.4-xhigh", "gpt-5.4", ((R, "xhigh"),), False),
    # routing.off = gpt-5.5-none: the base id with no parameter
    ("gpt-5.5", None, "gpt-5.5-none", "gpt-5.5", (), False),
    # routing.xhigh = gpt-5.5-extra-high: collapses to the xhigh parameter
    ("gpt-5.5", "xhigh", "gpt-5.5-extra-high", "gpt-5.5", ((R, "xhigh"),), False),
    # the -fast lane stays on the base id
    ("gpt-5.5-fast", "xhigh", "gpt-5.5-extra-high-fast", "gpt-5.5-fast", ((R, "xhigh"),), False),
    ("gpt-5.5-fast", None, "gpt-5.5-none-fast", "gpt-5.5-fast", (), False),
    # does not reason, no routing: its own id, whose effort token sits before -fast
    ("gpt-5.2-high-fast", None, "gpt-5.2-high-fast", "gpt-5.2-fast", ((R, "high"),), False),
    ("gpt-5.2-high-fast", "high", "gpt-5.2-high-fast", "gpt-5.2-fast", ((R, "high"),), False),
    # reasons but routes nothing: the id itself, no suffix to collapse
    ("gpt-5.2", "high", "gpt-5.2", "gpt-5.2", (), False),
    # xhigh tier, but the row's max_mode false is the authority over the slug's tier
    ("gpt-5.2-xhigh", None, "gpt-5.2-xhigh", "gpt-5.2", ((R, "xhigh"),), False),
    (
        "gpt-5.3-codex-low-fast",
        None,
        "gpt-5.3-codex-low-fast",
        "gpt-5.3-codex-fast",
        ((R, "low"),),
        False,
    ),
    ("gpt-5.4-mini", None, "gpt-5.4-mini-none", "gpt-5.4-mini", (), False),
    ("gpt-5.4-mini", "medium", "gpt-5.4-mini-medium", "gpt-5.4-mini", ((R, "medium"),), False),
    # request gpt-5.4-medium-fast
    ("gpt-5.4-fast", None, "gpt-5.4-medium-fast", "gpt-5.4-fast", ((R, "medium"),), False),
    # max tier, max_mode true on the row, but max_routes names the slug false
    ("gpt-5.6-luna", "max", "gpt-5.6-luna-max", "gpt-5.6-luna", ((R, "max"),), False),
    ("gpt-5.6-sol-fast", None, "gpt-5.6-sol-none-fast", "gpt-5.6-sol-fast", (), False),
    # no effort: request claude-opus-5-5-low; Anthropic slugs go as they are
    ("claude-opus-5-5", None, "claude-opus-5-5-low", "claude-opus-5-5-low", (), False),
    ("claude-opus-5-5", "max", "claude-opus-5-5-max", "claude-opus-5-5-max", (), False),
    # the fast Opus lane: max_routes marks its own slug true
    (
        "claude-opus-5-5-fast",
        "high",
        "claude-opus-5-5-high-fast",
        "claude-opus-5-5-high-fast",
        (),
        True,
    ),
    # routing.off is the row's own id (not in max_routes): the row's max_mode true
    (
        "claude-opus-4-8-high-fast",
        None,
        "claude-opus-4-8-high-fast",
        "claude-opus-4-8-high-fast",
        (),
        True,
    ),
    (
        "claude-opus-4-8-high-fast",
        "high",
        "claude-opus-4-8-thinking-high-fast",
        "claude-opus-4-8-thinking-high-fast",
        (),
        True,
    ),
    # a -max slug whose row says max_mode false: false, not the tier's answer
    ("claude-opus-4-7-max", None, "claude-opus-4-7-max", "claude-opus-4-7-max", (), False),
    (
        "claude-opus-4-7-max",
        "low",
        "claude-opus-4-7-thinking-max",
        "claude-opus-4-7-thinking-max",
        (),
        False,
    ),
    (
        "claude-4-sonnet",
        "minimal",
        "claude-4-sonnet-thinking",
        "claude-4-sonnet-thinking",
        (),
        False,
    ),
    ("claude-4-sonnet", None, "claude-4-sonnet", "claude-4-sonnet", (), False),
    (
        "claude-fable-5-1-xhigh",
        "medium",
        "claude-fable-5-1-thinking-xhigh",
        "claude-fable-5-1-thinking-xhigh",
        (),
        False,
    ),
    # does not reason: no effort asked; bare composer-2.5 pins fast=false
    ("composer-2.5", "high", "composer-2.5", "composer-2.5", (("fast", "false"),), False),
    ("composer-2.5-fast", None, "composer-2.5-fast", "composer-2.5-fast", (), False),
    # max_mode silent, no routing: the tier decides (none here)
    ("composer-1", None, "composer-1", "composer-1", (), False),
    ("default", None, "default", "default", (), False),
    ("kimi-k3-max", None, "kimi-k3-max", "kimi-k3-max", (), False),
    ("kimi-k3-high", "high", "kimi-k3-high", "kimi-k3-high", (), False),
    # xAI slugs go as they are
    ("grok-4.7", None, "grok-4.7-medium", "grok-4.7-medium", (), False),
    ("grok-4.7-fast", "xhigh", "grok-4.7-xhigh-fast", "grok-4.7-xhigh-fast", (), False),
    ("cursor-grok-4.6", "xhigh", "cursor-grok-4.6-xhigh", "cursor-grok-4.6-xhigh", (), False),
    ("gemini-3.6-flash", None, "gemini-3.6-flash-minimal", "gemini-3.6-flash-minimal", (), False),
    ("gemini-3-pro", "high", "gemini-3-pro", "gemini-3-pro", (), False),
    ("glm-5.2", "max", "glm-5.2-max", "glm-5.2-max", (), False),
    ("muse-spark-1.3", "xhigh", "muse-spark-1.3-xhigh", "muse-spark-1.3-xhigh", (), False),
    # OpenAI, max_mode silent: -max collapses, and the max tier means max mode
    ("gpt-5.1-codex-max", None, "gpt-5.1-codex-max", "gpt-5.1-codex", ((R, "max"),), True),
    (
        "gpt-5.1-codex-max-high",
        "low",
        "gpt-5.1-codex-max-high",
        "gpt-5.1-codex-max",
        ((R, "high"),),
        False,
    ),
    # does not reason; the row's max_mode true
    (
        "claude-opus-5-thinking-max-fast",
        None,
        "claude-opus-5-thinking-max-fast",
        "claude-opus-5-thinking-max-fast",
        (),
        True,
    ),
    ("grok-code-fast-1", "high", "grok-code-fast-1", "grok-code-fast-1", (), False),
    ("gpt-5.1-high", None, "gpt-5.1-high", "gpt-5.1", ((R, "high"),), False),
    (
        "gpt-5.3-codex-spark-preview",
        None,
        "gpt-5.3-codex-spark-preview",
        "gpt-5.3-codex-spark-preview",
        (),
        False,
    ),
    ("kimi-k2.5", "medium", "kimi-k2.5", "kimi-k2.5", (), False),
]


@pytest.mark.parametrize(("model", "effort", "wire", "requested", "parameters", "max_mode"), ROUTES)
def test_route(
    model: str,
    effort: str | None,
    wire: str,
    requested: str,
    parameters: tuple[tuple[str, str], ...],
    max_mode: bool,
) -> None:
    assert routing.wire_model_id(model, effort) == wire
    resolved = routing.resolve_wire_model(model, wire)
    assert resolved == routing.WireModel(requested, wire, parameters, max_mode)
    assert routing.resolve_max_mode(model, wire) is max_mode


def test_table_is_large_enough() -> None:
    assert len(ROUTES) >= 30


@pytest.mark.parametrize(
    ("model", "effort", "expected"),
    [
        ("gpt-5.4", "high", "high"),
        ("gpt-5.4", None, None),
        ("gpt-5.4", "off", None),
        ("composer-2.5", "high", None),  # reasoning false
        ("gpt-5.2-xhigh", "xhigh", None),  # reasoning false
        ("kimi-k3-low", "max", "max"),
        ("claude-4-sonnet", "minimal", "minimal"),
        ("gpt-5.6-sol", "max", "max"),
    ],
)
def test_round_effort(model: str, effort: str | None, expected: str | None) -> None:
    assert routing.round_effort(model, effort) == expected


@pytest.mark.parametrize(
    ("model", "effort", "supported"),
    [
        ("gpt-5.4", "max", "low, medium, high, xhigh"),
        ("gpt-5.4", "minimal", "low, medium, high, xhigh"),
        ("claude-4-sonnet", "xhigh", "minimal, low, medium, high"),
        ("kimi-k3-low", "medium", "low, high, max"),
        ("gemini-3-pro", "medium", "low, high"),
    ],
)
def test_unsupported_effort_is_refused(model: str, effort: str, supported: str) -> None:
    with pytest.raises(ConfigError) as caught:
        routing.round_effort(model, effort)
    assert f"Supported efforts: {supported}" in caught.value.detail
    assert model in caught.value.detail
    with pytest.raises(ConfigError):
        routing.wire_model_id(model, effort)


@pytest.mark.parametrize("model", ["composer-2.5", "gpt-5.2-xhigh", "gpt-5.4", "claude-4-sonnet"])
@pytest.mark.parametrize("effort", ["bogus", "HIGH", "", "none"])
def test_an_effort_that_is_no_known_level_is_refused_whatever_the_model(
    model: str, effort: str
) -> None:
    with pytest.raises(ConfigError) as caught:
        routing.round_effort(model, effort)
    assert caught.value.code == "unsupported_effort" and caught.value.status == 400
    assert "Known efforts: off, minimal, low, medium, high, xhigh, max" in caught.value.detail
    assert repr(effort) in caught.value.detail
    with pytest.raises(ConfigError):
        routing.checked_effort(effort)


@pytest.mark.parametrize("effort", [*routing.EFFORTS, "off", None])
def test_a_known_level_on_a_model_that_does_not_reason_asks_no_effort(effort: str | None) -> None:
    assert routing.checked_effort(effort) == (None if effort == "off" else effort)
    assert routing.round_effort("composer-2.5", effort) is None


def test_unknown_model_names_nearest() -> None:
    with pytest.raises(ConfigError) as caught:
        routing.model_row("gpt-5.4-turbo")
    detail = caught.value.detail
    assert "gpt-5.4-turbo" in detail
    assert "gpt-5.4" in detail
    named = detail.split("Nearest known: ", 1)[1].rstrip(".").split(", ")
    assert 1 <= len(named) <= 5
    assert all(name in routing.known_models() for name in named)
    with pytest.raises(ConfigError):
        routing.round_effort("no-such-model", "high")
    with pytest.raises(ConfigError):
        routing.wire_model_id("no-such-model", None)


@pytest.mark.parametrize(
    ("wire_id", "expected"),
    [
        ("gpt-5.5-none", ("gpt-5.5", None)),
        ("gpt-5.5-extra-high", ("gpt-5.5", "xhigh")),
        ("gpt-5.6-sol-xhigh", ("gpt-5.6-sol", "xhigh")),
        ("gpt-5.4-low", ("gpt-5.4", "low")),
        ("gpt-5.4-medium", ("gpt-5.4", "medium")),
        ("gpt-5.4-high", ("gpt-5.4", "high")),
        ("gpt-5.6-luna-max", ("gpt-5.6-luna", "max")),
        ("muse-spark-1.3-minimal", ("muse-spark-1.3", "minimal")),
        ("gpt-5.2-high-fast", ("gpt-5.2-fast", "high")),
        ("gpt-5.5-none-fast", ("gpt-5.5-fast", None)),
        ("gpt-5.6-sol-max-fast", ("gpt-5.6-sol-fast", "max")),
        ("gpt-5.5-extra-high-fast", ("gpt-5.5-fast", "xhigh")),
        ("claude-opus-4-7-thinking-max", ("claude-opus-4-7-thinking", "max")),
        # -max is part of a qwen model's name
        ("qwen3-max", ("qwen3-max", None)),
        ("qwen3-coder-max-fast", ("qwen3-coder-max-fast", None)),
        ("cursor/qwen3-max", ("cursor/qwen3-max", None)),
        ("qwen3-max-high", ("qwen3-max", "high")),
        # no effort suffix: unchanged
        ("composer-2.5-fast", ("composer-2.5-fast", None)),
        ("gpt-5.2", ("gpt-5.2", None)),
        ("high-fast", ("high-fast", None)),
        # matching ignores case, the base keeps it
        ("GPT-5.4-HIGH", ("GPT-5.4", "high")),
    ],
)
def test_collapse_variant(wire_id: str, expected: tuple[str, str | None]) -> None:
    assert routing.collapse_variant(wire_id) == expected


def test_discovered_mode_sends_the_slug_as_it_is() -> None:
    assert routing.resolve_wire_model("gpt-5.4", "gpt-5.4-high", "discovered") == routing.WireModel(
        "gpt-5.4-high", "gpt-5.4-high", (), False
    )
    assert routing.resolve_wire_model(
        "composer-2.5", "composer-2.5", "discovered"
    ) == routing.WireModel("composer-2.5", "composer-2.5", (), False)
    fast = routing.resolve_wire_model(
        "claude-opus-5-5-fast", "claude-opus-5-5-low-fast", "discovered"
    )
    assert fast.max_mode is True


@pytest.mark.parametrize(
    ("model", "wire_id", "roster", "expected"),
    [
        # max_mode absent from the row: the roster's marker, else the tier
        ("gpt-5.2-codex", "gpt-5.2-codex", True, True),
        ("gpt-5.2-codex", "gpt-5.2-codex", False, False),
        ("gpt-5.2-codex", "gpt-5.2-codex", None, False),
        ("gpt-5.1-codex-max", "gpt-5.1-codex-max", False, False),
        ("gpt-5.1-codex-max", "gpt-5.1-codex-max", None, True),
        # the row's own marker beats the roster's
        ("claude-opus-4-8-high-fast", "claude-opus-4-8-high-fast", False, True),
        ("claude-4.6-opus-max", "claude-4.6-opus-max", True, False),
        # the routed slug's own marker beats everything
        ("claude-opus-5-5-fast", "claude-opus-5-5-low-fast", False, True),
        # a model the bundled rows lack: the roster, else the tier
        ("brand-new", "brand-new-xhigh", None, True),
        ("brand-new", "brand-new-xhigh", False, False),
        ("brand-new", "brand-new-low", None, False),
        # a slug the family does not route, on a family whose tiers explain its
        # true marker: the slug's own tier decides
        ("gpt-5.6-sol", "gpt-5.6-sol-preview", None, False),
        ("gpt-5.6-sol", "gpt-5.6-sol-ultra-max", None, True),
    ],
)
def test_resolve_max_mode(model: str, wire_id: str, roster: bool | None, expected: bool) -> None:
    assert routing.resolve_max_mode(model, wire_id, roster) is expected


def test_projection_and_k3() -> None:
    assert routing.needs_schema_projection("claude-fable-5-high") is True
    assert routing.needs_schema_projection("claude-fable-5-1-low") is True
    assert routing.needs_schema_projection("claude-opus-5-high") is False
    assert routing.needs_schema_projection("gpt-5.4") is False
    assert routing.needs_schema_projection("claude-fable-9-high") is True  # not bundled
    assert routing.is_k3("kimi-k3-low") is True
    assert routing.is_k3("kimi-k3-max") is True
    assert routing.is_k3("kimi-k2.5") is False
    assert routing.is_k3("kimi-k2.7-code") is False
    assert routing.is_k3("kimi-k3-preview") is True  # not bundled


def test_model_row_and_known_models() -> None:
    ids = routing.known_models()
    assert ids == sorted(ids)
    assert len(ids) == 123
    row = routing.model_row("gpt-5.4")
    assert row.request == "gpt-5.4-low"
    assert row.model_class == "openai"
    assert row.routing["high"] == "gpt-5.4-high"


def test_import_loads_nothing() -> None:
    code = (
        "import sys, nodecode_cursor, nodecode_cursor.models.routing as r,"
        " nodecode_cursor.models.catalog as c;"
        "assert r._rows.cache_info().currsize == 0;"
        "assert c._models.cache_info().currsize == 0;"
        "assert 'httpx' not in sys.modules;"
        "r.known_models();"
        "assert r._rows.cache_info().currsize == 1"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


_EFFORT_CASES = [
    (model, effort)
    for model in routing.known_models()
    for effort in (None, "off", *(find_model(model).efforts if find_model(model) else ()))
]


def _check_route(model: str, effort: str | None) -> None:
    """Route MODEL at EFFORT and check what any route must satisfy."""
    row = routing.model_row(model)
    wire = routing.wire_model_id(model, effort)
    assert wire in {*row.routing.values(), row.request, model}
    for mode in ("normalized", "discovered"):
        resolved = routing.resolve_wire_model(model, wire, mode)
        assert resolved.details_id == wire
        assert resolved.requested_id in {wire, routing.collapse_variant(wire)[0]}
        assert all(key in {"reasoning", "fast"} for key, _ in resolved.parameters)


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(_EFFORT_CASES))
def test_every_declared_effort_routes(case: tuple[str, str | None]) -> None:
    _check_route(*case)


def test_every_declared_effort_routes_exhaustively() -> None:
    # The whole product is small (a few hundred pairs): check it all, not a sample.
    for model, effort in _EFFORT_CASES:
        _check_route(model, effort)


_BASES = st.from_regex(r"gpt-[0-9]\.[0-9](-[a-z]{2,6})?", fullmatch=True).filter(
    # "-extra" would read as part of "-extra-high"
    lambda base: routing.collapse_variant(base) == (base, None) and not base.endswith("-extra")
)


@given(
    _BASES,
    st.sampled_from(["none", "minimal", "low", "medium", "high", "xhigh", "max"]),
    st.booleans(),
)
def test_collapse_inverts_a_sibling(base: str, tier: str, fast: bool) -> None:
    lane = "-fast" if fast else ""
    expected = None if tier == "none" else tier
    assert routing.collapse_variant(f"{base}-{tier}{lane}") == (base + lane, expected)
    if tier == "xhigh":
        assert routing.collapse_variant(f"{base}-extra-high{lane}") == (base + lane, "xhigh")


# PROTOCOL.md §10's max-mode rule, written out literally and independently of
# routing.py: the routed slug's own marker in max_routes, else the row's
# max_mode, else the roster's marker, else whether the slug's tier is xhigh/max.
_MAX_TIER = re.compile(r"-(?:xhigh|extra-high|max)(?:-fast)?$")


def _protocol_max_mode(model: str, wire: str, roster: bool | None) -> bool:
    """Return max mode as PROTOCOL.md §10 words it, from the raw wire.json row."""
    row = _WIRE_ROWS[model]
    if wire in row["max_routes"]:
        return bool(row["max_routes"][wire])
    if row["max_mode"] is not None:
        return bool(row["max_mode"])
    if roster is not None:
        return roster
    return _MAX_TIER.search(wire) is not None and not wire.startswith("qwen")


_WIRE_ROWS = {
    row["id"]: row
    for row in json.loads(
        (Path(__file__).resolve().parents[2] / "nodecode_cursor" / "data" / "wire.json").read_text(
            encoding="utf-8"
        )
    )
}


@pytest.mark.parametrize("roster", [None, True, False])
def test_max_mode_follows_the_protocol_rule_for_every_route(roster: bool | None) -> None:
    checked = 0
    for model, row in _WIRE_ROWS.items():
        slugs = {*row["routing"].values(), model}
        if row["request"] is not None:
            slugs.add(row["request"])
        for wire in sorted(slugs):
            expected = _protocol_max_mode(model, wire, roster)
            assert routing.resolve_max_mode(model, wire, roster) is expected, (model, wire)
            resolved = routing.resolve_wire_model(model, wire, "normalized", roster)
            assert resolved.max_mode is expected, (model, wire)
            checked += 1
    assert checked > 200
