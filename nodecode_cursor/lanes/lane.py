"""The ``cursor`` lane: one call runs one Cursor round, history in, one assistant message out.

A round is one Cursor run (docs/protocol.md §4–§9). The lane resolves the model
once (``model_resolution.resolve``: effort, wire slug, roster, max mode, catalog
variant and the retries they allow), asking on the way for the token (the
context's, else the cell's credential ladder, refreshing a due sign-in), builds
the run request from the history (``request``), opens the run (``run_route``)
and pumps it (``pump.Pump``: every server message to the fold and the answerer,
the answers back). When a run ends, ``_Attempt`` gathers its facts (the
completeness rule, the end-of-stream error) and does what ``decisions.decide``
says: finish; resume from the checkpoint (at most ``limits.MAX_RESUMES`` times);
retry once on the catalog's variant, or with the discovery id when the model was
not found before any output, or within a halved history budget when the request
was past the model's context window or near the root wall (those three are made
by ``_round`` on a new attempt); rotate the conversation for a bare
``resource_exhausted`` no other cause explains (at most ``limits.MAX_ROTATIONS``
times); retry once on the other continuation shape, or with ``requested_model``
alone, and remember for the model what worked (``continuation.py``); or fail. The
facts that tell the causes of a bare refusal apart (the request's size, the
roster's standing of the model, whether it is Cursor's own) are gathered by
``_one_run`` (``models.standing``). A kept checkpoint older than the service
keeps one is not sent, and one is dropped when a run ends ``invalid_argument`` or
``failed_precondition``: the next request rebuilds from the history. What it keeps between rounds
(conversations, the Kimi K3 writer table, rosters) lives in the cell's
``CellState``, which the cell passes to every round; what another process needs
to go on with a conversation (``continuity.Kept``) is read before the round and
written after it, in a worker thread.

What a message means is ``fold.py``'s and ``answers.py``'s business; what follows a
run is ``decisions.py``'s; the bytes on the wire are ``sse.py``'s.
"""

from __future__ import annotations

import asyncio
import dataclasses
import enum
import functools
import logging
import os
import threading
import time
import uuid
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from .. import limits
from ..account import key_exchange
from ..account.store import account_key
from ..core import causes, continuation, decisions
from ..core.answers import Answerer
from ..core.bridge import function_tools, wire_names
from ..core.budget import HistoryBudget, resolve_budget
from ..core.continuity import (
    MessageDigests,
    call_key,
    history_mark,
    session_key,
    trailing_call_ids,
)
from ..core.cost import round_cost
from ..core.decisions import USAGE_PRICING_CODES, Next
from ..core.fold import Fold
from ..core.history import HistoryBlobs
from ..core.request import build_run_request, resume_request
from ..errors import (
    CursorError,
    ProviderError,
    ResourceExhausted,
    StreamIncomplete,
    loggable,
)
from ..host import (
    Finish,
    RoundContext,
    RoundResult,
    StreamPart,
    StreamStart,
    ToolCallArgsDelta,
    ToolCallStart,
)
from ..models import model_resolution, standing
from ..state import CellState
from ..transports.run import RunSettings
from ..transports.run_route import open_run
from . import failover, round_token, shapes
from .pump import Pump
from .round_history import give_memo, read_history, take_memo
from .round_images import fitted_messages

if TYPE_CHECKING:
    from ..core.blobs import Conversation
    from ..core.history_memo import HistoryMemo
    from ..core.request import RunRequestBuild
    from ..core.writers import WriterTable
    from ..models.model_resolution import ResolvedModel
    from ..models.routing import WireMode, WireModel

__all__ = ["TURN_END_GRACE_SECONDS", "USAGE_PRICING_CODES", "stream_round", "stream_round_sync"]

log = logging.getLogger("nodecode_cursor.lanes.lane")

TURN_END_GRACE_SECONDS = limits.TURN_END_GRACE_SECONDS

# A run ending with one of these codes drops the kept checkpoint (docs/protocol.md §9).
_STALE_CHECKPOINT_CODES = frozenset({"invalid_argument", "failed_precondition"})


