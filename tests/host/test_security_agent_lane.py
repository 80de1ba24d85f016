"""``serve`` runs Cursor's own CLI only when the person opted in with a client key (issue 22, 1, 8).

The ``cursor-agent`` lane runs ``cursor-agent --force --trust``: its shell and file
tools approved for whatever the model asks. Through ``serve`` that would be a
command runner for any client, so ``serve`` refuses the lane unless started with
``--allow-agent-lane``, which needs a client key. The stand-in CLI
(tests/agent_standin) logs every run, so a refused request is seen to run nothing.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from cli_run import cli_env, run_main
from served import RunningServer
from standin import API_KEY, StandIn, put_on_path

from nodecode_host.refhost import ReferenceHost

CLIENT_KEY = "client-key-for-the-agent-lane-0123"
BODY = {"model": "cursor-agent/auto", "messages": [{"role": "user", "content": "hi"}]}


@pytest.fixture
def standin(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> StandIn:
    return put_on_path(monkeypatch, tmp_path)


@pytest.fixture
def host(home: Path) -> Iterator[ReferenceHost]:
    reference = ReferenceHost(home, say=lambda _: None)
    reference.start()
    try:
        yield reference
    finally:
        reference.stop()


def _post(
    running: RunningServer, body: dict[str, object], key: str | None = None
) -> httpx.Response:
    headers = {"authorization": f"Bearer {key}"} if key else {}
    return httpx.post(f"{running.url}/chat/completions", json=body, headers=headers, timeout=30)


def test_serve_refuses_a_cursor_agent_model_by_default(
    host: ReferenceHost, standin: StandIn
) -> None:
    standin.play("write_then_read.ndjson")
    running = RunningServer(host).start()
    try:
        reply = _post(running, BODY)
        upper = _post(running, {**BODY, "model": "cursor/Cursor-Agent/auto"})
    finally:
        running.stop()
    assert reply.status_code == 403, reply.text
    assert reply.json()["error"]["code"] == "agent_lane_not_allowed"
    assert "--allow-agent-lane" in reply.json()["error"]["message"]
    assert upper.status_code == 403, upper.text
    assert standin.runs() == []


def test_serve_refuses_the_lane_setting_by_default(home: Path, standin: StandIn) -> None:
    standin.play("write_then_read.ndjson")
    reference = ReferenceHost(home, overrides={"cursor": {"lane": "cursor-agent"}}, say=print)
    reference.start()
    running = RunningServer(reference).start()
    try:
        reply = _post(running, {**BODY, "model": "sonnet-4.5"})
    finally:
        running.stop()
        reference.stop()
    assert reply.status_code == 403, reply.text
    assert reply.json()["error"]["code"] == "agent_lane_not_allowed"
    assert standin.runs() == []


def test_the_opt_in_runs_the_cli_without_the_hosts_other_secrets(
    host: ReferenceHost, standin: StandIn, monkeypatch: pytest.MonkeyPatch
) -> None:
    standin.play("write_then_read.ndjson")
    monkeypatch.setenv("NODECODE_SERVE_API_KEY", CLIENT_KEY)
    monkeypatch.setenv("CURSOR_ACCESS_TOKEN", "bearer-the-cli-never-needs")
    monkeypatch.setenv("CURSOR_REFRESH_TOKEN", "refresh-the-cli-never-needs")
    running = RunningServer(host, api_key=CLIENT_KEY, allow_agent_lane=True).start()
    try:
        reply = _post(running, BODY, key=CLIENT_KEY)
    finally:
        running.stop()
    assert reply.status_code == 200, reply.text
    (run,) = standin.runs()
    assert run["secret_names"] == ["CURSOR_API_KEY"]
    assert API_KEY not in run["argv"]


def test_the_opt_in_needs_a_client_key(home: Path) -> None:
    env = {k: v for k, v in cli_env(home).items() if k != "NODECODE_SERVE_API_KEY"}
    done = run_main("serve", "--allow-agent-lane", "--port", "1", env=env)
    assert done.returncode == 2, done
    assert "NODECODE_SERVE_API_KEY" in done.stderr
    assert done.stderr.count("\n") == 1, done.stderr
