"""The ``cursor`` lane: one call runs one Cursor round, history in, one assistant message out.

A round is one Cursor run (docs/protocol.md §4–§9). The lane resolves the model and
effort (``routing``), the token (the context's, else the cell's credential
ladder, refreshing a due sign-in), builds the run request from the history
(``request``), opens the run (``run_route``), feeds every server message to the
fold and the answerer and sends the answers back, then settles the end: the
completeness rule, the end-of-stream error, a run that broke after a
checkpoint resumed from it (at most ``limits.MAX_RESUMES`` times), one retry
with the discovery id when the model was not found before any output, and a
conversation rotation for a bare ``resource_exhausted`` (at most
``limits.MAX_ROTATIONS`` times). What it keeps between rounds (conversations,
the Kimi K3 writer table, rosters) lives in the cell's ``CellState``, which the
cell passes to every round; what another process needs to go on with a
conversation (``continuity.Kept``) is read before the round and written after
it, in a worker thread.

What a message means is ``fold.py``'s and ``answers.py``'s business; the bytes
on the wire are ``transport.py``'s.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import os
import threading
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from . import catalog, credentials, limits, listing, routing, variants
from .answers import Answerer
from .bridge import function_tools, wire_names
from .continuity import call_key, history_mark, session_key, trailing_call_ids
from .cost import round_cost
from .credentials import checked_token
from .errors import (
    ConfigError,
    CursorError,
    ModelNotFound,
    NotSignedIn,
    ProviderError,
    ResourceExhausted,
    StoreError,
    StreamIncomplete,
    loggable,
    scrub,
)
from .fold import Fold
from .history import valid_unicode
from .host import Finish, Host, NativeOutcome, RoundContext, RoundResult, StreamPart, StreamStart
from .idle import IdleDeadline
from .request import build_run_request, resume_request
from .run_route import open_run
from .signin import refresh_if_due
from .state import CellState
from .store import AuthStore
from .transport import RunSettings

if TYPE_CHECKING:
    from .blobs import Conversation
    from .request import RunRequestBuild
    from .routing import WireModel
    from .transport import RunTransport
    from .writers import WriterTable

__all__ = ["TURN_END_GRACE_SECONDS", "USAGE_PRICING_CODES", "stream_round", "stream_round_sync"]

log = logging.getLogger("nodecode_cursor.lane")

TURN_END_GRACE_SECONDS = limits.TURN_END_GRACE_SECONDS

# ErrorDetails codes (as connect.classify_connect_error names them) saying the account
# must turn on usage-based pricing for the model: a new conversation id would not help.
USAGE_PRICING_CODES = frozenset({"USAGE_PRICING_REQUIRED", "USAGE_PRICING_REQUIRED_CHANGEABLE"})


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
    first), ProviderError (the service's own error), StreamIncomplete (the
    stream ended before the turn did; a retry may work). Cancelling the task
    stops the run at once.
    """
    if state is None:
        state = CellState()
    model = ctx.model
    display = model
    if routing.is_bundled(model):
        effort = routing.round_effort(model, ctx.effort)
        wire_id = routing.wire_model_id(model, effort)
        token = await _token(ctx, state)
    else:
        routing.checked_effort(ctx.effort)  # a misspelt level fails before any network
        token, display = await _roster_model(ctx, state)
        # A roster-only model is sent as the roster names it; its slug alone
        # says any effort (routing's collapse rules), so the round asks none.
        wire_id = model
    # The system/developer messages that open the history are the system prompt
    # (ctx.system wins when given) and leave the history either way, so the prompt
    # is sent once; later ones ride as user turns (history.py).
    system = ctx.system if ctx.system is not None else _system_of(ctx.messages)
    messages = ctx.messages[_leading_system(ctx.messages) :]
    messages, system, tools = _valid_unicode(messages, system, ctx.tools)
    conversation = await _round_conversation(state, ctx.session_id, messages)
    with state.lock:
        table = state.writers
    handed: list[str] = []
    try:
        result = await _round(
            ctx,
            state,
            model,
            wire_id,
            token,
            display,
            conversation,
            table,
            messages,
            system,
            tools,
            handed,
        )
    except CursorError:
        await _keep_conversation(state, conversation, messages, None, handed)
        raise
    await _keep_conversation(state, conversation, messages, result.message, handed)
    _emit(ctx, Finish(result.finish_reason))
    return result