def stream_round_sync(ctx: RoundContext, state: CellState | None = None) -> RoundResult:
    """Return ``stream_round(ctx, state)`` run to completion, for callers without an event loop.

    The public synchronous facade; without STATE the round keeps nothing (see ``stream_round``).
    """
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(stream_round(ctx, state))
    # Called from inside a running loop: run the round on a loop of its own.
    outcome: list[RoundResult] = []
    failure: list[BaseException] = []

    def run() -> None:
        try:
            outcome.append(asyncio.run(stream_round(ctx, state)))
        except BaseException as exc:  # handed back to the caller's thread below
            failure.append(exc)

    worker = threading.Thread(target=run, name="cursor-round", daemon=True)
    worker.start()
    worker.join()
    if failure:
        raise failure[0]
    return outcome[0]


async def stream_round(ctx: RoundContext, state: CellState | None = None) -> RoundResult:
    """Return one round on Cursor: the assistant message, usage and finish reason.

    STATE is what the cell keeps between rounds (conversations, writers, rosters);
    the cell passes its own. Without one the round builds a throwaway state: it
    keeps nothing, so a session rebuilds from the history every round and a
    roster-only model asks the roster every time.
    Stream parts go to ``ctx.on_part`` as they arrive (StreamStart first; Finish
    last, when the round succeeds). Raises ConfigError (bad model or effort, not
    signed in — before any run; a model only the roster names asks the roster
    first: ``model_resolution.resolve``), ProviderError (the service's own
    error), StreamIncomplete (the stream ended before the turn did; a retry may
    work). Cancelling the task stops the run at once.
    """
    if state is None:
        state = CellState()
    # Which kept account the round starts on, when it has a choice (failover.py).
    accounts = await failover.round_accounts(ctx, state)
    by_name = accounts.by_name if accounts is not None else None
    # The model in one step: bundled row, roster, max-mode marker, catalog variant and
    # the retries it allows; the token is asked once the effort is known good.
    token, resolved = await model_resolution.resolve(
        ctx, state, functools.partial(round_token.token, ctx, state, by_name)
    )
    # The session's history as its last round read it: each pass over the history
    # reads only the messages that round did not (round_history.py).
    held = take_memo(state, ctx.session_id)
    try:
        return await _read_round(ctx, state, token, resolved, held, accounts)
    finally:
        give_memo(state, ctx.session_id, held)


async def _read_round(
    ctx: RoundContext,
    state: CellState,
    token: str,
    resolved: ResolvedModel,
    held: HistoryMemo | None,
    accounts: failover.RoundAccounts | None,
) -> RoundResult:
    """Return ``stream_round``'s result, the history read with HELD, the session's memo;
    ACCOUNTS, when the round has a choice of kept accounts, may take it over (failover.py)."""
    system, messages, tools, memo = read_history(ctx, held)
    # Hashed once for both questions about the history (does it go on from the
    # session's last round, and what is this round's mark); a long message seen in
    # an earlier round is not hashed again (the memo is read under the state's lock).
    known = memo.digests if memo is not None else None
    digests = MessageDigests(messages, state.digest_memo, known)
    conversation = await _round_conversation(state, ctx.session_id, digests, account_key(token))
    # Images within Cursor's limits, earlier ones as placeholders (round_images.py);
    # after the digests, which stay the host's own messages.
    messages = await fitted_messages(ctx, messages, memo)
    with state.lock:
        table = state.writers
    handed: list[str] = []
    try:
        while True:
            outcome = await _round(
                ctx,
                state,
                resolved,
                token,
                conversation,
                table,
                messages,
                system,
                tools,
                handed,
                memo,
                may_fail_over=accounts is not None and accounts.may_move(),
                started=accounts is not None and bool(accounts.switches),
            )
            if isinstance(outcome, RoundResult):
                result = outcome
                break
            # Refused before any output for a cause another account mends: the same round
            # on the next account, as a conversation new to it (the whole history).
            assert accounts is not None  # only a round that may move is told to
            moved = await failover.take_over(ctx, state, accounts, outcome, resolved)
            if moved is None:
                raise _ended(conversation, decisions.without_failover(outcome))
            token = moved
            _, resolved = await model_resolution.resolve(
                ctx, state, functools.partial(round_token.given, moved)
            )
            with state.lock:
                conversation.for_account(account_key(token))
    except CursorError as exc:
        await _keep_conversation(state, conversation, digests, None, handed)
        if exc.status == 401 and key_exchange.forget(token):
            log.info("Cursor refused the API key's session token; the next round exchanges it")
            raise ProviderError(
                "Cursor refused the session token the API key was exchanged for; the key is"
                " exchanged again on the next round (try again)",
                status=401,
                retryable=True,
                code="api_key_session_refused",
            ) from exc
        said = await failover.refused(ctx, state, accounts, exc)
        if said is exc:
            raise
        raise said from exc
    await _keep_conversation(state, conversation, digests, result.message, handed)
    _emit(ctx, Finish(result.finish_reason))
    return failover.stamped(result, accounts)


