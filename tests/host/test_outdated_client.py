"""A Cursor that no longer accepts this client's version, as each command shows it.

The simulator is told to refuse the version (``Simulator.refuse_client``) the way
Cursor was reported to: resource_exhausted with ErrorDetails error 28, title
"Update Required" (or a bare "Update Required for Composer 2"). Every command must
name the setting that mends it, and none may treat it as a rate limit to retry.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from cli_run import cli_env, run_main
from served import RunningServer, served

from cursor_simulator import Simulator
from cursor_simulator.models import PATH as ROSTER_PATH
from nodecode_cursor import limits

MODEL = "claude-4.5-sonnet"


def doctor(sim: Simulator, home: Path, **env: str) -> tuple[int, dict[str, dict[str, str]]]:
    """Return (exit code, the checks by name) of ``doctor --json --no-rounds``."""
    done = run_main(
        "--base-url", sim.url, "doctor", "--json", "--no-rounds", env=cli_env(home, **env)
    )
    return done.returncode, {c["name"]: c for c in json.loads(done.stdout)["checks"]}


@pytest.mark.parametrize("style", ["details", "bare"])
def test_doctor_fails_the_client_version_check_naming_the_variable(
    sim: Simulator, home: Path, style: str
) -> None:
    sim.refuse_client("*", style=style)
    code, checks = doctor(sim, home)
    assert code == 1
    check = checks["client version"]
    assert check["status"] == "fail"
    assert "Update Required" in check["verdict"]
    assert "CURSOR_CLIENT_VERSION" in check["fix"]
    assert checks["roster"]["status"] == "skip"
    assert len(sim.requests_to(ROSTER_PATH)) == 1  # asked once: a retry would never pass


def test_doctor_passes_once_the_variable_names_a_version_cursor_takes(
    sim: Simulator, home: Path
) -> None:
    sim.refuse_client(limits.DEFAULT_CLIENT_VERSION)
    code, checks = doctor(sim, home, CURSOR_CLIENT_VERSION="cli-2026.11.20-0a1b2c3")
    assert code == 0
    assert checks["client version"]["verdict"] == (
        "cli-2026.11.20-0a1b2c3 (from CURSOR_CLIENT_VERSION) accepted"
    )


def test_models_says_why_the_roster_is_missing_and_what_to_set(sim: Simulator, home: Path) -> None:
    sim.refuse_client("*")
    done = run_main("--base-url", sim.url, "models", "--json", env=cli_env(home))
    assert done.returncode == 0
    body = json.loads(done.stdout)
    assert body["live"] is False and body["models"]  # the bundled rows meanwhile
    assert "Update Required" in body["reason"]
    assert "CURSOR_CLIENT_VERSION" in body["reason"] and "cursor.client_version" in body["reason"]


@pytest.fixture
def api(sim: Simulator, home: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[RunningServer]:
    with served(sim, home, monkeypatch) as running:
        yield running


def test_serve_answers_a_client_error_it_can_read_not_a_rate_limit(
    api: RunningServer, sim: Simulator
) -> None:
    sim.refuse_client("*")
    request = {"model": MODEL, "messages": [{"role": "user", "content": "hello"}]}
    with httpx.Client(base_url=api.url, timeout=20) as client:
        answer = client.post("/chat/completions", json=request)
    assert answer.status_code == 400, answer.text
    error = answer.json()["error"]
    assert error["code"] == "outdated_client"
    assert "Update Required" in error["message"]
    assert "CURSOR_CLIENT_VERSION" in error["message"]
    assert sim.agent.runs == []
