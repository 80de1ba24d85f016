"""The simulated agent service's default script: a tiny deterministic "model".

With nothing queued a run plays ``scripted_model``, for tests and the offline
demo. It reads the person's request out of the context agents wrap it in and
picks a tool by meaning (``reading``). It answers text; when the host offered
tools and the request asks for one, it calls it over the exec channel (the
handoff); on the next round it reads the tool's result from the history blobs
and answers with it. A round that demands a JSON object gets one its schema
accepts (``json_answer``). A prompt
``native KIND {json}`` has it ask for one of Cursor's own tools instead and
report the result. An image past ``MISREAD_IMAGE_BYTES`` it says it could not
read, as Cursor's models misread one. It only yields steps (``steps.py``) from what the run
recorded; playing them is the player's. Nothing here is Cursor's code or text.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

from google.protobuf import json_format

from nodecode_cursor._proto import agent_pb2
from nodecode_cursor.wire import values

from .json_answer import fenced_json_demand, json_demand, minimal_object
from .reading import arguments, first_words, has_edit_format, pick_tool, request_text
from .records import RunRecord
from .steps import (
    AskRequestContext,
    Checkpoint,
    End,
    KvRead,
    Native,
    Step,
    StepCompleted,
    StepStarted,
    Text,
    Thinking,
    ThinkingDone,
    ToolCall,
    TurnEnded,
)

__all__ = ["MISREAD_IMAGE_BYTES", "handed_off", "scripted_model"]

# Cursor's models misread a large image: live, a 430 KiB PNG was read wrong where the
# same picture as a 75 KiB JPEG was read right, and peers cap an image at 1 MiB
# (lidge-jun/opencodex src/adapters/cursor/images.ts, MAX_CURSOR_IMAGE_BYTES and the
# A/B note beside CURSOR_VISION_SOFT_MAX_BYTES). The scripted model says it could
# not read an image past this many bytes, in the action or the root prompt; the
# switch is ``AgentService.misread_images_over`` (None: it reads any image).
MISREAD_IMAGE_BYTES = 1024 * 1024


def _misread(run: RunRecord) -> int:
    """Return how many of the run's images are too large for the model to read."""
    limit = run.misread_images_over
    if limit is None:
        return 0
    return sum(1 for data in run.images() if len(data) > limit)


def _tool_schema(tool: agent_pb2.McpToolDefinition) -> dict[str, Any]:
    try:
        schema = values.decode_value(bytes(tool.input_schema))
    except Exception:
        return {}
    return schema if isinstance(schema, dict) else {}


def _tool_result(history: list[dict[str, Any]]) -> tuple[str, str] | None:
    """Return (tool name, result text) of the tool result the history ends on, else None.

    A model reads its whole history: results it has not reported yet are the ones
    after its last word, whether the run resumed or started with a new message.
    """
    for message in reversed(history):
        if message.get("role") != "tool":
            return None
        for part in reversed(message.get("content") or []):
            if isinstance(part, dict) and part.get("type") == "tool-result":
                result = part.get("result")
                text = result if isinstance(result, str) else json.dumps(result)
                return (str(part.get("toolName") or "the tool"), text)
    return None


# "native KIND": the exec ask each kind of the scripted model's own tools is asked as.
_NATIVE_ASKS = {
    "read": "read_args",
    "ls": "ls_args",
    "grep": "grep_args",
    "glob": "pi_find_args",
    "shell": "shell_args",
    "shell-stream": "shell_stream_args",
    "write": "write_args",
    "edit": "pi_edit_args",
    "delete": "delete_args",
}


def _native_ask(prompt: str) -> tuple[str, Native] | None:
    """Return (kind, step) when PROMPT is ``native KIND {json arguments}``, else None."""
    match = re.match(r"\s*native\s+([a-z-]+)\s*(\{.*\})?\s*$", prompt, re.S)
    if match is None or match.group(1) not in _NATIVE_ASKS:
        return None
    kind = match.group(1)
    try:
        args = json.loads(match.group(2) or "{}")
    except ValueError:
        return None
    if not isinstance(args, dict):
        return None
    if kind == "edit":
        replacement = agent_pb2.PiEditReplacement(
            old_text=str(args.get("old", "")), new_text=str(args.get("new", ""))
        )
        args = {"path": str(args.get("path", "")), "edits": [replacement]}
    elif kind == "write" and "content" in args:
        args = {"path": str(args.get("path", "")), "file_text": str(args["content"])}
    return kind, Native(_NATIVE_ASKS[kind], args)


