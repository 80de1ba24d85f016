"""Connect framing, the end-of-stream trailer and error classification, against bytes by hand.

Every expected byte string below is written out from the Connect wire format
(one flag byte, a four-byte big-endian length, the payload) and from protobuf
field numbers (a tag is ``field << 3 | wire_type``; wire type 0 = varint,
2 = length-delimited), never produced by the code under test.
"""

from __future__ import annotations

import base64
import gzip
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nodecode_cursor.errors import ProtocolError, ProviderError, ResourceExhausted
from nodecode_cursor.limits import MAX_FRAME_BYTES
from nodecode_cursor.wire.connect import (
    CONNECT_CODE_STATUS,
    FLAG_COMPRESSED,
    FLAG_END_STREAM,
    Frame,
    FrameDecoder,
    classify_connect_error,
    encode_frame,
    parse_end_stream,
    read_unary_body,
)

# -- hand-built protobuf pieces ---------------------------------------------------


def _len_field(field: int, payload: bytes) -> bytes:
    """Return a length-delimited field (wire type 2); payloads here stay under 128 bytes."""
    assert len(payload) < 0x80, "keep hand-built test payloads to a one-byte length"
    return bytes([field << 3 | 2, len(payload)]) + payload


def _error_details(code: int, title: str = "", detail: str = "", *, retryable: bool = False) -> str:
    """Return a base64 aiserver.v1.ErrorDetails written byte by byte.

    ErrorDetails: 1 error (enum varint), 2 details (CustomErrorDetails:
    1 title, 2 detail, 4 is_retryable bool).
    """
    assert 0 < code < 0x80
    inner = b""
    if title:
        inner += _len_field(1, title.encode())
    if detail:
        inner += _len_field(2, detail.encode())
    if retryable:
        inner += bytes([0x20, 0x01])  # field 4, varint, true
    raw = bytes([0x08, code]) + (_len_field(2, inner) if inner else b"")
    return base64.b64encode(raw).decode()


def _trailer(error: dict[str, object]) -> bytes:
    return json.dumps({"error": error}).encode()


def _details_trailer(code: int, title: str = "", detail: str = "", **kw: bool) -> bytes:
    value = _error_details(code, title, detail, **kw)
    return _trailer(
        {
            "code": "unknown",
            "message": "ignored when ErrorDetails is present",
            "details": [{"type": "aiserver.v1.ErrorDetails", "value": value}],
        }
    )


# -- encode_frame -----------------------------------------------------------------


def test_encode_frame_writes_flag_and_big_endian_length() -> None:
    assert encode_frame(b"hi") == b"\x00\x00\x00\x00\x02hi"
    assert encode_frame(b"", flags=0x02) == b"\x02\x00\x00\x00\x00"
    payload = b"x" * 0x0102
    assert encode_frame(payload)[:5] == b"\x00\x00\x00\x01\x02"
    assert encode_frame(b"{}", flags=FLAG_END_STREAM) == b"\x02\x00\x00\x00\x02{}"


def test_flag_constants_are_the_wire_values() -> None:
    assert FLAG_COMPRESSED == 0x01
    assert FLAG_END_STREAM == 0x02


# -- FrameDecoder -----------------------------------------------------------------

# Three frames by hand: a message 0a 01 41 (field 1 "A"), an empty message, and a {} trailer.
STREAM = b"\x00\x00\x00\x00\x03\x0a\x01\x41" + b"\x00\x00\x00\x00\x00" + b"\x02\x00\x00\x00\x02{}"
EXPECTED = [
    Frame(0, b"\x0a\x01\x41"),
    Frame(0, b""),
    Frame(2, b"{}"),
]


def test_decoder_reads_whole_stream_in_one_chunk() -> None:
    decoder = FrameDecoder()
    frames = decoder.feed(STREAM)
    assert frames == EXPECTED
    assert [f.end_stream for f in frames] == [False, False, True]
    assert decoder.pending == 0


