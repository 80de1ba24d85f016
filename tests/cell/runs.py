"""Driving one run by hand in the transport tests: its request, its answers, its text.

A run here is a transport opened against the simulator with a minimal run request
whose one root blob is ROOT; ``play`` answers the asks the tests script (KV reads
of ROOT, an empty request context) until the stream ends.
"""

from __future__ import annotations

import hashlib
import uuid
from typing import Any

from nodecode_cursor._proto import agent_pb2
from nodecode_cursor.host import RoundContext
from nodecode_cursor.transports.run import RunSettings

ROOT = b'{"role":"system","content":"be brief"}'


def run_settings(url: str, token: str, **overrides: Any) -> RunSettings:
    """Return settings for a run at URL with TOKEN: short timeouts, no heartbeat."""
    base: dict[str, Any] = {
        "base_url": url,
        "token": token,
        "client_version": "cli-test-1",
        "request_timeout": 5.0,
        "heartbeat_seconds": 0,
    }
    base.update(overrides)
    return RunSettings(**base)


def run_request(text: str = "hi") -> bytes:
    """Return a minimal run request whose one root blob is ROOT."""
    message = agent_pb2.AgentClientMessage()
    state = message.run_request.conversation_state
    state.root_prompt_messages_json.append(hashlib.sha256(ROOT).digest())
    message.run_request.action.user_message_action.user_message.text = text
    message.run_request.conversation_id = "conv-1"
    message.run_request.mcp_tools.SetInParent()  # field 4, sent even empty as the CLI does
    return message.SerializeToString()


def answer(message: agent_pb2.AgentServerMessage) -> bytes | None:
    """Return the answer to an ask the tests script: ROOT for a KV read of its id (else an
    empty result), an empty request context; None for anything else."""
    reply = agent_pb2.AgentClientMessage()
    if message.HasField("kv_server_message"):
        kv = message.kv_server_message
        reply.kv_client_message.id = kv.id
        if kv.get_blob_args.blob_id == hashlib.sha256(ROOT).digest():
            reply.kv_client_message.get_blob_result.blob_data = ROOT
        else:
            reply.kv_client_message.get_blob_result.SetInParent()
        return reply.SerializeToString()
    if message.HasField("exec_server_message"):
        ask = message.exec_server_message
        reply.exec_client_message.id = ask.id
        reply.exec_client_message.exec_id = ask.exec_id
        reply.exec_client_message.request_context_result.success.request_context.SetInParent()
        return reply.SerializeToString()
    return None


async def play(run: Any) -> list[agent_pb2.AgentServerMessage]:
    """Send the run request, answer every ask, return every message until the end."""
    got = []
    run.send(run_request())
    async for message in run.messages():
        got.append(message)
        reply = answer(message)
        if reply is not None:
            run.send(reply)
    return got


def texts(messages: list[agent_pb2.AgentServerMessage]) -> str:
    """Return the text deltas of MESSAGES joined."""
    return "".join(
        m.interaction_update.text_delta.text
        for m in messages
        if m.interaction_update.HasField("text_delta")
    )


# The host tool the lane tests offer: what the scripted model hands off.
LIST_FILES = {
    "type": "function",
    "function": {
        "name": "list_files",
        "description": "List the files in a folder",
        "parameters": {
            "type": "object",
            "properties": {"path": {"type": "string"}},
            "required": ["path"],
        },
    },
}


def round_context(url: str, token: str, prompt: str = "hello", **overrides: Any) -> RoundContext:
    """Return a lane round at URL with TOKEN: one user PROMPT, list_files offered, a new session."""
    fields: dict[str, Any] = {
        "model": "claude-4.5-sonnet",
        "messages": [{"role": "user", "content": prompt}],
        "system": "Be terse.",
        "tools": [LIST_FILES],
        "session_id": f"session-{uuid.uuid4()}",
        "cwd": "/work/here",
        "credential": token,
        "base_url": url,
        "client_version": "cli-lane-test",
        "request_timeout": 10.0,
    }
    fields.update(overrides)
    return RoundContext(**fields)
