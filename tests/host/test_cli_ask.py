"""``nodecode-cursor ask``: one turn, plain or ``--json``, its model, effort and failures.

Driven in-process through ``main(argv)`` against the simulator (``cli_run.run_main``).
"""

from __future__ import annotations

import io
import json
import logging
import re
import socket
import time
from pathlib import Path

import pytest
from cli_run import TOKEN, ask_json, cli_env, json_object, run_main

from cursor_simulator import Simulator
from cursor_simulator.agent import RUN_PATH
from cursor_simulator.steps import Sleep, StepStarted, Text
from nodecode_host.cli_report import TokenRedactor
from nodecode_host.errors import HostConfigError
from nodecode_host.refhost import ReferenceHost
from nodecode_host.setup import checked_route


def test_ask_json_text_round(sim: Simulator, home: Path, tmp_path: Path) -> None:
    answer = ask_json(sim, home, "--tools", "none", "hello from the cli", cwd=tmp_path)
    assert answer["message"] == {
        "role": "assistant",
        "content": "Simulated Cursor here. You said: hello from the cli",
    }
    assert answer["finish_reason"] == "stop"
    assert answer["rounds"] == 1
    assert answer["model"] == "composer-2.5"
    assert answer["wire_model"] == "composer-2.5"
    assert answer["folded"] == {"messages": 0, "reason": ""}
    assert set(answer["usage"]) >= {"input", "output", "cache_read", "cache_write", "total"}
    assert answer["usage"]["output"] > 0
    runs = sim.requests_to(RUN_PATH)
    assert len(runs) == 1
    assert runs[0].headers["authorization"] == f"Bearer {TOKEN}"
    assert sim.agent.run().prompt() == "hello from the cli"


def test_ask_json_tool_round_returns_calls_unrun(
    sim: Simulator, home: Path, tmp_path: Path
) -> None:
    (tmp_path / "notes.txt").write_text("the secret word is heliotrope\n")
    answer = ask_json(
        sim,
        home,
        "--max-rounds",
        "1",
        'Use read_file with {"path": "notes.txt"}',
        cwd=tmp_path,
    )
    assert answer["finish_reason"] == "tool_calls"
    assert answer["rounds"] == 1
    calls = answer["message"]["tool_calls"]
    assert [c["function"]["name"] for c in calls] == ["read_file"]
    assert json.loads(calls[0]["function"]["arguments"]) == {"path": "notes.txt"}
    assert calls[0]["type"] == "function" and calls[0]["id"]
    # One round only: the call came back unrun, nothing went back to the service.
    assert len(sim.requests_to(RUN_PATH)) == 1


