"""``nodecode-cursor doctor``: against a healthy simulator, and against one failing each way."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cli_run import cli_env, run_main

from cursor_simulator import Simulator, connect_error
from cursor_simulator.agent import RUN_PATH
from cursor_simulator.catalog import PATH as CATALOG_PATH
from cursor_simulator.models import PATH as ROSTER_PATH
from cursor_simulator.records import RunRecord
from cursor_simulator.scripted_model import scripted_model
from cursor_simulator.steps import AskRequestContext, EndError


def doctor(sim_url: str, home: Path, *flags: str, **env: str) -> tuple[int, dict[str, Any], str]:
    """Return (exit code, the checks by name, stderr) of ``doctor --json FLAGS``."""
    done = run_main("--base-url", sim_url, "doctor", "--json", *flags, env=cli_env(home, **env))
    data = json.loads(done.stdout)
    return done.returncode, {c["name"]: c for c in data["checks"]}, done.stderr


def statuses(checks: dict[str, Any]) -> dict[str, str]:
    return {name: check["status"] for name, check in checks.items()}


# Reads how the host treats a six-row account roster, not one listing every model.
@pytest.mark.sim_named_roster
def test_a_healthy_service_passes_every_check_and_warns_of_the_cost(
    sim: Simulator, home: Path
) -> None:
    code, checks, err = doctor(sim.url, home)
    assert code == 0
    assert "costs a few tokens" in err
    assert statuses(checks) == {
        "credential": "ok",
        "dns": "ok",
        "proxy": "skip",
        "connection": "ok",
        "tls": "skip",
        "reaching the service": "ok",
        "client version": "ok",
        "roster": "ok",
        "catalog": "ok",
        "transport http2": "ok",
        "transport sse": "ok",
        "transport poll": "ok",
        "round composer": "ok",
        "round claude": "ok",
        "round gpt": "ok",
        "round gemini": "ok",
    }
    assert checks["round gpt"]["verdict"].startswith("gpt-5.4 answered (wire model gpt-5.4")
    assert {run.route for run in sim.agent.runs} == {"http2", "sse", "poll"}


def test_the_plain_report_is_one_line_per_check(sim: Simulator, home: Path) -> None:
    done = run_main("--base-url", sim.url, "doctor", "--no-rounds", env=cli_env(home))
    assert done.returncode == 0
    assert "tokens" not in done.stderr  # no rounds, no warning
    assert done.stdout.splitlines()[0] == (
        "ok    credential: a token from the environment (CURSOR_ACCESS_TOKEN)"
    )
    assert "--    rounds: not checked: --no-rounds" in done.stdout
    assert sim.agent.runs == []


def test_no_credential(sim: Simulator, home: Path) -> None:
    done = run_main(
        "--base-url", sim.url, "doctor", "--no-rounds", env=cli_env(home, signed_out=True)
    )
    assert done.returncode == 1
    lines = done.stdout.splitlines()
    assert lines[0] == "FAIL  credential: no credential: not signed in"
    assert lines[1].startswith("      fix: sign in with nodecode-cursor login")
    # The service's HTTP answer needs no credential (as the README says): it is asked
    # once, with no authorization header; what needs the account is not checked.
    assert any(
        line.startswith(f"ok    reaching the service: {sim.url} answered (HTTP ")
        and line.endswith(" without a credential)")
        for line in lines
    ), lines
    assert "--    roster: not checked: no credential" in lines
    assert [r.path for r in sim.requests] == ["/agent.v1.AgentService/GetUsableModels"]
    assert "authorization" not in sim.requests[0].headers
    # No round can follow a signed-out check, so no warning about their tokens.
    assert "costs a few tokens" not in done.stderr


def test_an_unreachable_service(home: Path) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    code, checks, _ = doctor(f"http://127.0.0.1:{port}", home)
    assert code == 1
    # The refused connection is named as such, and the HTTP answer is not asked for.
    assert checks["connection"]["status"] == "fail"
    assert "proxy" in checks["connection"]["fix"]
    assert checks["reaching the service"]["status"] == "skip"
    assert statuses(checks)["rounds"] == "skip"


def test_an_outdated_client_names_the_setting(sim: Simulator, home: Path) -> None:
    sim.models.refuse(400, "failed_precondition", "Please update your client version")
    code, checks, _ = doctor(sim.url, home, "--no-rounds")
    assert code == 1
    assert checks["client version"]["status"] == "fail"
    assert "CURSOR_CLIENT_VERSION" in checks["client version"]["fix"]


def test_a_refused_roster_and_catalog(sim: Simulator, home: Path) -> None:
    sim.models.refuse(401, "unauthenticated", "bad token")
    sim.catalog.refuse(503, "unavailable", "down")
    code, checks, _ = doctor(sim.url, home, "--no-rounds")
    assert code == 1
    assert checks["roster"]["status"] == "fail"
    assert checks["roster"]["fix"] == "sign in again: nodecode-cursor login"
    assert checks["catalog"]["status"] == "fail"
    assert len(sim.requests_to(ROSTER_PATH)) == 1 and len(sim.requests_to(CATALOG_PATH)) == 1


def test_a_transport_that_is_not_served(sim: Simulator, home: Path) -> None:
    sim.route(RUN_PATH, lambda request: connect_error(404, "unimplemented", "no RunSSE here"))
    code, checks, _ = doctor(sim.url, home)
    assert code == 1
    assert checks["transport sse"]["status"] == "fail"
    assert '"transport": "poll"' in checks["transport sse"]["fix"]
    assert checks["transport poll"]["status"] == "ok"
    assert checks["round composer"]["status"] == "ok"  # auto moved to RunPoll


# Reads how the host treats a six-row account roster, not one listing every model.
@pytest.mark.sim_named_roster
def test_a_refused_wire_shape_shows_on_its_family(sim: Simulator, home: Path) -> None:
    def refuse_claude(run: RunRecord) -> Iterator[Any]:
        yield AskRequestContext()  # by then the run request is in
        if run.run_request is not None and b"claude" in run.run_request.SerializeToString():
            yield EndError("invalid_argument", "unknown model parameters")
            return
        steps = scripted_model(run)
        next(steps)  # its own AskRequestContext was answered above
        yield from steps

    sim.agent.default = refuse_claude
    code, checks, _ = doctor(sim.url, home)
    assert code == 1
    assert checks["round claude"]["status"] == "fail"
    assert "claude-opus-4-8-high" in checks["round claude"]["verdict"]
    assert checks["round gpt"]["status"] == "ok"


def test_a_corrupt_auth_json_names_the_file_and_the_way_out(sim: Simulator, home: Path) -> None:
    (home / "auth.json").write_bytes(b"{oops")
    code, checks, _ = doctor(sim.url, home, "--no-rounds")
    assert code == 1
    credential = checks["credential"]
    assert credential["status"] == "fail"
    assert credential["verdict"] == (
        f"{home / 'auth.json'} is not valid JSON (line 1, column 2); nothing will be written "
        "until it is fixed or moved aside (nodecode-cursor logout --move-aside keeps it as "
        "auth.json.corrupt-<time>)"
    )
    assert credential["fix"] == (
        "nodecode-cursor logout --move-aside (keeps it as auth.json.corrupt-<time>), "
        "then sign in again"
    )
