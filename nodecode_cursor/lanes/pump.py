"""One run's message pump: server messages to the fold and the answerer, answers back.

``Pump.drain`` reads a run's messages until the stream ends, hands each to the
fold (``fold.Fold``: what the round says) and the answerer (``answers.Answerer``:
what the service asked), and sends every answer back into the run. It owns the
run's idle deadline (only progress moves it; ``idle.IdleDeadline``), the cap on
the reply's size (``cursor.max_reply_bytes``), and the native tools the host runs
in place, each in a task of its own while the stream goes on. What it saw that
the round's next step depends on (``frames``, ``answered_since_checkpoint``) stays
on the pump for the lane to read, also after a break. An ``exec_server_control``
abort ends the run at once (``asks.service_abort``); a stall on heartbeats alone
says what the service last asked (``asks.ask_name``) and whether it was answered.

What a message means is the fold's and the answerer's; what to do once the run
ends is ``decisions.py``'s; opening the run and resuming it are ``attempt.py``'s.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .. import limits
from ..core.asks import ask_name, service_abort
from ..errors import ProviderError, StreamIncomplete, loggable, scrub
from ..host import NativeOutcome
from ..transports.idle import IdleDeadline, silent_for

if TYPE_CHECKING:
    from ..core.answers import Answerer
    from ..core.fold import Fold
    from ..host import NativeCall, NativeRunner, StreamPart
    from ..transports.run import RunTransport

__all__ = ["Pump"]

log = logging.getLogger("nodecode_cursor.lanes.pump")

# Interaction updates that are progress when they carry something (text and thinking
# deltas only when not empty), and the ones that are progress by arriving.
_DELTA_UPDATES = frozenset({"text_delta", "thinking_delta"})
_TOOL_UPDATES = frozenset(
    {"partial_tool_call", "tool_call_delta", "tool_call_started", "tool_call_completed"}
)
_TURN_UPDATES = frozenset({"turn_ended", "step_started", "step_completed", "thinking_completed"})
# Server messages that are progress whatever they hold: a checkpoint, and the exec
# channel the service asks for a tool over.
_PROGRESS_MESSAGES = frozenset({"conversation_checkpoint_update", "exec_server_message"})


class Pump:
    """One run's message loop (``drain``), its in-place native tasks and what it saw."""

    def __init__(
        self,
        run: RunTransport,
        fold: Fold,
        answerer: Answerer,
        *,
        show: Callable[[StreamPart], None] | None,
        runner: NativeRunner | None,
        max_reply_bytes: int,
    ) -> None:
        """Pump RUN into FOLD and ANSWERER; SHOW gets the parts they return, in order.

        RUNNER runs native asks in place (None: none).
        """
        self.run = run
        self.show = show
        self.fold = fold
        self.answerer = answerer
        self.runner = runner
        self.max_reply_bytes = max_reply_bytes
        self.frames = 0  # server messages received, heartbeats included
        # Whether the service said anything but KV asks and heartbeats: a refusal before
        # that refuses the request itself (the service may read blobs first).
        self.spoke = False
        # Whether an exec answer went out after the fold's newest checkpoint: then a
        # resume from it would replay work the service already had an answer for.
        self.answered_since_checkpoint = False
        # Whether the last update that said something was step_completed (decisions.py
        # reads an invalid_argument right after it as a refused continuation shape).
        self.after_step_completed = False
        self._checkpoint = fold.checkpoint
        # Native tools the host runs in place, each in a task of its own: the stream keeps
        # being read meanwhile, and the idle deadline waits while any is running (the
        # service is waiting for the answer, perhaps on a person's confirmation).
        self._running: set[asyncio.Task[None]] = set()
        self._idle: IdleDeadline | None = None  # moved by progress, without a timer per message
        # The service's newest ask, and the newest one this client sent no answer to:
        # what a stall on heartbeats alone is reported after.
        self.last_ask: str | None = None
        self.unanswered: str | None = None

    async def drain(self) -> None:
        """Feed every server message to the fold and send its answers, until the stream ends.

        Only progress moves the deadline (``_progress``: text, thinking, a tool
        call, a checkpoint, a turn event). Heartbeats, empty frames, fields we do not
        know and empty deltas keep the socket busy but say nothing: a stream of only
        those for the request timeout is as incomplete as a silent one, and they do
        not stretch the short grace after the turn ended. Progress pushes the deadline
        to the request timeout from now, or to the grace once the turn has ended. The
        text, thinking and tool-call updates together may not pass ``max_reply_bytes``.
        Raises StreamIncomplete when the deadline passes before the turn ended, and
        the ``reply_too_large`` ProviderError past the cap.
        """
        loop = asyncio.get_running_loop()
        run, fold = self.run, self.fold
        idle = run.settings.request_timeout
        wait = min(limits.TURN_END_GRACE_SECONDS, idle)
        limit = self.max_reply_bytes
        running = self._running
        show = self.show  # the fold returns parts; the host sees them as they come
        beats = 0  # messages since the last one that said something
        reply_bytes = 0
        try:
            # aclosing: a deadline leaving the loop early must close the generator here,
            # not leave its finalizer as a task pending on the loop.
            async with (
                silent_for(idle) as lazy,
                contextlib.aclosing(run.batches()) as batches,
            ):
                self._idle = lazy
                async for batch in batches:
                    # No await in a batch: the time at its end is every message's.
                    progressed = False
                    self.frames += len(batch)
                    for item in batch:
                        # The fast path: a text or thinking delta, progress, asks nothing
                        # (wire.stream read most of them by hand: a str is one).
                        if type(item) is str:
                            size, part = fold.feed_text(item, limit - reply_bytes)
                        elif isinstance(item, str):
                            size, part = fold.feed_thinking(item, limit - reply_bytes)
                        else:
                            message = item
                            size, part = fold.feed_delta(message, limit - reply_bytes)
                        if size >= 0:
                            reply_bytes += size
                            if reply_bytes > limit:
                                raise self._too_large()
                            if part is not None and show is not None:
                                show(part)
                            self.after_step_completed = False
                            beats = 0
                            progressed = True
                            continue
                        reply_bytes += _reply_size(message)
                        if reply_bytes > limit:
                            raise self._too_large()
                        if not self._take(message):
                            beats += 1
                            continue
                        beats = 0
                        progressed = True
                    if progressed:
                        lazy.push(
                            None if running else loop.time() + (wait if fold.turn_ended else idle)
                        )
        except TimeoutError:
            deadline = self._idle
            if deadline is None or not deadline.expired():
                raise
            if not fold.turn_ended:
                what = "only heartbeats or empty messages" if beats else "nothing"
                raise StreamIncomplete(
                    f"Cursor sent {what} for {idle:g} s{self._stalled_after()}; "
                    "the stream is incomplete (try again)"
                ) from None
            log.debug("the stream stayed open after the turn ended; treating it as over")
        finally:
            # A cancelled round (or a stream that ended) cancels the tools still running;
            # the deadline is over, so their ends must not move it.
            self._idle = None
            left = list(running)
            for task in left:
                task.cancel()
            if left:
                await asyncio.gather(*left, return_exceptions=True)

    def _take(self, message: Any) -> bool:
        """Fold MESSAGE and send what answers it; return whether it is progress.

        The one place a message other than a plain delta meets the fold and the
        answerer (a native ask the host runs in place goes to ``_run_in_place``).
        """
        fold = self.fold
        if not self.spoke and not _quiet(message):
            self.spoke = True
        self._show_all(fold.feed(message))
        if fold.checkpoint is not self._checkpoint:
            self._checkpoint = fold.checkpoint
            self.answered_since_checkpoint = False
        aborted = service_abort(message)
        if aborted is not None:
            raise aborted  # the service stopped the run: nothing more will come
        asked = ask_name(message)
        if asked is not None:
            self.last_ask = asked
        if not self._run_in_place(message):
            answer = self.answerer.answer(message)
            self._show_all(fold.apply(answer.calls))
            for name in answer.refused:
                log.warning("refused a call of %s: the run declared no such tool", loggable(name))
            if asked is not None and not answer.replies:
                self.unanswered = asked
            for reply in answer.replies:
                if self._checkpoint is not None and _exec_answer(reply):
                    self.answered_since_checkpoint = True
                self.run.send(reply.SerializeToString())
        progress = _progress(message)
        if progress and message.WhichOneof("message") == "interaction_update":
            self.after_step_completed = (
                message.interaction_update.WhichOneof("message") == "step_completed"
            )
        return progress

    def _stalled_after(self) -> str:
        """Return what a stall came after: the ask left unanswered, else the last ask, else ''."""
        if self.unanswered is not None:
            return f" after asking for {self.unanswered}, which this client could not answer"
        if self.last_ask is not None:
            return f" after asking for {self.last_ask} (answered)"
        return ""

    def _show_all(self, parts: list[StreamPart]) -> None:
        """Hand PARTS (the fold's, in order) to the host, if it listens."""
        show = self.show
        if show is not None:
            for part in parts:
                show(part)

    def _too_large(self) -> ProviderError:
        """Return the error that stops a round whose answer passed ``max_reply_bytes``."""
        return ProviderError(
            f"Cursor's answer passed {self.max_reply_bytes} bytes of text, "
            "thinking and tool arguments (cursor.max_reply_bytes); the round "
            "is stopped",
            code="reply_too_large",
        )

    def _run_in_place(self, message: Any) -> bool:
        """Start the host's runner when MESSAGE asks for a kind it runs in place; return whether.

        The runner is awaited in a task; its outcome is answered in the ask's typed result
        (a runner that raises is answered as failed, its error in one line). A call this
        round already ran (asked again after a resume) is answered with its first outcome.
        """
        runner = self.runner
        found = self.answerer.in_place(message) if runner is not None else None
        if runner is None or found is None:
            return False
        ask, call, shown = found
        again = self.answerer.replay(ask, call)
        if again is not None:
            for reply in again:
                self.run.send(reply.SerializeToString())
            return True
        self._show_all(shown)
        serve = self._serve(runner, ask, call)
        task = asyncio.create_task(serve, name=f"cursor-native-{call.kind}")
        self._running.add(task)
        task.add_done_callback(self._tool_done)
        return True

    async def _serve(self, runner: NativeRunner, ask: Any, call: NativeCall) -> None:
        """Await RUNNER on CALL and send the answer to ASK (a host's failure fails the call)."""
        try:
            outcome = await runner(call)
            if not isinstance(outcome, NativeOutcome):
                outcome = NativeOutcome.failed("the host's runner answered no NativeOutcome")
        except Exception as exc:  # a host's bug fails the call, not the round
            outcome = NativeOutcome.failed(scrub(f"{type(exc).__name__}: {exc}"))
        answer = self.answerer.native_answer(ask, call, outcome)
        self._show_all(self.fold.apply(answer.calls))
        for reply in answer.replies:
            self.run.send(reply.SerializeToString())
        # An exec answer the service has: a resume from an older checkpoint would
        # replay it (the pump clears this when a newer checkpoint arrives).
        self.answered_since_checkpoint = True

    def _tool_done(self, task: asyncio.Task[None]) -> None:
        """Forget TASK; the last tool to end gives the idle deadline its full length again."""
        self._running.discard(task)
        deadline = self._idle
        if self._running or deadline is None or deadline.expired():
            return
        deadline.push(asyncio.get_running_loop().time() + self.run.settings.request_timeout)


