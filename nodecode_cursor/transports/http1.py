"""HTTP/1.1 for the run's own client, sans-I/O: a request's bytes, a response read from bytes.

``request_bytes`` writes one request (a body of known length); ``ResponseReader``
reads one response from whatever reads the network gave it (``feed``) and the
peer's close (``feed_eof``), handing back the body's bytes a read at a time —
the whole read's body at once, however many chunks it held — and the trailer
section of a chunked body (``trailers``), where a service ends a stream gRPC's
way (``grpc-status``, docs/protocol.md §3).

Why not h11, which the cell ships anyway (h11 keeps trailers too, on its
``EndOfMessage``; it is httpcore, above it, that drops them): speed per chunk. A
streamed answer is one small chunk per text delta, and h11 hands each chunk back
as an event of its own; ``benchmarks/http1_reader.py`` reads the same 20 000
chunks of 40-90 bytes with both, and h11 takes 7.6x this reader's CPU per chunk
with one chunk per read and 9.0x with 16 KiB reads (11.5 against 1.5 µs, and 8.1
against 0.9 µs, on the project's 2-core machine). ``tests/cell/test_http1_h11.py``
holds the two to the same answers on random responses.

It follows RFC 9112: a status line, header fields, then a body framed by
``Transfer-Encoding: chunked``, ``Content-Length`` or the connection's close;
1xx interim answers are skipped, up to ``limits.MAX_INTERIM_HEADS`` of them; a
response to HEAD, a 204 or a 304 has none.
Everything it reads is untrusted: the head, a chunk-size line and the trailers
are bounded, a malformed one is ``BadResponse`` (whose words never quote the
bytes), and no header may carry CR, LF or NUL into a request. The client never
asks for a content coding (no ``Accept-Encoding``) nor a transfer coding but
chunked (no ``TE``), so a body that comes with one is refused rather than
inflated: a few KiB of gzip could grow to gigabytes behind every cap counted in
wire bytes. (Connect's own per-frame compression is
a different layer, bounded frame by frame by ``wire/connect.py``.) The sockets, the
connection pool and the timeouts are ``h1conn.py``'s.
"""

from __future__ import annotations

import re

from .. import limits

__all__ = ["MAX_HEAD", "BadResponse", "ResponseReader", "request_bytes"]

# A response head (or a trailer section) longer than this is not one we read.
MAX_HEAD = 64 * 1024
# A chunk-size line (size and extensions) longer than this is refused.
_MAX_SIZE_LINE = 1024
_MAX_FIELDS = 256

_TOKEN = re.compile(rb"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")
_STATUS_LINE = re.compile(rb"HTTP/1\.([01]) ([0-9]{3})(?: ([^\r\n]*))?")
_HEX = re.compile(rb"[0-9A-Fa-f]{1,15}")
_HEX_DIGITS = b"0123456789abcdefABCDEF"
_UNSAFE = re.compile(r"[\r\n\x00]")

# The reader's states.
_HEAD, _LENGTH, _CHUNK_SIZE, _CHUNK_DATA, _CHUNK_CRLF, _TRAILERS, _UNTIL_CLOSE, _DONE = range(8)


class BadResponse(Exception):
    """The bytes are not an HTTP/1.1 response we can read (the reason is the message)."""


