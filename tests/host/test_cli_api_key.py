"""A ``crsr_`` API key through ``ask``, ``chat`` and ``serve`` as processes (issue 33).

Each command runs as a real ``nodecode-cursor`` process with the key in
CURSOR_API_KEY against the simulator, which refuses the raw key as Cursor does:
the command works because the key is exchanged once, and the key shows in no
output (``-v`` included), no error and no request but the exchange's own.
"""

from __future__ import annotations

import json
import socket
import uuid
from pathlib import Path

import httpx
from cli_run import RUN_TIMEOUT, cli_env, close_chat, run_cli, run_main, running_serve, spawn_chat

from cursor_simulator import Simulator
from cursor_simulator.agent import RUN_PATH
from cursor_simulator.auth import EXCHANGE_PATH


def new_key() -> str:
    """Return a key no other test has exchanged (the in-process runs keep tokens per key)."""
    return f"crsr_{uuid.uuid4().hex}{uuid.uuid4().hex}"


def key_env(home: Path, key: str, **extra: str) -> dict[str, str]:
    """Return a CLI environment whose only Cursor credential is KEY in CURSOR_API_KEY."""
    return cli_env(home, signed_out=True, CURSOR_API_KEY=key, **extra)


def sent_only_to_the_exchange(sim: Simulator, key: str) -> bool:
    """Return whether KEY reached SIM nowhere but the exchange's Authorization header."""
    return all(
        key.encode() not in r.body and all(key not in v for v in r.headers.values())
        for r in sim.requests
        if r.path != EXCHANGE_PATH
    )


def test_ask_exchanges_the_key_once_and_never_shows_it(sim: Simulator, home: Path) -> None:
    key = new_key()
    env = key_env(home, key)
    done = run_cli("-v", "--base-url", sim.url, "ask", "--tools", "none", "hi", env=env)
    assert done.returncode == 0, done.stderr
    assert "Simulated Cursor here. You said: hi" in done.stdout
    assert sim.auth.exchanges == 1
    (token,) = sim.auth.exchanged
    assert [r.headers["authorization"] for r in sim.requests_to(RUN_PATH)] == [f"Bearer {token}"]
    assert key not in done.stdout + done.stderr
    assert token not in done.stdout + done.stderr
    assert sent_only_to_the_exchange(sim, key)


def test_ask_with_a_refused_key_says_what_to_do(sim: Simulator, home: Path) -> None:
    key = new_key()
    sim.auth.api_keys = set()
    done = run_cli(
        "-v", "--base-url", sim.url, "ask", "--tools", "none", "hi", env=key_env(home, key)
    )
    assert done.returncode == 1
    assert (
        "Cursor refused the API key (from CURSOR_API_KEY): check it in Cursor's dashboard "
        "or run /connect again"
    ) in done.stderr
    assert key not in done.stdout + done.stderr
    assert sim.requests_to(RUN_PATH) == []


def test_ask_exchanges_again_once_the_token_nears_its_expiry(sim: Simulator, home: Path) -> None:
    key = new_key()
    sim.auth.exchange_lifetime = 240.0  # within five minutes of exp the moment it comes
    for text in ("one", "two"):
        done = run_main(
            "--base-url", sim.url, "ask", "--tools", "none", text, env=key_env(home, key)
        )
        assert done.returncode == 0, done.stderr
    assert sim.auth.exchanges == 2
    sim.auth.exchange_lifetime = 3600.0
    for text in ("three", "four"):
        done = run_main(
            "--base-url", sim.url, "ask", "--tools", "none", text, env=key_env(home, key)
        )
        assert done.returncode == 0, done.stderr
    # In one process (run_main), an hour's token serves every later round.
    assert sim.auth.exchanges == 3


