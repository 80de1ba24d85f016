"""The run's wire (sse.py) over real sockets against the simulator's agent service."""

from __future__ import annotations

import asyncio
import hashlib
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from probes import open_sockets, threads_left
from runs import ROOT, play, run_request, run_settings, texts

from cursor_simulator import Simulator
from cursor_simulator.steps import (
    AskRequestContext,
    CutStream,
    End,
    EndError,
    KvRead,
    RefuseAppends,
    RejectRun,
    Sleep,
    Step,
    Text,
    TurnEnded,
)
from nodecode_cursor._proto import agent_pb2
from nodecode_cursor.errors import ConfigError, ProviderError, StreamIncomplete
from nodecode_cursor.transports.run import RunSettings
from nodecode_cursor.transports.sse import SseRun, append_timeout

pytestmark = pytest.mark.sim_answer_timeout(5.0)

TOKEN = "tok-secret-123"


def settings(sim: Simulator, **overrides: Any) -> RunSettings:
    """Return this file's run settings for SIM (its token), with OVERRIDES."""
    return run_settings(sim.url, TOKEN, **overrides)


def test_a_run_streams_answers_and_ends(sim: Simulator) -> None:
    sim.agent.script(
        [AskRequestContext(), KvRead(), Text("Hel"), Text("lo"), TurnEnded(9, 2), End()]
    )

    async def main() -> tuple[list[agent_pb2.AgentServerMessage], SseRun]:
        async with SseRun(settings(sim), "run-abc") as run:
            return await play(run), run

    messages, run = asyncio.run(main())
    assert texts(messages) == "Hello"
    assert run.saw_end and run.end_error is None and run.cut is None
    record = sim.agent.run()
    assert record.violations == []
    assert record.served == {hashlib.sha256(ROOT).hexdigest(): ROOT}
    assert [a.seqno for a in record.appends] == [0, 1, 2]
    assert record.appends[0].message.run_request.conversation_id == "conv-1"


def test_headers_and_bodies_are_the_protocols(sim: Simulator) -> None:
    sim.agent.script([Text("x"), End()])

    async def main() -> None:
        async with SseRun(settings(sim), "rid-7") as run:
            await play(run)

    asyncio.run(main())
    [sse] = sim.requests_to("/agent.v1.AgentService/RunSSE")
    for name, value in {
        "authorization": f"Bearer {TOKEN}",
        "x-cursor-client-type": "cli",
        "x-cursor-client-version": "cli-test-1",
        "x-ghost-mode": "true",
        "content-type": "application/connect+proto",
        "connect-protocol-version": "1",
        "x-request-id": "rid-7",
        "x-cursor-streaming": "true",
    }.items():
        assert sse.headers.get(name) == value, name
    # One Connect frame (flag 0, big-endian length) of BidiRequestId{1: "rid-7"}.
    assert sse.body == b"\x00\x00\x00\x00\x07" + b"\x0a\x05rid-7"
    [append] = sim.requests_to("/aiserver.v1.BidiService/BidiAppend")
    assert append.headers["content-type"] == "application/proto"
    assert append.headers["x-request-id"] == "rid-7"
    assert append.headers["authorization"] == f"Bearer {TOKEN}"
    assert append.headers["x-ghost-mode"] == "true"
    data = run_request()
    # BidiAppendRequest{2: BidiRequestId{1: id}, 3: seqno 0 (omitted), 4: data}, unframed.
    assert append.body == b"\x12\x07\x0a\x05rid-7" + b"\x22" + bytes([len(data)]) + data


def test_appends_go_in_order_with_seqnos_from_zero(sim: Simulator) -> None:
    sim.agent.script([Sleep(0.3), End()])
    sim.agent.append_delay = 0.01

    async def main() -> None:
        async with SseRun(settings(sim), "order") as run:
            run.send(run_request())
            beat = agent_pb2.AgentClientMessage(client_heartbeat=agent_pb2.ClientHeartbeat())
            for _ in range(6):
                run.send(beat.SerializeToString())
            async for _ in run.messages():
                pass

    asyncio.run(main())
    record = sim.agent.run()
    assert [a.seqno for a in record.appends] == list(range(7))
    assert record.violations == []
    bodies = [r.body for r in sim.requests_to("/aiserver.v1.BidiService/BidiAppend")]
    assert b"\x18\x06" in bodies[-1]  # field 3 varint 6


def test_heartbeats_go_while_the_run_is_open_and_stop_after_the_end(sim: Simulator) -> None:
    sim.agent.script([Sleep(0.35), Text("done"), End()])

    async def main() -> None:
        async with SseRun(settings(sim, heartbeat_seconds=0.05), "beat") as run:
            await play(run)
            await asyncio.sleep(0.2)  # heartbeats due now must not go out

    asyncio.run(main())
    record = sim.agent.run()
    assert record.heartbeats >= 3
    assert record.violations == []
    # At most the one heartbeat already in flight when the end frame left.
    assert record.after_end <= 1


