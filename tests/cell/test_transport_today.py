"""The run's wire as today's Cursor wants it, over real sockets against the simulator.

Append 0 waits for RunSSE's 200; RunPoll as a route of its own and as the
fallback when RunSSE is not served; the ``transport`` setting; headers, gzip
frames and the heartbeat re-armed by every write. Expected poll bytes are
written by hand from field numbers (tests/protobytes.py).
"""

from __future__ import annotations

import asyncio
import base64
import time
import uuid
from typing import Any

import pytest
from protobytes import ld, text, vi
from runs import play, run_request, run_settings, texts

from cursor_simulator import SimRequest, SimResponse, Simulator
from cursor_simulator.steps import (
    AskRequestContext,
    Checkpoint,
    CutStream,
    End,
    KvRead,
    Sleep,
    Text,
    TurnEnded,
)
from nodecode_cursor import limits
from nodecode_cursor._proto import agent_pb2
from nodecode_cursor.cell import CursorCell
from nodecode_cursor.cell_settings import Settings
from nodecode_cursor.core.routes import Route
from nodecode_cursor.errors import ConfigError, ProtocolError, ProviderError
from nodecode_cursor.host import MemoryHost, RoundContext
from nodecode_cursor.lanes import lane
from nodecode_cursor.transports.run import RunSettings
from nodecode_cursor.transports.run_route import open_run
from nodecode_cursor.transports.sse import PollRun, SseRun

pytestmark = pytest.mark.sim_answer_timeout(5.0)

TOKEN = "tok-today-secret"


def settings(sim: Simulator, **overrides: Any) -> RunSettings:
    """Return this file's run settings for SIM (its token), with OVERRIDES."""
    return run_settings(sim.url, TOKEN, **overrides)


RUN_SSE = "/agent.v1.AgentService/RunSSE"
RUN_POLL = "/agent.v1.AgentService/RunPoll"
APPEND = "/aiserver.v1.BidiService/BidiAppend"


def context(sim: Simulator, **overrides: Any) -> RoundContext:
    fields: dict[str, Any] = {
        "model": "claude-4.5-sonnet",
        "messages": [{"role": "user", "content": "hello"}],
        "session_id": f"session-{uuid.uuid4()}",
        "credential": TOKEN,
        "base_url": sim.url,
        "request_timeout": 10.0,
    }
    fields.update(overrides)
    return RoundContext(**fields)


def hello() -> list[Any]:
    return [AskRequestContext(), KvRead(), Text("Hel"), Text("lo"), TurnEnded(9, 2), End()]


def round_script() -> list[Any]:
    return [Text("whole "), Text("answer"), TurnEnded(9, 2), Checkpoint(), End()]


# --- register before appending ------------------------------------------------------


def test_append_0_waits_until_run_sse_registered_the_run(sim: Simulator) -> None:
    # The service loses an append that reaches a run RunSSE has not registered yet;
    # here RunSSE takes 0.3 s to register, so an append sent at once would be lost.
    sim.agent.drop_early_appends = True
    sim.agent.script(hello())

    def slow_registration(request: SimRequest) -> SimResponse:
        time.sleep(0.3)  # this runs on the simulator's thread for the request
        return sim.agent.handle_run(request)

    sim.route(RUN_SSE, slow_registration)

    async def main() -> list[agent_pb2.AgentServerMessage]:
        async with SseRun(settings(sim), "reg-1") as run:
            return await play(run)

    messages = asyncio.run(main())
    assert texts(messages) == "Hello"
    record = sim.agent.run()
    assert record.lost_appends == 0
    assert record.violations == []
    assert [a.seqno for a in record.appends] == [0, 1, 2]


# --- RunPoll ------------------------------------------------------------------------


