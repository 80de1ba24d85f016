"""The 500-call coding session the long-session tests drive through each host shape.

One question, then one ``read_file`` call a round whose result runs from 1 to
200 KiB (``result_text``), a few user messages with a small PNG on the way:
over 1,000 messages, about 50 MiB. ``history`` writes it as OpenAI chat
messages, as a host carries it; ``calling`` scripts the simulator's round that
makes call N; ``within_budget`` checks what a run request carried against the
default history budget.
"""

from __future__ import annotations

import base64
import io
import json
from typing import Any

from PIL import Image

from cursor_simulator.records import RunRecord
from cursor_simulator.steps import (
    AskRequestContext,
    Checkpoint,
    End,
    KvRead,
    Step,
    StepCompleted,
    ToolCall,
    TurnEnded,
)

CALLS = 500
ROOTS, BYTES = 192, 512 * 1024
QUESTION = "read the files one by one"
# Calls after which the person sends a screenshot, and the one after which they say
# "go on": the last screenshot is then an earlier turn's, kept whole in the last rounds.
SCREENSHOTS = (200, 400, 493)
NUDGE = 495
READ_FILE: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "read_file",
        "description": "Read file N",
        "parameters": {
            "type": "object",
            "properties": {"n": {"type": "integer"}},
            "required": ["n"],
        },
    },
}


def result_text(n: int) -> str:
    """Return call N's result: 1 to 200 KiB, ending on a line that names it."""
    size = 1024 + (n * 7919) % (199 * 1024)
    return f"file {n}\n" + "." * size + f"\nthe answer of file {n} is {n * 3}"


def screenshot() -> bytes:
    """Return a small real PNG (64x48)."""
    out = io.BytesIO()
    Image.new("RGB", (64, 48), (40, 90, 160)).save(out, "PNG")
    return out.getvalue()


def screenshot_message(n: int) -> dict[str, Any]:
    """Return the person's message after call N: a line and a screenshot."""
    url = "data:image/png;base64," + base64.b64encode(screenshot()).decode()
    return {
        "role": "user",
        "content": [
            {"type": "text", "text": f"the screen after file {n}; go on"},
            {"type": "image_url", "image_url": {"url": url}},
        ],
    }


def call_message(n: int, call_id: str | None = None) -> dict[str, Any]:
    """Return the assistant message that calls read_file for file N."""
    function = {"name": "read_file", "arguments": json.dumps({"n": n})}
    call = {"id": call_id or f"call_{n}", "type": "function", "function": function}
    return {"role": "assistant", "content": None, "tool_calls": [call]}


def result_message(n: int, call_id: str | None = None) -> dict[str, Any]:
    """Return the tool message answering call N."""
    return {"role": "tool", "tool_call_id": call_id or f"call_{n}", "content": result_text(n)}


def history(calls: int) -> list[dict[str, Any]]:
    """Return the session after CALLS calls and their results (it ends on the last result)."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": QUESTION}]
    for n in range(calls):
        messages += [call_message(n), result_message(n)]
        if n in SCREENSHOTS and n < calls - 1:
            messages.append(screenshot_message(n))
        if n == NUDGE and n < calls - 1:
            messages.append({"role": "user", "content": "go on"})
    return messages


def calling(n: int, *, hydrate: bool = False) -> Any:
    """Return the script of a round that calls read_file for file N (HYDRATE: every root)."""

    def script(run: RunRecord) -> list[Step]:
        steps: list[Step] = [AskRequestContext()]
        if hydrate:
            steps.append(KvRead())  # every root, so the bytes can be counted
        return [
            *steps,
            ToolCall("read_file", {"n": n}),
            StepCompleted(),
            TurnEnded(10, 5),
            Checkpoint(),
            End(),
        ]

    return script


def within_budget(run: RunRecord) -> bool:
    """Return whether RUN's request held at most the default budget of roots and root bytes.

    The bytes are counted only where the run hydrated every root (a KvRead of all of
    them; an external model's worker may read only the turns).
    """
    assert run.run_request is not None
    roots = run.run_request.conversation_state.root_prompt_messages_json
    if len(roots) > ROOTS:
        return False
    if not hydrated(run):
        return True
    return sum(len(run.served[root.hex()]) for root in roots) <= BYTES


def hydrated(run: RunRecord) -> bool:
    """Return whether RUN was served every root blob its request names."""
    assert run.run_request is not None
    roots = run.run_request.conversation_state.root_prompt_messages_json
    return all(root.hex() in run.served for root in roots)
