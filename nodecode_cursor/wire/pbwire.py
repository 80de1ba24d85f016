"""Protobuf wire bytes written by hand: varints, length-delimited fields, map order.

Request building writes several small protobuf blobs per history message (a
step, a user message, a turn, each argument's ``google.protobuf.Value``).
Building a upb message for each and serializing it costs more than the bytes
themselves, so ``history.py`` and ``values.py`` write those fixed shapes with
these pieces, byte for byte what upb's deterministic serializer writes: fields
in field-number order, proto3 scalars left out when empty (a oneof member or a
map entry's key and value written even then), map entries in ``map_order``.
The tests hold the bytes, written by hand from field numbers.

Pure functions over bytes; which fields a message has is the caller's business.
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["field", "map_order", "text_field", "varint"]

# The one-byte varints, so a short length costs an index rather than a loop.
_SMALL = tuple(bytes((n,)) for n in range(128))


def varint(value: int) -> bytes:
    """Return the non-negative VALUE as a protobuf varint."""
    if value < 0x80:
        return _SMALL[value]
    out = bytearray()
    while value >= 0x80:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def field(tag: bytes, payload: bytes) -> bytes:
    """Return a length-delimited field: TAG (its varint key), PAYLOAD's length, PAYLOAD."""
    size = len(payload)
    return tag + (_SMALL[size] if size < 0x80 else varint(size)) + payload


def text_field(tag: bytes, text: str) -> bytes:
    """Return a proto3 string field of TEXT as UTF-8, or nothing when TEXT is empty.

    A lone surrogate raises UnicodeEncodeError, as upb's setter does.
    """
    return field(tag, text.encode("utf-8")) if text else b""


def map_order(keys: Iterable[str]) -> list[str]:
    """Return string map keys in the order upb's deterministic serializer writes them.

    Ascending by UTF-8 bytes, except that a key which is a prefix of another
    comes after it (upb compares the common bytes, then the sizes the other
    way round): ``["ab", "a", ""]``. The sentinel byte 0xFF, which UTF-8 never
    holds, puts a shorter key after every longer one it begins.
    """
    return sorted(keys, key=lambda key: key.encode("utf-8") + b"\xff")
