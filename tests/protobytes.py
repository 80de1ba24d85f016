"""Hand encoding for tests: protobuf bytes written from field numbers, not by our encoder.

Tag byte = field << 3 | wire type (0 varint, 1 fixed64, 2 length-delimited). These
four lines are the whole encoder the tests trust; everything else is spelled out.
``frame`` wraps a payload as Connect's envelope does (a flag byte, then a 4-byte
big-endian length).
"""

from __future__ import annotations


def varint(n: int) -> bytes:
    """Return ``n`` as a protobuf varint."""
    out = bytearray()
    while True:
        byte, n = n & 0x7F, n >> 7
        out.append(byte | (0x80 if n else 0))
        if not n:
            return bytes(out)


def ld(field: int, *parts: bytes) -> bytes:
    """Return a length-delimited field holding ``parts`` joined."""
    payload = b"".join(parts)
    return varint(field << 3 | 2) + varint(len(payload)) + payload


def text(field: int, value: str) -> bytes:
    """Return a string field."""
    return ld(field, value.encode())


def vi(field: int, n: int) -> bytes:
    """Return a varint field."""
    return varint(field << 3) + varint(n)


def frame(payload: bytes, flags: int = 0) -> bytes:
    """Return one Connect frame: flag byte FLAGS, 4-byte big-endian length, PAYLOAD."""
    return bytes([flags]) + len(payload).to_bytes(4, "big") + payload