async def _round(
    ctx: RoundContext,
    state: CellState,
    model: str,
    wire_id: str,
    token: str,
    display: str,
    conversation: Conversation,
    table: WriterTable,
    messages: list[dict[str, Any]],
    system: str | None,
    tools: list[dict[str, Any]],
    handed: list[str],
) -> RoundResult:
    """Return the round's result on CONVERSATION, retrying as the service's answers allow.

    The keys of the calls the round handed off are added to HANDED.
    """
    _emit(ctx, StreamStart(wire_id))
    mode: routing.WireMode = "normalized"
    # The roster's marker (this account's, at this base URL) counts only when the
    # bundled row has none of its own.
    base_url = ctx.base_url or limits.DEFAULT_BASE_URL
    marker = listing.round_marker(state, model, wire_id, token, base_url)
    wire = routing.resolve_wire_model(model, wire_id, mode, marker)
    # A sibling slug the account's catalog names as a variant goes as the variant's
    # base id and parameters (a bare sibling slug is refused; docs/protocol.md §10a).
    catalog = await listing.round_catalog(
        state, token, base_url, client_version=ctx.client_version, proxy=ctx.proxy
    )
    wire = variants.on_variant(wire, catalog)
    # Without the catalog a sibling slug goes bare; if Cursor refuses that shape, the
    # catalog is asked again and the round retried once on the variant it names.
    variant_retry = _may_retry_on_variant(model, wire)
    while True:
        attempt = _Attempt(ctx, messages, token, system, tools, wire, conversation, table, display)
        attempt.rotate_on_refusal = not variant_retry
        attempt.state = state  # its HTTP/2 pool and what transport worked (run_route.open_run)
        attempt.max_reply_bytes = state.max_reply_bytes
        try:
            result = await attempt.run()
        except ProviderError as exc:
            if variant_retry and attempt.refused_bare:
                variant_retry = False
                fresh = await listing.round_catalog(
                    state,
                    token,
                    base_url,
                    client_version=ctx.client_version,
                    proxy=ctx.proxy,
                    refresh=True,
                )
                routed = variants.on_variant(wire, fresh)
                if routed != wire:
                    log.info(
                        "Cursor refused %s bare; retrying on its variant", loggable(wire.details_id)
                    )
                    wire = routed
                    continue
                raise attempt.rotate(exc) from None
            retry = _discovery_retry(exc, attempt, mode, model, wire_id, wire, state)
            if retry is None:
                raise
            log.info(
                "Cursor did not know %s; retrying with the discovery id",
                loggable(wire.requested_id),
            )
            mode, wire = "discovered", retry
            continue
        if result.finish_reason == "tool_calls":
            calls = result.message.get("tool_calls") or []
            handed.extend(call_key(str(c["id"])) for c in calls if c.get("id"))
            with state.lock:
                state.conversations.handed_off(conversation, handed)
        return result


async def _round_conversation(
    state: CellState, session_id: str | None, messages: Sequence[Mapping[str, Any]]
) -> Conversation:
    """Return the round's conversation (``Conversations.for_round``), its kept records read.

    A history that ends on the results of calls a round handed off (in this
    process or, through the store, in another) goes on in that round's
    conversation: a host that sends no session, or a new one for every request
    (as an API server does for each Responses call), or a new process, still
    continues its tool loop instead of starting over. The store may wait on
    another process's lock, so it is read in a worker thread.
    """
    calls = [call_key(call_id) for call_id in trailing_call_ids(messages)]
    store = state.continuity
    by_call = own = None
    if store is not None and (calls or session_id):
        own_key = session_key(session_id) if session_id else None
        by_call, own = await asyncio.to_thread(store.lookup, own_key, calls)
    with state.lock:
        return state.conversations.for_round(session_id, messages, calls, by_call, own)


