"""``serve`` under load, over both of the cell's transports: time to the first token, the cap.

Usage: python benchmarks/serve_load.py [concurrent] [--transport http2|sse] [--no-capped]

``--transport`` measures one transport only, ``--no-capped`` skips the bursts at
the shipped cap (and their verdicts): for profiling one path quickly.

Three processes on loopback, so none of them steals the others' interpreter: the
simulator (its model thinks ``THINK_SECONDS`` before the first token, as a real
model does, ``sim.agent.first_token_delay``; it serves cleartext and, with a
``trustme`` certificate, TLS whose ALPN offers h2), ``serve`` (``ApiServer``s
over a ReferenceHost whose cell points at the simulator, as tests/host/served.py
starts it) and this driver, which speaks HTTP/1.1 with h11 and sends streamed
chat-completions requests. ``serve`` runs once per transport, a process of its
own each:

- ``http2``: the production path, TLS to ``https://localhost`` with HTTP/2
  chosen by ALPN (``cursor.transport = "http2"``, the CA trusted through
  ``SSL_CERT_FILE``), every round a stream of one shared connection;
- ``sse``: RunSSE and BidiAppend over HTTP/1.1 (``cursor.transport = "sse"``).

In each process, after one warm-up round (the roster, the catalog, the first
connection): the median time to the first content delta of ``SEQUENTIAL``
requests one at a time, then ``BURSTS`` bursts of CONCURRENT (100) requests sent
at once to a server whose connection cap is raised to fit them (every round in
flight together), then ``BURSTS`` bursts of CONCURRENT to the server at the
shipped cap (``SERVE_MAX_CONNECTIONS``, 64), which serves as many as it admits
and answers the rest. Verdicts, each burst judged, against issue 25's goals:

- the median first delta of a burst at most ``GOALS[transport]`` times one
  request's (1.5x over HTTP/2, 3x over RunSSE), for every burst;
- at the shipped cap, every client the cap turns away reads a whole 503 with
  ``retry-after``, none a connection reset.

It also prints the connections the simulator accepted per burst, what each HTTP
request of a round was for (the requests the simulator received, by path, and
each BidiAppend's client message), and serve's event-loop callbacks over 5 ms
during the last raised-cap burst (a wall-clock check around every callback,
counted by where the task stood: ``setup`` is a task inside the cell opening a
round; target none). With SERVE_LOAD_PROFILE=PATH set, serve's process profiles
its first raised-cap burst into PATH.TRANSPORT and the simulator's into
PATH.simulator (pstats files: every thread's CPU with yappi when it is installed
and SERVE_LOAD_PROFILER is not ``cprofile``, else cProfile's of the main thread).
Every wait is bounded: each request by REQUEST_SECONDS, each exchange with a
child process by CONTROL_SECONDS, the children by SESSION_SECONDS of silence.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
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
BURSTS = 3  # bursts of each kind, in one serve process
# The goal per transport: a burst's median first delta at most this times one request's.
GOALS = {"http2": 1.5, "sse": 3.0}
SLOW_CALLBACK_SECONDS = 0.005
REQUEST_SECONDS = 120.0
CONTROL_SECONDS = 60.0
SESSION_SECONDS = 300.0
TOKEN = "sim-token-serve-load"
# What a client that was not answered saw, as its Answer's status.
RESET, TIMED_OUT, CLOSED = -1, -2, -3
# Where a task of the cell stands while it opens a round (before the run's stream flows):
# its innermost frame of the cell is one of these functions, or any function of these modules.
SETUP_FUNCTIONS = (
    "stream_round",
    "_token",
    "Attempt.run",
    "Attempt._run",
    "Attempt._resume",
    "Attempt._finish",
    "Attempt._one_run",
    "_BidiRun.__aenter__",
    "_BidiRun._open_stream",
    "_BidiRun._read_sse",
)
SETUP_MODULES = (
    "nodecode_cursor/transports/clients.py",
    "nodecode_cursor/core/request.py",
    "nodecode_cursor/core/history.py",
    "nodecode_cursor/core/blobs.py",
    "nodecode_cursor/models/routing.py",
    "nodecode_cursor/models/model_resolution.py",
    "nodecode_cursor/models/catalog.py",
    "nodecode_cursor/models/listing.py",
    "nodecode_cursor/account/credentials.py",
    "nodecode_cursor/transports/http.py",
    "nodecode_cursor/transports/h2dial.py",
)


# --- profiling (SERVE_LOAD_PROFILE) ---------------------------------------------------------


class Profiler:
    """A profile of this process from now on: every thread's CPU with yappi when it is
    installed (the simulator answers each stream in a thread), else cProfile's of this thread."""

    def __init__(self) -> None:
        try:
            if os.environ.get("SERVE_LOAD_PROFILER") == "cprofile":
                raise ImportError("cProfile asked for")
            import yappi
        except ImportError:
            import cProfile

            self.yappi: Any = None
            self.profile: Any = cProfile.Profile()
            self.profile.enable()
        else:
            self.yappi = yappi
            yappi.set_clock_type("cpu")
            yappi.clear_stats()
            yappi.start()

    def save(self, path: str) -> None:
        """Stop and write the profile to PATH (pstats format)."""
        if self.yappi is None:
            self.profile.disable()
            self.profile.dump_stats(path)
            return
        self.yappi.stop()
        self.yappi.get_func_stats().save(path, type="pstat")


