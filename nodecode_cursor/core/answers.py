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
from ..wire.values import encode_value
from .blobs import carried_content
from .bridge import NATIVE_TOOL_NAMES, Bridged, bridge, function_tools, host_name, wire_names
from .fold import FiledCall, ResolvedCall, decode_mcp_args, mcp_call_name

# The MCP server our tools ride under: one name for the tools declared here and the
# calls history replays (history.py owns it).
from .history import PROVIDER_IDENTIFIER
from .native import (
    ASK_KINDS,
    exec_reply,
    native_answer,
    native_call,
    resolved_messages,
    stream_close,
)
from .schema import tool_input_schema
from .tool_names import declared_call

__all__ = [
    "NATIVE_TOOL_NAMES",
    "NOT_IMPLEMENTED",
    "PROVIDER_IDENTIFIER",
    "SYSTEM_RULE_PATH",
    "TOOL_NOT_AVAILABLE",
    "Answer",
    "Answerer",
    "BlobStore",
    "handoff_text",
    "request_rules",
    "tool_definitions",
]

# Where the system prompt rule says it lives: our own path, never read from disk.
SYSTEM_RULE_PATH = "/nodecode/system-prompt.mdc"
# CursorRule.source: USER.
RULE_SOURCE_USER = 2
# The refusal of a native ask when no local handler is installed.
TOOL_NOT_AVAILABLE = "Tool not available"
NOT_IMPLEMENTED = "Not implemented"
NOT_IMPLEMENTED_BY_CLIENT = "Not implemented by this client"


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


def _grep_pattern_reason(glob: str) -> str:
    """Return the refusal of a grep asked with an empty pattern."""
    listing = (
        f'To list files matching "{glob}", grep for "." with that glob, or use ls instead.'
        if glob
        else 'To list files, grep for "." or use ls instead.'
    )
    return f"grep needs a non-empty pattern (this one was empty). {listing}"


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
            return _throw(ask, "Unknown exec message variant", "unknown_exec_variant")
        handler = _EXEC_HANDLERS.get(member)
        if handler is None:
            return _throw(
                ask,
                f"Exec ask {member} is {NOT_IMPLEMENTED_BY_CLIENT.lower()}",
                "exec_variant_unsupported",
            )
        if member in ASK_KINDS:
            handed = self._bridge(ask)
            if handed is not None:
                return handed
        answers = handler(self, ask)
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

    def _shell(self, ask: agent_pb2.ExecServerMessage) -> list[agent_pb2.AgentClientMessage]:
        args = ask.shell_args
        result = agent_pb2.ShellResult()
        _fill_shell_rejected(result.rejected, args.command, args.working_directory or self.cwd)
        return [exec_reply(ask, shell_result=result)]

    def _shell_stream(self, ask: agent_pb2.ExecServerMessage) -> list[agent_pb2.AgentClientMessage]:
        # The streaming shell's refusal: start, the refusal, the exit, the plain shell
        # result, then the stream's close; anything shorter leaves the service waiting.
        args = ask.shell_stream_args
        directory = args.working_directory or self.cwd
        start = agent_pb2.ShellStream()
        start.start.SetInParent()
        rejected = agent_pb2.ShellStream()
        _fill_shell_rejected(rejected.rejected, args.command, directory)
        exit_event = agent_pb2.ShellStream()
        exit_event.exit.code = 1
        exit_event.exit.cwd = directory
        result = agent_pb2.ShellResult()
        _fill_shell_rejected(result.rejected, args.command, directory)
        return [
            exec_reply(ask, shell_stream=start),
            exec_reply(ask, shell_stream=rejected),
            exec_reply(ask, shell_stream=exit_event),
            exec_reply(ask, shell_result=result),
            stream_close(ask),
        ]

    def _mini_swe_bash(
        self, ask: agent_pb2.ExecServerMessage
    ) -> list[agent_pb2.AgentClientMessage]:
        args = ask.mini_swe_agent_bash_args
        result = agent_pb2.ShellResult()
        _fill_shell_rejected(result.rejected, args.command, args.working_directory or self.cwd)
        return [exec_reply(ask, mini_swe_agent_bash_result=result)]

    def _grep(self, ask: agent_pb2.ExecServerMessage) -> list[agent_pb2.AgentClientMessage]:
        args = ask.grep_args
        result = agent_pb2.GrepResult()
        if args.pattern.strip():
            result.error.error = TOOL_NOT_AVAILABLE
        else:
            result.error.error = _grep_pattern_reason(args.glob)
        return [exec_reply(ask, grep_result=result)]

    def _hook(self, ask: agent_pb2.ExecServerMessage) -> list[agent_pb2.AgentClientMessage]:
        request = ask.execute_hook_args.request
        case = request.WhichOneof("request")
        if case is None:
            return _throw(ask, "Unknown hook request", "unknown_hook_request")
        # A neutral answer on the hook's own case: no hook of ours objects to anything.
        result = agent_pb2.ExecuteHookResult()
        getattr(result.response, case).SetInParent()
        return [exec_reply(ask, execute_hook_result=result)]

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


