"""The run's own HTTP/1.1 reader (http1.py) reads what h11 reads, on random responses.

http1.py exists beside h11 for speed alone (benchmarks/http1_reader.py), so it must
answer as h11 does. Hypothesis writes responses — 1xx heads first, then a final
head whose body is chunked (sizes in either case, with leading zeros and chunk
extensions, a trailer section), has a Content-Length, or runs to the close (or a
204 / 304 with none) — and splits their bytes at random points. Both readers get
the same reads: ``ResponseReader`` directly, h11 as a client connection that has
sent a request. They must agree on the status, the headers, the body, the
trailers and whether the connection may be kept; and cut short anywhere, they
must refuse the same responses.

Where they differ on purpose, ``test_where_the_two_differ_on_purpose`` says
how and why, each case asserted on both sides.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

import h11
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nodecode_cursor import limits
from nodecode_cursor.transports.http1 import BadResponse, ResponseReader

EXAMPLES = int(os.environ.get("NODECODE_FUZZ_EXAMPLES") or 200)
agree = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

_TCHAR = "!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
# A field value's bytes: visible ASCII, obs-text (0x80-0xFF), and inner spaces / tabs.
_VCHAR = bytes(range(0x21, 0x7F)) + bytes(range(0x80, 0x100))
# Names the framing or our refusals depend on: written only by the strategy itself.
_FRAMING = {"content-length", "transfer-encoding", "content-encoding", "connection"}


@dataclass
class Answer:
    """What a reader made of one response: its head, body, trailers, and a verdict."""

    status: int = 0
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b""
    trailers: dict[str, str] = field(default_factory=dict)
    keep_alive: bool | None = None
    refused: bool = False


names = st.text(_TCHAR, min_size=1, max_size=12).filter(lambda n: n.lower() not in _FRAMING)


@st.composite
def values(draw: st.DrawFn) -> bytes:
    """Return a field value, with white space around it that both readers strip."""
    core = draw(st.binary(max_size=20).map(lambda b: bytes(_VCHAR[x % len(_VCHAR)] for x in b)))
    if len(core) > 1 and draw(st.booleans()):
        at = draw(st.integers(1, len(core) - 1))
        core = core[:at] + draw(st.sampled_from([b" ", b"\t", b"  "])) + core[at:]
    around = st.sampled_from([b"", b" ", b"\t", b" \t"])
    return draw(around) + core + draw(around)


def field_lines(pairs: list[tuple[str, bytes]]) -> bytes:
    """Return header lines for PAIRS."""
    return b"".join(name.encode() + b":" + value + b"\r\n" for name, value in pairs)


@st.composite
def responses(draw: st.DrawFn) -> bytes:
    """Return one response's bytes: 1xx heads, a final head, its body."""
    out = b""
    for _ in range(draw(st.integers(0, 3))):
        status = draw(st.sampled_from([100, 102, 103]))
        extra = draw(st.lists(st.tuples(names, values()), max_size=3))
        out += b"HTTP/1.1 %d Interim\r\n" % status + field_lines(extra) + b"\r\n"
    version = draw(st.sampled_from([b"1.1", b"1.1", b"1.0"]))
    status = draw(st.sampled_from([200, 200, 201, 204, 304, 400, 404, 429, 500, 503]))
    reason = draw(st.sampled_from([b" OK", b" Not Found", b" ", b"", b" a\tb \x80"]))
    pairs = draw(st.lists(st.tuples(names, values()), max_size=6))
    framing = draw(st.sampled_from(["chunked", "length", "close"]))
    connection = draw(st.sampled_from([None, b"close", b"keep-alive", b"Keep-Alive, x"]))
    if connection is not None:
        pairs.append(("connection", connection))
    body = b""
    if status in (204, 304):
        pass  # no body, whatever the head says
    elif framing == "chunked":
        pairs.append(("Transfer-Encoding", draw(st.sampled_from([b"chunked", b" Chunked"]))))
        for data in draw(st.lists(st.binary(min_size=1, max_size=40), max_size=6)):
            digits = draw(st.sampled_from(["%x", "%X", "0%x", "000%x"])) % len(data)
            ext = draw(st.sampled_from([b"", b";a", b";name=value", b';q="quoted";z']))
            body += digits.encode() + ext + b"\r\n" + data + b"\r\n"
        body += draw(st.sampled_from([b"0", b"000", b"0;last"])) + b"\r\n"
        trailers = draw(st.dictionaries(names.map(str.lower), values(), max_size=3))
        body += field_lines(list(trailers.items())) + b"\r\n"
    elif framing == "length":
        data = draw(st.binary(max_size=120))
        pairs.append(("Content-Length", b"%d" % len(data)))
        body = data
    else:
        body = draw(st.binary(max_size=120))
    pairs = draw(st.permutations(pairs))
    head = b"HTTP/" + version + b" %d" % status + reason + b"\r\n" + field_lines(pairs) + b"\r\n"
    return out + head + body


