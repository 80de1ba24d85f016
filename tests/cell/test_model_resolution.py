"""The pure step that resolves a round's model: from the host's model and effort and the
account's facts (roster, max-mode marker, catalog) to one ``ResolvedModel``, no sockets.

The async part (``model_resolution.resolve``: asking the roster and the catalog) is
driven over real sockets by the lane's tests (test_lane.py, test_variant_rounds.py).
"""

from __future__ import annotations

import dataclasses

import pytest

from nodecode_cursor.errors import BadEffort, UnknownModel
from nodecode_cursor.models.account_models import RosterModel
from nodecode_cursor.models.model_resolution import (
    Asked,
    asked,
    listed,
    may_retry_on_variant,
    resolved,
)
from nodecode_cursor.models.routing import WireModel
from nodecode_cursor.models.variants import ModelCatalog, VariantRoute

# The catalog the account might answer: claude-sonnet-5-medium is a variant of its base id.
SONNET_CATALOG = ModelCatalog(
    routes={
        "claude-sonnet-5-medium": VariantRoute(
            "claude-sonnet-5", (("thinking", "false"), ("effort", "medium")), False
        )
    }
)


def test_a_bundled_model_routes_its_effort_to_the_rows_slug() -> None:
    assert asked("gpt-5.4", "high") == Asked("gpt-5.4", "high", "gpt-5.4-high", True)


def test_thinking_off_routes_to_the_rows_off_slug() -> None:
    assert asked("gpt-5.4-mini", None) == Asked("gpt-5.4-mini", None, "gpt-5.4-mini-none", True)


def test_a_model_that_does_not_reason_asks_no_effort() -> None:
    assert asked("composer-2.5", "high") == Asked("composer-2.5", None, "composer-2.5", True)


def test_an_effort_the_bundled_model_does_not_take_is_refused() -> None:
    with pytest.raises(BadEffort) as caught:
        asked("gpt-5.4", "minimal")
    assert caught.value.model == "gpt-5.4"
    assert caught.value.allowed == ("low", "medium", "high", "xhigh")


def test_a_model_the_rows_lack_goes_as_its_own_slug_asking_no_effort() -> None:
    assert asked("roster-only-9", "high") == Asked("roster-only-9", None, "roster-only-9", False)


def test_a_misspelt_effort_is_refused_even_for_a_model_the_rows_lack() -> None:
    with pytest.raises(BadEffort) as caught:
        asked("roster-only-9", "hgih")
    assert caught.value.model is None and caught.value.effort == "hgih"


def test_the_roster_row_of_a_listed_model_is_returned() -> None:
    roster = (RosterModel("alpha", "Alpha", 1000), RosterModel("roster-only-9", "Only 9", 2000))
    assert listed("roster-only-9", roster) is roster[1]


def test_a_model_the_roster_does_not_list_is_unknown_naming_roster_ids() -> None:
    roster = (RosterModel("roster-only-8", "Only 8", 1000),)
    with pytest.raises(UnknownModel) as caught:
        listed("roster-only-9", roster)
    assert caught.value.model == "roster-only-9"
    assert "roster-only-8" in caught.value.near
    assert caught.value.unchecked is None


def test_a_gpt_slug_goes_as_base_id_and_effort_with_the_slug_for_discovery() -> None:
    model = resolved(asked("gpt-5.4", "high"), None, None)
    assert model.wire == WireModel("gpt-5.4", "gpt-5.4-high", (("reasoning", "high"),), False)
    # The one retry after model-not-found sends the slug untouched.
    assert model.discovery == WireModel("gpt-5.4-high", "gpt-5.4-high", (), False)
    assert model.variant_retry is False  # it carries parameters: not the bare shape
    assert (model.model, model.effort, model.wire_id) == ("gpt-5.4", "high", "gpt-5.4-high")
    assert model.name == "GPT-5.4" and model.bundled


