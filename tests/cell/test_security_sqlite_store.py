"""The cell's SQLite stores open only a regular file of the user's, never through a link (issue 36).

SQLite opens by path and follows links: a link planted at a store's path made it
create the link's target (mode 0644), and a store already 0644 stayed so. The
stores (the writer table, the conversation store) are driven through their own
methods on real files.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

import pytest

from nodecode_cursor.core.continuation import Learned
from nodecode_cursor.storage.conversation_store import DiskConversations
from nodecode_cursor.storage.writer_store import DiskWriters


@pytest.fixture
def home(tmp_path: Path) -> Path:
    folder = tmp_path / "home"
    folder.mkdir(mode=0o700)
    return folder


def test_a_link_at_the_writer_tables_path_is_refused_and_its_target_never_made(
    home: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    writers = DiskWriters.in_home(home)
    target = tmp_path / "elsewhere" / "planted.sqlite"
    target.parent.mkdir()
    writers.path.parent.mkdir(parents=True, exist_ok=True)
    writers.path.symlink_to(target)
    with caplog.at_level(logging.WARNING):
        writers.put("digest-1", "model-a")
        assert writers.load() == {}
    assert not target.exists(), "SQLite followed the link and made its target"
    assert writers.path.is_symlink()
    assert "is a link" in caplog.text and str(writers.path) in caplog.text


def test_a_link_at_the_conversation_stores_path_is_refused(
    home: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    store = DiskConversations.in_home(home)
    target = tmp_path / "planted.sqlite"
    store.path.parent.mkdir(parents=True, exist_ok=True)
    store.path.symlink_to(target)
    with caplog.at_level(logging.WARNING):
        store.learn("model-a", Learned())
        assert store.learned("model-a") is None
    assert not target.exists()
    assert "is a link" in caplog.text


def test_a_store_left_readable_by_others_is_tightened_to_0600(home: Path) -> None:
    writers = DiskWriters.in_home(home)
    writers.put("digest-1", "model-a")
    os.chmod(writers.path, 0o644)
    writers.put("digest-2", "model-b")
    assert writers.path.stat().st_mode & 0o777 == 0o600
    assert writers.load() == {"digest-1": "model-a", "digest-2": "model-b"}


def test_a_link_at_a_side_file_is_refused(
    home: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    writers = DiskWriters.in_home(home)
    writers.put("digest-1", "model-a")
    target = tmp_path / "planted-journal"
    Path(f"{writers.path}-journal").symlink_to(target)
    with caplog.at_level(logging.WARNING):
        writers.put("digest-2", "model-b")
    assert not target.exists()
    assert "is a link" in caplog.text


def test_a_store_path_that_is_not_a_regular_file_is_refused(
    home: Path, caplog: pytest.LogCaptureFixture
) -> None:
    writers = DiskWriters.in_home(home)
    writers.path.parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(writers.path)
    with caplog.at_level(logging.WARNING):
        assert writers.load() == {}  # not a hang on the FIFO, not an error raised
    assert "not a regular file" in caplog.text
