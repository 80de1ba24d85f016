"""Tool schema projection: table cases, and with hypothesis: never raises, only widens."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from nodecode_cursor.core.schema import project_schema, tool_input_schema


def test_local_refs_are_inlined_and_definitions_dropped() -> None:
    schema = {
        "type": "object",
        "$defs": {"Path": {"type": "string", "description": "a path"}},
        "properties": {"p": {"$ref": "#/$defs/Path", "title": "P"}},
    }
    assert project_schema(schema) == {
        "type": "object",
        "properties": {"p": {"type": "string", "description": "a path", "title": "P"}},
    }


def test_a_cyclic_ref_becomes_the_schema_that_accepts_anything() -> None:
    schema = {
        "definitions": {
            "Node": {"type": "object", "properties": {"next": {"$ref": "#/definitions/Node"}}}
        },
        "$ref": "#/definitions/Node",
    }
    assert project_schema(schema) == {"type": "object", "properties": {"next": {}}}


def test_all_of_object_branches_merge_with_the_union_of_required() -> None:
    schema = {
        "allOf": [
            {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]},
            {"type": "object", "properties": {"b": {"type": "integer"}}, "required": ["b"]},
        ]
    }
    assert project_schema(schema) == {
        "type": "object",
        "properties": {"a": {"type": "string"}, "b": {"type": "integer"}},
        "required": ["a", "b"],
    }


def test_any_of_keeps_what_every_branch_requires_and_says_alike() -> None:
    schema = {
        "type": "object",
        "properties": {"mode": {"type": "string"}},
        "required": ["mode"],
        "anyOf": [
            {
                "type": "object",
                "properties": {
                    "id": {"type": "string"},
                    "x": {"type": "integer", "description": "X"},
                },
                "required": ["id", "x"],
            },
            {"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]},
        ],
    }
    assert project_schema(schema) == {
        "type": "object",
        "properties": {
            "mode": {"type": "string"},
            "id": {"type": "string"},
            "x": {"description": "X"},
        },
        "required": ["mode", "id"],
    }


def test_other_combiners_and_risky_negations_are_dropped() -> None:
    schema = {
        "type": "object",
        "properties": {
            "v": {"oneOf": [{"type": "string"}, {"type": "null"}], "description": "d"},
            "w": {"not": {"anyOf": [{"type": "string"}]}},
            "n": {"not": {"type": "null"}},
            "c": {"if": {"allOf": []}, "then": {"type": "string"}, "else": {"type": "integer"}},
        },
    }
    assert project_schema(schema) == {
        "type": "object",
        "properties": {"v": {"description": "d"}, "w": {}, "n": {"not": {"type": "null"}}, "c": {}},
    }


def test_non_objects_come_back_as_they_are_and_tool_schemas_default_to_an_object() -> None:
    for value in (None, True, 3, "s", [1, {"anyOf": []}]):
        assert project_schema(value) == value
    assert tool_input_schema(None, project=True) == {
        "type": "object",
        "properties": {},
        "required": [],
    }
    raw = {"type": "object", "anyOf": [{"type": "object"}]}
    assert tool_input_schema(raw, project=False) is raw
    assert tool_input_schema(raw, project=True) == {"type": "object", "properties": {}}


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(
            st.sampled_from(
                [
                    "type",
                    "properties",
                    "anyOf",
                    "oneOf",
                    "allOf",
                    "not",
                    "$ref",
                    "$defs",
                    "required",
                    "items",
                    "if",
                    "then",
                    "a",
                    "#",
                ]
            )
            | st.text(max_size=3),
            inner,
            max_size=5,
        )
    ),
    max_leaves=30,
)


@settings(max_examples=300, deadline=None)
@given(json_values)
def test_projection_never_raises_on_random_json(value: Any) -> None:
    projected = project_schema(value)
    json.dumps(projected)
    if not isinstance(value, dict):
        assert projected == value


# --- only widening: a small validator for the keywords the strategy uses -------------

NAMES = ["a", "b", "c"]
TYPES = {
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "object": lambda v: isinstance(v, dict),
    "null": lambda v: v is None,
}


def valid(schema: Any, value: Any, root: dict[str, Any]) -> bool:
    """Return whether VALUE satisfies SCHEMA (type, properties, required, additionalProperties,
    enum, combiners, not, local $ref)."""
    if schema is True or schema == {}:
        return True
    if schema is False:
        return False
    if not isinstance(schema, dict):
        return True
    if "$ref" in schema:
        target = root["$defs"][schema["$ref"].rsplit("/", 1)[1]]
        if not valid(target, value, root):
            return False
    if "type" in schema and not TYPES[schema["type"]](value):
        return False
    if "enum" in schema and value not in schema["enum"]:
        return False
    if isinstance(value, dict):
        properties = schema.get("properties", {})
        for name, item in value.items():
            if name in properties:
                if not valid(properties[name], item, root):
                    return False
            elif schema.get("additionalProperties") is False:
                return False
        if any(name not in value for name in schema.get("required", [])):
            return False
    if "allOf" in schema and not all(valid(b, value, root) for b in schema["allOf"]):
        return False
    if "anyOf" in schema and not any(valid(b, value, root) for b in schema["anyOf"]):
        return False
    if "oneOf" in schema and sum(valid(b, value, root) for b in schema["oneOf"]) != 1:
        return False
    return not ("not" in schema and valid(schema["not"], value, root))


leaf_schemas = st.sampled_from(
    [
        {},
        {"type": "string"},
        {"type": "integer"},
        {"type": "null"},
        {"enum": [1, "x"]},
        {"$ref": "#/$defs/D"},
    ]
)


def object_schema(inner: st.SearchStrategy[Any]) -> st.SearchStrategy[dict[str, Any]]:
    """Return a strategy of object schemas over NAMES."""
    return st.fixed_dictionaries(
        {"properties": st.dictionaries(st.sampled_from(NAMES), inner, max_size=3)},
        optional={
            "type": st.just("object"),
            "required": st.lists(st.sampled_from(NAMES), max_size=3, unique=True),
            "additionalProperties": st.booleans(),
        },
    )


schemas = st.recursive(
    leaf_schemas,
    lambda inner: (
        object_schema(inner)
        | st.builds(
            lambda k, b: {k: b},
            st.sampled_from(["anyOf", "oneOf", "allOf"]),
            st.lists(object_schema(inner) | inner, min_size=1, max_size=3),
        )
        | st.builds(lambda n: {"not": n}, inner)
    ),
    max_leaves=12,
)
values = st.recursive(
    st.none() | st.integers(0, 2) | st.sampled_from(["x", "y"]),
    lambda inner: st.dictionaries(st.sampled_from(NAMES), inner, max_size=3),
    max_leaves=8,
)


@settings(max_examples=400, deadline=None)
@given(schemas, st.lists(values, min_size=1, max_size=6))
def test_projection_only_widens(schema: Any, instances: list[Any]) -> None:
    root = {"$defs": {"D": {"type": "object", "properties": {"a": {"type": "string"}}}}}
    original = {**schema, **root} if isinstance(schema, dict) else schema
    projected = project_schema(original)
    assert "$defs" not in projected
    text = json.dumps(projected)
    assert "$ref" not in text
    assert not any(f'"{combiner}"' in text for combiner in ("anyOf", "oneOf", "allOf"))
    for instance in instances:
        if valid(original, instance, root):
            assert valid(projected, instance, root), (original, projected, instance)
