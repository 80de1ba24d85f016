"""Fault injection: whole rounds over real sockets against a simulator that misbehaves.

Each test plays one round through ``lane.stream_round`` (credential set, base
URL = the simulator) while the simulator refuses, cuts, stalls or floods, and
asserts the one line a person reads. Every round, whatever its outcome, is run
by ``play`` which then asserts that nothing is left behind: no asyncio task on
the round's loop, no thread of the round's, no extra open descriptor (sockets,
files) and no new temp file.
"""

from __future__ import annotations

import asyncio
import json
import os
import struct
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from probes import settled, threads_left

from cursor_simulator import SimRequest, SimResponse, Simulator
from cursor_simulator.agent import RUN_PATH
from cursor_simulator.steps import (
    AskRequestContext,
    Checkpoint,
    CutStream,
    End,
    Heartbeat,
    KvRead,
    Raw,
    RefuseAppends,
    RejectRun,
    Sleep,
    StepCompleted,
    Text,
    ToolCall,
    TurnEnded,
)
from nodecode_cursor._proto import agent_pb2
from nodecode_cursor.errors import CursorError, ProtocolError, ProviderError, StreamIncomplete
from nodecode_cursor.host import (
    RoundContext,
    RoundResult,
    StreamPart,
    TextDelta,
    ToolCallArgsDelta,
)
from nodecode_cursor.lanes import lane

pytestmark = pytest.mark.sim_answer_timeout(2.0)

TOKEN = "tok-faults-secret"
MODEL = "claude-4.5-sonnet"
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "list_files",
            "description": "List files",
            "parameters": {"type": "object", "properties": {"path": {"type": "string"}}},
        },
    }
]
# How long whatever a round leaves may take to go away on its own (only stops a hung
# test: each wait ends as soon as what it waits for is gone).
SETTLE_SECONDS = 60.0


def context(sim: Simulator, **overrides: Any) -> RoundContext:
    fields: dict[str, Any] = {
        "model": MODEL,
        "messages": [{"role": "user", "content": "hello"}],
        "system": "Be terse.",
        "tools": TOOLS,
        "session_id": f"faults-{uuid.uuid4()}",
        "cwd": "/work",
        "credential": TOKEN,
        "base_url": sim.url,
        "request_timeout": 10.0,
    }
    fields.update(overrides)
    return RoundContext(**fields)


# --- what a round leaves behind -----------------------------------------------------------


def open_fds() -> dict[int, str]:
    """Return this process's open descriptors and what each points at."""
    found = {}
    for name in os.listdir("/proc/self/fd"):
        try:
            found[int(name)] = os.readlink(f"/proc/self/fd/{name}")
        except OSError:
            continue
    return found


def play(ctx: RoundContext, *, cancel_after_text: bool = False) -> RoundResult | CursorError:
    """Return the round's result or its cell error, asserting it left nothing behind.

    A failure says which deadline fired (its text names it); no test here reads a clock.
    """
    fds_before = open_fds()
    threads_before = set(threading.enumerate())
    # The round gets a temp folder of its own (other processes share the system one).
    temp = tempfile.mkdtemp(prefix="faults-round-")
    saved_tempdir, tempfile.tempdir = tempfile.tempdir, temp
    leftover: list[str] = []

    async def main() -> RoundResult | CursorError:
        try:
            if not cancel_after_text:
                return await lane.stream_round(ctx)
            seen = asyncio.Event()
            ctx.on_part = lambda part: seen.set() if isinstance(part, TextDelta) else None
            task = asyncio.create_task(lane.stream_round(ctx))
            await asyncio.wait_for(seen.wait(), 60)
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            return ProviderError("cancelled by the test")
        except CursorError as exc:
            return exc
        finally:
            # httpx's inner stream generators are finalized by the garbage collector
            # as short tasks of their own: give them the grace period to finish.
            current = asyncio.current_task()
            deadline = time.monotonic() + SETTLE_SECONDS
            while others := {t for t in asyncio.all_tasks() if t is not current}:
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                await asyncio.wait(others, timeout=left)
            leftover.extend(repr(t) for t in asyncio.all_tasks() if t is not current)

    try:
        outcome = asyncio.run(main())
    finally:
        tempfile.tempdir = saved_tempdir
    assert leftover == [], f"the round left tasks: {leftover}"
    # The simulator's threads are its own business (its stop joins them).
    assert threads_left(threads_before, skip=("sim-",)) == []

    def fds_back() -> bool:
        return len(open_fds()) <= len(fds_before)

    if not settled(fds_back, SETTLE_SECONDS):
        grown = {fd: t for fd, t in open_fds().items() if fds_before.get(fd) != t}
        pytest.fail(f"the round left descriptors open: {grown}")
    assert os.listdir(temp) == [], "the round left temp files"
    os.rmdir(temp)
    return outcome