async def _keep_conversation(
    state: CellState,
    conversation: Conversation,
    messages: Sequence[Mapping[str, Any]],
    reply: Mapping[str, Any] | None,
    handed: Sequence[str],
) -> None:
    """Write what another process needs to go on with CONVERSATION, in a worker thread.

    A session's conversation also keeps the mark of the MESSAGES a complete round
    sent and its REPLY (a later round that holds neither is a side request); a
    sessionless one is written only once it handed off calls (HANDED).
    """
    with state.lock:
        if conversation.key.startswith("s:") and reply is not None:
            conversation.mark = history_mark(messages, reply)
        store = state.continuity
        if store is None or not conversation.lasting:
            return
        kept = conversation.kept()
    await asyncio.to_thread(store.save, kept, list(handed))


async def _roster_model(ctx: RoundContext, state: CellState) -> tuple[str, str]:
    """Return (token, display name) for a model the bundled rows lack but the roster lists.

    The roster is asked with the round's token (once per STATE, base URL and account);
    a model it does not list, or a roster that cannot be had, is the unknown-model
    ConfigError, naming near matches and why the roster could not be checked.
    """
    model = ctx.model
    try:
        token = await _token(ctx, state)
    except NotSignedIn as exc:
        raise routing.unknown_model(model, unchecked=exc.detail) from None
    base_url = ctx.base_url or limits.DEFAULT_BASE_URL
    try:
        roster = await listing.round_roster(
            state, token, base_url, client_version=ctx.client_version, proxy=ctx.proxy
        )
    except ConfigError:
        raise  # an unusable proxy: the round could not go either, so say that, not the model
    except CursorError as exc:
        log.debug("roster unavailable for %s: %s", loggable(model), loggable(exc.detail))
        raise routing.unknown_model(model, unchecked=exc.detail) from None
    entry = next((row for row in roster if row.id == model), None)
    if entry is None:
        raise routing.unknown_model(model, [row.id for row in roster])
    log.debug("%s is not bundled; the account's roster lists it", loggable(model))
    return token, entry.name


def _may_retry_on_variant(model: str, wire: WireModel) -> bool:
    """Return whether a bare refusal of WIRE may be a missing variant shape worth one retry.

    Only a slug sent bare (no parameters, the base id itself) of a bundled model
    that has effort siblings can be a variant the catalog did not name in time.
    """
    if wire.parameters or wire.requested_id != wire.details_id or not routing.is_bundled(model):
        return False
    return bool(routing.model_row(model).routing)


def _discovery_retry(
    exc: ProviderError,
    attempt: _Attempt,
    mode: str,
    model: str,
    wire_id: str,
    wire: WireModel,
    state: CellState,
) -> WireModel | None:
    """Return the discovered WireModel to retry with, or None when this error is final."""
    if mode != "normalized" or not isinstance(exc, ModelNotFound) or attempt.saw_output:
        return None
    base_url = attempt.ctx.base_url or limits.DEFAULT_BASE_URL
    marker = listing.round_marker(state, model, wire_id, attempt.token, base_url)
    discovered = routing.resolve_wire_model(model, wire_id, "discovered", marker)
    if discovered == wire:
        return None  # the same request again would be refused the same way
    return discovered


def _valid_unicode(
    messages: list[dict[str, Any]],
    system: str | None,
    tools: list[dict[str, Any]],
) -> tuple[list[dict[str, Any]], str | None, list[dict[str, Any]]]:
    """Return the messages, system prompt and tools with every lone surrogate as U+FFFD.

    Protobuf cannot encode a lone surrogate (a JSON ``\\ud800`` escape in the
    host's history): replacing it keeps the session usable, where refusing would
    fail every later round of it too. The host's own values are left as they were.
    """
    new_messages, in_messages = valid_unicode(messages)
    new_system, in_system = valid_unicode(system)
    new_tools, in_tools = valid_unicode(tools)
    if in_messages or in_system or in_tools:
        log.debug(
            "replaced lone surrogates with U+FFFD in %d string(s) of the history, "
            "%d of the system prompt, %d of the tools",
            in_messages,
            in_system,
            in_tools,
        )
    return new_messages, new_system, new_tools