def split(data: bytes, cuts: list[int]) -> list[bytes]:
    """Return DATA cut at the points CUTS (each taken modulo its length + 1), no read empty.

    (An empty read is the close, to h11 as to a socket.)
    """
    points = sorted({cut % (len(data) + 1) for cut in cuts})
    pieces = [data[a:b] for a, b in zip([0, *points], [*points, len(data)], strict=True)]
    return [piece for piece in pieces if piece]


def ours(reads: list[bytes]) -> Answer:
    """Return what ResponseReader makes of READS, then the close."""
    reader = ResponseReader()
    answer = Answer()
    pieces: list[bytes] = []
    try:
        for read in reads:
            pieces.append(reader.feed(read))
        if reader.done:
            answer.keep_alive = reader.keep_alive
        pieces.append(reader.feed_eof())
    except BadResponse:
        answer.refused = True
        return answer
    if answer.keep_alive is None:
        answer.keep_alive = False  # read to the close
    answer.status, answer.headers = reader.status, reader.headers
    answer.body, answer.trailers = b"".join(pieces), reader.trailers
    return answer


def theirs(reads: list[bytes]) -> Answer:
    """Return what an h11 client connection that sent a POST makes of READS, then the close."""
    conn = h11.Connection(our_role=h11.CLIENT)
    conn.send(
        h11.Request(method="POST", target="/", headers=[("host", "x"), ("content-length", "0")])
    )
    conn.send(h11.EndOfMessage())
    answer = Answer()
    pieces: list[bytes] = []
    try:
        for read in [*reads, b""]:  # b"": the close
            conn.receive_data(read)
            while True:
                event = conn.next_event()
                if event is h11.NEED_DATA or isinstance(event, h11.ConnectionClosed):
                    break
                if isinstance(event, h11.Response):
                    answer.status = event.status_code
                    for name, value in event.headers:
                        text = value.decode("latin-1")
                        key = name.decode("ascii")
                        answer.headers[key] = (
                            answer.headers[key] + ", " + text if key in answer.headers else text
                        )
                elif isinstance(event, h11.Data):
                    pieces.append(bytes(event.data))
                elif isinstance(event, h11.EndOfMessage):
                    answer.trailers = {
                        n.decode("ascii"): v.decode("latin-1") for n, v in event.headers
                    }
                    # A body read to the close leaves nothing to keep.
                    answer.keep_alive = bool(read) and conn.their_state is h11.DONE
    except h11.RemoteProtocolError:
        return Answer(refused=True)
    if answer.keep_alive is None:
        return Answer(refused=True)  # the close came before the message ended
    answer.body = b"".join(pieces)
    return answer


def comparable(answer: Answer, data: bytes) -> Answer:
    """Return ANSWER with what the readers keep differently put alike.

    Both fold a repeated Content-Length of one value into one (h11 keeps one field,
    ours none): that field is compared through the body. h11 lower-cases the value
    of Transfer-Encoding (a coding's name is case-blind); ours keeps the value as
    sent. An HTTP/1.0 response
    with ``Connection: keep-alive`` may be kept by ours (RFC 9112 §9.3) and never by
    h11, so keep-alive is compared for HTTP/1.1 responses only.
    """
    answer.headers.pop("content-length", None)
    if "transfer-encoding" in answer.headers:
        answer.headers["transfer-encoding"] = answer.headers["transfer-encoding"].lower()
    if b"\r\n\r\nHTTP/1.0 " in b"\r\n\r\n" + data:
        answer.keep_alive = None
    return answer


@agree
@given(responses(), st.lists(st.integers(0, 1 << 16), max_size=8))
def test_random_responses_split_anywhere_read_as_h11_reads_them(
    data: bytes, cuts: list[int]
) -> None:
    reads = split(data, cuts)
    mine, base = ours(reads), theirs(reads)
    assert not base.refused, "the strategy wrote a response h11 refuses"
    assert comparable(mine, data) == comparable(base, data)


@agree
@given(responses(), st.integers(0, 1 << 16), st.lists(st.integers(0, 1 << 16), max_size=4))
def test_a_response_cut_short_anywhere_is_refused_by_both_or_read_alike(
    data: bytes, end: int, cuts: list[int]
) -> None:
    data = data[: end % (len(data) + 1)]
    reads = split(data, cuts)
    assert comparable(ours(reads), data) == comparable(theirs(reads), data)


