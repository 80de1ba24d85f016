"""Characters that render blank are shown as escapes and flagged (issue 22, item 10).

``terminal_text.visible`` escapes by Unicode category (Cc, Cf, Co, Cn, Cs, Zl, Zp)
and the fillers and selectors that render blank; a confirmation says they are there.
"""

from __future__ import annotations

import pytest

from nodecode_host.setup import command_question
from nodecode_host.terminal_text import has_hidden, visible

BLANK = [
    "\u061c",  # Arabic letter mark
    "\U000e0041",  # a tag character
    "\U000e007f",  # cancel tag
    "\u180e",  # Mongolian vowel separator
    "\u00ad",  # soft hyphen
    "\u034f",  # combining grapheme joiner
    "\ufe0f",  # variation selector 16
    "\U000e0100",  # variation selector 17
    "\u3164",  # Hangul filler
    "\u115f",  # Hangul choseong filler
    "\u1160",  # Hangul jungseong filler
    "\uffa0",  # halfwidth Hangul filler
    "\ue000",  # private use
    "\U000f0000",  # supplementary private use
    "\u0378",  # unassigned
    "\u2029",  # paragraph separator
]


@pytest.mark.parametrize("char", BLANK, ids=[f"U+{ord(c):04X}" for c in BLANK])
def test_a_blank_rendering_character_is_escaped_and_flagged(char: str) -> None:
    shown = visible(f"rm{char}-rf", lines=False)
    assert char not in shown
    assert f"{ord(char):x}" in shown.lower()
    assert has_hidden(f"ls {char}")
    assert "non-printing" in command_question(f"ls {char}")


def test_plain_text_and_emoji_stay_as_they_are() -> None:
    text = "naïve café — 日本語 ✓ 🙂 \u2764\ufe0f a\u00a0b\tc\n"
    assert visible(text) == text
    assert not has_hidden("naïve café 日本語 🙂")


def test_an_astral_escape_is_unambiguous() -> None:
    assert visible("\U000e0041", lines=False) == "\\U000e0041"
