"""``nodecode-cursor login`` opens the sign-in page in the browser, prints it always, and
``--no-browser`` only prints it; a stand-in browser (``BROWSER``) records what it was given."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from cli_run import CLI, RUN_TIMEOUT, cli_env

from cursor_simulator import Simulator
from nodecode_cursor.cell import CursorCell
from nodecode_cursor.host import MemoryHost


def stand_in_browser(folder: Path) -> tuple[Path, Path]:
    """Return (a script that records its argument, the file it records to)."""
    record = folder / "opened.txt"
    script = folder / "browser.sh"
    script.write_text(f'#!/bin/sh\nprintf "%s\\n" "$1" >> "{record}"\n', "utf-8")
    script.chmod(0o755)
    return script, record


def login(sim: Simulator, env: dict[str, str], *extra: str) -> tuple[str, str, int]:
    """Run login, confirm the sign-in it prints, return (stdout, stderr, exit code)."""
    process = subprocess.Popen(
        [*CLI, "--base-url", sim.url, "--web-url", sim.url, "login", *extra],
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        first = process.stdout.readline()
        assert first.startswith("cursor: open http"), first
        sim.auth.confirm(first.split("uuid=")[1].split("&")[0].split()[0])
        # Read through the same buffered reader: communicate() would skip what readline
        # already buffered past the first line.
        out = process.stdout.read()
        _, err = process.communicate(timeout=RUN_TIMEOUT)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    return first + out, err, process.returncode


def test_login_opens_the_page_in_the_browser_and_prints_it(
    sim: Simulator, home: Path, tmp_path: Path
) -> None:
    script, record = stand_in_browser(tmp_path)
    out, err, code = login(sim, cli_env(home, signed_out=True, BROWSER=str(script)))
    assert code == 0, err
    (opened,) = record.read_text("utf-8").splitlines()
    assert opened.startswith(f"{sim.url}/loginDeepControl?")
    assert f"cursor: open {opened} in a browser to sign in" in out
    assert "cursor: the page is open in your browser" in out
    assert "cursor: signed in as person@example.com" in out


def test_login_no_browser_only_prints_the_page(sim: Simulator, home: Path, tmp_path: Path) -> None:
    script, record = stand_in_browser(tmp_path)
    out, err, code = login(sim, cli_env(home, signed_out=True, BROWSER=str(script)), "--no-browser")
    assert code == 0, err
    assert not record.exists()
    assert "loginDeepControl" in out and "open in your browser" not in out


def test_a_browser_that_fails_is_no_error(sim: Simulator, home: Path, tmp_path: Path) -> None:
    broken = tmp_path / "broken.sh"
    broken.write_text("#!/bin/sh\nexit 3\n", "utf-8")
    broken.chmod(0o755)
    out, err, code = login(sim, cli_env(home, signed_out=True, BROWSER=str(broken)))
    assert code == 0, err
    assert "open in your browser" not in out
    assert "cursor: signed in as person@example.com" in out


def test_without_a_display_no_browser_is_tried(sim: Simulator, home: Path) -> None:
    env = cli_env(home, signed_out=True)  # the suite runs with no DISPLAY and no BROWSER
    out, err, code = login(sim, env)
    assert code == 0, err
    assert "open in your browser" not in out


def test_slash_cursor_login_opens_the_browser_unless_told_not_to(
    sim: Simulator, home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    script, record = stand_in_browser(tmp_path)
    monkeypatch.setenv("BROWSER", str(script))
    cell = CursorCell()
    assert cell.start(MemoryHost(home, {"cursor": {"base_url": sim.url, "web_url": sim.url}}))
    try:
        command = cell.commands["cursor"]
        quiet = command.run("login --no-browser")
        assert "loginDeepControl" in quiet and "opened in your browser" not in quiet
        assert not record.exists()
        opened = command.run("login")
        assert opened.endswith("(opened in your browser)")
        assert record.read_text("utf-8").strip() in opened
        assert cell.sign_in_state().browser_opened
    finally:
        cell.stop()
