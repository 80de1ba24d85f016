"""The cell's costs against floors measured in the same run, each with a verdict.

Usage: python benchmarks/floors.py

1. Fold: 100 000 text-delta frames of varied UTF-8 tokens, one frame per read as
   the transports deliver them, through StreamReader.read_items and the pump's
   loop (Fold.feed_text, the reply's byte count, each part handed to a host callback)
   (and the message at the end), against the floor of the
   unavoidable work timed in the same run: upb parsing of the same frames,
   reading each text delta, one join. Goal (issue 25): at most 1.5x the floor.
2. Request build: histories of 10, 100, 1 000 and 5 000 messages (tool rounds,
   a 100 KiB tool result every 12 rounds; request_build.py's histories) built
   into a fresh conversation, against the floor of serializing the same
   structures (compact JSON of each message, the request message once) and
   SHA-256 of every blob the build stores. Goal: at most 2x the floor at every
   size, and linear (time per message at 5 000 within 2x of that at 100).
   Round N+1 (two messages more, same conversation) must hash only the new
   blobs: its hashed bytes are printed beside the history's.
3. Import: ``import nodecode_cursor`` against bare ``python -c pass``. Target:
   at most 1.5x (the package must not pull in httpx, protobuf or the catalog).
4. Memory per kept conversation: tracemalloc growth of keeping 128 conversations
   (the LRU's cap) of a 20-message history each. Target: under 256 KiB each.

Times are CPU time of this process (best of interleaved runs), so a shared
machine's other load mostly costs waiting for a core, not the sample.
Prints one block per measurement, ending in ``verdict: PASS|FAIL ...``.
"""

from __future__ import annotations

import gc
import hashlib
import json
import struct
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path[:0] = [str(REPO), str(HERE)]

import request_build  # noqa: E402

from nodecode_cursor._proto import agent_pb2  # noqa: E402
from nodecode_cursor.core.blobs import Conversation  # noqa: E402
from nodecode_cursor.core.fold import Fold  # noqa: E402
from nodecode_cursor.core.request import build_run_request  # noqa: E402
from nodecode_cursor.wire.stream import StreamReader, as_message  # noqa: E402

NETWORK_CHUNK = 16 * 1024


def best_of(
    runs: int, work: Callable[[], object], clock: Callable[[], float] = time.perf_counter
) -> float:
    """Return the fastest of RUNS timings of WORK by CLOCK, in seconds."""
    best = float("inf")
    for _ in range(runs):
        gc.collect()
        start = clock()
        work()
        best = min(best, clock() - start)
    return best


def best_of_pair(
    runs: int, ours: Callable[[], object], floor: Callable[[], object]
) -> tuple[float, float]:
    """Return the fastest timings of OURS and FLOOR, run alternately RUNS times each.

    Alternating keeps a burst of load on the machine from landing on one side only.
    """
    mine = base = float("inf")
    for _ in range(runs):
        # CPU time of this (single-threaded) process: a shared machine's other load
        # then costs waiting for a core, which is not counted, rather than the sample.
        mine = min(mine, best_of(1, ours, time.process_time))
        base = min(base, best_of(1, floor, time.process_time))
    return mine, base


def verdict(ok: bool, text: str) -> None:
    print(f"  verdict: {'PASS' if ok else 'FAIL'} — {text}")


# --- 1. fold -------------------------------------------------------------------------------


