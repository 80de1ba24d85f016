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

import functools
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import regex

__all__ = ["has_hidden", "visible"]

# By Unicode category: controls (C0, DEL, C1: 0x9b is a one-byte CSI), format characters
# (bidi overrides and isolates, zero-width marks, the soft hyphen, tags, U+061C),
# private use, surrogates and unassigned code points, the line and paragraph
# separators. Then the marks and letters that render blank though their category
# says otherwise: the combining grapheme joiner, the Hangul fillers, the Khmer
# inherent vowels, the Mongolian free variation selectors, the variation selectors
# (U+FE00–FE0F, U+E0100–E01EF), which can carry hidden bytes after any letter. Only
# the emoji and text presentation selectors right after a symbol (an emoji's own
# U+FE0F) are kept: there they change how the symbol looks, and hide nothing.
_CATEGORIES = r"\p{Cc}\p{Cf}\p{Co}\p{Cs}\p{Cn}\p{Zl}\p{Zp}"
_BLANK = "\u034f\u115f\u1160\u17b4\u17b5\u180b-\u180f\u3164\uffa0\ufe00-\ufe0d\U000e0100-\U000e01ef"
_PRESENTATION = r"(?<!\p{So})[\ufe0e\ufe0f]"
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


@functools.cache
def _patterns() -> tuple[regex.Pattern[str], regex.Pattern[str]]:
    """Return (every hiding character, the same but line feeds and tabs), compiled once.

    Compiled on first use, with the ``regex`` module: a command that writes nothing
    the model or the network chose loads neither.
    """
    import regex

    hidden = regex.compile(f"[{_CATEGORIES}{_BLANK}]|{_PRESENTATION}")
    but_lines = regex.compile(f"[[{_CATEGORIES}{_BLANK}]--[\\n\\t]]|{_PRESENTATION}", regex.V1)
    return hidden, but_lines


def _shown(match: regex.Match[str]) -> str:
    """Return the visible escape of the one hidden character MATCH holds."""
    char = match.group()
    if char in _NAMED:
        return _NAMED[char]
    code = ord(char)
    if code <= 0xFF:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def visible(text: str, *, lines: bool = True) -> str:
    """Return TEXT with every control or hiding character shown as a visible escape.

    With LINES, line feeds and tabs are kept as they are (streamed prose keeps its
    shape); without, they are escaped too, so the text stays on one line.
    """
    hidden, but_lines = _patterns()
    return (but_lines if lines else hidden).sub(_shown, text)


def has_hidden(text: str) -> bool:
    """Return whether TEXT holds any character ``visible(lines=False)`` would escape."""
    return _patterns()[0].search(text) is not None