async def _round(
    ctx: RoundContext,
    state: CellState,
    resolved: ResolvedModel,
    token: str,
    conversation: Conversation,
    table: WriterTable,
    messages: list[dict[str, Any]],
    system: str | None,
    tools: list[dict[str, Any]],
    handed: list[str],
    memo: HistoryMemo | None = None,
    *,
    may_fail_over: bool = False,
    started: bool = False,
) -> RoundResult | decisions.Decision:
    """Return the round's result on CONVERSATION, retrying as the service's answers allow.

    The keys of the calls the round handed off are added to HANDED; MEMO is the
    session's history memo (``history_memo.HistoryMemo``), None without one.
    MAY_FAIL_OVER: a refusal another account mends returns the FAILOVER decision, for
    ``stream_round`` to carry out; STARTED: the host was already told the stream
    started (on the account the round moved from).
    """
    if not started:
        _emit(ctx, StreamStart(resolved.wire_id))
    mode: WireMode = "normalized"
    wire = resolved.wire
    # Without the catalog a sibling slug goes bare; if Cursor refuses that shape, the
    # catalog is asked again and the round retried once on the variant it names.
    variant_retry = resolved.variant_retry
    # The continuation shape and model fields: learned, else the family's; one retry each.
    learned = await shapes.learned(state, ctx.model)
    first = continuation.plan(
        ctx.model,
        shapes.setting(ctx.continuation),
        learned,
        shape_matters=continuation.shape_matters(messages),
    )
    shape, fields = first.shape, first.fields
    shape_retry, fields_retry = first.shape_retry, first.fields_retry
    # The history budget the request is built within (the setting, else the default);
    # halved once when Cursor refused a request too long for the model (FOLD_HARDER).
    budget = resolve_budget(os.environ.get(limits.HISTORY_BUDGET_ENV), ctx.history_budget)
    folded_harder = False
    while True:
        if conversation.expire_checkpoint(time.monotonic()):
            log.info("the kept checkpoint is older than Cursor keeps one; rebuilding from history")
        attempt = _Attempt(
            ctx,
            state,
            messages=messages,
            system=system,
            tools=tools,
            token=token,
            wire=wire,
            resolved=resolved,
            conversation=conversation,
            table=table,
            # The discovery id is worth one retry only while it would send something new.
            retries=decisions.Retries(
                variant=variant_retry,
                discovery=mode == "normalized" and resolved.discovery != wire,
                shape=shape_retry,
                fields=fields_retry,
            ),
            shape=shape,
            fields=fields,
            budget=budget,
            folded_harder=folded_harder,
            memo=memo,
            may_fail_over=may_fail_over,
        )
        result = await attempt.run()
        if isinstance(result, decisions.Decision):
            if result.next is Next.FAILOVER:
                return result
            if result.next is Next.FOLD_HARDER:
                facts = result.facts
                log.info(
                    "Cursor refused a request of about %d tokens and %d history blobs "
                    "(window %d); folding older messages harder and retrying once",
                    facts.tokens,
                    facts.roots,
                    facts.window,
                )
                budget, folded_harder = budget.halved(), True
                continue
            if result.next is Next.RETRY_SHAPE:
                shape_retry, shape = False, continuation.other_shape(shape)
                log.info("retrying %s with the %s continuation", loggable(ctx.model), shape.value)
                continue
            if result.next is Next.RETRY_FIELDS:
                fields_retry, fields = False, continuation.ModelFields.REQUESTED_ONLY
                log.info("Cursor refused both model fields; retrying with requested_model alone")
                continue
            if result.next is Next.RETRY_VARIANT:
                variant_retry = False
                routed = await model_resolution.fresh_variant(ctx, state, token, wire)
                if routed != wire:
                    log.info(
                        "Cursor refused %s bare; retrying on its variant", loggable(wire.details_id)
                    )
                    wire = routed
                    continue
            else:
                log.info(
                    "Cursor did not know %s; retrying with the discovery id",
                    loggable(wire.requested_id),
                )
                mode, wire = "discovered", resolved.discovery
                continue
            # The variant the catalog names is the one refused: the run's end, without it.
            raise attempt.ended(decisions.without_retry(result))
        if result.finish_reason == "tool_calls":
            calls = result.message.get("tool_calls") or []
            handed.extend(call_key(str(c["id"])) for c in calls if c.get("id"))
            with state.lock:
                state.conversations.handed_off(conversation, handed)
        news = continuation.learned_after(first, learned, shape, fields)
        if news is not None:
            await shapes.learn(state, ctx.model, news)
        return result


