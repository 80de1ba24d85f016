"""The run's HTTP/1.1 reader and writer (http1.py), on responses written by hand.

Each response is typed out byte by byte as RFC 9112 frames it (a status line,
header fields, a chunked body with its trailer section, a Content-Length body,
a body to the close), and fed whole, a byte at a time, and in the reads a
socket might give.
"""

from __future__ import annotations

import gzip

import pytest

from nodecode_cursor.transports.http1 import MAX_HEAD, BadResponse, ResponseReader, request_bytes

CHUNKED_HEAD = (
    b"HTTP/1.1 200 OK\r\n"
    b"content-type: application/connect+proto\r\n"
    b"transfer-encoding: chunked\r\n"
    b"\r\n"
)
# Two chunks (5 and 16 bytes), the last chunk, then gRPC's trailers.
CHUNKED_BODY = (
    b"5\r\nhello\r\n"
    b"10\r\n0123456789abcdef\r\n"
    b"0\r\n"
    b"grpc-status: 13\r\n"
    b"grpc-message: post-turn%20trailer%20failure\r\n"
    b"\r\n"
)


def read_all(reader: ResponseReader, data: bytes, step: int) -> bytes:
    """Return the body READER gives for DATA fed STEP bytes at a time."""
    return b"".join(reader.feed(data[at : at + step]) for at in range(0, len(data), step))


@pytest.mark.parametrize("step", [1, 2, 3, 7, 64, 1 << 20])
def test_a_chunked_body_and_its_trailers_read_alike_however_the_reads_split(step: int) -> None:
    reader = ResponseReader()
    body = read_all(reader, CHUNKED_HEAD + CHUNKED_BODY, step)
    assert body == b"hello0123456789abcdef"
    assert reader.done and reader.keep_alive and reader.extra == b""
    assert reader.status == 200
    assert reader.headers["content-type"] == "application/connect+proto"
    assert reader.trailers == {
        "grpc-status": "13",
        "grpc-message": "post-turn%20trailer%20failure",
    }


def test_a_whole_read_of_many_chunks_comes_back_as_one_piece() -> None:
    reader = ResponseReader()
    assert reader.feed(CHUNKED_HEAD) == b""
    assert reader.head_done and not reader.done
    assert reader.feed(b"3\r\nabc\r\n3\r\ndef\r\n2\r\ngh\r\n") == b"abcdefgh"
    assert reader.feed(b"0\r\n\r\n") == b""
    assert reader.done and reader.trailers == {}


def test_a_chunk_size_with_an_extension_and_upper_case_hex_is_read() -> None:
    reader = ResponseReader()
    reader.feed(CHUNKED_HEAD)
    assert reader.feed(b"A;name=value\r\n0123456789\r\n0\r\n\r\n") == b"0123456789"
    assert reader.done


def test_a_content_length_body_ends_at_its_length() -> None:
    reader = ResponseReader()
    body = reader.feed(b"HTTP/1.1 403 Forbidden\r\nContent-Length: 4\r\n\r\n{}{}")
    assert (reader.status, body, reader.done, reader.keep_alive) == (403, b"{}{}", True, True)


