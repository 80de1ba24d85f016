"""One real cursor-agent turn, opt-in: it runs only when a real ``cursor-agent`` is on the PATH
and ``CURSOR_API_KEY`` is set (then it dials Cursor and spends a few tokens); skipped otherwise.
"""

from __future__ import annotations

import asyncio
import os
import shutil
from pathlib import Path

import pytest

from nodecode_cursor.cell import CursorCell
from nodecode_cursor.host import MemoryHost, RoundContext

# Read when the module is imported, before any test puts the stand-in first on PATH.
REAL_AGENT = shutil.which("cursor-agent")
STANDIN = Path(__file__).resolve().parents[1] / "agent_standin" / "cursor-agent"
WANTED = (
    REAL_AGENT is not None
    and Path(REAL_AGENT).resolve() != STANDIN.resolve()
    and bool(os.environ.get("CURSOR_API_KEY", "").strip())
)


@pytest.mark.skipif(not WANTED, reason="no real cursor-agent on the PATH, or no CURSOR_API_KEY")
def test_one_real_turn(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    cell = CursorCell()
    assert cell.start(MemoryHost(home))
    try:
        context = RoundContext(
            model="cursor-agent/auto",
            messages=[{"role": "user", "content": "Reply with the single word: pong"}],
            session_id="real-turn",
            cwd=str(tmp_path),
        )
        result = asyncio.run(cell.lanes["cursor-agent"](context))
    finally:
        cell.stop()
    assert "pong" in (result.message["content"] or "").lower()
    assert (home / "cursor-agent" / "sessions.json").is_file()