def test_ask_full_tool_turn_with_default_tools(sim: Simulator, home: Path, tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("the secret word is heliotrope\n")
    answer = ask_json(sim, home, 'Use read_file with {"path": "notes.txt"}', cwd=tmp_path)
    assert answer["finish_reason"] == "stop"
    assert answer["rounds"] == 2
    assert answer["message"]["role"] == "assistant"
    assert "the secret word is heliotrope" in answer["message"]["content"]
    assert answer["message"]["content"].startswith("read_file returned:")
    assert len(sim.requests_to(RUN_PATH)) == 2


def test_ask_default_tools_refuse_a_path_outside_the_folder(
    sim: Simulator, home: Path, tmp_path: Path
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    (tmp_path / "outside.txt").write_text("not for the model\n")
    answer = ask_json(sim, home, 'Use read_file with {"path": "../outside.txt"}', cwd=work)
    content = answer["message"]["content"]
    assert "outside the working directory" in content
    assert "not for the model" not in content


def test_ask_history_that_ends_on_a_tool_result_starts_with_that_tool_work(
    sim: Simulator, home: Path, tmp_path: Path
) -> None:
    # No process ran this conversation, so Cursor could not resume it: the round
    # starts it with the call and its result in the history, and the model goes on.
    history = [
        {"role": "user", "content": "what is in the box?"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "open_box", "arguments": "{}"},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": "a brass key"},
    ]
    path = tmp_path / "history.json"
    path.write_text(json.dumps(history))
    answer = ask_json(sim, home, "--tools", "none", "--history", str(path), cwd=tmp_path)
    assert answer["finish_reason"] == "stop"
    assert answer["message"]["content"] == "open_box returned: a brass key"
    run = sim.agent.run(-1)
    # composer-2.5 (ask's default) goes on after tool results with a user message of
    # ours, as opencodex saw it needs (docs/protocol.md §7b).
    assert run.prompt() == "Continue from the tool results in the conversation above."
    assert [m["role"] for m in run.root_messages()] == ["system", "user", "assistant", "tool"]
    assert sim.agent.violations() == []


def test_ask_tools_from_a_file_are_returned_not_run(
    sim: Simulator, home: Path, tmp_path: Path
) -> None:
    tools = [
        {
            "type": "function",
            "function": {
                "name": "lookup_weather",
                "description": "The weather in a city",
                "parameters": {
                    "type": "object",
                    "properties": {"city": {"type": "string"}},
                    "required": ["city"],
                },
            },
        }
    ]
    path = tmp_path / "tools.json"
    path.write_text(json.dumps(tools))
    answer = ask_json(
        sim, home, "--tools", str(path), 'Use lookup_weather with {"city": "Oslo"}', cwd=tmp_path
    )
    assert answer["finish_reason"] == "tool_calls"
    assert answer["rounds"] == 1
    (call,) = answer["message"]["tool_calls"]
    assert call["function"]["name"] == "lookup_weather"
    assert json.loads(call["function"]["arguments"]) == {"city": "Oslo"}


def test_ask_plain_streams_the_answer_to_stdout(sim: Simulator, home: Path, tmp_path: Path) -> None:
    done = run_main(
        "--base-url", sim.url, "ask", "--tools", "none", "plain words", env=cli_env(home)
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == "Simulated Cursor here. You said: plain words\n"


def test_unknown_model_names_the_nearest(sim: Simulator, home: Path) -> None:
    done = run_main(
        "--base-url", sim.url, "ask", "--json", "--model", "gpt-5.9", "hi", env=cli_env(home)
    )
    assert done.returncode == 2
    error = json.loads(done.stdout)["error"]
    assert error["status"] == 400
    assert "gpt-5.9" in error["message"] and "gpt-5.5" in error["message"]
    assert not sim.requests_to(RUN_PATH)


def test_the_nearest_models_are_named_once_each(home: Path) -> None:
    with ReferenceHost(home) as host:
        host.start()
        # After /models the chat passes the roster's ids too; they repeat the catalog's.
        with pytest.raises(HostConfigError) as caught:
            checked_route(host, "gpt-9", None, ["gpt-5.4", "gpt-5.5"])
    found = re.search(r"Nearest supported: (.*?)\. \(", str(caught.value))
    assert found is not None, str(caught.value)
    names = found.group(1).split(", ")
    assert "gpt-5.4" in names
    assert len(names) == len(set(names)), names


def test_unknown_effort_lists_the_models_efforts(sim: Simulator, home: Path) -> None:
    done = run_main(
        "--base-url",
        sim.url,
        "ask",
        "--model",
        "gpt-5.4",
        "--effort",
        "max",
        "hi",
        env=cli_env(home),
    )
    assert done.returncode == 2
    assert "low, medium, high, xhigh" in done.stderr
    assert "Traceback" not in done.stderr
    assert not sim.requests_to(RUN_PATH)


def test_usage_error_with_json_is_json_and_exit_2(home: Path) -> None:
    done = run_main("ask", "--json", env=cli_env(home))
    assert done.returncode == 2
    assert json.loads(done.stdout)["error"]["status"] == 400


def test_not_signed_in_says_how_to_sign_in(sim: Simulator, home: Path) -> None:
    env = cli_env(home, signed_out=True)
    done = run_main("--base-url", sim.url, "ask", "--json", "hi", env=env)
    assert done.returncode == 2
    message = json.loads(done.stdout)["error"]["message"]
    assert "not signed in" in message and "nodecode-cursor login" in message
    assert not sim.requests_to(RUN_PATH)


def test_unreachable_names_the_url(home: Path) -> None:
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    url = f"http://127.0.0.1:{port}"
    done = run_main("--base-url", url, "ask", "--json", "hi", env=cli_env(home))
    assert done.returncode == 1
    error = json.loads(done.stdout)["error"]
    assert url in error["message"]
    assert TOKEN not in done.stdout + done.stderr
    assert "Traceback" not in done.stderr


def test_a_token_with_a_line_break_is_refused_without_echoing_it(
    sim: Simulator, home: Path
) -> None:
    env = cli_env(home, CURSOR_ACCESS_TOKEN="secretHALF1\nsecretHALF2")
    # models still lists the bundled rows (exit 0), saying why the live list is missing.
    for args, code in ((("ask", "--json", "hi"), 2), (("models",), 0), (("status",), 2)):
        done = run_main("--base-url", sim.url, *args, env=env)
        assert done.returncode == code, done.stdout + done.stderr
        assert "CURSOR_ACCESS_TOKEN" in done.stdout + done.stderr
        assert "secretHALF" not in done.stdout + done.stderr
        assert "Traceback" not in done.stderr
    assert not sim.requests_to(RUN_PATH)


def test_verbose_log_never_shows_the_token(sim: Simulator, home: Path) -> None:
    done = run_main("-v", "--base-url", sim.url, "ask", "--tools", "none", "hi", env=cli_env(home))
    assert done.returncode == 0
    assert "nodecode_cursor" in done.stderr  # the debug log is on
    assert TOKEN not in done.stderr + done.stdout


def test_the_log_redactor_scrubs_messages_and_tracebacks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CURSOR_ACCESS_TOKEN", "env-token-value-12345")
    refreshed = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1c2VyIn0.c2lnbmF0dXJlLXZhbHVl"
    out = io.StringIO()
    handler = logging.StreamHandler(out)
    handler.setFormatter(logging.Formatter("%(message)s"))
    handler.addFilter(TokenRedactor())
    logger = logging.getLogger("nodecode_cursor.test-redactor")
    logger.addHandler(handler)
    logger.propagate = False
    try:
        logger.warning("sent %s with env-token-value-12345", f"'Bearer {refreshed}'")
        try:
            raise ValueError(f"Illegal header value b'Bearer {refreshed}'")
        except ValueError:
            logger.error("the request failed", exc_info=True)
    finally:
        logger.removeHandler(handler)
        logger.propagate = True
    written = out.getvalue()
    assert "Traceback" in written and "ValueError: Illegal header value" in written
    assert "[redacted]" in written
    assert refreshed not in written and "eyJ" not in written
    assert "env-token-value-12345" not in written
    # Prose about bearer tokens stays readable.
    assert "the bearer token" in TokenRedactor.redacted("the bearer token was refused")


def test_ask_timeout_ends_a_silent_round_with_an_error(sim: Simulator, home: Path) -> None:
    sim.agent.script([StepStarted(), Text("a start "), Sleep(60)])
    started = time.monotonic()
    done = run_main(
        "--base-url", sim.url, "ask", "--json", "--timeout", "0.5", "hi", env=cli_env(home)
    )
    assert time.monotonic() - started < 30  # not the simulator's 60 s pause
    assert done.returncode == 1, done.stdout + done.stderr
    error = json.loads(done.stdout)["error"]
    assert error["status"] == 502
    assert "sent nothing for" in error["message"]
    bad = run_main(
        "--base-url", sim.url, "ask", "--json", "--timeout", "0", "hi", env=cli_env(home)
    )
    assert bad.returncode == 2
    assert "--timeout" in json.loads(bad.stdout)["error"]["message"]


@pytest.mark.parametrize("value", ["nan", "inf", "1e400"])
def test_ask_timeout_must_be_a_finite_number(sim: Simulator, home: Path, value: str) -> None:
    done = run_main("--base-url", sim.url, "ask", "--timeout", value, "hi", env=cli_env(home))
    assert done.returncode == 2, done.stdout + done.stderr
    assert "--timeout" in done.stderr and "not a finite number" in done.stderr
    assert "Traceback" not in done.stderr
    assert not sim.requests_to(RUN_PATH)


def test_verbose_ask_logs_each_round(sim: Simulator, home: Path, tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("the secret word is heliotrope\n")
    done = run_main(
        "-v",
        "--base-url",
        sim.url,
        "ask",
        "--session",
        "s-verbose",
        'Use read_file with {"path": "notes.txt"}',
        env=cli_env(home),
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    rounds = [line for line in done.stderr.splitlines() if "nodecode_host.turn" in line]
    rounds = [line for line in rounds if " round " in line]
    assert len(rounds) == 2, done.stderr
    assert re.search(
        r"INFO round 1: model composer-2\.5 \(wire composer-2\.5\), effort off, "
        r"session s-verbose, finish tool_calls, usage in \d+ out \d+ cache read \d+ write \d+, "
        r"\d+\.\d\ds",
        rounds[0],
    ), rounds[0]
    assert "round 2: " in rounds[1] and "finish stop" in rounds[1]
    assert TOKEN not in done.stderr


def test_a_model_only_the_accounts_roster_lists_can_be_asked(sim: Simulator, home: Path) -> None:
    # The simulator's default roster lists gpt-5.4-high, which no bundled row is named.
    answer = ask_json(sim, home, "--model", "gpt-5.4-high", "hi")
    assert answer["message"]["content"] == "Simulated Cursor here. You said: hi"
    assert answer["wire_model"] == "gpt-5.4-high"


def test_a_model_neither_bundled_nor_in_the_roster_is_refused(sim: Simulator, home: Path) -> None:
    done = run_main(
        "--base-url", sim.url, "ask", "--model", "gpt-9.9-nowhere", "hi", env=cli_env(home)
    )
    assert done.returncode == 2
    assert "unknown model cursor/gpt-9.9-nowhere" in done.stderr
    assert "could not be checked" not in done.stderr


def test_a_misspelt_effort_is_refused_even_where_the_model_does_not_reason(
    sim: Simulator, home: Path
) -> None:
    done = run_main(
        "--base-url",
        sim.url,
        "ask",
        "--model",
        "composer-2.5",
        "--effort",
        "bogus",
        "hi",
        env=cli_env(home),
    )
    assert done.returncode == 2
    assert "'bogus' is not a known level" in done.stderr
    assert sim.requests_to("/agent.v1.AgentService/RunSSE") == []


def test_ask_json_says_how_many_messages_a_long_history_folded(
    sim: Simulator, home: Path, tmp_path: Path
) -> None:
    history = [{"role": "user", "content": "read them all"}]
    for n in range(120):
        history.append(
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {"id": f"c{n}", "type": "function", "function": {"name": "read_file"}}
                ],
            }
        )
        history.append({"role": "tool", "tool_call_id": f"c{n}", "content": f"file {n}"})
    path = tmp_path / "long.json"
    path.write_text(json.dumps(history))
    done = run_main(
        "--base-url", sim.url, "ask", "--json", "--tools", "none", "--history", str(path),
        env=cli_env(home, CURSOR_HISTORY_BUDGET="64,524288"),
        cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    answer = json_object(done.stdout)
    # 241 messages in 64 roots: all but the newest rounds and the question are summarised
    assert answer["folded"]["messages"] > 150
    assert "over 64 root blobs" in answer["folded"]["reason"]
    assert answer["message"]["content"] == "read_file returned: file 119"
    assert len(sim.agent.run().run_request.conversation_state.root_prompt_messages_json) <= 64
