"""The JSON the scripted model answers with when a round demands a JSON object.

Cursor's service has no field for an output format, so a host says it in the
system prompt (``serve`` writes "Your final answer must be exactly one JSON
object …", with the JSON Schema after it when the client gave one). A client
may also put the schema in its own system prompt (instructor's JSON mode).
``json_demand`` finds the demand and its schema in the root messages;
``fenced_json_demand`` finds a request for JSON in a Markdown fence (instructor's
MD_JSON mode). ``minimal_object`` makes the smallest value that schema accepts: its required
properties, each with a value of its type (an enum's first value, a const,
nested objects and arrays at their minimum sizes). Nothing here checks an
answer: that is the host's.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

__all__ = ["fenced_json_demand", "json_demand", "minimal_object", "minimal_value"]

# serve's instruction (nodecode_host/api_round.py, _instructions): the simulator
# may not import the host, so its words are matched here.
_DEMAND = "final answer must be exactly one JSON object"
_WITH_SCHEMA = re.compile(r"validates against this JSON Schema \([^)]*\): ")
# A request naming this fence wants its JSON inside one.
_FENCE = "```json"
# How deep a schema's nesting (or a $ref's recursion) is followed before an empty value.
_MAX_DEPTH = 12
# A text longer than this is not searched for a schema of the client's own.
_MAX_SEARCH = 256 * 1024


def _texts(message: Any) -> list[str]:
    """Return the texts of a root message (its string content, or its text parts)."""
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, str):
        return [content]
    if isinstance(content, list):
        return [str(p.get("text", "")) for p in content if isinstance(p, dict) and "text" in p]
    return []


def _schema_in(text: str) -> dict[str, Any] | None:
    """Return the first JSON object in TEXT that reads as an object's schema, else None."""
    if len(text) > _MAX_SEARCH:
        return None
    decoder = json.JSONDecoder()
    for match in re.finditer(r"\{\s*\"", text):
        try:
            found, _ = decoder.raw_decode(text, match.start())
        except ValueError:
            continue
        if isinstance(found, dict) and isinstance(found.get("properties"), dict):
            return found
    return None


def json_demand(roots: Sequence[Any]) -> dict[str, Any] | None:
    """Return the schema a JSON demand in the root messages names ({} for any object),
    or None when the round demands no JSON."""
    texts = [text for message in roots for text in _texts(message)]
    demanded = [text for text in texts if _DEMAND in text]
    if not demanded:
        return None
    decoder = json.JSONDecoder()
    for text in demanded:
        match = _WITH_SCHEMA.search(text)
        if match is None:
            continue
        try:
            schema, _ = decoder.raw_decode(text, match.end())
        except ValueError:
            continue
        if isinstance(schema, dict):
            return schema
    # No schema in the demand: the client's own prompt may hold one (instructor's JSON mode).
    for text in texts:
        found = _schema_in(text)
        if found is not None:
            return found
    return {}


def fenced_json_demand(request: str, roots: Sequence[Any]) -> dict[str, Any] | None:
    """Return the schema of a JSON answer REQUEST asks for in a ```json fence ({} for any
    object), or None when it asks for none.

    instructor's MD_JSON mode puts the schema in its system message and asks, in the
    last user message, for "the correct JSON response within a ```json codeblock".
    """
    if _FENCE not in request:
        return None
    for text in (t for message in roots for t in _texts(message)):
        found = _schema_in(text)
        if found is not None:
            return found
    return {}


def _resolve(ref: str, root: dict[str, Any]) -> dict[str, Any]:
    """Return the part of ROOT a local ``$ref`` (``#/$defs/Name``) points at ({} if none)."""
    if not ref.startswith("#"):
        return {}
    node: Any = root
    for part in ref[1:].split("/"):
        if not part:
            continue
        part = part.replace("~1", "/").replace("~0", "~")
        node = node.get(part) if isinstance(node, dict) else None
    return node if isinstance(node, dict) else {}