# --- the request context ------------------------------------------------------------------


def request_rules(system_prompt: str) -> list[agent_pb2.CursorRule]:
    """Return the system prompt as one always-applied rule (none when it is blank)."""
    if not system_prompt.strip():
        return []
    rule = agent_pb2.CursorRule(
        full_path=SYSTEM_RULE_PATH, content=system_prompt, source=RULE_SOURCE_USER
    )
    # `global` is a Python keyword, so the member is reached by name.
    getattr(rule.type, "global").SetInParent()
    return [rule]


def tool_definitions(
    tools: list[dict[str, Any]], *, project_schemas: bool
) -> list[agent_pb2.McpToolDefinition]:
    """Return the host's OpenAI function tools as the MCP tool definitions Cursor is told.

    Every named tool is advertised, in the host's order; one named like a tool Cursor
    drives natively goes under its wire name (``bridge.wire_names``). Schemas are
    projected for the models that need it.
    """
    named = function_tools(tools)
    names = wire_names(fn["name"] for fn in named)
    return [_definition(fn, project_schemas, names.get(fn["name"], fn["name"])) for fn in named]


def _definition(
    fn: dict[str, Any], project_schemas: bool, name: str
) -> agent_pb2.McpToolDefinition:
    """Return one function tool as an McpToolDefinition offered under NAME."""
    schema = tool_input_schema(fn.get("parameters"), project=project_schemas)
    description = fn.get("description")
    return agent_pb2.McpToolDefinition(
        name=name,
        provider_identifier=PROVIDER_IDENTIFIER,
        tool_name=name,
        description=description if isinstance(description, str) else "",
        input_schema=encode_value(schema),
    )


# --- building answers -------------------------------------------------------------------------


def _throw(
    ask: agent_pb2.ExecServerMessage, error: str, code: str
) -> list[agent_pb2.AgentClientMessage]:
    """Return an in-band failure of ``ask``: a throw, then the stream's close."""
    message = agent_pb2.AgentClientMessage()
    throw = message.exec_client_control_message.throw
    throw.id = ask.id
    throw.error = error
    throw.error_code = code
    return [message, stream_close(ask)]


def _fill_shell_rejected(rejected: agent_pb2.ShellRejected, command: str, directory: str) -> None:
    """Fill a ShellRejected with the command, its directory and our reason."""
    rejected.command = command
    rejected.working_directory = directory
    rejected.reason = TOOL_NOT_AVAILABLE


def _refusal(result_type: type[Any], variant: str, **fields: str) -> Any:
    """Return a result message with its ``variant`` member filled with ``fields``."""
    result = result_type()
    member = getattr(result, variant)
    member.SetInParent()
    for name, value in fields.items():
        setattr(member, name, value)
    return result