def test_a_poll_run_streams_after_append_0_was_accepted(sim: Simulator) -> None:
    sim.agent.script(hello())

    async def main() -> tuple[list[agent_pb2.AgentServerMessage], Any]:
        async with open_run(settings(sim, transport="poll")) as run:
            assert run.route is Route.POLL
            return await play(run), run

    messages, run = asyncio.run(main())
    assert texts(messages) == "Hello"
    assert run.saw_end and run.end_error is None and run.cut is None
    assert run.route == "poll"
    record = sim.agent.run()
    # The simulator records "RunPoll opened before append 0 was accepted" otherwise.
    assert record.violations == []
    assert record.route == "poll"
    assert sim.requests_to(RUN_SSE) == []
    [poll] = sim.requests_to(RUN_POLL)
    rid = run.request_id.encode()
    # One Connect frame of BidiPollRequest{1 request_id: BidiRequestId{1 id}, 2 poll_mode: 1}.
    payload = ld(1, ld(1, rid)) + vi(2, 1)
    assert poll.body == b"\x00" + len(payload).to_bytes(4, "big") + payload
    for name, value in {
        "content-type": "application/connect+proto",
        "connect-protocol-version": "1",
        "connect-accept-encoding": "gzip",
        "authorization": f"Bearer {TOKEN}",
        "x-request-id": run.request_id,
        "x-cursor-client-type": "cli",
        "x-ghost-mode": "true",
    }.items():
        assert poll.headers.get(name) == value, name
    appends = sim.requests_to(APPEND)
    assert len(appends) == 3
    assert all(a.headers.get("x-cursor-streaming") == "true" for a in appends)


def msg(words: str) -> bytes:
    """Return an AgentServerMessage{1 interaction_update{1 text_delta{1 text}}} by hand."""
    return ld(1, ld(1, text(1, words)))


def poll(seqno: int, data: bytes | str = b"", *, eof: bool = False) -> bytes:
    """Return one Connect frame of BidiPollResponse{1 seqno, 2 data (base64), 3 eof}."""
    encoded = data if isinstance(data, str) else base64.b64encode(data).decode()
    payload = vi(1, seqno) + (text(2, encoded) if encoded else b"") + (vi(3, 1) if eof else b"")
    return b"\x00" + len(payload).to_bytes(4, "big") + payload


END = b"\x02\x00\x00\x00\x02{}"


def polled(sim: Simulator, body: bytes) -> tuple[list[agent_pb2.AgentServerMessage], PollRun]:
    """Return what a poll run yields when RunPoll answers BODY (raises what it raises)."""
    sim.route(
        RUN_POLL,
        lambda request: SimResponse(200, {"content-type": "application/connect+proto"}, body),
    )
    got: list[agent_pb2.AgentServerMessage] = []

    async def main() -> PollRun:
        async with PollRun(settings(sim)) as run:
            run.send(run_request())
            async for message in run.messages():
                got.append(message)
            return run

    return got, asyncio.run(main())


def test_poll_frames_numbered_from_0_with_an_empty_one_and_eof_then_end(sim: Simulator) -> None:
    body = poll(0, msg("Hel")) + poll(1) + poll(2, msg("lo")) + poll(3, eof=True) + END
    messages, run = polled(sim, body)
    assert texts(messages) == "Hello"
    assert run.saw_end and run.end_error is None and run.cut is None


@pytest.mark.parametrize(
    ("body", "words"),
    [
        (poll(0, msg("a")) + poll(2, msg("b")), "frame 2 is a gap: expected 1"),
        (poll(0, msg("a")) + poll(0, msg("a")), "frame 0 is a duplicate: expected 1"),
        (poll(1, msg("a")), "frame 1 is a gap: expected 0"),
        (poll(0, eof=True) + poll(1, msg("late")), "after its eof"),
        (poll(0, msg("a")) + END, "ended without its eof"),
        (poll(0, "not base64!") + poll(1, eof=True) + END, "does not carry"),
        (b"\x00\x00\x00\x00\x02\xff\xff", "not a BidiPollResponse"),
    ],
)
def test_broken_poll_framing_is_a_protocol_error(sim: Simulator, body: bytes, words: str) -> None:
    with pytest.raises(ProtocolError, match=words):
        polled(sim, body)


def test_a_poll_end_frame_with_an_error_is_the_runs_error(sim: Simulator) -> None:
    trailer = b'{"error":{"code":"resource_exhausted","message":"slow down"}}'
    end = b"\x02" + len(trailer).to_bytes(4, "big") + trailer
    messages, run = polled(sim, poll(0, msg("a")) + end)
    assert texts(messages) == "a"
    assert run.end_error is not None and run.end_error.code == "resource_exhausted"


# --- the transport setting and the fallback -------------------------------------------


@pytest.mark.parametrize(
    "refusal",
    [(404, "unimplemented", "no"), (501, "unimplemented", "no"), (405, "unimplemented", "nope")],
)
def test_auto_moves_a_round_to_run_poll_when_run_sse_is_not_served(
    sim: Simulator, refusal: tuple[int, str, str]
) -> None:
    sim.agent.sse_refusal = refusal
    sim.agent.script(round_script())
    result = lane.stream_round_sync(context(sim))
    assert result.message["content"] == "whole answer"
    assert len(sim.requests_to(RUN_SSE)) == 1
    assert len(sim.requests_to(RUN_POLL)) == 1
    # Nothing was appended to the refused run: one run, streamed by RunPoll.
    [record] = sim.agent.runs
    assert record.route == "poll" and record.violations == []
    assert record.appends[0].message.HasField("run_request")


