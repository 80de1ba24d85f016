"""A round on one wire model: its first run and the runs that resume it, as a state machine.

An ``Attempt`` is made for each wire model, continuation shape and budget the
round tries (``round_retries.py`` makes them). Its ``Stage`` is the one state it
has, and the current stage alone decides the next step, as httpcore's
``HTTPConnectionState`` and h11's state machine do; each step is a small method
that returns the stage after it::

    NEW ─▶ RUNNING ⇄ RESUMING
              │
              ▼
           CLOSING ─▶ FINISHING ─▶ FINISHED   the runs said the turn
              ├─────▶ RETRY                   a retry the round makes
              └─────▶ FAILED                  the error the decision named (raised)

NEW builds the request and pins its blobs; RUNNING runs once
(``one_run.run_once``), gathers the run's facts and asks ``decisions.decide``
what follows; RESUMING waits, then
makes the request that resumes from the newest checkpoint; CLOSING lets the
blobs go and keeps the bridged calls; FINISHING builds the result
(``round_end.finished``) and puts the writer table on disk.

What follows a run is ``decisions.py``'s; what a message means is ``fold.py``'s
and ``answers.py``'s; the causes of a refusal are gathered by
``refusal_facts.py``; the bytes on the wire are the transports'.
"""

from __future__ import annotations

import asyncio
import dataclasses
import enum
import logging
import os
import time
import uuid
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from .. import limits
from ..core import continuation, decisions
from ..core.answers import Answerer
from ..core.bridge import function_tools, wire_names
from ..core.budget import HistoryBudget
from ..core.decisions import Next
from ..core.fold import Fold
from ..core.request import build_run_request, resume_request
from ..errors import ProviderError, loggable
from ..host import RoundContext, RoundResult, StreamPart, ToolCallArgsDelta, ToolCallStart
from ..state import CellState
from ..transports.run import RunSettings
from .one_run import run_once
from .refusal_facts import cause_facts
from .round_conversation import ended, tell_fold
from .round_end import finished

if TYPE_CHECKING:
    from ..core.blobs import BlobStore, Conversation
    from ..core.history_memo import HistoryMemo
    from ..core.request import RunRequestBuild
    from ..core.writers import WriterTable
    from ..models.model_resolution import ResolvedModel
    from ..models.routing import WireModel

__all__ = ["Attempt", "Stage", "emit"]

log = logging.getLogger("nodecode_cursor.lanes.attempt")


class Stage(enum.Enum):
    """Where an ``Attempt`` is: the step ``Attempt.run`` takes next, or how it ended."""

    NEW = "new"  # made; the request is not built yet
    RUNNING = "running"  # the request is built and pinned: a run to open, first or resuming
    RESUMING = "resuming"  # a run broke after a checkpoint; the next resumes from it
    CLOSING = "closing"  # the runs are over: the blobs to let go, the decision to carry out
    FINISHING = "finishing"  # the runs said the turn: the result to build and write
    FINISHED = "finished"  # ended: the result is built and written
    RETRY = "retry"  # ended for a retry the round makes on another wire model
    FAILED = "failed"  # ended with the error the decision named


# The stages an attempt ends in: no step follows them.
_ENDS = frozenset({Stage.FINISHED, Stage.RETRY, Stage.FAILED})


@dataclasses.dataclass
class _Runs:
    """What the runs of an attempt share once its request is built (NEW made it)."""

    answerer: Answerer
    fold: Fold
    build: RunRequestBuild
    settings: RunSettings  # the next run's; a resume names the first run's request id
    data: bytes  # the next run's request: the built one, then each resume's
    blobs: BlobStore
    pin: int | None  # the blobs pinned while the runs are open (None once let go)
    started: float  # time.monotonic() as the first run opened


def emit(ctx: RoundContext, part: StreamPart) -> None:
    """Hand PART to the host's ``on_part``, when it has one (returns nothing)."""
    if ctx.on_part is not None:
        ctx.on_part(part)


def _new_id() -> str:
    """Return a fresh id for a call the service named none for (the core's id factory)."""
    return str(uuid.uuid4())


