"""What the service asked of a run, in a few words, and the abort that ends a run.

``ask_name`` names one ask (an exec ask, an interaction query, a key-value
request) so a run that then stalls on heartbeats can say what it stalled after
(``lanes/pump.py`` keeps the last one and words the error). ``service_abort``
returns the error an ``exec_server_control`` abort ends the round with: the
service stopped the run, and nothing the client sends brings it back
(docs/protocol.md §6). Answering the asks is ``answers.py``'s; ending the round
is the pump's. Pure: messages in, words or an error out.
"""

from __future__ import annotations

from typing import Any

from google.protobuf import unknown_fields

from .._proto import agent_pb2
from ..errors import ProviderError

__all__ = ["SERVICE_ABORTED", "ask_name", "service_abort"]

# The code of the error a run the service aborted ends with (not retryable: the
# service chose to stop it, and a resume would only be stopped again).
SERVICE_ABORTED = "service_aborted"

# AgentServerMessage members that ask the client something, and how they are called.
_ASKS = {
    "exec_server_message": "exec ask",
    "interaction_query": "interaction query",
    "kv_server_message": "key-value ask",
}
# The oneof of each ask that says what it asks for.
_ONEOF = {
    "exec_server_message": "message",
    "interaction_query": "query",
    "kv_server_message": "message",
}


def ask_name(message: agent_pb2.AgentServerMessage) -> str | None:
    """Return what MESSAGE asks for in a few words (``interaction query setup_vm…``), or None."""
    member = message.WhichOneof("message")
    kind = _ASKS.get(member or "")
    if member is None or kind is None:
        return None
    ask = getattr(message, member)
    which = ask.WhichOneof(_ONEOF[member])
    if which is not None:
        return f"{kind} {which} (id {ask.id})"
    number = _unknown_member(ask)
    what = f"member {number}" if number is not None else "with no member"
    return f"{kind} {what} (id {ask.id})"


def service_abort(message: agent_pb2.AgentServerMessage) -> ProviderError | None:
    """Return the error an exec_server_control abort in MESSAGE ends the round with, or None."""
    if message.WhichOneof("message") != "exec_server_control_message":
        return None
    control = message.exec_server_control_message
    if not control.HasField("abort"):
        return None
    return ProviderError(
        f"Cursor's service stopped the run (it sent an abort for exec {control.abort.id});"
        " the round ended without the rest of the answer (try again)",
        retryable=False,
        code=SERVICE_ABORTED,
    )


def _unknown_member(ask: Any) -> int | None:
    """Return the number of the first field of ASK our schema does not know (≥ 2), or None."""
    unknown = unknown_fields.UnknownFieldSet(ask)
    for position in range(len(unknown)):
        number = int(unknown[position].field_number)
        if number >= 2:
            return number
    return None