def test_auto_resends_on_a_new_run_when_run_sse_ends_before_its_first_message(
    sim: Simulator,
) -> None:
    # The stream must end before its first message: the window check's KV asks would
    # be messages before the cut, so that check is off here.
    sim.agent.refuse_past_window = False
    sim.agent.script([CutStream()])  # RunSSE takes the run request, then drops
    sim.agent.script(round_script())  # RunPoll plays this one
    result = lane.stream_round_sync(context(sim))
    assert result.message["content"] == "whole answer"
    first, second = sim.agent.runs
    assert (first.route, second.route) == ("sse", "poll")
    assert first.request_id != second.request_id
    assert second.appends[0].seqno == 0
    assert second.appends[0].message == first.appends[0].message
    assert second.violations == []


def test_auto_does_not_move_a_run_sse_refused_for_another_reason(sim: Simulator) -> None:
    sim.agent.sse_refusal = (503, "unavailable", "maintenance")
    with pytest.raises(ProviderError) as caught:
        lane.stream_round_sync(context(sim))
    assert caught.value.status == 503
    assert sim.requests_to(RUN_POLL) == []


def test_forced_poll_never_asks_run_sse(sim: Simulator) -> None:
    sim.agent.script(round_script())
    result = lane.stream_round_sync(context(sim, transport="poll"))
    assert result.message["content"] == "whole answer"
    assert sim.requests_to(RUN_SSE) == []
    assert sim.agent.run().route == "poll"


def test_forced_sse_fails_with_run_sses_refusal(sim: Simulator) -> None:
    sim.agent.sse_refusal = (404, "unimplemented", "no RunSSE here")
    with pytest.raises(ProviderError) as caught:
        lane.stream_round_sync(context(sim, transport="sse"))
    assert caught.value.code == "unimplemented"
    assert "no RunSSE here" in str(caught.value)
    assert sim.requests_to(RUN_POLL) == []
    assert sim.requests_to(APPEND) == []


def test_the_fallback_is_logged_at_debug(sim: Simulator, caplog: pytest.LogCaptureFixture) -> None:
    sim.agent.sse_refusal = (404, "unimplemented", "no")
    sim.agent.script(round_script())
    with caplog.at_level("DEBUG", logger="nodecode_cursor.transports"):
        lane.stream_round_sync(context(sim))
    lines = [r.getMessage() for r in caplog.records if "RunPoll" in r.getMessage()]
    assert any("RunSSE refused as unimplemented (HTTP 404" in line for line in lines)
    assert TOKEN not in caplog.text


def test_the_cells_transport_setting_reaches_the_run(sim: Simulator, tmp_path: Any) -> None:
    host = MemoryHost(tmp_path, {"cursor": {"base_url": sim.url, "transport": "poll"}})
    cell = CursorCell()
    assert cell.start(host)
    try:
        sim.agent.script(round_script())
        result = asyncio.run(cell.stream_round(context(sim, base_url=None)))
    finally:
        cell.stop()
    assert result.message["content"] == "whole answer"
    assert sim.requests_to(RUN_SSE) == []
    assert sim.agent.run().route == "poll"


def test_the_transport_setting_is_read_and_checked() -> None:
    assert Settings.from_section({}).transport == "auto"
    assert Settings.from_section({"transport": " SSE "}).transport == "sse"
    assert Settings.from_section({"transport": "poll"}).transport == "poll"
    for wrong in ("h3", 5):
        with pytest.raises(ConfigError) as caught:
            Settings.from_section({"transport": wrong})
        assert '"transport"' in str(caught.value)


def test_open_run_refuses_an_unknown_transport() -> None:
    with pytest.raises(ConfigError, match=r"cursor\.transport"):
        open_run(RunSettings("http://127.0.0.1:9", "t", "v", transport="h2"))
    auto = open_run(RunSettings("http://127.0.0.1:9", "t", "v"))
    assert auto.route is Route.SSE and auto.route == "sse"


# --- headers, gzip, the client version, the heartbeat ---------------------------------


