"""wire.stream: a read's bytes to its items, text and thinking deltas read by hand.

Expected bytes are written out from the field numbers: AgentServerMessage
field 1 interaction_update; InteractionUpdate field 1 text_delta, field 4
thinking_delta; TextDeltaUpdate / ThinkingDeltaUpdate field 1 text. A frame is
flag byte, four-byte big-endian length, payload.
"""

from __future__ import annotations

import pytest
from google.protobuf.message import DecodeError
from hypothesis import given
from hypothesis import strategies as st
from protobytes import frame

from nodecode_cursor._proto import agent_pb2
from nodecode_cursor.errors import ProtocolError
from nodecode_cursor.wire.stream import StreamReader, ThinkingText, as_message


def delta(text: bytes, field: int = 0x0A) -> bytes:
    """Return an AgentServerMessage payload holding one delta of TEXT (one-byte lengths)."""
    inner = b"\x0a" + bytes([len(text)]) + text
    update = bytes([field, len(inner)]) + inner
    return b"\x0a" + bytes([len(update)]) + update


def test_a_text_delta_frame_reads_as_its_text() -> None:
    raw = b"\x00\x00\x00\x00\x0b" + b"\x0a\x09" + b"\x0a\x07" + b"\x0a\x05hello"
    assert raw == frame(delta(b"hello"))
    (item,) = StreamReader().read_items(raw)
    assert type(item) is str
    assert item == "hello"


def test_a_thinking_delta_frame_reads_as_thinking_text() -> None:
    raw = b"\x00\x00\x00\x00\x0a" + b"\x0a\x08" + b"\x22\x06" + b"\x0a\x04hmm."
    (item,) = StreamReader().read_items(raw)
    assert isinstance(item, ThinkingText)
    assert item == "hmm."


def test_utf8_text_is_decoded() -> None:
    text = "héllo → 世界 🙂"
    (item,) = StreamReader().read_items(frame(delta(text.encode())))
    assert item == text


def test_text_that_is_not_utf8_is_refused_as_the_parser_refuses_it() -> None:
    raw = frame(delta(b"ok\xff"))
    with pytest.raises(ProtocolError, match="not an AgentServerMessage"):
        StreamReader().read_items(raw)
    # Two frames in one read take the per-payload path: refused the same way.
    with pytest.raises(ProtocolError, match="not an AgentServerMessage"):
        StreamReader().read_items(frame(delta(b"fine")) + raw)


def test_an_empty_delta_is_left_to_the_parser() -> None:
    # An empty delta is no progress: the pump must see the message, not "".
    raw = frame(b"\x0a\x04\x0a\x02\x0a\x00")
    (item,) = StreamReader().read_items(raw)
    assert isinstance(item, agent_pb2.AgentServerMessage)
    assert item.interaction_update.WhichOneof("message") == "text_delta"


def test_a_delta_with_another_field_is_parsed_whole() -> None:
    # TextDeltaUpdate with an unknown field 2 (varint 1) after its text.
    inner = b"\x0a\x02hi" + b"\x10\x01"
    update = b"\x0a" + bytes([len(inner)]) + inner
    payload = b"\x0a" + bytes([len(update)]) + update
    (item,) = StreamReader().read_items(frame(payload))
    assert isinstance(item, agent_pb2.AgentServerMessage)
    assert item.interaction_update.text_delta.text == "hi"
    # A checkpoint (field 3) after the update: the oneof's last member wins, so the
    # message is a checkpoint, never the text it began with.
    with_more = delta(b"hi") + b"\x1a\x00"
    (item,) = StreamReader().read_items(frame(with_more))
    assert isinstance(item, agent_pb2.AgentServerMessage)
    assert item.WhichOneof("message") == "conversation_checkpoint_update"


def test_a_long_delta_is_parsed() -> None:
    text = "x" * 200  # two-byte lengths: the parser's
    message = agent_pb2.AgentServerMessage(
        interaction_update=agent_pb2.InteractionUpdate(
            text_delta=agent_pb2.TextDeltaUpdate(text=text)
        )
    )
    (item,) = StreamReader().read_items(frame(message.SerializeToString()))
    assert isinstance(item, agent_pb2.AgentServerMessage)
    assert item.interaction_update.text_delta.text == text


