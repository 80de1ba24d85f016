"""What a round does after a run ended: each outcome of ``decisions.decide`` and its limits.

Pure: facts in, a decision out, no sockets. The model rows named here were read by
hand off the bundled rows (nodecode_cursor/data/wire.json and models.json):
``claude-sonnet-5-medium`` ("Claude Sonnet 5 1M Medium") routes its efforts to
sibling slugs; ``composer-2.5`` ("Composer 2.5") has no routing.
"""

from __future__ import annotations

from dataclasses import FrozenInstanceError, replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nodecode_cursor import limits
from nodecode_cursor.core.decisions import (
    RETRIES,
    Decision,
    Next,
    Retries,
    RunFacts,
    decide,
    without_failover,
    without_retry,
)
from nodecode_cursor.errors import (
    ModelNotFound,
    ProviderError,
    ResourceExhausted,
    StreamIncomplete,
)

CUT = StreamIncomplete("Cursor's answer is incomplete: the connection was cut (try again)")
REFUSED = ResourceExhausted("Connect error resource_exhausted: no")
UNKNOWN = ModelNotFound("Connect error not_found: model not found")

# A run that broke after a checkpoint, before the turn ended: the resumable shape.
BROKE_AFTER_CHECKPOINT = RunFacts(broke=CUT, model="composer-2.5", checkpoint=True)


def test_a_run_that_said_the_whole_turn_finishes() -> None:
    facts = RunFacts(broke=None, checkpoint=True, turn_ended=True)
    assert decide(facts) == Decision(Next.FINISH, facts)


def test_a_break_after_a_checkpoint_resumes_from_it() -> None:
    decision = decide(BROKE_AFTER_CHECKPOINT)
    assert (decision.next, decision.error, decision.note) == (Next.RESUME, CUT, None)


def test_the_last_resume_allowed_resumes_and_the_next_break_fails() -> None:
    last = replace(BROKE_AFTER_CHECKPOINT, resumes=limits.MAX_RESUMES - 1)
    assert decide(last).next is Next.RESUME
    spent = decide(replace(BROKE_AFTER_CHECKPOINT, resumes=limits.MAX_RESUMES))
    assert (spent.next, spent.error) == (Next.FAIL, CUT)


@pytest.mark.parametrize(
    "facts",
    [
        replace(BROKE_AFTER_CHECKPOINT, checkpoint=False),
        replace(BROKE_AFTER_CHECKPOINT, turn_ended=True),
        replace(BROKE_AFTER_CHECKPOINT, broke=ProviderError("refused", retryable=False)),
        replace(BROKE_AFTER_CHECKPOINT, broke=ProviderError("quota", status=429, retryable=True)),
    ],
    ids=["no checkpoint", "turn ended", "not retryable", "a quota's 429"],
)
def test_a_break_a_resume_cannot_mend_fails_with_its_error(facts: RunFacts) -> None:
    decision = decide(facts)
    assert (decision.next, decision.error, decision.note) == (Next.FAIL, facts.broke, None)


def test_an_exec_answer_after_the_checkpoint_fails_and_says_why_it_did_not_resume() -> None:
    decision = decide(replace(BROKE_AFTER_CHECKPOINT, answered_since_checkpoint=True))
    assert (decision.next, decision.error) == (Next.FAIL, CUT)
    assert decision.note == "an exec answer went out after Cursor's last checkpoint"


def test_a_stream_the_completeness_rule_calls_whole_is_kept_when_it_cannot_resume() -> None:
    whole = replace(BROKE_AFTER_CHECKPOINT, ended_whole=True)
    assert decide(whole).next is Next.RESUME  # a resume is still tried first
    spent = decide(replace(whole, resumes=limits.MAX_RESUMES))
    assert (spent.next, spent.error) == (Next.FINISH, None)
    unsafe = decide(replace(whole, answered_since_checkpoint=True))
    assert unsafe.next is Next.FINISH and unsafe.note is not None


def test_a_usage_pricing_refusal_fails_in_one_line_naming_the_model() -> None:
    refusal = ProviderError(
        "Usage-based   pricing\nrequired", status=429, code="USAGE_PRICING_REQUIRED"
    )
    decision = decide(RunFacts(broke=refusal, model="composer-2.5", display="composer-2.5"))
    assert decision.next is Next.FAIL and decision.error is not None
    error = decision.error
    assert error.detail == (
        "Cursor refused Composer 2.5 (composer-2.5): the account needs usage-based pricing"
        " for this model; turn it on for the account or choose another model"
        " (Usage-based pricing required)"
    )
    assert (error.status, error.retryable, error.code) == (429, False, "USAGE_PRICING_REQUIRED")