def test_every_append_and_run_sse_carry_streaming_and_offer_gzip(sim: Simulator) -> None:
    sim.agent.script(hello())

    async def main() -> None:
        async with SseRun(settings(sim)) as run:
            await play(run)

    asyncio.run(main())
    [sse] = sim.requests_to(RUN_SSE)
    assert sse.headers.get("connect-accept-encoding") == "gzip"
    assert sse.headers.get("x-cursor-streaming") == "true"
    appends = sim.requests_to(APPEND)
    assert len(appends) == 3
    assert all(a.headers.get("x-cursor-streaming") == "true" for a in appends)


def test_gzip_compressed_frames_are_read(sim: Simulator) -> None:
    sim.agent.compress = True
    sim.agent.script(round_script())
    result = lane.stream_round_sync(context(sim, transport="sse"))
    assert result.message["content"] == "whole answer"
    # The simulator compresses only when offered gzip, so the frames came compressed.
    assert sim.agent.run().headers.get("connect-accept-encoding") == "gzip"


def test_the_client_version_override_is_trimmed(
    sim: Simulator, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(limits.CLIENT_VERSION_ENV, "  cli-2099.01.01-env \n")
    assert limits.client_version() == "cli-2099.01.01-env"
    monkeypatch.setenv(limits.CLIENT_VERSION_ENV, "   ")
    assert limits.client_version() == limits.DEFAULT_CLIENT_VERSION
    assert limits.client_version(" cli-configured ") == "cli-configured"
    monkeypatch.setenv(limits.CLIENT_VERSION_ENV, " cli-2099.02.02-env ")
    sim.agent.script(round_script())
    lane.stream_round_sync(context(sim))
    assert sim.agent.run().headers["x-cursor-client-version"] == "cli-2099.02.02-env"


def test_the_heartbeat_goes_only_after_a_period_without_writes(sim: Simulator) -> None:
    # The client writes (a kv answer) every 0.3 s for about a second, then is idle
    # for 1.3 s. A fixed 0.5 s clock would beat between the answers; a timer
    # re-armed by each write beats only in the idle stretch.
    steps: list[Any] = [KvRead(), Sleep(0.3), KvRead(), Sleep(0.3), KvRead(), Sleep(0.3)]
    sim.agent.script([*steps, KvRead(), Sleep(1.3), Text("done"), End()])

    async def main() -> list[agent_pb2.AgentServerMessage]:
        async with SseRun(settings(sim, heartbeat_seconds=0.5)) as run:
            return await play(run)

    assert texts(asyncio.run(main())) == "done"
    record = sim.agent.run()
    kinds = ["beat" if a.message.HasField("client_heartbeat") else "say" for a in record.appends]
    assert kinds.count("say") == 5  # the run request and four kv answers
    last_say = max(i for i, kind in enumerate(kinds) if kind == "say")
    assert "beat" not in kinds[:last_say], kinds
    assert kinds.count("beat") >= 1, kinds
    assert record.violations == []


def sse_answering(sim: Simulator, body: bytes) -> None:
    """Make RunSSE answer 200 with BODY and nothing more."""
    sim.route(
        RUN_SSE,
        lambda request: SimResponse(200, {"content-type": "application/connect+proto"}, body),
    )


@pytest.mark.parametrize(
    "body",
    [
        b"",  # closed at once
        END,  # a clean end frame and no message
        b"\x02\x00\x00\x00\x2f" + b'{"error":{"code":"unimplemented","message":""}}',  # 47 bytes
    ],
)
def test_auto_moves_a_run_sse_that_ends_before_any_message(sim: Simulator, body: bytes) -> None:
    sse_answering(sim, body)
    sim.agent.script(round_script())
    result = lane.stream_round_sync(context(sim))
    assert result.message["content"] == "whole answer"
    [sse] = sim.requests_to(RUN_SSE)
    [poll] = sim.requests_to(RUN_POLL)
    assert poll.headers["x-request-id"] != sse.headers["x-request-id"]
    assert sim.agent.by_id[poll.headers["x-request-id"]].violations == []


def test_auto_keeps_a_run_sse_end_error_that_is_an_answer(sim: Simulator) -> None:
    trailer = b'{"error":{"code":"resource_exhausted","message":"Error"}}'
    sse_answering(sim, b"\x02" + len(trailer).to_bytes(4, "big") + trailer)
    with pytest.raises(ProviderError) as caught:
        lane.stream_round_sync(context(sim))
    assert caught.value.code == "resource_exhausted"
    assert sim.requests_to(RUN_POLL) == []
