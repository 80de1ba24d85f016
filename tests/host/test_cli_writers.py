"""Kimi K3 replays its own thinking after a restart: two CLI processes, one --session, one home."""

from __future__ import annotations

import json
from pathlib import Path

from cli_run import cli_env, run_cli

from cursor_simulator import Simulator
from cursor_simulator.steps import End, Text, Thinking, TurnEnded

K3 = "kimi-k3-high"


def first_round(sim: Simulator, home: Path, tmp_path: Path) -> Path:
    """Run K3's first round in its own process; return the history file a second one continues."""
    sim.agent.script([Thinking("private plan"), Text("first"), TurnEnded(3, 1), End()])
    done = run_cli(
        "--base-url", sim.url, "ask", "--json", "--model", K3, "--tools", "none",
        "--session", "k3-restart", "one", env=cli_env(home),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)["message"]
    assert answer["reasoning_content"] == "private plan"
    history = tmp_path / "history.json"
    history.write_text(json.dumps([{"role": "user", "content": "one"}, answer]), "utf-8")
    return history


def second_round(sim: Simulator, home: Path, history: Path) -> bytes:
    """Run the next round in a new process; return what the service read of its blobs."""
    done = run_cli(
        "--base-url", sim.url, "ask", "--json", "--model", K3, "--tools", "none",
        "--session", "k3-restart", "--history", str(history), "two", env=cli_env(home),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return b"".join(sim.agent.run().served.values())


def test_k3_replays_its_thinking_in_a_new_process(
    sim: Simulator, home: Path, tmp_path: Path
) -> None:
    history = first_round(sim, home, tmp_path)
    served = second_round(sim, home, history)
    assert b"private plan" in served and K3.encode() in served


def test_a_home_without_the_table_replays_nothing(
    sim: Simulator, home: Path, tmp_path: Path
) -> None:
    history = first_round(sim, home, tmp_path)
    elsewhere = tmp_path / "other-home"
    elsewhere.mkdir()
    served = second_round(sim, elsewhere, history)
    assert b"private plan" not in served  # the writer is unknown there: no thinking replayed


def test_a_corrupt_table_is_set_aside_and_the_round_runs(
    sim: Simulator, home: Path, tmp_path: Path
) -> None:
    (home / "cursor-writers.sqlite").write_bytes(b"\x00garbage" * 64)
    history = first_round(sim, home, tmp_path)
    assert len(list(home.glob("cursor-writers.sqlite.corrupt-*"))) == 1
    served = second_round(sim, home, history)
    assert b"private plan" in served