def test_the_end_trailer_error_is_kept_for_the_lane(sim: Simulator) -> None:
    sim.agent.script([Text("a"), EndError("resource_exhausted", "slow down")])

    async def main() -> SseRun:
        async with SseRun(settings(sim)) as run:
            await play(run)
            return run

    run = asyncio.run(main())
    assert run.saw_end
    assert run.end_error is not None and run.end_error.status == 429
    assert "resource_exhausted" in str(run.end_error)


def test_a_cut_stream_is_reported_not_raised(sim: Simulator) -> None:
    sim.agent.script([Text("partial"), CutStream(reset=True)])

    async def main() -> tuple[list[agent_pb2.AgentServerMessage], SseRun]:
        async with SseRun(settings(sim)) as run:
            return await play(run), run

    messages, run = asyncio.run(main())
    assert texts(messages) == "partial"
    assert not run.saw_end
    assert run.cut is not None


def test_run_sse_refused_is_a_provider_error_with_its_status(sim: Simulator) -> None:
    sim.agent.script([RejectRun(503, "unavailable", "maintenance")])

    async def main() -> None:
        async with SseRun(settings(sim)) as run:
            await play(run)

    with pytest.raises(ProviderError) as caught:
        asyncio.run(main())
    assert caught.value.status == 503
    assert "maintenance" in str(caught.value)


def test_run_sse_non_200_without_a_connect_body(sim: Simulator) -> None:
    from cursor_simulator import SimResponse

    sim.route("/agent.v1.AgentService/RunSSE", lambda r: SimResponse(418, {}, b"teapot"))

    async def main() -> None:
        async with SseRun(settings(sim)) as run:
            await play(run)

    with pytest.raises(ProviderError) as caught:
        asyncio.run(main())
    assert caught.value.status == 418


def test_a_refused_append_fails_the_run_with_the_services_error(sim: Simulator) -> None:
    refusing = threading.Event()

    def refuses(_run: Any) -> Iterator[Step]:
        yield RefuseAppends(403, "permission_denied", "team blocks agents")
        refusing.set()  # the player took the step: appends from now on are refused
        yield Sleep(60)

    sim.agent.script(refuses)

    async def main() -> None:
        async with SseRun(settings(sim)) as run:
            run.send(run_request())
            assert await asyncio.to_thread(refusing.wait, 60)  # only stops a hung test
            run.send(run_request())  # refused
            async for _ in run.messages():
                pass

    started = time.monotonic()
    with pytest.raises(ProviderError) as caught:
        asyncio.run(main())
    assert time.monotonic() - started < 30  # the reader woke; it did not wait out the sleep
    assert caught.value.status == 403
    assert "team blocks agents" in str(caught.value)


def test_silence_past_the_request_timeout_is_incomplete(sim: Simulator) -> None:
    sim.agent.script([Text("a"), Sleep(10)])

    async def main() -> None:
        async with SseRun(settings(sim, request_timeout=0.3)) as run:
            await play(run)

    with pytest.raises(StreamIncomplete) as caught:
        asyncio.run(main())
    assert caught.value.retryable
    assert "0.3" in str(caught.value)


def test_an_append_past_its_deadline_fails_the_run(sim: Simulator) -> None:
    sim.agent.script([Sleep(5)])
    sim.agent.append_delay = 1.0

    async def main() -> None:
        async with SseRun(settings(sim, append_base_timeout=0.2)) as run:
            await play(run)

    with pytest.raises(ProviderError) as caught:
        asyncio.run(main())
    assert caught.value.status == 504
    assert "append #0" in str(caught.value)


def test_append_timeout_grows_one_second_per_128_kib() -> None:
    base = RunSettings("http://x", "t", "v")
    assert append_timeout(0, base) == 60.0
    assert append_timeout(128 * 1024, base) == 61.0
    assert append_timeout(5 * 128 * 1024, base) == 65.0


def test_an_unreachable_service_names_the_url_not_the_token() -> None:
    async def main() -> None:
        dead = RunSettings("http://127.0.0.1:9", TOKEN, "v", connect_timeout=2)
        async with SseRun(dead) as run:
            await play(run)

    with pytest.raises(ProviderError) as caught:
        asyncio.run(main())
    text = str(caught.value)
    assert "http://127.0.0.1:9/agent.v1.AgentService/RunSSE" in text
    assert TOKEN not in text and TOKEN not in repr(caught.value)


def test_the_settings_repr_hides_the_token() -> None:
    assert TOKEN not in repr(RunSettings("http://x", TOKEN, "v"))


def test_cancelling_mid_stream_closes_every_socket_and_task(sim: Simulator) -> None:
    sim.agent.script([Text("first"), Sleep(30)])
    threads_before = set(threading.enumerate())
    sockets_before = open_sockets()
    leftover: list[asyncio.Task[Any]] = []

    async def consume(run: SseRun, seen: asyncio.Event) -> None:
        run.send(run_request())
        async for message in run.messages():
            if message.interaction_update.HasField("text_delta"):
                seen.set()

    async def main() -> None:
        seen = asyncio.Event()

        async def round_() -> None:
            async with SseRun(settings(sim, heartbeat_seconds=0.05)) as run:
                await consume(run, seen)

        task = asyncio.create_task(round_())
        await asyncio.wait_for(seen.wait(), 60)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        leftover.extend(t for t in asyncio.all_tasks() if t is not asyncio.current_task())

    asyncio.run(main())
    assert leftover == []
    assert threads_left(threads_before) == []  # the simulator saw us leave
    assert open_sockets() <= sockets_before