def fold_benchmark(frames: int = 100_000, runs: int = 15) -> None:
    from client_cpu import token

    payloads = [
        agent_pb2.AgentServerMessage(
            interaction_update=agent_pb2.InteractionUpdate(
                text_delta=agent_pb2.TextDeltaUpdate(text=token(index))
            )
        ).SerializeToString()
        for index in range(frames)
    ]
    # One frame per read, as the transports deliver a streamed answer.
    reads = [struct.pack(">BI", 0, len(payload)) + payload for payload in payloads]
    expected = "".join(token(index) for index in range(frames))
    room = 1 << 40

    def ours() -> None:
        # What the transports and the pump do per read: decode the read, fold its items.
        reader = StreamReader()
        fold = Fold(new_id=lambda: "unused")
        shown: list[object] = []

        def show(part: object) -> None:
            """The host's on_part: the lane hands it each part (what it does is the host's)."""

        # The pump's own per-message work too: counting the reply's bytes against its cap.
        reply_bytes = 0
        read = reader.read_items
        for chunk in reads:
            for item in read(chunk):
                if type(item) is str:
                    size, part = fold.feed_text(item, room - reply_bytes)
                elif isinstance(item, str):
                    size, part = fold.feed_thinking(item, room - reply_bytes)
                else:
                    size, part = fold.feed_delta(item, room - reply_bytes)
                if size < 0:
                    shown += fold.feed(as_message(item))
                else:
                    reply_bytes += size
                    if reply_bytes > room:
                        raise AssertionError("past the cap")
                    if part is not None:
                        show(part)
        assert not shown  # text deltas only: the fast path took every one
        assert fold.message()["content"] == expected

    def floor() -> None:
        # The unavoidable work: upb parsing of the same frames, each text read, one join.
        decode = agent_pb2.AgentServerMessage.FromString
        texts = [decode(payload).interaction_update.text_delta.text for payload in payloads]
        assert "".join(texts) == expected

    mine, base = best_of_pair(runs, ours, floor)
    ratio = mine / base
    print(f"fold: {frames} text-delta frames of varied UTF-8 tokens, one frame per read")
    print(f"  decoder + fold {mine * 1e3:8.1f} ms")
    print(f"  floor          {base * 1e3:8.1f} ms  (upb parse + read each text + one join)")
    print(f"  ratio          {ratio:8.2f}x")
    verdict(ratio <= 1.5, f"fold {ratio:.2f}x its floor (goal <= 1.5x)")


# --- 2. request build --------------------------------------------------------------------


def request_benchmark() -> None:
    wire, system = request_build.WIRE, "system"
    print(
        "request build: first build into a fresh conversation vs serializing the same"
        " structures (JSON of each message, the request) + SHA-256 of every stored blob"
    )
    print(
        f"  {'messages':>8} {'ours ms':>8} {'floor ms':>9} {'ratio':>6} {'us/msg':>7}"
        f" {'peak MiB':>9} {'hashed':>10} {'N+1 ms':>7} {'N+1 hashed':>10}"
    )
    ratios, per_message, rehashed_ok = [], {}, True
    for size in (10, 100, 1000, 5000):
        messages = request_build.history(size)

        def ours(messages: list[dict[str, object]] = messages) -> None:
            build_run_request(messages, system, wire, "gpt-5", "GPT-5", Conversation("bench"))

        built = Conversation("bench")
        request = build_run_request(messages, system, wire, "gpt-5", "GPT-5", built).message
        blobs = list(built.blobs._blobs.values())

        def floor(
            messages: list[dict[str, object]] = messages,
            request: object = request,
            blobs: list[bytes] = blobs,
        ) -> None:
            # The unavoidable work: serialize the same structures (each message, the
            # request) and hash every blob the build stores.
            for message in [{"role": "system", "content": system}, *messages]:
                json.dumps(message, separators=(",", ":"))
            for blob in blobs:
                hashlib.sha256(blob).digest()
            request.SerializeToString()  # type: ignore[attr-defined]

        # A small build takes well under a millisecond: more runs, or one burst of
        # other load decides its best time.
        runs = {10: 200, 100: 50, 1000: 10}.get(size, 4)
        mine, base = best_of_pair(runs, ours, floor)
        conversation = Conversation("bench")
        tracemalloc.start()
        build_run_request(messages, system, wire, "gpt-5", "GPT-5", conversation)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        hashed = conversation.blobs.hashed_bytes
        following = [*messages[:-1], messages[-1], {"role": "assistant", "content": "done"}]
        following.append({"role": "user", "content": "thanks"})
        start = time.perf_counter()
        build_run_request(following, system, wire, "gpt-5", "GPT-5", conversation)
        next_ms = (time.perf_counter() - start) * 1e3
        next_hashed = conversation.blobs.hashed_bytes - hashed
        # Round N+1 may hash only its new messages (and its new turn): a few KiB at most.
        rehashed_ok &= next_hashed < 16 * 1024
        ratio = mine / base
        ratios.append(ratio)
        per_message[size] = mine / size
        print(
            f"  {size:>8} {mine * 1e3:>8.1f} {base * 1e3:>9.1f} {ratio:>5.2f}x"
            f" {mine / size * 1e6:>7.1f} {peak / 2**20:>9.1f} {hashed:>10}"
            f" {next_ms:>7.2f} {next_hashed:>10}"
        )
    growth = per_message[5000] / per_message[100]
    print(f"  time per message at 5 000 / at 100: {growth:.2f}")
    ok = max(ratios) <= 2.0 and growth <= 2.0 and rehashed_ok
    verdict(
        ok,
        f"request build worst {max(ratios):.2f}x its floor (goal <= 2x), per-message growth"
        f" {growth:.2f}"
        f" (linear: <= 2), round N+1 re-hashes {'nothing old' if rehashed_ok else 'OLD BLOBS'}",
    )


