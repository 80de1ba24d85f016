"""Tool schema projection for the Cursor models whose MCP catalog refuses rich schemas.

Some models (wire.json's ``projection``, the Fable family) take a tool's JSON
schema only without composition: this module projects a schema onto that form,
only ever widening what it accepts, so a call the original schema allowed is
never refused:

1. local ``$ref``s (``#``-pointers into the schema itself) are inlined, with a
   cycle guard (a reference back into its own expansion becomes ``{}``, which
   accepts anything); ``$defs`` / ``definitions`` are dropped afterwards;
2. ``anyOf`` / ``oneOf`` / ``allOf`` whose branches are all object schemas fold
   into the node's properties: ``allOf`` requires the union of the branches'
   required names, the others only what every branch requires; under
   ``anyOf`` / ``oneOf`` a property keeps its schema only when every branch
   gives it alike, else only its annotations (a branch that leaves it out
   accepts any value for it);
3. any other combiner is dropped, and so is a ``not`` (or an ``if`` with its
   ``then`` / ``else``) holding a ``$ref`` or a combiner anywhere, since widening
   inside a negation narrows the whole.

Never raises, whatever JSON it is given: a non-object schema comes back as it
was. Pure. Which models need it is ``routing.needs_schema_projection``; putting
schemas into McpToolDefinitions is ``request_context.py``'s job.
"""

from __future__ import annotations

from typing import Any

__all__ = ["project_schema", "tool_input_schema"]

# Keywords whose value is one subschema (or, for items/prefixItems, a list of them).
_SCHEMA_VALUE_KEYS = frozenset(
    {
        "additionalProperties",
        "unevaluatedProperties",
        "unevaluatedItems",
        "items",
        "additionalItems",
        "contains",
        "propertyNames",
        "contentSchema",
        "then",
        "else",
        "prefixItems",
    }
)
# Keywords whose value maps names to subschemas.
_SCHEMA_MAP_KEYS = frozenset({"properties", "patternProperties", "dependentSchemas"})
_DEFINITION_KEYS = ("$defs", "definitions")
_COMBINERS = ("allOf", "anyOf", "oneOf")
# Keywords that describe without constraining: what a widened property keeps.
_ANNOTATIONS = ("title", "description", "default", "examples", "deprecated")

# Inlining deeper than this stops (the rest becomes {}): a guard against
# schemas whose references fan out without a cycle.
_MAX_REF_DEPTH = 32


def tool_input_schema(parameters: Any, *, project: bool) -> dict[str, Any]:
    """Return a tool's input schema: PARAMETERS (projected when PROJECT), an empty object else."""
    if not isinstance(parameters, dict):
        return {"type": "object", "properties": {}, "required": []}
    projected = project_schema(parameters) if project else parameters
    return projected if isinstance(projected, dict) else {"type": "object"}


def project_schema(schema: Any) -> Any:
    """Return SCHEMA projected for Cursor (see the module docstring); non-objects as they are."""
    if not isinstance(schema, dict):
        return schema
    try:
        return _project(_inline(schema, schema, (), 0))
    except RecursionError:
        # a pathologically deep schema: the widest object schema is still true
        return {"type": "object"}


# --- $ref inlining --------------------------------------------------------------------


def _pointer(root: dict[str, Any], ref: str) -> Any:
    """Return what the local JSON pointer REF names in ROOT, or None when nothing."""
    if ref == "#":
        return root
    if not ref.startswith("#/"):
        return None
    node: Any = root
    for raw in ref[2:].split("/"):
        token = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and token in node:
            node = node[token]
        elif (
            isinstance(node, list)
            and token.isascii()
            and token.isdigit()
            and int(token) < len(node)
        ):
            node = node[int(token)]
        else:
            return None
    return node


