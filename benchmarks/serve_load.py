"""``serve`` under load: time to the first token, event-loop stalls, connections to Cursor.

Usage: python benchmarks/serve_load.py [concurrent]

Three processes on loopback, so none of them steals the others' interpreter:
the simulator (its model thinks ``THINK_SECONDS`` before the first token, as a
real model does, ``sim.agent.first_token_delay``), ``serve`` (an ``ApiServer``
over a ReferenceHost whose cell points at the simulator, as tests/host/served.py
starts it) and this driver, which speaks HTTP/1.1 with h11 and sends streamed
chat-completions requests. Measured side by side in one run:

- the median time to the first content delta of one request at a time (after
  one warm-up round, which pays for the roster, the catalog and the pooled
  client) against the median of CONCURRENT requests (100 by default) sent at
  once; target at most 3x;
- the callbacks of serve's event loop over 5 ms during a second burst, with
  asyncio's debug mode (``loop.slow_callback_duration = 0.005``); each is
  printed with where its task stood when asyncio reported it, and the ones whose
  task was inside the cell opening a round (building the request, the pooled
  client, the run's streams) count against the target of none;
- the connections the simulator accepted (``sim.server.accepted``) during the
  sequential rounds after the warm-up (target 0), during the burst, and during
  sequential rounds after the burst.

``serve`` caps connections at ``SERVE_MAX_CONNECTIONS``; the bursts go to a
server with the cap raised to fit them, and a last burst to one with the shipped
cap says how many requests that cap turns away. Every wait is bounded: each
request by REQUEST_SECONDS, each exchange with a child process by
CONTROL_SECONDS, the children by SESSION_SECONDS of silence. With
SERVE_LOAD_PROFILE=PATH set, serve's process profiles the first burst (cProfile)
into PATH, to see where its time goes.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import logging
import multiprocessing
import os
import statistics
import sys
import tempfile
import time
import traceback
import types
from collections.abc import Iterator
from dataclasses import dataclass
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

import h11  # noqa: E402

THINK_SECONDS = 0.3  # a realistic model's time to its first token
MODEL = "composer-2.5"
SEQUENTIAL = 5  # one-at-a-time rounds after the warm-up (the single-request median)
AFTER_BURST = 3  # one-at-a-time rounds after the burst (connections only)
SLOW_CALLBACK_SECONDS = 0.005
REQUEST_SECONDS = 60.0
CONTROL_SECONDS = 30.0
SESSION_SECONDS = 300.0
TOKEN = "sim-token-serve-load"
# Where a task of the cell stands while it opens a round (before the run's stream flows):
# its innermost frame of the cell is one of these functions, or any function of these modules.
SETUP_FUNCTIONS = (
    "stream_round",
    "_roster_model",
    "_token",
    "_Attempt.run",
    "_Attempt._one_run",
    "_BidiRun.__aenter__",
    "_BidiRun._open_stream",
    "_BidiRun._read_sse",
)
SETUP_MODULES = (
    "nodecode_cursor/clients.py",
    "nodecode_cursor/request.py",
    "nodecode_cursor/history.py",
    "nodecode_cursor/blobs.py",
    "nodecode_cursor/routing.py",
    "nodecode_cursor/catalog.py",
    "nodecode_cursor/listing.py",
    "nodecode_cursor/credentials.py",
)


# --- the simulator's process ---------------------------------------------------------------


def simulator_process(pipe: Connection, think: float) -> None:
    """Serve the simulator until told to stop; answer counts on PIPE (returns nothing)."""
    from cursor_simulator import Simulator

    with Simulator(max_records=5000) as sim:
        sim.agent.first_token_delay = think
        pipe.send(sim.url)
        while pipe.poll(SESSION_SECONDS):
            command = pipe.recv()
            if command == "stop":
                break
            # Connections accepted so far, and this process's CPU seconds.
            pipe.send((sim.server.accepted, time.process_time()))


# --- serve's process -----------------------------------------------------------------------


class Stalls(logging.Handler):
    """Callbacks of serve's loop over SLOW_CALLBACK_SECONDS, each with where its task stood.

    Two ways, one at a time: asyncio's own debug report (``loop.set_debug``, its
    warnings land in ``emit``), and, without debug mode and its own cost (a stack
    captured for every callback scheduled), a wall-clock check around every
    callback. Either way each stall keeps the CPU time the loop's thread spent in
    the callback (so a callback the OS preempted — the machine is shared — can be
    told from one that computed) and the garbage collector's time within it.
    """

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.seen: list[dict[str, Any]] = []
        self.checking = False  # the wall-clock check (debug mode off)
        self.last_cpu = 0.0
        self.last_gc = 0.0
        self.gc_seconds = 0.0
        self._gc_started = 0.0
        gc.callbacks.append(self._gc)
        run = asyncio.events.Handle._run
        stalls = self

        def timed(handle: asyncio.events.Handle) -> None:
            wall, cpu, collected = time.perf_counter(), time.thread_time(), stalls.gc_seconds
            try:
                run(handle)
            finally:
                stalls.last_cpu = time.thread_time() - cpu
                stalls.last_gc = stalls.gc_seconds - collected
                took = time.perf_counter() - wall
                if stalls.checking and took >= SLOW_CALLBACK_SECONDS:
                    stalls.keep(took, handle)

        asyncio.events.Handle._run = timed  # type: ignore[method-assign,assignment]

    def _gc(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._gc_started = time.perf_counter()
        else:
            self.gc_seconds += time.perf_counter() - self._gc_started

    def keep(self, seconds: float, handle: Any) -> None:
        """Keep one stall of SECONDS: HANDLE's task's stack (if a task's step), CPU, GC."""
        callback = getattr(handle, "_callback", None)
        task = getattr(callback, "__self__", None)
        self.seen.append(
            {
                "seconds": seconds,
                "cpu": self.last_cpu,
                "gc": self.last_gc,
                "handle": repr(handle)[:200] if task is None else "",
                "stack": _task_stack(task) if isinstance(task, asyncio.Task) else [],
            }
        )

    def emit(self, record: logging.LogRecord) -> None:
        """Keep asyncio's debug report of a slow callback (it comes right after it ran)."""
        message = record.getMessage()
        if not message.startswith("Executing ") or " took " not in message:
            return
        seconds = float(message.rsplit(" took ", 1)[1].split()[0])
        handle = message[len("Executing ") :].rsplit(" took ", 1)[0]
        name = handle.split("name='", 1)[1].split("'", 1)[0] if "name='" in handle else None
        task = next((t for t in asyncio.all_tasks() if t.get_name() == name), None)
        self.seen.append(
            {
                "seconds": seconds,
                "cpu": self.last_cpu,
                "gc": self.last_gc,
                "handle": handle[:200] if task is None else "",
                "stack": _task_stack(task) if task is not None else [],
            }
        )


def _task_stack(task: asyncio.Task[Any]) -> list[str]:
    """Return TASK's awaiting frames, outermost first, as ``file:line qualname`` lines."""
    frames: list[str] = []
    awaited: Any = task.get_coro()
    for _ in range(64):  # bounded: a chain of awaits is never this deep
        frame = getattr(awaited, "cr_frame", None) or getattr(awaited, "ag_frame", None)
        frame = frame or getattr(awaited, "gi_frame", None)
        if not isinstance(frame, types.FrameType):
            break
        where = frame.f_code.co_filename.replace(str(REPO) + "/", "")
        name = frame.f_code.co_qualname
        if name == "_BidiRun._append":  # append 0 (the run request) opens the round
            name += f"[seqno {frame.f_locals.get('seqno')}]"
        frames.append(f"{where}:{frame.f_lineno} {name}")
        awaited = (
            getattr(awaited, "cr_await", None)
            or getattr(awaited, "ag_await", None)
            or getattr(awaited, "gi_yieldfrom", None)
        )
    return frames


def kind_of(stall: dict[str, Any]) -> str:
    """Return what a stall's task was doing: setup, stream (a round's), serve, or other."""
    ours = [f for f in stall["stack"] if f.startswith("nodecode_cursor/")]
    if ours:
        where, name = ours[-1].split(" ", 1)
        if name in SETUP_FUNCTIONS or name.endswith("[seqno 0]") or where.startswith(SETUP_MODULES):
            return "setup"
        return "stream"
    if any(f.startswith("nodecode_host/") for f in stall["stack"]):
        return "serve"
    return "other"


def serve_process(pipe: Connection, sim_url: str, home: str, wide_cap: int) -> None:
    """Run two ApiServers (cap WIDE_CAP and the shipped cap) over one cell; obey PIPE."""
    os.environ["CURSOR_ACCESS_TOKEN"] = TOKEN
    os.environ.pop("CURSOR_API_KEY", None)
    os.environ["NODECODE_HOME"] = home
    os.environ["NO_PROXY"] = "127.0.0.1,localhost"
    from nodecode_host.refhost import ReferenceHost
    from nodecode_host.routes import ApiServer

    reference = ReferenceHost(
        Path(home), overrides={"cursor": {"base_url": sim_url}}, say=lambda _: None
    )
    reference.start()
    try:
        asyncio.run(_serve_main(pipe, reference, ApiServer, wide_cap))
    finally:
        reference.stop()


async def _serve_main(pipe: Connection, reference: Any, server_type: Any, wide_cap: int) -> None:
    """Serve until PIPE says stop or goes quiet for SESSION_SECONDS."""
    loop = asyncio.get_running_loop()
    wide = server_type(reference, max_connections=wide_cap)
    shipped = server_type(reference)
    await wide.start("127.0.0.1", 0)
    await shipped.start("127.0.0.1", 0)
    stalls = Stalls()
    logging.getLogger("asyncio").addHandler(stalls)
    profiler: Any = None
    commands: asyncio.Queue[Any] = asyncio.Queue()
    loop.add_reader(pipe.fileno(), lambda: commands.put_nowait(pipe.recv()))
    pipe.send((wide.port, shipped.port))
    try:
        while True:
            try:
                async with asyncio.timeout(SESSION_SECONDS):
                    command = await commands.get()
            except TimeoutError:
                return
            if command == "stop":
                return
            if command in ("debug on", "check on"):
                stalls.seen.clear()
                loop.slow_callback_duration = SLOW_CALLBACK_SECONDS
                loop.set_debug(command == "debug on")
                stalls.checking = command == "check on"
                pipe.send("ok")
            elif command == "off":
                loop.set_debug(False)
                stalls.checking = False
                pipe.send(list(stalls.seen))
            elif command == "cpu":
                pipe.send(time.process_time())
            elif command == "gc":  # what one full collection costs serve's loop now
                started = time.perf_counter()
                gc.collect()
                pipe.send((len(gc.get_objects()), time.perf_counter() - started))
            elif command == "profile on":
                import cProfile

                profiler = cProfile.Profile()
                profiler.enable()
                pipe.send("ok")
            elif command == "profile off":
                profiler.disable()
                profiler.dump_stats(os.environ["SERVE_LOAD_PROFILE"])
                pipe.send("ok")
    finally:
        loop.remove_reader(pipe.fileno())
        await wide.close()
        await shipped.close()


# --- the driver ----------------------------------------------------------------------------


@dataclass
class Answer:
    """One streamed request as the client saw it."""

    status: int
    first_delta: float | None  # seconds from sending to the first content delta
    whole: float  # seconds from sending to the end of the answer
    text: str


def _deltas(event_bytes: bytes) -> Iterator[str]:
    """Yield the content deltas of one SSE event's ``data:`` lines."""
    for line in event_bytes.split(b"\n"):
        if not line.startswith(b"data: ") or line == b"data: [DONE]":
            continue
        chunk = json.loads(line[6:])
        for choice in chunk.get("choices") or ():
            content = (choice.get("delta") or {}).get("content")
            if content:
                yield str(content)


async def stream_one(port: int, prompt: str) -> Answer:
    """Send one streamed chat-completions request to 127.0.0.1:PORT; return what came back."""
    body = json.dumps(
        {"model": MODEL, "stream": True, "messages": [{"role": "user", "content": prompt}]}
    ).encode()
    conn = h11.Connection(h11.CLIENT)
    started = time.perf_counter()
    status, first, text, buffer = 0, None, "", b""
    async with asyncio.timeout(REQUEST_SECONDS):
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        try:
            head = h11.Request(
                method="POST",
                target="/v1/chat/completions",
                headers=[
                    ("host", f"127.0.0.1:{port}"),
                    ("content-type", "application/json"),
                    ("content-length", str(len(body))),
                    ("connection", "close"),
                ],
            )
            writer.write(conn.send(head) + conn.send(h11.Data(data=body)))
            writer.write(conn.send(h11.EndOfMessage()))
            while True:
                event = conn.next_event()
                if event is h11.NEED_DATA:
                    conn.receive_data(await reader.read(65536))
                elif isinstance(event, h11.Response):
                    status = event.status_code
                elif isinstance(event, h11.Data):
                    buffer += event.data
                    while b"\n\n" in buffer:
                        one, buffer = buffer.split(b"\n\n", 1)
                        for delta in _deltas(one) if status == 200 else ():
                            if first is None:
                                first = time.perf_counter() - started
                            text += delta
                elif isinstance(event, (h11.EndOfMessage, h11.ConnectionClosed)):
                    break
        finally:
            writer.close()
            with contextlib.suppress(ConnectionError, OSError):
                await writer.wait_closed()
    return Answer(status, first, time.perf_counter() - started, text)


async def burst(port: int, count: int, tag: str) -> list[Answer]:
    """Send COUNT streamed requests at once; return their answers."""
    return list(await asyncio.gather(*(stream_one(port, f"{tag} {i}") for i in range(count))))


class Child:
    """A child process and the pipe the driver commands it through."""

    def __init__(self, target: Any, *args: Any) -> None:
        context = multiprocessing.get_context("spawn")
        self.pipe, theirs = context.Pipe()
        self.process = context.Process(target=target, args=(theirs, *args), daemon=True)
        self.process.start()
        theirs.close()

    def ask(self, command: str | None = None) -> Any:
        """Send COMMAND (if any) and return the answer; RuntimeError after CONTROL_SECONDS."""
        if command is not None:
            self.pipe.send(command)
        if not self.pipe.poll(CONTROL_SECONDS):
            raise RuntimeError(f"the child gave no answer to {command!r}")
        return self.pipe.recv()

    def stop(self) -> None:
        with contextlib.suppress(OSError, BrokenPipeError):
            self.pipe.send("stop")
        self.process.join(CONTROL_SECONDS)
        if self.process.is_alive():
            self.process.terminate()
            self.process.join(5)


def median_first(answers: list[Answer]) -> float:
    """Return the median time to the first delta of the answers that had one (inf if none)."""
    times = [a.first_delta for a in answers if a.first_delta is not None]
    return statistics.median(times) if times else float("inf")


def check(answers: list[Answer], what: str) -> None:
    """Raise when an answer is not a 200 with the simulator's text (the numbers would lie)."""
    bad = [a for a in answers if a.status != 200 or not a.text.startswith("Simulated Cursor")]
    if bad:
        raise RuntimeError(f"{what}: {len(bad)} of {len(answers)} answers failed, e.g. {bad[0]}")


def describe(stall: dict[str, Any]) -> str:
    """Return one stall as a line: its kind, wall, CPU and GC time, and its task's frames."""
    stack = [f for f in stall["stack"] if f.startswith(("nodecode_", ".venv", "/"))]
    shown = [f.rsplit("/", 1)[-1] for f in stack[-4:]]
    where = " <- ".join(reversed(shown)) if shown else stall["handle"][:100]
    return (
        f"{kind_of(stall):6} {stall['seconds'] * 1000:5.1f} ms (CPU {stall['cpu'] * 1000:5.1f},"
        f" GC {stall['gc'] * 1000:4.1f})  {where}"
    )


def report_stalls(stalls: list[dict[str, Any]], shown: int) -> dict[str, int]:
    """Print the SHOWN longest stalls; return how many there were of each kind."""
    kinds = {"setup": 0, "stream": 0, "serve": 0, "other": 0}
    for stall in stalls:
        kinds[kind_of(stall)] += 1
    for stall in sorted(stalls, key=lambda s: -s["seconds"])[:shown]:
        print(f"    {describe(stall)}")
    computed = sum(1 for s in stalls if s["cpu"] >= SLOW_CALLBACK_SECONDS)
    collected = sum(1 for s in stalls if s["gc"] >= SLOW_CALLBACK_SECONDS / 2)
    print(
        "    by kind: "
        + ", ".join(f"{name} {n}" for name, n in kinds.items())
        + f"; {computed} spent >= 5 ms of CPU (the rest waited for a core), {collected} in GC"
    )
    return kinds


def main() -> int:
    """Run the measurements, print them and their verdicts; return 0."""
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 100
    loads = os.getloadavg()
    print(
        f"serve under load: {count} concurrent streamed chat completions vs one at a time;"
        f" the simulator thinks {THINK_SECONDS * 1000:.0f} ms before the first token"
    )
    print(f"  machine load average at start: {loads[0]:.2f} {loads[1]:.2f} {loads[2]:.2f}")
    with tempfile.TemporaryDirectory(prefix="serve-load-") as home:
        sim = Child(simulator_process, THINK_SECONDS)
        served: Child | None = None
        try:
            sim_url = sim.ask()
            served = Child(serve_process, sim_url, home, count + 28)
            wide, shipped = served.ask()
            run = asyncio.run
            accepted0, _ = sim.ask("count")
            warm = run(stream_one(wide, "warm up"))
            check([warm], "warm-up")
            accepted1, _ = sim.ask("count")
            singles = [run(stream_one(wide, f"single {i}")) for i in range(SEQUENTIAL)]
            check(singles, "single rounds")
            accepted2, sim_cpu0 = sim.ask("count")
            serve_cpu0 = served.ask("cpu")
            profiling = bool(os.environ.get("SERVE_LOAD_PROFILE"))
            if profiling:  # where serve's time goes in the first burst, for investigation
                served.ask("profile on")
            wall0 = time.perf_counter()
            crowd = run(burst(wide, count, "crowd"))
            wall = time.perf_counter() - wall0
            if profiling:
                served.ask("profile off")
            check(crowd, "burst")
            accepted3, sim_cpu1 = sim.ask("count")
            serve_cpu1 = served.ask("cpu")
            after = [run(stream_one(wide, f"after {i}")) for i in range(AFTER_BURST)]
            check(after, "rounds after the burst")
            accepted4, _ = sim.ask("count")
            served.ask("debug on")
            watched = run(burst(wide, count, "watched"))
            stalls: list[dict[str, Any]] = served.ask("off")
            check(watched, "debug burst")
            served.ask("check on")
            checked = run(burst(wide, count, "checked"))
            plain_stalls: list[dict[str, Any]] = served.ask("off")
            check(checked, "checked burst")
            capped = run(burst(shipped, count, "capped"))
            tracked, full_gc = served.ask("gc")
        finally:
            if served is not None:
                served.stop()
            sim.stop()

    one = median_first(singles)
    many = median_first(crowd)
    ratio = many / one
    firsts = sorted(a.first_delta for a in crowd if a.first_delta is not None)
    print(f"  first content delta, one at a time (median of {SEQUENTIAL}): {one * 1000:7.1f} ms")
    print(
        f"  first content delta, {count} at once (median):        {many * 1000:7.1f} ms"
        f"  (fastest {firsts[0] * 1000:.0f}, p90 {firsts[int(len(firsts) * 0.9)] * 1000:.0f},"
        f" slowest {firsts[-1] * 1000:.0f})"
    )
    print(
        f"  the burst took {wall:.2f} s wall: serve CPU {serve_cpu1 - serve_cpu0:.2f} s,"
        f" simulator CPU {sim_cpu1 - sim_cpu0:.2f} s"
    )
    print(f"  ratio {ratio:.2f}x")
    print(
        f"  verdict: {'PASS' if ratio <= 3 else 'FAIL'} — {count} concurrent: first delta"
        f" {many * 1000:.0f} ms, {ratio:.2f}x one request's {one * 1000:.0f} ms (target <= 3x)"
    )

    print(
        f"  event-loop callbacks over {SLOW_CALLBACK_SECONDS * 1000:.0f} ms in a second burst of"
        f" {count}, asyncio debug (loop.slow_callback_duration = {SLOW_CALLBACK_SECONDS}):"
        f" {len(stalls)} (first delta median {median_first(watched) * 1000:.0f} ms:"
        " debug mode captures a stack for every callback it schedules)"
    )
    print("    kind: where the task stood when asyncio reported it (setup: opening a round)")
    kinds = report_stalls(stalls, 6)
    print(
        f"  the same check without debug mode, a third burst of {count}: {len(plain_stalls)}"
        f" (first delta median {median_first(checked) * 1000:.0f} ms)"
    )
    plain_kinds = report_stalls(plain_stalls, 4)
    print(
        f"  serve's process tracks {tracked} objects; one full collection takes"
        f" {full_gc * 1000:.0f} ms on its loop"
    )
    print(
        f"  verdict: {'PASS' if not kinds['setup'] else 'FAIL'} — {kinds['setup']} event-loop"
        f" stalls over 5 ms in a round's setup under asyncio debug ({plain_kinds['setup']}"
        f" without debug), {len(stalls) - kinds['setup']} elsewhere (target: none in setup)"
    )

    new_warm = accepted1 - accepted0
    new_seq = accepted2 - accepted1
    new_burst = accepted3 - accepted2
    new_after = accepted4 - accepted3
    print(
        f"  connections the simulator accepted: warm-up round {new_warm},"
        f" next {SEQUENTIAL} sequential rounds {new_seq}, the burst of {count} {new_burst},"
        f" {AFTER_BURST} sequential rounds after it {new_after}"
    )
    print(
        f"  verdict: {'PASS' if new_seq == 0 and new_after == 0 else 'FAIL'} — sequential rounds"
        f" after the first opened {new_seq + new_after} new connections (target 0);"
        f" {count} concurrent rounds opened {new_burst}"
    )

    refused = sum(1 for a in capped if a.status == 503)
    served_ok = sum(1 for a in capped if a.status == 200)
    print(
        f"  at serve's shipped connection cap: {served_ok} of {count} concurrent requests"
        f" answered, {refused} turned away with 503"
    )
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Exception:
        traceback.print_exc()
        sys.exit(1)
