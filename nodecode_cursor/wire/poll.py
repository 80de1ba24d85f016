"""RunPoll's frames: each ``BidiPollResponse`` checked in order and the message it carries.

RunPoll streams Connect frames of ``BidiPollResponse{1 seqno, 2 data (base64 of
one AgentServerMessage), 3 eof}`` (docs/protocol.md §4). ``PollFrames`` checks
the numbering (no gap, no duplicate, nothing after the eof), unwraps each
message and refuses a clean end that came before the eof frame. Pure: bytes in,
messages out; reading the stream is ``transports/sse.py``'s.
"""

from __future__ import annotations

import base64
import binascii

from google.protobuf.message import DecodeError

from .._proto import agent_pb2, aiserver_pb2
from ..errors import ProtocolError
from .connect import Payload
from .stream import ServerItem

__all__ = ["PollFrames"]


class PollFrames:
    """Checks RunPoll's numbered frames and unwraps the message each carries."""

    __slots__ = ("eof", "next_seqno")

    def __init__(self) -> None:
        self.next_seqno = 0
        self.eof = False

    def messages(self, payloads: list[Payload]) -> list[ServerItem]:
        """Return the messages a read's RunPoll frames carry, in order (some carry none)."""
        return [message for p in payloads if (message := self.message(p)) is not None]

    def message(self, payload: Payload) -> agent_pb2.AgentServerMessage | None:
        """Return the message a BidiPollResponse frame carries (None when it has none)."""
        try:
            poll = aiserver_pb2.BidiPollResponse.FromString(payload)  # type: ignore[arg-type]
        except (DecodeError, RecursionError):
            raise ProtocolError(
                "Cursor sent a RunPoll frame that is not a BidiPollResponse"
            ) from None
        if self.eof:
            raise ProtocolError("Cursor's RunPoll sent a frame after its eof")
        if poll.seqno != self.next_seqno:
            what = "a duplicate" if poll.seqno < self.next_seqno else "a gap"
            raise ProtocolError(
                f"Cursor's RunPoll frame {poll.seqno} is {what}: expected {self.next_seqno}"
            )
        self.next_seqno += 1
        self.eof = poll.eof
        if not poll.data:
            return None
        try:
            raw = base64.b64decode(poll.data, validate=True)
            return agent_pb2.AgentServerMessage.FromString(raw)
        except (binascii.Error, DecodeError, RecursionError):
            raise ProtocolError(
                f"Cursor's RunPoll frame {poll.seqno} does not carry an AgentServerMessage"
            ) from None

    def check_end(self) -> None:
        """Refuse a clean end frame that came before the eof frame."""
        if not self.eof:
            raise ProtocolError("Cursor's RunPoll ended without its eof frame")