@pytest.mark.parametrize("cut", range(1, len(STREAM)))
def test_decoder_split_at_every_byte_boundary(cut: int) -> None:
    decoder = FrameDecoder()
    frames = decoder.feed(STREAM[:cut]) + decoder.feed(STREAM[cut:])
    assert frames == EXPECTED
    assert decoder.pending == 0


def test_decoder_one_byte_at_a_time() -> None:
    decoder = FrameDecoder()
    frames: list[Frame] = []
    for i in range(len(STREAM)):
        frames += decoder.feed(STREAM[i : i + 1])
    assert frames == EXPECTED


def test_cut_short_frame_waits() -> None:
    decoder = FrameDecoder()
    # declares 4 bytes, gives 2
    assert decoder.feed(b"\x00\x00\x00\x00\x04ab") == []
    assert decoder.pending == 7
    # only part of a header
    assert decoder.feed(b"") == []
    assert decoder.pending == 7
    assert decoder.feed(b"cd\x00\x00") == [Frame(0, b"abcd")]
    assert decoder.pending == 2


def test_partial_header_waits() -> None:
    decoder = FrameDecoder()
    assert decoder.feed(b"\x00\x00\x00") == []
    assert decoder.pending == 3


def test_gzip_frame_decodes() -> None:
    body = b"\x0a\x05hello"
    packed = gzip.compress(body)
    raw = bytes([0x01]) + len(packed).to_bytes(4, "big") + packed
    frames = FrameDecoder().feed(raw)
    assert frames == [Frame(0x01, body)]
    assert not frames[0].end_stream


def test_gzip_trailer_decodes_and_is_end_stream() -> None:
    packed = gzip.compress(b"{}")
    raw = bytes([0x03]) + len(packed).to_bytes(4, "big") + packed
    (frame,) = FrameDecoder().feed(raw)
    assert frame.end_stream
    assert frame.payload == b"{}"


def test_corrupt_gzip_is_protocol_error() -> None:
    raw = b"\x01\x00\x00\x00\x04nope"
    with pytest.raises(ProtocolError, match="did not decompress"):
        FrameDecoder().feed(raw)


def test_oversize_length_refused_before_buffering() -> None:
    assert MAX_FRAME_BYTES == 64 * 1024 * 1024
    too_big = (MAX_FRAME_BYTES + 1).to_bytes(4, "big")
    decoder = FrameDecoder()
    # Only the header arrives: the refusal must not wait for 64 MiB of payload.
    with pytest.raises(ProtocolError, match="limit") as info:
        decoder.feed(b"\x00" + too_big)
    assert info.value.status == 502
    assert "\n" not in str(info.value)


def test_length_at_the_cap_waits() -> None:
    decoder = FrameDecoder()
    assert decoder.feed(b"\x00" + MAX_FRAME_BYTES.to_bytes(4, "big")) == []
    assert decoder.pending == 5


def test_max_frame_is_configurable() -> None:
    decoder = FrameDecoder(max_frame=3)
    assert decoder.feed(b"\x00\x00\x00\x00\x03abc") == [Frame(0, b"abc")]
    with pytest.raises(ProtocolError):
        decoder.feed(b"\x00\x00\x00\x00\x04")


def test_max_length_field_refused() -> None:
    with pytest.raises(ProtocolError):
        FrameDecoder().feed(b"\x00\xff\xff\xff\xff")


frames_strategy = st.lists(
    st.tuples(st.sampled_from([0x00, 0x02]), st.binary(max_size=300)), max_size=8
)


@settings(max_examples=150, deadline=None)
@given(frames=frames_strategy, data=st.data())
def test_random_chunkings_decode_identically(
    frames: list[tuple[int, bytes]], data: st.DataObject
) -> None:
    wire = b"".join(bytes([f]) + len(p).to_bytes(4, "big") + p for f, p in frames)
    cuts = sorted(data.draw(st.lists(st.integers(0, len(wire)), max_size=20)))
    decoder = FrameDecoder()
    got: list[Frame] = []
    prev = 0
    for cut in [*cuts, len(wire)]:
        got += decoder.feed(wire[prev:cut])
        prev = cut
    assert got == [Frame(f, p) for f, p in frames]
    assert decoder.pending == 0