def _path_refusal(
    ask_member: str, result_member: str, result_type: type[Any], variant: str
) -> _Handler:
    """Return a handler refusing a path ask with ``{path, reason}`` in its ``variant``."""

    def handle(_: Answerer, ask: agent_pb2.ExecServerMessage) -> list[agent_pb2.AgentClientMessage]:
        path = getattr(ask, ask_member).path
        result = _refusal(result_type, variant, path=path, reason=TOOL_NOT_AVAILABLE)
        return [exec_reply(ask, **{result_member: result})]

    return handle


def _fixed(result_member: str, build: Callable[[agent_pb2.ExecServerMessage], Any]) -> _Handler:
    """Return a handler answering with ``build(ask)`` as ``result_member``."""

    def handle(_: Answerer, ask: agent_pb2.ExecServerMessage) -> list[agent_pb2.AgentClientMessage]:
        return [exec_reply(ask, **{result_member: build(ask)})]

    return handle


def _not_implemented(what: str) -> str:
    """Return the reason a capability this client lacks is refused with."""
    return f"{what} {NOT_IMPLEMENTED_BY_CLIENT.lower()}"


def _pi_error(result_member: str, result_type: type[Any]) -> _Handler:
    """Return a handler refusing a pi_* ask with error{reason} (result numbered one higher)."""
    return _fixed(
        result_member, lambda _ask: _refusal(result_type, "error", error=TOOL_NOT_AVAILABLE)
    )


def _pi_rejected(result_member: str, result_type: type[Any]) -> _Handler:
    """Return a handler refusing a pi_* ask with rejected{reason} (result numbered one higher)."""
    return _fixed(
        result_member, lambda _ask: _refusal(result_type, "rejected", reason=TOOL_NOT_AVAILABLE)
    )