# --- 3. import ---------------------------------------------------------------------------


def import_benchmark(runs: int = 15) -> None:
    def spawn(code: str) -> Callable[[], object]:
        return lambda: subprocess.run([sys.executable, "-c", code], check=True, cwd=REPO)

    bare = best_of(runs, spawn("pass"))
    ours = best_of(runs, spawn("import nodecode_cursor"))
    heavy = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys, nodecode_cursor; print(','.join(m for m in "
            "('httpx', 'google.protobuf', 'h11', 'jwt') if m in sys.modules))",
        ],
        capture_output=True,
        text=True,
        cwd=REPO,
    ).stdout.strip()
    ratio = ours / bare
    print("import: python -c 'import nodecode_cursor' vs python -c pass (best of runs)")
    print(f"  bare python    {bare * 1e3:8.1f} ms")
    print(f"  with package   {ours * 1e3:8.1f} ms")
    print(f"  ratio          {ratio:8.2f}x; heavy modules loaded: {heavy or 'none'}")
    verdict(ratio <= 1.5 and not heavy, f"{ratio:.2f}x bare Python, heavy modules: {heavy or 0}")


# --- 4. memory per conversation ----------------------------------------------------------


def conversation_memory_benchmark(count: int = 128, size: int = 20) -> None:
    from nodecode_cursor.core.conversations import Conversations

    histories = [request_build.history(size) for _ in range(count)]
    for n, messages in enumerate(histories):
        messages[0] = {"role": "user", "content": f"conversation {n}"}
    gc.collect()
    tracemalloc.start()
    base, _ = tracemalloc.get_traced_memory()
    kept = Conversations()
    for n, messages in enumerate(histories):
        conversation = kept.get(f"session-{n}")
        build_run_request(messages, "system", request_build.WIRE, "gpt-5", "GPT-5", conversation)
    gc.collect()
    used, _ = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    per = (used - base) / count
    big = len(request_build.BIG)
    print(f"memory per kept conversation: {count} conversations of {size} messages")
    print(f"  per conversation {per / 1024:8.1f} KiB (history holds one {big // 1024} KiB result)")
    verdict(per < 256 * 1024, f"{per / 1024:.0f} KiB each (target < 256 KiB)")


def main() -> None:
    # The client's CPU per round is client_cpu.py's (whole processes, both transports).
    for bench in (
        fold_benchmark,
        request_benchmark,
        import_benchmark,
        conversation_memory_benchmark,
    ):
        bench()
        print()


if __name__ == "__main__":
    main()
