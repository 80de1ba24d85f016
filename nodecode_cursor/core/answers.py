"""Answer every ask the service makes during a run (docs/protocol.md §6).

The service runs its own agent loop and asks the client, over the exec channel,
to run tools; an ask left unanswered, or answered in the wrong shape, hangs the
turn. This client runs none of them during a round: the host's own turn loop
runs the host's tools between rounds. So:

- the request context answers the system prompt as one always-applied rule and
  the host's tools as MCP tool definitions;
- an MCP call (one of the host's tools) is answered with the handoff text, which
  tells the model to end its turn, and is returned as a ``fold.FiledCall`` for the
  round's message; the next round carries its result in the history (a host
  tool named like a native one rides under its wire name, ``bridge.py``);
- a native ask the host runs in place goes to its runner (``in_place`` names the
  call, the lane awaits the host's runner, ``native_answer`` answers; ``native.py``
  builds the typed results); one an equivalent host tool can do is handed off as
  that tool's call (``bridge.py``), answered as refused with the handoff text, and
  kept in ``bridged`` for the next round's replay; any other is refused in its own
  typed result; the run-in-place and refused ones are returned as
  ``fold.ResolvedCall`` for the round's message;
- an MCP call under a rendered name (``{provider}-{name}``, ``mcp_{provider}_{name}``)
  goes to the tool it stands for; one no declared tool goes by is refused as
  ``tool_not_found`` and named in ``Answer.refused`` (the lane logs it), never filed;
- interaction queries and the key-value blob store are answered too: every query
  gets an answer (``setup_vm`` an empty success, a member this schema does not
  know the bare ``InteractionResponse{id}``), as an unanswered one stalls the run.

The refusals themselves, each in its ask's own shape, are ``refusals.py``'s; the
request context's rule and tool definitions are ``request_context.py``'s.

Pure: ``Answerer.answer`` maps one server message to an ``Answer``: the client
messages that answer it, in order, and the calls it files or resolves on the
round's message; ids a call lacks come from the ``new_id`` factory the caller
passes. Sending the replies (as BidiAppends) is the transport's job; laying the
calls on the round (``Fold.apply``) and folding the stream are ``fold.py``'s
(feed it the same messages); the lane does both.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import resources
from typing import Any, Literal, Protocol

from .._proto import agent_pb2
from ..host import NativeCall, NativeOutcome, ResolvedCallResult, ResolvedCallStart, StreamPart
from .blobs import carried_content
from .bridge import NATIVE_TOOL_NAMES, Bridged, bridge, function_tools, host_name, wire_names
from .call_args import decode_mcp_args, mcp_call_name
from .fold import FiledCall, ResolvedCall

# The MCP server our tools ride under: one name for the tools declared here and the
# calls history replays (history.py owns it).
from .history import PROVIDER_IDENTIFIER
from .native import ASK_KINDS, exec_reply, native_answer, native_call, resolved_messages
from .refusals import NOT_IMPLEMENTED_BY_CLIENT, REFUSALS, TOOL_NOT_AVAILABLE, throw
from .request_context import request_rules, tool_definitions
from .tool_names import declared_call

__all__ = [
    "NATIVE_TOOL_NAMES",
    "PROVIDER_IDENTIFIER",
    "Answer",
    "Answerer",
    "BlobStore",
    "handoff_text",
]


@dataclass(slots=True)
class Answer:
    """What one server message asks of the round: replies to send, calls for its message.

    ``replies`` go to the service in order; ``calls`` (filed or resolved) go on the
    round's message through ``Fold.apply``, which returns the parts to show;
    ``refused`` names the MCP calls refused for naming no declared tool (for a log line).
    """

    replies: list[agent_pb2.AgentClientMessage]
    calls: list[FiledCall | ResolvedCall] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)


class BlobStore(Protocol):
    """The blobs of one conversation, by raw blob id."""

    def get(self, blob_id: bytes) -> bytes | None:
        """Return the blob held under ``blob_id``, or None."""
        ...

    def set(self, blob_id: bytes, data: bytes) -> None:
        """Keep ``data`` under ``blob_id``."""
        ...


@functools.cache
def handoff_text() -> str:
    """Return the text a handed-off MCP call is answered with (data/external-tool-handoff.md)."""
    source = resources.files("nodecode_cursor") / "data" / "external-tool-handoff.md"
    return source.read_text(encoding="utf-8").strip()


class Answerer:
    """The answers of one round: exec asks, interaction queries and key-value reads and writes.

    NEW_ID makes an id for a call the service named none for. ``host_names``
    maps the wire names of tools offered renamed to the host's own names: the
    round's ``Fold`` takes them.
    """

    def __init__(
        self,
        *,
        tools: list[dict[str, Any]],
        system_prompt: str,
        cwd: str,
        blobs: BlobStore,
        project_schemas: bool,
        new_id: Callable[[], str],
        native_kinds: frozenset[str] = frozenset(),
    ) -> None:
        # The kinds of native ask the host runs in place (empty: every one is refused).
        self.native_kinds = native_kinds
        # Outcomes of the calls run in place this round, by call id (a repeat is replayed).
        self._outcomes: dict[str, NativeOutcome] = {}
        self.cwd = cwd
        self.blobs = blobs
        self._new_id = new_id
        self.handed_off = False
        self.tools = tools
        # Host tools named like native ones ride under these wire names (bridge.py).
        self.wire_names = wire_names(fn["name"] for fn in function_tools(tools))
        self.host_names = {wire: host for host, wire in self.wire_names.items()}
        # The native asks handed off to host tools this round, by call id.
        self.bridged: dict[str, Bridged] = {}
        self.tool_definitions = tool_definitions(tools, project_schemas=project_schemas)
        # The wire names the run declares (field 4 and the request context): a call
        # maps back onto one of them or is refused (tool_names.py).
        self.declared = frozenset(definition.name for definition in self.tool_definitions)
        self._refused: list[str] = []
        self.rules = request_rules(system_prompt)
        # The calls the message being answered files or resolves (answer returns them).
        self._calls: list[FiledCall | ResolvedCall] = []

    def answer(self, server_msg: agent_pb2.AgentServerMessage) -> Answer:
        """Return what answers ``server_msg``: replies in order (none: no answer) and calls."""
        calls: list[FiledCall | ResolvedCall] = []
        self._calls = calls
        refused: list[str] = []
        self._refused = refused
        member = server_msg.WhichOneof("message")
        if member == "exec_server_message":
            return Answer(self._exec(server_msg.exec_server_message), calls, refused)
        if member == "kv_server_message":
            return Answer(self._kv(server_msg.kv_server_message), calls)
        if member == "interaction_query":
            return Answer(self._interaction(server_msg.interaction_query), calls)
        # Stream updates, checkpoints, an exec abort (the pump ends the round on it,
        # asks.service_abort) and the timing breakdown ask nothing.
        return Answer([], calls)

    # --- native tools run in place -----------------------------------------------------

    def in_place(
        self, server_msg: agent_pb2.AgentServerMessage
    ) -> tuple[agent_pb2.ExecServerMessage, NativeCall, list[StreamPart]] | None:
        """Return (the ask, its call, the parts to show) when SERVER_MSG is to be run in place.

        SERVER_MSG asks for a kind the host runs in place. The parts show the call
        to the host as started (none for a call asked again, which is replayed);
        ``native_answer`` answers it once the runner is done. None: ``answer``
        answers the message as usual.
        """
        if not self.native_kinds or server_msg.WhichOneof("message") != "exec_server_message":
            return None
        ask = server_msg.exec_server_message
        if ASK_KINDS.get(ask.WhichOneof("message") or "") not in self.native_kinds:
            return None
        call = native_call(ask, self.cwd, self._new_id)
        if call is None:
            return None
        if call.id and call.id in self._outcomes:
            return ask, call, []  # asked again (a resumed run): replayed, not shown twice
        arguments = resolved_messages(call.id, call.kind, call.arguments(), "", failed=False)
        text = arguments[0]["function"]["arguments"]
        return ask, call, [ResolvedCallStart(call.id, call.kind, text, "host")]

    def native_answer(
        self, ask: agent_pb2.ExecServerMessage, call: NativeCall, outcome: NativeOutcome
    ) -> Answer:
        """Return the answer of a call run in place, with the call resolved for the round."""
        if call.id:
            self._outcomes[call.id] = outcome
        resolved = self._resolved(call, outcome.text, failed=outcome.status != "done", by=None)
        return Answer(native_answer(ask, call, outcome), [resolved])

    def replay(
        self, ask: agent_pb2.ExecServerMessage, call: NativeCall
    ) -> list[agent_pb2.AgentClientMessage] | None:
        """Return the answer a call with CALL's id got before in this round, or None.

        The service asks a call again after a resumed run; it runs once (a command
        must not run twice) and the repeat is answered with its first outcome.
        """
        outcome = self._outcomes.get(call.id) if call.id else None
        return None if outcome is None else native_answer(ask, call, outcome)

    def _resolved(
        self, call: NativeCall, text: str, *, failed: bool, by: Literal["cell"] | None
    ) -> ResolvedCall:
        """Return CALL and its result TEXT as a resolved call (its start shown first when BY)."""
        entry, result = resolved_messages(call.id, call.kind, call.arguments(), text, failed=failed)
        shown = ResolvedCallResult(call.id, call.kind, text, failed)
        if by is None:
            return ResolvedCall(entry, result, (shown,))
        start = ResolvedCallStart(call.id, call.kind, entry["function"]["arguments"], by)
        return ResolvedCall(entry, result, (start, shown))

    # --- exec ----------------------------------------------------------------------

    def _exec(self, ask: agent_pb2.ExecServerMessage) -> list[agent_pb2.AgentClientMessage]:
        member = ask.WhichOneof("message")
        if member is None:
            return throw(ask, "Unknown exec message variant", "unknown_exec_variant")
        if member not in _OWN_ASKS and member not in REFUSALS:
            return throw(
                ask,
                f"Exec ask {member} is {NOT_IMPLEMENTED_BY_CLIENT.lower()}",
                "exec_variant_unsupported",
            )
        if member in ASK_KINDS:
            handed = self._bridge(ask)
            if handed is not None:
                return handed
        own = _OWN_ASKS.get(member)
        answers = own(self, ask) if own is not None else REFUSALS[member](ask, self.cwd)
        if member in ASK_KINDS:
            # A native ask refused: the round records it, as it would a call run in place.
            refused = native_call(ask, self.cwd, self._new_id)
            if refused is not None:
                self._calls.append(
                    self._resolved(refused, TOOL_NOT_AVAILABLE, failed=True, by="cell")
                )
        return answers

    def _bridge(
        self, ask: agent_pb2.ExecServerMessage
    ) -> list[agent_pb2.AgentClientMessage] | None:
        """Return the answer handing native ASK off to an equivalent host tool, or None.

        The call is filed under the host tool's own name and arguments and the ask is
        answered as refused with the handoff text, so the service ends its turn as
        for an MCP handoff; the host's result replays next round in the ask's shape.
        """
        call = native_call(ask, self.cwd, self._new_id)
        if call is None:
            return None
        if call.id in self.bridged:
            handed = self.bridged[call.id]  # asked again (a resumed run): filed once
        else:
            found = bridge(ask, call, self.tools, self.cwd)
            if found is None:
                return None
            handed = self.bridged[call.id] = found
            self._calls.append(FiledCall(call.id, found.name, dict(found.arguments)))
        self.handed_off = True
        return native_answer(ask, handed.call, NativeOutcome("refused", handoff_text()))

    def _request_context(
        self, ask: agent_pb2.ExecServerMessage
    ) -> list[agent_pb2.AgentClientMessage]:
        result = agent_pb2.RequestContextResult()
        context = result.success.request_context
        context.rules.extend(self.rules)
        context.tools.extend(self.tool_definitions)
        return [exec_reply(ask, request_context_result=result)]

    def _mcp(self, ask: agent_pb2.ExecServerMessage) -> list[agent_pb2.AgentClientMessage]:
        args = ask.mcp_args
        result = agent_pb2.McpResult()
        wire = declared_call(args, self.declared)
        if wire is None:
            # No declared tool goes by this name: never guessed onto one.
            asked = mcp_call_name(args)
            self._refused.append(asked)
            result.tool_not_found.name = asked
            result.tool_not_found.available_tools.extend(sorted(self.declared))
            return [exec_reply(ask, mcp_result=result)]
        name = host_name(wire, self.wire_names)
        if args.smart_mode_approval_only:
            # An approval probe, not a call: nothing here can approve.
            result.rejected.reason = f'Tool "{name}" is not approved to run without asking.'
            return [exec_reply(ask, mcp_result=result)]
        call_id = args.tool_call_id or self._new_id()
        self._calls.append(FiledCall(call_id, name, decode_mcp_args(args.args)))
        self.handed_off = True
        result.success.content.add().text.text = handoff_text()
        return [exec_reply(ask, mcp_result=result)]

    def _mcp_state(self, ask: agent_pb2.ExecServerMessage) -> list[agent_pb2.AgentClientMessage]:
        wanted = list(ask.mcp_state_exec_args.server_identifiers)
        result = agent_pb2.McpStateExecResult()
        result.success.SetInParent()
        if self.tool_definitions and (not wanted or PROVIDER_IDENTIFIER in wanted):
            server = result.success.servers.add()
            server.server_name = PROVIDER_IDENTIFIER
            server.server_identifier = PROVIDER_IDENTIFIER
            server.tools.extend(self.tool_definitions)
            server.status = "connected"
        return [exec_reply(ask, mcp_state_exec_result=result)]

    # --- interaction queries ----------------------------------------------------------

    def _interaction(self, query: agent_pb2.InteractionQuery) -> list[agent_pb2.AgentClientMessage]:
        member = query.WhichOneof("query")
        response = agent_pb2.InteractionResponse(id=query.id)
        if member == "web_search_request_query":
            response.web_search_request_response.approved.SetInParent()
        elif member == "exa_search_request_query":
            response.exa_search_request_response.approved.SetInParent()
        elif member == "exa_fetch_request_query":
            response.exa_fetch_request_response.approved.SetInParent()
        elif member == "web_fetch_request_query":
            response.web_fetch_request_response.approved.SetInParent()
        elif member == "ask_question_interaction_query":
            rejected = response.ask_question_interaction_response.result.rejected
            rejected.reason = f"Interactive questions are {NOT_IMPLEMENTED_BY_CLIENT.lower()}"
        elif member == "switch_mode_request_query":
            rejected_mode = response.switch_mode_request_response.rejected
            rejected_mode.reason = f"Mode switches are {NOT_IMPLEMENTED_BY_CLIENT.lower()}"
        elif member == "create_plan_request_query":
            plan = response.create_plan_request_response.result
            plan.error.error = f"Plan files are {NOT_IMPLEMENTED_BY_CLIENT.lower()}"
        elif member == "setup_vm_environment_args":
            # It has no refusal: an empty success, as peers answer it (left unanswered,
            # the agent waits on heartbeats alone).
            response.setup_vm_environment_result.success.SetInParent()
        # A query this schema does not know: the bare InteractionResponse{id}, as peers
        # answer it (guessing a result shape for it could be refused).
        message = agent_pb2.AgentClientMessage()
        message.interaction_response.CopyFrom(response)
        message.interaction_response.SetInParent()  # sent even when it is all defaults
        return [message]

    # --- key-value ---------------------------------------------------------------------

    def _kv(self, ask: agent_pb2.KvServerMessage) -> list[agent_pb2.AgentClientMessage]:
        member = ask.WhichOneof("message")
        message = agent_pb2.AgentClientMessage()
        reply = message.kv_client_message
        reply.id = ask.id
        if member == "get_blob_args":
            key = ask.get_blob_args.blob_id
            data = self.blobs.get(key)
            data = carried_content(key) if data is None else data
            reply.get_blob_result.SetInParent()
            if data is not None:
                reply.get_blob_result.blob_data = data
        elif member == "set_blob_args":
            self.blobs.set(ask.set_blob_args.blob_id, ask.set_blob_args.blob_data)
            reply.set_blob_result.SetInParent()
        else:
            return []
        return [message]


_Own = Callable[[Answerer, agent_pb2.ExecServerMessage], list[agent_pb2.AgentClientMessage]]
# The asks answered from the round's own state; every other known ask is refused
# (refusals.REFUSALS), run in place or handed off.
_OWN_ASKS: dict[str, _Own] = {
    "request_context_args": Answerer._request_context,
    "mcp_args": Answerer._mcp,
    "mcp_state_exec_args": Answerer._mcp_state,
}
