"""JSON ⇄ google.protobuf.Value, checked against bytes written out by hand.

google.protobuf.Value fields: 1 null_value (enum, varint), 2 number_value
(double, wire type 1 = eight little-endian bytes), 3 string_value, 4 bool_value
(varint), 5 struct_value, 6 list_value (both length-delimited). ListValue:
1 values (repeated Value). Struct: 1 fields (map entries: 1 key, 2 value).
A tag byte is ``field << 3 | wire_type``.
"""

from __future__ import annotations

import math
import struct
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nodecode_cursor.errors import ProtocolError
from nodecode_cursor.wire.values import decode_value, encode_value, from_value, to_value

ONE_POINT_FIVE = bytes([0x11, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xF8, 0x3F])
# number 1.0: 0x11 then 0x3ff0000000000000 little-endian
NUMBER_ONE = bytes([0x11, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xF0, 0x3F])
NULL = bytes([0x08, 0x00])
TRUE = bytes([0x20, 0x01])


def _item(value: bytes) -> bytes:
    """Return one ListValue.values entry (field 1, length-delimited)."""
    return bytes([0x0A, len(value)]) + value


LIST_1_NULL_TRUE = (
    bytes([0x32, 19]) + _item(NUMBER_ONE) + _item(NULL) + _item(TRUE)
)  # 11 + 4 + 4 = 19 bytes of ListValue


def test_one_point_five_is_the_double_3ff8() -> None:
    assert struct.pack("<d", 1.5) == bytes.fromhex("000000000000f83f")
    assert encode_value(1.5) == ONE_POINT_FIVE
    assert decode_value(ONE_POINT_FIVE) == 1.5
    assert isinstance(decode_value(ONE_POINT_FIVE), float)


def test_list_one_null_true_by_hand() -> None:
    assert encode_value([1, None, True]) == LIST_1_NULL_TRUE
    decoded = decode_value(LIST_1_NULL_TRUE)
    assert decoded == [1, None, True]
    assert type(decoded[0]) is int
    assert decoded[2] is True


def test_scalars_by_hand() -> None:
    assert encode_value(None) == NULL
    assert encode_value(True) == TRUE
    assert encode_value(False) == bytes([0x20, 0x00])
    assert encode_value("hi") == bytes([0x1A, 0x02]) + b"hi"
    assert decode_value(bytes([0x1A, 0x02]) + b"hi") == "hi"
    assert decode_value(NULL) is None
    assert decode_value(bytes([0x20, 0x00])) is False


def test_struct_by_hand() -> None:
    # {"a": 1}: struct_value (5) { fields (1) { key (1) "a", value (2) number 1.0 } }
    entry = bytes([0x0A, 0x01]) + b"a" + bytes([0x12, len(NUMBER_ONE)]) + NUMBER_ONE
    fields = bytes([0x0A, len(entry)]) + entry
    raw = bytes([0x2A, len(fields)]) + fields
    assert encode_value({"a": 1}) == raw
    assert decode_value(raw) == {"a": 1}


def test_empty_containers_keep_their_kind() -> None:
    assert encode_value([]) == bytes([0x32, 0x00])
    assert encode_value({}) == bytes([0x2A, 0x00])
    assert decode_value(bytes([0x32, 0x00])) == []
    assert decode_value(bytes([0x2A, 0x00])) == {}


def test_empty_bytes_are_null() -> None:
    # A Value with no kind set reads as null (JSON has nothing closer).
    assert decode_value(b"") is None


@pytest.mark.parametrize("number", [0.0, 3.0, -7.0, 2.0**53, -(2.0**53), 1e15])
def test_integral_doubles_read_back_as_ints(number: float) -> None:
    got = from_value(to_value(number))
    assert type(got) is int
    assert got == number


@pytest.mark.parametrize("number", [2.0**53 * 4, 1e300, 0.1, -2.5])
def test_other_doubles_stay_floats(number: float) -> None:
    got = from_value(to_value(number))
    assert type(got) is float
    assert got == number


def test_non_finite_doubles_stay_floats() -> None:
    assert math.isinf(from_value(to_value(math.inf)))
    assert math.isnan(from_value(to_value(math.nan)))


