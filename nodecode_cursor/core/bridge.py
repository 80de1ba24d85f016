"""Host tools under Cursor's native names, and Cursor's native asks as calls of host tools.

Two jobs (docs/protocol.md §6b):

* **Names.** A host tool named like one Cursor drives natively (``bash``, ``read``,
  ``write``, ``delete``, ``ls``, ``grep``, ``todo``) is offered to the model under a
  wire name that does not collide (``host_read``), and a call of that wire name is
  the host tool's call again (``wire_names``, ``host_name``). No host tool is dropped.
* **Bridging.** A native ask (read, ls, grep, glob, shell, write, edit, delete) in a
  round whose host runs no such kind in place goes to an equivalent host tool when
  the host offers one (``bridge``): the conventions of the agents people use
  (``bridge_table.BRIDGE_TABLE``: Claude Code, Codex CLI, opencode, pi-coding-agent,
  and tools named like Cursor's own) say which tool and how the arguments translate, and the
  tool's own JSON schema must take the translated arguments before any call is made.
  The host's result replays in the next round as that native call's completed step,
  in its typed shape (``replay_step``), so the model sees its own tool's result.

Pure: no I/O, no clock. Answering the ask and filing the call are ``answers.py``'s;
keeping the bridged calls between rounds is the lane's (``BridgedCalls`` on the state);
the step's place in the turns is ``history.py``'s.
"""

from __future__ import annotations

import re
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from .. import limits
from .._proto import agent_pb2
from ..host import NativeCall, NativeOutcome
from .bridge_table import BRIDGE_TABLE, unsafe_path
from .native import grep_result, ls_result, shell_result

__all__ = [
    "NATIVE_TOOL_NAMES",
    "WIRE_PREFIX",
    "Bridged",
    "BridgedCalls",
    "bridge",
    "function_tools",
    "host_name",
    "replay_step",
    "wire_names",
]


# Names Cursor drives natively over the exec channel (oh-my-pi's list): a host tool by
# one of these names is offered under WIRE_PREFIX + its name.
NATIVE_TOOL_NAMES = frozenset({"bash", "read", "write", "delete", "ls", "grep", "todo"})
WIRE_PREFIX = "host_"

# How many bridged calls the state keeps for the rounds that replay them.
MAX_BRIDGED_CALLS = 512


def function_tools(tools: Iterable[Any]) -> list[dict[str, Any]]:
    """Return the function objects of TOOLS (OpenAI shape) that carry a non-empty name."""
    out = []
    for tool in tools:
        fn = tool.get("function") if isinstance(tool, dict) else None
        if isinstance(fn, dict) and isinstance(fn.get("name"), str) and fn["name"]:
            out.append(fn)
    return out


def wire_names(names: Iterable[str]) -> dict[str, str]:
    """Return {host name: wire name} for the host tools whose names collide with native ones.

    The wire name is ``host_<name>``, with ``_2``, ``_3``… added when the host has a
    tool by that name too. Names that do not collide are not in the map.
    """
    ordered = list(dict.fromkeys(names))
    taken = set(ordered)
    out: dict[str, str] = {}
    for name in ordered:
        if name not in NATIVE_TOOL_NAMES:
            continue
        candidate, n = WIRE_PREFIX + name, 2
        while candidate in taken:
            candidate, n = f"{WIRE_PREFIX}{name}_{n}", n + 1
        taken.add(candidate)
        out[name] = candidate
    return out


def host_name(wire: str, names: Mapping[str, str]) -> str:
    """Return the host tool's own name for a call of WIRE (NAMES: ``wire_names``'s map)."""
    for host, offered in names.items():
        if offered == wire:
            return host
    return wire


# --- the schema check -------------------------------------------------------------------

_JSON_TYPES: dict[str, Callable[[Any], bool]] = {
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, int | float) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "array": lambda v: isinstance(v, list),
    "object": lambda v: isinstance(v, dict),
}


def _fits(schema: Mapping[str, Any], args: Mapping[str, Any]) -> bool:
    """Return whether ARGS satisfy SCHEMA: named properties, every required one, their types."""
    props = schema.get("properties")
    if not isinstance(props, dict):
        return False
    required = schema.get("required")
    if isinstance(required, list) and any(name not in args for name in required):
        return False
    for name, value in args.items():
        spec = props.get(name)
        if not isinstance(spec, dict):
            return False
        kind = spec.get("type")
        kinds = kind if isinstance(kind, list) else [kind] if isinstance(kind, str) else []
        checks = [_JSON_TYPES[k] for k in kinds if k in _JSON_TYPES]
        if checks and not any(check(value) for check in checks):
            return False
    return True


