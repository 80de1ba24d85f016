"""Only ASCII digits are a number where the cell reads one from text (issue 36, item 8).

``str.isdigit()`` takes "²" and "٣", which ``int()`` then refuses with a raw
ValueError; a schema's ``$ref`` and the history budget's variable are read by the
cell from text a client or a person wrote.
"""

from __future__ import annotations

import pytest

from nodecode_cursor.core.budget import resolve_budget
from nodecode_cursor.core.schema import project_schema
from nodecode_cursor.errors import ConfigError


def test_a_budget_of_unicode_digits_is_a_config_error_in_words() -> None:
    with pytest.raises(ConfigError, match="two whole numbers"):
        resolve_budget("19²,524288", None)
    assert resolve_budget("64,65536", None).roots == 64


def test_a_ref_index_of_unicode_digits_names_nothing() -> None:
    schema = {
        "$defs": {"pair": [{"type": "string"}, {"type": "integer"}]},
        "type": "object",
        "properties": {"a": {"$ref": "#/$defs/pair/¹"}, "b": {"$ref": "#/$defs/pair/1"}},
    }
    projected = project_schema(schema)
    assert projected["properties"]["b"] == {"type": "integer"}
    assert projected["properties"]["a"] != {"type": "integer"}  # not read as index 1