def _emit(ctx: RoundContext, part: StreamPart) -> None:
    if ctx.on_part is not None:
        ctx.on_part(part)


def _show_all(show: Callable[[StreamPart], None] | None, parts: list[StreamPart]) -> None:
    """Hand PARTS (the fold's or the answerer's, in order) to the host's SHOW, if it listens."""
    if show is not None:
        for part in parts:
            show(part)


def _new_id() -> str:
    """Return a fresh id for a call the service named none for (the core's id factory)."""
    return str(uuid.uuid4())


def _leading_system(messages: Sequence[Mapping[str, Any]]) -> int:
    """Return how many system/developer messages open the history (before any other role)."""
    count = 0
    for message in messages:
        if not isinstance(message, Mapping) or message.get("role") not in ("system", "developer"):
            break
        count += 1
    return count


def _system_of(messages: Sequence[Mapping[str, Any]]) -> str | None:
    """Return the system prompt MESSAGES' opening system/developer messages spell, or None."""
    parts: list[str] = []
    for message in messages[: _leading_system(messages)]:
        content = message.get("content")
        if isinstance(content, str):
            parts.append(content)
        elif isinstance(content, list):
            parts.extend(
                str(item.get("text", ""))
                for item in content
                if isinstance(item, Mapping) and item.get("type") == "text"
            )
    return "\n\n".join(p for p in parts if p) or None


async def _token(ctx: RoundContext, state: CellState) -> str:
    """Return the round's bearer token; raise the not-signed-in ConfigError when there is none.

    A token no header can carry (a space, a line break, non-ASCII) is refused here
    with a ConfigError naming its source, before the HTTP stack can quote it.
    """
    base_url = ctx.base_url or limits.DEFAULT_BASE_URL
    if ctx.credential:
        given = credentials.checked_token(ctx.credential, "the round's credential")
        if ctx.host is None:
            return given
        # The host chose this credential: when it is the kept sign-in (cell.credential
        # never renews), only that sign-in is renewed when due; no other credential
        # (a saved key, the environment) ever takes its place. auth.json is read and
        # the refresh waits in a worker thread, never on the event loop.
        return await asyncio.to_thread(
            _renewed_if_kept_sign_in, ctx.host, given, base_url, ctx.proxy, state.ended_sessions
        )

    token: str | None
    if ctx.host is not None:
        token = await credentials.resolve_credential_async(
            ctx.host,
            "cursor",
            for_round=True,
            base_url=base_url,
            proxy=ctx.proxy,
            ended=state.ended_sessions,
        )
    else:
        token = credentials.env_credential()
    if not token:
        raise NotSignedIn()
    return token


def _renewed_if_kept_sign_in(
    host: Host, token: str, base_url: str, proxy: str | None, ended: set[str]
) -> str:
    """Return TOKEN, or the kept sign-in's renewed access token when TOKEN is that sign-in.

    Blocking (reads auth.json, may refresh through PROXY, the round's): run it in a
    worker thread. An auth.json that cannot be read, or a sign-in that is not TOKEN's,
    leaves TOKEN as given.
    """
    store = AuthStore(host.home)
    try:
        entry = store.entry()
    except StoreError as exc:
        log.debug("auth.json unreadable; using the round's credential as given: %s", exc.detail)
        return token
    if entry is None or entry.access_token != token:
        return token
    renewed = refresh_if_due(store, base_url, host=host, proxy=proxy, ended=ended)
    if renewed is None:  # forgotten meanwhile (a logout): send what the host chose
        return token
    if renewed.access_token != token:
        log.debug("the round's credential is the kept sign-in; sending it renewed")
    return checked_token(renewed.access_token, f"{store.path} (oauth_tokens.cursor)")


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