def test_a_usage_pricing_refusal_of_a_roster_model_uses_its_display_name() -> None:
    refusal = ProviderError("pay", status=429, code="USAGE_PRICING_REQUIRED_CHANGEABLE")
    named = decide(RunFacts(broke=refusal, model="acct-only-7", display="Account Seven"))
    assert named.error is not None
    assert named.error.detail.startswith("Cursor refused Account Seven (acct-only-7): ")
    bare = decide(RunFacts(broke=refusal, model="acct-only-7", display="acct-only-7"))
    assert bare.error is not None
    assert bare.error.detail.startswith("Cursor refused acct-only-7: ")


def test_a_usage_pricing_refusal_never_rotates_nor_retries() -> None:
    refusal = ResourceExhausted("pay", code="USAGE_PRICING_REQUIRED")
    facts = RunFacts(broke=refusal, model="composer-2.5", retries=Retries(variant=True))
    decision = decide(facts)
    assert decision.next is Next.FAIL and decision.error is not refusal


def test_a_bare_refusal_rotates_the_conversation_and_fails_with_it() -> None:
    decision = decide(RunFacts(broke=REFUSED))
    assert (decision.next, decision.error) == (Next.ROTATE, REFUSED)


def test_a_bare_refusal_after_the_last_rotation_says_cursor_keeps_refusing() -> None:
    last = decide(RunFacts(broke=REFUSED, rotations=limits.MAX_ROTATIONS - 1))
    assert last.next is Next.ROTATE
    spent = decide(RunFacts(broke=REFUSED, rotations=limits.MAX_ROTATIONS))
    assert spent.next is Next.FAIL and spent.error is not None
    error = spent.error
    assert error.detail == (
        "Cursor keeps refusing this conversation (resource_exhausted after"
        f" {limits.MAX_ROTATIONS} new conversation ids); start a new session"
    )
    assert (error.status, error.retryable, error.code, error.hint) == (
        429,
        False,
        "conversation_refused",
        "start a new session",
    )


def test_a_resource_exhausted_after_a_token_delta_is_a_quota_not_a_refusal() -> None:
    decision = decide(RunFacts(broke=REFUSED, saw_token_delta=True, retries=Retries(True, True)))
    assert (decision.next, decision.error) == (Next.FAIL, REFUSED)


def test_a_bare_refusal_with_the_variant_retry_left_retries_on_the_variant() -> None:
    decision = decide(RunFacts(broke=REFUSED, retries=Retries(variant=True)))
    assert (decision.next, decision.error) == (Next.RETRY_VARIANT, REFUSED)


def test_a_variant_retry_the_catalog_cannot_serve_rotates_instead() -> None:
    retry = decide(RunFacts(broke=REFUSED, retries=Retries(variant=True, discovery=True)))
    assert without_retry(retry).next is Next.ROTATE
    spent = replace(retry.facts, rotations=limits.MAX_ROTATIONS)
    final = without_retry(decide(spent))
    assert final.next is Next.FAIL and final.error is not None
    assert final.error.code == "conversation_refused"


def test_an_unknown_model_before_any_output_retries_with_the_discovery_id() -> None:
    decision = decide(RunFacts(broke=UNKNOWN, retries=Retries(discovery=True)))
    assert (decision.next, decision.error) == (Next.RETRY_DISCOVERED, UNKNOWN)
    assert without_retry(decision) == Decision(
        Next.FAIL, replace(decision.facts, retries=Retries()), UNKNOWN
    )


@pytest.mark.parametrize(
    "facts",
    [
        RunFacts(broke=UNKNOWN, retries=Retries(discovery=False)),
        RunFacts(broke=UNKNOWN, retries=Retries(discovery=True), saw_output=True),
    ],
    ids=["discovery id already tried", "after output"],
)
def test_an_unknown_model_the_discovery_id_cannot_help_fails(facts: RunFacts) -> None:
    assert decide(facts) == Decision(Next.FAIL, facts, UNKNOWN)


def test_only_a_retry_can_be_decided_again_without_it() -> None:
    for facts in (RunFacts(broke=None), RunFacts(broke=REFUSED), BROKE_AFTER_CHECKPOINT):
        with pytest.raises(ValueError, match="is not a retry"):
            without_retry(decide(facts))


def test_facts_and_decisions_are_values() -> None:
    facts = RunFacts(broke=CUT)
    with pytest.raises(FrozenInstanceError):
        facts.resumes = 1  # type: ignore[misc]
    assert decide(facts) == decide(RunFacts(broke=CUT))


