"""What a round would cost at the bundled rows' published rates: an estimate, never invented.

Cursor bills a subscription and credits, not tokens at list prices, so this is
only an estimate of what the same tokens cost at the rates the bundled model
rows publish (``data/models.json`` ``cost``, USD per million tokens: input,
output, cache read, cache write). A row with a long-context tier is priced at
that tier's rates when the round's prompt — input plus cache reads and writes —
passes the tier's threshold. A model without a known price (no bundled row, or
a row priced at zero, which is a plan's allowance rather than a price) has no
estimate: no default rate is ever applied.

Pure: no I/O. The rows are ``catalog.py``'s; the lane puts the estimate on the
round's result.
"""

from __future__ import annotations

from ..host import Usage
from ..models.catalog import LongContextPrice, Price, find_model

__all__ = ["PROVIDER_PREFIX", "round_cost"]

PROVIDER_PREFIX = "cursor/"
_PER_MILLION = 1_000_000


def _rates(price: Price, prompt_tokens: int) -> Price | LongContextPrice:
    """Return the rates a prompt of PROMPT_TOKENS is priced at: the long-context tier past it."""
    tier = price.long_context
    if tier is not None and prompt_tokens > tier.input_threshold:
        return tier
    return price


def round_cost(model: str, usage: Usage) -> float | None:
    """Return the round's estimated cost in USD at MODEL's published rates, or None when unknown."""
    row = find_model(model.removeprefix(PROVIDER_PREFIX))
    if row is None or row.price is None:
        return None
    prompt = usage.input + usage.cache_read + usage.cache_write
    rates = _rates(row.price, prompt)
    # Output counts every generated token, reasoning included (Usage.reasoning is a part of it).
    cost = (
        usage.input * rates.input
        + usage.output * rates.output
        + usage.cache_read * rates.cache_read
        + usage.cache_write * rates.cache_write
    ) / _PER_MILLION
    return round(cost, 8)