class _Attempt:
    """The round on one wire model: its run, and the runs that resume it from a checkpoint."""

    state: CellState | None = None

    def __init__(
        self,
        ctx: RoundContext,
        messages: Sequence[Mapping[str, Any]],
        token: str,
        system: str | None,
        tools: list[dict[str, Any]],
        wire: WireModel,
        conversation: Conversation,
        table: WriterTable,
        display: str,
    ) -> None:
        self.ctx = ctx
        self.display = display
        self.messages = messages
        self.token = token
        self.system = system
        self.tools = tools
        self.wire = wire
        self.conversation = conversation
        self.table = table
        self.saw_output = False
        self.frames = 0  # server messages received, heartbeats included
        self.duration = 0.0
        # Whether Cursor refused the run itself (a bare resource_exhausted, no output),
        # and whether that rotates the conversation at once or is the round's call.
        self.refused_bare = False
        self.rotate_on_refusal = True
        # The digests of the rounds this attempt recorded in the writer table.
        self.written: list[str] = []
        # Runs of this attempt after the first, each resuming a broken one.
        self.resumes = 0
        self.first_request_id: str | None = None
        # The last break was a stream ending without turn_ended that the completeness
        # rule alone would call whole (kept when it cannot be resumed).
        self.ended_whole = False
        # Whether an exec answer went out after the fold's newest checkpoint: then a
        # resume from it would replay work the service already had an answer for.
        self.answered_since_checkpoint = False
        # A round's text, thinking and tool-call updates past this many bytes fail it.
        self.max_reply_bytes = limits.MAX_REPLY_BYTES

    async def run(self) -> RoundResult:
        """Return the round's result from its runs; raise the error that ended them.

        The first run carries the built request; a run that breaks after the
        service sent a replay-safe checkpoint is followed by one resuming from it
        (``_resumable``), all folded into one message.
        """
        ctx = self.ctx
        model = ctx.model
        row = catalog.find_model(model)
        build = build_run_request(
            self.messages,
            self.system,
            self.wire,
            model,
            row.name if row is not None else self.display,
            self.conversation,
            writers=self.table,
            tool_names=wire_names(fn["name"] for fn in function_tools(self.tools)),
            native=self.state.bridged.replay if self.state is not None else None,
        )
        answerer = Answerer(
            tools=list(self.tools),
            system_prompt=self.system or "",
            cwd=ctx.cwd or os.getcwd(),
            blobs=self.conversation.blobs,
            project_schemas=routing.needs_schema_projection(model),
            new_id=_new_id,
            native_kinds=ctx.native_kinds if ctx.run_native is not None else frozenset(),
        )
        fold = Fold(new_id=_new_id, host_names=answerer.host_names)
        settings = RunSettings(
            base_url=ctx.base_url or limits.DEFAULT_BASE_URL,
            token=self.token,
            client_version=limits.client_version(ctx.client_version),
            proxy=ctx.proxy,
            request_timeout=ctx.request_timeout or limits.DEFAULT_REQUEST_TIMEOUT_SECONDS,
            append_base_timeout=ctx.append_timeout or limits.APPEND_BASE_TIMEOUT_SECONDS,
            transport=ctx.transport or limits.DEFAULT_RUN_TRANSPORT,
            clients=self.state.http_clients if self.state is not None else None,
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
                broke = await self._one_run(settings, data, fold, answerer)
                if fold.checkpoint is not None:
                    # A run on this wire id was accepted and checkpointed: the service
                    # knows it (before _failed, whose rotation makes a new id unseen).
                    self.conversation.seen = True
                if broke is None:
                    break
                checkpoint = fold.checkpoint
                if not self._resumable(broke, fold) or checkpoint is None:
                    if self.ended_whole:
                        break  # the completeness rule alone calls it whole: keep it
                    raise self._failed(broke, fold)
                self.resumes += 1
                log.info(
                    "Cursor's stream broke after a checkpoint (%s); resuming (%d of %d)",
                    loggable(broke.detail),
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
        finally:
            blobs.unpin(pin)
            self.saw_output = fold.saw_output
            if answerer.bridged and self.state is not None:
                # Kept for the next round, which replays each as its native step.
                with self.state.lock:
                    self.state.bridged.add(answerer.bridged.values())
        self.duration = time.monotonic() - started
        result = self._finish(build, fold)
        store = self.table.store
        if store is not None:
            # The disk table may wait on another process's lock: never on the event loop.
            for digest in self.written:
                await asyncio.to_thread(store.put, digest, self.ctx.model)
        return result

    async def _one_run(
        self, settings: RunSettings, data: bytes, fold: Fold, answerer: Answerer
    ) -> ProviderError | None:
        """Return None when one run said the whole turn, else the error that broke it.

        DATA is the run request. The break is the run's error, its end-stream
        error (unless moot), or StreamIncomplete for a stream that ended before
        the turn did; a stream that ends without turn_ended after a checkpoint of
        this round is a break even when the completeness rule would call it whole.
        """
        started = time.monotonic()
        self.ended_whole = False
        pool = self.state.run_connections if self.state is not None else None
        run = open_run(settings, pool)
        try:
            async with run:
                self._log_start(data, run.request_id, settings.original_request_id)
                run.send(data)
                await self._pump(run, fold, answerer)
        except ProviderError as exc:
            log.debug(
                "run failed after %.3f s, frames=%d: %s",
                time.monotonic() - started,
                self.frames,
                loggable(exc.detail),
            )
            return exc
        finally:
            if settings.original_request_id is None:
                # The id the service knows the first run by (a move to RunPoll renews it).
                self.first_request_id = run.request_id
        end_error = run.end_error
        if end_error is not None and not fold.end_error_ignored:
            return end_error
        if fold.turn_ended:
            return None
        if fold.checkpoint is None and fold.complete:
            return None
        self.ended_whole = fold.complete
        why = run.cut or "the stream ended before the turn did"
        return StreamIncomplete(f"Cursor's answer is incomplete: {why} (try again)")

    def _resumable(self, broke: ProviderError, fold: Fold) -> bool:
        """Return whether the round goes on with a run resuming from the newest checkpoint.

        Only a break a retry may mend (retryable, not a quota's 429) before the
        turn ended, with a checkpoint no exec answer came after, while tries remain.
        """
        if fold.checkpoint is None or fold.turn_ended or self.resumes >= limits.MAX_RESUMES:
            return False
        if not broke.retryable or broke.status == 429:
            return False
        if self.answered_since_checkpoint:
            log.info("not resuming: an exec answer went out after Cursor's last checkpoint")
            return False
        return True

    async def _pump(self, run: RunTransport, fold: Fold, answerer: Answerer) -> None:
        """Feed every server message to the fold and send its answers, until the stream ends.

        Only progress moves the deadline (``_progress``: text, thinking, a tool
        call, a checkpoint, a turn event). Heartbeats, empty frames, fields we do not
        know and empty deltas keep the socket busy but say nothing: a stream of only
        those for the request timeout is as incomplete as a silent one, and they do
        not stretch the short grace after the turn ended. Progress pushes the deadline
        to the request timeout from now, or to the grace once the turn has ended. The
        text, thinking and tool-call updates together may not pass ``max_reply_bytes``.
        """
        loop = asyncio.get_running_loop()
        idle = run.settings.request_timeout
        checkpoint = fold.checkpoint
        wait = min(TURN_END_GRACE_SECONDS, idle)
        deadline: asyncio.Timeout | None = None
        lazy: IdleDeadline | None = None  # moves the deadline without a timer per message
        beats = 0  # messages since the last one that said something
        reply_bytes = 0
        limit = self.max_reply_bytes
        show = self.ctx.on_part  # the fold and the answerer return parts; the host sees them
        # Native tools the host runs in place, each in a task of its own: the stream keeps
        # being read meanwhile, and the idle deadline waits while any is running (the
        # service is waiting for the answer, perhaps on a person's confirmation).
        running: set[asyncio.Task[None]] = set()

        def tool_done(task: asyncio.Task[None]) -> None:
            running.discard(task)
            if not running and lazy is not None and deadline is not None and not deadline.expired():
                lazy.push(loop.time() + idle)

        try:
            # aclosing: a deadline leaving the loop early must close the generator here,
            # not leave its finalizer as a task pending on the loop.
            async with (
                asyncio.timeout_at(None) as deadline,
                contextlib.aclosing(run.batches()) as batches,
            ):
                lazy = IdleDeadline(deadline, loop.time() + idle)
                try:
                    async for batch in batches:
                        # No await in a batch: the time at its end is every message's.
                        progressed = False
                        for message in batch:
                            self.frames += 1
                            # The fast path: a text or thinking delta, progress, asks nothing.
                            size, part = fold.feed_delta(message, limit - reply_bytes)
                            if size >= 0:
                                reply_bytes += size
                                if reply_bytes > limit:
                                    raise self._too_large()
                                if part is not None and show is not None:
                                    show(part)
                                beats = 0
                                progressed = True
                                continue
                            reply_bytes += _reply_size(message)
                            if reply_bytes > limit:
                                raise self._too_large()
                            _show_all(show, fold.feed(message))
                            if fold.checkpoint is not checkpoint:
                                checkpoint = fold.checkpoint
                                self.answered_since_checkpoint = False
                            if not self._run_in_place(
                                run, fold, answerer, message, running, tool_done
                            ):
                                answer = answerer.answer(message)
                                _show_all(show, fold.apply(answer.calls))
                                for reply in answer.replies:
                                    if checkpoint is not None and _exec_answer(reply):
                                        self.answered_since_checkpoint = True
                                    run.send(reply.SerializeToString())
                            if not _progress(message):
                                beats += 1
                                continue
                            beats = 0
                            progressed = True
                        if progressed:
                            lazy.push(
                                None
                                if running
                                else loop.time() + (wait if fold.turn_ended else idle)
                            )
                finally:
                    lazy.close()
        except TimeoutError:
            if deadline is None or not deadline.expired():
                raise
            if not fold.turn_ended:
                what = "only heartbeats or empty messages" if beats else "nothing"
                raise StreamIncomplete(
                    f"Cursor sent {what} for {idle:g} s; the stream is incomplete (try again)"
                ) from None
            log.debug("the stream stayed open after the turn ended; treating it as over")
        finally:
            # A cancelled round (or a stream that ended) cancels the tools still running;
            # the deadline is over, so their ends must not move it.
            deadline = None
            left = list(running)
            for task in left:
                task.cancel()
            if left:
                await asyncio.gather(*left, return_exceptions=True)

    def _too_large(self) -> ProviderError:
        """Return the error that stops a round whose answer passed ``max_reply_bytes``."""
        return ProviderError(
            f"Cursor's answer passed {self.max_reply_bytes} bytes of text, "
            "thinking and tool arguments (cursor.max_reply_bytes); the round "
            "is stopped",
            code="reply_too_large",
        )

    def _run_in_place(
        self,
        run: RunTransport,
        fold: Fold,
        answerer: Answerer,
        message: Any,
        running: set[asyncio.Task[None]],
        done: Callable[[asyncio.Task[None]], None],
    ) -> bool:
        """Start the host's runner when MESSAGE asks for a kind it runs in place; return whether.

        The runner is awaited in a task; its outcome is answered in the ask's typed result
        (a runner that raises is answered as failed, its error in one line).
        """
        runner = self.ctx.run_native
        found = answerer.in_place(message) if runner is not None else None
        if runner is None or found is None:
            return False
        ask, call, shown = found
        again = answerer.replay(ask, call)
        if again is not None:
            for reply in again:
                run.send(reply.SerializeToString())
            return True
        _show_all(self.ctx.on_part, shown)

        async def serve() -> None:
            try:
                outcome = await runner(call)
                if not isinstance(outcome, NativeOutcome):
                    outcome = NativeOutcome.failed("the host's runner answered no NativeOutcome")
            except Exception as exc:  # a host's bug fails the call, not the round
                outcome = NativeOutcome.failed(scrub(f"{type(exc).__name__}: {exc}"))
            answer = answerer.native_answer(ask, call, outcome)
            _show_all(self.ctx.on_part, fold.apply(answer.calls))
            for reply in answer.replies:
                run.send(reply.SerializeToString())
            # An exec answer the service has: a resume from an older checkpoint would
            # replay it (the pump clears this when a newer checkpoint arrives).
            self.answered_since_checkpoint = True

        task = asyncio.create_task(serve(), name=f"cursor-native-{call.kind}")
        running.add(task)
        task.add_done_callback(done)
        return True

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

    def _failed(self, exc: ProviderError, fold: Fold) -> ProviderError:
        """Return the error that ends the round for EXC, after its side effects.

        A bare resource_exhausted rotates the conversation (``Conversation.poison``)
        and, once it has rotated ``limits.MAX_ROTATIONS`` times, becomes the error
        saying Cursor keeps refusing it; a usage-pricing refusal becomes one line
        naming the model, and never rotates.
        """
        if exc.code in USAGE_PRICING_CODES:
            model = self.ctx.model
            row = catalog.find_model(model)
            shown = row.name if row is not None else self.display
            name = model if shown == model else f"{shown} ({model})"
            service = " ".join(exc.detail.split())
            return ProviderError(
                f"Cursor refused {name}: the account needs usage-based pricing for this model;"
                f" turn it on for the account or choose another model ({service})",
                status=exc.status,
                retryable=False,
                code=exc.code,
            )
        # ErrorDetails say why a quota ran out; only a bare Connect resource_exhausted
        # (ResourceExhausted) means Cursor refused the conversation itself.
        if not isinstance(exc, ResourceExhausted) or fold.saw_token_delta:
            return exc
        self.refused_bare = True
        if not self.rotate_on_refusal:
            return exc  # the round decides: a retry on the variant is not a rotation
        return self.rotate(exc)
        return exc

    def rotate(self, exc: ProviderError) -> ProviderError:
        """Return the error Cursor's refusal EXC ends the round with, after rotating.

        The conversation gets a new wire id (``Conversation.poison``); once it has
        rotated ``limits.MAX_ROTATIONS`` times the error says Cursor keeps refusing it.
        """
        conversation = self.conversation
        if conversation.rotations_spent:
            return ProviderError(
                "Cursor keeps refusing this conversation (resource_exhausted after"
                f" {limits.MAX_ROTATIONS} new conversation ids); start a new session",
                status=exc.status,
                retryable=False,
                code="conversation_refused",
                hint="start a new session",
            )
        if conversation.poison():
            log.info("Cursor refused the conversation (resource_exhausted); rotating its id")
        return exc

    def _finish(self, build: RunRequestBuild, fold: Fold) -> RoundResult:
        """Return the result of a complete run, keeping its checkpoint and its writer."""
        conversation = self.conversation
        conversation.turn_completed()
        conversation.seen = True
        if fold.checkpoint is not None:
            conversation.keep_checkpoint(fold.checkpoint, build.history.system_ids)
        messages = fold.messages()
        message = messages[-1]
        self.written = [
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
            self.duration,
            self.frames,
        )

        return RoundResult(
            message=message,
            usage=fold.usage,
            finish_reason=fold.finish_reason,
            request=build.data,
            # The routed sibling slug (ModelDetails), not the base id RequestedModel
            # carries: what a person needs to see which tier the round ran on.
            wire_model=self.wire.details_id,
            cost_usd_estimate=round_cost(self.ctx.model, fold.usage),
            messages=messages,
        )