def test_a_malformed_frame_is_a_protocol_error(sim: Simulator) -> None:
    from cursor_simulator.steps import Raw
    from nodecode_cursor.errors import ProtocolError

    sim.agent.script([Raw(b"\x00\x00\x00\x00\x02\xff\xff"), End()])

    async def main() -> None:
        async with SseRun(settings(sim)) as run:
            await play(run)

    with pytest.raises(ProtocolError):
        asyncio.run(main())


def test_the_trailer_json_is_parsed_from_the_stream(sim: Simulator) -> None:
    # An ErrorDetails trailer (BAD_MODEL_NAME = 5) classifies to 404.
    sim.agent.script([EndError("not_found", "no", error=5, title="Bad model", detail="x")])

    async def main() -> SseRun:
        async with SseRun(settings(sim)) as run:
            await play(run)
            return run

    run = asyncio.run(main())
    assert run.end_error is not None and run.end_error.status == 404
    assert "BAD_MODEL_NAME" in str(run.end_error)


def test_the_hosts_proxy_carries_the_run(sim: Simulator) -> None:
    # The simulator doubles as a forward proxy: it routes absolute-form targets by path.
    sim.agent.script([Text("via proxy"), End()])
    far = RunSettings("http://cursor.invalid", TOKEN, "v", proxy=sim.url, request_timeout=5)

    async def main() -> list[agent_pb2.AgentServerMessage]:
        async with SseRun(far) as run:
            return await play(run)

    assert texts(asyncio.run(main())) == "via proxy"
    targets = [r.target for r in sim.requests]
    assert "http://cursor.invalid/agent.v1.AgentService/RunSSE" in targets
    assert "http://cursor.invalid/aiserver.v1.BidiService/BidiAppend" in targets


def test_the_proxy_environment_is_honoured(sim: Simulator, monkeypatch: pytest.MonkeyPatch) -> None:
    sim.agent.script([Text("env proxy"), End()])
    monkeypatch.setenv("HTTP_PROXY", sim.url)
    monkeypatch.delenv("NO_PROXY", raising=False)
    monkeypatch.delenv("no_proxy", raising=False)
    far = RunSettings("http://cursor.invalid", TOKEN, "v", request_timeout=5)

    async def main() -> list[agent_pb2.AgentServerMessage]:
        async with SseRun(far) as run:
            return await play(run)

    assert texts(asyncio.run(main())) == "env proxy"
    assert any(r.target.startswith("http://cursor.invalid/") for r in sim.requests)


# socks4: neither the cell's dialer (SOCKS5 only) nor httpx speaks it.
@pytest.mark.parametrize("proxy", ["foo", "socks4://user:pw-s3cr3t@127.0.0.1:1"])
def test_an_unusable_proxy_setting_is_a_config_error_naming_the_setting(
    sim: Simulator, proxy: str
) -> None:
    settings = RunSettings(sim.url, TOKEN, "v", proxy=proxy, request_timeout=5)

    async def main() -> None:
        async with SseRun(settings):
            pass

    with pytest.raises(ConfigError) as caught:
        asyncio.run(main())
    assert caught.value.code == "bad_proxy"
    assert "cursor.proxy" in str(caught.value)
    assert "s3cr3t" not in repr(caught.value) and proxy not in str(caught.value)
    assert sim.requests == []


def test_an_unusable_proxy_environment_is_a_config_error(
    sim: Simulator, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HTTP_PROXY", "foo://user:pw-s3cr3t@127.0.0.1:1")
    settings = RunSettings(sim.url, TOKEN, "v", request_timeout=5)

    async def main() -> None:
        async with SseRun(settings):
            pass

    with pytest.raises(ConfigError) as caught:
        asyncio.run(main())
    assert "proxy environment" in str(caught.value)
    assert "s3cr3t" not in repr(caught.value)


def test_open_run_makes_a_transport_the_lane_can_speak_to() -> None:
    from nodecode_cursor.core.routes import Route
    from nodecode_cursor.transports.run import RunSettings, RunTransport
    from nodecode_cursor.transports.run_route import open_run

    settings = RunSettings(base_url="http://127.0.0.1:9", token="t", client_version="v")
    run = open_run(settings)
    assert run.route is Route.SSE and isinstance(run, RunTransport)
    assert run.settings is settings and run.request_id
    # Everything the lane reads of a run is part of the protocol, not SseRun's own.
    members = set(RunTransport.__annotations__) | set(vars(RunTransport))
    assert {"settings", "request_id", "end_error", "cut", "send", "messages"} <= members
