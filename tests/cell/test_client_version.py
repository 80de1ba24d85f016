"""The client version a round sends: the pin, or the installed Cursor CLI's when newer.

A stand-in CLI is written into a temp folder that is the whole PATH: a small
script that prints the version it was given for ``--version`` and appends a line
to its own log each time it runs (its log's path is written into it, since the
cell runs it with an environment of its own). The simulator records the header
each request carried.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from runs import round_context

from cursor_simulator import Simulator
from cursor_simulator.models import PATH as ROSTER_PATH
from nodecode_cursor import limits
from nodecode_cursor.account.client_version import CACHE_FILE
from nodecode_cursor.cell import CursorCell
from nodecode_cursor.errors import OutdatedClient
from nodecode_cursor.host import MemoryHost

TOKEN = "tok-client-version"
NEWER = "2026.12.01-abc1234"
OLDER = "2026.06.04-0a0b0c0"


def write_cli(folder: Path, name: str, prints: str) -> Path:
    """Return a stand-in named NAME in FOLDER that prints PRINTS and logs each run to NAME.runs."""
    folder.mkdir(parents=True, exist_ok=True)
    log = folder / f"{name}.runs"
    script = folder / name
    script.write_text(
        f"#!{sys.executable}\n"
        "import os, sys\n"
        f"with open({str(log)!r}, 'a') as out:\n"
        "    secrets = [k for k in os.environ if 'TOKEN' in k or 'KEY' in k]\n"
        "    out.write(' '.join(sys.argv[1:]) + '|' + ','.join(sorted(secrets)) + '\\n')\n"
        f"print({prints!r})\n",
        "utf-8",
    )
    script.chmod(0o755)
    return script


def runs_of(script: Path) -> list[str]:
    """Return what each run of the stand-in SCRIPT was given (its arguments, then `|` secrets)."""
    log = script.with_name(f"{script.name}.runs")
    return log.read_text("utf-8").splitlines() if log.exists() else []


@pytest.fixture
def bin_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Return an empty folder that is the whole PATH (no CLI of this machine is found)."""
    folder = tmp_path / "bin"
    folder.mkdir()
    monkeypatch.setenv("PATH", str(folder))
    monkeypatch.delenv(limits.CLIENT_VERSION_ENV, raising=False)
    monkeypatch.setenv("CURSOR_ACCESS_TOKEN", TOKEN)
    return folder


@pytest.fixture
def home(tmp_path: Path) -> Path:
    folder = tmp_path / "home"
    folder.mkdir()
    return folder


def started(home: Path, sim: Simulator, **settings: object) -> CursorCell:
    """Return a cell started on a host whose home is HOME, pointed at the simulator."""
    cell = CursorCell()
    assert cell.start(MemoryHost(home, {"cursor": {"base_url": sim.url, **settings}}))
    return cell


@pytest.fixture
def cell(home: Path, sim: Simulator) -> Iterator[CursorCell]:
    chosen = started(home, sim)
    yield chosen
    chosen.stop()


def one_round(cell: CursorCell, sim: Simulator) -> str:
    """Return the client version header the simulator received for one round by CELL."""
    asyncio.run(cell.stream_round(round_context(sim.url, TOKEN, client_version=None)))
    return sim.agent.run().headers["x-cursor-client-version"]


def test_the_pin_is_the_newest_public_build() -> None:
    assert limits.DEFAULT_CLIENT_VERSION == "cli-2026.10.01-e373342"


def test_a_newer_installed_cli_raises_the_header(
    cell: CursorCell, sim: Simulator, bin_dir: Path
) -> None:
    cli = write_cli(bin_dir, "cursor-agent", NEWER)
    assert one_round(cell, sim) == f"cli-{NEWER}"
    # Run once, with --version, no stdin, and none of our secrets in its environment.
    assert runs_of(cli) == ["--version|"]
    assert all(
        a.headers["x-cursor-client-version"] == f"cli-{NEWER}" for a in sim.agent.run().appends
    )


def test_an_older_installed_cli_leaves_the_pin(
    cell: CursorCell, sim: Simulator, bin_dir: Path
) -> None:
    cli = write_cli(bin_dir, "cursor-agent", OLDER)
    assert one_round(cell, sim) == limits.DEFAULT_CLIENT_VERSION
    assert runs_of(cli) == ["--version|"]


def test_without_a_cli_the_pin_goes(cell: CursorCell, sim: Simulator, bin_dir: Path) -> None:
    assert one_round(cell, sim) == limits.DEFAULT_CLIENT_VERSION


def test_the_kept_answer_is_read_for_a_day_then_asked_again(
    home: Path, sim: Simulator, bin_dir: Path
) -> None:
    cli = write_cli(bin_dir, "cursor-agent", NEWER)
    for _ in range(2):  # two cells: the second reads the home's file, not the CLI
        cell = started(home, sim)
        try:
            assert one_round(cell, sim) == f"cli-{NEWER}"
            assert one_round(cell, sim) == f"cli-{NEWER}"
        finally:
            cell.stop()
    assert len(runs_of(cli)) == 1
    kept = json.loads((home / CACHE_FILE).read_text("utf-8"))
    assert kept["version"] == f"cli-{NEWER}" and kept["path"] == str(cli)
    kept["checked_at"] = time.time() - limits.CLIENT_VERSION_CHECK_SECONDS - 60
    (home / CACHE_FILE).write_text(json.dumps(kept), "utf-8")
    cell = started(home, sim)
    try:
        assert one_round(cell, sim) == f"cli-{NEWER}"
    finally:
        cell.stop()
    assert len(runs_of(cli)) == 2  # a day old: asked again