# --- the simulator's process ---------------------------------------------------------------


def simulator_process(pipe: Connection, think: float, folder: str) -> None:
    """Serve the simulator, cleartext and TLS, until told to stop; answer on PIPE."""
    import ssl

    import trustme

    from cursor_simulator import Simulator

    ca = trustme.CA()
    bundle = Path(folder) / "ca.pem"
    ca.cert_pem.write_to_path(str(bundle))
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert("localhost").configure_cert(context)
    context.set_alpn_protocols(["h2", "http/1.1"])
    with Simulator(max_records=50_000) as sim:
        sim.agent.first_token_delay = think
        pipe.send((sim.url, sim.listen_tls(context), str(bundle)))
        marks = (0, 0)
        profiler: Profiler | None = None
        while pipe.poll(SESSION_SECONDS):
            command = pipe.recv()
            if command == "stop":
                break
            if command == "profile on":
                profiler = Profiler()
                pipe.send("ok")
            elif command == "profile off":
                assert profiler is not None
                profiler.save(f"{os.environ['SERVE_LOAD_PROFILE']}.simulator")
                pipe.send("ok")
            elif command == "mark":  # what is received from now on is counted by "since"
                marks = (len(sim.server.requests), len(sim.agent.runs))
                pipe.send((sim.server.accepted, time.process_time()))
            elif command == "since":
                pipe.send((sim.server.accepted, *_received(sim, *marks)))


def _received(sim: Any, requests_mark: int, runs_mark: int) -> tuple[dict[str, Any], ...]:
    """Return the requests since the marks by path, the runs' client messages by kind,
    and the number of runs with this process's CPU seconds so far."""
    paths = collections.Counter(r.path for r in sim.server.requests[requests_mark:])
    kinds: collections.Counter[str] = collections.Counter()
    runs = sim.agent.runs[runs_mark:]
    for run in runs:
        for append in run.appends:
            kinds[_kind(append.message)] += 1
    return dict(paths), dict(kinds), {"runs": len(runs), "cpu": time.process_time()}


def _kind(message: Any) -> str:
    """Return a client message's kind: its oneof, and the oneof inside it when it has one."""
    kind = message.WhichOneof("message") or "empty"
    inner = getattr(message, kind, None)
    for oneof in getattr(getattr(inner, "DESCRIPTOR", None), "oneofs", ()):
        chosen = inner.WhichOneof(oneof.name)
        if chosen:
            return f"{kind}.{chosen}"
    return kind


# --- serve's process -----------------------------------------------------------------------


