"""How the round's tool calls fold from the stream: started, streamed, completed, filed, settled.

``CallFold`` is the part of ``fold.Fold`` that keeps the host's tool calls (MCP
calls, variant 15 of ``ToolCall``): a call opens on ``tool_call_started`` (whose
whole argument map, when it carries one, stands until more arrives), its
arguments stream as cumulative snapshots (``partial_tool_call``), and the
completion or the exec ask (``file_mcp_call``) settles them, each layer merged
over the one before (``call_args.py``, docs/protocol.md §8). A call a resumed
stream starts again carries on; one no declared tool goes by is never filed; a
call the service runs itself (``SERVICE_RESOLVED_VARIANTS``) is recorded as
resolved on its completion. Each produces the stream parts the host is shown.

Pure. ``fold.Fold`` builds on it and owns the rest of the round (text,
thinking, usage, checkpoints, completeness); what the calls' arguments are is
``call_args.py``'s; answering the exec asks is ``answers.py``'s.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from .._proto import agent_pb2
from ..host import (
    ResolvedCallResult,
    ResolvedCallStart,
    StreamPart,
    ToolCallArgsDelta,
    ToolCallStart,
)
from .call_args import (
    decode_mcp_args,
    json_text,
    mcp_call_name,
    merge_arguments,
    parse_object,
    rewritten_snapshot,
)
from .native import resolved_messages, service_call
from .tool_names import declared_call

__all__ = ["MCP_VARIANT", "SERVICE_RESOLVED_VARIANTS", "CallFold", "arguments_text"]


# ToolCall variants by member name (the `tool` oneof of agent.v1.ToolCall).
MCP_VARIANT = "mcp_tool_call"
# The service settles these itself (todos, edit, hosted fetch, web fetch, connect_scm):
# they stay open until their completion but are not ours to run.
SERVICE_RESOLVED_VARIANTS = frozenset(
    {
        "update_todos_tool_call",
        "read_todos_tool_call",
        "edit_tool_call",
        "fetch_tool_call",
        "web_fetch_tool_call",
        "connect_scm_tool_call",
        "web_search_tool_call",
    }
)


_Kind = Literal["text", "thinking", "tool"] | None


@dataclass(slots=True)
class _Call:
    """One tool call of the round's message."""

    index: int
    id: str
    name: str
    # The arguments tool_call_started carried whole (McpArgs.args), when it carried any.
    started: dict[str, Any] | None = None
    # The argument text streamed so far (the cumulative snapshot as we rebuilt it).
    streamed: str = ""
    # Set once the arguments settled to a JSON object (a completion or an exec ask).
    settled: dict[str, Any] | None = None
    # Whether the host was handed the whole arguments in one ToolCallArgsDelta.
    shown: bool = False
    # Picked up again by a resumed stream: a snapshot shorter than what we hold is old news.
    resumed: bool = False


@dataclass(slots=True)
class _Open:
    """A streamed call waiting for its completion: ``call`` is None for a service-resolved one."""

    envelope_id: str
    call: _Call | None


