"""An answerer and its round's fold, driven as the lane drives them (for the answer tests).

The answerer returns what it decided (``answers.Answer``); the lane lays the
answer's calls on the round's ``Fold`` (``Fold.apply``) and sends the replies.
``Answering`` does the same, keeping the parts the host would be shown.
"""

from __future__ import annotations

import uuid

from nodecode_cursor._proto import agent_pb2
from nodecode_cursor.core.answers import Answerer, BlobStore
from nodecode_cursor.core.bridge import Bridged
from nodecode_cursor.core.fold import Fold
from nodecode_cursor.host import StreamPart


def new_id() -> str:
    """Return a fresh call id, as the lane's factory makes them."""
    return str(uuid.uuid4())


class Answering:
    """ANSWERER with the round's fold: each answer's calls applied to it, its replies returned."""

    def __init__(self, answerer: Answerer) -> None:
        self.answerer = answerer
        self.fold = Fold(new_id=new_id, host_names=answerer.host_names, declared=answerer.declared)
        self.parts: list[StreamPart] = []

    def answer(self, msg: agent_pb2.AgentServerMessage) -> list[agent_pb2.AgentClientMessage]:
        """Return the replies to MSG, after laying its answer's calls on the fold."""
        answer = self.answerer.answer(msg)
        self.parts += self.fold.apply(answer.calls)
        return answer.replies

    @property
    def handed_off(self) -> bool:
        """Return whether the answerer handed a call off this round."""
        return self.answerer.handed_off

    @property
    def blobs(self) -> BlobStore:
        """Return the blobs the answerer serves."""
        return self.answerer.blobs

    @property
    def bridged(self) -> dict[str, Bridged]:
        """Return the native asks handed off to host tools, by call id."""
        return self.answerer.bridged
