"""Text that grows by pieces (an answer streamed in deltas) without copying it at each one.

``text += delta`` on an attribute copies the whole text every time: a flood of
small deltas costs the square of the answer's size. ``GrowingText`` keeps the
pieces in a list, joins them only when the whole is asked for (and keeps the
join), and reads its end without joining. Its size in UTF-8 bytes is counted as
it grows, for the reply cap. What counts as a piece, and the cap itself, are
the caller's (``lanes/agent_stream.py``, ``lanes/agent_lane.py``).
"""

from __future__ import annotations

__all__ = ["GrowingText"]


class GrowingText:
    """A text kept as the list of pieces it grew by."""

    __slots__ = ("_chars", "_pieces", "utf8_bytes")

    def __init__(self, text: str = "") -> None:
        self._pieces: list[str] = [text] if text else []
        self._chars = len(text)
        self.utf8_bytes = _utf8_size(text)

    def add(self, piece: str) -> None:
        """Add PIECE at the end (returns nothing)."""
        if piece:
            self._pieces.append(piece)
            self._chars += len(piece)
            self.utf8_bytes += _utf8_size(piece)

    def __len__(self) -> int:
        """Return the text's length in characters."""
        return self._chars

    def __bool__(self) -> bool:
        """Return whether the text holds anything."""
        return self._chars > 0

    def __str__(self) -> str:
        """Return the whole text (joined once, until it grows again)."""
        pieces = self._pieces
        if len(pieces) > 1:
            pieces[:] = ["".join(pieces)]
        return pieces[0] if pieces else ""

    def tail(self, count: int) -> str:
        """Return the last COUNT characters (all of them when there are fewer)."""
        if count <= 0:
            return ""
        kept: list[str] = []
        need = count
        for piece in reversed(self._pieces):
            if len(piece) >= need:
                kept.append(piece[len(piece) - need :])  # only the part wanted: no copy of all
                break
            kept.append(piece)
            need -= len(piece)
        return "".join(reversed(kept))

    def endswith(self, text: str) -> bool:
        """Return whether the text ends with TEXT."""
        return self.tail(len(text)) == text if text else True


def _utf8_size(text: str) -> int:
    """Return TEXT's size in UTF-8 bytes."""
    return len(text) if text.isascii() else len(text.encode("utf-8", errors="replace"))