def test_chat_turns_share_one_exchange_and_status_says_so(
    sim: Simulator, home: Path, tmp_path: Path
) -> None:
    key = new_key()
    child = spawn_chat(sim, home, tmp_path, **key_env(home, key, TERM="dumb"))
    try:
        child.expect("> ")
        for text in ("first turn", "second turn", "third turn"):
            child.sendline(text)
            child.expect(f"Simulated Cursor here. You said: {text}")
            child.expect("> ")
        child.sendline("/cursor status")
        child.expect(
            r"an API key from the environment \(CURSOR_API_KEY\) is used, "
            r"exchanged for a session token until \d\d:\d\d"
        )
        child.expect("> ")
        shown = child.before or ""
        close_chat(child)
    finally:
        child.close(force=True)
    assert sim.auth.exchanges == 1
    assert len(sim.requests_to(RUN_PATH)) == 3
    assert key not in shown
    assert sent_only_to_the_exchange(sim, key)


def test_serve_exchanges_the_key_once_for_many_requests(sim: Simulator, home: Path) -> None:
    key = new_key()
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = key_env(home, key)
    with running_serve(sim, home, "--port", str(port), env=env) as banner:
        assert f"http://127.0.0.1:{port}" in banner
        for n in range(3):
            answer = httpx.post(
                f"http://127.0.0.1:{port}/v1/chat/completions",
                json={
                    "model": "cursor/composer-2.5",
                    "messages": [{"role": "user", "content": f"hi {n}"}],
                },
                timeout=RUN_TIMEOUT,
            ).json()
            assert answer["choices"][0]["message"]["content"] == (
                f"Simulated Cursor here. You said: hi {n}"
            )
        models = httpx.get(f"http://127.0.0.1:{port}/v1/models", timeout=RUN_TIMEOUT)
        assert models.status_code == 200
        assert key not in models.text
    assert sim.auth.exchanges == 1
    assert sent_only_to_the_exchange(sim, key)


def test_serve_with_a_refused_key_answers_a_readable_error(sim: Simulator, home: Path) -> None:
    key = new_key()
    sim.auth.api_keys = set()
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with running_serve(sim, home, "--port", str(port), env=key_env(home, key)):
        answer = httpx.post(
            f"http://127.0.0.1:{port}/v1/chat/completions",
            json={"model": "cursor/composer-2.5", "messages": [{"role": "user", "content": "hi"}]},
            timeout=RUN_TIMEOUT,
        )
    assert answer.status_code in (401, 403), answer.text
    assert "Cursor refused the API key (from CURSOR_API_KEY)" in answer.text
    assert key not in answer.text


def test_status_and_doctor_name_the_exchanged_api_key(sim: Simulator, home: Path) -> None:
    key = new_key()
    status = run_cli("status", env=key_env(home, key))
    assert status.returncode == 0, status.stderr
    assert (
        "cursor: not signed in; an API key from the environment (CURSOR_API_KEY) is used, "
        "exchanged for a session token at its first call"
    ) in status.stdout
    done = run_cli("--base-url", sim.url, "doctor", "--json", "--no-rounds", env=key_env(home, key))
    checks = {c["name"]: c for c in json.loads(done.stdout)["checks"]}
    verdict = checks["credential"]["verdict"]
    assert checks["credential"]["status"] == "ok"
    assert verdict.startswith("API key (CURSOR_API_KEY), exchanged for a session token until "), (
        verdict
    )
    assert checks["roster"]["status"] == "ok"
    assert key not in done.stdout + done.stderr + status.stdout + status.stderr
    sim.auth.api_keys = set()
    refused_key = new_key()
    refused = run_cli(
        "--base-url", sim.url, "doctor", "--json", "--no-rounds", env=key_env(home, refused_key)
    )
    checks = {c["name"]: c for c in json.loads(refused.stdout)["checks"]}
    assert checks["credential"]["status"] == "fail"
    assert checks["credential"]["verdict"].startswith(
        "Cursor refused the API key (from CURSOR_API_KEY)"
    )
    assert refused_key not in refused.stdout + refused.stderr