def _exec_answer(reply: Any) -> bool:
    """Return whether REPLY answers an exec ask with a result of work (not the request context).

    The request context is asked again by every run and changes nothing; any
    other exec answer (a refusal, a handoff, a throw) is a result the service
    acted on, which a resume from an older checkpoint would ask for again.
    """
    member = reply.WhichOneof("message")
    if member == "exec_client_control_message":
        return True
    if member != "exec_client_message":
        return False
    return bool(reply.exec_client_message.WhichOneof("message") != "request_context_result")


def _progress(message: Any) -> bool:
    """Return whether MESSAGE is progress: text, thinking, a tool call, a checkpoint, a turn event.

    A heartbeat, an empty frame, a message of fields we do not know and an empty
    text or thinking delta are not: a service that sends only those is silent.
    """
    kind = message.WhichOneof("message")
    if kind in _PROGRESS_MESSAGES:
        return True
    if kind != "interaction_update":
        return False
    update = message.interaction_update
    which = update.WhichOneof("message")
    if which in _DELTA_UPDATES:
        return bool(getattr(update, which).text)
    return which in _TOOL_UPDATES or which in _TURN_UPDATES


def _reply_size(message: Any) -> int:
    """Return the bytes MESSAGE adds to the reply: its text, thinking or tool-call update."""
    if message.WhichOneof("message") != "interaction_update":
        return 0
    update = message.interaction_update
    which = update.WhichOneof("message")
    if which in _DELTA_UPDATES:
        return len(getattr(update, which).text.encode("utf-8"))
    if which in _TOOL_UPDATES:
        return int(getattr(update, which).ByteSize())
    return 0


def _quiet(message: Any) -> bool:
    """Return whether MESSAGE says nothing of the run: a KV ask, or a heartbeat."""
    member = message.WhichOneof("message")
    if member == "kv_server_message":
        return True
    if member != "interaction_update":
        return False
    update: str | None = message.interaction_update.WhichOneof("message")
    return update == "heartbeat"