def _string(schema: dict[str, Any]) -> str:
    """Return a short string SCHEMA's length and common formats accept."""
    formats = {
        "date-time": "1970-01-01T00:00:00Z",
        "date": "1970-01-01",
        "time": "00:00:00Z",
        "email": "someone@example.com",
        "uri": "https://example.com/",
        "uuid": "00000000-0000-0000-0000-000000000000",
    }
    text = formats.get(str(schema.get("format")), "x")
    least = schema.get("minLength")
    if isinstance(least, int) and len(text) < least:
        text += "x" * (least - len(text))
    return text


def _number(schema: dict[str, Any], integer: bool) -> int | float:
    """Return the smallest number SCHEMA's bounds accept (0 when it has none)."""
    low = schema.get("minimum")
    above = schema.get("exclusiveMinimum")
    value: int | float = 0
    if isinstance(low, int | float) and not isinstance(low, bool):
        value = low
    if isinstance(above, int | float) and not isinstance(above, bool):
        value = above + 1 if integer else above + 0.5
    high = schema.get("maximum")
    if isinstance(high, int | float) and not isinstance(high, bool) and value > high:
        value = high
    return int(value) if integer else value


def minimal_object(schema: dict[str, Any]) -> Any:
    """Return the smallest value SCHEMA accepts (an object for an object's schema)."""
    return _minimal(schema, schema, 0)


def minimal_value(schema: Any, root: dict[str, Any]) -> Any:
    """Return the smallest value SCHEMA (a part of ROOT, whose refs it may use) accepts."""
    return _minimal(schema, root, 1)


def _minimal(schema: Any, root: dict[str, Any], depth: int) -> Any:
    """Return a minimal value for SCHEMA, resolving its refs against ROOT."""
    if not isinstance(schema, dict) or depth > _MAX_DEPTH:
        return {}
    if isinstance(schema.get("$ref"), str):
        return _minimal(_resolve(schema["$ref"], root), root, depth + 1)
    if "const" in schema:
        return schema["const"]
    enum = schema.get("enum")
    if isinstance(enum, list) and enum:
        return enum[0]
    for key in ("anyOf", "oneOf"):
        options = schema.get(key)
        if isinstance(options, list) and options:
            chosen = next((o for o in options if _kind(o) != "null"), options[0])
            return _minimal(chosen, root, depth + 1)
    every = schema.get("allOf")
    if isinstance(every, list) and every:
        merged: dict[str, Any] = {k: v for k, v in schema.items() if k != "allOf"}
        for part in every:
            if isinstance(part, dict) and isinstance(part.get("$ref"), str):
                part = _resolve(part["$ref"], root)
            if isinstance(part, dict):
                merged.setdefault("properties", {}).update(part.get("properties") or {})
                merged["required"] = list(merged.get("required") or []) + list(
                    part.get("required") or []
                )
                merged.setdefault("type", part.get("type"))
        return _minimal(merged, root, depth + 1)
    kind = _kind(schema)
    if kind == "string":
        return _string(schema)
    if kind in ("integer", "number"):
        return _number(schema, kind == "integer")
    if kind == "boolean":
        return False
    if kind == "null":
        return None
    if kind == "array":
        least = schema.get("minItems")
        count = least if isinstance(least, int) and least > 0 else 0
        return [_minimal(schema.get("items"), root, depth + 1) for _ in range(count)]
    properties = schema.get("properties")
    properties = properties if isinstance(properties, dict) else {}
    required = schema.get("required")
    return {
        name: _minimal(properties.get(name, {}), root, depth + 1)
        for name in (required if isinstance(required, list) else [])
        if isinstance(name, str)
    }


def _kind(schema: Any) -> str | None:
    """Return SCHEMA's type (the first that is not null when it lists several)."""
    if not isinstance(schema, dict):
        return None
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), kind[0] if kind else None)
    if kind is None and "properties" in schema:
        return "object"
    return kind if isinstance(kind, str) else None