@settings(max_examples=100, deadline=None)
@given(payload=st.binary(max_size=2000), flags=st.sampled_from([0, 2]))
def test_encode_then_decode_round_trips(payload: bytes, flags: int) -> None:
    assert FrameDecoder().feed(encode_frame(payload, flags=flags)) == [Frame(flags, payload)]


# -- end-of-stream trailer --------------------------------------------------------


@pytest.mark.parametrize("payload", [b"{}", b"", b"  ", b'{"metadata":{"x":["y"]}}'])
def test_successful_trailer_is_none(payload: bytes) -> None:
    assert parse_end_stream(payload) is None


@pytest.mark.parametrize("payload", [b"{not json", b"[]", b"\xff\xfe", b'{"error":"boom"}', b"42"])
def test_unparsable_trailer(payload: bytes) -> None:
    error = parse_end_stream(payload)
    assert isinstance(error, ProviderError)
    assert str(error) == "Failed to parse Connect end stream"
    assert error.status == 502


# One ErrorDetails code per status class; PROTOCOL.md §9.
@pytest.mark.parametrize(
    ("code", "name", "status", "retryable"),
    [
        (1, "BAD_API_KEY", 401, False),
        (12, "AUTH_TOKEN_EXPIRED", 401, False),
        (4, "NOT_HIGH_ENOUGH_PERMISSIONS", 403, False),
        (54, "SUSPICIOUS_USAGE_BLOCKED", 403, False),
        (5, "BAD_MODEL_NAME", 404, False),
        (61, "MODEL_NO_LONGER_SUPPORTED", 404, False),
        (20, "MAX_TOKENS", 413, False),
        (43, "CONVERSATION_TOO_LONG", 413, False),
        (41, "RESOURCE_EXHAUSTED", 429, True),
        (8, "PRO_USER_RATE_LIMIT_EXCEEDED", 429, True),
        (21, "USER_ABORTED_REQUEST", 499, False),
        (13, "OPENAI", 503, True),
        (59, "INTERNAL", 503, True),
        (36, "BAD_REQUEST", 400, False),
        (29, "CUSTOM_MESSAGE", 400, False),
    ],
)
def test_error_details_classification(code: int, name: str, status: int, retryable: bool) -> None:
    error = parse_end_stream(_details_trailer(code, "Title here", "More detail"))
    assert isinstance(error, ProviderError)
    assert error.status == status
    assert error.retryable is retryable
    assert str(error) == f"Cursor {name}: Title here: More detail"


@pytest.mark.parametrize(
    ("codes", "status"),
    [
        ((1, 2, 3, 11, 12, 18, 38, 42, 65), 401),
        ((4, 23, 46, 47, 48, 49, 54, 58, 64), 403),
        ((5, 6, 33, 39, 61), 404),
        ((7, 8, 9, 10, 14, 22, 28, 34, 35, 41, 44, 45, 50, 51), 429),
        ((20, 43), 413),
        ((21,), 499),
        ((13, 25, 55, 56, 57, 59, 63), 503),
        ((29, 30, 31, 36, 37, 40, 52, 53, 60, 62), 400),
    ],
)
def test_error_details_whole_table(codes: tuple[int, ...], status: int) -> None:
    for code in codes:
        error = parse_end_stream(_details_trailer(code))
        assert error is not None
        assert error.status == status, code


def test_error_details_is_retryable_flag_makes_503() -> None:
    error = parse_end_stream(_details_trailer(36, "Busy", "try again", retryable=True))
    assert error is not None
    assert error.status == 503
    assert error.retryable is True
    assert str(error) == "Cursor BAD_REQUEST: Busy: try again"


