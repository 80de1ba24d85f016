"""HTTP/2 Run against RunSSE + BidiAppend: wall time in round trips, connections per ten rounds.

Usage: python benchmarks/h2_latency.py [rounds]

Both transports play the same scripts against the simulator in this process,
behind a loopback proxy that delays every chunk 25 ms each way (a 50 ms round
trip), ROUNDS rounds each (10 by default), alternating:

* **text**: a 20-delta answer, the turn's end, the end frame;
* **five asks**: the service sends five request-context asks together and
  waits for all five answers before it answers in text.

HTTP/2 runs share the pool a cell keeps (``RunConnections``, as on CellState);
each RunSSE run has its own httpx client, as the lane's runs do. It prints the
median wall time per round, that time in round trips, and the connections the
proxy accepted per ten rounds. The protocol's floor is one round trip for the
run plus one per batch of asks the service waits on: 1 RTT for text, 2 for
five asks. Only prints; it asserts nothing.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from register_first import DelayProxy  # noqa: E402

from cursor_simulator import Simulator  # noqa: E402
from cursor_simulator.records import RunRecord  # noqa: E402
from cursor_simulator.steps import End, Exec, Step, Text, TurnEnded  # noqa: E402
from nodecode_cursor._proto import agent_pb2  # noqa: E402
from nodecode_cursor.transports.h2run import H2Run  # noqa: E402
from nodecode_cursor.transports.run import RunSettings  # noqa: E402
from nodecode_cursor.transports.runpool import RunConnections  # noqa: E402
from nodecode_cursor.transports.sse import SseRun  # noqa: E402

ONE_WAY_MS = 25
ASKS = 5


class CountingProxy(DelayProxy):
    """The delaying proxy, counting the connections it accepted."""

    accepted = 0

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.accepted += 1
        await super()._serve(reader, writer)


def text_script(run: RunRecord) -> Iterator[Step]:
    """A short answer: 20 text deltas, the turn's end, the end frame."""
    for index in range(20):
        yield Text(f"word{index} ")
    yield TurnEnded(100, 20)
    yield End()


def asks_script(run: RunRecord) -> Iterator[Step]:
    """Five asks sent together; the answer comes once all five were answered."""
    for _ in range(ASKS):
        yield Exec("request_context_args", wait=False)
    answered = 0
    while answered < ASKS:
        message = run.inbox.get(timeout=30)
        if message.HasField("exec_client_message"):
            answered += 1
    yield Text("all five answered")
    yield TurnEnded(100, 5)
    yield End()


def run_request() -> bytes:
    """Return a minimal run request (no blobs, so the script asks nothing else)."""
    message = agent_pb2.AgentClientMessage()
    message.run_request.action.user_message_action.user_message.text = "go"
    message.run_request.conversation_id = "bench-h2"
    return message.SerializeToString()


def answer(message: agent_pb2.AgentServerMessage) -> bytes | None:
    """Answer a request-context ask with an empty success."""
    if not message.HasField("exec_server_message"):
        return None
    reply = agent_pb2.AgentClientMessage()
    reply.exec_client_message.id = message.exec_server_message.id
    reply.exec_client_message.exec_id = message.exec_server_message.exec_id
    result = reply.exec_client_message.request_context_result
    result.success.request_context.SetInParent()
    return reply.SerializeToString()


async def one_round(make: Callable[[], Any]) -> float:
    """Return the seconds one run took from opening to its end."""
    started = time.perf_counter()
    async with make() as run:
        run.send(run_request())
        async for message in run.messages():
            reply = answer(message)
            if reply is not None:
                run.send(reply)
    return time.perf_counter() - started


async def rounds_on_one_loop(
    sim: Simulator,
    settings: RunSettings,
    script: Callable[[RunRecord], Iterator[Step]],
    rounds: int,
) -> list[float]:
    """Return the seconds of ROUNDS rounds of SCRIPT on one loop (HTTP/2 ones pooled)."""
    pool = RunConnections()
    times = []
    for _ in range(rounds):
        sim.agent.script(script)
        if settings.transport == "http2":
            times.append(await one_round(lambda: H2Run(settings, pool)))
        else:
            times.append(await one_round(lambda: SseRun(settings)))
    await pool.aclose()
    return times


def measure(sim: Simulator, rounds: int) -> dict[tuple[str, str], tuple[float, int]]:
    """Return (median seconds, connections accepted) per (transport, script)."""
    port = int(sim.url.rsplit(":", 1)[1])
    found: dict[tuple[str, str], tuple[float, int]] = {}
    for script_name, script in (("text", text_script), ("five asks", asks_script)):
        for transport in ("http2", "sse"):
            with CountingProxy(port, ONE_WAY_MS / 1000) as proxy:
                settings = RunSettings(
                    base_url=f"http://127.0.0.1:{proxy.port}",
                    token="bench",
                    client_version="cli-bench",
                    heartbeat_seconds=0,
                    request_timeout=30,
                    transport=transport,
                )

                times = asyncio.run(rounds_on_one_loop(sim, settings, script, rounds))
                # The first HTTP/2 round also opens the connection; the median is warm.
                found[(transport, script_name)] = (statistics.median(times), proxy.accepted)
    return found


def main() -> None:
    """Print the table."""
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    rtt = 2 * ONE_WAY_MS / 1000
    print(
        f"HTTP/2 Run vs RunSSE + BidiAppend, {ONE_WAY_MS} ms each way ({rtt * 1000:.0f} ms RTT),"
        f" median of {rounds} rounds"
    )
    print("  round       transport   wall ms   RTTs   floor   connections / 10 rounds")
    with Simulator() as sim:
        sim.agent.answer_timeout = 30
        found = measure(sim, rounds)
    floors = {"text": 1, "five asks": 2}
    for (transport, script_name), (seconds, accepted) in found.items():
        per_ten = accepted * 10 / rounds
        print(
            f"  {script_name:10}  {transport:9} {seconds * 1000:8.1f} {seconds / rtt:6.2f}"
            f" {floors[script_name]:6d}   {per_ten:g}"
        )
    print(
        "  expected: HTTP/2 at the floor (one RTT for the run, one per batch of asks);"
        " RunSSE pays the registration and one RTT per answer (each append is a request)"
    )


if __name__ == "__main__":
    main()
