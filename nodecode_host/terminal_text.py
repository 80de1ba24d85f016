"""Text from the model (or the network) made safe to write to a terminal.

A terminal obeys the control characters and escape sequences in what it is
given: ``ESC [2J`` clears the screen, ``\\r`` goes back over a line, a
right-to-left override reorders what follows. Anything the model controls —
assistant text, reasoning, tool names and arguments, result previews, error
text — passes through ``visible`` before it is written, so each such
character is shown as a visible escape (``\\x1b``, ``\\r``, ``\\u202e``) and
never interpreted. What is styled on purpose (the host's own colours) is
added after, by ``render.Style``; writing is the caller's job.
"""

from __future__ import annotations

import re

__all__ = ["has_hidden", "visible"]

# C0 controls, DEL and the C1 controls (0x80–0x9f: 0x9b is a one-byte CSI), and the
# Unicode format characters that reorder or hide text (bidi embeddings, overrides and
# isolates, zero-width marks, the line and paragraph separators).
_HIDDEN = re.compile("[\x00-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]")
_HIDDEN_BUT_LINES = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]"
)
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _shown(match: re.Match[str]) -> str:
    """Return the visible escape of the one hidden character MATCH holds."""
    char = match.group()
    if char in _NAMED:
        return _NAMED[char]
    code = ord(char)
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def visible(text: str, *, lines: bool = True) -> str:
    """Return TEXT with every control or hiding character shown as a visible escape.

    With LINES, line feeds and tabs are kept as they are (streamed prose keeps its
    shape); without, they are escaped too, so the text stays on one line.
    """
    return (_HIDDEN_BUT_LINES if lines else _HIDDEN).sub(_shown, text)


def has_hidden(text: str) -> bool:
    """Return whether TEXT holds any character ``visible(lines=False)`` would escape."""
    return _HIDDEN.search(text) is not None