def handed_off(run: RunRecord) -> bool:
    """Return whether the last native ask was answered by telling the model to end its turn.

    A client that hands Cursor's own tool to a tool of its own answers the ask as
    refused with a text saying so; the model, as Cursor's do, ends its turn.
    """
    if not run.native_results:
        return False
    _, result = run.native_results[-1]
    said = json.dumps(json_format.MessageToDict(result)).lower()
    return "end your turn" in said or "end the turn" in said


def _native_summary(run: RunRecord) -> str:
    """Return the last native result as compact JSON (its case and fields)."""
    if not run.native_results:
        return "nothing"
    _, result = run.native_results[-1]
    return json.dumps(json_format.MessageToDict(result), separators=(",", ":"), sort_keys=True)


def _estimate(text: str) -> int:
    return max(1, len(text) // 4)


def _unsaid(reply: str, said: str) -> str:
    """Return what of REPLY is left to say after SAID (all of it when SAID is not its start)."""
    return reply[len(said) :] if reply.startswith(said) else reply


def _plain_reply(request: str) -> str:
    """Return the plain answer to REQUEST: it said back, never an edit format in it."""
    if not request:
        return "Nothing to add."
    if has_edit_format(request):
        # aider appends its SEARCH/REPLACE rules to the request: echoed, they would
        # read as an edit to apply. Only the request's own first words come back.
        head = first_words(request)
        return f"Simulated Cursor here. You said: {head}" if head else "Simulated Cursor here."
    return f"Simulated Cursor here. You said: {request}"


def _json_reply(schema: dict[str, Any], reply: str) -> str:
    """Return the JSON object answering a JSON demand: SCHEMA's minimal object, or the
    plain REPLY under ``answer`` when the demand names no schema."""
    value = minimal_object(schema) if schema else {"answer": reply}
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def scripted_model(run: RunRecord) -> Iterator[Step]:
    """Play the demo "model": ask for context, read the history, answer or call a tool."""
    yield AskRequestContext()
    yield KvRead()
    history = run.root_messages()
    # A run resuming a broken one answers its first run's prompt, from where the
    # checkpoint it resumes from had got to (the text said before it is not said again).
    prompt = run.prompt() or (run.original.prompt() if run.original is not None else "")
    said = run.resumed_text or ""
    reading = json.dumps(history) + prompt
    # The person's words, outside the context blocks agents wrap around them.
    request = request_text(prompt, history)
    demand = json_demand(history)
    yield StepStarted()
    tool = pick_tool(request, run.tools) if request and run.tools else None
    # A result the history ends on is answered unless the new message asks for a tool.
    result = _tool_result(history) if tool is None else None
    native = _native_ask(request)
    misread = _misread(run)
    if misread:
        reply = (
            f"I could not read the image{'s' if misread > 1 else ''} you sent "
            f"({misread} over {run.misread_images_over} bytes)."
        )
        yield Text(_unsaid(reply, said))
    elif native is not None:
        # "native KIND {json}": one of Cursor's own tools over exec, then report its result.
        kind, step = native
        yield Thinking(f"This needs my own {kind} tool.")
        yield ThinkingDone()
        yield step
        if run.ended:
            return
        if handed_off(run):
            reply = ""  # told to end its turn: the client runs the call, as for an MCP handoff
        else:
            reply = f"{kind} gave: {_native_summary(run)}"
            yield Text(reply)
    elif result is not None:
        name, text = result
        reply = f"{name} returned: {text}"
        if demand is not None:
            reply = _json_reply(demand, reply)
        if not said:
            yield Thinking(f"The result of {name} is in the history; reporting it.")
            yield ThinkingDone()
        yield Text(_unsaid(reply, said))
    elif tool is not None:
        schema = next((_tool_schema(t) for t in run.tools if (t.tool_name or t.name) == tool), {})
        yield Thinking(f"The request needs the tool {tool}; calling it.")
        yield ThinkingDone()
        yield ToolCall(tool, arguments(request, schema))
        reply = ""
    else:
        reply = _plain_reply(request)
        fenced = fenced_json_demand(request, history) if demand is None else None
        if demand is not None:
            reply = _json_reply(demand, reply)
        elif fenced is not None:
            reply = f"```json\n{_json_reply(fenced, reply)}\n```"
        yield Text(_unsaid(reply, said))
    yield StepCompleted()
    yield TurnEnded(input=_estimate(reading), output=_estimate(reply) + 8)
    yield Checkpoint()
    yield End()
