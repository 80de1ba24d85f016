"""A round's account among the person's kept Cursor accounts: which starts it, which takes it over.

With several accounts kept (``account/accounts.py``) and no saved API key or
host credential answering instead, the cursor lane asks this module:

- ``round_accounts``, before the round's token: which account the round starts
  on. A round that names its account (``RoundContext.account``, ``cursor.account``,
  ``--account``, serve's ``x-cursor-account``) runs there and is never moved
  away. Otherwise, with ``cursor.failover`` on (the default), the active account
  while it is open, else the open one with the most of its plan left
  (``account_choice.first_account``): an account Cursor refused lately, or whose
  dashboard says it is past ``cursor.account_threshold`` percent used, is passed
  over before Cursor refuses it.
- ``take_over``, when ``decisions.decide`` said FAILOVER (a refusal before any
  output another account mends): the account refused is noted (so later rounds,
  and other processes, pass it over for a while), and the round goes on with the
  open account that lists the model and has the most left
  (``account_choice.next_account``), or with none. The switch is said once: an
  INFO log line naming both accounts, the host's notice, and ``RoundResult.failovers``
  (``stamped``), which ``ask --json`` prints and ``serve`` logs. The notice stands
  while rounds run away from the active account (``AccountBook.told``) and the first
  round back on it clears it.
- ``refused``, when the round fails anyway (after output started, on a named
  account, with no account left): a refusal another account mends is noted, and
  the error names the accounts that could take the next round.

Usage is read from each account's dashboard at most every
``limits.ACCOUNT_USAGE_MAX_AGE_SECONDS`` (one read in flight per account, shared
by concurrent rounds) and a round waits for it at most
``limits.ACCOUNT_USAGE_WAIT_SECONDS`` (never past its own timeout): a slower
answer is kept for the next round. What is known is kept on ``CellState.accounts``
(``account/account_book.py``) and under the home. The choosing itself is pure
(``core/account_choice.py``); the lane (``lane.py``) carries out the move: a new
token, the model resolved on it, the conversation new to that account.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from .. import limits
from ..account import credentials, key_exchange
from ..account.account_book import KeptAccounts, used_percent
from ..core.account_choice import (
    Standing,
    account_cause,
    cause_text,
    first_account,
    is_open,
    naming_others,
    next_account,
)
from ..errors import CursorError, ProviderError, loggable
from ..host import AccountSwitch, RoundResult
from ..models import standing

if TYPE_CHECKING:
    from ..core.decisions import Decision
    from ..host import Host, RoundContext
    from ..models.model_resolution import ResolvedModel
    from ..state import CellState

__all__ = ["NOTICE_KEY", "RoundAccounts", "refused", "round_accounts", "stamped", "take_over"]

log = logging.getLogger("nodecode_cursor.lanes.failover")

# The host's notice that says a round moved to another account (its own key).
NOTICE_KEY = "cursor-accounts"


@dataclass(slots=True)
class RoundAccounts:
    """A round's accounts: those kept, the one it runs on now, those it ran on, its switches.

    ``named``: the round named its account (it is never moved away); ``moves``:
    failover is on and it did not.
    """

    kept: KeptAccounts
    current: str
    named: bool = False
    moves: bool = False
    tried: list[str] = field(default_factory=list)
    switches: list[AccountSwitch] = field(default_factory=list)
    # Accounts a failover found could not take the round (its roster, usage, session).
    passed: set[str] = field(default_factory=set)

    @property
    def by_name(self) -> str | None:
        """Return the account the round's token is asked for by name (None: the active one's)."""
        return None if self.named or self.current == self.kept.active else self.current

    def may_move(self) -> bool:
        """Return whether a refusal before output may move the round to an account not yet tried."""
        gone = {*self.tried, self.current}
        return self.moves and any(name not in gone for name in self.kept.names)


async def round_accounts(ctx: RoundContext, state: CellState) -> RoundAccounts | None:
    """Return the round's accounts with the one it starts on; None when it has no choice.

    None: no host, the host's own credential, a saved API key, or fewer than two
    kept accounts (the credential ladder answers as it always did).
    """
    host = ctx.host
    if host is None or ctx.credential:
        return None
    kept = await _kept(host, state)
    if kept.saved_key or len(kept.names) < 2 or kept.active is None:
        return None
    if ctx.account:
        wanted = ctx.account.strip().casefold()
        name = next((n for n in kept.names if n.casefold() == wanted), ctx.account.strip())
        return RoundAccounts(kept, name, named=True)
    accounts = RoundAccounts(kept, kept.active, moves=state.failover)
    if state.failover:
        await _loaded(state)
        accounts.current = await _first(ctx, state, kept)
    return accounts


async def take_over(
    ctx: RoundContext,
    state: CellState,
    accounts: RoundAccounts,
    decision: Decision,
    resolved: ResolvedModel,
) -> str | None:
    """Return the token of the account the refused round goes on with; None when none can.

    DECISION is the FAILOVER ``decisions.decide`` returned (its error is the refusal)
    of a run on RESOLVED; the account refused is noted first, and only an account
    whose roster lists the model (or cannot say) takes the round. ``RoundAccounts.current``
    becomes the new one.
    """
    error = decision.error
    cause = (account_cause(error) if error is not None else None) or "refused"
    if cause == "refused" and decision.facts.third_party:
        cause = "pool_spent"  # the likeliest bare cause once the others are ruled out (§9)
    gone = accounts.current
    await _note_refused(state, gone, cause)
    accounts.tried.append(gone)
    ids = _model_ids(ctx.model, resolved.wire.details_id, resolved.wire.requested_id)
    names = [n for n in accounts.kept.names if n not in accounts.tried]
    found = await asyncio.gather(*(_standing(ctx, state, n, accounts.kept, ids) for n in names))
    choice = next_account([s for s, _ in found], state.account_threshold)
    accounts.passed.update(name for name, _ in choice.passed)
    if choice.account is None:
        log.info(
            "cursor: %s refused the round (%s); no other kept account can take it: %s",
            loggable(gone),
            cause_text(cause),
            loggable("; ".join(f"{n}: {why}" for n, why in choice.passed) or "none is kept"),
        )
        return None
    token = next(t for s, t in found if s.name == choice.account)
    if token is None:  # pragma: no cover - an open account with ids asked always has its token
        return None
    accounts.switches.append(AccountSwitch(gone, choice.account, cause))
    accounts.current = choice.account
    log.info(
        "cursor: the round moved from %s to %s before any output: Cursor refused %s (%s); %s",
        loggable(gone),
        loggable(choice.account),
        loggable(gone),
        cause_text(cause),
        choice.why,
    )
    # The notice stands while rounds run away from the active account (``_first``).
    state.accounts.told = choice.account
    if ctx.host is not None:
        ctx.host.notice(
            f"cursor: {gone} was refused ({cause_text(cause)}); the round went on with"
            f" {choice.account} before any output",
            key=NOTICE_KEY,
            level="info",
        )
    return token


async def refused(
    ctx: RoundContext, state: CellState, accounts: RoundAccounts | None, exc: CursorError
) -> CursorError:
    """Return the error a failed round raises: EXC, naming the accounts that could take the next.

    Only for a refusal another account mends, named by its code (a bare refusal is a
    conversation's, not the account's, once the round decided so); the account that
    was refused is noted, so the next round that names none passes it over.
    """
    if accounts is None or not isinstance(exc, ProviderError):
        return exc
    cause = account_cause(exc)
    if cause is None or cause == "refused":
        return exc
    current = accounts.current
    if current not in accounts.tried:
        await _note_refused(state, current, cause)
    book, threshold = state.accounts, state.account_threshold
    others = []
    for name in accounts.kept.names:
        if name == current or name in accounts.tried or name in accounts.passed:
            continue
        used, _ = book.usage(name)
        facts = Standing(
            name, used=used, refused=book.refused(name), ended=name in accounts.kept.ended
        )
        if is_open(facts, threshold) is None:
            others.append(name)
    return naming_others(exc, others)


def stamped(result: RoundResult, accounts: RoundAccounts | None) -> RoundResult:
    """Return RESULT saying the account it ran on and its switches (RESULT itself without)."""
    if accounts is None:
        return result
    return dataclasses.replace(result, account=accounts.current, failovers=list(accounts.switches))


# The round's first account ------------------------------------------------------------------


async def _first(ctx: RoundContext, state: CellState, kept: KeptAccounts) -> str:
    """Return the account a round that names none starts on (``account_choice.first_account``)."""
    active = kept.active
    assert active is not None  # round_accounts returns None first
    threshold = state.account_threshold
    own, _ = await _standing(ctx, state, active, kept, ())
    if is_open(own, threshold) is None:
        _back_on(ctx, state)
        return active  # the usual case: nothing asked beyond a fresh usage
    ids = _model_ids(ctx.model)
    others = [n for n in kept.names if n != active]
    found = await asyncio.gather(*(_standing(ctx, state, n, kept, ids) for n in others))
    choice = first_account([own, *(s for s, _ in found)], threshold)
    chosen = choice.account or active
    book = state.accounts
    if chosen != active and book.told != chosen:
        book.told = chosen
        why = is_open(own, threshold)
        log.info(
            "cursor: rounds run on %s, not the active %s (%s): %s",
            loggable(chosen),
            loggable(active),
            why,
            choice.why,
        )
        if ctx.host is not None:
            ctx.host.notice(
                f"cursor: rounds run on {chosen} while the active account {active} cannot"
                f" take them ({why})",
                key=NOTICE_KEY,
                level="info",
            )
    elif chosen == active:
        _back_on(ctx, state)
    return chosen


def _back_on(ctx: RoundContext, state: CellState) -> None:
    """Clear the notice that rounds run away from the active account, once they are back."""
    book = state.accounts
    if book.told is None:
        return
    book.told = None
    if ctx.host is not None:
        ctx.host.notice(None, key=NOTICE_KEY)


# What is known of one account ---------------------------------------------------------------


async def _standing(
    ctx: RoundContext, state: CellState, name: str, kept: KeptAccounts, ids: Sequence[str]
) -> tuple[Standing, str | None]:
    """Return what is known of the account NAME for a choice, and its token when it was asked.

    A refusal that stands or an ended session is known without asking anything; else
    its usage (read when stale) and, with IDS, whether its roster lists the model.
    An account whose token cannot be had cannot take a round (its session ended).
    """
    book = state.accounts
    active = name == kept.active
    cause = book.refused(name)
    if cause is not None or name in kept.ended:
        return Standing(name, active, refused=cause, ended=name in kept.ended), None
    used, fresh = book.usage(name)
    if fresh and not ids:
        return Standing(name, active, used=used), None
    try:
        token = await _bearer(ctx, state, name)
    except CursorError as exc:
        log.debug("the account %s cannot be used: %s", loggable(name), loggable(exc.detail))
        return Standing(name, active, ended=True), None
    if not fresh:
        used = await _usage(ctx, state, name, token, used)
    lists: bool | None = None
    if ids:
        lists, _ = await standing.roster_standing(ctx, state, token, ids)
    return Standing(name, active, used=used, lists_model=lists), token


async def _bearer(ctx: RoundContext, state: CellState, name: str) -> str:
    """Return the bearer of the kept account NAME, renewed first when due (a worker thread)."""
    host = ctx.host
    assert host is not None
    base_url = ctx.base_url or limits.DEFAULT_BASE_URL
    token = await asyncio.to_thread(
        functools.partial(
            credentials.account_credential,
            host,
            name,
            base_url=base_url,
            proxy=ctx.proxy,
            ended=state.ended_sessions,
        )
    )
    return await key_exchange.bearer_async(
        token,
        base_url=base_url,
        proxy=ctx.proxy,
        client_version=ctx.client_version,
        home=host.home,
    )


async def _usage(
    ctx: RoundContext, state: CellState, name: str, token: str, stale: float | None
) -> float | None:
    """Return the percent used of NAME's plan, read now; STALE when the read is slower than
    the round may wait (it finishes for the next round)."""
    book = state.accounts
    loop = asyncio.get_running_loop()
    key = (id(loop), name.casefold())
    with book.lock:
        reading = book.reading.get(key)
        if reading is None or reading.done():
            reading = loop.create_task(
                asyncio.to_thread(_read_usage, ctx, state, name, token), name="cursor-usage"
            )
            book.reading[key] = reading
            reading.add_done_callback(functools.partial(_read_done, state, key))
    bound = limits.ACCOUNT_USAGE_WAIT_SECONDS
    wait = min(ctx.request_timeout or bound, bound)
    try:
        answer: float | None = await asyncio.wait_for(asyncio.shield(reading), wait)
    except TimeoutError:
        log.debug("the usage of %s is not in yet; choosing without it", loggable(name))
        return stale
    return answer


def _read_done(state: CellState, key: tuple[int, str], done: asyncio.Task[float | None]) -> None:
    """Forget a finished usage read (its answer is in the book)."""
    book = state.accounts
    with book.lock:
        if book.reading.get(key) is done:
            del book.reading[key]
    if not done.cancelled():
        done.exception()  # read: a failure is the book's unknown, never an unretrieved error


def _read_usage(ctx: RoundContext, state: CellState, name: str, token: str) -> float | None:
    """Return NAME's percent used by its dashboard, kept in the book and the home (blocking)."""
    # Here: a round with one account never loads it.
    from ..account.dashboard import fetch_account_usage

    used: float | None
    try:
        usage = fetch_account_usage(
            token,
            ctx.base_url or limits.DEFAULT_BASE_URL,
            client_version=ctx.client_version,
            proxy=ctx.proxy,
        )
        used = used_percent(usage)
    except CursorError as exc:
        # Not asked again for a while either way: an unreadable dashboard is an unknown.
        log.debug("the usage of %s could not be read: %s", loggable(name), loggable(exc.detail))
        used = None
    book = state.accounts
    book.note_usage(name, used)
    book.persist(name)
    return used