def test_several_frames_in_one_read_and_a_frame_across_reads() -> None:
    reader = StreamReader()
    first, second = frame(delta(b"one")), frame(delta(b"two", field=0x22))
    heartbeat = frame(b"\x0a\x02\x6a\x00")  # interaction_update{heartbeat (field 13)}
    items = reader.read_items(first + heartbeat + second[:4])
    assert items[0] == "one" and type(items[0]) is str
    assert isinstance(items[1], agent_pb2.AgentServerMessage)
    assert items[1].interaction_update.WhichOneof("message") == "heartbeat"
    assert len(items) == 2
    assert reader.pending == 4
    (rest,) = reader.read_items(second[4:])
    assert isinstance(rest, ThinkingText) and rest == "two"
    assert reader.pending == 0


def test_the_end_frame_is_kept_and_what_follows_stays_pending() -> None:
    reader = StreamReader()
    items = reader.read_items(frame(delta(b"done")) + frame(b"{}", flags=2) + b"\x00")
    assert items == ["done"]
    assert reader.end == b"{}"
    assert reader.pending == 1


def test_a_frame_cap_below_a_delta_is_enforced() -> None:
    with pytest.raises(ProtocolError, match="above the 10-byte limit"):
        StreamReader(max_frame=10).read_items(frame(delta(b"hello")))


def test_as_message_gives_back_the_message_the_item_came_as() -> None:
    for payload in (delta(b"abc"), delta(b"abc", field=0x22), b"\x0a\x02\x6a\x00"):
        (item,) = StreamReader().read_items(frame(payload))
        assert as_message(item) == agent_pb2.AgentServerMessage.FromString(payload)


@given(text=st.text(min_size=1, max_size=60), thinking=st.booleans())
def test_a_hand_read_delta_is_the_parsers_message(text: str, thinking: bool) -> None:
    update = (
        agent_pb2.InteractionUpdate(thinking_delta=agent_pb2.ThinkingDeltaUpdate(text=text))
        if thinking
        else agent_pb2.InteractionUpdate(text_delta=agent_pb2.TextDeltaUpdate(text=text))
    )
    payload = agent_pb2.AgentServerMessage(interaction_update=update).SerializeToString()
    (alone,) = StreamReader().read_items(frame(payload))
    # Two frames in one read: each matched in place by the many-frame walk.
    first, second = StreamReader().read_items(frame(payload) * 2)
    parsed = agent_pb2.AgentServerMessage.FromString(payload)
    assert as_message(alone) == parsed
    assert as_message(first) == parsed
    assert as_message(second) == parsed


@given(payload=st.binary(max_size=40))
def test_any_payload_reads_as_the_parser_reads_it(payload: bytes) -> None:
    try:
        parsed: agent_pb2.AgentServerMessage | None = agent_pb2.AgentServerMessage.FromString(
            payload
        )
    except DecodeError:
        parsed = None
    if parsed is None:
        with pytest.raises(ProtocolError):
            StreamReader().read_items(frame(payload))
        return
    (item,) = StreamReader().read_items(frame(payload))
    assert as_message(item) == parsed


def test_a_compressed_frame_among_deltas_is_decompressed_and_parsed() -> None:
    import gzip

    packed = frame(gzip.compress(delta(b"zipped")), flags=1)
    items = StreamReader().read_items(frame(delta(b"a")) + packed + frame(delta(b"b")))
    assert [as_message(item).interaction_update.text_delta.text for item in items] == [
        "a",
        "zipped",
        "b",
    ]


def test_a_frame_past_the_cap_inside_a_read_is_refused() -> None:
    reader = StreamReader(max_frame=200)
    with pytest.raises(ProtocolError, match="above the 200-byte limit"):
        reader.read_items(frame(delta(b"ok")) + b"\x00\x00\x00\x01\x00")
