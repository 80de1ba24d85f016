"""What a round does after one of its runs ended, decided from the run's facts alone.

A run of the ``cursor`` lane ends whole, or broken by an error (docs/protocol.md §4,
§8, §11). What comes next is one pure function, ``decide``: a frozen ``RunFacts``
in (the break, what the fold saw, the tries spent, the retries the round still
allows), one ``Decision`` out, naming the ``Next`` step and the error it carries:

- ``FINISH``: the runs said the turn (or the completeness rule alone calls the
  stream whole and it cannot be resumed): keep the result.
- ``RESUME``: the break came after a checkpoint no exec answer followed, a retry
  may mend it, and fewer than ``limits.MAX_RESUMES`` resumes were spent: run again
  from the checkpoint.
- ``RETRY_VARIANT``: Cursor refused a bare slug bare (a ``ResourceExhausted`` with
  no token delta) and the round still has its one retry on the catalog's variant.
- ``RETRY_DISCOVERED``: Cursor did not know the model before any output and the
  round has not yet tried the discovery id (the lane offers it only when it differs
  from the id the run sent).
- ``RETRY_SHAPE``: the run on one continuation shape went wrong the way a shape
  the model's worker does not take goes wrong (``invalid_argument`` right after
  ``step_completed``, no turn_ended; or it asked again for a call whose result
  the history holds) and the round has not yet tried the other shape
  (``continuation.py``).
- ``RETRY_FIELDS``: Cursor refused a run carrying both model fields with
  ``invalid_argument`` before it sent any message, and the round has not yet tried
  ``requested_model`` alone.
- ``FOLD_HARDER``: Cursor refused a request bare that is past the model's context
  window, or ended one near the root wall ``invalid_argument`` with no tokens, and
  the round has not folded harder yet: rebuild it within half the history budget
  and run once more (the causes and their words are ``causes.py``'s).
- ``FAILOVER``: before any output, Cursor refused the run for a cause another kept
  account can mend (usage-based pricing, a rate or usage limit named in
  ErrorDetails, or a bare refusal once the roster, the history's length and the
  variant are ruled out: the third-party pool, a limit said bare, or a poisoned
  id, all of which a conversation new to another account escapes), and the round
  may move (``RunFacts.may_fail_over``): it goes on with another account
  (``account_choice.next_account``, ``lanes/failover.py``). No account open: the
  round decides again without it (``without_failover``).
- ``ROTATE``: Cursor refused the conversation itself: it gets a new wire id for the
  next round, and this one fails with the error.
- ``FAIL``: the round fails with the error (reworded for a usage-pricing refusal,
  a conversation too long even folded harder, a model the roster does not list,
  a third-party model refused again after a rotation (the pool may be spent), or a
  conversation that has rotated ``limits.MAX_ROTATIONS`` times).

A retry the round then finds pointless (the catalog, asked again, names no other
shape) is decided again without it (``without_retry``); so is a failover with no
account to go to (``without_failover``).
This module only decides: the lane (``attempt.py``, ``round_retries.py``) opens
the runs, rotates the conversation, fetches the catalog and logs; no I/O happens
here.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field, replace

from .. import limits
from ..errors import ModelNotFound, ProviderError, ResourceExhausted
from ..models import catalog
from . import causes
from .account_choice import LIMIT_CODES, USAGE_PRICING_CODES

__all__ = [
    "AGAIN",
    "RETRIES",
    "USAGE_PRICING_CODES",
    "Decision",
    "Next",
    "Retries",
    "RunFacts",
    "conversation_refused",
    "decide",
    "usage_pricing_refusal",
    "without_failover",
    "without_retry",
]


class Next(enum.Enum):
    """The step a round takes after a run ended."""

    FINISH = "finish"
    RESUME = "resume"
    RETRY_VARIANT = "retry_variant"
    RETRY_DISCOVERED = "retry_discovered"
    RETRY_SHAPE = "retry_shape"
    RETRY_FIELDS = "retry_fields"
    FOLD_HARDER = "fold_harder"
    FAILOVER = "failover"
    ROTATE = "rotate"
    FAIL = "fail"


RETRIES = frozenset(
    {Next.RETRY_VARIANT, Next.RETRY_DISCOVERED, Next.RETRY_SHAPE, Next.RETRY_FIELDS}
)
# Every step the round takes on a new attempt rather than by failing.
AGAIN = RETRIES | {Next.FOLD_HARDER, Next.FAILOVER}


@dataclass(frozen=True)
class Retries:
    """The retries on another wire model the round still allows.

    ``variant``: a bare refusal may be a variant shape the catalog did not name in
    time (``may_retry_on_variant``), and the one retry on it is not spent;
    ``discovery``: the model went by its normalized id, so the discovery id is left.
    ``shape``: the other continuation shape is left to try; ``fields``: the run sent
    both model fields, so ``requested_model`` alone is left to try.
    """

    variant: bool = False
    discovery: bool = False
    shape: bool = False
    fields: bool = False


@dataclass(frozen=True)
class RunFacts:
    """What is known when a run has ended: everything ``decide`` looks at.

    ``broke`` is the error that broke the run (None: it said the whole turn);
    ``ended_whole`` that the stream ended without ``turn_ended`` in a shape the
    completeness rule alone calls whole. The fold's view: ``checkpoint`` (one of
    this round is held), ``turn_ended``, ``saw_output`` (any text, thinking or call
    reached the host), ``saw_token_delta``. ``answered_since_checkpoint``: an exec
    answer went out after the newest checkpoint. ``resumes`` is how many runs of
    this attempt resumed a broken one; ``rotations`` how often the conversation got
    a new wire id, and ``in_streak`` whether it rotated since its last complete turn
    (the rotation already failed once). ``model`` and ``display`` name the model in a
    refusal's words.

    What tells the causes of a bare refusal apart (``causes.py``): ``tokens``, the
    request's estimated tokens, and ``window``, the model's context window by the
    bundled rows (0: unknown); ``roots``, the root blobs sent, and ``budget_roots``,
    the budget's; ``folded_harder``, this request was already rebuilt within a halved
    budget; ``listed``, whether the account's roster lists the model (None: the roster
    is unknown) and ``roster_models``, models it does list; ``third_party``, the
    model is not Cursor's own.
    ``after_step_completed``: the last thing the run said was ``step_completed``;
    ``repeated_call``: the run asked again for a call whose result the history holds;
    ``silent``: the run ended before the service said anything but KV asks and heartbeats.
    ``may_fail_over``: the round may go on with another kept account (failover is on,
    the round named no account, one not yet tried is kept, and nothing of this run
    reached the host: no output and no call resolved in place).
    """

    broke: ProviderError | None
    model: str = ""
    display: str = ""
    ended_whole: bool = False
    checkpoint: bool = False
    turn_ended: bool = False
    saw_output: bool = False
    saw_token_delta: bool = False
    answered_since_checkpoint: bool = False
    resumes: int = 0
    rotations: int = 0
    retries: Retries = field(default_factory=Retries)
    after_step_completed: bool = False
    repeated_call: bool = False
    silent: bool = False
    in_streak: bool = False
    tokens: int = 0
    window: int = 0
    roots: int = 0
    budget_roots: int = limits.HISTORY_BUDGET_ROOTS
    folded_harder: bool = False
    listed: bool | None = None
    roster_models: tuple[str, ...] = ()
    third_party: bool = False
    may_fail_over: bool = False


@dataclass(frozen=True)
class Decision:
    """What ``decide`` chose for FACTS: the ``next`` step and the error it carries.

    ``error`` is the error the round fails with (``FAIL``, ``ROTATE``), or the break a
    ``RESUME`` or retry goes on from; None for ``FINISH``. ``note`` says why a
    checkpoint that came was not resumed from, when that is worth a log line.
    """

    next: Next
    facts: RunFacts
    error: ProviderError | None = None
    note: str | None = None


def decide(facts: RunFacts) -> Decision:
    """Return what the round does after the run FACTS describe."""
    broke = facts.broke
    if broke is None:
        if facts.repeated_call and facts.retries.shape:
            return Decision(Next.RETRY_SHAPE, facts)  # it ignored the results it was given
        return Decision(Next.FINISH, facts)
    resumable, note = _resumable(facts, broke)
    if resumable:
        return Decision(Next.RESUME, facts, broke)
    if facts.ended_whole:
        return Decision(Next.FINISH, facts, note=note)  # the completeness rule: keep it
    if broke.code in USAGE_PRICING_CODES:
        error = usage_pricing_refusal(broke, facts.model, facts.display)
        return Decision(_fail_or_failover(facts), facts, error, note)
    if broke.code in LIMIT_CODES and _fails_over(facts):
        return Decision(Next.FAILOVER, facts, broke, note)
    # ErrorDetails say why a quota ran out; only a bare Connect resource_exhausted
    # (ResourceExhausted) before any token means Cursor refused the request itself,
    # for one of several causes (docs/protocol.md §9).
    if isinstance(broke, ResourceExhausted) and not facts.saw_token_delta:
        return _bare_refusal(facts, broke, note)
    # Late, with no tokens, near the root wall: the history is too long to take. Once
    # folded harder, the same refusal again says so (fold once, then tell): the round
    # has spent its retry on the history's length, and chains no other.
    if broke.code == "invalid_argument" and not facts.saw_token_delta:
        near_wall = causes.near_root_wall(facts.roots, facts.budget_roots)
        if near_wall and not facts.folded_harder:
            return Decision(Next.FOLD_HARDER, facts, broke, note)
        if near_wall or facts.folded_harder:
            return Decision(Next.FAIL, facts, causes.roots_refused(broke, facts.roots), note)
    if isinstance(broke, ModelNotFound) and facts.retries.discovery and not facts.saw_output:
        return Decision(Next.RETRY_DISCOVERED, facts, broke, note)
    shape_or_fields = _shape_or_fields(facts, broke)
    if shape_or_fields is not None:
        return Decision(shape_or_fields, facts, broke, note)
    return Decision(Next.FAIL, facts, broke, note)


def _shape_or_fields(facts: RunFacts, broke: ProviderError) -> Next | None:
    """Return the shape or fields retry an ``invalid_argument`` calls for, or None.

    Right after ``step_completed`` with no turn_ended: the worker refused the turns'
    shape. Before any message with both model fields sent: it refused the pair
    (a refusal after the run got going is about something else).
    """
    if broke.code != "invalid_argument" or facts.turn_ended:
        return None
    if facts.after_step_completed and facts.retries.shape:
        return Next.RETRY_SHAPE
    if facts.retries.fields and facts.silent and not facts.saw_output:
        return Next.RETRY_FIELDS
    return None


def _bare_refusal(facts: RunFacts, broke: ProviderError, note: str | None) -> Decision:
    """Return what follows a bare refusal of FACTS' request, by the cause its facts point to.

    In order: a model the roster does not list (no id helps); a request past the
    context window (fold harder once, then say so); a variant shape the catalog may
    name (one retry); a third-party model refused again after a rotation (its pool
    may be spent); else a poisoned id (rotate, at most ``limits.MAX_ROTATIONS`` times).
    """
    model, display = facts.model, facts.display
    if facts.listed is False:
        error = causes.unlisted_model(broke, model, display, facts.roster_models)
        return Decision(Next.FAIL, facts, error, note)
    if facts.window > 0 and facts.tokens > facts.window:
        if not facts.folded_harder:
            return Decision(Next.FOLD_HARDER, facts, broke, note)
        error = causes.too_long(broke, model, display, facts.tokens, facts.window)
        return Decision(Next.FAIL, facts, error, note)
    if facts.retries.variant:
        return Decision(Next.RETRY_VARIANT, facts, broke, note)  # not a rotation
    if _fails_over(facts):
        # A spent pool, a limit said bare or a poisoned id: a conversation new to another
        # account escapes each of them (docs/protocol.md §11b).
        return Decision(Next.FAILOVER, facts, broke, note)
    if facts.third_party and facts.in_streak:
        return Decision(Next.FAIL, facts, causes.pool_spent(broke, model, display), note)
    if facts.rotations >= limits.MAX_ROTATIONS:
        return Decision(Next.FAIL, facts, conversation_refused(broke), note)
    return Decision(Next.ROTATE, facts, broke, note)


def _fails_over(facts: RunFacts) -> bool:
    """Return whether FACTS' round may go on with another account: allowed, nothing shown yet."""
    return facts.may_fail_over and not facts.saw_output and not facts.saw_token_delta


