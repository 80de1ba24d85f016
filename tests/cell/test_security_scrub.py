"""Secrets scrubbed by value (issue 12, item 7): an opaque key the service echoes never
reaches an error, driven over the simulator.
"""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path
from typing import Any

import pytest

from cursor_simulator import Simulator
from cursor_simulator.steps import EndError, StepStarted
from nodecode_cursor.cell import CursorCell
from nodecode_cursor.errors import CursorError
from nodecode_cursor.host import MemoryHost, RoundContext

TOKEN = "sim-token-security-cell"
MODEL = "composer-2.5"

# Connect frames written by hand: flags 0, a 4-byte big-endian length, the message.
EMPTY_FRAME = b"\x00\x00\x00\x00\x00"  # an AgentServerMessage with nothing in it
# Field 99 (unknown to us) as a varint of 1: tag (99 << 3 | 0) = 792 = 0x98 0x06.
UNKNOWN_FIELD_FRAME = b"\x00\x00\x00\x00\x03" + b"\x98\x06\x01"


def context(sim: Simulator, **overrides: Any) -> RoundContext:
    fields: dict[str, Any] = {
        "model": MODEL,
        "messages": [{"role": "user", "content": "hello"}],
        "session_id": f"session-{uuid.uuid4()}",
        "credential": TOKEN,
        "base_url": sim.url,
        "request_timeout": 1.5,
    }
    fields.update(overrides)
    return RoundContext(**fields)


# Item 7 ------------------------------------------------------------------------------------


def test_an_opaque_key_echoed_by_the_service_is_scrubbed_from_the_error(
    sim: Simulator, home: Path
) -> None:
    key = "crsr_0123456789abcdef0123456789abcdef"
    cell = CursorCell()
    assert cell.start(MemoryHost(home, {"cursor": {"base_url": sim.url}}))
    try:
        sim.agent.script(
            [StepStarted(), EndError("permission_denied", f"key {key} is not allowed here")]
        )
        with pytest.raises(CursorError) as caught:
            asyncio.run(cell.stream_round(context(sim, credential=key, request_timeout=10.0)))
    finally:
        cell.stop()
    shown = str(caught.value) + repr(caught.value)
    assert key not in shown
    assert "[redacted]" in shown