def test_nested_struct_round_trip() -> None:
    obj = {
        "path": "src/main.py",
        "limits": {"lines": 40, "offset": 0, "ratio": 0.25},
        "flags": [True, False, None, {"deep": [[], {}, [1, [2, [3]]]]}],
        "empty": "",
    }
    assert decode_value(encode_value(obj)) == obj
    assert from_value(to_value(obj)) == obj


def test_tuple_encodes_as_list() -> None:
    assert encode_value((1, None, True)) == LIST_1_NULL_TRUE


def test_an_int_past_a_doubles_range_is_sent_as_its_digits() -> None:
    huge = 10**400
    digits = str(huge).encode()
    # string_value is field 3, wire type 2: tag 0x1a, then the length as a varint (401 = 0x91 0x03).
    assert encode_value(huge) == b"\x1a\x91\x03" + digits
    assert decode_value(encode_value({"max": -huge})) == {"max": "-" + str(huge)}


def test_not_json_is_type_error() -> None:
    with pytest.raises(TypeError, match="not a JSON value"):
        to_value(object())


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**53), max_value=2**53)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda children: (
        st.lists(children, max_size=5) | st.dictionaries(st.text(max_size=10), children, max_size=5)
    ),
    max_leaves=30,
)


def _same(a: Any, b: Any) -> bool:
    """Return whether two JSON values are equal, telling bools from numbers."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(map(_same, a, b))
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return bool(a == b)


@settings(max_examples=300, deadline=None)
@given(json_values)
def test_any_json_value_round_trips(obj: Any) -> None:
    back = decode_value(encode_value(obj))
    assert _same(back, obj), (obj, back)


@settings(max_examples=500, deadline=None)
@given(st.binary(max_size=200))
def test_junk_bytes_are_protocol_error_or_a_value(raw: bytes) -> None:
    try:
        decode_value(raw)
    except ProtocolError as exc:
        assert str(exc).startswith("a protobuf Value did not parse")


@pytest.mark.parametrize(
    "raw",
    [
        bytes([0x11, 0x00]),  # double cut short
        bytes([0x1A, 0x05]) + b"ab",  # string cut short
        bytes([0x1A, 0x02, 0xFF, 0xFE]),  # string not UTF-8
        bytes([0x32, 0x04, 0x0A, 0x09]),  # list item overruns its list
        bytes([0x07]),  # wire type 7 does not exist
        bytes([0x08]),  # a tag and no varint
    ],
)
def test_known_junk_is_protocol_error(raw: bytes) -> None:
    with pytest.raises(ProtocolError):
        decode_value(raw)


def test_deep_nesting_is_protocol_error_not_a_crash() -> None:
    # 300 nested single-item lists: past protobuf's recursion limit.
    raw = NULL
    for _ in range(300):
        # Value{6 list_value: ListValue{1 values: <raw>}}
        raw = _varint_len(0x32, _varint_len(0x0A, raw))
    with pytest.raises(ProtocolError):
        decode_value(raw)


def _varint_len(tag: int, payload: bytes) -> bytes:
    """Return tag + varint length + payload (lengths here may pass 127)."""
    n = len(payload)
    out = bytearray([tag])
    while True:
        byte = n & 0x7F
        n >>= 7
        if n:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out) + payload


def test_struct_keys_go_in_upbs_order_a_prefix_after_the_longer_key() -> None:
    # Struct{1 fields: entry{1 key, 2 value}} per key; upb writes "ab" before "a"
    # (a key that begins another comes after it), and "" (which begins every key) last.
    def entry(key: bytes) -> bytes:
        body = bytes([0x0A, len(key)]) + key + bytes([0x12, 2]) + NULL
        return bytes([0x0A, len(body)]) + body

    body = entry(b"ab") + entry(b"a") + entry(b"b") + entry(b"")
    assert encode_value({"b": None, "": None, "a": None, "ab": None}) == (
        bytes([0x2A, len(body)]) + body
    )


json_trees = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats()
    | st.text(max_size=6),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.text(alphabet="ab\u00e9\U0001f600", max_size=3), inner, max_size=4)
    ),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(json_trees)
def test_the_written_bytes_are_upbs_deterministic_bytes(obj: Any) -> None:
    # encode_value writes the bytes by hand; upb's serializer is the reference.
    assert encode_value(obj) == to_value(obj).SerializeToString(deterministic=True)


def test_a_key_that_is_not_text_goes_through_upb_and_still_encodes() -> None:
    assert encode_value({1: True}) == to_value({1: True}).SerializeToString(deterministic=True)