class CallFold:
    """The round's tool calls as the stream and the exec channel announce them.

    NEW_ID makes an id for a call the service named none for; HOST_NAMES maps a
    tool's wire name to the host tool's own name, for tools offered renamed
    (``bridge.py``). DECLARED, the wire names of the tools the run declared, maps
    a call's rendered name back (``tool_names.py``) and leaves a call no declared
    tool goes by unfiled (None: every name is taken as it comes). ``fold.Fold``
    subclasses it and shares three fields with it: the parts of the message being
    fed (``_out``), whether the stream said anything (``saw_output``) and what it
    said last (``_last_kind``).
    """

    # Slots: the per-delta path reads and writes several of these once a frame.
    __slots__ = (
        "_by_id",
        "_calls",
        "_current",
        "_last_kind",
        "_new_id",
        "_open",
        "_out",
        "declared",
        "host_names",
        "saw_output",
    )

    def __init__(
        self,
        *,
        new_id: Callable[[], str],
        host_names: Mapping[str, str] | None = None,
        declared: Collection[str] | None = None,
    ) -> None:
        self._new_id = new_id
        self.host_names: dict[str, str] = dict(host_names or {})
        self.declared = declared
        self.saw_output = False
        self._calls: list[_Call] = []
        self._by_id: dict[str, _Call] = {}
        # Streamed calls waiting for their completion, by envelope call id, and the latest one.
        self._open: dict[str, _Open] = {}
        self._current: _Open | None = None
        self._last_kind: _Kind = None
        # The parts the message being fed produced so far (feed and apply return it).
        self._out: list[StreamPart] = []

    def resolve(self, entry: dict[str, Any], result: dict[str, Any]) -> None:
        """Close the message so far on resolved call ENTRY and its tool message RESULT."""
        raise NotImplementedError  # fold.Fold closes the message: it holds the text

    def file_mcp_call(self, call_id: str, name: str, args: dict[str, Any]) -> list[StreamPart]:
        """File an MCP call the exec channel asked for; return the stream parts it produced.

        The exec ask's arguments are the ones the service runs the call with, so they
        settle a streamed call's arguments too (over what streamed, even when that was
        cut short); a call is never filed twice.
        """
        out: list[StreamPart] = []
        self._out = out
        filed = self._by_id.get(call_id) if call_id else None
        if filed is not None:
            if args:
                self._settle(filed, dict(args), authoritative=True)
            return out
        call = self._open_call(call_id or self._new_id(), name)
        call.settled = dict(args)
        self._emit_args(call, arguments_text(call))
        return out

        # change nothing of the message.

    def _started(self, started: agent_pb2.ToolCallStartedUpdate) -> None:
        tool_call = started.tool_call
        variant = _variant(tool_call)
        self._last_kind = "tool"
        if variant == MCP_VARIANT:
            args = tool_call.mcp_tool_call.args
            call_id = args.tool_call_id or self._new_id()
            known = self._by_id.get(call_id)
            if known is not None:
                if known.settled is None:
                    # Started again by a resumed stream: its arguments carry on.
                    known.resumed = True
                    self._retain(started.call_id, known)
                return
            declared = self.declared
            name = mcp_call_name(args) if declared is None else declared_call(args, declared)
            if name is None:
                # No declared tool goes by this name: its exec ask is refused
                # (answers.py) and nothing is filed; its updates are skipped.
                self._retain(started.call_id, None)
                return
            self.saw_output = True
            call = self._open_call(call_id, name)
            # Cursor may send the whole argument map here and no deltas after it
            # (oh-my-pi #9479): those are the call's arguments until more arrives.
            whole = decode_mcp_args(args.args)
            if whole:
                call.started = whole
                self._emit_args(call, arguments_text(call))
            self._retain(started.call_id, call)
        elif variant in SERVICE_RESOLVED_VARIANTS:
            self._retain(started.call_id, None)
        # The rest (MCP resources and the pi_* family belong to the exec channel): nothing filed.

    def _partial(self, partial: agent_pb2.PartialToolCallUpdate) -> None:
        entry = self._resolve(partial.call_id)
        if entry is None or entry.call is None:
            return
        call = entry.call
        snapshot = partial.args_text_delta
        current = call.streamed
        if call.resumed and current.startswith(snapshot):
            return  # a resumed stream repeating arguments already streamed
        # The delta is cumulative: only the new suffix is news. A snapshot that does not
        # extend what we hold was rewritten; keep it after the old one so the
        # completion can tell (see rewritten_snapshot).
        chunk = snapshot[len(current) :] if snapshot.startswith(current) else snapshot
        if chunk:
            self.saw_output = True
            call.streamed = current + chunk
            # After the started frame's whole arguments were shown, more text would
            # corrupt the host's copy; the message still gets what the deltas add.
            if not call.shown:
                self._out.append(ToolCallArgsDelta(call.index, chunk))

    def _completed(self, completed: agent_pb2.ToolCallCompletedUpdate) -> None:
        entry = self._resolve(completed.call_id)
        if entry is None:
            return
        call = entry.call
        if call is not None:
            tool_call = completed.tool_call
            completion: dict[str, Any] | None = None
            if _variant(tool_call) == MCP_VARIANT:
                completion = decode_mcp_args(tool_call.mcp_tool_call.args.args) or None
            self._settle(call, completion)
        elif _variant(completed.tool_call) != MCP_VARIANT:  # an MCP one: a name refused
            self._service_resolved(completed.call_id, completed.tool_call)
        self._release(entry)

    def _service_resolved(self, call_id: str, tool_call: agent_pb2.ToolCall) -> None:
        """Record a call the service ran itself (a todo update, a hosted search) as resolved."""
        found = service_call(tool_call)
        if found is None:
            return
        name, arguments, text = found
        cid = call_id or tool_call.tool_call_id or self._new_id()
        entry, result = resolved_messages(cid, name, arguments, text, failed=False)
        self._out.append(ResolvedCallStart(cid, name, entry["function"]["arguments"], "cursor"))
        self._out.append(ResolvedCallResult(cid, name, text, False))
        self.resolve(entry, result)

    def _settle(
        self, call: _Call, completion: dict[str, Any] | None, *, authoritative: bool = False
    ) -> None:
        """Settle CALL's arguments: started, streamed, settled before, COMPLETION, in that order.

        Each layer goes over the one before by ``merge_arguments``. AUTHORITATIVE
        (the exec ask's map) also settles over a streamed buffer that does not parse.
        """
        buffer = call.streamed
        streamed = parse_object(buffer) if buffer else None
        if (
            buffer
            and streamed is None
            and not (completion and (authoritative or rewritten_snapshot(buffer)))
        ):
            # A buffer cut short stays as it came: the host refuses it rather than run
            # a call that may lack what was cut.
            return
        merged = merge_arguments(merge_arguments(call.started, streamed), call.settled)
        call.settled = merge_arguments(merged, completion)
        self._emit_args(call, arguments_text(call))

    # --- calls ---------------------------------------------------------------------------

    def _open_call(self, call_id: str, name: str) -> _Call:
        call = _Call(index=len(self._calls), id=call_id, name=self.host_names.get(name, name))
        self._calls.append(call)
        self._by_id[call_id] = call
        self._last_kind = "tool"
        self.saw_output = True
        self._out.append(ToolCallStart(call.index, call.id, call.name))
        return call

    def _emit_args(self, call: _Call, text: str) -> None:
        # Only when nothing streamed and nothing was shown whole: a host cannot take
        # back deltas it already shows.
        if call.streamed or call.shown:
            return
        call.shown = True
        self._out.append(ToolCallArgsDelta(call.index, text))

    def _retain(self, envelope_id: str, call: _Call | None) -> None:
        entry = _Open(envelope_id, call)
        if envelope_id:
            self._open[envelope_id] = entry
        self._current = entry

    def _resolve(self, envelope_id: str) -> _Open | None:
        """Return the open call a streamed update addresses, or None."""
        current = self._current
        if not envelope_id:
            return current
        entry = self._open.get(envelope_id)
        if entry is not None:
            return entry
        if current is not None and not current.envelope_id:
            return current
        return None

    def _release(self, entry: _Open) -> None:
        if entry.envelope_id:
            self._open.pop(entry.envelope_id, None)
        if self._current is entry:
            self._current = None


def _variant(tool_call: agent_pb2.ToolCall) -> str | None:
    """Return the member name of a ToolCall's tool variant, or None when unset or unnamed."""
    member: str | None = tool_call.WhichOneof("tool")
    return member


def arguments_text(call: _Call) -> str:
    """Return a call's arguments as the chat message's JSON string.

    Settled arguments first; else the streamed text (over the started map when
    both are objects); else the started map; else ``{}``.
    """
    if call.settled is not None:
        return json_text(call.settled)
    if call.streamed:
        streamed = parse_object(call.streamed) if call.started else None
        if streamed is not None:
            return json_text(merge_arguments(call.started, streamed))
        return call.streamed
    if call.started:
        return json_text(call.started)
    return "{}"