def _inline(value: Any, root: dict[str, Any], stack: tuple[str, ...], depth: int) -> Any:
    """Return VALUE with every local $ref inlined from ROOT (STACK: the refs being expanded)."""
    if isinstance(value, list):
        return [_inline(item, root, stack, depth) for item in value]
    if not isinstance(value, dict):
        return value
    ref = value.get("$ref")
    if isinstance(ref, str) and ref.startswith("#"):
        if ref in stack or depth >= _MAX_REF_DEPTH:
            return {}
        target = _pointer(root, ref)
        if isinstance(target, dict):
            inlined = _inline(target, root, (*stack, ref), depth + 1)
            if not isinstance(inlined, dict):
                return inlined
            merged = dict(inlined)
            # siblings of $ref also constrain; the target's own keywords win a
            # clash, which can only accept more than both together did
            for key, item in value.items():
                if key != "$ref" and key not in merged and key not in _DEFINITION_KEYS:
                    merged[key] = _inline(item, root, stack, depth)
            return merged
        if isinstance(target, bool):
            return target
    drop = set(_DEFINITION_KEYS)
    if _touched(value.get("not")):
        # widening inside a negation narrows the whole: drop it
        drop.add("not")
    if _touched(value.get("if")):
        drop.update(("if", "then", "else"))
    return {
        key: _inline(item, root, stack, depth) for key, item in value.items() if key not in drop
    }


def _touched(value: Any) -> bool:
    """Return whether projection would change VALUE: it holds a $ref or a combiner somewhere."""
    pending = [value]
    while pending:
        node = pending.pop()
        if isinstance(node, list):
            pending.extend(node)
        elif isinstance(node, dict):
            if "$ref" in node or any(combiner in node for combiner in _COMBINERS):
                return True
            pending.extend(node.values())
    return False


# --- combiners -------------------------------------------------------------------------


def _is_object_schema(schema: Any) -> bool:
    """Return whether SCHEMA describes an object by its properties."""
    return isinstance(schema, dict) and (
        isinstance(schema.get("properties"), dict) or schema.get("type") == "object"
    )


def _names(value: Any) -> list[str]:
    """Return the string names in a ``required`` value (anything else: none)."""
    return [name for name in value if isinstance(name, str)] if isinstance(value, list) else []


def _annotations(schema: Any) -> dict[str, Any]:
    """Return only the annotation keywords of SCHEMA (a schema that accepts anything)."""
    if not isinstance(schema, dict):
        return {}
    return {key: schema[key] for key in _ANNOTATIONS if key in schema}


def _fold(node: dict[str, Any]) -> dict[str, Any]:
    """Return NODE (already projected below) with its combiners folded or dropped."""
    for combiner in _COMBINERS:
        if combiner not in node:
            continue
        branches = node.pop(combiner)
        if not (
            isinstance(branches, list)
            and branches
            and all(_is_object_schema(branch) for branch in branches)
        ):
            continue
        properties = node.get("properties")
        properties = dict(properties) if isinstance(properties, dict) else {}
        own = set(properties)
        offered: dict[str, list[Any]] = {}
        for branch in branches:
            branch_properties = branch.get("properties")
            if isinstance(branch_properties, dict):
                for name, schema in branch_properties.items():
                    offered.setdefault(name, []).append(schema)
        for name, schemas in offered.items():
            if name in own:
                continue
            first = schemas[0]
            # allOf: any one branch's schema accepts at least what all did;
            # anyOf/oneOf: a branch that leaves the property out (or says it
            # otherwise) lets any value through, so only a schema every branch
            # gives alike is kept, else its annotations alone
            alike = len(schemas) == len(branches) and all(s == first for s in schemas[1:])
            properties[name] = first if combiner == "allOf" or alike else _annotations(first)
        required = _names(node.get("required"))
        branch_required = [_names(branch.get("required")) for branch in branches]
        if combiner == "allOf":
            extra = [name for names in branch_required for name in names]
        else:
            common = set(branch_required[0]).intersection(*branch_required[1:])
            extra = [name for name in branch_required[0] if name in common]
        merged = list(dict.fromkeys(required + extra))
        if all(branch.get("type") == "object" for branch in branches):
            # only when every branch says so: properties alone accept non-objects
            node["type"] = "object"
        node["properties"] = properties
        if merged:
            node["required"] = merged
        else:
            node.pop("required", None)
    return node


def _project(value: Any) -> Any:
    """Return the schema VALUE projected (combiners folded or dropped, risky negations dropped)."""
    if isinstance(value, list):
        return [_project(item) for item in value]
    if not isinstance(value, dict):
        return value
    result: dict[str, Any] = {}
    for key, item in value.items():
        if key in _SCHEMA_MAP_KEYS and isinstance(item, dict):
            result[key] = {name: _project(schema) for name, schema in item.items()}
        elif key in _SCHEMA_VALUE_KEYS or key in _COMBINERS or key in ("not", "if"):
            result[key] = _project(item)
        else:
            result[key] = item
    return _fold(result)
