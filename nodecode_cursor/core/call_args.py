"""A tool call's arguments as the stream carries them, decoded and merged into one JSON object.

Cursor sends an MCP call's arguments as a map of serialized ``Value``s
(``decode_mcp_args``; a string that looks like JSON is parsed, as some models
double-encode), streams them as cumulative text snapshots, and lays a completion
over them; ``merge_arguments`` lays one layer over another as docs/protocol.md
§8 says (a completion never downgrades an object or array to a string),
``rewritten_snapshot`` tells a snapshot that was rewritten from one cut short,
and ``json_text`` writes the result as the chat message's compact JSON.

Pure. Which layers a call has, and when each arrives, is ``fold_calls.py``'s.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from .._proto import agent_pb2
from ..errors import ProtocolError
from ..wire.values import decode_value, finite

__all__ = [
    "decode_mcp_arg",
    "decode_mcp_args",
    "json_text",
    "mcp_call_name",
    "merge_arguments",
    "parse_object",
    "rewritten_snapshot",
]


# The JSON whitespace a value may sit between.
_JSON_SPACE = " \t\n\r"


def decode_mcp_arg(raw: bytes) -> Any:
    """Return one MCP argument as JSON: its Value, a JSON-looking string parsed, else its text."""
    try:
        value = decode_value(raw)
    except ProtocolError:
        return _parse_or_text(raw.decode("utf-8", "replace"))
    if isinstance(value, str) and value.lstrip(_JSON_SPACE)[:1] in ("{", "[", '"'):
        # Some models double-encode structured arguments as a JSON string.
        return _parse_or_text(value)
    return value


def _parse_or_text(text: str) -> Any:
    """Return ``text`` parsed as JSON when it is, else ``text`` itself."""
    stripped = text.strip(_JSON_SPACE)
    if not stripped:
        return text
    try:
        return json.loads(stripped)
    except (ValueError, RecursionError):
        return text


def decode_mcp_args(args: Mapping[str, bytes]) -> dict[str, Any]:
    """Return an McpArgs argument map (each value a serialized Value) as a JSON object.

    Keys come sorted: a protobuf map keeps no order, and the same call should always
    spell the same argument text.
    """
    return {key: decode_mcp_arg(args[key]) for key in sorted(args)}


def mcp_call_name(args: agent_pb2.McpArgs) -> str:
    """Return the tool an McpArgs names: its tool_name, else its name."""
    return args.tool_name or args.name


def merge_arguments(
    streamed: Mapping[str, Any] | None, completion: Mapping[str, Any] | None
) -> dict[str, Any]:
    """Return the completion's arguments laid over the streamed ones.

    The completion wins, except it never downgrades an object or array to a string
    (some completions carry structured values re-serialized as text).
    """
    merged: dict[str, Any] = dict(streamed or {})
    for key, value in (completion or {}).items():
        if isinstance(value, str) and isinstance(merged.get(key), dict | list):
            continue
        merged[key] = value
    return merged


def rewritten_snapshot(text: str) -> bool:
    """Return whether ``text`` holds a whole JSON value followed by more (``{…}{…}``)."""
    decoder = json.JSONDecoder()
    start = len(text) - len(text.lstrip(_JSON_SPACE))
    if start >= len(text):
        return False
    try:
        _, end = decoder.raw_decode(text, start)
    except (ValueError, RecursionError):
        return False
    return bool(text[end:].strip(_JSON_SPACE))


def parse_object(text: str) -> dict[str, Any] | None:
    """Return ``text`` parsed as a JSON object, or None when it is not one."""
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def json_text(arguments: dict[str, Any]) -> str:
    """Return ARGUMENTS as compact JSON text; a NaN or an infinity is written as null."""
    try:
        return json.dumps(arguments, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    except ValueError:
        # A Value may hold NaN or an infinity, which JSON cannot spell: null them.
        return json.dumps(finite(arguments), separators=(",", ":"), ensure_ascii=False)