def fails(ctx: RoundContext) -> CursorError:
    outcome = play(ctx)
    assert isinstance(outcome, CursorError), f"the round should have failed: {outcome}"
    assert TOKEN not in str(outcome) and TOKEN not in repr(outcome)
    assert "\n" not in str(outcome)
    return outcome


def succeeds(ctx: RoundContext) -> RoundResult:
    outcome = play(ctx)
    assert isinstance(outcome, RoundResult), f"the round failed: {outcome!r}"
    return outcome


def ok_end() -> list[Any]:
    return [StepCompleted(), TurnEnded(10, 2), Checkpoint(), End()]


# --- RunSSE refused ----------------------------------------------------------------------

CONNECT_CODES = {
    401: "unauthenticated",
    403: "permission_denied",
    429: "resource_exhausted",
    500: "internal",
    503: "unavailable",
}


@pytest.mark.parametrize("status", sorted(CONNECT_CODES))
def test_run_sse_refused_with_a_connect_body(sim: Simulator, status: int) -> None:
    code = CONNECT_CODES[status]
    sim.agent.script([RejectRun(status, code, "the service says no")])
    error = fails(context(sim))
    assert isinstance(error, ProviderError)
    assert str(error) == f"Connect error {code}: the service says no"
    assert error.status == status
    assert error.retryable == (status in (429, 503))


@pytest.mark.parametrize("status", sorted(CONNECT_CODES))
def test_run_sse_refused_without_a_body(sim: Simulator, status: int) -> None:
    sim.route(RUN_PATH, lambda request: SimResponse(status, {}, b""))
    error = fails(context(sim))
    assert isinstance(error, ProviderError)
    assert str(error) == f"Cursor's RunSSE answered HTTP {status}"
    assert error.status == status
    assert error.retryable == (status in (429, 503))


def test_run_sse_refused_with_an_html_page(sim: Simulator) -> None:
    page = b"<html><body>502 Bad Gateway</body></html>"
    sim.route(RUN_PATH, lambda request: SimResponse(502, {"content-type": "text/html"}, page))
    error = fails(context(sim))
    assert str(error) == "Cursor's RunSSE answered HTTP 502" and error.retryable


# --- cut streams -------------------------------------------------------------------------

INCOMPLETE = "Cursor's answer is incomplete: "
CUT = "the service closed the stream before the answer ended"


def test_a_frame_header_cut_short_is_incomplete(sim: Simulator) -> None:
    sim.agent.script([Text("half an answer"), Raw(b"\x00\x00\x00"), CutStream()])
    error = fails(context(sim))
    assert isinstance(error, StreamIncomplete) and error.retryable
    assert str(error).startswith(INCOMPLETE + CUT)


