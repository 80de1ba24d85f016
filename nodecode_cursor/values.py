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
from typing import Any

from google.protobuf import struct_pb2
from google.protobuf.message import DecodeError

from .errors import ProtocolError

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
    """Return the serialized protobuf Value of ``obj``."""
    return to_value(obj).SerializeToString(deterministic=True)


def decode_value(raw: bytes) -> Any:
    """Return the JSON value in serialized Value bytes (ProtocolError if they do not parse)."""
    value = struct_pb2.Value()
    try:
        value.ParseFromString(raw)
    except (DecodeError, RecursionError) as exc:
        raise ProtocolError(f"a protobuf Value did not parse: {exc}") from None
    return from_value(value)
