"""``nodecode-cursor usage [--json]`` and ``/cursor usage``: the plan at a glance, over sockets."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest
from cli_run import TOKEN, cli_env, run_main

from cursor_simulator import Simulator
from cursor_simulator.dashboard import HARD_LIMIT_PATH, PLAN_INFO_PATH, USAGE_PATH
from nodecode_cursor.cell import CursorCell
from nodecode_cursor.host import MemoryHost


def test_usage_without_usage_based_pricing(sim: Simulator, home: Path) -> None:
    done = run_main("--base-url", sim.url, "usage", env=cli_env(home))
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "Cursor plan: Pro ($8.50 of $20.00 included used)"
    assert lines[1] == "  Total            [########............]  42.5%"
    assert lines[2] == "  Auto + Composer  [####................]  20.0%"
    assert lines[3] == "  API              [#############.......]  65.0%"
    assert lines[4] == "  beyond the plan: off (usage-based pricing is not on)"
    assert lines[5].startswith("  resets ") and lines[5].endswith("(in 12 days)")
    request = sim.requests_to(USAGE_PATH)[0]
    assert request.headers["authorization"] == f"Bearer {TOKEN}"


def test_usage_json_with_usage_based_pricing(sim: Simulator, home: Path) -> None:
    sim.dashboard.usage_based(limit_dollars=100, spent_cents=2550)
    sim.dashboard.set_percents(100.0, auto=100.0, api=100.0)
    done = run_main("--base-url", sim.url, "usage", "--json", env=cli_env(home))
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["plan"] == "Pro"
    assert [w["percent_used"] for w in data["windows"]] == [100.0, 100.0, 100.0]
    assert data["beyond_plan"] == {"state": "limited", "used_usd": 25.5, "limit_usd": 100.0}
    assert data["period_end"].endswith("Z")


def test_usage_json_without_usage_based_pricing(sim: Simulator, home: Path) -> None:
    done = run_main("--base-url", sim.url, "usage", "--json", env=cli_env(home))
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["plan"] == "Pro"
    assert [(w["key"], w["percent_used"]) for w in data["windows"]] == [
        ("total", 42.5),
        ("auto", 20.0),
        ("api", 65.0),
    ]
    assert (data["included_usd"], data["spent_usd"]) == (20.0, 8.5)
    assert data["beyond_plan"] == {"state": "off", "used_usd": None, "limit_usd": None}
    assert data["period_start"] < data["period_end"]


def test_usage_with_usage_based_pricing(sim: Simulator, home: Path) -> None:
    sim.dashboard.usage_based(limit_dollars=100, spent_cents=2550)
    done = run_main("--base-url", sim.url, "usage", env=cli_env(home))
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "Cursor plan: Pro ($8.50 of $20.00 included used)"
    assert lines[4] == "  beyond the plan: $25.50 of $100.00 limit"
    assert lines[5].startswith("  resets ")


def test_a_refused_dashboard_is_one_line_and_asked_once(sim: Simulator, home: Path) -> None:
    sim.dashboard.refuse(USAGE_PATH, 403, "permission_denied", "no")
    done = run_main("--base-url", sim.url, "usage", env=cli_env(home))
    assert done.returncode == 1
    assert done.stdout == ""
    assert done.stderr == (
        "nodecode-cursor: Cursor's dashboard refused the usage question: "
        "HTTP 403 permission_denied; run nodecode-cursor login\n"
    )
    assert sim.dashboard.count(USAGE_PATH) == 1
    as_json = run_main("--base-url", sim.url, "usage", "--json", env=cli_env(home))
    assert json.loads(as_json.stdout)["error"]["status"] == 403


def test_an_unreachable_dashboard_is_one_line(home: Path) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    done = run_main("--base-url", f"http://127.0.0.1:{port}", "usage", env=cli_env(home))
    assert done.returncode == 1
    assert done.stderr.startswith(f"nodecode-cursor: could not reach http://127.0.0.1:{port}/")
    assert len(done.stderr.splitlines()) == 1


def test_usage_signed_out_is_a_config_error(sim: Simulator, home: Path) -> None:
    done = run_main("--base-url", sim.url, "usage", env=cli_env(home, signed_out=True))
    assert done.returncode == 2
    assert "not signed in" in done.stderr
    assert sim.dashboard.count(USAGE_PATH) == 0


def test_slash_cursor_usage_answers_the_block_or_one_line(
    sim: Simulator, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CURSOR_ACCESS_TOKEN", TOKEN)
    cell = CursorCell()
    host = MemoryHost(home, {"cursor": {"base_url": sim.url}})
    try:
        assert cell.start(host)
        command = cell.commands["cursor"]
        block = command.run("usage")
        assert block.startswith("Cursor plan: Pro")
        assert "  API              [#############.......]  65.0%" in block.splitlines()
        sim.dashboard.refuse(PLAN_INFO_PATH, 500, "internal")
        sim.dashboard.refuse(HARD_LIMIT_PATH, 500, "internal")
        assert "(the plan's name could not be read)" in command.run("usage")
        sim.dashboard.refuse(USAGE_PATH, 503, "unavailable", "down")
        assert command.run("usage") == (
            "cursor: Cursor's dashboard refused the usage question: HTTP 503 unavailable"
        )
    finally:
        cell.stop()