async def _round_conversation(
    state: CellState, session_id: str | None, digests: MessageDigests, account: str
) -> Conversation:
    """Return the round's conversation (``Conversations.for_round``), its kept records read.

    DIGESTS holds the round's messages (``MessageDigests.messages``); ACCOUNT is the
    round's (``store.account_key``): a wire id another account ran starts afresh.

    A history that ends on the results of calls a round handed off (in this
    process or, through the store, in another) goes on in that round's
    conversation: a host that sends no session, or a new one for every request
    (as an API server does for each Responses call), or a new process, still
    continues its tool loop instead of starting over. The store may wait on
    another process's lock, so it is read in a worker thread.
    """
    calls = [call_key(call_id) for call_id in trailing_call_ids(digests.messages)]
    store = state.continuity
    by_call = own = None
    if store is not None and (calls or session_id):
        own_key = session_key(session_id) if session_id else None
        by_call, own = await asyncio.to_thread(store.lookup, own_key, calls)
    with state.lock:
        return state.conversations.for_round(session_id, digests, calls, by_call, own, account)


async def _keep_conversation(
    state: CellState,
    conversation: Conversation,
    digests: MessageDigests,
    reply: Mapping[str, Any] | None,
    handed: Sequence[str],
) -> None:
    """Write what another process needs to go on with CONVERSATION, in a worker thread.

    A session's conversation also keeps the mark of the messages a complete round
    sent (DIGESTS) and its REPLY (a later round that holds neither is a side request); a
    sessionless one is written only once it handed off calls (HANDED).
    """
    with state.lock:
        if conversation.key.startswith("s:") and reply is not None:
            conversation.mark = history_mark(digests, reply)
        store = state.continuity
        if store is None or not conversation.lasting:
            return
        kept = conversation.kept()
    await asyncio.to_thread(store.save, kept, list(handed))


# The notice that says a conversation's history folds (its own key: the sign-in's
# notice stands under the cell's).
FOLD_NOTICE_KEY = "cursor-history"


def _tell_fold(ctx: RoundContext, conversation: Conversation, history: HistoryBlobs) -> None:
    """Log a request's folded history at INFO, and tell the host once per conversation."""
    if not history.folded:
        return
    log.info(
        "history folded: %d earlier messages into a summary, because %s",
        history.folded,
        history.fold_reason,
    )
    if conversation.fold_told or ctx.host is None:
        return
    conversation.fold_told = True
    ctx.host.notice(
        f"cursor: this conversation is long, so its oldest {history.folded} messages are "
        f"sent as a short summary ({history.fold_reason}); the newest messages and the "
        "current round still go whole.",
        key=FOLD_NOTICE_KEY,
        level="info",
    )