class Stalls:
    """Callbacks of serve's loop over SLOW_CALLBACK_SECONDS, each with where its task stood.

    A wall-clock check around every callback (installed when first asked, so the
    bursts before it run without it), keeping the CPU time the loop's thread spent
    in the callback: a callback the OS preempted (the machine is shared) is told
    from one that computed.
    """

    def __init__(self) -> None:
        self.seen: list[dict[str, Any]] = []
        self.checking = False
        run = asyncio.events.Handle._run
        stalls = self

        def timed(handle: asyncio.events.Handle) -> None:
            wall, cpu = time.perf_counter(), time.thread_time()
            try:
                run(handle)
            finally:
                took = time.perf_counter() - wall
                if stalls.checking and took >= SLOW_CALLBACK_SECONDS:
                    stalls.keep(took, time.thread_time() - cpu, handle)

        asyncio.events.Handle._run = timed  # type: ignore[method-assign,assignment]

    def keep(self, seconds: float, cpu: float, handle: Any) -> None:
        """Keep one stall of SECONDS (CPU seconds of it): HANDLE's task's stack, if a task's."""
        task = getattr(getattr(handle, "_callback", None), "__self__", None)
        self.seen.append(
            {
                "seconds": seconds,
                "cpu": cpu,
                "handle": repr(handle)[:200] if task is None else "",
                "stack": _task_stack(task) if isinstance(task, asyncio.Task) else [],
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
        frames.append(f"{where}:{frame.f_lineno} {frame.f_code.co_qualname}")
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
        if name in SETUP_FUNCTIONS or where.startswith(SETUP_MODULES):
            return "setup"
        return "stream"
    if any(f.startswith("nodecode_host/") for f in stall["stack"]):
        return "serve"
    return "other"


def serve_process(
    pipe: Connection, base_url: str, transport: str, home: str, ca: str, wide_cap: int
) -> None:
    """Run two ApiServers (cap WIDE_CAP and the shipped cap) over one cell; obey PIPE."""
    os.environ["CURSOR_ACCESS_TOKEN"] = TOKEN
    os.environ.pop("CURSOR_API_KEY", None)
    os.environ["NODECODE_HOME"] = home
    os.environ["NO_PROXY"] = "127.0.0.1,localhost"
    os.environ["SSL_CERT_FILE"] = ca  # the simulator's test CA, as httpx and h2dial read it
    from nodecode_host.refhost import ReferenceHost
    from nodecode_host.routes import ApiServer

    reference = ReferenceHost(
        Path(home),
        overrides={"cursor": {"base_url": base_url, "transport": transport}},
        say=lambda _: None,
    )
    reference.start()
    try:
        asyncio.run(_serve_main(pipe, reference, ApiServer, wide_cap, transport))
    finally:
        reference.stop()


async def _serve_main(
    pipe: Connection, reference: Any, server_type: Any, wide_cap: int, transport: str
) -> None:
    """Serve until PIPE says stop or goes quiet for SESSION_SECONDS."""
    loop = asyncio.get_running_loop()
    wide = server_type(reference, max_connections=wide_cap)
    shipped = server_type(reference)
    await wide.start("127.0.0.1", 0)
    await shipped.start("127.0.0.1", 0)
    stalls: Stalls | None = None
    profiler: Any = None
    commands: asyncio.Queue[Any] = asyncio.Queue()
    loop.add_reader(pipe.fileno(), lambda: commands.put_nowait(pipe.recv()))
    pipe.send((wide.port, shipped.port, shipped.max_connections))
    try:
        while True:
            try:
                async with asyncio.timeout(SESSION_SECONDS):
                    command = await commands.get()
            except TimeoutError:
                return
            if command == "stop":
                return
            if command == "check on":
                stalls = stalls or Stalls()
                stalls.seen.clear()
                stalls.checking = True
                pipe.send("ok")
            elif command == "check off":
                assert stalls is not None
                stalls.checking = False
                pipe.send(list(stalls.seen))
            elif command == "cpu":
                pipe.send(time.process_time())
            elif command == "profile on":
                profiler = Profiler()
                pipe.send("ok")
            elif command == "profile off":
                profiler.save(f"{os.environ['SERVE_LOAD_PROFILE']}.{transport}")
                pipe.send("ok")
    finally:
        loop.remove_reader(pipe.fileno())
        await wide.close()
        await shipped.close()


# --- the driver ----------------------------------------------------------------------------


@dataclass
class Answer:
    """One streamed request as the client saw it."""

    status: int  # the HTTP status, or RESET, TIMED_OUT, CLOSED
    first_delta: float | None  # seconds from connecting to the first content delta
    whole: float  # seconds from connecting to the end of the answer
    text: str
    head: bytes = b""  # the response head's headers, lower-cased, for a 503
    body: bytes = b""  # a whole (non-SSE) answer's body


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
    started = time.perf_counter()
    try:
        async with asyncio.timeout(REQUEST_SECONDS):
            return await _exchange(port, prompt, started)
    except TimeoutError:
        return Answer(TIMED_OUT, None, time.perf_counter() - started, "")
    except ConnectionResetError:
        return Answer(RESET, None, time.perf_counter() - started, "")
    except (ConnectionError, OSError, h11.ProtocolError):
        return Answer(CLOSED, None, time.perf_counter() - started, "")


async def _exchange(port: int, prompt: str, started: float) -> Answer:
    """Return the answer to one request sent on a connection of its own."""
    body = json.dumps(
        {"model": MODEL, "stream": True, "messages": [{"role": "user", "content": prompt}]}
    ).encode()
    conn = h11.Connection(h11.CLIENT)
    status, first, text, buffer, head, whole = 0, None, "", b"", b"", b""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        request = h11.Request(
            method="POST",
            target="/v1/chat/completions",
            headers=[
                ("host", f"127.0.0.1:{port}"),
                ("content-type", "application/json"),
                ("content-length", str(len(body))),
                ("connection", "close"),
            ],
        )
        writer.write(conn.send(request) + conn.send(h11.Data(data=body)))
        writer.write(conn.send(h11.EndOfMessage()))
        while True:
            event = conn.next_event()
            if event is h11.NEED_DATA:
                conn.receive_data(await reader.read(65536))
            elif isinstance(event, h11.Response):
                status = event.status_code
                head = b"\r\n".join(k + b": " + v for k, v in event.headers)
            elif isinstance(event, h11.Data):
                if status != 200:
                    whole += event.data
                    continue
                buffer += event.data
                while b"\n\n" in buffer:
                    one, buffer = buffer.split(b"\n\n", 1)
                    for delta in _deltas(one):
                        if first is None:
                            first = time.perf_counter() - started
                        text += delta
            elif isinstance(event, (h11.EndOfMessage, h11.ConnectionClosed)):
                break
    finally:
        writer.close()
        with contextlib.suppress(ConnectionError, OSError):
            await writer.wait_closed()
    return Answer(status, first, time.perf_counter() - started, text, head, whole)


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


def served(answers: list[Answer]) -> list[Answer]:
    """Return the answers that are a 200 with the simulator's text."""
    return [a for a in answers if a.status == 200 and a.text.startswith("Simulated Cursor")]


def median_first(answers: list[Answer]) -> float:
    """Return the median time to the first delta of the answers that had one (inf if none)."""
    times = [a.first_delta for a in answers if a.first_delta is not None]
    return statistics.median(times) if times else float("inf")


def readable_503(answer: Answer) -> bool:
    """Return whether ANSWER is a whole 503 saying the connection limit, with retry-after."""
    if answer.status != 503 or b"retry-after: 1" not in answer.head.lower():
        return False
    with contextlib.suppress(ValueError):
        return "connection limit" in json.loads(answer.body)["error"]["message"]
    return False


def check(answers: list[Answer], what: str) -> None:
    """Raise when an answer is not a 200 with the simulator's text (the numbers would lie)."""
    bad = [a for a in answers if a not in served(answers)]
    if bad:
        raise RuntimeError(f"{what}: {len(bad)} of {len(answers)} answers failed, e.g. {bad[0]}")


@dataclass
class Measured:
    """One transport's figures, for its verdicts."""

    transport: str
    one: float
    wide: list[float]
    capped: list[float]
    turned_away: list[tuple[int, int, int]]  # per burst: readable 503s, resets, other failures
    capped_served: list[int]


def run_transport(
    transport: str, url: str, home: str, ca: str, sim: Child, count: int, *, capped_too: bool = True
) -> Measured:
    """Measure TRANSPORT in one serve process; print what it saw; return its figures."""
    loads = os.getloadavg()
    print(f"\n{transport}: {url} (load average {loads[0]:.2f} {loads[1]:.2f} {loads[2]:.2f})")
    child = Child(serve_process, url, transport, home, ca, count + 28)
    try:
        wide_port, shipped_port, cap = child.ask()
        run = asyncio.run
        sim.ask("mark")
        warm = run(stream_one(wide_port, "warm up"))
        check([warm], f"{transport} warm-up")
        warm_seen = sim.ask("since")
        sim.ask("mark")
        singles = [run(stream_one(wide_port, f"single {i}")) for i in range(SEQUENTIAL)]
        check(singles, f"{transport} single rounds")
        single_seen = sim.ask("since")
        one = median_first(singles)
        print(f"  warm-up round: {median_first([warm]) * 1000:.0f} ms to its first delta")
        print(
            f"  one at a time (median of {SEQUENTIAL}): {one * 1000:.1f} ms to the first delta;"
            f" connections opened {single_seen[0] - warm_seen[0]}"
        )
        print_requests(f"per round, one at a time ({SEQUENTIAL} rounds)", single_seen, SEQUENTIAL)
        wide: list[float] = []
        profiling = bool(os.environ.get("SERVE_LOAD_PROFILE"))
        for index in range(BURSTS):
            last = index == BURSTS - 1
            if last:
                child.ask("check on")
            if profiling and index == 0:
                child.ask("profile on")
                sim.ask("profile on")
            accepted, sim_cpu0 = sim.ask("mark")
            cpu0, own0 = child.ask("cpu"), time.process_time()
            wall0 = time.perf_counter()
            crowd = run(burst(wide_port, count, f"crowd {index}"))
            wall = time.perf_counter() - wall0
            cpu, own = child.ask("cpu") - cpu0, time.process_time() - own0
            seen = sim.ask("since")
            sim_cpu = seen[-1]["cpu"] - sim_cpu0
            if profiling and index == 0:
                child.ask("profile off")
                sim.ask("profile off")
            stalls = child.ask("check off") if last else None
            check(crowd, f"{transport} burst {index + 1}")
            firsts = sorted(a.first_delta for a in crowd if a.first_delta is not None)
            wide.append(median_first(crowd))
            print(
                f"  burst {index + 1} of {count} at once (cap {count + 28}): first delta median"
                f" {wide[-1] * 1000:.0f} ms = {wide[-1] / one:.2f}x (p90"
                f" {firsts[int(len(firsts) * 0.9)] * 1000:.0f}, slowest {firsts[-1] * 1000:.0f});"
                f" {wall:.2f} s wall; CPU s: serve {cpu:.2f}, simulator {sim_cpu:.2f}, clients"
                f" {own:.2f}; connections opened {seen[0] - accepted}"
            )
            if index == 0:
                print_requests(f"per round, {count} at once", seen, count)
            if stalls is not None:
                report_stalls(stalls)
        capped: list[float] = []
        turned: list[tuple[int, int, int]] = []
        capped_served: list[int] = []
        for index in range(BURSTS if capped_too else 0):
            answers = run(burst(shipped_port, count, f"capped {index}"))
            good = served(answers)
            refused = sum(1 for a in answers if readable_503(a))
            resets = sum(1 for a in answers if a.status == RESET)
            other = len(answers) - len(good) - refused - resets
            capped.append(median_first(good))
            turned.append((refused, resets, other))
            capped_served.append(len(good))
            print(
                f"  burst {index + 1} of {count} at the shipped cap ({cap}): {len(good)} served,"
                f" first delta median {capped[-1] * 1000:.0f} ms = {capped[-1] / one:.2f}x;"
                f" {refused} read a 503, {resets} reset, {other} other"
            )
    finally:
        child.stop()
    return Measured(transport, one, wide, capped, turned, capped_served)


def print_requests(what: str, seen: tuple[Any, ...], rounds: int) -> None:
    """Print the HTTP requests SEEN by path and the client messages by kind, per round."""
    _, paths, kinds, runs = seen
    total = sum(paths.values())
    print(f"    HTTP requests {what}: {total / rounds:.2f} ({runs['runs']} runs)")
    for path, n in sorted(paths.items(), key=lambda item: -item[1]):
        print(f"      {n / rounds:5.2f}  {path}")
    print("    client messages per round (each a BidiAppend over RunSSE, a frame over HTTP/2):")
    for kind, n in sorted(kinds.items(), key=lambda item: -item[1]):
        print(f"      {n / rounds:5.2f}  {kind}")


def report_stalls(stalls: list[dict[str, Any]]) -> None:
    """Print how many stalls of each kind, and the longest few."""
    kinds = collections.Counter(kind_of(s) for s in stalls)
    computed = sum(1 for s in stalls if s["cpu"] >= SLOW_CALLBACK_SECONDS)
    print(
        f"    event-loop callbacks over {SLOW_CALLBACK_SECONDS * 1000:.0f} ms in that burst:"
        f" {len(stalls)} ("
        + ", ".join(f"{k} {kinds.get(k, 0)}" for k in ("setup", "stream", "serve", "other"))
        + f"); {computed} spent >= 5 ms of CPU, the rest waited for a core"
    )
    for stall in sorted(stalls, key=lambda s: -s["seconds"])[:3]:
        shown = [f.rsplit("/", 1)[-1] for f in stall["stack"][-3:]]
        where = " <- ".join(reversed(shown)) if shown else stall["handle"][:100]
        print(
            f"      {kind_of(stall):6} {stall['seconds'] * 1000:5.1f} ms"
            f" (CPU {stall['cpu'] * 1000:5.1f})  {where}"
        )


def verdicts(measured: Measured, count: int) -> None:
    """Print the transport's verdicts against issue 25's goals."""
    goal = GOALS[measured.transport]
    ratios = [m / measured.one for m in measured.wide]
    worst = max(ratios)
    print(
        f"  verdict: {'PASS' if worst <= goal else 'FAIL'} — {measured.transport}: {count}"
        f" concurrent, first delta {', '.join(f'{r:.2f}x' for r in ratios)} one request's"
        f" {measured.one * 1000:.0f} ms in {BURSTS} bursts (goal <= {goal}x each)"
    )
    if not measured.capped:
        return  # the capped bursts were skipped (--no-capped)
    capped = [m / measured.one for m in measured.capped]
    print(
        f"  verdict: {'PASS' if max(capped) <= goal else 'FAIL'} — {measured.transport}: {count}"
        f" at the shipped cap, first delta of the {'/'.join(map(str, measured.capped_served))}"
        f" served {', '.join(f'{r:.2f}x' for r in capped)} (goal <= {goal}x each)"
    )
    turned = sum(t[0] for t in measured.turned_away)
    bad = sum(t[1] + t[2] for t in measured.turned_away)
    print(
        f"  verdict: {'PASS' if bad == 0 else 'FAIL'} — {measured.transport}: past the shipped"
        f" cap {turned} clients read a 503 with retry-after, {bad} a reset or nothing"
        " (goal: a readable 503, never a reset)"
    )


def main() -> int:
    """Run the measurements over both transports, print them and their verdicts; return 0."""
    import argparse

    parser = argparse.ArgumentParser(description="serve under load")
    parser.add_argument("concurrent", type=int, nargs="?", default=100)
    parser.add_argument("--transport", choices=("http2", "sse"), help="measure this one only")
    parser.add_argument("--no-capped", action="store_true", help="skip the shipped-cap bursts")
    options = parser.parse_args()
    count = options.concurrent
    loads = os.getloadavg()
    print(
        f"serve under load: {count} concurrent streamed chat completions vs one at a time,"
        f" over HTTP/2 (TLS) and RunSSE; the simulator thinks {THINK_SECONDS * 1000:.0f} ms"
        " before the first token"
    )
    print(f"  machine load average at start: {loads[0]:.2f} {loads[1]:.2f} {loads[2]:.2f}")
    logging.disable(logging.WARNING)
    results: list[Measured] = []
    with tempfile.TemporaryDirectory(prefix="serve-load-") as folder:
        sim = Child(simulator_process, THINK_SECONDS, folder)
        try:
            sim_url, tls_url, ca = sim.ask()
            for transport, url in (("http2", tls_url), ("sse", sim_url)):
                if options.transport not in (None, transport):
                    continue
                home = Path(folder) / transport
                home.mkdir()
                results.append(
                    run_transport(
                        transport, url, str(home), ca, sim, count, capped_too=not options.no_capped
                    )
                )
        finally:
            sim.stop()
    print()
    for measured in results:
        verdicts(measured, count)
    loads = os.getloadavg()
    print(f"  machine load average at end: {loads[0]:.2f} {loads[1]:.2f} {loads[2]:.2f}")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Exception:
        traceback.print_exc()
        sys.exit(1)
