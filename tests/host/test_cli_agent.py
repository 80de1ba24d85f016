"""The reference host on the cursor-agent lane: ask, status and serve, against the stand-in CLI.

``--model cursor-agent/<model>`` (and the same name through ``serve``) runs the
turn through Cursor's own CLI; here the stand-in (tests/agent_standin) plays it.
Each ``run_main`` starts a fresh host, as a new process would: the CLI's session
id kept on disk carries a ``--session`` across them.
"""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest
from cli_run import cli_env, run_main
from standin import API_KEY, FOLDER, VERSION, StandIn, put_on_path
from test_openai_server import RunningServer

from nodecode_host.refhost import ReferenceHost

FIRST_ID = "5f1c2a9e-0d3b-4c7a-9e21-6b8f0a1d2c3e"


@pytest.fixture
def standin(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> StandIn:
    return put_on_path(monkeypatch, tmp_path)


def agent_env(home: Path, standin: StandIn) -> dict[str, str]:
    """Return a CLI run's environment with the stand-in on PATH and an API key, no bearer."""
    return cli_env(home, signed_out=True, CURSOR_API_KEY=API_KEY, **standin.env())


def test_ask_json_lists_the_clis_calls_as_resolved_calls(
    home: Path, standin: StandIn, tmp_path: Path
) -> None:
    standin.play("write_then_read.ndjson")
    args = ("ask", "--json", "--model", "cursor-agent/gpt-5.4", "--session", "s1")
    done = run_main(*args, "Write notes.txt", env=agent_env(home, standin), cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    answer = json.loads(done.stdout)
    assert answer["message"]["content"] == "Writing notes.txt.\n\nThe file says alpha and beta."
    assert answer["finish_reason"] == "stop" and answer["rounds"] == 1
    assert (answer["model"], answer["wire_model"]) == ("cursor-agent/gpt-5.4", "gpt-5.4")
    resolved = answer["resolved"]
    assert [m["role"] for m in resolved] == ["assistant", "tool", "assistant", "tool"]
    assert resolved[0]["tool_calls"][0]["function"]["name"] == "write"
    assert resolved[0]["tool_calls"][0]["resolved"] is True
    assert resolved[3] == {
        "role": "tool",
        "tool_call_id": "toolu_read_2",
        "content": "alpha\nbeta\n",
        "resolved": True,
    }
    assert answer["usage"]["cost_usd_estimate"] == pytest.approx(0.00495)
    # A new process with the same --session resumes the CLI's session.
    standin.play("write_then_read.ndjson", resume=FIRST_ID)
    again = run_main(*args, "And now?", env=agent_env(home, standin), cwd=tmp_path)
    assert again.returncode == 0, again.stdout + again.stderr
    assert standin.runs()[-1]["prompt"] == "And now?"


def test_ask_shows_the_clis_calls_as_they_run(home: Path, standin: StandIn, tmp_path: Path) -> None:
    standin.play("write_then_read.ndjson")
    done = run_main(
        "ask", "--model", "cursor-agent/gpt-5.4", "hi", env=agent_env(home, standin), cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    assert '→ read({"path": "notes.txt"}) (run by Cursor)' in done.stderr
    assert "alpha" in done.stderr
    shown = [line for line in done.stdout.splitlines() if line.strip()]
    assert shown == ["Writing notes.txt.", "The file says alpha and beta."]


def test_ask_without_an_api_key_is_one_line_saying_how_to_set_one(
    home: Path, standin: StandIn
) -> None:
    standin.play("write_then_read.ndjson")
    env = cli_env(home, signed_out=True, **standin.env())
    done = run_main("ask", "--model", "cursor-agent/auto", "hi", env=env)
    assert done.returncode == 2
    assert done.stderr.startswith("nodecode-cursor: the cursor-agent lane needs a Cursor API key")
    assert done.stderr.count("\n") == 1 and standin.runs() == []


def test_the_lane_setting_sends_every_model_to_the_cli(home: Path, standin: StandIn) -> None:
    (home / "config.json").write_text(json.dumps({"cursor": {"lane": "cursor-agent"}}))
    standin.play("soft_error.ndjson")
    done = run_main("ask", "--json", "--model", "sonnet-4.5", "hi", env=agent_env(home, standin))
    assert done.returncode == 0, done.stdout + done.stderr
    assert json.loads(done.stdout)["message"]["content"] == "Here is the summary you asked for."
    assert standin.runs()[-1]["argv"][-2:] == ["--model", "sonnet-4.5"]


def test_status_says_the_cli_is_on_the_path(home: Path, standin: StandIn) -> None:
    done = run_main("status", env=agent_env(home, standin))
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().endswith(
        f"; cursor-agent {VERSION} is on the PATH ({FOLDER / 'cursor-agent'})"
    )


def test_serve_takes_the_same_model_name(
    home: Path, standin: StandIn, monkeypatch: pytest.MonkeyPatch
) -> None:
    standin.play("write_then_read.ndjson")
    host = ReferenceHost(home, say=lambda _: None)
    host.start()
    # serve runs the lane only when the person opted in, with a client key.
    running = RunningServer(host, api_key="client-key-0123456789", allow_agent_lane=True).start()
    try:
        body = {"model": "cursor-agent/gpt-5.4", "messages": [{"role": "user", "content": "hi"}]}
        reply = httpx.post(
            f"{running.url}/chat/completions",
            json=body,
            headers={"authorization": "Bearer client-key-0123456789"},
            timeout=30,
        )
    finally:
        running.stop()
        host.stop()
    assert reply.status_code == 200, reply.text
    answer = reply.json()
    assert answer["model"] == "cursor-agent/gpt-5.4"
    assert answer["choices"][0]["message"]["content"].endswith("alpha and beta.")
    assert standin.runs()[-1]["argv"][-2:] == ["--model", "gpt-5.4"]