def _emit(ctx: RoundContext, part: StreamPart) -> None:
    if ctx.on_part is not None:
        ctx.on_part(part)


def _new_id() -> str:
    """Return a fresh id for a call the service named none for (the core's id factory)."""
    return str(uuid.uuid4())


def _ended(conversation: Conversation, decision: decisions.Decision) -> ProviderError:
    """Return the error DECISION (a FAIL or ROTATE) ends the round with, after its effect.

    A ROTATE gives CONVERSATION a new wire id (``Conversation.poison``, once per
    failure streak) for the next round; the round fails either way.
    """
    error = decision.error
    if error is None or decision.next not in (Next.FAIL, Next.ROTATE):
        raise ValueError(f"a {decision.next.value} decision ends no round with an error")
    if decision.next is Next.ROTATE and conversation.poison():
        log.info("Cursor refused the conversation (resource_exhausted); rotating its id")
    return error


class Stage(enum.Enum):
    """Where an ``_Attempt`` is; ``_Attempt.run`` moves it forward, never back to NEW."""

    NEW = "new"  # made; no run opened yet
    RUNNING = "running"  # a run is open: the first, or one resuming a broken one
    RESUMING = "resuming"  # a run broke after a checkpoint; the next resumes from it
    FINISHED = "finished"  # the runs said the turn; the result is built and written
    RETRY = "retry"  # ended for a retry the round makes on another wire model
    FAILED = "failed"  # ended with the error the decision named


