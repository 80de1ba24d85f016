"""Which kept account a round runs on: the pure choice, facts in and a choice out."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nodecode_cursor.core.account_choice import (
    Standing,
    account_cause,
    first_account,
    is_open,
    naming_others,
    next_account,
)
from nodecode_cursor.errors import ModelNotFound, ProviderError, ResourceExhausted

A, B, C = "a@example.com", "b@example.com", "c@example.com"
LIMIT = 95.0


def test_the_active_account_starts_the_round_while_it_is_open() -> None:
    standings = [Standing(A, active=True, used=60.0), Standing(B, used=5.0)]
    chosen = first_account(standings, LIMIT)
    assert (chosen.account, chosen.why) == (A, "the active account")


def test_an_active_account_past_the_threshold_gives_way_to_the_most_left() -> None:
    standings = [
        Standing(A, active=True, used=96.0),
        Standing(B, used=50.0),
        Standing(C, used=10.0),
    ]
    chosen = first_account(standings, LIMIT)
    assert chosen.account == C
    assert "10.0% used" in chosen.why
    assert [name for name, _ in chosen.passed] == [A]
    assert "96.0% of its included usage is used" in dict(chosen.passed)[A]


def test_with_none_open_the_active_account_runs_as_with_one_account() -> None:
    standings = [Standing(A, active=True, used=99.0), Standing(B, refused="usage_limit")]
    assert first_account(standings, LIMIT).account == A
    assert first_account([Standing(B, used=1.0)], LIMIT).account == B
    assert first_account([], LIMIT).account is None


def test_after_a_refusal_the_most_left_open_account_takes_the_round() -> None:
    standings = [
        Standing(A, active=True, tried=True),
        Standing(B, used=97.0),  # past the threshold
        Standing(C, used=40.0, lists_model=False),  # its roster lacks the model
        Standing("d@example.com", used=70.0),
        Standing("e@example.com", used=20.0),
        Standing("f@example.com"),  # usage unknown: after those known
    ]
    chosen = next_account(standings, LIMIT)
    assert chosen.account == "e@example.com"
    assert dict(chosen.passed).keys() == {A, B, C}


def test_unknown_usage_is_chosen_when_nothing_known_is_open() -> None:
    standings = [Standing(A, active=True, tried=True), Standing(B), Standing(C)]
    assert next_account(standings, LIMIT).account == B  # the kept order breaks the tie


def test_no_open_account_is_none() -> None:
    standings = [
        Standing(A, active=True, tried=True),
        Standing(B, ended=True),
        Standing(C, refused="pool_spent"),
    ]
    chosen = next_account(standings, LIMIT)
    assert chosen.account is None
    assert dict(chosen.passed)[B] == "Cursor ended its session"
    assert "pool for third-party models may be spent" in dict(chosen.passed)[C]


def test_the_threshold_is_a_setting() -> None:
    assert is_open(Standing(A, used=80.0), 95.0) is None
    assert is_open(Standing(A, used=80.0), 75.0) is not None


STANDINGS = st.lists(
    st.builds(
        Standing,
        name=st.sampled_from([A, B, C, "d", "e"]),
        active=st.booleans(),
        used=st.none() | st.floats(0, 150),
        refused=st.none() | st.sampled_from(["usage_limit", "refused"]),
        ended=st.booleans(),
        lists_model=st.none() | st.booleans(),
        tried=st.booleans(),
    ),
    max_size=6,
    unique_by=lambda standing: standing.name,  # kept accounts are keyed by email
)


@given(STANDINGS, st.floats(1, 100))
def test_a_failover_goes_only_to_an_open_account_with_the_most_left(
    standings: list[Standing], threshold: float
) -> None:
    chosen = next_account(standings, threshold)
    open_ones = [s for s in standings if is_open(s, threshold) is None]
    if not open_ones:
        assert chosen.account is None
        return
    picked = next(s for s in open_ones if s.name == chosen.account)
    known = [s.used for s in open_ones if s.used is not None]
    if known:
        assert picked.used == min(known)


def test_the_causes_another_account_mends() -> None:
    limit = ProviderError("spent", status=429, code="PRO_USER_USAGE_LIMIT")
    assert account_cause(limit) == "usage_limit"
    assert account_cause(ProviderError("pay", code="USAGE_PRICING_REQUIRED")) == "usage_pricing"
    assert account_cause(ProviderError("pool", code="third_party_pool_spent")) == "pool_spent"
    assert account_cause(ResourceExhausted("bare", code="resource_exhausted")) == "refused"
    # The model's own provider limit, an unknown model, a plain failure: no account mends them.
    assert account_cause(ProviderError("openai", code="OPENAI_RATE_LIMIT_EXCEEDED")) is None
    assert account_cause(ModelNotFound("gone", code="not_found")) is None
    assert account_cause(ProviderError("boom", code="internal")) is None


@pytest.mark.parametrize("kind", [ProviderError, ResourceExhausted])
def test_an_error_names_the_accounts_that_could_take_the_next_round(
    kind: type[ProviderError],
) -> None:
    error = kind("Cursor refused it", status=429, retryable=True, code="X", hint="h")
    named = naming_others(error, [B, C])
    assert type(named) is kind
    assert (named.status, named.retryable, named.code, named.hint) == (429, True, "X", "h")
    assert named.detail.startswith("Cursor refused it; the next round can run on another")
    assert f"{B}, {C}" in named.detail and f"--account {B}" in named.detail
    assert naming_others(error, []) is error