def test_a_sibling_slug_without_a_catalog_goes_bare_and_may_retry_on_a_variant() -> None:
    model = resolved(asked("claude-sonnet-5-medium", None), None, None)
    slug = "claude-sonnet-5-medium"
    assert model.wire == WireModel(slug, slug, (), False)
    assert model.variant_retry is True
    # Discovery would send the same request again: the retry logic sees it is no retry.
    assert model.discovery == model.wire


def test_the_catalogs_variant_names_base_id_and_parameters_and_needs_no_variant_retry() -> None:
    model = resolved(asked("claude-sonnet-5-medium", None), None, SONNET_CATALOG)
    assert model.wire == WireModel(
        "claude-sonnet-5",
        "claude-sonnet-5-medium",
        (("thinking", "false"), ("effort", "medium")),
        False,
    )
    assert model.variant_retry is False
    assert model.discovery == WireModel(
        "claude-sonnet-5-medium", "claude-sonnet-5-medium", (), False
    )


def test_a_catalog_naming_other_slugs_leaves_the_wire_as_routed() -> None:
    model = resolved(asked("gpt-5.4", "high"), None, SONNET_CATALOG)
    assert model.wire == WireModel("gpt-5.4", "gpt-5.4-high", (("reasoning", "high"),), False)


def test_the_roster_marker_decides_max_mode_where_the_row_says_nothing() -> None:
    # composer-1's row has no max-mode marker of its own.
    marked = resolved(asked("composer-1", None), True, None)
    assert marked.marker is True
    assert marked.wire.max_mode is True and marked.discovery.max_mode is True
    assert resolved(asked("composer-1", None), None, None).wire.max_mode is False


def test_a_rows_own_marker_outweighs_the_rosters() -> None:
    # gpt-5.4's rows say every routed slug is not max mode.
    assert resolved(asked("gpt-5.4", "xhigh"), True, None).wire.max_mode is False


def test_a_roster_only_model_is_named_as_the_roster_names_it() -> None:
    model = resolved(asked("roster-only-9", None), True, None, roster_name="Only 9")
    assert model.name == "Only 9" and not model.bundled
    assert model.wire == WireModel("roster-only-9", "roster-only-9", (), True)
    assert model.variant_retry is False  # only a bundled family has siblings to retry on


def test_a_roster_only_gpt_sibling_still_goes_as_base_id_and_effort() -> None:
    model = resolved(asked("gpt-9-high", None), None, None, roster_name="GPT-9 High")
    assert model.wire == WireModel("gpt-9", "gpt-9-high", (("reasoning", "high"),), False)
    assert model.discovery == WireModel("gpt-9-high", "gpt-9-high", (), False)


def test_schema_projection_follows_the_model() -> None:
    assert resolved(asked("claude-fable-5-high", None), None, None).project_schemas is True
    assert resolved(asked("gpt-5.4", "high"), None, None).project_schemas is False


def test_the_resolved_model_is_one_frozen_value() -> None:
    model = resolved(asked("gpt-5.4", "high"), None, None)
    with pytest.raises(dataclasses.FrozenInstanceError):
        model.wire_id = "gpt-5.4-low"  # type: ignore[misc]
    assert model == resolved(asked("gpt-5.4", "high"), None, None)


def test_only_a_bare_slug_of_a_model_with_effort_siblings_may_be_a_missing_variant() -> None:
    bare = WireModel("claude-sonnet-5-medium", "claude-sonnet-5-medium", (), False)
    assert may_retry_on_variant("claude-sonnet-5-medium", bare)
    with_parameters = dataclasses.replace(bare, parameters=(("effort", "medium"),))
    assert not may_retry_on_variant("claude-sonnet-5-medium", with_parameters)
    base_id = dataclasses.replace(bare, requested_id="claude-sonnet-5")
    assert not may_retry_on_variant("claude-sonnet-5-medium", base_id)
    no_siblings = WireModel("composer-2.5", "composer-2.5", (), False)
    assert not may_retry_on_variant("composer-2.5", no_siblings)
    assert not may_retry_on_variant(
        "acct-only-7", WireModel("acct-only-7", "acct-only-7", (), False)
    )