_Handler = Callable[[Answerer, agent_pb2.ExecServerMessage], list[agent_pb2.AgentClientMessage]]
pb = agent_pb2
# Keyed by the ExecServerMessage member WhichOneof names. An ask our schema does not name
# has no member: it is answered as an unknown variant before this table is read.
_EXEC_HANDLERS: dict[str, _Handler] = {
    "request_context_args": Answerer._request_context,
    "mcp_args": Answerer._mcp,
    "mcp_state_exec_args": Answerer._mcp_state,
    "shell_args": Answerer._shell,
    "shell_stream_args": Answerer._shell_stream,
    "mini_swe_agent_bash_args": Answerer._mini_swe_bash,
    "grep_args": Answerer._grep,
    "execute_hook_args": Answerer._hook,
    "read_args": _path_refusal("read_args", "read_result", pb.ReadResult, "rejected"),
    "ls_args": _path_refusal("ls_args", "ls_result", pb.LsResult, "rejected"),
    "diagnostics_args": _path_refusal(
        "diagnostics_args", "diagnostics_result", pb.DiagnosticsResult, "rejected"
    ),
    "write_args": _path_refusal("write_args", "write_result", pb.WriteResult, "rejected"),
    "delete_args": _path_refusal("delete_args", "delete_result", pb.DeleteResult, "rejected"),
    "background_shell_spawn_args": _fixed(
        "background_shell_spawn_result",
        lambda ask: _refusal(
            pb.BackgroundShellSpawnResult,
            "rejected",
            command=ask.background_shell_spawn_args.command,
            working_directory=ask.background_shell_spawn_args.working_directory,
            reason=NOT_IMPLEMENTED,
        ),
    ),
    "list_mcp_resources_exec_args": _fixed(
        "list_mcp_resources_exec_result",
        lambda _ask: _refusal(pb.ListMcpResourcesExecResult, "success"),
    ),
    "read_mcp_resource_exec_args": _fixed(
        "read_mcp_resource_exec_result",
        lambda ask: _refusal(
            pb.ReadMcpResourceExecResult, "not_found", uri=ask.read_mcp_resource_exec_args.uri
        ),
    ),
    "fetch_args": _fixed(
        "fetch_result",
        lambda ask: _refusal(
            pb.FetchResult, "error", url=ask.fetch_args.url, error=NOT_IMPLEMENTED
        ),
    ),
    "record_screen_args": _fixed(
        "record_screen_result",
        lambda _ask: _refusal(pb.RecordScreenResult, "failure", error=NOT_IMPLEMENTED_BY_CLIENT),
    ),
    "computer_use_args": _fixed(
        "computer_use_result",
        lambda _ask: _refusal(pb.ComputerUseResult, "error", error=NOT_IMPLEMENTED_BY_CLIENT),
    ),
    "write_shell_stdin_args": _fixed(
        "write_shell_stdin_result",
        lambda _ask: _refusal(pb.WriteShellStdinResult, "error", error=NOT_IMPLEMENTED),
    ),
    "redacted_read_args": _fixed(
        "redacted_read_result",
        lambda ask: _refusal(
            pb.ReadResult,
            "error",
            path=ask.redacted_read_args.path,
            error=_not_implemented("Secret redaction is"),
        ),
    ),
    "subagent_args": _fixed(
        "subagent_result",
        lambda _ask: _refusal(pb.SubagentResult, "error", error=_not_implemented("Subagents are")),
    ),
    "force_background_shell_args": _fixed(
        "force_background_shell_result",
        lambda _ask: pb.ForceBackgroundShellResult(
            status=pb.FORCE_BACKGROUND_SHELL_STATUS_NOT_FOUND
        ),
    ),
    "force_background_subagent_args": _fixed(
        "force_background_subagent_result",
        lambda _ask: pb.ForceBackgroundSubagentResult(
            status=pb.FORCE_BACKGROUND_SUBAGENT_STATUS_NOT_FOUND
        ),
    ),
    "subagent_await_args": _fixed(
        "subagent_await_result",
        lambda ask: _refusal(
            pb.SubagentAwaitResult, "not_found", agent_id=ask.subagent_await_args.agent_id
        ),
    ),
    "smart_mode_classifier_args": _fixed(
        "smart_mode_classifier_result",
        lambda _ask: _refusal(
            pb.SmartModeClassifierResult,
            "error",
            error=_not_implemented("Smart-mode classification is"),
        ),
    ),
    "canvas_diagnostics_args": _fixed(
        "canvas_diagnostics_result",
        lambda ask: _refusal(
            pb.CanvasDiagnosticsResult,
            "error",
            path=ask.canvas_diagnostics_args.path,
            error=_not_implemented("Canvas diagnostics are"),
        ),
    ),
    "shell_allowlist_precheck_args": _fixed(
        "shell_allowlist_precheck_result", lambda _ask: pb.ShellAllowlistPrecheckResult()
    ),
    "mcp_allowlist_precheck_args": _fixed(
        "mcp_allowlist_precheck_result", lambda _ask: pb.McpAllowlistPrecheckResult()
    ),
    "web_fetch_allowlist_precheck_args": _fixed(
        "web_fetch_allowlist_precheck_result", lambda _ask: pb.WebFetchAllowlistPrecheckResult()
    ),
    "conversation_search_args": _fixed(
        "conversation_search_result",
        lambda _ask: _refusal(
            pb.ConversationSearchResult, "error", error=_not_implemented("Conversation search is")
        ),
    ),
    "agent_store_conflict_args": _fixed(
        "agent_store_conflict_result",
        lambda _ask: _refusal(
            pb.AgentStoreConflictResult,
            "error",
            error=_not_implemented("Agent store conflicts are"),
        ),
    ),
    # The pi_* asks are answered by results numbered one higher (pi_read_args 45 → 46).
    "pi_read_args": _pi_error("pi_read_result", pb.PiReadExecResult),
    "pi_bash_args": _pi_error("pi_bash_result", pb.PiBashExecResult),
    "pi_edit_args": _pi_rejected("pi_edit_result", pb.PiEditExecResult),
    "pi_write_args": _pi_rejected("pi_write_result", pb.PiWriteExecResult),
    "pi_grep_args": _pi_error("pi_grep_result", pb.PiGrepExecResult),
    "pi_find_args": _pi_error("pi_find_result", pb.PiFindExecResult),
    "pi_ls_args": _pi_error("pi_ls_result", pb.PiLsExecResult),
}
