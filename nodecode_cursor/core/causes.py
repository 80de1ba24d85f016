"""The causes of a refusal that says nothing, told apart, and the errors that name them.

Cursor answers several different problems the same way: a bare
``resource_exhausted`` (no ErrorDetails, no token) or a late ``invalid_argument``
with no token (docs/protocol.md §9). What tells them apart are facts the round
already has: the request's size against the model's context window and the root
budget, the account's roster, whether the model is Cursor's own, whether the
conversation already rotated. This module holds the pure pieces of that: the
size estimate (``request_tokens``), the near-the-root-wall test
(``near_root_wall``), and the one-line errors each cause fails with.
``decisions.decide`` picks the cause; the lane gathers the facts. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from .. import limits
from ..errors import ProviderError

__all__ = [
    "CURSOR_OWN_SUGGESTIONS",
    "near_root_wall",
    "pool_spent",
    "request_tokens",
    "roots_refused",
    "too_long",
    "unlisted_model",
]

# Cursor's own models a person may switch to when the third-party pool is spent
# (the 2026-08-25 incident: Composer and Auto still answered; senpi #996/#1037).
CURSOR_OWN_SUGGESTIONS = ("composer-2.5", "default (Auto)")


def request_tokens(blob_sizes: Iterable[int], action_bytes: int = 0) -> int:
    """Return the request's estimated tokens: its root and turn blob bytes plus the action's, / 4.

    Bytes / 4 is the rule of thumb peers use (senpi PR #1120, opencodex); it
    overcounts code a little and undercounts prose in other scripts, close
    enough to tell a history far past the window from one well inside it.
    """
    return (sum(blob_sizes) + action_bytes) // limits.BYTES_PER_TOKEN


def near_root_wall(roots: int, budget_roots: int) -> bool:
    """Return whether a request of ROOTS root blobs is near the roots Cursor refuses.

    Near: at least ``limits.ROOT_WALL_SHARE`` of the budget, or past the wall
    opencodex saw (``limits.ROOT_WALL``).
    """
    return roots > limits.ROOT_WALL or roots * 100 >= budget_roots * limits.ROOT_WALL_SHARE


def _name(model: str, display: str) -> str:
    """Return how an error names MODEL: its display name with the id, or the id alone."""
    return model if not display or display == model else f"{display} ({model})"


def too_long(
    exc: ProviderError, model: str, display: str, tokens: int, window: int
) -> ProviderError:
    """Return the error for a history past MODEL's WINDOW (about TOKENS), even folded harder."""
    return ProviderError(
        f"This conversation is too long for {_name(model, display)}: about {tokens:,} tokens"
        f" of history against its {window:,}-token context window, and Cursor refused it"
        " also with older messages folded harder; start a new session or choose a model"
        " with a larger context window",
        status=exc.status,
        retryable=False,
        code="conversation_too_long",
        hint="start a new session",
    )


def roots_refused(exc: ProviderError, roots: int) -> ProviderError:
    """Return the error for a late invalid_argument near the root wall, also folded harder."""
    return ProviderError(
        f"This conversation is too long for Cursor: it refused the request"
        f" ({exc.code or 'invalid_argument'}, no tokens) with {roots} history blobs, also with"
        " older messages folded harder; start a new session",
        status=exc.status,
        retryable=False,
        code="conversation_too_long",
        hint="start a new session",
    )


def unlisted_model(
    exc: ProviderError, model: str, display: str, listed: Sequence[str]
) -> ProviderError:
    """Return the error for MODEL missing from the account's roster, naming models it LISTED."""
    others = " or ".join(listed[:2])
    way = f"choose one it lists, such as {others}" if others else "choose one it lists"
    return ProviderError(
        f"Cursor refused {_name(model, display)}: the account's model list does not"
        f" include it (the plan may not allow it); {way}",
        status=exc.status,
        retryable=False,
        code="model_not_listed",
    )


def pool_spent(exc: ProviderError, model: str, display: str) -> ProviderError:
    """Return the error for third-party MODEL refused again after a new conversation id."""
    own = " or ".join(CURSOR_OWN_SUGGESTIONS)
    return ProviderError(
        f"Cursor refused {_name(model, display)} again after a new conversation id: the"
        " account's pool for third-party models may be spent; Cursor's own models still"
        f" answer, so switch to {own} (or wait until the pool renews)",
        status=exc.status,
        retryable=False,
        code="third_party_pool_spent",
        hint=f"switch to {own}",
    )