async def _note_refused(state: CellState, name: str, cause: str) -> None:
    """Keep that Cursor refused NAME for CAUSE now (memory, then the home in a worker thread)."""
    book = state.accounts
    book.note_refused(name, cause)
    await asyncio.to_thread(book.persist, name)


async def _kept(host: Host, state: CellState) -> KeptAccounts:
    """Return the kept accounts, read again (in a worker thread) only when auth.json changed."""
    book = state.accounts
    looks = credentials.auth_looks(Path(host.home), state.ended_sessions)
    known = book.kept_if_same(looks)
    if known is not None:
        return known
    kept = await asyncio.to_thread(_read_kept, host, state.ended_sessions)
    book.keep(looks, kept)
    return kept


def _read_kept(host: Host, ended: set[str]) -> KeptAccounts:
    """Return the kept accounts auth.json holds (blocking; StoreError on a bad file)."""
    from ..account.accounts import listed
    from ..account.signin import session_ended
    from ..account.store import AuthStore

    store = AuthStore(host.home)
    kept = listed(store)
    return KeptAccounts(
        names=tuple(a.name for a in kept),
        active=next((a.name for a in kept if a.active), None),
        saved_key=bool(store.api_key()),
        ended=frozenset(a.name for a in kept if session_ended(a.entry, ended)),
    )


async def _loaded(state: CellState) -> None:
    """Read what the home keeps of the accounts, once per state (a worker thread)."""
    book = state.accounts
    if not book.loaded:
        await asyncio.to_thread(book.load)


def _model_ids(*ids: str) -> tuple[str, ...]:
    """Return IDS without blanks or repeats, in order."""
    return tuple(dict.fromkeys(i for i in ids if i))