ERRORS = st.sampled_from(
    [
        None,
        CUT,
        REFUSED,
        UNKNOWN,
        ProviderError("refused", retryable=False),
        ProviderError("quota", status=429, retryable=True),
        ProviderError("pay", status=429, code="USAGE_PRICING_REQUIRED"),
        ProviderError("spent", status=429, retryable=True, code="PRO_USER_USAGE_LIMIT"),
    ]
)
FACTS = st.builds(
    RunFacts,
    broke=ERRORS,
    model=st.just("composer-2.5"),
    display=st.just("composer-2.5"),
    ended_whole=st.booleans(),
    checkpoint=st.booleans(),
    turn_ended=st.booleans(),
    saw_output=st.booleans(),
    saw_token_delta=st.booleans(),
    answered_since_checkpoint=st.booleans(),
    resumes=st.integers(0, limits.MAX_RESUMES + 1),
    rotations=st.integers(0, limits.MAX_ROTATIONS + 1),
    retries=st.builds(Retries, st.booleans(), st.booleans()),
    may_fail_over=st.booleans(),
)


@given(FACTS)
def test_every_decision_carries_what_its_step_needs(facts: RunFacts) -> None:
    decision = decide(facts)
    assert decision.facts is facts
    if decision.next is Next.FINISH:
        assert decision.error is None
        assert facts.broke is None or facts.ended_whole
    else:
        assert decision.error is not None
    if decision.next is Next.RESUME:
        assert facts.checkpoint and not facts.turn_ended and facts.resumes < limits.MAX_RESUMES
        assert not facts.answered_since_checkpoint
    if decision.next in RETRIES:
        # A retry decided again without it is the run's end: never another retry or a
        # resume; another account may take it, when the round may move.
        again = without_retry(decision).next
        assert again in {Next.FAIL, Next.ROTATE, Next.FAILOVER}
        assert again is not Next.FAILOVER or facts.may_fail_over
    if decision.next is Next.FAILOVER:
        # Only before anything reached the host, only when the round may move; with no
        # account to move to, the run's end is what it was before failover existed.
        assert facts.may_fail_over and not facts.saw_output and not facts.saw_token_delta
        alone, before = without_failover(decision), decide(replace(facts, may_fail_over=False))
        assert (alone.next, repr(alone.error)) == (before.next, repr(before.error))
        assert alone.next in {Next.FAIL, Next.ROTATE}
    if not facts.may_fail_over:
        assert decision.next is not Next.FAILOVER


LIMIT = ProviderError(
    "Cursor PRO_USER_USAGE_LIMIT: Usage limit reached",
    status=429,
    retryable=True,
    code="PRO_USER_USAGE_LIMIT",
)
PRICING = ProviderError("Cursor USAGE_PRICING_REQUIRED", status=429, code="USAGE_PRICING_REQUIRED")


@pytest.mark.parametrize("broke", [LIMIT, PRICING])
def test_a_limit_or_usage_pricing_before_output_fails_over_when_the_round_may(
    broke: ProviderError,
) -> None:
    facts = RunFacts(broke=broke, model="composer-2.5", display="Composer 2.5", may_fail_over=True)
    decision = decide(facts)
    assert decision.next is Next.FAILOVER
    # The error the round fails with when no account can take it is today's.
    alone = without_failover(decision)
    assert alone.next is Next.FAIL
    assert alone.error is not None and alone.error.code == broke.code
    if broke is PRICING:
        assert "usage-based pricing" in alone.error.detail
    assert decide(replace(facts, may_fail_over=False)).next is Next.FAIL


@pytest.mark.parametrize("shown", ["saw_output", "saw_token_delta"])
def test_no_failover_once_anything_reached_the_host(shown: str) -> None:
    for broke in (LIMIT, PRICING, REFUSED):
        facts = replace(
            RunFacts(broke=broke, model="gpt-5.4", third_party=True, may_fail_over=True),
            **{shown: True},
        )
        assert decide(facts).next is not Next.FAILOVER


def test_a_bare_refusal_fails_over_only_once_its_other_causes_are_ruled_out() -> None:
    base = RunFacts(broke=REFUSED, model="gpt-5.4", third_party=True, may_fail_over=True)
    assert decide(base).next is Next.FAILOVER
    # A model the roster does not list: no account's id helps; say so.
    assert decide(replace(base, listed=False)).next is Next.FAIL
    # A history past the window: fold harder first.
    assert decide(replace(base, tokens=2_000, window=1_000)).next is Next.FOLD_HARDER
    # A variant the catalog may name: that retry first.
    assert decide(replace(base, retries=Retries(variant=True))).next is Next.RETRY_VARIANT
    # Without failover: today's rotation, then the spent pool.
    alone = replace(base, may_fail_over=False)
    assert decide(alone).next is Next.ROTATE
    assert decide(replace(alone, in_streak=True)).error.code == "third_party_pool_spent"  # type: ignore[union-attr]


def test_only_a_failover_can_be_decided_again_without_one() -> None:
    with pytest.raises(ValueError):
        without_failover(decide(RunFacts(broke=CUT)))