def test_a_frame_body_cut_short_is_incomplete(sim: Simulator) -> None:
    body = agent_pb2.AgentServerMessage(
        interaction_update=agent_pb2.InteractionUpdate(
            text_delta=agent_pb2.TextDeltaUpdate(text="x" * 500)
        )
    ).SerializeToString()
    frame = struct.pack(">BI", 0, len(body)) + body
    sim.agent.script([Text("start "), Raw(frame[: len(frame) // 2]), CutStream()])
    parts: list[StreamPart] = []
    error = fails(context(sim, on_part=parts.append))
    assert isinstance(error, StreamIncomplete)
    assert str(error).startswith(INCOMPLETE + CUT)
    # What arrived whole was streamed; the cut frame was not.
    assert [p.text for p in parts if isinstance(p, TextDelta)] == ["start "]


def test_a_partial_frame_after_a_finished_step_is_still_incomplete(sim: Simulator) -> None:
    # Text then step_completed would be a complete answer, but a frame had begun.
    sim.agent.script([Text("done."), StepCompleted(), Raw(b"\x00\x00\x00\x00\x09ab"), CutStream()])
    error = fails(context(sim))
    assert isinstance(error, StreamIncomplete)


def test_a_connection_reset_mid_stream_is_incomplete(sim: Simulator) -> None:
    sim.agent.script([Text("one "), Text("two "), CutStream(reset=True)])
    error = fails(context(sim))
    assert isinstance(error, StreamIncomplete) and error.retryable
    assert str(error).startswith(INCOMPLETE + CUT)


def test_a_cancelled_round_leaves_nothing_behind(sim: Simulator) -> None:
    sim.agent.script([Text("partial "), Sleep(20)])
    outcome = play(context(sim), cancel_after_text=True)
    assert str(outcome) == "cancelled by the test"


# --- appends -----------------------------------------------------------------------------


def test_a_bidi_append_refused_on_the_third_append_fails_the_round(sim: Simulator) -> None:
    # The appends are counted exactly: the answers to the window check's hydration of
    # the roots would be appends of their own, so that check is off here.
    sim.agent.refuse_past_window = False
    sim.agent.script(
        [
            AskRequestContext(),  # append 1 answers it
            RefuseAppends(503, "unavailable", "append queue is full"),
            KvRead(),  # the answer would be append 2: refused
            Text("never"),
        ]
    )
    error = fails(context(sim))
    # The refusal woke the round: its error is the refusal's, no deadline's.
    assert str(error) == "Connect error unavailable: append queue is full"
    assert error.status == 503 and error.retryable
    run = sim.agent.run()
    assert [a.seqno for a in run.appends] == [0, 1]
    assert run.appends[0].message.HasField("run_request")


def test_an_append_that_hangs_past_its_timeout_fails_the_round(sim: Simulator) -> None:
    sim.agent.append_delay = 1.0
    error = fails(context(sim, append_timeout=0.2))
    assert str(error) == "Cursor did not accept append #0 within 0.2 s"
    assert error.status == 504 and error.retryable


# --- silence -----------------------------------------------------------------------------


def test_no_data_for_longer_than_the_request_timeout_is_incomplete(sim: Simulator) -> None:
    sim.agent.script([Text("thinking..."), Sleep(20)])
    error = fails(context(sim, request_timeout=0.4))
    # (what the service last asked, when it asked anything, is named in between)
    assert str(error).startswith("Cursor sent nothing for 0.4 s")
    assert str(error).endswith("; the stream is incomplete (try again)")
    assert isinstance(error, StreamIncomplete)


def test_heartbeats_only_forever_end_by_the_request_timeout(sim: Simulator) -> None:
    sim.agent.script([Text("a moment..."), Heartbeat(count=100_000, interval=0.05)])
    error = fails(context(sim, request_timeout=0.5))
    assert isinstance(error, StreamIncomplete) and error.retryable
    assert "0.5 s" in str(error)


# --- odd asks and floods -----------------------------------------------------------------


def test_a_kv_read_for_a_blob_never_stored_gets_an_empty_answer(sim: Simulator) -> None:
    unknown = bytes(range(32))
    sim.agent.script([KvRead(blob_id=unknown), Text("carrying on"), *ok_end()])
    result = succeeds(context(sim))
    assert result.message == {"role": "assistant", "content": "carrying on"}
    # The client answered with an empty result (not nothing, not an error).
    assert sim.agent.run().violations == [f"the client does not hold blob {unknown.hex()}"]


def _partial(call_id: str, cumulative: str) -> bytes:
    tool_call = agent_pb2.ToolCall(
        tool_call_id=call_id,
        mcp_tool_call=agent_pb2.McpToolCall(
            args=agent_pb2.McpArgs(name="list_files", tool_name="list_files", tool_call_id=call_id)
        ),
    )
    update = agent_pb2.InteractionUpdate()
    update.partial_tool_call.call_id = call_id
    update.partial_tool_call.tool_call.CopyFrom(tool_call)
    update.partial_tool_call.args_text_delta = cumulative
    payload = agent_pb2.AgentServerMessage(interaction_update=update).SerializeToString()
    return struct.pack(">BI", 0, len(payload)) + payload


def test_ten_thousand_tool_call_deltas_for_one_call(sim: Simulator) -> None:
    deltas = 10_000
    path = "".join(chr(ord("a") + i % 26) for i in range(deltas - 12))
    final = json.dumps({"path": path}, separators=(",", ":"))
    # Cumulative snapshots growing one character at a time to the whole text.
    cuts = [len(final) * (i + 1) // deltas for i in range(deltas)]
    frames = b"".join(_partial("call_big", final[:cut]) for cut in cuts)
    sim.agent.script(
        [
            ToolCall("list_files", {}, call_id="call_big", complete=False, exec=False),
            Raw(frames),
            ToolCall("list_files", {"path": path}, call_id="call_big", stream=False),
            *ok_end(),
        ]
    )
    parts: list[StreamPart] = []
    result = succeeds(context(sim, on_part=parts.append))
    [call] = result.message["tool_calls"]
    assert call["id"] == "call_big"
    assert json.loads(call["function"]["arguments"]) == {"path": path}
    streamed = "".join(p.delta for p in parts if isinstance(p, ToolCallArgsDelta))
    assert streamed == final[: len(streamed)] and len(streamed) >= len(final) - 1
    assert result.finish_reason == "tool_calls"


# --- a 50 MiB answer ---------------------------------------------------------------------

STREAM_BYTES = 50 * 1024 * 1024
CHUNK = 64 * 1024
# The client must hold the answer (the fold's list of chunks, 1x) and join it into
# the message at the end (1x more). Measured: about 3x, the third being a transient
# while asyncio.run shuts its loop down after the round (not seen with a loop run by
# hand). A reader that buffered the stream ahead of the fold, or copied the decoder
# buffer per frame, adds at least 1x more. So: growth of the peak below 3.5x.
PEAK_GROWTH_BOUND = int(3.5 * STREAM_BYTES)

CLIENT_SCRIPT = r"""
import json, sys
from nodecode_cursor.lanes import lane
from nodecode_cursor.host import RoundContext

def hwm():
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    return 0

ctx = RoundContext(
    model="claude-4.5-sonnet",
    messages=[{"role": "user", "content": "flood me"}],
    credential="tok-flood",
    base_url=sys.argv[1],
    session_id="flood",
    request_timeout=30.0,
)
# Warm up (imports, first connection) so the measured peak is the round's.
lane.stream_round_sync(ctx)
before = hwm()
seen = [0]
ctx.on_part = lambda part: seen.__setitem__(0, seen[0] + len(getattr(part, "text", "")))
result = lane.stream_round_sync(ctx)
print(json.dumps({"before": before, "after": hwm(), "length": len(result.message["content"]),
                  "streamed": seen[0]}))
"""


def test_a_50_mib_text_stream_keeps_memory_bounded(sim: Simulator) -> None:
    sim.agent.script([Text("warm"), *ok_end()])
    text = "y" * CHUNK
    sim.agent.script([*(Text(text) for _ in range(STREAM_BYTES // CHUNK)), *ok_end()])
    # A fixed mmap threshold: glibc otherwise raises it as large blocks are freed, and the
    # peak then swings between two allocator outcomes (3x and 4x the stream) run to run.
    env = {**os.environ, "NO_PROXY": "127.0.0.1,localhost", "MALLOC_MMAP_THRESHOLD_": "131072"}
    done = subprocess.run(
        [sys.executable, "-c", CLIENT_SCRIPT, sim.url],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        cwd=Path(__file__).resolve().parents[2],
    )
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["length"] == STREAM_BYTES
    assert report["streamed"] == STREAM_BYTES
    growth = report["after"] - report["before"]
    print(
        f"50 MiB stream: peak RSS grew {growth / 2**20:.1f} MiB (bound {PEAK_GROWTH_BOUND >> 20})"
    )
    assert growth < PEAK_GROWTH_BOUND


# --- after the end frame -----------------------------------------------------------------


def end_frame(trailer: dict[str, Any]) -> bytes:
    payload = json.dumps(trailer).encode()
    return struct.pack(">BI", 2, len(payload)) + payload


# Nothing may follow the end frame (oh-my-pi's Connect envelope grammar, docs/protocol.md §3):
# garbage, a second end frame, even after an error end, fail the round as untrustworthy.
AFTER_END = "data after end of stream"


def test_garbage_after_the_end_frame_fails_the_round(sim: Simulator) -> None:
    sim.agent.script(
        [
            Text("fine"),
            StepCompleted(),
            TurnEnded(10, 2),
            Checkpoint(),
            Raw(end_frame({}) + b"\xff\xff\xff\xff\xffGARBAGE" + os.urandom(64), ends=True),
        ]
    )
    error = fails(context(sim))
    assert isinstance(error, ProtocolError) and AFTER_END in str(error)
    assert sim.agent.run().violations == []


def test_a_second_end_frame_fails_the_round(sim: Simulator) -> None:
    late_error = end_frame({"error": {"code": "internal", "message": "second end"}})
    sim.agent.script([Text("fine"), TurnEnded(10, 2), Raw(end_frame({}) + late_error, ends=True)])
    error = fails(context(sim))
    assert isinstance(error, ProtocolError) and AFTER_END in str(error)


def test_an_error_end_frame_followed_by_bytes_fails_as_after_the_end(sim: Simulator) -> None:
    first = end_frame({"error": {"code": "unavailable", "message": "first end"}})
    sim.agent.script([Text("half"), Raw(first + end_frame({}), ends=True)])
    error = fails(context(sim))
    assert isinstance(error, ProtocolError) and AFTER_END in str(error)


def test_nothing_is_appended_after_the_end_frame(sim: Simulator) -> None:
    # The service asks for the request context and ends at once: the answer must not follow.
    def script(run: Any) -> Iterator[Any]:
        yield Text("done")
        yield TurnEnded(1, 1)
        yield Raw(end_frame({}), ends=True)
        yield Sleep(0.3)

    sim.agent.script(script)
    succeeds(context(sim))
    assert sim.agent.run().after_end == 0


def test_a_request_never_dials_anything_but_the_simulator(sim: Simulator) -> None:
    seen: list[SimRequest] = []
    sim.agent.script([Text("hi"), *ok_end()])
    succeeds(context(sim))
    seen.extend(sim.requests)
    assert seen and all(r.headers.get("host", "").startswith("127.0.0.1") for r in seen)