def request_bytes(
    method: str, target: str, host: str, headers: dict[str, str], body: bytes
) -> bytes:
    """Return the bytes of one request: its line, Host, HEADERS, Content-Length, then BODY.

    A GET without a body sends no Content-Length (RFC 9110 §8.6: its method
    anticipates no content). ValueError when a name or value would carry CR, LF
    or NUL (its text is not quoted: a header may hold the bearer token).
    """
    lines = [f"{method} {target} HTTP/1.1", f"host: {host}"]
    for name, value in headers.items():
        if _UNSAFE.search(name) or _UNSAFE.search(value):
            raise ValueError("a request header holds a line break")
        lines.append(f"{name}: {value}")
    if body or method != "GET":
        lines.append(f"content-length: {len(body)}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body


def _fields(block: bytes) -> list[tuple[str, str]]:
    """Return the (lower-cased name, value) pairs of header lines BLOCK; BadResponse if bad."""
    found: list[tuple[str, str]] = []
    if not block:
        return found
    lines = block.split(b"\r\n")
    if len(lines) > _MAX_FIELDS:
        raise BadResponse("the response has too many header fields")
    for line in lines:
        name, colon, value = line.partition(b":")
        if not colon or not _TOKEN.fullmatch(name):
            # A line with no name (or obs-fold, a line begun with white space) is refused.
            raise BadResponse("the response has a malformed header field")
        text = value.strip(b" \t")
        if b"\n" in text or b"\r" in text or b"\x00" in text:
            raise BadResponse("the response has a malformed header field")
        found.append((name.decode("ascii").lower(), text.decode("latin-1")))
    return found


class ResponseReader:
    """Reads one HTTP/1.1 response: ``feed`` it reads, get body bytes; ``feed_eof`` at the close.

    After the head: ``status``, ``headers`` (lower-cased names), ``head_done``.
    At the end: ``done``, ``trailers`` (a chunked body's trailer fields) and
    ``keep_alive`` (whether the connection may carry another request). Bytes
    past the end of the message are kept in ``extra`` (a server that sends them
    has broken the exchange: the connection is not reused).
    """

    __slots__ = (
        "_buffer",
        "_interim",
        "_left",
        "_no_body",
        "_state",
        "extra",
        "headers",
        "keep_alive",
        "status",
        "trailers",
    )

    def __init__(self, *, method: str = "POST") -> None:
        """Expect the response to a METHOD request (HEAD's has no body)."""
        self._buffer = b""
        self._state = _HEAD
        self._left = 0
        self._interim = 0  # 1xx heads skipped so far
        self._no_body = method == "HEAD"
        self.status = 0
        self.headers: dict[str, str] = {}
        self.trailers: dict[str, str] = {}
        self.keep_alive = True
        self.extra = b""

    @property
    def head_done(self) -> bool:
        """Return whether the final (non-1xx) head has been read."""
        return self._state != _HEAD

    @property
    def done(self) -> bool:
        """Return whether the whole message has been read."""
        return self._state == _DONE

    def feed(self, data: bytes) -> bytes:
        """Return the body bytes DATA completes (b"" when none); BadResponse when malformed."""
        if self._buffer:
            data = self._buffer + data
            self._buffer = b""
        if self._state == _HEAD:
            data = self._read_head(data)
            if self._state == _HEAD:
                return b""
        pieces: list[bytes] = []
        at = self._body(data, pieces)
        rest = data[at:]
        if self._state == _DONE:
            if rest:
                self.extra += rest
                self.keep_alive = False
        else:
            self._buffer = rest
        return b"".join(pieces) if len(pieces) != 1 else pieces[0]

    def feed_eof(self) -> bytes:
        """Take the peer's close: return the body's last bytes; BadResponse if it was cut short."""
        self.keep_alive = False
        if self._state == _UNTIL_CLOSE:
            self._state = _DONE
            return b""
        if self._state != _DONE:
            where = "before its head ended" if self._state == _HEAD else "mid-body"
            raise BadResponse(f"the service closed the connection {where}")
        return b""

    def _read_head(self, data: bytes) -> bytes:
        """Read the head from DATA (skipping 1xx ones); return what follows it."""
        while True:
            end = data.find(b"\r\n\r\n")
            if end < 0:
                if len(data) > MAX_HEAD:
                    raise BadResponse("the response head is oversized")
                self._buffer = data
                return b""
            if end > MAX_HEAD:
                raise BadResponse("the response head is oversized")
            line, _, block = data[:end].partition(b"\r\n")
            data = data[end + 4 :]
            matched = _STATUS_LINE.fullmatch(line)
            if matched is None:
                raise BadResponse("the answer is not an HTTP/1.1 response")
            status = int(matched.group(2))
            fields = _fields(block)
            if 100 <= status < 200:
                if status == 101:
                    raise BadResponse("the service switched protocols unasked")
                self._interim += 1
                if self._interim > limits.MAX_INTERIM_HEADS:
                    # Each is a few bytes: without a bound they hold a call for ever.
                    raise BadResponse(
                        f"the service sent more than {limits.MAX_INTERIM_HEADS}"
                        " interim (1xx) answers"
                    )
                continue  # an interim answer: the real one follows
            self._start(status, matched.group(1) == b"0", fields)
            return data

    def _start(self, status: int, http10: bool, fields: list[tuple[str, str]]) -> None:
        """Take the final head: note it and pick how the body is framed."""
        self.status = status
        headers: dict[str, str] = {}
        lengths: set[str] = set()
        for name, value in fields:
            if name == "content-length":
                lengths.update(part.strip() for part in value.split(","))
            elif name in headers:
                headers[name] += ", " + value
            else:
                headers[name] = value
        self.headers = headers
        tokens = {t.strip().lower() for t in headers.get("connection", "").split(",")}
        self.keep_alive = "keep-alive" in tokens if http10 else "close" not in tokens
        coding = headers.get("content-encoding", "identity").strip().lower()
        if coding not in ("identity", ""):
            raise BadResponse(
                "the response body has a content coding (Content-Encoding) this client"
                " never asked for"
            )
        if self._no_body or status in (204, 304):
            self._state = _DONE
            return
        transfer = headers.get("transfer-encoding")
        if transfer is not None:
            codings = [t.strip().lower() for t in transfer.split(",")]
            if codings == ["chunked"]:
                self._state = _CHUNK_SIZE
                return
            if codings != ["identity"]:
                # The client sends no TE, so chunked is the only coding it accepts
                # (RFC 9112 §7.4); another would hand coded bytes on as frames.
                raise BadResponse(
                    "the response body has a transfer coding this client never asked for"
                )
        if lengths:
            length = next(iter(lengths))
            # ASCII digits only: str.isdigit() takes "²", which int() then refuses.
            if len(lengths) != 1 or not (length.isascii() and length.isdigit()):
                raise BadResponse("the response has a malformed Content-Length")
            self._left = int(length)
            self._state = _LENGTH if self._left else _DONE
            return
        self._state = _UNTIL_CLOSE
        self.keep_alive = False

    def _body(self, data: bytes, pieces: list[bytes]) -> int:
        """Read body bytes of DATA into PIECES; return where reading stopped in DATA."""
        at = 0
        size = len(data)
        find = data.find
        while at < size:
            state = self._state
            if state == _CHUNK_SIZE:
                # The stream's common case: whole chunks back to back, a bare hex size each.
                end = find(b"\r\n", at, at + 18)
                if end > at:
                    digits = data[at:end]
                    if not digits.strip(_HEX_DIGITS):  # hex digits only (no 0x, sign, _)
                        length = int(digits, 16)
                        start = end + 2
                        stop = start + length
                        if length and stop + 2 <= size and data[stop : stop + 2] == b"\r\n":
                            pieces.append(data[start:stop])
                            at = stop + 2
                            continue
                # Anything else (a size with extensions, a chunk split across reads,
                # the last chunk) goes the long way.
            if state == _CHUNK_DATA:
                take = min(self._left, size - at)
                pieces.append(data[at : at + take])
                at += take
                self._left -= take
                if not self._left:
                    self._state = _CHUNK_CRLF
            elif state == _CHUNK_CRLF:
                if size - at < 2:
                    return at
                if data[at : at + 2] != b"\r\n":
                    raise BadResponse("a chunk of the response body runs past its size")
                at += 2
                self._state = _CHUNK_SIZE
            elif state == _CHUNK_SIZE:
                end = data.find(b"\r\n", at, at + _MAX_SIZE_LINE + 2)
                if end < 0:
                    if size - at > _MAX_SIZE_LINE:
                        raise BadResponse("a chunk-size line of the response is oversized")
                    return at
                digits = data[at:end].split(b";", 1)[0].strip(b" \t")
                if not _HEX.fullmatch(digits):
                    raise BadResponse("a chunk-size line of the response is malformed")
                at = end + 2
                self._left = int(digits, 16)
                self._state = _CHUNK_DATA if self._left else _TRAILERS
            elif state == _TRAILERS:
                if data.startswith(b"\r\n", at):
                    self._state = _DONE
                    return at + 2
                end = data.find(b"\r\n\r\n", at)
                if end < 0:
                    if size - at > MAX_HEAD:
                        raise BadResponse("the response's trailer section is oversized")
                    return at
                if end - at > MAX_HEAD:
                    raise BadResponse("the response's trailer section is oversized")
                self.trailers = dict(_fields(data[at:end]))
                self._state = _DONE
                return end + 4
            elif state == _LENGTH:
                take = min(self._left, size - at)
                pieces.append(data[at : at + take])
                at += take
                self._left -= take
                if not self._left:
                    self._state = _DONE
            elif state == _UNTIL_CLOSE:
                pieces.append(data[at:])
                return size
            else:  # _DONE
                return at
        return at
