"""An estimated cost for a round's usage, priced at the bundled rows' published rates.

Cursor bills by plan and credits, so this is an estimate, never a bill. A model
the bundled rows do not price (``auto``, Composer, a model only the CLI names)
has no estimate: no default rate is ever applied. Pure: the rows are
``catalog.py``'s.
"""

from __future__ import annotations

from . import catalog
from .host import Usage

__all__ = ["estimate_cost"]

_PER_TOKENS = 1_000_000  # the rows' prices are USD per million tokens


def estimate_cost(model_id: str, usage: Usage | None) -> float | None:
    """Return USAGE priced at MODEL_ID's bundled rates in USD, or None when either is unknown.

    Above the row's long-context threshold (the prompt's tokens: input plus cache
    reads and writes) the long-context rates apply to the whole round.
    """
    row = catalog.find_model(model_id)
    if usage is None or row is None or row.price is None:
        return None
    price = row.price
    prompt = usage.input + usage.cache_read + usage.cache_write
    tier = price.long_context
    rates = tier if tier is not None and prompt > tier.input_threshold else price
    total = (
        usage.input * rates.input
        + usage.output * rates.output
        + usage.cache_read * rates.cache_read
        + usage.cache_write * rates.cache_write
    ) / _PER_TOKENS
    return round(total, 6)
