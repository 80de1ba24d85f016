"""The run request: the AgentClientMessage that opens a Cursor run (append 0).

``build_run_request`` turns one round's inputs into
``AgentClientMessage{1 run_request: AgentRunRequest{1 conversation_state,
2 action, 3 model_details, 4 mcp_tools, 5 conversation_id, 9 requested_model}}``:

* the conversation state's root prompt blobs and turns come from the history
  (``history.py``), within the request's history budget (``budget.py``; what
  does not fit is folded into one transcript blob, ``fold_history.py``),
  stored in the conversation's blob store, which the KV channel serves from
  while the run is open; the store then drops the history blobs this request
  no longer names (``BlobStore.retain``), so a long session holds what its
  current history needs;
* a checkpoint the service sent lends every other state field (todos, file
  states, summaries, ...) unchanged, while the system prompt's blob ids are the
  ones it was taken under; otherwise the state starts empty;
* the action is the trailing user message (text, images inline), else resume;
  but a conversation the service has never run (``Conversation.seen``: a fresh
  id, a rotated one) cannot be resumed, so a history that ends after its last
  user message (on tool results) starts it with ``CONTINUATION`` as the action
  and the whole history, finished calls and results included, in the state:
  nothing done is redone (docs/protocol.md §7);
* ModelDetails / RequestedModel come from routing's ``WireModel``;
* the continuation shape and model fields (``continuation.py``) are the
  caller's: ``Shape.MESSAGE`` continues after tool results with a user message
  of ours (``RESULTS_CONTINUATION``) instead of resume and leaves MCP call and
  thinking steps out of the turns; ``ModelFields.REQUESTED_ONLY`` leaves
  ModelDetails out.

``resume_request`` is the request of a run that resumes a broken run of the
same round from the checkpoint the service sent: the checkpoint as it came,
``resume_action{}``, the same model fields, tools and conversation id.

The host's tools are declared in field 4 (``McpTools``, present even when empty,
as Cursor's CLI sends it) and again in the request context (both built by
``request_context.tool_definitions``); newer optional fields
(inline-image support, run id, session id) stay unset, as omp leaves them.
Pure: no I/O; the one random thing (the action's message id and image ids) can
be injected.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .._proto import agent_pb2
from .blobs import Conversation
from .budget import HistoryBudget
from .continuation import RESULTS_CONTINUATION, ModelFields, Shape
from .history import ActiveUser, HistoryBlobs, NativeReplay, ThinkingReplay, build_history
from .writers import check_history, replay_policy

if TYPE_CHECKING:
    from ..models.routing import WireModel
    from .history_read import HistoryRead
    from .writers import WriterTable

__all__ = [
    "RunRequestBuild",
    "build_run_request",
    "model_details",
    "requested_model",
    "resume_request",
]

# The action that starts a conversation the service never ran from a history that
# ends after its last user message: the model reads that history whole (its calls
# and their results among the root prompt blobs and the turn's steps) and goes on.
CONTINUATION = "Continue from where the conversation left off."


@dataclass(frozen=True, slots=True)
class RunRequestBuild:
    """One built run request.

    ``message`` is the AgentClientMessage, ``data`` its bytes (append 0),
    ``history`` the blob ids it names (all held by ``conversation.blobs``),
    ``conversation_id`` the wire id it carries, and ``reused_checkpoint``
    whether a kept checkpoint lent its other state fields.
    """

    message: agent_pb2.AgentClientMessage
    data: bytes
    history: HistoryBlobs
    conversation_id: str
    reused_checkpoint: bool


def model_details(wire: WireModel, model_id: str, display_name: str) -> agent_pb2.ModelDetails:
    """Return ModelDetails: the sibling slug, our model id and name, max mode only when on."""
    details = agent_pb2.ModelDetails(
        model_id=wire.details_id, display_model_id=model_id, display_name=display_name
    )
    if wire.max_mode:
        details.max_mode = True
    return details


def requested_model(wire: WireModel) -> agent_pb2.RequestedModel:
    """Return RequestedModel: the base id, max mode, and the routed parameters."""
    requested = agent_pb2.RequestedModel(model_id=wire.requested_id, max_mode=wire.max_mode)
    for parameter_id, value in wire.parameters:
        requested.parameters.add(id=parameter_id, value=value)
    return requested


def _new_uuid() -> str:
    """Return a fresh random UUID string."""
    return str(uuid.uuid4())


def _action(
    active: ActiveUser | None,
    ran: bool,
    new_id: Callable[[], str],
    shape: Shape = Shape.RESUME,
) -> agent_pb2.ConversationAction:
    """Return the run's action: the trailing user message, else resume (if RAN), else go on.

    In the MESSAGE shape a history without a trailing user message goes on with
    ``RESULTS_CONTINUATION``, never resume.
    """
    if active is None and shape is Shape.MESSAGE:
        active = ActiveUser(RESULTS_CONTINUATION, ())
    if active is None and ran:
        return agent_pb2.ConversationAction(resume_action=agent_pb2.ResumeAction())
    if active is None:
        active = ActiveUser(CONTINUATION, ())
    message = agent_pb2.UserMessage(text=active.text, message_id=new_id())
    for mime, data in active.images:
        message.selected_context.selected_images.add(uuid=new_id(), mime_type=mime, data=data)
    return agent_pb2.ConversationAction(
        user_message_action=agent_pb2.UserMessageAction(user_message=message)
    )


def _state(
    history: HistoryBlobs, conversation: Conversation
) -> tuple[agent_pb2.ConversationStateStructure, bool]:
    """Return the conversation state and whether a kept checkpoint lent its other fields."""
    state = agent_pb2.ConversationStateStructure()
    checkpoint = conversation.checkpoint_for(history.system_ids)
    if checkpoint is not None:
        # every field but the prompt (1) and the turns (8) rides back unchanged,
        # fields we do not name included (CopyFrom keeps unknown fields)
        state.CopyFrom(checkpoint)
        state.ClearField("root_prompt_messages_json")
        state.ClearField("turns")
    state.root_prompt_messages_json.extend(history.root_ids)
    state.turns.extend(history.turn_ids)
    return state, checkpoint is not None


def _history_end(messages: Sequence[Mapping[str, Any]]) -> int:
    """Return where the history ends: before a trailing user message, else at the end."""
    last = messages[-1] if messages else None
    if isinstance(last, Mapping) and last.get("role") in ("user", "developer", "system"):
        return len(messages) - 1
    return len(messages)


def resume_request(
    first: RunRequestBuild, checkpoint: agent_pb2.ConversationStateStructure
) -> bytes:
    """Return the bytes of the run request that resumes FIRST's round from CHECKPOINT.

    ``AgentRunRequest{1 the checkpoint as the service sent it (unknown fields
    too), 2 resume_action{}, 3 and 9 FIRST's model fields, 4 FIRST's tools, 5 FIRST's
    conversation id}``.
    """
    source = first.message.run_request
    run = agent_pb2.AgentRunRequest(
        action=agent_pb2.ConversationAction(resume_action=agent_pb2.ResumeAction()),
        requested_model=source.requested_model,
        conversation_id=source.conversation_id,
    )
    if source.HasField("model_details"):  # left out when FIRST sent requested_model alone
        run.model_details.CopyFrom(source.model_details)
    run.conversation_state.CopyFrom(checkpoint)
    run.mcp_tools.CopyFrom(source.mcp_tools)  # field 4 rides on every run, even empty
    return agent_pb2.AgentClientMessage(run_request=run).SerializeToString()


def build_run_request(
    messages: Sequence[Mapping[str, Any]],
    system: str | None,
    wire: WireModel,
    model_id: str,
    display_name: str,
    conversation: Conversation,
    replay_thinking: ThinkingReplay | None = None,
    *,
    writers: WriterTable | None = None,
    new_id: Callable[[], str] | None = None,
    tool_names: Mapping[str, str] | None = None,
    native: NativeReplay | None = None,
    budget: HistoryBudget | None = None,
    mcp_tools: Sequence[agent_pb2.McpToolDefinition] = (),
    shape: Shape = Shape.RESUME,
    fields: ModelFields = ModelFields.BOTH,
    memo: HistoryRead | None = None,
) -> RunRequestBuild:
    """Return the run request of one round (its AgentClientMessage and bytes).

    MESSAGES: the host's OpenAI chat messages; SYSTEM: the system prompt; WIRE:
    routing's resolved model (RequestedModel and ModelDetails); MODEL_ID and
    DISPLAY_NAME: our model id and name for ModelDetails; CONVERSATION: the
    conversation's blob store, checkpoint and wire id (the blobs are stored
    there). Thinking replay: REPLAY_THINKING, a per-message policy (model name
    or None), else, when WRITERS is given, the Kimi K3 policy of that writer
    table for MODEL_ID, which also refuses (ConfigError) K3 history another
    known Cursor model wrote; with neither, no thinking replays. NEW_ID makes
    the action's message and image ids (a random UUID by default). TOOL_NAMES and
    NATIVE go to ``build_history`` (wire names; bridged native calls' replay).
    BUDGET bounds the state's root blobs and root JSON bytes (None: the default
    ``HistoryBudget()``); a history over it folds its oldest messages into one
    transcript blob (``history.HistoryBlobs.folded`` says how many).
    MCP_TOOLS are the host's tools as declared (``request_context.tool_definitions``): field 4.
    SHAPE is the continuation shape and FIELDS the model fields to send
    (``continuation.py``; today's RESUME and BOTH by default). MEMO is the history
    as an earlier round of the session read it (``history_read.HistoryRead``).
    """
    policy = replay_thinking
    if writers is not None:
        check_history(writers, list(messages), model_id, end=_history_end(messages))
        if policy is None:
            policy = replay_policy(writers, model_id)
    store = conversation.blobs
    store.begin()
    history = build_history(
        messages,
        system,
        store,
        policy,
        tool_names=tool_names,
        native=native,
        budget=budget or HistoryBudget(),
        mcp_steps=shape is Shape.RESUME,
        memo=memo,
    )
    # The store keeps what this request names (and what runs in flight pinned):
    # a blob the history no longer holds is never asked for again.
    store.retain(history.blob_ids)
    state, reused = _state(history, conversation)
    run = agent_pb2.AgentRunRequest(
        conversation_state=state,
        action=_action(history.active, conversation.seen, new_id or _new_uuid, shape),
        requested_model=requested_model(wire),
        conversation_id=conversation.conversation_id,
    )
    # Field 4, where the service looks for the client's tools: sent even when empty.
    run.mcp_tools.SetInParent()
    run.mcp_tools.mcp_tools.extend(mcp_tools)
    if fields is ModelFields.BOTH:
        run.model_details.CopyFrom(model_details(wire, model_id, display_name))
    message = agent_pb2.AgentClientMessage(run_request=run)
    return RunRequestBuild(
        message=message,
        data=message.SerializeToString(),
        history=history,
        conversation_id=conversation.conversation_id,
        reused_checkpoint=reused,
    )
