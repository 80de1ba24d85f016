"""A run's server stream over bytes: each network read to the messages it completes.

Pure code, no sockets: a transport hands ``StreamReader.read`` every read of the
answer's body and gets back that read's batch, in order. An item of the batch is
an ``agent.v1.AgentServerMessage``, except a text or thinking delta: those are
the whole of a long answer, one per frame, so they are read off the bytes by
hand rather than parsed (a ``str`` item is a text delta's text, a
``ThinkingText`` a thinking delta's; ``as_message`` turns either back into the
message it came as). Only the exact shape of such a delta is read by hand:

    0x0a len  AgentServerMessage.interaction_update (field 1)
      0x0a len  InteractionUpdate.text_delta (field 1), or 0x22 thinking_delta (field 4)
        0x0a len  TextDeltaUpdate.text / ThinkingDeltaUpdate.text (field 1), non-empty

each length one varint byte and each one the exact rest of its message: any other
field, an empty text, a longer delta goes to the protobuf parser, as does any
other message. Text that is not UTF-8 is refused as the parser refuses it.

The frames themselves are ``connect.FrameDecoder``'s; what a message means is
the fold's (``core/fold.py``) and the answerer's.
"""

from __future__ import annotations

from google.protobuf.message import DecodeError

from .._proto import agent_pb2
from ..errors import ProtocolError
from ..limits import MAX_FRAME_BYTES
from .connect import (
    FLAG_END_STREAM,
    FRAME_HEADER,
    KNOWN_FLAGS,
    FrameDecoder,
    flagged_payload,
)

__all__ = ["ServerItem", "StreamReader", "ThinkingText", "as_message"]


class ThinkingText(str):
    """A thinking delta's text, read off the frame by hand (a plain ``str`` is a text delta's)."""

    __slots__ = ()


# One item of a read's batch: a message, or a delta's text (``ThinkingText`` is a str).
ServerItem = agent_pb2.AgentServerMessage | str

_TEXT_FIELD = 0x0A  # InteractionUpdate.text_delta, field 1, length-delimited
_THINKING_FIELD = 0x22  # InteractionUpdate.thinking_delta, field 4, length-delimited
# A delta read by hand has one-byte lengths: its payload is at most 2 + 127 bytes.
_MAX_HAND_PAYLOAD = 129
_HEAD = 6  # the payload's three tag-and-length pairs before the text


def _heads(field: int) -> list[bytes | None]:
    """Return, by frame size, the 11 bytes a whole frame of one delta starts with (None: none)."""
    heads: list[bytes | None] = []
    for size in range(5 + _MAX_HAND_PAYLOAD + 1):
        payload = size - 5
        if payload <= _HEAD:  # no text (an empty delta is the parser's: it is no progress)
            heads.append(None)
            continue
        heads.append(
            bytes((0, 0, 0, 0, payload, 0x0A, payload - 2, field, payload - 4, 0x0A, payload - 6))
        )
    return heads


# Indexed by the read's size: a read of exactly one data frame holding one delta
# matches one of these in a single comparison.
_TEXT_HEADS = _heads(_TEXT_FIELD)
_THINKING_HEADS = _heads(_THINKING_FIELD)
_MAX_HAND_READ = len(_TEXT_HEADS) - 1
# What a reader with a frame cap below a hand-read delta matches instead: nothing.
_NO_HEADS: list[bytes | None] = [None] * len(_TEXT_HEADS)


def _not_a_message() -> ProtocolError:
    """Return the error for a data frame that holds no AgentServerMessage."""
    return ProtocolError("Cursor sent a stream frame that is not an AgentServerMessage")


def as_message(item: ServerItem) -> agent_pb2.AgentServerMessage:
    """Return ITEM as the AgentServerMessage it came as."""
    if isinstance(item, agent_pb2.AgentServerMessage):
        return item
    if isinstance(item, ThinkingText):
        update = agent_pb2.InteractionUpdate(
            thinking_delta=agent_pb2.ThinkingDeltaUpdate(text=str(item))
        )
    else:
        update = agent_pb2.InteractionUpdate(text_delta=agent_pb2.TextDeltaUpdate(text=item))
    return agent_pb2.AgentServerMessage(interaction_update=update)


class StreamReader(FrameDecoder):
    """A run's answer, read by read: Connect frames in, each read's ``ServerItem`` batch out.

    ``end`` holds the end frame's payload once it came; what follows it stays
    buffered (``pending``), as ``FrameDecoder.read`` leaves it.
    """

    __slots__ = ("_text_heads", "_thinking_heads", "end")

    def __init__(self, *, max_frame: int = MAX_FRAME_BYTES) -> None:
        """Start with nothing read; refuse any frame declaring more than MAX_FRAME bytes."""
        super().__init__(max_frame=max_frame)
        self.end: bytes | None = None
        # A cap below the largest hand-read delta leaves every frame to the decoder,
        # which enforces it.
        hand = max_frame >= _MAX_HAND_PAYLOAD
        self._text_heads = _TEXT_HEADS if hand else _NO_HEADS
        self._thinking_heads = _THINKING_HEADS if hand else _NO_HEADS

    def read_items(self, chunk: bytes) -> list[ServerItem]:
        """Return the items CHUNK completes, in order; set ``end`` at the end frame.

        The hot path of a long answer is a read of exactly one frame of one
        delta: it is matched whole against the delta's expected first bytes
        and its text decoded, with no frame or message object.
        """
        size = len(chunk)
        if size <= _MAX_HAND_READ and not self._buffer:
            head = chunk[:11]
            if head == self._text_heads[size]:
                try:
                    return [str(chunk[11:], "utf-8")]
                except UnicodeDecodeError:
                    raise _not_a_message() from None
            if head == self._thinking_heads[size]:
                try:
                    return [ThinkingText(str(chunk[11:], "utf-8"))]
                except UnicodeDecodeError:
                    raise _not_a_message() from None
        data = self._gather(chunk)
        if data is None:
            return []
        return self._items(data)

    def _items(self, data: bytes) -> list[ServerItem]:
        """Return the items of DATA's whole frames; keep what follows them buffered.

        ``FrameDecoder.read``'s loop, with each delta frame matched in place: a
        read of many small frames (RunSSE's chunks) makes no view or call per delta.
        """
        unpack = FRAME_HEADER.unpack_from
        limit = self._max_frame
        text_heads, thinking_heads = self._text_heads, self._thinking_heads
        parse = agent_pb2.AgentServerMessage.FromString
        view = memoryview(data)
        size = len(data)
        items: list[ServerItem] = []
        at = 0
        try:
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
                        self.end = payload
                        break
                    items.append(parse(payload))  # compressed: rare, left to the parser
                    continue
                if end - at <= _MAX_HAND_READ:
                    head = data[at : at + 11]
                    if head == text_heads[end - at]:
                        items.append(str(data[at + 11 : end], "utf-8"))
                        at = end
                        continue
                    if head == thinking_heads[end - at]:
                        items.append(ThinkingText(str(data[at + 11 : end], "utf-8")))
                        at = end
                        continue
                # upb parses any buffer (the stubs say bytes): a view is not copied.
                items.append(parse(view[at + 5 : end]))  # type: ignore[arg-type]
                at = end
        except (DecodeError, RecursionError, UnicodeDecodeError):
            raise _not_a_message() from None
        self._keep(data, at)
        return items