def test_unknown_error_details_code_reads_like_a_known_one() -> None:
    # A code past the table: no ERROR_ prefix (as known names drop it), the
    # number kept, and the status of the else-branch (400).
    error = parse_end_stream(_details_trailer(99, "New thing", "from a newer server"))
    assert error is not None
    assert str(error) == "Cursor UNKNOWN_99: New thing: from a newer server"
    assert "ERROR_" not in str(error)
    assert error.status == 400
    assert error.retryable is False


def test_error_details_without_title_or_detail() -> None:
    error = parse_end_stream(_details_trailer(5))
    assert error is not None
    assert str(error) == "Cursor BAD_MODEL_NAME"
    assert error.status == 404


def test_error_details_title_only() -> None:
    error = parse_end_stream(_details_trailer(1, "Bad key"))
    assert error is not None
    assert str(error) == "Cursor BAD_API_KEY: Bad key"


def test_error_details_value_without_padding() -> None:
    value = _error_details(21, "Stopped").rstrip("=")
    error = classify_connect_error(
        {"code": "canceled", "details": [{"type": "aiserver.v1.ErrorDetails", "value": value}]}
    )
    assert error.status == 499
    assert str(error) == "Cursor USER_ABORTED_REQUEST: Stopped"


def test_broken_error_details_falls_back_to_connect_code() -> None:
    error = classify_connect_error(
        {
            "code": "permission_denied",
            "message": "nope",
            "details": [{"type": "aiserver.v1.ErrorDetails", "value": "!!!not base64"}],
        }
    )
    assert error.status == 403
    assert str(error) == "Connect error permission_denied: nope"


def test_other_detail_types_are_ignored() -> None:
    value = _error_details(1, "x")
    error = classify_connect_error(
        {
            "code": "not_found",
            "message": "gone",
            "details": [{"type": "google.rpc.RetryInfo", "value": value}],
        }
    )
    assert error.status == 404
    assert str(error) == "Connect error not_found: gone"


@pytest.mark.parametrize(("code", "status"), sorted(CONNECT_CODE_STATUS.items()))
def test_connect_code_table(code: str, status: int) -> None:
    error = parse_end_stream(_trailer({"code": code, "message": "the service says so"}))
    assert error is not None
    assert error.status == status
    assert error.retryable is (status in {429, 503, 504})
    assert str(error) == f"Connect error {code}: the service says so"


