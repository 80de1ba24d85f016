"""The answers to the exec asks this client does not run, each in its ask's own refusal shape.

An ask left unanswered, or answered in the wrong shape, hangs the turn
(docs/protocol.md §6). ``REFUSALS`` maps each ``ExecServerMessage`` member the
client refuses to the function that answers it from the ask and the working
folder: a native tool with no runner (read, ls, shell, grep, write, delete, the
``pi_*`` family) in its typed rejected or error result, the streaming shell in
its five beats, a hook with a neutral answer on its own case, and each capability
the client lacks (fetch, subagents, screen recording, ...) in its result's error.
``throw`` is the in-band failure of an ask no result fits.

Pure: ask in, client messages out. Which asks are run in place, handed off to a
host tool, or answered from the round's own state (the request context, MCP
calls) is ``answers.Answerer``'s; a call's typed results are ``native.py``'s.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .._proto import agent_pb2
from .native import exec_reply, stream_close

__all__ = [
    "NOT_IMPLEMENTED",
    "NOT_IMPLEMENTED_BY_CLIENT",
    "REFUSALS",
    "TOOL_NOT_AVAILABLE",
    "Refusal",
    "throw",
]


# The refusal of a native ask when no local handler is installed.
TOOL_NOT_AVAILABLE = "Tool not available"
NOT_IMPLEMENTED = "Not implemented"
NOT_IMPLEMENTED_BY_CLIENT = "Not implemented by this client"


# How an ask is refused: from the ask and the round's working folder, its answer.
Refusal = Callable[[agent_pb2.ExecServerMessage, str], list[agent_pb2.AgentClientMessage]]


def _grep_pattern_reason(glob: str) -> str:
    """Return the refusal of a grep asked with an empty pattern."""
    listing = (
        f'To list files matching "{glob}", grep for "." with that glob, or use ls instead.'
        if glob
        else 'To list files, grep for "." or use ls instead.'
    )
    return f"grep needs a non-empty pattern (this one was empty). {listing}"


def _shell(ask: agent_pb2.ExecServerMessage, cwd: str) -> list[agent_pb2.AgentClientMessage]:
    args = ask.shell_args
    result = agent_pb2.ShellResult()
    _fill_shell_rejected(result.rejected, args.command, args.working_directory or cwd)
    return [exec_reply(ask, shell_result=result)]


def _shell_stream(ask: agent_pb2.ExecServerMessage, cwd: str) -> list[agent_pb2.AgentClientMessage]:
    # The streaming shell's refusal: start, the refusal, the exit, the plain shell
    # result, then the stream's close; anything shorter leaves the service waiting.
    args = ask.shell_stream_args
    directory = args.working_directory or cwd
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
    ask: agent_pb2.ExecServerMessage, cwd: str
) -> list[agent_pb2.AgentClientMessage]:
    args = ask.mini_swe_agent_bash_args
    result = agent_pb2.ShellResult()
    _fill_shell_rejected(result.rejected, args.command, args.working_directory or cwd)
    return [exec_reply(ask, mini_swe_agent_bash_result=result)]


def _grep(ask: agent_pb2.ExecServerMessage, _cwd: str) -> list[agent_pb2.AgentClientMessage]:
    args = ask.grep_args
    result = agent_pb2.GrepResult()
    if args.pattern.strip():
        result.error.error = TOOL_NOT_AVAILABLE
    else:
        result.error.error = _grep_pattern_reason(args.glob)
    return [exec_reply(ask, grep_result=result)]


def _hook(ask: agent_pb2.ExecServerMessage, _cwd: str) -> list[agent_pb2.AgentClientMessage]:
    request = ask.execute_hook_args.request
    case = request.WhichOneof("request")
    if case is None:
        return throw(ask, "Unknown hook request", "unknown_hook_request")
    # A neutral answer on the hook's own case: no hook of ours objects to anything.
    result = agent_pb2.ExecuteHookResult()
    getattr(result.response, case).SetInParent()
    return [exec_reply(ask, execute_hook_result=result)]


def throw(
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
) -> Refusal:
    """Return a handler refusing a path ask with ``{path, reason}`` in its ``variant``."""

    def handle(ask: agent_pb2.ExecServerMessage, _cwd: str) -> list[agent_pb2.AgentClientMessage]:
        path = getattr(ask, ask_member).path
        result = _refusal(result_type, variant, path=path, reason=TOOL_NOT_AVAILABLE)
        return [exec_reply(ask, **{result_member: result})]

    return handle


def _fixed(result_member: str, build: Callable[[agent_pb2.ExecServerMessage], Any]) -> Refusal:
    """Return a handler answering with ``build(ask)`` as ``result_member``."""

    def handle(ask: agent_pb2.ExecServerMessage, _cwd: str) -> list[agent_pb2.AgentClientMessage]:
        return [exec_reply(ask, **{result_member: build(ask)})]

    return handle


def _not_implemented(what: str) -> str:
    """Return the reason a capability this client lacks is refused with."""
    return f"{what} {NOT_IMPLEMENTED_BY_CLIENT.lower()}"


def _pi_error(result_member: str, result_type: type[Any]) -> Refusal:
    """Return a handler refusing a pi_* ask with error{reason} (result numbered one higher)."""
    return _fixed(
        result_member, lambda _ask: _refusal(result_type, "error", error=TOOL_NOT_AVAILABLE)
    )


def _pi_rejected(result_member: str, result_type: type[Any]) -> Refusal:
    """Return a handler refusing a pi_* ask with rejected{reason} (result numbered one higher)."""
    return _fixed(
        result_member, lambda _ask: _refusal(result_type, "rejected", reason=TOOL_NOT_AVAILABLE)
    )


pb = agent_pb2
# Keyed by the ExecServerMessage member WhichOneof names. An ask our schema does not name


# has no member: it is answered as an unknown variant before this table is read.
REFUSALS: dict[str, Refusal] = {
    "shell_args": _shell,
    "shell_stream_args": _shell_stream,
    "mini_swe_agent_bash_args": _mini_swe_bash,
    "grep_args": _grep,
    "execute_hook_args": _hook,
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
