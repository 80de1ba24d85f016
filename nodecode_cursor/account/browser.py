"""Opening the sign-in page in the person's browser, when there is one to open it in.

``open_page`` asks the standard library's ``webbrowser`` to show a page and
answers whether it did; it never raises, since the page is printed as well and
a browser that will not open is no error. A browser is tried when the person
named one (``BROWSER``), on macOS and Windows, and elsewhere only with a
graphical display (``DISPLAY`` or ``WAYLAND_DISPLAY``): on a bare terminal or
over SSH, ``webbrowser`` would fall back to a text browser that takes the
terminal over. When to offer the page is ``commands.py``'s call.
"""

from __future__ import annotations

import logging
import os
import sys

__all__ = ["has_display", "open_page"]

log = logging.getLogger("nodecode_cursor.account.browser")


def has_display() -> bool:
    """Return whether a browser can be shown: one named in BROWSER, or a desktop to show it on."""
    if os.environ.get("BROWSER", "").strip():
        return True
    if sys.platform in ("darwin", "win32"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def open_page(url: str) -> bool:
    """Return whether URL was handed to the person's browser (False, never an error, if not)."""
    if not has_display():
        return False
    # Deferred: CursorCell.start loads this module and must stay cheap (webbrowser).
    import webbrowser

    try:
        return bool(webbrowser.open(url, new=2))
    except Exception as exc:  # a broken browser setting must not fail the sign-in
        log.debug("the browser did not open: %s", type(exc).__name__)
        return False
