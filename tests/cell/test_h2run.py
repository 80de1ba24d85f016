"""HTTP/2 ``Run`` over real sockets: one stream per round on a pooled connection.

Against the simulator's HTTP/2 side (h2): prior knowledge on its cleartext
port for most tests, TLS with ALPN and a trustme certificate for the
negotiation and the fallback to RunSSE. Client frames are checked as the
simulator decoded them; the request head is checked header by header.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import ssl
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import trustme

from cursor_simulator import Simulator
from cursor_simulator.steps import (
    AskRequestContext,
    Checkpoint,
    CutStream,
    End,
    EndError,
    KvRead,
    RejectRun,
    Sleep,
    StepCompleted,
    StepStarted,
    Text,
    Thinking,
    ThinkingDone,
    ToolCall,
    TurnEnded,
)
from nodecode_cursor._proto import agent_pb2
from nodecode_cursor.core.routes import Route
from nodecode_cursor.errors import ConfigError, ProviderError, StreamIncomplete
from nodecode_cursor.host import RoundContext, TextDelta
from nodecode_cursor.lanes import lane
from nodecode_cursor.state import CellState
from nodecode_cursor.transports.h2run import H2Run
from nodecode_cursor.transports.run import RunSettings
from nodecode_cursor.transports.run_route import open_run

pytestmark = pytest.mark.sim_answer_timeout(5.0)

TOKEN = "tok-h2-secret"
ROOT = b'{"role":"system","content":"be brief"}'
RUN = "/agent.v1.AgentService/Run"
RUN_SSE = "/agent.v1.AgentService/RunSSE"


def settings(url: str, **overrides: Any) -> RunSettings:
    base: dict[str, Any] = {
        "base_url": url,
        "token": TOKEN,
        "client_version": "cli-test-h2",
        "request_timeout": 5.0,
        "heartbeat_seconds": 0,
        "transport": "http2",
    }
    base.update(overrides)
    return RunSettings(**base)


def context(url: str, **overrides: Any) -> RoundContext:
    fields: dict[str, Any] = {
        "model": "claude-4.5-sonnet",
        "messages": [{"role": "user", "content": "hello"}],
        "session_id": f"session-{uuid.uuid4()}",
        "credential": TOKEN,
        "base_url": url,
        "request_timeout": 10.0,
        "transport": "http2",
    }
    fields.update(overrides)
    return RoundContext(**fields)


def run_request(text: str = "hi") -> bytes:
    message = agent_pb2.AgentClientMessage()
    state = message.run_request.conversation_state
    state.root_prompt_messages_json.append(hashlib.sha256(ROOT).digest())
    message.run_request.action.user_message_action.user_message.text = text
    message.run_request.conversation_id = f"conv-{uuid.uuid4()}"
    message.run_request.mcp_tools.SetInParent()  # field 4, sent even empty as the CLI does
    return message.SerializeToString()


def kv_answer(message: agent_pb2.AgentServerMessage) -> bytes | None:
    if not message.HasField("kv_server_message"):
        return None
    reply = agent_pb2.AgentClientMessage()
    reply.kv_client_message.id = message.kv_server_message.id
    reply.kv_client_message.get_blob_result.blob_data = ROOT
    return reply.SerializeToString()


async def collect(run: Any) -> list[agent_pb2.AgentServerMessage]:
    got = []
    async for message in run.messages():
        got.append(message)
        reply = kv_answer(message)
        if reply is not None:
            run.send(reply)
    return got


def texts(messages: list[agent_pb2.AgentServerMessage]) -> str:
    return "".join(
        m.interaction_update.text_delta.text
        for m in messages
        if m.interaction_update.WhichOneof("message") == "text_delta"
    )


@pytest.fixture
def tls(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[trustme.CA]:
    """A test CA the client trusts through SSL_CERT_FILE, as httpx reads it."""
    ca = trustme.CA()
    bundle = tmp_path / "ca.pem"
    ca.cert_pem.write_to_path(str(bundle))
    monkeypatch.setenv("SSL_CERT_FILE", str(bundle))
    yield ca


def serve_tls(sim: Simulator, ca: trustme.CA, alpn: list[str]) -> str:
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert("localhost").configure_cert(context)
    context.set_alpn_protocols(alpn)
    return sim.listen_tls(context)


# --- one run on one stream ----------------------------------------------------------------


def test_a_run_is_one_stream_whose_body_carries_every_client_message(sim: Simulator) -> None:
    sim.agent.script([KvRead(), Text("hello "), Text("there"), TurnEnded(output=3)])

    async def main() -> tuple[list[agent_pb2.AgentServerMessage], H2Run]:
        async with H2Run(settings(sim.url), request_id="h2-run-1") as run:
            run.send(run_request())
            return await collect(run), run

    messages, run = asyncio.run(main())
    assert texts(messages) == "hello there"
    assert run.saw_end and run.end_error is None and run.cut is None
    record = sim.agent.run()
    assert record.route == "http2" and record.request_id == "h2-run-1"
    # Both client messages came in the one stream's body, in order: no BidiAppend at all.
    assert [m.WhichOneof("message") for m in record.messages()] == [
        "run_request",
        "kv_client_message",
    ]
    assert record.served == {hashlib.sha256(ROOT).hexdigest(): ROOT}
    assert sim.requests_to("/aiserver.v1.BidiService/BidiAppend") == []
    assert sim.agent.violations() == []
    assert sim.server.h2.connections == 1


def test_the_stream_head_carries_the_run_headers(sim: Simulator) -> None:
    sim.agent.script([Text("ok"), TurnEnded()])

    async def main() -> None:
        async with H2Run(settings(sim.url), request_id="head-1") as run:
            run.send(run_request())
            await collect(run)

    asyncio.run(main())
    (request,) = sim.requests_to(RUN)
    assert request.method == "POST"
    headers = request.headers
    assert headers["content-type"] == "application/connect+proto"
    assert headers["connect-protocol-version"] == "1"
    assert headers["te"] == "trailers"
    assert headers["connect-accept-encoding"] == "gzip"
    assert headers["authorization"] == f"Bearer {TOKEN}"
    assert headers["x-cursor-client-type"] == "cli"
    assert headers["x-cursor-client-version"] == "cli-test-h2"
    assert headers["x-ghost-mode"] == "true"
    assert headers["x-request-id"] == "head-1"
    # oh-my-pi sends no x-cursor-streaming on agent.v1 over HTTP/2.
    assert "x-cursor-streaming" not in headers


def test_the_request_body_is_connect_frames_written_by_hand(sim: Simulator) -> None:
    captured: list[bytes] = []
    original = sim.agent.handle_bidi

    def spy(request: Any) -> Any:
        response, sink = original(request)

        def both(data: bytes) -> None:
            captured.append(data)
            sink(data)

        return response, both

    sim.server.h2.route_bidi(RUN, spy)
    sim.agent.script([Sleep(0.4), Text("x"), TurnEnded()])
    first = run_request()

    async def main() -> None:
        async with H2Run(settings(sim.url, heartbeat_seconds=0.05)) as run:
            run.send(first)
            await collect(run)  # heartbeats go while the script sleeps

    asyncio.run(main())
    body = b"".join(captured)
    # Flag 0, big-endian length, the message; then the heartbeat {7: {}} = 3a 00.
    assert body.startswith(b"\x00" + len(first).to_bytes(4, "big") + first)
    assert b"\x00\x00\x00\x00\x02\x3a\x00" in body[5 + len(first) :]


def test_text_thinking_and_a_handed_off_call_over_http2(sim: Simulator) -> None:
    sim.agent.script(
        [
            AskRequestContext(),
            KvRead(),
            StepStarted(),
            Thinking("pondering"),
            ThinkingDone(),
            Text("calling it"),
            ToolCall("read_file", {"path": "a.txt"}),
            StepCompleted(),
            TurnEnded(input=10, output=5),
            Checkpoint(),
        ]
    )
    tools = [
        {
            "type": "function",
            "function": {
                "name": "read_file",
                "description": "read a file",
                "parameters": {"type": "object", "properties": {"path": {"type": "string"}}},
            },
        }
    ]
    state = CellState()
    try:
        result = lane.stream_round_sync(context(sim.url, tools=tools), state)
    finally:
        state.close()
    message = result.message
    assert message["content"] == "calling it"
    assert message["reasoning_content"] == "pondering"
    (call,) = message["tool_calls"]
    assert call["function"]["name"] == "read_file"
    assert json.loads(call["function"]["arguments"]) == {"path": "a.txt"}
    assert result.finish_reason == "tool_calls"
    record = sim.agent.run()
    assert record.route == "http2"
    assert record.handoffs and record.served
    assert sim.agent.violations() == []


def test_the_scripted_model_answers_a_round_over_http2(sim: Simulator) -> None:
    state = CellState()
    try:
        result = lane.stream_round_sync(
            context(sim.url, messages=[{"role": "user", "content": "ping"}]), state
        )
    finally:
        state.close()
    assert result.message["content"] == "Simulated Cursor here. You said: ping"
    assert sim.agent.run().route == "http2"
    assert sim.agent.violations() == []


# --- the pool ------------------------------------------------------------------------------


def test_two_concurrent_rounds_share_one_connection(sim: Simulator) -> None:
    for word in ("one", "two"):
        sim.agent.script([Sleep(0.3), Text(word), TurnEnded()])
    state = CellState()

    async def main() -> list[Any]:
        rounds = [
            lane.stream_round(context(sim.url, messages=[{"role": "user", "content": w}]), state)
            for w in ("a", "b")
        ]
        results = await asyncio.gather(*rounds)
        await state.run_connections.aclose()
        return results

    results = asyncio.run(main())
    words = sorted(r.message["content"] for r in results)
    assert words == ["one", "two"]
    assert sim.server.h2.connections == 1
    assert sim.server.h2.streams == 2
    assert state.run_connections.opened == 1


def test_ten_rounds_open_one_connection(sim: Simulator) -> None:
    state = CellState()

    async def main() -> None:
        for _ in range(10):
            await lane.stream_round(context(sim.url), state)
        await state.run_connections.aclose()

    asyncio.run(main())
    assert sim.server.h2.connections == 1
    assert sim.server.h2.streams == 10


def test_goaway_mid_round_fails_the_round_cleanly_and_the_next_dials_anew(sim: Simulator) -> None:
    sim.server.h2.goaway_after = 2
    sim.agent.script([Text("a"), Text("b"), Sleep(0.2), Text("c"), TurnEnded()])
    state = CellState()

    async def main() -> Any:
        with pytest.raises(StreamIncomplete) as caught:
            await lane.stream_round(context(sim.url), state)
        sim.server.h2.goaway_after = None
        result = await lane.stream_round(context(sim.url), state)
        await state.run_connections.aclose()
        return caught.value, result

    error, result = asyncio.run(main())
    # The person reads what happened; the frame that said so (GOAWAY) is in the -v log.
    assert "the service closed the stream before the answer ended" in str(error)
    assert result.finish_reason == "stop"
    assert sim.server.h2.connections == 2


def test_a_small_server_window_still_carries_a_large_run_request(sim: Simulator) -> None:
    sim.server.h2.window = 1024
    sim.agent.script([Text("big ok"), TurnEnded()])
    big = "x" * 300_000

    async def main() -> list[agent_pb2.AgentServerMessage]:
        async with H2Run(settings(sim.url)) as run:
            run.send(run_request(big))
            return await collect(run)

    messages = asyncio.run(main())
    assert texts(messages) == "big ok"
    assert sim.agent.run().prompt() == big


def test_the_end_frame_error_and_a_refused_run_read_as_over_http1(sim: Simulator) -> None:
    sim.agent.script([EndError("resource_exhausted", "Error")])
    sim.agent.script([RejectRun(401, "unauthenticated", "bad token")])

    async def main() -> tuple[H2Run, BaseException]:
        async with H2Run(settings(sim.url)) as first:
            first.send(run_request())
            await collect(first)
        with pytest.raises(ProviderError) as caught:
            async with open_run(settings(sim.url)) as second:
                second.send(run_request())
                await collect(second)
        return first, caught.value

    first, refused = asyncio.run(main())
    assert first.saw_end and first.end_error is not None
    assert first.end_error.code == "resource_exhausted"
    assert refused.code == "unauthenticated" and refused.status == 401


def test_silence_past_the_request_timeout_is_incomplete(sim: Simulator) -> None:
    sim.agent.script([Sleep(3), End()])

    async def main() -> None:
        async with H2Run(settings(sim.url, request_timeout=0.3)) as run:
            run.send(run_request())
            await collect(run)

    with pytest.raises(StreamIncomplete, match=r"sent nothing for 0\.3 s"):
        asyncio.run(main())


def test_cancelling_a_round_leaves_no_task_and_resets_the_stream(sim: Simulator) -> None:
    sim.agent.script([Text("a"), Sleep(5), TurnEnded()])
    state = CellState()

    async def main() -> None:
        streaming = asyncio.Event()  # the round got "a": its stream is open and answering
        ctx = context(
            sim.url,
            on_part=lambda part: streaming.set() if isinstance(part, TextDelta) else None,
        )
        task = asyncio.create_task(lane.stream_round(ctx, state))
        await streaming.wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        await state.run_connections.aclose()

    asyncio.run(main())
    # The simulator saw the stream go (its script gave up at once, not after 5 s).
    record = sim.agent.run()
    assert record.route == "http2"
    assert not record.ended


# --- choosing the transport ----------------------------------------------------------------


def test_auto_over_tls_negotiates_h2_and_remembers_it(
    sim: Simulator, tls: trustme.CA, caplog: pytest.LogCaptureFixture
) -> None:
    url = serve_tls(sim, tls, ["h2", "http/1.1"])
    state = CellState()

    async def main() -> None:
        await lane.stream_round(context(url, transport="auto"), state)
        await state.run_connections.aclose()

    with caplog.at_level(logging.DEBUG, logger="nodecode_cursor"):
        asyncio.run(main())
    assert sim.agent.run().route == "http2"
    assert any("TLS negotiated h2 by ALPN" in r.getMessage() for r in caplog.records)


def test_auto_moves_to_runsse_when_tls_refuses_h2_and_says_why(
    sim: Simulator, tls: trustme.CA, caplog: pytest.LogCaptureFixture
) -> None:
    url = serve_tls(sim, tls, ["http/1.1"])
    state = CellState()

    async def main() -> None:
        await lane.stream_round(context(url, transport="auto"), state)
        await lane.stream_round(context(url, transport="auto"), state)
        state.close()

    with caplog.at_level(logging.DEBUG, logger="nodecode_cursor"):
        asyncio.run(main())
    assert [r.route for r in sim.agent.runs] == ["sse", "sse"]
    lines = [r.getMessage() for r in caplog.records]
    assert any(
        "RunSSE, as" in line and "TLS negotiated http/1.1 by ALPN, not h2" in line for line in lines
    )
    # The second round went straight to RunSSE: the choice is remembered per base URL.
    assert any("as the last run to" in line for line in lines)
    assert sim.server.h2.connections == 0


def test_forced_http2_refuses_a_server_without_h2(sim: Simulator, tls: trustme.CA) -> None:
    url = serve_tls(sim, tls, ["http/1.1"])

    async def main() -> None:
        async with open_run(settings(url)) as run:
            run.send(run_request())

    with pytest.raises(ProviderError, match="does not speak HTTP/2"):
        asyncio.run(main())
    assert sim.agent.runs == []


def test_an_untrusted_certificate_is_refused_like_httpx_does(
    sim: Simulator, tmp_path: Path
) -> None:
    ca = trustme.CA()  # not in SSL_CERT_FILE nor certifi
    url = serve_tls(sim, ca, ["h2"])

    async def main() -> None:
        async with open_run(settings(url)) as run:
            run.send(run_request())

    with pytest.raises(ProviderError, match=r"could not reach .*CERTIFICATE_VERIFY_FAILED"):
        asyncio.run(main())


def test_auto_over_cleartext_uses_runsse_and_http2_uses_prior_knowledge(sim: Simulator) -> None:
    assert open_run(settings(sim.url, transport="auto")).route is Route.SSE
    assert open_run(settings(sim.url, transport="http2")).route is Route.HTTP2


def test_a_refused_run_stream_moves_to_runsse_under_auto(
    sim: Simulator, tls: trustme.CA, caplog: pytest.LogCaptureFixture
) -> None:
    url = serve_tls(sim, tls, ["h2", "http/1.1"])
    sim.agent.script([RejectRun(501, "unimplemented", "no bidi here")])
    sim.agent.script([Text("over sse"), TurnEnded()])

    async def main() -> list[agent_pb2.AgentServerMessage]:
        state = CellState()
        try:
            async with open_run(settings(url, transport="auto"), state.run_connections) as run:
                run.send(run_request())
                return await collect(run)
        finally:
            await state.run_connections.aclose()

    with caplog.at_level(logging.DEBUG, logger="nodecode_cursor"):
        messages = asyncio.run(main())
    assert texts(messages) == "over sse"
    assert [r.route for r in sim.agent.runs] == ["http2", "sse"]
    assert sim.agent.run().prompt() == "hi"
    assert any("moves to RunSSE" in r.getMessage() for r in caplog.records)


def test_one_replay_carries_a_run_from_http2_through_runsse_to_runpoll(
    sim: Simulator, tls: trustme.CA, caplog: pytest.LogCaptureFixture
) -> None:
    # The stream must end before its first message: the window check's KV asks would
    # be messages before the cut, so that check is off here.
    sim.agent.refuse_past_window = False
    url = serve_tls(sim, tls, ["h2", "http/1.1"])
    sim.agent.script([RejectRun(501, "unimplemented", "no bidi here")])  # HTTP/2 Run
    sim.agent.script([CutStream()])  # RunSSE takes the run request, then drops
    sim.agent.script([Text("over poll"), TurnEnded()])  # RunPoll carries it
    ids: list[str] = []

    async def main() -> list[agent_pb2.AgentServerMessage]:
        state = CellState()
        try:
            async with open_run(settings(url, transport="auto"), state.run_connections) as run:
                ids.append(run.request_id)
                run.send(run_request("one replay"))
                messages = await collect(run)
                ids.append(run.request_id)
                assert run.route is Route.POLL and run.saw_end and run.cut is None
            # The route that carried the run is what the next run to the URL takes.
            assert state.run_connections.remembered(url) == "poll"
            return messages
        finally:
            await state.run_connections.aclose()

    with caplog.at_level(logging.DEBUG, logger="nodecode_cursor.transports"):
        messages = asyncio.run(main())
    assert texts(messages) == "over poll"
    h2, sse, poll = sim.agent.runs
    assert (h2.route, sse.route, poll.route) == ("http2", "sse", "poll")
    # A new request id on each route; the run ends named by the last.
    assert len({h2.request_id, sse.request_id, poll.request_id}) == 3
    assert ids == [h2.request_id, poll.request_id]
    # What the run sent went again, from the start, to each route that took it.
    assert sse.appends[0].seqno == 0 and poll.appends[0].seqno == 0
    assert sse.appends[0].message == poll.appends[0].message
    assert poll.appends[0].message.run_request.action.user_message_action.user_message.text == (
        "one replay"
    )
    assert poll.violations == []
    lines = [r.getMessage() for r in caplog.records]
    assert any("moves to RunSSE" in line for line in lines)
    assert any("streams over RunPoll as run" in line for line in lines)


# --- keepalive and proxies -----------------------------------------------------------------


def test_pings_keep_a_quiet_connection_checked(sim: Simulator) -> None:
    sim.agent.script([Sleep(0.5), Text("still here"), TurnEnded()])
    state = CellState()
    state.run_connections.ping_seconds = 0.1

    async def main() -> Any:
        result = await lane.stream_round(context(sim.url), state)
        alive = [c for c in state.run_connections.connections() if c.usable]
        await state.run_connections.aclose()
        return result, alive

    result, alive = asyncio.run(main())
    assert result.message["content"] == "still here"
    assert sim.server.h2.pings >= 2
    assert len(alive) == 1  # every PING was answered: the connection stays pooled


class ConnectProxy:
    """A tiny HTTP CONNECT proxy on loopback that counts its tunnels."""

    def __init__(self) -> None:
        self.tunnels: list[str] = []
        self.server: asyncio.base_events.Server | None = None
        self.url = ""

    async def start(self) -> None:
        self.server = await asyncio.start_server(self._client, "127.0.0.1", 0)
        port = self.server.sockets[0].getsockname()[1]
        self.url = f"http://user:pw-proxy@127.0.0.1:{port}"

    async def stop(self) -> None:
        assert self.server is not None
        self.server.close()
        await self.server.wait_closed()

    async def _client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = await reader.readuntil(b"\r\n\r\n")
        line = head.split(b"\r\n", 1)[0].decode()
        method, target, _ = line.split(" ")
        if method != "CONNECT":
            # httpx forwards plain http:// calls (the catalog) without a tunnel: not ours.
            writer.write(b"HTTP/1.1 502 Bad Gateway\r\ncontent-length: 0\r\n\r\n")
            writer.close()
            return
        # user:pw-proxy, base64: the proxy's credentials went as Proxy-Authorization.
        assert b"Proxy-Authorization: Basic dXNlcjpwdy1wcm94eQ==" in head
        self.tunnels.append(f"{method} {target}")
        host, port = target.rsplit(":", 1)
        up_reader, up_writer = await asyncio.open_connection(host, int(port))
        writer.write(b"HTTP/1.1 200 Connection established\r\n\r\n")

        async def pipe(src: asyncio.StreamReader, dst: asyncio.StreamWriter) -> None:
            try:
                while data := await src.read(65536):
                    dst.write(data)
                    await dst.drain()
            except OSError:
                pass
            finally:
                dst.close()

        await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer))


def test_a_proxy_carries_http2_through_a_connect_tunnel(sim: Simulator) -> None:
    state = CellState()

    async def main() -> tuple[Any, list[str]]:
        proxy = ConnectProxy()
        await proxy.start()
        try:
            result = await lane.stream_round(context(sim.url, proxy=proxy.url), state)
            await state.run_connections.aclose()
        finally:
            await proxy.stop()
        return result, proxy.tunnels

    result, tunnels = asyncio.run(main())
    assert result.message["content"] == "Simulated Cursor here. You said: hello"
    port = sim.url.rsplit(":", 1)[1]
    assert tunnels == [f"CONNECT 127.0.0.1:{port}"]
    assert sim.agent.run().route == "http2"


def test_a_proxy_that_cannot_tunnel_moves_the_run_to_http1_and_says_why(
    sim: Simulator, caplog: pytest.LogCaptureFixture
) -> None:
    # socks4:// cannot carry the tunnel here (the dialer speaks SOCKS5 only); httpx
    # then reports it unusable, so the round fails naming the setting, never going
    # around the proxy.
    async def main() -> None:
        async with open_run(settings(sim.url, proxy="socks4://127.0.0.1:9")) as run:
            run.send(run_request())
            await collect(run)

    with (
        caplog.at_level(logging.DEBUG, logger="nodecode_cursor"),
        pytest.raises(ConfigError) as caught,
    ):
        asyncio.run(main())
    assert sim.agent.runs == []  # nothing reached the service around the proxy
    assert caught.value.code == "bad_proxy" and "cursor.proxy" in str(caught.value)
    assert any(
        "HTTP/2 cannot go through the proxy" in r.getMessage() and "socks4://" in r.getMessage()
        for r in caplog.records
    )