# --- bridging an ask ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Bridged:
    """A native ask handed to a host tool: the call the host runs, and what replays it."""

    name: str  # the host tool's own name
    arguments: dict[str, Any]
    member: str  # the ask's ExecServerMessage member
    args: bytes  # the ask's arguments message, serialized (the replayed step's args)
    call: NativeCall


def bridge(
    ask: agent_pb2.ExecServerMessage,
    call: NativeCall,
    tools: Iterable[Any],
    cwd: str,
) -> Bridged | None:
    """Return ASK (as CALL) handed to one of the host's TOOLS, or None when none fits.

    None too for a path (or folder, or glob) that holds a control character: no
    client tool is handed one (``unsafe_path``).
    """
    if unsafe_path(call):
        return None
    member = ask.WhichOneof("message") or ""
    by_name = {fn["name"]: fn for fn in function_tools(tools)}
    for rule in BRIDGE_TABLE:
        if rule.kind != call.kind:
            continue
        for name in rule.names:
            fn = by_name.get(name)
            schema = fn.get("parameters") if fn is not None else None
            if not isinstance(schema, dict):
                continue
            props = schema.get("properties")
            args = rule.translate(call, props if isinstance(props, dict) else {}, cwd)
            if args is not None and _fits(schema, args):
                data = getattr(ask, member).SerializeToString(deterministic=True)
                return Bridged(name, args, member, data, call)
    return None


class BridgedCalls:
    """The calls rounds bridged, by call id, the newest MAX_BRIDGED_CALLS (least recent out)."""

    def __init__(self, limit: int = MAX_BRIDGED_CALLS) -> None:
        self._calls: OrderedDict[str, Bridged] = OrderedDict()
        self._limit = limit

    def add(self, calls: Iterable[Bridged]) -> None:
        """Keep CALLS (a repeat id takes the newer one)."""
        for item in calls:
            self._calls[item.call.id] = item
            self._calls.move_to_end(item.call.id)
        while len(self._calls) > self._limit:
            self._calls.popitem(last=False)

    def get(self, call_id: str) -> Bridged | None:
        """Return the bridged call with CALL_ID, or None."""
        return self._calls.get(call_id)

    def replay(self, call_id: str) -> Callable[[str, bool], bytes] | None:
        """Return the builder of CALL_ID's replayed step (from the host's text), or None."""
        found = self._calls.get(call_id)
        if found is None:
            return None
        return lambda text, failed: replay_step(found, text, failed)


# --- the replayed step -------------------------------------------------------------------------


def _lines(text: str) -> int:
    """Return how many lines TEXT holds (a last line without a newline counts)."""
    return text.count("\n") + (0 if not text or text.endswith("\n") else 1)


_CONTENT_LINE = re.compile(r"^(.+?):(\d+):(.*)$")
_COUNT_LINE = re.compile(r"^(.+?):(\d+)$")
# protobuf's int32 (a line number, a count): a larger value fails to serialize, and a
# history holding one would fail every later request built on it.
_INT32_MAX = 2**31 - 1


def _grep_outcome(call: NativeCall, text: str) -> NativeOutcome:
    """Return the host's grep TEXT as an outcome with its matches (each line one, if unparsed).

    At most ``limits.MAX_REPLAYED_MATCHES`` matches (the outcome says it was
    truncated past them). A line number
    past protobuf's int32 is no line number: that line is kept whole, as text.
    """
    lines = [line for line in text.splitlines() if line.strip()]
    matches: list[tuple[str, int, str]] = []
    for line in lines:
        if call.output_mode == "files_with_matches":
            if not line.startswith(("Found ", "No files")):
                matches.append((line.strip(), 0, ""))
        else:
            found = _CONTENT_LINE.match(line)
            if found and int(found.group(2)) <= _INT32_MAX:
                matches.append((found.group(1), int(found.group(2)), found.group(3)))
            elif found:
                matches.append((found.group(1), 0, line))
    if not matches and lines:
        # Not in a shape we read: every line kept, so the model still sees all of it.
        where = call.path or "."
        matches = [(where, 0, line) for line in lines]
    cap = limits.MAX_REPLAYED_MATCHES
    return NativeOutcome.done(text, matches=tuple(matches[:cap]), truncated=len(matches) > cap)