def _fail_or_failover(facts: RunFacts) -> Next:
    """Return FAILOVER when FACTS' round may move to another account, else FAIL."""
    return Next.FAILOVER if _fails_over(facts) else Next.FAIL


def without_failover(decision: Decision) -> Decision:
    """Return the decision for DECISION's run (a FAILOVER) once no other account can take it."""
    if decision.next is not Next.FAILOVER:
        raise ValueError(f"{decision.next} is not a failover")
    return decide(replace(decision.facts, may_fail_over=False))


def without_retry(decision: Decision) -> Decision:
    """Return the decision for DECISION's run once its retry is known to send nothing new."""
    retries = decision.facts.retries
    if decision.next is Next.RETRY_VARIANT:
        retries = replace(retries, variant=False)
    elif decision.next is Next.RETRY_DISCOVERED:
        retries = replace(retries, discovery=False)
    elif decision.next is Next.RETRY_SHAPE:
        retries = replace(retries, shape=False)
    elif decision.next is Next.RETRY_FIELDS:
        retries = replace(retries, fields=False)
    else:
        raise ValueError(f"{decision.next} is not a retry")
    return decide(replace(decision.facts, retries=retries))


def _resumable(facts: RunFacts, broke: ProviderError) -> tuple[bool, str | None]:
    """Return whether the round resumes from the newest checkpoint, and why not when worth saying.

    Only a break a retry may mend (retryable, not a quota's 429) before the turn
    ended, with a checkpoint no exec answer came after, while resumes remain.
    """
    if not facts.checkpoint or facts.turn_ended or facts.resumes >= limits.MAX_RESUMES:
        return False, None
    if not broke.retryable or broke.status == 429:
        return False, None
    if facts.answered_since_checkpoint:
        return False, "an exec answer went out after Cursor's last checkpoint"
    return True, None


def usage_pricing_refusal(exc: ProviderError, model: str, display: str) -> ProviderError:
    """Return the one-line error for a usage-pricing refusal EXC of MODEL (shown as DISPLAY)."""
    row = catalog.find_model(model)
    shown = row.name if row is not None else display
    name = model if shown == model else f"{shown} ({model})"
    service = " ".join(exc.detail.split())
    return ProviderError(
        f"Cursor refused {name}: the account needs usage-based pricing for this model;"
        f" turn it on for the account or choose another model ({service})",
        status=exc.status,
        retryable=False,
        code=exc.code,
    )


def conversation_refused(exc: ProviderError) -> ProviderError:
    """Return the error for Cursor refusing EXC's conversation after every rotation was spent."""
    return ProviderError(
        "Cursor keeps refusing this conversation (resource_exhausted after"
        f" {limits.MAX_ROTATIONS} new conversation ids); start a new session",
        status=exc.status,
        retryable=False,
        code="conversation_refused",
        hint="start a new session",
    )
