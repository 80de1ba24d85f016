"""Cursor's bundled models as the host's catalog sees them.

The rows come from ``nodecode_cursor/data/models.json`` (written by
``tools/omp-models.py`` from oh-my-pi's bundled catalog). This module turns them
into typed rows (``bundled_models``) and into the catalog row the cell hands the
host (``catalog_row``), so ``/models`` can list Cursor's models and a turn on
``cursor/<model>`` finds this lane.

The file is read on first use and kept: importing this module reads nothing, since
a host imports every cell at start-up. What the wire reads of the same models
(effort routing, max mode) is ``routing.py``'s; the account's own roster is
``listing.py``'s.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from importlib import resources
from typing import Any

__all__ = [
    "ENV_VARS",
    "PROVIDER",
    "PROVIDER_NAME",
    "LongContextPrice",
    "ModelRow",
    "Price",
    "bundled_models",
    "catalog_row",
    "data_rows",
    "find_model",
]

PROVIDER = "cursor"
PROVIDER_NAME = "Cursor (Claude, GPT, etc.)"
# The variables a host may take a token from, in the order the credential
# resolver tries them after a saved key and the sign-in.
ENV_VARS = ("CURSOR_ACCESS_TOKEN", "CURSOR_API_KEY")

_DATA_FILE = "models.json"


@dataclass(frozen=True, slots=True)
class LongContextPrice:
    """The prices that apply once a request's input passes ``input_threshold`` tokens."""

    input_threshold: int
    input: float
    output: float
    cache_read: float
    cache_write: float


@dataclass(frozen=True, slots=True)
class Price:
    """USD per million tokens."""

    input: float
    output: float
    cache_read: float
    cache_write: float
    long_context: LongContextPrice | None = None


@dataclass(frozen=True, slots=True)
class ModelRow:
    """One bundled model as the catalog reads it."""

    id: str
    name: str
    context_window: int
    max_output: int
    input: tuple[str, ...]
    reasoning: bool
    efforts: tuple[str, ...]
    # None when the row is priced at zero: that is a plan's allowance, not a price.
    price: Price | None


def _number(value: Any, field: str) -> float:
    """Return VALUE as a float, or raise ValueError naming FIELD."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"models.json: {field} is not a number: {value!r}")
    return float(value)


def _integer(value: Any, field: str) -> int:
    """Return VALUE as an int, or raise ValueError naming FIELD."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"models.json: {field} is not an integer: {value!r}")
    return value


def _strings(value: Any, field: str) -> tuple[str, ...]:
    """Return VALUE as a tuple of strings, or raise ValueError naming FIELD."""
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ValueError(f"models.json: {field} is not a list of strings: {value!r}")
    return tuple(value)


def _price(cost: Any, model_id: str) -> Price | None:
    """Return the row's price, or None when it is priced at zero."""
    if not isinstance(cost, dict):
        return None
    field = f"{model_id}.cost"
    input_price = _number(cost.get("input", 0), f"{field}.input")
    output_price = _number(cost.get("output", 0), f"{field}.output")
    # Cursor's plan-only models (composer, "default", older GPT-5.1 rows) carry
    # all-zero costs; showing "$0" would claim they are free.
    if input_price <= 0 and output_price <= 0:
        return None
    tier = cost.get("long_context")
    long_context = None
    if isinstance(tier, dict):
        long_context = LongContextPrice(
            input_threshold=_integer(tier.get("input_threshold"), f"{field}.long_context"),
            input=_number(tier.get("input", 0), f"{field}.long_context.input"),
            output=_number(tier.get("output", 0), f"{field}.long_context.output"),
            cache_read=_number(tier.get("cache_read", 0), f"{field}.long_context.cache_read"),
            cache_write=_number(tier.get("cache_write", 0), f"{field}.long_context.cache_write"),
        )
    return Price(
        input=input_price,
        output=output_price,
        cache_read=_number(cost.get("cache_read", 0), f"{field}.cache_read"),
        cache_write=_number(cost.get("cache_write", 0), f"{field}.cache_write"),
        long_context=long_context,
    )


def _row(raw: Any) -> ModelRow:
    """Return one models.json entry as a ModelRow."""
    if not isinstance(raw, dict) or not isinstance(raw.get("id"), str):
        raise ValueError(f"models.json: a row without an id: {raw!r}")
    model_id: str = raw["id"]
    name = raw.get("name")
    return ModelRow(
        id=model_id,
        name=name if isinstance(name, str) and name else model_id,
        context_window=_integer(raw.get("context_window"), f"{model_id}.context_window"),
        max_output=_integer(raw.get("max_output"), f"{model_id}.max_output"),
        input=_strings(raw.get("input", ["text"]), f"{model_id}.input"),
        reasoning=bool(raw.get("reasoning")),
        efforts=_strings(raw.get("efforts", []), f"{model_id}.efforts"),
        price=_price(raw.get("cost"), model_id),
    )


def data_rows(file_name: str) -> list[Any]:
    """Return the list of rows a bundled data file (``nodecode_cursor/data/``) holds."""
    text = resources.files("nodecode_cursor").joinpath("data", file_name).read_text("utf-8")
    raw = json.loads(text)
    if not isinstance(raw, list):
        raise ValueError(f"{file_name}: the top level is not a list")
    return raw


@functools.cache
def _models() -> dict[str, ModelRow]:
    """Return the bundled rows by id, read from the package's data on first call."""
    rows = (_row(item) for item in data_rows(_DATA_FILE))
    return {row.id: row for row in sorted(rows, key=lambda row: row.id)}


def bundled_models() -> tuple[ModelRow, ...]:
    """Return every bundled model, sorted by id."""
    return tuple(_models().values())


def find_model(model_id: str) -> ModelRow | None:
    """Return the bundled row for MODEL_ID, or None when there is none."""
    return _models().get(model_id)


def _price_json(price: Price | None) -> dict[str, Any] | None:
    """Return PRICE as the catalog's JSON, or None."""
    if price is None:
        return None
    out: dict[str, Any] = {
        "input": price.input,
        "output": price.output,
        "cache_read": price.cache_read,
        "cache_write": price.cache_write,
    }
    if price.long_context is not None:
        tier = price.long_context
        out["long_context"] = {
            "input_threshold": tier.input_threshold,
            "input": tier.input,
            "output": tier.output,
            "cache_read": tier.cache_read,
            "cache_write": tier.cache_write,
        }
    return out


def catalog_row(base_url: str) -> dict[str, Any]:
    """Return the provider row for the host's catalog: Cursor and every bundled model."""
    # Built fresh on each call (from the cached rows) so a host that edits the
    # row it was handed cannot change what the next caller sees.
    models = [
        {
            "id": row.id,
            "name": row.name,
            "context_window": row.context_window,
            "max_output": row.max_output,
            "efforts": list(row.efforts),
            "reasoning": row.reasoning,
            "input": list(row.input),
            "price": _price_json(row.price),
        }
        for row in bundled_models()
    ]
    return {
        "provider": PROVIDER,
        "name": PROVIDER_NAME,
        "base_url": base_url,
        "env": list(ENV_VARS),
        "models": models,
    }