def test_connect_code_table_is_complete() -> None:
    assert CONNECT_CODE_STATUS == {
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


def test_unknown_connect_code_uses_http_status() -> None:
    error = classify_connect_error({"code": "weird", "message": "m"}, http_status=418)
    assert error.status == 418
    assert str(error) == "Connect error weird: m"


def test_missing_code_is_unknown() -> None:
    error = classify_connect_error({})
    assert error.status == 500
    assert str(error) == "Connect error unknown"


def test_retryable_debug_form_makes_503() -> None:
    trailer = _trailer(
        {
            "code": "internal",
            "message": "upstream hiccup",
            "details": [{"debug": {"details": {"isRetryable": True}}}],
        }
    )
    error = parse_end_stream(trailer)
    assert error is not None
    assert error.status == 503
    assert error.retryable is True
    assert str(error) == "Connect error internal: upstream hiccup"


def test_debug_form_not_retryable_keeps_code() -> None:
    error = classify_connect_error(
        {"code": "internal", "message": "x", "details": [{"debug": {"details": {}}}]}
    )
    assert error.status == 500
    assert error.retryable is False


def test_generic_message_gets_a_summary_of_details() -> None:
    error = classify_connect_error(
        {
            "code": "internal",
            "message": "Error",
            "details": [{"debug": {"details": {"title": "Model busy", "detail": "later"}}}],
        }
    )
    assert str(error) == "Connect error internal: Error (Model busy: later)"
    assert "\n" not in str(error)


def test_generic_message_summary_from_debug_error() -> None:
    error = classify_connect_error(
        {"code": "unknown", "message": "", "details": [{"debug": {"error": "ERROR_TIMEOUT"}}]}
    )
    assert str(error) == "Connect error unknown (ERROR_TIMEOUT)"


# -- unary bodies -----------------------------------------------------------------


def test_unary_bare_message() -> None:
    # field 1 string "abc": 0a 03 61 62 63
    assert read_unary_body(b"\x0a\x03abc") == b"\x0a\x03abc"
    assert read_unary_body(b"") == b""


def test_unary_framed_message() -> None:
    assert read_unary_body(b"\x00\x00\x00\x00\x05\x0a\x03abc") == b"\x0a\x03abc"


def test_unary_framed_message_with_ok_trailer() -> None:
    body = b"\x00\x00\x00\x00\x05\x0a\x03abc" + b"\x02\x00\x00\x00\x02{}"
    assert read_unary_body(body) == b"\x0a\x03abc"


def test_unary_framed_compressed_message() -> None:
    packed = gzip.compress(b"\x0a\x03abc")
    body = b"\x01" + len(packed).to_bytes(4, "big") + packed
    assert read_unary_body(body) == b"\x0a\x03abc"


def test_unary_framed_message_with_error_trailer_raises() -> None:
    trailer = _trailer({"code": "unauthenticated", "message": "token expired"})
    body = b"\x00\x00\x00\x00\x05\x0a\x03abc" + b"\x02" + len(trailer).to_bytes(4, "big") + trailer
    with pytest.raises(ProviderError) as info:
        read_unary_body(body)
    assert info.value.status == 401
    assert str(info.value) == "Connect error unauthenticated: token expired"


def test_unary_body_not_a_whole_frame_is_bare() -> None:
    # Starts with a zero byte but declares more than it holds: read as is.
    body = b"\x00\x00\x00\x00\x09\x0a\x03abc"
    assert read_unary_body(body) == body


def test_gzip_output_is_capped_too() -> None:
    # 40-odd compressed bytes that expand to 10 000: refused under a 1000-byte cap.
    packed = gzip.compress(b"\x00" * 10_000)
    raw = b"\x01" + len(packed).to_bytes(4, "big") + packed
    with pytest.raises(ProtocolError, match="expands past"):
        FrameDecoder(max_frame=1000).feed(raw)
    # The same frame under a cap it fits decodes.
    assert FrameDecoder(max_frame=10_000).feed(raw) == [Frame(1, b"\x00" * 10_000)]


def test_truncated_gzip_is_protocol_error() -> None:
    packed = gzip.compress(b"hello world")[:-6]
    raw = b"\x01" + len(packed).to_bytes(4, "big") + packed
    with pytest.raises(ProtocolError, match="did not decompress"):
        FrameDecoder().feed(raw)


def test_gzip_with_two_members_decodes() -> None:
    packed = gzip.compress(b"ab") + gzip.compress(b"cd")
    raw = b"\x01" + len(packed).to_bytes(4, "big") + packed
    assert FrameDecoder().feed(raw) == [Frame(1, b"abcd")]


def test_empty_compressed_frame_is_empty() -> None:
    assert FrameDecoder().feed(b"\x01\x00\x00\x00\x00") == [Frame(1, b"")]


def test_an_unspecified_code_reads_as_its_title_and_detail() -> None:
    # ErrorDetails{2 details{1 "Usage limit", 2 "Upgrade to continue"}}, code 0 left out.
    title, detail = b"Usage limit", b"Upgrade to continue"
    inner = b"\x0a" + bytes([len(title)]) + title + b"\x12" + bytes([len(detail)]) + detail
    value = base64.b64encode(b"\x12" + bytes([len(inner)]) + inner).decode()
    trailer = json.dumps(
        {
            "error": {
                "code": "unknown",
                "message": "x",
                "details": [{"type": "aiserver.v1.ErrorDetails", "value": value}],
            }
        }
    ).encode()
    error = parse_end_stream(trailer)
    assert error is not None
    assert str(error) == "Cursor: Usage limit: Upgrade to continue"
    assert error.status == 400


def test_a_bare_connect_error_carries_its_connect_code() -> None:
    error = parse_end_stream(_trailer({"code": "resource_exhausted", "message": ""}))
    assert error is not None and error.code == "resource_exhausted"
    assert classify_connect_error({}).code == "unknown"


def test_error_details_carry_their_name_as_the_code() -> None:
    error = parse_end_stream(_details_trailer(5, "Bad model"))
    assert error is not None and error.code == "BAD_MODEL_NAME"
    newer = parse_end_stream(_details_trailer(99))
    assert newer is not None and newer.code == "UNKNOWN_99"


@pytest.mark.parametrize("flags", [0x04, 0x08, 0x40, 0x80, 0x83, 0xFC])
def test_a_frame_with_a_flag_bit_connect_does_not_define_is_a_protocol_error(flags: int) -> None:
    # Connect defines only 0x01 (compressed) and 0x02 (end of stream).
    raw = bytes([flags]) + b"\x00\x00\x00\x02" + b"{}"
    with pytest.raises(ProtocolError, match="unknown flag bits"):
        FrameDecoder().feed(raw)


def test_a_reserved_flag_after_good_frames_fails_at_that_frame() -> None:
    good = b"\x00\x00\x00\x00\x03" + b"\x0a\x01a"  # flag 0, length 3, {1: "a"}
    bad = b"\x10\x00\x00\x00\x00"  # flag 0x10, empty
    decoder = FrameDecoder()
    assert decoder.feed(good) == [Frame(0, b"\x0a\x01a")]
    with pytest.raises(ProtocolError, match="0x10"):
        decoder.feed(bad)


def test_compressed_and_end_stream_together_are_allowed() -> None:
    # 0x03: a gzip-compressed end-of-stream trailer.
    packed = gzip.compress(b"{}")
    raw = b"\x03" + len(packed).to_bytes(4, "big") + packed
    assert FrameDecoder().feed(raw) == [Frame(3, b"{}")]


def test_the_64_mib_cap_holds_after_decompression() -> None:
    # A small gzip frame that expands one byte past MAX_FRAME_BYTES is refused.
    packed = gzip.compress(b"\x00" * (MAX_FRAME_BYTES + 1))
    assert len(packed) < MAX_FRAME_BYTES // 100
    raw = b"\x01" + len(packed).to_bytes(4, "big") + packed
    with pytest.raises(ProtocolError, match="expands past"):
        FrameDecoder().feed(raw)


# -- a generic message shows the details --------------------------------------------------

# google.rpc.ErrorInfo{1 reason "RATE_LIMITED", 2 domain "cursor.sh", 3 metadata entry
# {1 key "k", 2 value "v"}}, written byte by byte.
ERROR_INFO = (
    b"\x0a\x0cRATE_LIMITED" + b"\x12\x09cursor.sh" + b"\x1a\x06" + b"\x0a\x01k" + b"\x12\x01v"
)


def _info_entry(raw: bytes = ERROR_INFO) -> dict[str, str]:
    # Connect writes detail values as unpadded base64.
    return {"type": "google.rpc.ErrorInfo", "value": base64.b64encode(raw).decode().rstrip("=")}


@pytest.mark.parametrize("message", ["Error", "", "unknown", "Internal", " internal error "])
def test_a_generic_message_is_followed_by_a_plain_debug_text(message: str) -> None:
    error = classify_connect_error(
        {
            "code": "internal",
            "message": message,
            "details": [{"type": "aiserver.v1.ErrorDetails", "debug": "model backend\n timed out"}],
        }
    )
    head = f"Connect error internal: {message}" if message else "Connect error internal"
    assert str(error) == f"{head} (model backend timed out)"
    assert error.status == 500 and error.code == "internal"


def test_an_error_info_shows_its_reason_and_domain() -> None:
    error = classify_connect_error(
        {"code": "unavailable", "message": "Error", "details": [_info_entry()]}
    )
    assert (
        str(error)
        == "Connect error unavailable: Error (google.rpc.ErrorInfo: RATE_LIMITED from cursor.sh)"
    )
    assert error.status == 503 and error.retryable


def test_an_error_info_with_a_reason_only_and_one_that_does_not_decode() -> None:
    reason_only = _info_entry(b"\x0a\x04GONE")
    broken = {"type": "google.rpc.ErrorInfo", "value": "!!!"}
    error = classify_connect_error(
        {"code": "unknown", "message": "", "details": [broken, reason_only]}
    )
    # A value that is no ErrorInfo is shown after its type, as sent.
    assert (
        str(error)
        == "Connect error unknown (google.rpc.ErrorInfo: !!!; google.rpc.ErrorInfo: GONE)"
    )


def test_error_details_name_title_and_the_rest_after_a_generic_message() -> None:
    value = _error_details(13, "Unable to reach the model provider", "try again")
    error = parse_end_stream(
        _trailer(
            {
                "code": "unavailable",
                "message": "Error",
                "details": [
                    {"type": "aiserver.v1.ErrorDetails", "value": value, "debug": "upstream 502"},
                    _info_entry(),
                ],
            }
        )
    )
    assert error is not None
    assert str(error) == (
        "Cursor OPENAI: Unable to reach the model provider: try again "
        "(upstream 502; google.rpc.ErrorInfo: RATE_LIMITED from cursor.sh)"
    )
    assert error.status == 503 and error.code == "OPENAI"


def test_a_debug_object_gives_its_error_name_and_title() -> None:
    error = classify_connect_error(
        {
            "code": "unknown",
            "message": "unknown",
            "details": [
                {"debug": {"error": "ERROR_OPENAI", "details": {"title": "Provider down"}}}
            ],
        }
    )
    assert str(error) == "Connect error unknown: unknown (ERROR_OPENAI: Provider down)"


def test_a_message_that_says_something_keeps_the_details_out() -> None:
    error = classify_connect_error(
        {"code": "internal", "message": "disk full", "details": [_info_entry()]}
    )
    assert str(error) == "Connect error internal: disk full"


def test_an_empty_error_details_value_names_nothing() -> None:
    # The value decodes to ErrorDetails{} (code 0, no words): the Connect code stands.
    error = classify_connect_error(
        {
            "code": "resource_exhausted",
            "message": "",
            "details": [{"type": "aiserver.v1.ErrorDetails", "value": "", "debug": "quota"}],
        }
    )
    assert str(error) == "Connect error resource_exhausted (quota)"
    assert error.status == 429 and error.code == "resource_exhausted"


def test_the_details_are_bounded_to_one_line_and_scrubbed() -> None:
    secret = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl"
    # The secret sits across the cut: scrubbing first leaves no half of it behind.
    debug = "x" * 380 + " Bearer " + secret + "\r\n" + "y" * 600
    error = classify_connect_error(
        {"code": "internal", "message": "Error", "details": [{"debug": debug}]}
    )
    text = str(error)
    assert "\n" not in text and "\r" not in text
    assert secret[:12] not in text and "[redacted]" in text
    summary = text.removeprefix("Connect error internal: Error (").removesuffix(")")
    assert len(summary) == 400 and summary.endswith("…")


@pytest.mark.parametrize(
    "message", ["Resource exhausted", "RESOURCE_EXHAUSTED upstream", "resourceexhausted"]
)
def test_resource_exhausted_in_the_message_is_the_bare_refusal(message: str) -> None:
    error = parse_end_stream(_trailer({"code": "unknown", "message": message}))
    assert isinstance(error, ResourceExhausted)
    assert error.status == 429 and error.retryable and error.code == "unknown"


def test_resource_exhausted_text_in_error_details_is_not_the_bare_refusal() -> None:
    # ErrorDetails RESOURCE_EXHAUSTED (41) says why a quota ran out: not a refused conversation.
    error = parse_end_stream(_details_trailer(41, "Resource exhausted"))
    assert error is not None and not isinstance(error, ResourceExhausted)
    pricing = parse_end_stream(_details_trailer(44, "resource exhausted"))
    assert pricing is not None and not isinstance(pricing, ResourceExhausted)
    assert pricing.code == "USAGE_PRICING_REQUIRED" and pricing.status == 429
    assert parse_end_stream(_trailer({"code": "unknown", "message": "resources ok"})).__class__ is (
        ProviderError
    )


# -- FrameDecoder.read: the transports' hot path -------------------------------------

# Two data frames and the end frame, written out: flag, four-byte length, payload.
_TWO_AND_END = b"\x00\x00\x00\x00\x03abc" + b"\x00\x00\x00\x00\x02de" + b"\x02\x00\x00\x00\x02{}"


def test_read_hands_over_every_payload_of_one_read_as_views() -> None:
    decoder = FrameDecoder()
    payloads, end = decoder.read(b"\x00\x00\x00\x00\x03abc\x00\x00\x00\x00\x02de")
    assert [bytes(p) for p in payloads] == [b"abc", b"de"]
    assert all(isinstance(p, memoryview) for p in payloads)  # no copy per frame
    assert end is None
    assert decoder.pending == 0


def test_read_stops_at_the_end_frame_and_keeps_what_follows_pending() -> None:
    decoder = FrameDecoder()
    payloads, end = decoder.read(_TWO_AND_END + b"\x00\x00")
    assert [bytes(p) for p in payloads] == [b"abc", b"de"]
    assert end == b"{}"
    assert decoder.pending == 2


@pytest.mark.parametrize("cut", range(1, len(_TWO_AND_END)))
def test_read_split_at_every_byte_gives_the_same_frames(cut: int) -> None:
    decoder = FrameDecoder()
    first, end1 = decoder.read(_TWO_AND_END[:cut])
    second, end2 = decoder.read(_TWO_AND_END[cut:])
    assert [bytes(p) for p in first + second] == [b"abc", b"de"]
    assert (end1 or end2) == b"{}"


def test_read_one_byte_at_a_time() -> None:
    decoder = FrameDecoder()
    got: list[bytes] = []
    ends: list[bytes] = []
    for i in range(len(_TWO_AND_END)):
        payloads, end = decoder.read(_TWO_AND_END[i : i + 1])
        got += [bytes(p) for p in payloads]
        if end is not None:
            ends.append(end)
    assert got == [b"abc", b"de"]
    assert ends == [b"{}"]


def test_read_many_frames_in_one_read() -> None:
    stream = b"".join(b"\x00\x00\x00\x00\x01" + bytes([65 + i % 26]) for i in range(1000))
    payloads, end = FrameDecoder().read(stream)
    assert [bytes(p) for p in payloads] == [bytes([65 + i % 26]) for i in range(1000)]
    assert end is None


def test_read_a_frame_longer_than_one_read_waits_without_copies() -> None:
    decoder = FrameDecoder()
    assert decoder.read(b"\x00\x00\x00\x01\x00" + b"x" * 100) == ([], None)
    assert decoder.read(b"x" * 100) == ([], None)
    assert decoder.pending == 205
    payloads, end = decoder.read(b"x" * 56 + b"\x00\x00\x00\x00\x01y")
    assert [bytes(p) for p in payloads] == [b"x" * 256, b"y"]
    assert end is None


def test_read_gunzips_a_compressed_frame() -> None:
    body = gzip.compress(b"hello")
    frame = bytes([FLAG_COMPRESSED]) + len(body).to_bytes(4, "big") + body
    payloads, end = FrameDecoder().read(frame)
    assert [bytes(p) for p in payloads] == [b"hello"]
    assert end is None


def test_read_refuses_unknown_flags_and_a_length_past_the_cap() -> None:
    with pytest.raises(ProtocolError, match="unknown flag bits 0x80"):
        FrameDecoder().read(b"\x80\x00\x00\x00\x00")
    with pytest.raises(ProtocolError, match="above the 10-byte limit"):
        FrameDecoder(max_frame=10).read(b"\x00\x00\x00\x00\x0b")
    decoder = FrameDecoder(max_frame=10)
    decoder.read(b"\x00\x00")
    with pytest.raises(ProtocolError, match="above the 10-byte limit"):
        decoder.read(b"\x00\x00\x0b")
