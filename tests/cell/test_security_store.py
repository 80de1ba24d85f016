"""The host's home folder and auth.json checked before they are trusted (issue 12, item 10)."""

from __future__ import annotations

import json
import os
import stat
import time
import uuid
from pathlib import Path
from typing import Any

import pytest

from cursor_simulator import Simulator
from nodecode_cursor.errors import StoreError
from nodecode_cursor.host import RoundContext

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


# Item 10 -----------------------------------------------------------------------------------


def test_an_auth_json_that_is_a_fifo_is_a_clear_error_not_a_hang(home: Path) -> None:
    from nodecode_cursor.account.store import AuthStore

    os.mkfifo(home / "auth.json")
    started = time.monotonic()
    with pytest.raises(StoreError, match="not a regular file"):
        AuthStore(home).read()
    assert time.monotonic() - started < 30  # a FIFO nobody writes would block for good


def test_a_huge_auth_json_is_a_clear_error(home: Path) -> None:
    from nodecode_cursor.account.store import MAX_AUTH_FILE_BYTES, AuthStore

    with open(home / "auth.json", "wb") as handle:
        handle.truncate(MAX_AUTH_FILE_BYTES + 1)
    with pytest.raises(StoreError, match="larger than"):
        AuthStore(home).read()


def test_leftover_temp_files_are_removed_by_the_next_write_and_by_logout(home: Path) -> None:
    from nodecode_cursor.account.store import AuthStore, TokenEntry

    leftover = home / ".auth.json.abc123.tmp"
    leftover.write_text('{"oauth_tokens": {"cursor": {"access_token": "old-secret"}}}')
    store = AuthStore(home)
    store.save_entry(TokenEntry("access", "refresh", time.time() + 3600))
    assert not leftover.exists()
    leftover.write_text("again")
    store.save_entry(None)  # logout
    assert not leftover.exists()
    assert json.loads((home / "auth.json").read_text()) == {"oauth_tokens": {}}


def test_a_symlinked_lock_file_is_a_clear_store_error(home: Path, tmp_path: Path) -> None:
    from nodecode_cursor.account.store import AuthStore, TokenEntry

    (home / "auth.json.lock").symlink_to(tmp_path / "elsewhere.lock")
    with pytest.raises(StoreError, match=r"lock"):
        AuthStore(home).save_entry(TokenEntry("access", "refresh", time.time() + 3600))


def test_a_home_writable_by_others_is_refused_with_the_fix(home: Path) -> None:
    from nodecode_cursor.account.store import AuthStore, TokenEntry

    store = AuthStore(home)
    store.save_entry(TokenEntry("access", "refresh", time.time() + 3600))
    os.chmod(home, 0o777)
    try:
        with pytest.raises(StoreError) as caught:
            store.entry()
        assert "chmod" in str(caught.value)
        os.chmod(home, 0o700)
        (home / "config.json").write_text("{}")
        os.chmod(home / "config.json", 0o666)
        with pytest.raises(StoreError, match=r"config\.json"):
            store.entry()
    finally:
        os.chmod(home, 0o700)
    assert stat.S_IMODE(os.stat(home).st_mode) == 0o700