def _grep_counts(call: NativeCall, text: str) -> agent_pb2.GrepResult | None:
    """Return the host's grep count TEXT (``file:count`` lines) as a GrepResult, or None.

    A count stays a number: one entry per file, never a match per count (a 16-byte
    line ``big.log:20000000`` must not become millions of entries). Counts past
    protobuf's int32 are clamped to it; at most ``limits.MAX_REPLAYED_MATCHES`` files.
    None when no line is in that shape (the lines are then kept as matches' text).
    """
    counts: list[tuple[str, int]] = []
    for line in text.splitlines():
        found = _COUNT_LINE.match(line)
        if found:
            counts.append((found.group(1), min(int(found.group(2)), _INT32_MAX)))
    if not counts:
        return None
    cap = limits.MAX_REPLAYED_MATCHES
    result = agent_pb2.GrepResult()
    success = result.success
    success.pattern = call.pattern
    success.path = call.path
    success.output_mode = "count"
    union = success.workspace_results[call.path or "."]
    for file, count in counts[:cap]:
        union.count.counts.add(file=file, count=count)
    union.count.total_files = min(len(counts), cap)
    union.count.total_matches = min(sum(count for _, count in counts[:cap]), _INT32_MAX)
    union.count.client_truncated = len(counts) > cap
    return result


def replay_step(item: Bridged, text: str, failed: bool) -> bytes:
    """Return the ConversationStep bytes of ITEM completed with the host's result TEXT."""
    call, member = item.call, item.member
    tool = agent_pb2.ToolCall(tool_call_id=call.id)
    outcome = NativeOutcome("failed", text) if failed else NativeOutcome.done(text)
    if member == "read_args":
        read = tool.read_tool_call
        read.args.path = call.path
        if call.offset is not None:
            read.args.offset = call.offset
        if call.limit is not None:
            read.args.limit = call.limit
        if failed:
            read.result.error.error_message = text
        else:
            success = read.result.success
            success.content = text
            success.is_empty = not text
            success.total_lines = _lines(text)
            success.file_size = len(text.encode("utf-8"))
            success.path = call.path
    elif member in ("shell_args", "shell_stream_args", "mini_swe_agent_bash_args"):
        tool.shell_tool_call.args.ParseFromString(item.args)
        tool.shell_tool_call.result.CopyFrom(shell_result(call, outcome))
    elif member == "ls_args":
        tool.ls_tool_call.args.ParseFromString(item.args)
        tool.ls_tool_call.result.CopyFrom(ls_result(call, outcome))
    elif member == "grep_args":
        tool.grep_tool_call.args.ParseFromString(item.args)
        counted = None if failed or call.output_mode != "count" else _grep_counts(call, text)
        if counted is not None:
            tool.grep_tool_call.result.CopyFrom(counted)
        else:
            shaped = outcome if failed else _grep_outcome(call, text)
            tool.grep_tool_call.result.CopyFrom(grep_result(call, shaped))
    elif member == "write_args":
        # Cursor's steps have no write call of their own: a write is an edit of the file.
        edit = tool.edit_tool_call
        edit.args.path = call.path
        edit.args.stream_content = call.content
        if failed:
            edit.result.error.path = call.path
            edit.result.error.error = text
        else:
            edit.result.success.path = call.path
            edit.result.success.after_full_file_content = call.content
            edit.result.success.message = text
    elif member == "delete_args":
        tool.delete_tool_call.args.ParseFromString(item.args)
        result = tool.delete_tool_call.result
        if failed:
            result.error.path = call.path
            result.error.error = text
        else:
            result.success.path = call.path
            result.success.deleted_file = call.path
    else:
        pi = getattr(tool, member.replace("_args", "_tool_call"))
        pi.args.ParseFromString(item.args)
        if failed:
            pi.result.error.error = text
        else:
            pi.result.success.output = text
    step = agent_pb2.ConversationStep(tool_call=tool)
    data: bytes = step.SerializeToString(deterministic=True)
    return data