def test_bytes_past_the_message_keep_the_connection_from_being_reused() -> None:
    reader = ResponseReader()
    reader.feed(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nokEXTRA")
    assert reader.done and not reader.keep_alive and reader.extra == b"EXTRA"


def test_an_interim_answer_is_skipped_for_the_final_one() -> None:
    reader = ResponseReader()
    interim = b"HTTP/1.1 100 Continue\r\n\r\n"
    body = reader.feed(interim + b"HTTP/1.1 200 OK\r\ncontent-length: 1\r\n\r\nx")
    assert (reader.status, body, reader.done) == (200, b"x", True)


def test_connection_close_and_http_1_0_are_not_kept_alive() -> None:
    closing = ResponseReader()
    closing.feed(b"HTTP/1.1 200 OK\r\nConnection: close\r\ncontent-length: 0\r\n\r\n")
    assert closing.done and not closing.keep_alive
    old = ResponseReader()
    old.feed(b"HTTP/1.0 200 OK\r\ncontent-length: 0\r\n\r\n")
    assert old.done and not old.keep_alive


def test_a_body_with_no_length_runs_to_the_close() -> None:
    reader = ResponseReader()
    assert reader.feed(b"HTTP/1.1 200 OK\r\n\r\nsome") == b"some"
    assert reader.feed(b" more") == b" more"
    assert not reader.done
    assert reader.feed_eof() == b""
    assert reader.done and not reader.keep_alive


def test_no_content_has_no_body() -> None:
    reader = ResponseReader()
    assert reader.feed(b"HTTP/1.1 204 No Content\r\n\r\n") == b""
    assert reader.done and reader.keep_alive


def test_a_content_coding_never_asked_for_is_refused_not_inflated() -> None:
    # 19 KiB of gzip inflated to 3.8 GiB in a round once: the client sends no
    # Accept-Encoding, so a coded body is refused before a byte of it is read.
    packed = gzip.compress(b"\0" * (64 * 1024 * 1024))
    reader = ResponseReader()
    head = f"HTTP/1.1 200 OK\r\ncontent-encoding: gzip\r\ncontent-length: {len(packed)}\r\n\r\n"
    with pytest.raises(BadResponse, match="never asked for"):
        reader.feed(head.encode() + packed)


@pytest.mark.parametrize(
    ("response", "words"),
    [
        (b"HTTP/2 200 OK\r\n\r\n", "not an HTTP/1.1 response"),
        (b"SSH-2.0-OpenSSH\r\n\r\n", "not an HTTP/1.1 response"),
        (b"HTTP/1.1 200 OK\r\nno colon here\r\n\r\n", "malformed header field"),
        (b"HTTP/1.1 200 OK\r\nx-a: 1\r\n folded\r\n\r\n", "malformed header field"),
        (b"HTTP/1.1 200 OK\r\ncontent-length: 1\r\ncontent-length: 2\r\n\r\n", "Content-Length"),
        (b"HTTP/1.1 200 OK\r\ncontent-length: -1\r\n\r\n", "Content-Length"),
        (b"HTTP/1.1 101 Switching Protocols\r\n\r\n", "switched protocols"),
        (b"HTTP/1.1 200 OK\r\ncontent-encoding: br\r\n\r\n", "content coding"),
        (CHUNKED_HEAD + b"0x5\r\nhello\r\n", "chunk-size line"),
        (CHUNKED_HEAD + b"+5\r\nhello\r\n", "chunk-size line"),
        (CHUNKED_HEAD + b"zz\r\n", "chunk-size line"),
        (CHUNKED_HEAD + b"3\r\nhello\r\n", "runs past its size"),
        (CHUNKED_HEAD + b"1" * 2000, "chunk-size line of the response is oversized"),
    ],
)
def test_a_malformed_response_is_refused_in_words_not_bytes(response: bytes, words: str) -> None:
    with pytest.raises(BadResponse, match=words) as caught:
        ResponseReader().feed(response)
    assert "hello" not in str(caught.value) and "OpenSSH" not in str(caught.value)


def test_an_oversized_head_is_refused_before_it_ends() -> None:
    reader = ResponseReader()
    with pytest.raises(BadResponse, match="head is oversized"):
        reader.feed(b"HTTP/1.1 200 OK\r\nx-pad: " + b"a" * (MAX_HEAD + 1))


def test_a_close_mid_body_or_mid_head_is_refused() -> None:
    cut = ResponseReader()
    cut.feed(CHUNKED_HEAD + b"5\r\nhel")
    with pytest.raises(BadResponse, match="mid-body"):
        cut.feed_eof()
    early = ResponseReader()
    early.feed(b"HTTP/1.1 200")
    with pytest.raises(BadResponse, match="before its head ended"):
        early.feed_eof()


def test_a_request_is_written_with_its_host_headers_and_length() -> None:
    wire = request_bytes(
        "POST", "/agent.v1.AgentService/RunSSE", "api2.cursor.sh", {"x-a": "1"}, b"\x00\x01"
    )
    assert wire == (
        b"POST /agent.v1.AgentService/RunSSE HTTP/1.1\r\n"
        b"host: api2.cursor.sh\r\n"
        b"x-a: 1\r\n"
        b"content-length: 2\r\n"
        b"\r\n\x00\x01"
    )


def test_a_get_without_a_body_carries_no_length_and_an_empty_post_does() -> None:
    # RFC 9110 §8.6: a GET anticipates no content, so no Content-Length goes with it.
    assert request_bytes("GET", "/auth/poll?uuid=u", "h", {}, b"") == (
        b"GET /auth/poll?uuid=u HTTP/1.1\r\nhost: h\r\n\r\n"
    )
    assert request_bytes("POST", "/p", "h", {}, b"") == (
        b"POST /p HTTP/1.1\r\nhost: h\r\ncontent-length: 0\r\n\r\n"
    )


@pytest.mark.parametrize("header", [{"x-a": "v\r\nx-evil: 1"}, {"x-a\n": "v"}, {"x": "\x00"}])
def test_a_header_that_would_split_the_request_is_refused_unquoted(header: dict[str, str]) -> None:
    with pytest.raises(ValueError, match="line break") as caught:
        request_bytes("POST", "/", "h", header, b"")
    assert "evil" not in str(caught.value)


def test_a_grpc_status_of_unicode_digits_fails_the_stream_in_words() -> None:
    from nodecode_cursor.transports.run import grpc_end

    # "²" passes str.isdigit() and int() refuses it: a ValueError, not the stream's end.
    ended, error = grpc_end({"grpc-status": "\u00b2", "grpc-message": "odd"})
    assert ended and error is not None and "odd" in str(error)