MALFORMED = {
    "not HTTP": b"SSH-2.0-OpenSSH\r\n\r\n",
    "a three-digit status of four": b"HTTP/1.1 2000 OK\r\ncontent-length: 0\r\n\r\n",
    "HTTP/2 in a status line": b"HTTP/2 200 OK\r\ncontent-length: 0\r\n\r\n",
    "a field with no colon": b"HTTP/1.1 200 OK\r\nnocolon\r\ncontent-length: 0\r\n\r\n",
    "white space before a colon": b"HTTP/1.1 200 OK\r\nx : a\r\ncontent-length: 0\r\n\r\n",
    "NUL in a value": b"HTTP/1.1 200 OK\r\nx: a\x00b\r\ncontent-length: 0\r\n\r\n",
    "a bare CR in a value": b"HTTP/1.1 200 OK\r\nx: a\rb\r\ncontent-length: 0\r\n\r\n",
    "two Content-Lengths": b"HTTP/1.1 200 OK\r\ncontent-length: 1\r\ncontent-length: 2\r\n\r\na",
    "a signed Content-Length": b"HTTP/1.1 200 OK\r\ncontent-length: +1\r\n\r\na",
    "a hex Content-Length": b"HTTP/1.1 200 OK\r\ncontent-length: 0x1\r\n\r\na",
    "a chunk size not hex": b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\nzz\r\n",
    "a chunk size with 0x": (
        b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n0x3\r\nabc\r\n0\r\n\r\n"
    ),
    "a chunk longer than its size": (
        b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n3\r\nabcd\r\n0\r\n\r\n"
    ),
    "a malformed trailer": (
        b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n0\r\nno colon\r\n\r\n"
    ),
    # The client sends no TE: chunked is the one transfer coding it takes (RFC 9112 §7.4).
    "a transfer coding besides chunked": (
        b"HTTP/1.1 200 OK\r\ntransfer-encoding: gzip, chunked\r\n\r\n0\r\n\r\n"
    ),
    "a transfer coding but chunked": b"HTTP/1.1 200 OK\r\ntransfer-encoding: gzip\r\n\r\nxy",
    "a Content-Length body cut short": b"HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\nab",
    "a head cut short": b"HTTP/1.1 200 OK\r\nx: a\r\n",
}


@pytest.mark.parametrize("data", MALFORMED.values(), ids=MALFORMED.keys())
@pytest.mark.parametrize("step", [1, 7, 1 << 20])
def test_both_refuse_the_same_malformed_responses(data: bytes, step: int) -> None:
    reads = [data[at : at + step] for at in range(0, len(data), step)]
    assert ours(reads).refused
    assert theirs(reads).refused


def test_where_the_two_differ_on_purpose() -> None:
    """Each case: what ours does, what h11 does, and why ours is right for a client of Cursor."""
    chunked = b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n"

    # obs-fold (a field line begun with white space): RFC 9112 §5.2 lets a client
    # unfold it, as h11 does; ours refuses it, as a server must — no service we
    # speak to folds, and a folded line is a known smuggling vector.
    folded = [b"HTTP/1.1 200 OK\r\nx: a\r\n  b\r\ncontent-length: 0\r\n\r\n"]
    assert ours(folded).refused
    assert theirs(folded).headers["x"] == "a b"

    # A content coding the client never asked for: h11 hands the coded bytes over
    # (decoding is its caller's); ours refuses, since its callers never inflate
    # and a small gzip can grow past every cap counted in wire bytes.
    coded = [b"HTTP/1.1 200 OK\r\ncontent-encoding: gzip\r\ncontent-length: 2\r\n\r\nab"]
    assert ours(coded).refused
    assert theirs(coded).body == b"ab"

    # More interim (1xx) heads than limits.MAX_INTERIM_HEADS: h11 reads any number;
    # ours stops, or a server could hold a call for ever a few bytes at a time.
    interims = b"HTTP/1.1 102 Processing\r\n\r\n" * (limits.MAX_INTERIM_HEADS + 1)
    many = [interims + b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n"]
    assert ours(many).refused
    assert theirs(many).status == 200

    # White space before a chunk extension's ';' (BWS, RFC 9112 §7.1.1): ours
    # reads it as the RFC's grammar allows; h11 refuses it.
    spaced = [chunked + b"3 ;a\r\nabc\r\n0\r\n\r\n"]
    assert ours(spaced).body == b"abc"
    assert theirs(spaced).refused

    # HTTP/1.0 with Connection: keep-alive: ours may keep the connection
    # (RFC 9112 §9.3); h11 never keeps an HTTP/1.0 one.
    old = [b"HTTP/1.0 200 OK\r\nconnection: keep-alive\r\ncontent-length: 1\r\n\r\na"]
    assert ours(old).keep_alive is True
    assert theirs(old).keep_alive is False

    # A trailer field sent twice: h11 keeps both; ours keeps the last (the
    # trailers it reads, grpc-status and grpc-message, come once).
    twice = [chunked + b"0\r\nx: 1\r\nx: 2\r\n\r\n"]
    assert ours(twice).trailers == {"x": "2"}
    assert theirs(twice).trailers == {"x": "1"} | {"x": "2"}
