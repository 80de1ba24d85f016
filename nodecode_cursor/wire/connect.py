"""Connect framing over bytes: frames, an incremental decoder, the end-of-stream trailer.

Pure code, no sockets: the transport feeds whatever chunks the network gave it
and gets back whole frames. A Connect streaming message is one flag byte, a
four-byte big-endian length and the payload. Flag 0x01 marks a gzip-compressed
payload, flag 0x02 the end of the stream, whose payload is JSON: ``{}`` on
success or ``{"error": {...}}``; a frame with any other flag bit is refused.
This module also classifies such an error (and a refused unary call's JSON
body) into the cell's error types; it leaves the HTTP exchange itself to
``sse.py``.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
import struct
import zlib
from collections.abc import Iterator
from typing import Any, NamedTuple

from google.protobuf.message import DecodeError

from .._proto import aiserver_pb2
from ..errors import (
    ModelNotFound,
    OutdatedClient,
    ProtocolError,
    ProviderError,
    ResourceExhausted,
    scrub,
)
from ..limits import ERROR_DETAIL_CHARS, MAX_FRAME_BYTES

__all__ = [
    "CONNECT_CODE_STATUS",
    "ERROR_DETAILS_STATUS",
    "FLAG_COMPRESSED",
    "FLAG_END_STREAM",
    "FRAME_HEADER",
    "KNOWN_FLAGS",
    "OUTDATED_CLIENT_TEXT",
    "RESOURCE_EXHAUSTED_TEXT",
    "Frame",
    "FrameDecoder",
    "Payload",
    "classify_connect_error",
    "encode_frame",
    "flagged_payload",
    "parse_end_stream",
    "parse_refusal",
    "read_unary_body",
]

FLAG_COMPRESSED = 0x01
FLAG_END_STREAM = 0x02
# Connect defines no other flag bit: a frame with one set is not Connect framing.
KNOWN_FLAGS = FLAG_COMPRESSED | FLAG_END_STREAM
FRAME_HEADER = struct.Struct(">BI")

# aiserver.v1.ErrorDetails.Error codes → HTTP-like status (docs/protocol.md §9).
ERROR_DETAILS_STATUS: dict[int, int] = {
    **dict.fromkeys((1, 2, 3, 11, 12, 18, 38, 42, 65), 401),
    **dict.fromkeys((4, 23, 46, 47, 48, 49, 54, 58, 64), 403),
    **dict.fromkeys((5, 6, 33, 39, 61), 404),
    **dict.fromkeys((7, 8, 9, 10, 14, 22, 28, 34, 35, 41, 44, 45, 50, 51), 429),
    **dict.fromkeys((20, 43), 413),
    21: 499,
    **dict.fromkeys((13, 25, 55, 56, 57, 59, 63), 503),
}

# The Connect protocol's own code → HTTP status table.
CONNECT_CODE_STATUS: dict[str, int] = {
    "canceled": 499,
    "unknown": 500,
    "invalid_argument": 400,
    "deadline_exceeded": 504,
    "not_found": 404,
    "already_exists": 409,
    "permission_denied": 403,
    "resource_exhausted": 429,
    "failed_precondition": 400,
    "aborted": 409,
    "out_of_range": 400,
    "unimplemented": 501,
    "internal": 500,
    "unavailable": 503,
    "data_loss": 500,
    "unauthenticated": 401,
}

_RETRYABLE_STATUSES = frozenset({429, 503, 504})
# The Connect codes a caller decides on, by the class they are raised as.
_CONNECT_CODE_CLASS: dict[str, type[ProviderError]] = {
    "not_found": ModelNotFound,
    "resource_exhausted": ResourceExhausted,
}
# The bare refusal, recognised in an error's text as oh-my-pi does (case-insensitive,
# any one character or none between the words); ErrorDetails are not searched.
RESOURCE_EXHAUSTED_TEXT = re.compile(r"resource.?exhausted", re.IGNORECASE)
# Cursor refusing a client version it no longer accepts, in its words: the ErrorDetails
# title "Update Required" (its code is a rate limit's, 28), a detail saying the version
# is no longer supported or to update to the latest version of Cursor, or a bare error
# "Update Required for <model>" (docs/protocol.md §9).
OUTDATED_CLIENT_TEXT = re.compile(
    r"update\s+required|version\b.{0,80}\bno\s+longer\s+supported"
    r"|update\s+to\s+the\s+latest\s+version\s+of\s+cursor",
    re.IGNORECASE | re.DOTALL,
)
# Messages that say nothing: the details then follow them on the line (oh-my-pi's
# list, connect-error-detail.ts, plus "request failed").
_GENERIC_MESSAGES = frozenset(
    {"", "error", "unknown", "unknown error", "internal", "internal error", "request failed"}
)


# A data frame's payload as ``FrameDecoder.read`` hands it over: a view into the read
# (bytes when the read is that one frame).
Payload = bytes | memoryview


class Frame(NamedTuple):
    """One decoded Connect frame: its flags and its (decompressed) payload.

    A NamedTuple, not a frozen dataclass: a long answer decodes one per delta, and
    a frozen dataclass's constructor costs several times a tuple's.
    """

    flags: int
    payload: bytes

    @property
    def end_stream(self) -> bool:
        """Return whether this frame is the end-of-stream trailer."""
        return bool(self.flags & FLAG_END_STREAM)


def encode_frame(payload: bytes, *, flags: int = 0) -> bytes:
    """Return ``payload`` as one Connect frame with the given flags."""
    if len(payload) > 0xFFFFFFFF:
        raise ValueError("a Connect frame holds at most 4 GiB")
    return FRAME_HEADER.pack(flags, len(payload)) + payload


class FrameDecoder:
    """Incremental decoder: feed chunks of any size, get whole frames back.

    A partial frame stays buffered for the next chunk. A declared length above
    ``max_frame`` is refused before any of it is buffered.
    """

    __slots__ = ("_buffer", "_max_frame", "_start")

    def __init__(self, *, max_frame: int = MAX_FRAME_BYTES) -> None:
        """Start with nothing buffered; refuse any frame declaring more than MAX_FRAME bytes."""
        self._buffer = bytearray()
        self._start = 0
        self._max_frame = max_frame

    @property
    def pending(self) -> int:
        """Return how many bytes of an unfinished frame are buffered."""
        return len(self._buffer) - self._start

    def read(self, chunk: bytes) -> tuple[list[Payload], bytes | None]:
        """Return (the data payloads CHUNK completes, in order; the end frame's payload or None).

        The transports' hot path: one call per network read, no object per frame.
        A payload is a view into the read itself (decompressed bytes for a
        compressed frame), not a copy, except that a read of exactly one data
        frame hands its payload as bytes (the one copy the parser would make of
        a view); a read that finishes a frame begun in an earlier one costs one
        copy of the two. Reading stops at the end frame:
        whatever follows it stays buffered (``pending``).
        """
        unpack = FRAME_HEADER.unpack_from
        limit = self._max_frame
        if not self._buffer and len(chunk) > 4:
            flags, length = unpack(chunk, 0)
            if not flags and len(chunk) == 5 + length and length <= limit:
                # The common read: one whole data frame. Its payload is sliced, not
                # viewed: upb copies a memoryview into bytes before it parses
                # (PyUpb_Message_MergeFromString), so a slice is that one copy
                # without the two view objects.
                return [chunk[5:]], None
        data = self._gather(chunk)
        if data is None:
            return [], None
        view = memoryview(data)
        size = len(data)
        payloads: list[Payload] = []
        at = 0
        end_payload: bytes | None = None
        while size - at >= 5:
            flags, length = unpack(data, at)
            if length > limit or flags & ~KNOWN_FLAGS:
                self._refuse(flags, length)
            end = at + 5 + length
            if end > size:
                break
            if flags:
                payload = flagged_payload(view[at + 5 : end], flags, limit)
                at = end
                if flags & FLAG_END_STREAM:
                    end_payload = payload
                    break
                payloads.append(payload)
                continue
            payloads.append(view[at + 5 : end])
            at = end
        self._keep(data, at)
        return payloads, end_payload

    def _gather(self, chunk: bytes) -> bytes | None:
        """Return the bytes to read frames from: CHUNK after the buffer (None: no whole frame yet).

        A frame begun in an earlier read is copied out with CHUNK once it is whole,
        not before: a long frame arriving in many reads is copied once.
        """
        buf = self._buffer
        if not buf:
            return chunk
        buf += chunk
        if len(buf) < 5:
            return None
        flags, length = FRAME_HEADER.unpack_from(buf, 0)
        if length > self._max_frame or flags & ~KNOWN_FLAGS:
            self._refuse(flags, length)
        if len(buf) < 5 + length:
            return None  # the frame goes on: no copy until it is whole
        data = bytes(buf)
        buf.clear()
        return data

    def _keep(self, data: bytes, at: int) -> None:
        """Buffer what DATA holds from AT on (an unfinished frame, or what follows the end)."""
        if at < len(data):
            self._buffer += memoryview(data)[at:]

    def _refuse(self, flags: int, length: int) -> None:
        """Raise the error for a frame header with unknown flag bits or a length past the cap."""
        if flags & ~KNOWN_FLAGS:
            raise ProtocolError(
                f"Connect frame has unknown flag bits 0x{flags:02x}; the stream is corrupt"
            )
        raise ProtocolError(
            f"Connect frame declares {length} bytes, above the "
            f"{self._max_frame}-byte limit; the stream is corrupt"
        )

    def feed(self, chunk: bytes) -> list[Frame]:
        """Return every frame completed by ``chunk`` (possibly none)."""
        return list(self.iter_feed(chunk))

    def iter_feed(self, chunk: bytes) -> Iterator[Frame]:
        """Yield every frame completed by ``chunk``."""
        buf = self._buffer
        buf += chunk
        start = self._start
        header = FRAME_HEADER.size
        try:
            while len(buf) - start >= header:
                flags, length = FRAME_HEADER.unpack_from(buf, start)
                if flags & ~KNOWN_FLAGS:
                    raise ProtocolError(
                        f"Connect frame has unknown flag bits 0x{flags:02x}; the stream is corrupt"
                    )
                if length > self._max_frame:
                    raise ProtocolError(
                        f"Connect frame declares {length} bytes, above the "
                        f"{self._max_frame}-byte limit; the stream is corrupt"
                    )
                end = start + header + length
                if len(buf) < end:
                    break
                payload = bytes(buf[start + header : end])
                start = end
                if flags & FLAG_COMPRESSED:
                    payload = _gunzip(payload, self._max_frame)
                yield Frame(flags, payload)
        finally:
            # Drop consumed bytes in one move, not per frame, to stay linear.
            if start:
                del buf[:start]
            self._start = 0


def flagged_payload(view: memoryview, flags: int, limit: int) -> bytes:
    """Return the payload of a frame with FLAGS set, copied out of VIEW (and decompressed).

    A flagged frame is rare (the end frame, a compressed one), so it is copied:
    the end frame outlives the read, and zlib wants bytes anyway.
    """
    payload = bytes(view)
    return _gunzip(payload, limit) if flags & FLAG_COMPRESSED else payload


def _gunzip(payload: bytes, limit: int) -> bytes:
    """Return the decompressed payload, refusing more than ``limit`` bytes of output.

    The frame length cap alone would let a small compressed frame expand to
    gigabytes, so the output is capped too.
    """
    out = bytearray()
    data = payload
    if not data:
        return b""
    try:
        while True:  # a gzip body may hold several members
            member = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
            out += member.decompress(data, limit + 1 - len(out))
            if len(out) > limit:
                raise ProtocolError(
                    f"a compressed Connect frame expands past the {limit}-byte limit"
                )
            if not member.eof:
                raise ProtocolError("a compressed Connect frame did not decompress: cut short")
            data = member.unused_data
            if not data:
                return bytes(out)
    except zlib.error as exc:
        raise ProtocolError(f"a compressed Connect frame did not decompress: {exc}") from None


def parse_end_stream(payload: bytes) -> ProviderError | None:
    """Return None for a successful end of stream, else the classified error."""
    try:
        trailer = json.loads(payload.decode("utf-8")) if payload.strip() else {}
    except (UnicodeDecodeError, ValueError, RecursionError):
        return ProviderError("Failed to parse Connect end stream", status=502)
    if not isinstance(trailer, dict):
        return ProviderError("Failed to parse Connect end stream", status=502)
    error = trailer.get("error")
    if error is None:
        return None
    if not isinstance(error, dict):
        return ProviderError("Failed to parse Connect end stream", status=502)
    return classify_connect_error(error)


def classify_connect_error(
    error: dict[str, Any], *, http_status: int | None = None
) -> ProviderError:
    """Return the cell's error for a Connect error object ``{code, message, details}``."""
    code = str(error.get("code") or "unknown")
    message = str(error.get("message") or "")
    details = error.get("details")
    entries = details if isinstance(details, list) else []
    generic = message.strip().lower() in _GENERIC_MESSAGES
    for entry in entries:
        found = _from_error_details(entry)
        if found is not None:
            if generic:
                # The ErrorDetails line already names the error; what else came
                # (plain debug text, an ErrorInfo) follows it.
                found = _followed_by(found, _summarise_details(entries, named=True))
            return found
    status = CONNECT_CODE_STATUS.get(code, http_status or 500)
    retryable = status in _RETRYABLE_STATUSES
    if any(_debug_retryable(entry) for entry in entries):
        status, retryable = 503, True
    said = f"Connect error {code}: {message}" if message else f"Connect error {code}"
    text = said
    if generic:
        summary = _summarise_details(entries)
        if summary:
            text = f"{text} ({summary})"
    if OUTDATED_CLIENT_TEXT.search(message):
        return OutdatedClient(text)
    kind = _CONNECT_CODE_CLASS.get(code, ProviderError)
    # Only the code and message decide the kind: the details after them are shown,
    # never read as a refusal (a detail saying "quota" is no usage limit).
    if kind is ProviderError and RESOURCE_EXHAUSTED_TEXT.search(said):
        # A bare refusal some paths word in the message rather than the code.
        kind, status, retryable = ResourceExhausted, 429, True
    return kind(text, status=status, retryable=retryable, code=code)


def parse_refusal(body: bytes) -> dict[str, Any] | None:
    """Return the Connect error object a refused call's body holds, or None when it holds none.

    The object is the body's JSON itself or its ``error`` member, and names a
    ``code`` or a ``message``; anything else (HTML, an empty body) is None.
    """
    try:
        parsed = json.loads(body.decode("utf-8")) if body.strip() else None
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None
    if isinstance(parsed, dict) and isinstance(parsed.get("error"), dict):
        parsed = parsed["error"]
    if isinstance(parsed, dict) and ("code" in parsed or "message" in parsed):
        return parsed
    return None


def _from_error_details(entry: object) -> ProviderError | None:
    """Return the error an ``aiserver.v1.ErrorDetails`` detail entry names, or None."""
    if not isinstance(entry, dict):
        return None
    kind = str(entry.get("type") or "")
    if not kind.endswith("ErrorDetails"):
        return None
    value = entry.get("value")
    if not isinstance(value, str):
        return None

    try:
        raw = base64.b64decode(value + "=" * (-len(value) % 4))
        details = aiserver_pb2.ErrorDetails.FromString(raw)
    except (binascii.Error, ValueError, DecodeError, RecursionError):
        return None
    code = int(details.error)
    try:
        name = aiserver_pb2.ErrorDetails.Error.Name(code).removeprefix("ERROR_")
    except ValueError:
        # A code newer than our table: the same shape as a known name (no
        # ERROR_ prefix), with the number kept so a report can name it.
        name = f"UNKNOWN_{code}"
    title = details.details.title
    detail = details.details.detail
    if code == 0 and not title and not detail:
        return None  # names nothing (an empty value): the Connect code and message stand
    retryable = bool(details.details.is_retryable)
    status = 503 if retryable else ERROR_DETAILS_STATUS.get(code, 400)
    retryable = retryable or status in _RETRYABLE_STATUSES
    # Code 0 (UNSPECIFIED) names nothing; the title and detail say it all.
    head = "Cursor" if code == 0 and (title or detail) else f"Cursor {name}"
    parts = [head] + [p for p in (title, detail) if p]
    if OUTDATED_CLIENT_TEXT.search(title) or OUTDATED_CLIENT_TEXT.search(detail):
        # Whatever the code (a rate limit's, 28): waiting never mends it.
        return OutdatedClient(": ".join(parts))
    raised = ModelNotFound if name == "BAD_MODEL_NAME" else ProviderError
    return raised(": ".join(parts), status=status, retryable=retryable, code=name)


def _debug_retryable(entry: object) -> bool:
    """Return whether a detail entry's debug form says ``details.isRetryable: true``."""
    if not isinstance(entry, dict):
        return False
    debug = entry.get("debug")
    if not isinstance(debug, dict):
        return False
    inner = debug.get("details")
    return isinstance(inner, dict) and inner.get("isRetryable") is True


def _followed_by(error: ProviderError, summary: str) -> ProviderError:
    """Return ERROR with SUMMARY in parentheses after its text (ERROR itself when there is none)."""
    if not summary:
        return error
    if isinstance(error, OutdatedClient):
        return OutdatedClient(f"{error.said} ({summary})")
    return type(error)(
        f"{error} ({summary})", status=error.status, retryable=error.retryable, code=error.code
    )


def _summarise_details(entries: list[Any], *, named: bool = False) -> str:
    """Return what the detail entries say, on one line of at most ERROR_DETAIL_CHARS, or "".

    Per entry: a debug object's error name and title/detail (left out when NAMED:
    the decoded ErrorDetails already said them), a debug that is plain text, and a
    ``google.rpc.ErrorInfo``'s reason and domain. Joined by "; ", scrubbed of
    anything shaped like a credential before it is cut, so a cut never leaves half
    a token behind.
    """
    pieces: list[str] = []
    for entry in entries:
        if not isinstance(entry, dict):
            continue
        debug = entry.get("debug")
        if isinstance(debug, str):
            pieces.append(debug)
        elif isinstance(debug, dict) and not named:
            inner = debug.get("details")
            words = [str(debug["error"])] if debug.get("error") else []
            if isinstance(inner, dict):
                words += [str(inner[key]) for key in ("title", "detail") if inner.get(key)]
            pieces.append(": ".join(words))
        value = entry.get("value")
        kind = str(entry.get("type") or "")
        if kind and not kind.endswith("ErrorDetails") and isinstance(value, str) and value:
            pieces.append(_standard_detail(kind, value))
    said: list[str] = []
    for piece in pieces:
        line = " ".join(piece.split())
        if line and line not in said:
            said.append(line)
    text = scrub("; ".join(said))
    if len(text) > ERROR_DETAIL_CHARS:
        text = text[: ERROR_DETAIL_CHARS - 1].rstrip() + "…"
    return text


def _standard_detail(kind: str, value: str) -> str:
    """Return what a detail entry of a type not Cursor's says, on one line.

    A ``google.rpc.ErrorInfo`` whose value is base64 protobuf says its type, then its
    reason and domain (the type tells a reader the reason is Google's error shape,
    not Cursor's words); any other value (text, or a message we do not read) is
    shown after its type, as sent (scrubbed and bounded with the rest of the summary).
    """
    words = _error_info_words(value) if kind.endswith("ErrorInfo") else ""
    return f"{kind}: {words or value}"


def _error_info_words(value: str) -> str:
    """Return a base64 ``google.rpc.ErrorInfo``'s reason and domain as words ("" if it has none).

    ErrorInfo{1 reason, 2 domain, 3 metadata map} is read by hand: only the two
    strings are wanted, and our schema need not carry Google's. A value that is not
    strict base64 (plain text) is no ErrorInfo: "".
    """
    try:
        raw = base64.b64decode(value + "=" * (-len(value) % 4), validate=True)
    except (binascii.Error, ValueError):
        return ""
    strings = _string_fields(raw)
    reason, domain = strings.get(1, ""), strings.get(2, "")
    if reason and domain:
        return f"{reason} from {domain}"
    return reason or domain


def _string_fields(raw: bytes) -> dict[int, str]:
    """Return the length-delimited fields of protobuf bytes RAW as text, by field number.

    Other wire types are stepped over; bytes that stop making sense end the read
    with what was read so far. The last occurrence of a field wins, as in protobuf.
    """
    fields: dict[int, str] = {}
    position = 0
    while position < len(raw):
        tag, position = _varint(raw, position)
        if tag is None:
            break
        number, wire_type = tag >> 3, tag & 7
        if wire_type == 0:
            _, position = _varint(raw, position)
        elif wire_type == 1:
            position += 8
        elif wire_type == 5:
            position += 4
        elif wire_type == 2:
            length, position = _varint(raw, position)
            if length is None or position + length > len(raw):
                break
            fields[number] = raw[position : position + length].decode("utf-8", "replace")
            position += length
        else:
            break
    return fields


def _varint(raw: bytes, position: int) -> tuple[int | None, int]:
    """Return (the varint at POSITION of RAW, None when cut or too long; the next position)."""
    value = 0
    for shift in range(0, 70, 7):
        if position >= len(raw):
            return None, position
        byte = raw[position]
        position += 1
        value |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return value, position
    return None, position


def read_unary_body(body: bytes) -> bytes:
    """Return the message bytes of a unary answer, bare or wrapped in one Connect frame.

    Some servers frame a unary answer. A body is read as framed only when it
    starts like a frame and the declared length fits inside it; a trailer that
    follows is stepped over, and an error trailer is raised.
    """
    if len(body) >= FRAME_HEADER.size:
        flags, length = FRAME_HEADER.unpack_from(body, 0)
        end = FRAME_HEADER.size + length
        if flags in (0, FLAG_COMPRESSED) and end <= len(body):
            rest = body[end:]
            trailer_ok = not rest or (
                len(rest) >= FRAME_HEADER.size and rest[0] & FLAG_END_STREAM != 0
            )
            if trailer_ok:
                decoder = FrameDecoder()
                frames = decoder.feed(body)
                if frames and not decoder.pending:
                    for frame in frames[1:]:
                        if frame.end_stream:
                            error = parse_end_stream(frame.payload)
                            if error is not None:
                                raise error
                    return frames[0].payload
    return body
