"""A round's images fitted to Cursor's limits, and the person told what that changed.

The lane calls ``fitted_messages`` with the round's messages before it builds the
request. Which images go, how and why is ``core/images.py``'s; this module adds
what the pure core cannot: whether the model's bundled row takes images, the log,
and the host's standing notice (set while a round left something out, cleared by
the next round that did not).
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from ..core.history_memo import HistoryMemo
from ..core.images import ImageMemo, fit_messages
from ..errors import loggable
from ..host import RoundContext
from ..models.catalog import find_model

__all__ = ["NOTICE_KEY", "fitted_messages"]

log = logging.getLogger("nodecode_cursor.lanes.round_images")

# The host's standing notice about the images of the last round.
NOTICE_KEY = "cursor.images"


async def fitted_messages(
    ctx: RoundContext, messages: list[dict[str, Any]], memo: HistoryMemo | None = None
) -> list[dict[str, Any]]:
    """Return MESSAGES with their images fitted (``core.images.fit_messages``); tell what changed.

    Decoding and encoding an image takes a while: it runs in a worker thread, never
    on the event loop other rounds share. A model the bundled rows lack (one only the
    roster names) is taken to read images. MEMO is the session's history memo: its
    ``images`` say which messages hold images, and what was fitted in earlier rounds.
    """
    images = memo.images if memo is not None else ImageMemo()
    images.read(messages)
    if not images.with_images:
        if ctx.host is not None:
            ctx.host.notice(None, key=NOTICE_KEY)
        return messages
    if memo is None:
        return await asyncio.to_thread(_fitted, ctx, messages, images)
    # The worker thread has the images' memo to itself: a round cancelled meanwhile
    # gives the session's memo back with a new one in its place.
    memo.images = ImageMemo()
    fitted = await asyncio.to_thread(_fitted, ctx, messages, images)
    memo.images = images
    return fitted


def _fitted(
    ctx: RoundContext, messages: list[dict[str, Any]], memo: ImageMemo
) -> list[dict[str, Any]]:
    """Return ``fitted_messages``'s answer, blocking while the images are fitted."""
    row = find_model(ctx.model)
    no_images = ctx.model if row is not None and "image" not in row.input else None
    fit = fit_messages(messages, no_images, memo)
    for change in fit.changes:
        log.debug("%s", loggable(change))
    for notice in fit.notices:
        log.info("images: %s", loggable(notice))
    if ctx.host is not None:
        ctx.host.notice(" ".join(fit.notices) or None, key=NOTICE_KEY, level="warning")
    return fit.messages
