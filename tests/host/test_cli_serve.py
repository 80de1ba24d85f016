"""``nodecode-cursor serve``: the OpenAI-compatible API from a shell.

Starting and stopping it (SIGTERM) runs a subprocess; the refusals before it listens
run in-process through ``main(argv)``.
"""

from __future__ import annotations

import argparse
import re
import signal
import socket
import subprocess
from pathlib import Path

import pytest
from cli_run import CLI, RUN_TIMEOUT, TOKEN, cli_env, run_main, running_serve, serve_banner

from cursor_simulator import Simulator
from nodecode_host.cli_serve import cmd_serve
from nodecode_host.errors import HostConfigError
from nodecode_host.routes import API_KEY_ENV


def test_serve_answers_an_openai_client_and_stops_on_sigterm(sim: Simulator, home: Path) -> None:
    import httpx

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with running_serve(sim, home, "--port", str(port)) as banner:
        assert f"http://127.0.0.1:{port}" in banner and "loopback only" in banner
        answer = httpx.post(
            f"http://127.0.0.1:{port}/v1/chat/completions",
            json={"model": "cursor/composer-2.5", "messages": [{"role": "user", "content": "hi"}]},
            timeout=RUN_TIMEOUT,
        ).json()
        assert answer["object"] == "chat.completion"
        assert answer["choices"][0]["message"]["content"] == "Simulated Cursor here. You said: hi"
        assert answer["choices"][0]["finish_reason"] == "stop"


def test_serve_refuses_a_network_address_without_a_client_key(home: Path) -> None:
    done = run_main("serve", "--host", "0.0.0.0", env=cli_env(home))
    assert done.returncode == 2
    assert "NODECODE_SERVE_API_KEY" in done.stderr
    assert "Traceback" not in done.stderr
    # The key typed on the command line is never echoed back.
    inline = run_main("serve", "--api-key=s3cret-key", env=cli_env(home))
    assert inline.returncode == 2
    for run in (done, inline):
        assert "s3cret-key" not in run.stdout + run.stderr


@pytest.mark.parametrize("value", ["0", "99999", "65536", "-1"])
def test_serve_port_out_of_range_is_a_usage_error(home: Path, value: str) -> None:
    done = run_main("serve", "--port", value, env=cli_env(home))
    assert done.returncode == 2, done.stdout + done.stderr
    assert "--port" in done.stderr and "1 to 65535" in done.stderr
    assert "internal error" not in done.stderr and "Traceback" not in done.stderr


def test_serve_on_ipv6_loopback_brackets_the_address(sim: Simulator, home: Path) -> None:
    try:
        with socket.socket(socket.AF_INET6) as probe:
            probe.bind(("::1", 0))
            port = probe.getsockname()[1]
    except OSError:
        pytest.skip("no IPv6 loopback here")
    banner = serve_banner(sim, home, "--host", "::1", "--port", str(port))
    assert f"http://[::1]:{port}/v1" in banner, banner
    assert "loopback only" in banner


def test_verbose_serve_logs_each_request_and_refusals_without_keys(
    sim: Simulator, home: Path
) -> None:
    import httpx

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    client_key = "client-key-for-the-log-test"
    process = subprocess.Popen(
        [*CLI, "-v", "--base-url", sim.url, "serve", "--port", str(port)],
        env=cli_env(home, NODECODE_SERVE_API_KEY=client_key),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stderr is not None
        seen = []
        while not any("serving Cursor's models" in line for line in seen):
            line = process.stderr.readline()
            assert line, "".join(seen)
            seen.append(line)
        url = f"http://127.0.0.1:{port}/v1"
        body = {"model": "cursor/composer-2.5", "messages": [{"role": "user", "content": "hi"}]}
        good = httpx.post(
            f"{url}/chat/completions",
            json=body,
            headers={"authorization": f"Bearer {client_key}"},
            timeout=RUN_TIMEOUT,
        )
        assert good.status_code == 200
        wrong = httpx.get(
            f"{url}/models", headers={"authorization": "Bearer wrong-key-12345"}, timeout=5
        )
        assert wrong.status_code == 401
        process.send_signal(signal.SIGTERM)
        assert process.wait(RUN_TIMEOUT) == 0
        _, rest = process.communicate()
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    log = "".join(seen) + rest
    assert re.search(
        r"INFO POST /v1/chat/completions -> 200 in \d+\.\d{3}s \(model cursor/composer-2\.5\)", log
    ), log
    assert re.search(r"WARNING refused GET /v1/models: missing or wrong client API key", log), log
    assert re.search(r"INFO GET /v1/models -> 401 in \d+\.\d{3}s", log), log
    for secret in (client_key, "wrong-key-12345", TOKEN):
        assert secret not in log


def test_serve_api_key_flag_points_at_serve_help_and_the_variable(home: Path) -> None:
    done = run_main("serve", "--api-key", "s3cret-key", env=cli_env(home))
    assert done.returncode == 2
    assert "(see nodecode-cursor serve --help)" in done.stderr
    assert "NODECODE_SERVE_API_KEY" in done.stderr
    assert "Traceback" not in done.stderr
    # The key typed on the command line is never echoed back.
    inline = run_main("serve", "--api-key=s3cret-key", env=cli_env(home))
    assert inline.returncode == 2
    for run in (done, inline):
        assert "s3cret-key" not in run.stdout + run.stderr


def test_a_client_key_typed_before_serve_is_never_echoed(home: Path) -> None:
    # The top parser refuses it (the global flags come first): still serve's line.
    done = run_main("--api-key=s3cret-key", "serve", env=cli_env(home))
    assert done.returncode == 2
    assert "serve takes no --api-key" in done.stderr
    assert "(see nodecode-cursor serve --help)" in done.stderr
    assert "s3cret-key" not in done.stdout + done.stderr


def test_serve_refuses_the_network_without_a_client_key(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv(API_KEY_ENV, raising=False)
    with pytest.raises(HostConfigError, match=API_KEY_ENV):
        cmd_serve(argparse.Namespace(host="0.0.0.0", port=8765))
