"""The run's own HTTP/1.1 reader (transports/http1.py) against h11 on the same bytes.

Usage: python benchmarks/http1_reader.py

Why the cell keeps a reader of its own beside h11 (which it ships for serve and
the simulator): a streamed answer over RunSSE is a chunked body that carries one
chunk per text delta, a few dozen bytes each, so the reader's cost *per chunk* is
what a long answer pays. Both readers get the same response — a chunked head, then
20 000 chunks of 40-90 bytes (the size of one Connect frame holding a text delta),
then the last chunk and gRPC's trailers — delivered two ways:

- one chunk per read (a service flushing each delta as it comes);
- 16 KiB reads (a client that fell behind, or a fast service).

Each side reads the whole body and the trailers (and both are checked to agree);
CPU time of this process, best of interleaved runs. Prints microseconds per chunk
and the ratio h11 / ours. Detail only (no verdict): the number docs/architecture.md
cites for keeping http1.py.
"""

from __future__ import annotations

import gc
import sys
import time
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent)]

import h11  # noqa: E402

from nodecode_cursor.transports.http1 import ResponseReader  # noqa: E402

CHUNKS = 20_000
READ = 16 * 1024
RUNS = 9

HEAD = (
    b"HTTP/1.1 200 OK\r\ncontent-type: application/connect+proto\r\n"
    b"transfer-encoding: chunked\r\n\r\n"
)
END = b"0\r\ngrpc-status: 0\r\ngrpc-message: \r\n\r\n"


def payload(index: int) -> bytes:
    """Return the INDEX-th chunk's data: 40-90 bytes, as one small Connect frame."""
    size = 40 + (index * 37) % 51
    return bytes((index + k) % 251 for k in range(size))


def chunk(data: bytes) -> bytes:
    """Return DATA framed as one chunk of a chunked body."""
    return b"%x\r\n" % len(data) + data + b"\r\n"


def ours(reads: list[bytes]) -> tuple[bytes, dict[str, str]]:
    """Return the body and trailers ResponseReader reads from READS."""
    reader = ResponseReader()
    feed = reader.feed
    body = b"".join([feed(read) for read in reads])
    assert reader.done
    return body, reader.trailers


def theirs(reads: list[bytes]) -> tuple[bytes, dict[str, str]]:
    """Return the body and trailers an h11 client connection reads from READS."""
    conn = h11.Connection(our_role=h11.CLIENT)
    conn.send(
        h11.Request(method="POST", target="/", headers=[("host", "x"), ("content-length", "0")])
    )
    conn.send(h11.EndOfMessage())
    pieces: list[bytes] = []
    trailers: dict[str, str] = {}
    receive, next_event = conn.receive_data, conn.next_event
    for read in reads:
        receive(read)
        while True:
            event = next_event()
            if event is h11.NEED_DATA:
                break
            if type(event) is h11.Data:
                pieces.append(event.data)
            elif type(event) is h11.EndOfMessage:
                trailers = {k.decode(): v.decode() for k, v in event.headers}
    return b"".join(pieces), trailers


def best(runs: int, work: Callable[[], object]) -> float:
    """Return the least CPU time of RUNS calls of WORK."""
    least = float("inf")
    for _ in range(runs):
        gc.collect()
        start = time.process_time()
        work()
        least = min(least, time.process_time() - start)
    return least


def measure(label: str, reads: list[bytes], expected: bytes) -> None:
    """Time both readers on READS (interleaved) and print µs per chunk."""
    assert ours(reads) == theirs(reads) == (expected, {"grpc-status": "0", "grpc-message": ""})
    mine = base = float("inf")
    for _ in range(RUNS):
        mine = min(mine, best(1, lambda: ours(reads)))
        base = min(base, best(1, lambda: theirs(reads)))
    print(f"{label} ({len(reads)} reads)")
    print(f"  http1.ResponseReader: {mine / CHUNKS * 1e6:6.2f} µs/chunk")
    print(f"  h11 0.16 client:      {base / CHUNKS * 1e6:6.2f} µs/chunk")
    print(f"  h11 / ours: {base / mine:.1f}x")


def main() -> None:
    """Print both readers' cost per chunk for one-chunk reads and for 16 KiB reads."""
    datas = [payload(index) for index in range(CHUNKS)]
    expected = b"".join(datas)
    chunks = [chunk(data) for data in datas]
    measure("one chunk per read", [HEAD, *chunks, END], expected)
    stream = HEAD + b"".join(chunks) + END
    measure(
        "16 KiB reads", [stream[at : at + READ] for at in range(0, len(stream), READ)], expected
    )


if __name__ == "__main__":
    main()
