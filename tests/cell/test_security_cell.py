"""Only progress keeps a round alive, a reply has a size bound, and http:// is only for
loopback (issue 12, items 8–9), driven over the simulator.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from pathlib import Path
from typing import Any

import pytest

from cursor_simulator import Simulator
from cursor_simulator.steps import (
    Checkpoint,
    End,
    Raw,
    Sleep,
    StepCompleted,
    StepStarted,
    Text,
    TurnEnded,
)
from nodecode_cursor.cell import CursorCell
from nodecode_cursor.errors import ConfigError, ProviderError, StreamIncomplete
from nodecode_cursor.host import MemoryHost, RoundContext
from nodecode_cursor.lanes import lane
from nodecode_cursor.state import CellState

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


# Item 8 ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "filler",
    [Raw(EMPTY_FRAME), Raw(UNKNOWN_FIELD_FRAME), Text("")],
    ids=["empty frames", "unknown-field frames", "empty text deltas"],
)
def test_messages_saying_nothing_do_not_keep_a_round_alive(
    sim: Simulator, state: CellState, filler: Any
) -> None:
    steps: list[Any] = [StepStarted()]
    for _ in range(240):  # 60 s of filler every 0.25 s
        steps += [filler, Sleep(0.25)]
    sim.agent.script([*steps, Text("late"), StepCompleted(), TurnEnded(), Checkpoint(), End()])
    started = time.monotonic()
    with pytest.raises(StreamIncomplete) as caught:
        lane.stream_round_sync(context(sim), state)
    assert time.monotonic() - started < 30
    assert "1.5 s" in str(caught.value)


def test_a_reply_past_max_reply_bytes_fails_the_round(sim: Simulator, home: Path) -> None:
    host = MemoryHost(home, {"cursor": {"base_url": sim.url, "max_reply_bytes": 4096}})
    cell = CursorCell()
    assert cell.start(host)
    try:
        sim.agent.script(
            [StepStarted(), *[Text("x" * 1000) for _ in range(10)], TurnEnded(), End()]
        )
        with pytest.raises(ProviderError) as caught:
            asyncio.run(cell.stream_round(context(sim, request_timeout=10.0)))
        assert "max_reply_bytes" in str(caught.value)
        assert caught.value.code == "reply_too_large"
    finally:
        cell.stop()


def test_max_reply_bytes_must_be_a_positive_number(home: Path) -> None:
    with pytest.raises(ConfigError, match="max_reply_bytes"):
        CursorCell().start(MemoryHost(home, {"cursor": {"max_reply_bytes": "big"}}))


# Item 9 ------------------------------------------------------------------------------------


@pytest.mark.parametrize("setting", ["base_url", "web_url"])
def test_cleartext_urls_are_refused_except_to_loopback(home: Path, setting: str) -> None:
    for url in ("http://cursor.example", "http://10.0.0.8:8080", "ftp://cursor.example"):
        with pytest.raises(ConfigError) as caught:
            CursorCell().start(MemoryHost(home, {"cursor": {setting: url}}))
        assert setting in str(caught.value)
    for url in (
        "https://cursor.example",
        "http://127.0.0.5:1",
        "http://[::1]:9",
        "http://localhost",
    ):
        cell = CursorCell()
        assert cell.start(MemoryHost(home, {"cursor": {setting: url}}))
        cell.stop()


def test_a_cleartext_round_override_is_refused_before_any_request(
    sim: Simulator, home: Path
) -> None:
    cell = CursorCell()
    assert cell.start(MemoryHost(home, {"cursor": {"base_url": sim.url}}))
    try:
        with pytest.raises(ConfigError, match="base_url"):
            asyncio.run(cell.stream_round(context(sim, base_url="http://cursor.example")))
    finally:
        cell.stop()
    assert not sim.requests


def test_a_name_under_localhost_is_not_taken_for_loopback_in_clear() -> None:
    # *.localhost is loopback only where the resolver says so (RFC 6761 asks, glibc's
    # DNS path does not): a token must not travel in clear on what a resolver decides.
    from nodecode_cursor.errors import ConfigError, check_cleartext

    check_cleartext("http://localhost:8080", "base_url")
    check_cleartext("http://127.0.0.2:8080", "base_url")
    with pytest.raises(ConfigError):
        check_cleartext("http://cursor.localhost", "base_url")
