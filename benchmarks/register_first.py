"""What waiting for RunSSE's 200 before append 0 costs, against appending at once.

Usage: python benchmarks/register_first.py [runs]

The run request (append 0) goes only after RunSSE answered 200, since an
append that reaches the service before RunSSE registered the run can be lost.
Appending at once (what the cell did before) saves a round trip on paper.
This plays RUNS runs (15 by default) of a short answer (20 text deltas)
through ``SseRun`` against the simulator in this process, each way,
alternating, behind a loopback proxy that delays every chunk by a one-way
delay (0, 10 and 25 ms), and prints the median time to the first message and
to the run's end, waiting against eager, with their difference and ratio.
Only prints; it asserts nothing.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from cursor_simulator import Simulator  # noqa: E402
from cursor_simulator.records import RunRecord  # noqa: E402
from cursor_simulator.steps import End, Step, Text, TurnEnded  # noqa: E402
from nodecode_cursor._proto import agent_pb2  # noqa: E402
from nodecode_cursor.transports.run import RunSettings  # noqa: E402
from nodecode_cursor.transports.sse import SseRun  # noqa: E402

DELAYS_MS = (0, 10, 25)


class EagerSseRun(SseRun):
    """The old order: append 0 goes at once, racing RunSSE."""

    register_first = False


class DelayProxy:
    """A loopback TCP proxy that delivers every chunk DELAY seconds after it arrived."""

    def __init__(self, target_port: int, delay: float) -> None:
        self.target_port = target_port
        self.delay = delay
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.server: asyncio.Server | None = None
        self.port = 0

    def __enter__(self) -> DelayProxy:
        self.thread.start()
        self.server = asyncio.run_coroutine_threadsafe(
            asyncio.start_server(self._serve, "127.0.0.1", 0), self.loop
        ).result()
        self.port = self.server.sockets[0].getsockname()[1]
        return self

    def __exit__(self, *exc: object) -> None:
        async def stop() -> None:
            assert self.server is not None
            self.server.close()
            for task in asyncio.all_tasks():
                if task is not asyncio.current_task():
                    task.cancel()

        asyncio.run_coroutine_threadsafe(stop(), self.loop).result()
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)
        self.loop.close()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.target_port)
        try:
            await asyncio.gather(self._pump(reader, up_writer), self._pump(up_reader, writer))
        except (ConnectionError, asyncio.CancelledError):
            pass
        finally:
            for w in (writer, up_writer):
                w.close()

    async def _pump(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """Copy READER to WRITER, each chunk held back by the delay; close at the end."""
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[tuple[float, bytes]] = asyncio.Queue()

        async def deliver() -> None:
            while True:
                due, data = await queue.get()
                wait = due - loop.time()
                if wait > 0:
                    await asyncio.sleep(wait)
                if not data:
                    writer.close()
                    return
                writer.write(data)
                await writer.drain()

        sender = asyncio.create_task(deliver())
        while True:
            data = await reader.read(65536)
            queue.put_nowait((loop.time() + self.delay, data))
            if not data:
                break
        await sender


def script(run: RunRecord) -> Iterator[Step]:
    """A short answer: 20 text deltas, the turn's end, the end frame."""
    for index in range(20):
        yield Text(f"word{index} ")
    yield TurnEnded(100, 20)
    yield End()


def run_request() -> bytes:
    """Return a minimal run request (no blobs, so the script asks nothing)."""
    message = agent_pb2.AgentClientMessage()
    message.run_request.action.user_message_action.user_message.text = "go"
    message.run_request.conversation_id = "bench"
    return message.SerializeToString()


async def one_run(kind: type[SseRun], settings: RunSettings) -> tuple[float, float]:
    """Return (seconds to the first message, seconds to the end) of one run."""
    started = time.perf_counter()
    first = 0.0
    async with kind(settings) as run:
        run.send(run_request())
        async for _ in run.messages():
            if not first:
                first = time.perf_counter() - started
    return first, time.perf_counter() - started


def measure(sim: Simulator, port: int, runs: int) -> dict[str, tuple[float, float]]:
    """Return the median (first message, end) per order, the two interleaved."""
    settings = RunSettings(
        base_url=f"http://127.0.0.1:{port}",
        token="bench",
        client_version="cli-bench",
        heartbeat_seconds=0,
        request_timeout=30,
    )
    times: dict[str, list[tuple[float, float]]] = {"eager": [], "waiting": []}
    for index in range(runs + 1):
        for name, kind in (("eager", EagerSseRun), ("waiting", SseRun)):
            sim.agent.script(script)
            got = asyncio.run(one_run(kind, settings))
            if index:  # the first of each pays imports and warm-up
                times[name].append(got)
    return {
        name: (statistics.median(t[0] for t in got), statistics.median(t[1] for t in got))
        for name, got in times.items()
    }


def main() -> None:
    """Print time to the first message and to the end, waiting vs eager, per delay."""
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 15
    print(
        "register first: append 0 after RunSSE's 200 (waiting) vs at once (eager),"
        f" 20-delta run, median of {runs}"
    )
    print(
        "  one-way   first msg ms: eager  waiting  added  ratio"
        "   | whole run ms: eager  waiting  ratio"
    )
    with Simulator() as sim:
        sim.agent.answer_timeout = 10
        sim_port = int(sim.url.rsplit(":", 1)[1])
        for delay_ms in DELAYS_MS:
            if delay_ms:
                with DelayProxy(sim_port, delay_ms / 1000) as proxy:
                    medians = measure(sim, proxy.port, runs)
            else:
                medians = measure(sim, sim_port, runs)
            (e_first, e_end), (w_first, w_end) = medians["eager"], medians["waiting"]
            print(
                f"  {delay_ms:4d} ms   {e_first * 1000:19.1f} {w_first * 1000:8.1f}"
                f" {(w_first - e_first) * 1000:6.1f} {w_first / e_first:5.2f}x"
                f"   | {e_end * 1000:17.1f} {w_end * 1000:8.1f} {w_end / e_end:5.2f}x"
            )
    print("  expected: waiting adds about one round trip (2 x the one-way delay) once per run")


if __name__ == "__main__":
    main()