class _Attempt:
    """The round on one wire model: its run, and the runs that resume it from a checkpoint.

    Everything it needs comes to the constructor; its progress is ``stage``. What
    follows each run is ``decisions.decide``'s; the messages are pumped by ``pump.Pump``.
    """

    def __init__(
        self,
        ctx: RoundContext,
        state: CellState,
        *,
        messages: Sequence[Mapping[str, Any]],
        system: str | None,
        tools: list[dict[str, Any]],
        token: str,
        wire: WireModel,
        conversation: Conversation,
        table: WriterTable,
        resolved: ResolvedModel,
        retries: decisions.Retries,
        shape: continuation.Shape = continuation.Shape.RESUME,
        fields: continuation.ModelFields = continuation.ModelFields.BOTH,
        budget: HistoryBudget | None = None,
        folded_harder: bool = False,
        memo: HistoryMemo | None = None,
        may_fail_over: bool = False,
    ) -> None:
        """Ready the round on WIRE; STATE lends its HTTP/2 pool, clients and reply cap.

        RETRIES are the retries on another wire model, shape or fields the round still
        allows: a run that ends in one returns it from ``run`` instead of failing.
        SHAPE and FIELDS are the continuation shape and model fields to send. BUDGET
        bounds the history the request carries; FOLDED_HARDER says it is already halved.
        MEMO is the session's history memo (None: the history is read whole).
        MAY_FAIL_OVER: another kept account may take the round (``decisions.RunFacts``).
        """
        self.ctx = ctx
        self.state = state
        self.resolved = resolved
        self.messages = messages
        self.system = system
        self.tools = tools
        self.token = token
        self.wire = wire
        self.display = resolved.name
        self.conversation = conversation
        self.table = table
        self.retries = retries
        self.shape = shape
        self.fields = fields
        # A call the model asks for again may be a shape retry's (decisions.py): its
        # parts wait for the run's end, and are dropped when the round retries.
        held = retries.shape and any(m.get("role") == "tool" for m in messages)
        self.held: list[StreamPart] | None = [] if held else None
        self.budget = budget or HistoryBudget()
        self.folded_harder = folded_harder
        self.memo = memo
        self.may_fail_over = may_fail_over
        self.build: RunRequestBuild | None = None
        self.stage = Stage.NEW
        self.frames = 0  # server messages received over all runs, heartbeats included
        self.resumes = 0  # runs after the first, each resuming a broken one
        self.first_request_id: str | None = None  # the id the service knows the first run by

    async def run(self) -> RoundResult | decisions.Decision:
        """Return the round's result, or the retry the round makes; raise the error that ended it.

        The first run carries the built request; after each run ``decisions.decide``
        says what follows: a run resuming from the newest checkpoint (all folded into
        one message), the result, a retry on another wire model (returned, for the
        round to make), or the error (raised, the conversation rotated first when
        Cursor refused it). An attempt runs once.
        """
        if self.stage is not Stage.NEW:
            raise RuntimeError(f"an attempt runs once (it is {self.stage.value})")
        ctx = self.ctx
        model = ctx.model
        answerer = Answerer(
            tools=list(self.tools),
            system_prompt=self.system or "",
            # "" is a client's own folder this process does not know (serve): paths
            # stay relative and a shell tool's folder is left out, for the client.
            cwd=ctx.cwd if ctx.cwd is not None else os.getcwd(),
            blobs=self.conversation.blobs,
            project_schemas=self.resolved.project_schemas,
            new_id=_new_id,
            native_kinds=ctx.native_kinds if ctx.run_native is not None else frozenset(),
        )
        fold = Fold(new_id=_new_id, host_names=answerer.host_names, declared=answerer.declared)
        build = build_run_request(
            self.messages,
            self.system,
            self.wire,
            model,
            self.resolved.name,
            self.conversation,
            writers=self.table,
            tool_names=wire_names(fn["name"] for fn in function_tools(self.tools)),
            native=self.state.bridged.replay,
            budget=self.budget,
            mcp_tools=answerer.tool_definitions,  # field 4: the request context's own
            shape=self.shape,
            fields=self.fields,
            memo=self.memo.build if self.memo is not None else None,
        )
        self.build = build
        _tell_fold(ctx, self.conversation, build.history)
        settings = RunSettings(
            base_url=ctx.base_url or limits.DEFAULT_BASE_URL,
            token=self.token,
            client_version=limits.client_version(ctx.client_version),
            proxy=ctx.proxy,
            request_timeout=ctx.request_timeout or limits.DEFAULT_REQUEST_TIMEOUT_SECONDS,
            append_base_timeout=ctx.append_timeout or limits.APPEND_BASE_TIMEOUT_SECONDS,
            transport=ctx.transport or limits.DEFAULT_RUN_TRANSPORT,
            clients=self.state.http_clients,
        )
        # While the runs are open the service may ask for any blob this request names
        # or that it set itself: a build for another round of the conversation must
        # not prune them under it.
        blobs = self.conversation.blobs
        pin = blobs.pin(build.history.blob_ids)
        started = time.monotonic()
        data = build.data
        try:
            while True:
                self.stage = Stage.RUNNING
                facts = await self._one_run(settings, data, fold, answerer)
                if fold.checkpoint is not None:
                    # A run on this wire id was accepted and checkpointed: the service
                    # knows it (before a rotation, which makes a new id unseen).
                    self.conversation.seen = True
                decision = decisions.decide(facts)
                if decision.note is not None:
                    log.info("not resuming: %s", decision.note)
                checkpoint = fold.checkpoint
                if decision.next is not Next.RESUME or checkpoint is None:
                    break
                self.stage = Stage.RESUMING
                self.resumes += 1
                log.info(
                    "Cursor's stream broke after a checkpoint (%s); resuming (%d of %d)",
                    loggable(facts.broke.detail if facts.broke is not None else ""),
                    self.resumes,
                    limits.MAX_RESUMES,
                )
                await asyncio.sleep(limits.RESUME_WAIT_SECONDS)
                fold.resume()
                data = resume_request(build, checkpoint)
                if settings.original_request_id is None:
                    settings = dataclasses.replace(
                        settings, original_request_id=self.first_request_id
                    )
            if decision.next is not Next.FINISH and decision.next not in decisions.AGAIN:
                raise self.ended(decision)
            if decision.next is Next.FINISH:
                self._release()
        finally:
            blobs.unpin(pin)
            if answerer.bridged:
                # Kept for the next round, which replays each as its native step.
                with self.state.lock:
                    self.state.bridged.add(answerer.bridged.values())
        if decision.next is not Next.FINISH:
            self.stage = Stage.RETRY
            return decision
        result, written = self._finish(build, fold, time.monotonic() - started)
        store = self.table.store
        if store is not None:
            # The disk table may wait on another process's lock: never on the event loop.
            for digest in written:
                await asyncio.to_thread(store.put, digest, self.ctx.model)
        self.stage = Stage.FINISHED
        return result

    def _show(self, part: StreamPart) -> None:
        """Hand PART to the host, or hold a tool call's part while a shape retry may drop it."""
        if self.held is not None and isinstance(part, (ToolCallStart, ToolCallArgsDelta)):
            self.held.append(part)
        elif self.ctx.on_part is not None:
            self.ctx.on_part(part)

    def _release(self) -> None:
        """Hand the held tool-call parts to the host (the run's calls are the round's)."""
        held, self.held = self.held or [], None
        for part in held:
            _emit(self.ctx, part)

    def ended(self, decision: decisions.Decision) -> ProviderError:
        """Return the error DECISION (a FAIL or ROTATE) ends the round with, after its effect.

        A ROTATE gives the conversation a new wire id (``Conversation.poison``, once
        per failure streak) for the next round; this one fails either way.
        """
        error = _ended(self.conversation, decision)
        self.stage = Stage.FAILED
        return error

    async def _one_run(
        self, settings: RunSettings, data: bytes, fold: Fold, answerer: Answerer
    ) -> decisions.RunFacts:
        """Return the facts of one run: what broke it (None: it said the whole turn), what it saw.

        DATA is the run request. The break is the run's error, its end-stream
        error (unless moot), or StreamIncomplete for a stream that ended before
        the turn did; a stream that ends without turn_ended after a checkpoint of
        this round is a break even when the completeness rule would call it whole
        (``ended_whole`` says so).
        """
        started = time.monotonic()
        run = open_run(settings, self.state.run_connections)
        pump = Pump(
            run,
            fold,
            answerer,
            show=self._show if self.held is not None else self.ctx.on_part,
            runner=self.ctx.run_native,
            max_reply_bytes=self.state.max_reply_bytes,
        )
        broke: ProviderError | None = None
        try:
            async with run:
                self._log_start(data, run.request_id, settings.original_request_id)
                run.send(data)
                await pump.drain()
        except ProviderError as exc:
            broke = exc
        finally:
            self.frames += pump.frames
            if settings.original_request_id is None:
                # The id the service knows the first run by (a move to RunPoll renews it).
                self.first_request_id = run.request_id
        ended_whole = False
        if broke is not None:
            log.debug(
                "run failed after %.3f s, frames=%d: %s",
                time.monotonic() - started,
                self.frames,
                loggable(broke.detail),
            )
        elif run.end_error is not None and not fold.end_error_ignored:
            broke = run.end_error
        elif not fold.turn_ended and (fold.checkpoint is not None or not fold.complete):
            ended_whole = fold.complete
            why = run.cut or "the stream ended before the turn did"
            broke = StreamIncomplete(f"Cursor's answer is incomplete: {why} (try again)")
        if broke is not None and broke.code in _STALE_CHECKPOINT_CODES:
            # The service may no longer hold what the checkpoint names (opencodex drops
            # one on invalid_argument): the next request rebuilds from the history.
            self.conversation.drop_checkpoint()
        cause = await self._cause_facts(broke, fold.saw_token_delta)
        return decisions.RunFacts(
            broke=broke,
            model=self.ctx.model,
            display=self.display,
            ended_whole=ended_whole,
            checkpoint=fold.checkpoint is not None,
            turn_ended=fold.turn_ended,
            saw_output=fold.saw_output,
            saw_token_delta=fold.saw_token_delta,
            answered_since_checkpoint=pump.answered_since_checkpoint,
            resumes=self.resumes,
            rotations=self.conversation.rotations,
            retries=self.retries,
            after_step_completed=pump.after_step_completed,
            silent=not pump.spoke,
            repeated_call=(
                broke is None
                and self.retries.shape
                and continuation.repeats_finished_call(
                    self.messages,
                    fold.message(),
                    self.memo.repeats if self.memo is not None else None,
                )
            ),
            in_streak=self.conversation.in_streak,
            # Nothing of this run reached the host: no output, no call resolved in place.
            may_fail_over=self.may_fail_over and not fold.resolved_calls,
            **cause,
        )

    async def _cause_facts(self, broke: ProviderError | None, saw_token: bool) -> dict[str, Any]:
        """Return the facts that tell apart the causes of a refusal with no token (``causes``).

        The request's estimated tokens and root blobs, the model's window and
        ownership, the budget; the account's roster is asked only for a bare
        ``resource_exhausted``, the one cause it may explain.
        """
        build = self.build
        if broke is None or saw_token or build is None:
            return {}
        history, blobs = build.history, self.conversation.blobs
        sizes = (len(blobs.get(i) or b"") for i in (*history.root_ids, *history.turn_ids))
        action = len(history.active.text.encode()) if history.active is not None else 0
        model = self.ctx.model
        facts: dict[str, Any] = {
            "tokens": causes.request_tokens(sizes, action),
            "window": standing.context_window(model),
            "roots": len(history.root_ids),
            "budget_roots": self.budget.roots,
            "folded_harder": self.folded_harder,
            "third_party": not standing.cursor_own(model),
        }
        if isinstance(broke, ResourceExhausted):
            ids = dict.fromkeys((model, self.wire.details_id, self.wire.requested_id))
            listed, others = await standing.roster_standing(self.ctx, self.state, self.token, ids)
            facts.update(listed=listed, roster_models=others)
        return facts

    def _log_start(self, data: bytes, request_id: str, original: str | None) -> None:
        """Log the run's routing and request at DEBUG: never a token or a body."""
        ctx, wire = self.ctx, self.wire
        log.debug(
            "round %s model=%s effort=%s slug=%s requested=%s parameters=%s max_mode=%s "
            "session=%s conversation=%s request_id=%s original_request_id=%s messages=%d "
            "bytes=%d",
            "start" if original is None else "resume",
            # What a client (the session, the model) or the service chose: escaped.
            loggable(ctx.model),
            loggable(ctx.effort),
            loggable(wire.details_id),
            loggable(wire.requested_id),
            loggable(",".join(f"{key}={value}" for key, value in wire.parameters) or "-"),
            wire.max_mode,
            loggable(ctx.session_id),
            loggable(self.conversation.conversation_id),
            loggable(request_id),
            loggable(original or "-"),
            len(self.messages),
            len(data),
        )

    def _finish(
        self, build: RunRequestBuild, fold: Fold, duration: float
    ) -> tuple[RoundResult, list[str]]:
        """Return the result of a complete run and the writer digests to put on disk.

        The conversation keeps the run's checkpoint; the writer table records each
        assistant message in memory (``persist=False``: the disk waits for the caller).
        """
        conversation = self.conversation
        conversation.turn_completed()
        conversation.seen = True
        if fold.checkpoint is not None:
            conversation.keep_checkpoint(
                fold.checkpoint, build.history.system_ids, now=time.monotonic()
            )
        messages = fold.messages()
        message = messages[-1]
        written = [
            self.table.record(said, self.ctx.model, persist=False)
            for said in messages
            if said.get("role") == "assistant"
        ]
        usage = fold.usage
        log.debug(
            "round end finish=%s input=%d output=%d cache_read=%d cache_write=%d "
            "reasoning=%d duration=%.3f s frames=%d",
            loggable(fold.finish_reason),
            usage.input,
            usage.output,
            usage.cache_read,
            usage.cache_write,
            usage.reasoning,
            duration,
            self.frames,
        )
        result = RoundResult(
            message=message,
            usage=fold.usage,
            finish_reason=fold.finish_reason,
            request=build.data,
            # The routed sibling slug (ModelDetails), not the base id RequestedModel
            # carries: what a person needs to see which tier the round ran on.
            wire_model=self.wire.details_id,
            cost_usd_estimate=round_cost(self.ctx.model, fold.usage),
            messages=messages,
            folded=build.history.folded,
            fold_reason=build.history.fold_reason,
        )
        return result, written