class Attempt:
    """The round on one wire model: its run, and the runs that resume it from a checkpoint.

    Everything it needs comes to the constructor; its progress is ``stage``, which
    ``run`` moves forward one step at a time (never back to NEW). What follows each
    run is ``decisions.decide``'s; the messages are pumped by ``pump.Pump``.
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
        self.facts: decisions.RunFacts | None = None  # the last run's
        self.decision: decisions.Decision | None = None  # what follows the last run
        self.result: RoundResult | None = None  # FINISHING's
        self._runs: _Runs | None = None  # NEW's
        self._error: ProviderError | None = None  # CLOSING's, for a FAIL or ROTATE
        self._steps: dict[Stage, Callable[[], Awaitable[Stage]]] = {
            Stage.NEW: self._open,
            Stage.RUNNING: self._run,
            Stage.RESUMING: self._resume,
            Stage.CLOSING: self._close,
            Stage.FINISHING: self._finish,
        }

    async def run(self) -> RoundResult | decisions.Decision:
        """Return the round's result, or the retry the round makes; raise the error that ended it.

        Takes the step the stage names until the attempt ends: the first run
        carries the built request; after each run ``decisions.decide`` says what
        follows: a run resuming from the newest checkpoint (all folded into one
        message), the result, a retry on another wire model (returned, for the
        round to make), or the error (raised, the conversation rotated first when
        Cursor refused it). An attempt runs once.
        """
        if self.stage is not Stage.NEW:
            raise RuntimeError(f"an attempt runs once (it is {self.stage.value})")
        try:
            while self.stage not in _ENDS:
                self.stage = await self._steps[self.stage]()
        finally:
            # A step that raised (cancelled, say) still lets the blobs go.
            self._let_go()
        if self.stage is Stage.FAILED and self._error is not None:
            raise self._error
        if self.stage is Stage.RETRY and self.decision is not None:
            return self.decision
        if self.stage is Stage.FINISHED and self.result is not None:
            return self.result
        raise RuntimeError(f"an attempt ended {self.stage.value} without its outcome")

    def _opened(self) -> _Runs:
        """Return what NEW made for the runs (a step after NEW only)."""
        if self._runs is None:
            raise RuntimeError(f"the attempt's request is not built (it is {self.stage.value})")
        return self._runs

    async def _open(self) -> Stage:
        """NEW: build the request and pin its blobs; return RUNNING."""
        ctx = self.ctx
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
            ctx.model,
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
        tell_fold(ctx, self.conversation, build.history)
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
        self._runs = _Runs(
            answerer, fold, build, settings, build.data, blobs, pin, time.monotonic()
        )
        return Stage.RUNNING

    async def _run(self) -> Stage:
        """RUNNING: run once and decide what follows; return RESUMING or CLOSING."""
        runs = self._opened()
        fold = runs.fold
        facts = await self._one_run(runs.settings, runs.data, fold, runs.answerer)
        if fold.checkpoint is not None:
            # A run on this wire id was accepted and checkpointed: the service
            # knows it (before a rotation, which makes a new id unseen).
            self.conversation.seen = True
        decision = decisions.decide(facts)
        if decision.note is not None:
            log.info("not resuming: %s", decision.note)
        self.facts, self.decision = facts, decision
        if decision.next is Next.RESUME and fold.checkpoint is not None:
            return Stage.RESUMING
        return Stage.CLOSING

    async def _resume(self) -> Stage:
        """RESUMING: wait, then ready the run that resumes from the checkpoint; return RUNNING."""
        runs = self._opened()
        checkpoint = runs.fold.checkpoint
        if checkpoint is None:
            raise RuntimeError("an attempt resumes only from a checkpoint")
        broke = self.facts.broke if self.facts is not None else None
        self.resumes += 1
        log.info(
            "Cursor's stream broke after a checkpoint (%s); resuming (%d of %d)",
            loggable(broke.detail if broke is not None else ""),
            self.resumes,
            limits.MAX_RESUMES,
        )
        await asyncio.sleep(limits.RESUME_WAIT_SECONDS)
        runs.fold.resume()
        runs.data = resume_request(runs.build, checkpoint)
        if runs.settings.original_request_id is None:
            runs.settings = dataclasses.replace(
                runs.settings, original_request_id=self.first_request_id
            )
        return Stage.RUNNING

    async def _close(self) -> Stage:
        """CLOSING: let the blobs go and carry out the decision; return FINISHING, RETRY or FAILED.

        A FINISH hands the held tool-call parts to the host first; a FAIL or ROTATE
        takes its effect on the conversation (``ended``) before the blobs go.
        """
        decision = self.decision
        if decision is None:
            raise RuntimeError("an attempt closes only after a run")
        if decision.next is Next.FINISH:
            self._release()
            self._let_go()
            return Stage.FINISHING
        if decision.next in decisions.AGAIN:
            self._let_go()
            return Stage.RETRY
        self._error = self.ended(decision)
        self._let_go()
        return Stage.FAILED

    async def _finish(self) -> Stage:
        """FINISHING: build the result and put the writer table on disk; return FINISHED."""
        runs = self._opened()
        self.result, written = finished(
            self.ctx,
            self.conversation,
            self.table,
            self.wire,
            runs.build,
            runs.fold,
            duration=time.monotonic() - runs.started,
            frames=self.frames,
        )
        store = self.table.store
        if store is not None:
            # The disk table may wait on another process's lock: never on the event loop.
            for digest in written:
                await asyncio.to_thread(store.put, digest, self.ctx.model)
        return Stage.FINISHED

    def _let_go(self) -> None:
        """Unpin the request's blobs and keep the bridged calls for the next round, once."""
        runs = self._runs
        if runs is None or runs.pin is None:
            return
        runs.blobs.unpin(runs.pin)
        runs.pin = None
        bridged = runs.answerer.bridged
        if bridged:
            # Kept for the next round, which replays each as its native step.
            with self.state.lock:
                self.state.bridged.add(bridged.values())

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
            emit(self.ctx, part)

    def ended(self, decision: decisions.Decision) -> ProviderError:
        """Return the error DECISION (a FAIL or ROTATE) ends the round with, after its effect.

        A ROTATE gives the conversation a new wire id (``Conversation.poison``, once
        per failure streak) for the next round; this one fails either way.
        """
        error = ended(self.conversation, decision)
        self.stage = Stage.FAILED
        return error

    async def _one_run(
        self, settings: RunSettings, data: bytes, fold: Fold, answerer: Answerer
    ) -> decisions.RunFacts:
        """Return the facts of one run: what broke it (None: it said the whole turn), what it saw.

        DATA is the run request; the run itself and its break are ``one_run.run_once``'s.
        """
        end = await run_once(
            self.ctx,
            self.state,
            settings,
            data,
            fold,
            answerer,
            show=self._show if self.held is not None else self.ctx.on_part,
            runner=self.ctx.run_native,
            wire=self.wire,
            conversation=self.conversation,
            messages=len(self.messages),
            frames_before=self.frames,
        )
        self.frames += end.frames
        if settings.original_request_id is None:
            # The id the service knows the first run by (a move to RunPoll renews it).
            self.first_request_id = end.request_id
        broke = end.broke
        cause = await cause_facts(
            self.ctx,
            self.state,
            self.token,
            self.wire,
            self.conversation,
            self.build,
            self.budget,
            self.folded_harder,
            broke,
            fold.saw_token_delta,
        )
        return decisions.RunFacts(
            broke=broke,
            model=self.ctx.model,
            display=self.display,
            ended_whole=end.ended_whole,
            checkpoint=fold.checkpoint is not None,
            turn_ended=fold.turn_ended,
            saw_output=fold.saw_output,
            saw_token_delta=fold.saw_token_delta,
            answered_since_checkpoint=end.answered_since_checkpoint,
            resumes=self.resumes,
            rotations=self.conversation.rotations,
            retries=self.retries,
            after_step_completed=end.after_step_completed,
            silent=not end.spoke,
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
