"""JSON values ⇄ ``google.protobuf.Value``, the form Cursor gives tool arguments and schemas.

A Value holds numbers as doubles, so an integral double reads back as an int:
``{"n": 3}`` survives the trip as 3, not 3.0. Everything else (null, bool,
string, list, object) round-trips exactly. An int too large for a double
(about 309 digits or more; JSON allows it, a Value cannot hold it) is sent as its
decimal string, so a schema or argument carrying one still encodes instead of
failing the round; it reads back as that string. NaN and the infinities encode
as doubles here; ``finite`` turns them into null first for a caller whose values
must be JSON (the tool arguments history replays). Pure code; what the values
mean is the caller's business.
"""

from __future__ import annotations

import math
import struct
from typing import Any

from google.protobuf import struct_pb2
from google.protobuf.message import DecodeError

from ..errors import ProtocolError
from .pbwire import field, map_order

__all__ = ["decode_value", "encode_value", "finite", "from_value", "to_value"]

# Doubles hold integers exactly only up to 2**53; past that an int stays a float.
_EXACT_INT_LIMIT = 2**53


def to_value(obj: Any) -> struct_pb2.Value:
    """Return ``obj`` (a JSON-shaped Python value) as a protobuf Value."""
    value = struct_pb2.Value()
    _fill(value, obj)
    return value


def _fill(value: struct_pb2.Value, obj: Any) -> None:
    """Set ``value`` to hold ``obj`` (returns nothing; raises TypeError for a non-JSON value).

    An int past a double's range becomes its decimal string (see the module docstring).
    """
    if obj is None:
        value.null_value = struct_pb2.NULL_VALUE
    elif isinstance(obj, bool):
        value.bool_value = obj
    elif isinstance(obj, int | float):
        try:
            value.number_value = float(obj)
        except OverflowError:
            # Only an int overflows float(); a double cannot hold it at all, and its
            # exact digits say more to the model than a rounded infinity would.
            value.string_value = _int_text(int(obj))
    elif isinstance(obj, str):
        value.string_value = obj
    elif isinstance(obj, dict):
        fields = value.struct_value.fields
        value.struct_value.SetInParent()
        for key, item in obj.items():
            _fill(fields[str(key)], item)
    elif isinstance(obj, list | tuple):
        value.list_value.SetInParent()
        for item in obj:
            _fill(value.list_value.values.add(), item)
    else:
        raise TypeError(f"not a JSON value: {type(obj).__name__}")


def _int_text(number: int) -> str:
    """Return NUMBER's decimal digits (hex past Python's int-to-str digit limit)."""
    try:
        return str(number)
    except ValueError:  # sys.set_int_max_str_digits (4300 by default) refused it
        return hex(number)


def from_value(value: struct_pb2.Value) -> Any:
    """Return the JSON-shaped Python value a protobuf Value holds."""
    kind = value.WhichOneof("kind")
    if kind == "number_value":
        number = value.number_value
        if math.isfinite(number) and number.is_integer() and abs(number) <= _EXACT_INT_LIMIT:
            return int(number)
        return number
    if kind == "string_value":
        return value.string_value
    if kind == "bool_value":
        return value.bool_value
    if kind == "struct_value":
        return {key: from_value(item) for key, item in value.struct_value.fields.items()}
    if kind == "list_value":
        return [from_value(item) for item in value.list_value.values]
    return None


def finite(obj: Any) -> Any:
    """Return OBJ with every NaN or infinity (at any depth) replaced by None.

    JSON cannot spell a non-finite number, and Cursor reads tool arguments as
    JSON (root prompt blobs, and ``google.protobuf.Value``s whose JSON form has
    no NaN either), so such a number goes out as null, as oh-my-pi sends it.
    Dicts and lists are copied only where something changed; OBJ is never modified.
    """
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, dict):
        out = {key: finite(item) for key, item in obj.items()}
        return obj if all(out[key] is obj[key] for key in obj) else out
    if isinstance(obj, list | tuple):
        items = [finite(item) for item in obj]
        if all(new is old for new, old in zip(items, obj, strict=True)):
            return obj
        return items if isinstance(obj, list) else tuple(items)
    return obj


def encode_value(obj: Any) -> bytes:
    """Return the serialized protobuf Value of ``obj`` (upb's deterministic bytes).

    Written by hand (``_value_bytes``): a history replays every call's arguments
    each round, and a upb Value per argument costs several times its bytes. A
    value the hand path does not take (a dict with a key that is not a string,
    which upb merges by ``str(key)``; a lone surrogate) goes through upb.
    """
    try:
        return _value_bytes(obj)
    except (_Unusual, UnicodeEncodeError):
        return to_value(obj).SerializeToString(deterministic=True)


class _Unusual(Exception):
    """A value the hand-written encoder leaves to upb."""


_NULL = b"\x08\x00"  # Value{1 null_value: NULL_VALUE}
_TRUE = b"\x20\x01"  # Value{4 bool_value: true}
_FALSE = b"\x20\x00"
_DOUBLE = struct.Struct("<d").pack


def _value_bytes(obj: Any) -> bytes:
    """Return the deterministic bytes of Value(OBJ), as ``to_value`` then upb would write them.

    Value{1 null_value, 2 number_value, 3 string_value, 4 bool_value,
    5 struct_value: Struct{1 fields: map<string, Value>}, 6 list_value:
    ListValue{1 values}}; every kind is a oneof member, so it is written even
    when empty or zero.
    """
    if obj is None:
        return _NULL
    if isinstance(obj, bool):
        return _TRUE if obj else _FALSE
    if isinstance(obj, int | float):
        try:
            return b"\x11" + _DOUBLE(float(obj))
        except OverflowError:
            return field(b"\x1a", _int_text(int(obj)).encode("ascii"))
    if isinstance(obj, str):
        return field(b"\x1a", obj.encode("utf-8"))
    if isinstance(obj, dict):
        if not all(type(key) is str for key in obj):
            raise _Unusual
        entries = b"".join(
            field(
                b"\x0a",
                field(b"\x0a", key.encode("utf-8")) + field(b"\x12", _value_bytes(obj[key])),
            )
            for key in map_order(obj)
        )
        return field(b"\x2a", entries)
    if isinstance(obj, list | tuple):
        return field(b"\x32", b"".join(field(b"\x0a", _value_bytes(item)) for item in obj))
    raise TypeError(f"not a JSON value: {type(obj).__name__}")


def decode_value(raw: bytes) -> Any:
    """Return the JSON value in serialized Value bytes (ProtocolError if they do not parse)."""
    value = struct_pb2.Value()
    try:
        value.ParseFromString(raw)
    except (DecodeError, RecursionError) as exc:
        raise ProtocolError(f"a protobuf Value did not parse: {exc}") from None
    return from_value(value)
