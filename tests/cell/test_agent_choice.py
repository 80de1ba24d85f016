"""Which ``agent`` the cursor-agent lane runs: Cursor's CLI only, never another program's.

The Grok CLI installs an ``agent`` command too. A Grok-like stand-in (a script
that prints its own version line and logs every run, with which secrets its
environment held) sits first on the PATH before the project's ``cursor-agent``
stand-in; the lane must pass it over, run it only to ask its version, and say
why in ``status`` and in the missing-CLI error.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from standin import FOLDER, VERSION, StandIn, put_on_path

from nodecode_cursor.cell import CursorCell
from nodecode_cursor.errors import ConfigError
from nodecode_cursor.host import MemoryHost, RoundContext

GROK_SAYS = "grok-cli 0.9.1"


def grok_agent(folder: Path) -> Path:
    """Return a Grok-like ``agent`` in FOLDER: prints GROK_SAYS, logs argv and secrets seen."""
    folder.mkdir(parents=True, exist_ok=True)
    log = folder / "agent.runs"
    script = folder / "agent"
    script.write_text(
        f"#!{sys.executable}\n"
        "import os, sys\n"
        f"with open({str(log)!r}, 'a') as out:\n"
        "    secrets = [k for k in os.environ if 'TOKEN' in k or 'KEY' in k]\n"
        "    out.write(' '.join(sys.argv[1:]) + '|' + ','.join(sorted(secrets)) + '\\n')\n"
        f"print({GROK_SAYS!r})\n",
        "utf-8",
    )
    script.chmod(0o755)
    return script


def grok_runs(script: Path) -> list[str]:
    log = script.with_name("agent.runs")
    return log.read_text("utf-8").splitlines() if log.exists() else []


@pytest.fixture
def standin(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> StandIn:
    return put_on_path(monkeypatch, tmp_path)


@pytest.fixture
def grok(standin: StandIn, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """Return the Grok-like ``agent``, first on the PATH (the cursor-agent stand-in after it)."""
    script = grok_agent(tmp_path / "grok-bin")
    monkeypatch.setenv("PATH", f"{script.parent}:{FOLDER}:/usr/bin:/bin")
    return script


@pytest.fixture
def cell(tmp_path: Path) -> Iterator[CursorCell]:
    home = tmp_path / "home"
    home.mkdir()
    chosen = CursorCell()
    assert chosen.start(MemoryHost(home))
    yield chosen
    chosen.stop()


def test_a_grok_agent_is_passed_over_for_cursor_agent(
    cell: CursorCell, standin: StandIn, grok: Path
) -> None:
    standin.play("write_then_read.ndjson")
    ctx = RoundContext(
        model="cursor-agent/gpt-5.4",
        messages=[{"role": "user", "content": "Write notes.txt then read it back"}],
    )
    asyncio.run(cell.lanes["cursor-agent"](ctx))
    assert [r["binary"] for r in standin.runs()] == ["cursor-agent"]
    # Asked its version once (no prompt, no --force), and it saw none of our secrets:
    # CURSOR_API_KEY is set for the real CLI in this test.
    assert grok_runs(grok) == ["--version|"]
    line = cell.commands["cursor"].run("status")
    assert line.endswith(
        f"; cursor-agent {VERSION} is on the PATH ({FOLDER / 'cursor-agent'}) (passed over: "
        f'agent ({grok}) is not Cursor\'s CLI: its --version printed "{GROK_SAYS}")'
    )
    assert grok_runs(grok) == ["--version|"]  # known by now: not run again


def test_with_only_a_grok_agent_the_lane_says_why_none_was_found(
    cell: CursorCell, standin: StandIn, grok: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", f"{grok.parent}:/usr/bin:/bin")
    ctx = RoundContext(model="cursor-agent/gpt-5.4", messages=[{"role": "user", "content": "hi"}])
    with pytest.raises(ConfigError) as caught:
        asyncio.run(cell.lanes["cursor-agent"](ctx))
    said = str(caught.value)
    assert caught.value.code == "agent_missing"
    assert f"agent ({grok}) is not Cursor's CLI" in said and "curl https://cursor.com" in said
    assert standin.runs() == []
    assert "passed over" not in cell.commands["cursor"].run("status")  # nothing chosen
    assert f"no Cursor CLI is on the PATH: agent ({grok}) is not Cursor's CLI" in (
        cell.commands["cursor"].run("status")
    )


def test_an_agent_printing_a_cursor_build_is_taken(
    cell: CursorCell, standin: StandIn, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    link = tmp_path / "cursor-bin" / "agent"
    link.parent.mkdir()
    link.symlink_to(FOLDER / "cursor-agent")  # the stand-in prints 2026.06.04-standin
    monkeypatch.setenv("PATH", f"{link.parent}:{FOLDER}:/usr/bin:/bin")
    assert (
        cell.commands["cursor"].run("status").endswith(f"; agent {VERSION} is on the PATH ({link})")
    )