def test_a_kept_value_that_is_no_build_is_not_sent(
    home: Path, sim: Simulator, bin_dir: Path
) -> None:
    forged = {"checked_at": time.time(), "agent_path": None, "version": "x\r\nevil: 1", "path": "p"}
    (home / CACHE_FILE).write_text(json.dumps(forged), "utf-8")
    cli = write_cli(bin_dir, "cursor-agent", NEWER)
    cell = started(home, sim)
    try:
        assert one_round(cell, sim) == f"cli-{NEWER}"  # read anew from the CLI
    finally:
        cell.stop()
    assert len(runs_of(cli)) == 1


def test_the_environment_and_the_setting_win_over_the_installed_cli(
    home: Path, sim: Simulator, bin_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cli = write_cli(bin_dir, "cursor-agent", NEWER)
    cell = started(home, sim, client_version="cli-2026.07.07-5e77e00")
    try:
        assert one_round(cell, sim) == "cli-2026.07.07-5e77e00"
        monkeypatch.setenv(limits.CLIENT_VERSION_ENV, "cli-2026.08.08-e0e0e0e")
        assert one_round(cell, sim) == "cli-2026.08.08-e0e0e0e"
    finally:
        cell.stop()
    assert runs_of(cli) == []  # a version was named: the CLI is never asked


def test_update_required_names_the_version_sent_where_it_came_from_and_the_fix(
    cell: CursorCell, sim: Simulator, bin_dir: Path
) -> None:
    cli = write_cli(bin_dir, "cursor-agent", NEWER)
    sim.refuse_client(f"cli-{NEWER}")
    with pytest.raises(OutdatedClient) as caught:
        one_round(cell, sim)
    said = str(caught.value)
    assert said.startswith(
        f"Cursor no longer accepts client version cli-{NEWER} (from Cursor's CLI at {cli}) ("
    )
    assert "Update Required" in said
    assert "set CURSOR_CLIENT_VERSION (or cursor.client_version in config.json)" in said
    assert sim.agent.runs == []


def test_update_required_of_the_pin_says_it_is_the_built_in_default(
    cell: CursorCell, sim: Simulator, bin_dir: Path
) -> None:
    sim.refuse_client(limits.DEFAULT_CLIENT_VERSION, style="bare")
    with pytest.raises(OutdatedClient) as caught:
        one_round(cell, sim)
    assert str(caught.value).startswith(
        f"Cursor no longer accepts client version {limits.DEFAULT_CLIENT_VERSION} "
        "(the built-in default) (Connect error invalid_argument: Update Required"
    )


def test_doctor_shows_the_version_in_use_and_where_it_came_from(
    cell: CursorCell, sim: Simulator, bin_dir: Path
) -> None:
    cli = write_cli(bin_dir, "cursor-agent", NEWER)
    checks = {c.name: c for c in asyncio.run(cell.doctor(rounds=False))}
    assert checks["client version"].verdict == (
        f"cli-{NEWER} (from Cursor's CLI at {cli}) accepted"
    )
    assert sim.requests_to(ROSTER_PATH)[0].headers["x-cursor-client-version"] == f"cli-{NEWER}"


def test_an_agent_in_cursors_install_folder_is_read_without_running_it(
    cell: CursorCell, sim: Simulator, bin_dir: Path, tmp_path: Path
) -> None:
    build = "2026.11.05-aa11bb2"
    installed = write_cli(
        tmp_path / "share" / "cursor-agent" / "versions" / build, "cursor-agent", "unused"
    )
    (bin_dir / "agent").symlink_to(installed)
    assert one_round(cell, sim) == f"cli-{build}"
    assert runs_of(installed) == []


def test_the_order_is_env_setting_newer_installed_pin(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(limits.CLIENT_VERSION_ENV, raising=False)
    choice = limits.client_version_choice
    pin = limits.DEFAULT_CLIENT_VERSION
    assert choice(None, None) == (pin, "default")
    assert choice(None, f"cli-{NEWER}") == (f"cli-{NEWER}", "installed")
    assert choice(None, f"cli-{OLDER}") == (pin, "default")
    # The same day as the pin is not newer; a value that names no date is never sent.
    assert choice(None, "cli-2026.10.01-fffffff") == (pin, "default")
    assert choice(None, "cli-latest") == (pin, "default")
    assert choice(" cli-set ", f"cli-{NEWER}") == ("cli-set", "setting")
    monkeypatch.setenv(limits.CLIENT_VERSION_ENV, "cli-env")
    assert choice("cli-set", f"cli-{NEWER}") == ("cli-env", "env")
    assert limits.version_date("cli-2026.10.01-e373342") == "2026.10.01"
    assert limits.version_date("2026.1.01-x") is None
