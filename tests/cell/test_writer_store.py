"""The K3 writer table on disk: bounded, atomic, shared by processes, a bad file set aside."""

from __future__ import annotations

import sqlite3
import stat
import subprocess
import sys
import threading
from pathlib import Path

from nodecode_cursor.core.writers import WriterTable, round_digest
from nodecode_cursor.storage.writer_store import FILE_NAME, DiskWriters

ROUND = {"role": "assistant", "content": "four", "reasoning_content": "2+2"}


def test_rounds_survive_a_new_table_on_the_same_file(tmp_path: Path) -> None:
    first = WriterTable(store=DiskWriters.in_home(tmp_path))
    first.record(ROUND, "kimi-k3-high")
    later = WriterTable(store=DiskWriters.in_home(tmp_path))  # another process, or a restart
    assert later.writer_of(ROUND) == "kimi-k3-high"
    assert later.writer_of({**ROUND, "content": "five"}) is None
    path = tmp_path / FILE_NAME
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_a_table_sees_what_another_wrote_after_it_loaded(tmp_path: Path) -> None:
    mine = WriterTable(store=DiskWriters.in_home(tmp_path))
    assert mine.writer_of(ROUND) is None  # loaded: empty
    WriterTable(store=DiskWriters.in_home(tmp_path)).record(ROUND, "kimi-k3-low")
    assert mine.writer_of(ROUND) == "kimi-k3-low"


def test_the_file_keeps_the_newest_rounds_only(tmp_path: Path) -> None:
    store = DiskWriters(tmp_path / FILE_NAME, limit=3)
    for n in range(5):
        store.put(f"d{n}", "m")
    assert list(store.load()) == ["d2", "d3", "d4"]
    store.put("d2", "again")  # rewritten: now the newest
    assert store.load() == {"d3": "m", "d4": "m", "d2": "again"}


def test_rounds_ending_together_are_all_kept(tmp_path: Path) -> None:
    """Puts from many threads at once (serve's rounds ending in a burst) go in shared
    transactions, and none of them is lost; the limit still holds."""
    rounds = 40
    for limit, kept in ((100, rounds), (30, 30)):
        store = DiskWriters(tmp_path / f"{limit}-{FILE_NAME}", limit=limit)
        start = threading.Barrier(rounds, timeout=60)

        def one(n: int, store: DiskWriters = store, start: threading.Barrier = start) -> None:
            start.wait()
            store.put(f"d{n}", f"m{n}")

        threads = [threading.Thread(target=one, args=(n,)) for n in range(rounds)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)
        found = store.load()
        assert len(found) == kept
        assert all(found[digest] == "m" + digest[1:] for digest in found)
        if kept == rounds:
            assert set(found) == {f"d{n}" for n in range(rounds)}


def test_a_corrupt_file_is_set_aside_and_a_fresh_one_started(tmp_path: Path) -> None:
    path = tmp_path / FILE_NAME
    path.write_bytes(b"this is not a database at all" * 100)
    table = WriterTable(store=DiskWriters(path))
    assert table.writer_of(ROUND) is None  # no failure
    table.record(ROUND, "kimi-k3-high")
    aside = list(tmp_path.glob(f"{FILE_NAME}.corrupt-*"))
    assert len(aside) == 1
    assert aside[0].read_bytes().startswith(b"this is not a database")
    assert DiskWriters(path).load() == {round_digest(ROUND): "kimi-k3-high"}


def test_another_programs_database_is_set_aside(tmp_path: Path) -> None:
    path = tmp_path / FILE_NAME
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE notes (text TEXT)")
    DiskWriters(path).put("d", "m")
    assert len(list(tmp_path.glob(f"{FILE_NAME}.corrupt-*"))) == 1
    assert DiskWriters(path).load() == {"d": "m"}


WRITER = """
import sys
from pathlib import Path
from nodecode_cursor.storage.writer_store import DiskWriters
store = DiskWriters(Path(sys.argv[1]))
for n in range(int(sys.argv[3])):
    store.put(f"{sys.argv[2]}-{n}", sys.argv[2])
"""


def test_two_processes_writing_at_once_keep_a_sound_file(tmp_path: Path) -> None:
    path = tmp_path / FILE_NAME
    DiskWriters(path).put("seed", "m")  # made once, so both processes open an existing table
    runs = [
        subprocess.Popen([sys.executable, "-c", WRITER, str(path), name, "150"])
        for name in ("alpha", "beta")
    ]
    assert [run.wait(timeout=60) for run in runs] == [0, 0]
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    kept = DiskWriters(path).load()
    assert not list(tmp_path.glob(f"{FILE_NAME}.corrupt-*"))
    # A write that met the lock past its short wait is skipped, never half-done.
    alpha = [d for d, m in kept.items() if m == "alpha"]
    beta = [d for d, m in kept.items() if m == "beta"]
    assert len(alpha) > 100 and len(beta) > 100
    assert all(d.startswith("alpha-") for d in alpha)


def test_a_file_another_connection_holds_is_skipped_not_set_aside(tmp_path: Path) -> None:
    path = tmp_path / FILE_NAME
    store = DiskWriters(path)
    store.put("d", "m")
    holder = sqlite3.connect(path, isolation_level=None)
    try:
        holder.execute("BEGIN EXCLUSIVE")  # SQLITE_BUSY for every other connection
        store.put("e", "n")  # skipped once the busy wait passes: no failure
        assert list(tmp_path.glob(f"{FILE_NAME}.corrupt-*")) == []
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert DiskWriters(path).load() == {"d": "m"}
