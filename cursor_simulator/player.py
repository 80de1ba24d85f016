"""The player of the simulated agent service: plays one run's script onto its stream.

``Player`` waits for the run request, refuses what the service refuses as a
whole (the resume of a conversation it never saw, a catalog variant's bare
sibling slug, both model fields when ``both_model_fields_refused``, a model the
roster does not list or, while the third-party pool is spent, any model not Cursor's
own, and after hydrating the root blobs over KV a history past the model's context
window; a simulator account's own roster, spent pool and conversation ids are its own),
lets an external worker refuse or ignore a continuation as
``external_continuation`` says (``workers.py``), then turns each step of the script
(``steps.py``) into Connect frames, waiting for the client's answer wherever a
step asks something, and records what it saw on the run (``records.RunRecord``).
It sees the agent service through ``run_stream.PlayerHost`` — the knobs and what every
run shares — so it never imports ``agent.py``, which starts it. Playing each step is
``step_player.StepPlayer``'s, which ``Player`` builds on, and writing frames and
awaiting answers ``run_stream.RunStream``'s; how its frames reach the client (SSE,
poll frames, HTTP/2, gzip) is the routes' business.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Generator, Iterable, Iterator
from typing import Any

from nodecode_cursor._proto import agent_pb2

from . import plan, workers
from .records import RunRecord
from .run_stream import GiveUp, PlayerHost, kv_answer
from .step_player import StepPlayer
from .steps import Checkpoint, KvRead, Raw, Step, Text, Thinking, ToolCall

__all__ = [
    "BARE_REFUSAL",
    "ROOT_LIMIT_REFUSAL",
    "UNKNOWN_CONVERSATION",
    "Player",
    "Script",
]


# What the service answers a run it refuses as a whole (a bare Connect error, no details).
BARE_REFUSAL = {"code": "resource_exhausted", "message": "Error"}
# The simulator's stand-in for a resume of a conversation it has never seen (the real
# service's answer is not public; see docs/protocol.md).
UNKNOWN_CONVERSATION = {"code": "failed_precondition", "message": "unknown conversation"}


# What the service ends a run over the root limit with (its words are not public; the
# code and the empty token count are what peers saw).
ROOT_LIMIT_REFUSAL = {"code": "invalid_argument", "message": "Error"}

# What a test queues for a run: its steps, or a function of the run yielding them.
Script = Iterable[Step] | Callable[["RunRecord"], Iterable[Step]]


class Player(StepPlayer):
    """Plays one run's script onto its stream, waiting for the client's answers."""

    def play(self, steps: Iterator[Step]) -> Iterator[bytes]:
        """Yield the stream's bytes: wait for the run request, then each step's frames."""
        try:
            first = self._wait(lambda m: True)
            if not first.HasField("run_request"):
                self.run.violations.append("the first client message is not the run request")
            self.run.run_request = first.run_request
            if self.service.require_mcp_tools and not first.run_request.HasField("mcp_tools"):
                self.run.violations.append("the run request does not declare mcp_tools (field 4)")
            refusal = self._refusal(first.run_request)
            if refusal is None:
                refusal = yield from self._window_refusal(first.run_request)
            if refusal is not None:
                yield self._end({"error": refusal})
                return
            if self._over_root_limit(first.run_request):
                yield from self._late_refusal(first.run_request)
                return
            worker = yield from self._worker(first.run_request)
            if worker is not None:
                steps = iter(worker)
            delay = self.service.first_token_delay
            for step in steps:
                if delay and isinstance(step, (Text, Thinking, ToolCall)):
                    self._sleep(delay)
                    delay = 0.0
                yield from self._step(step)
                if self.run.ended and not isinstance(step, Raw):
                    return
            if not self.run.ended:
                yield self._end({})
        except GiveUp:
            return

    def _refusal(self, request: agent_pb2.AgentRunRequest) -> dict[str, Any] | None:
        """Return the Connect error the service answers REQUEST with, or None to run it."""
        service = self.service
        original = self.run.headers.get("x-original-request-id")
        if original is not None and original not in service.by_id:
            self.run.violations.append(f"x-original-request-id names no earlier run: {original}")
        conversation = request.conversation_id
        resuming = request.action.HasField("resume_action")
        if original is not None and resuming:
            self._resumed(service, conversation, original, request)
        # A conversation id is known only on the account that ran it (opencodex #2568).
        account = self.run.account
        owned = (account.email if account is not None else "", conversation)
        with service.lock:
            known = owned in service.conversations
            if not resuming or known or not service.refuse_unknown_resume:
                service.conversations.add(owned)
        if resuming and not known and service.refuse_unknown_resume:
            return dict(UNKNOWN_CONVERSATION)
        requested = request.requested_model
        bare = service.refuse_bare_siblings and not requested.parameters
        catalog = service.catalog
        if bare and catalog is not None and catalog.variant(requested.model_id) is not None:
            return dict(BARE_REFUSAL)
        if (
            service.both_model_fields_refused
            and request.HasField("model_details")
            and workers.is_external(requested.model_id)
        ):
            code, message = workers.REFUSED_FIELDS
            return {"code": code, "message": message}
        slugs = _slugs(request)
        roster = service.roster
        own_roster = account.lists(*slugs) if account is not None else None
        if own_roster is not None:
            unlisted = own_roster is False  # the account's own roster, not the simulator's
        else:
            unlisted = roster is not None and roster.lists(*slugs) is False
        if slugs and service.refuse_unlisted_models and unlisted:
            return dict(BARE_REFUSAL)
        spent = service.pool_empty or (account is not None and account.pool_empty)
        if slugs and spent and not any(plan.cursor_own(s) for s in slugs):
            return dict(BARE_REFUSAL)
        return None

    def _over_root_limit(self, request: agent_pb2.AgentRunRequest) -> bool:
        """Return whether REQUEST names more root blobs than the service takes."""
        limit = self.service.root_limit
        roots = request.conversation_state.root_prompt_messages_json
        return limit is not None and len(roots) > limit

    def _late_refusal(self, request: agent_pb2.AgentRunRequest) -> Iterator[bytes]:
        """Yield what the service answers a run over the root limit: late, after hydrating.

        It asks for a few of the roots over KV (as a model reading its history does),
        sends a checkpoint whose token count is 0, then ends with invalid_argument.
        """
        roots = list(request.conversation_state.root_prompt_messages_json)
        for blob_id in roots[:3]:
            yield from self._kv_read(KvRead(blob_id=bytes(blob_id)))
        state = agent_pb2.ConversationStateStructure()
        state.CopyFrom(request.conversation_state)
        state.token_details.used_tokens = 0
        yield from self._step(Checkpoint(state=state.SerializeToString()))
        yield self._end({"error": dict(ROOT_LIMIT_REFUSAL)})

    def _worker(
        self, request: agent_pb2.AgentRunRequest
    ) -> Generator[bytes, None, list[Step] | None]:
        """Yield the KV asks an external worker reads the turns with; return steps of its own.

        Under ``external_continuation = "opencodex"`` an external model's worker
        refuses turns with an MCP call or thinking step (``step_completed``, then
        ``invalid_argument``) and, resumed after tool results, asks again for the
        call they answer. None: the script plays as queued.
        """
        if self.service.external_continuation != workers.OPENCODEX or not workers.is_external(
            request.requested_model.model_id
        ):
            return None
        if request.action.HasField("resume_action"):
            yield from self._kv_read(KvRead())
            call = workers.last_finished_call(self.run.root_messages())
            if call is not None:
                return workers.repeat_call(*call)
        turns = [bytes(turn) for turn in request.conversation_state.turns]
        for turn in turns:
            yield from self._kv_read(KvRead(turn))
        steps = [step for turn in turns for step in workers.step_ids(self._served(turn))]
        for step in steps:
            yield from self._kv_read(KvRead(step))
        if workers.refused_turn_steps([self._served(step) for step in steps]):
            return workers.refused(workers.REFUSED_TURNS, step_first=True)
        return None

    def _served(self, blob_id: bytes) -> bytes:
        """Return the blob the client served for BLOB_ID (empty when it did not)."""
        return self.run.served.get(blob_id.hex(), b"")

    def _window_refusal(
        self, request: agent_pb2.AgentRunRequest
    ) -> Generator[bytes, None, dict[str, Any] | None]:
        """Yield the KV asks that hydrate REQUEST's roots; return the refusal when past the window.

        Only a run on a model whose window is known is measured; a blob the client
        does not hold counts as empty. The asks take ids of their own, so the exec
        ids a script's steps get stay as they were.
        """
        service = self.service
        slugs = _slugs(request)
        given = service.context_windows
        known = next((given[s] for s in slugs if s in given), None)
        window = known if known is not None else plan.context_window(*slugs)
        roots = list(request.conversation_state.root_prompt_messages_json)
        if not service.refuse_past_window or window is None or not roots:
            return None
        with service.lock:
            missing = [bytes(b) for b in dict.fromkeys(roots) if bytes(b) not in service.blob_sizes]
        for index, blob_id in enumerate(missing):
            ask = _HYDRATE_IDS + index
            yield self._frame(
                kv_server_message=agent_pb2.KvServerMessage(
                    id=ask, get_blob_args=agent_pb2.GetBlobArgs(blob_id=blob_id)
                )
            )
            answer = self._wait(kv_answer(ask)).kv_client_message
            data = bytes(answer.get_blob_result.blob_data)
            if answer.HasField("get_blob_result") and hashlib.sha256(data).digest() == blob_id:
                with service.lock:
                    service.blob_sizes[blob_id] = len(data)
        with service.lock:
            size = sum(service.blob_sizes.get(bytes(b), 0) for b in roots)
        self.run.root_tokens = size // 4
        return dict(BARE_REFUSAL) if size // 4 > window else None

    def _resumed(
        self,
        service: PlayerHost,
        conversation: str,
        original: str,
        request: agent_pb2.AgentRunRequest,
    ) -> None:
        """Note what a resumed run resumes: its first run, and the checkpoint's text."""
        state = request.conversation_state.SerializeToString()
        with service.lock:
            self.run.original = service.by_id.get(original)
            sent = list(service.checkpoints.get(conversation, ()))
        said = next((text for raw, text in reversed(sent) if raw == state), None)
        if said is None:
            self.run.violations.append("a resumed run's state is not a checkpoint sent here")
        self.run.resumed_text = said


# The KV ask ids a run's hydration of its roots takes: far above the ids its script's
# asks count up from, so those stay as they were before hydration existed.
_HYDRATE_IDS = 1 << 30


def _slugs(request: agent_pb2.AgentRunRequest) -> list[str]:
    """Return the model ids REQUEST names: ModelDetails' slug, then RequestedModel's id."""
    found = (request.model_details.model_id, request.requested_model.model_id)
    return [slug for slug in dict.fromkeys(found) if slug]
