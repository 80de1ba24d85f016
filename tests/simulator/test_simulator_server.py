"""The simulator's HTTP/1.1 server, driven by a real httpx client over a loopback socket.

These tests pin what later issues rely on: routing by path, a Connect error for
an unknown path, requests recorded with their headers and bodies, bodies that
really stream (the client holds chunk 1 before the server has produced chunk
2), faults injected by cutting the connection, keep-alive, and the command line.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import select
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from cursor_simulator import Cut, SimRequest, SimResponse, Simulator, connect_error
from nodecode_cursor.wire.connect import classify_connect_error

ROOT = Path(__file__).resolve().parents[2]

# Generous bounds for things that happen in milliseconds; they only matter when a test fails.
WAIT = 5.0
CLI_ARGS = [sys.executable, "-m", "nodecode_host.cli"]


def _client(sim: Simulator) -> httpx.Client:
    return httpx.Client(base_url=sim.url, timeout=WAIT)


def _echo(request: SimRequest) -> SimResponse:
    return SimResponse(
        200,
        {"content-type": "application/octet-stream", "x-seen-path": request.path},
        request.body[::-1],
    )


def test_listens_on_loopback_with_a_chosen_port(sim: Simulator) -> None:
    assert re.fullmatch(r"http://127\.0\.0\.1:\d+", sim.url)
    assert not sim.url.endswith(":0")


def test_routes_by_path_and_records_request(sim: Simulator) -> None:
    sim.route("/aiserver.v1.Echo/Call", _echo)
    with _client(sim) as client:
        response = client.post(
            "/aiserver.v1.Echo/Call?x=1&y=two",
            content=b"\x0a\x03abc",
            headers={"Content-Type": "application/proto", "X-Request-Id": "rid-1"},
        )
    assert response.status_code == 200
    assert response.content == b"cba\x03\x0a"
    assert response.headers["x-seen-path"] == "/aiserver.v1.Echo/Call"
    (seen,) = sim.requests_to("/aiserver.v1.Echo/Call")
    assert seen.method == "POST"
    assert seen.body == b"\x0a\x03abc"
    assert seen.headers["content-type"] == "application/proto"
    assert seen.headers["x-request-id"] == "rid-1"
    assert seen.query == {"x": "1", "y": "two"}
    assert seen.target == "/aiserver.v1.Echo/Call?x=1&y=two"
    assert sim.requests == [seen]


def test_two_routes_do_not_mix(sim: Simulator) -> None:
    sim.route("/a", lambda r: SimResponse(200, {}, b"A"))
    sim.route("/b", lambda r: SimResponse(201, {}, b"B"))
    with _client(sim) as client:
        assert client.get("/b").content == b"B"
        assert client.get("/a").content == b"A"
    assert [r.path for r in sim.requests] == ["/b", "/a"]
    assert len(sim.requests_to("/a")) == 1


def test_route_can_be_replaced(sim: Simulator) -> None:
    sim.route("/x", lambda r: SimResponse(200, {}, b"old"))
    sim.route("/x", lambda r: SimResponse(200, {}, b"new"))
    with _client(sim) as client:
        assert client.get("/x").content == b"new"


def test_unknown_path_is_a_404_connect_error(sim: Simulator) -> None:
    with _client(sim) as client:
        response = client.post("/no.such.Service/Method", content=b"")
    assert response.status_code == 404
    assert response.headers["content-type"] == "application/json"
    body = response.json()
    assert body["code"] == "unimplemented"
    assert body["message"]
    error = classify_connect_error(body, http_status=response.status_code)
    assert str(error).startswith("Connect error unimplemented: ")
    assert len(sim.requests_to("/no.such.Service/Method")) == 1


def test_connect_error_helper(sim: Simulator) -> None:
    sim.route("/deny", lambda r: connect_error(403, "permission_denied", "not for you"))
    with _client(sim) as client:
        response = client.post("/deny")
    assert response.status_code == 403
    assert response.json() == {"code": "permission_denied", "message": "not for you"}


def test_large_request_body_arrives_whole(sim: Simulator) -> None:
    sim.route("/big", lambda r: SimResponse(200, {}, str(len(r.body)).encode()))
    payload = os.urandom(3 * 1024 * 1024 + 7)
    with _client(sim) as client:
        response = client.post("/big", content=payload)
    assert response.content == str(len(payload)).encode()
    assert sim.requests_to("/big")[0].body == payload


def test_handler_failure_is_a_500(sim: Simulator) -> None:
    def broken(request: SimRequest) -> SimResponse:
        raise RuntimeError("scripted failure")

    sim.route("/broken", broken)
    with _client(sim) as client:
        response = client.get("/broken")
        assert response.status_code == 500
        # The connection and the server survive a failed handler.
        assert client.get("/nope").status_code == 404


def test_body_really_streams(sim: Simulator) -> None:
    release = threading.Event()
    produced: list[str] = []

    def stream(request: SimRequest) -> SimResponse:
        def chunks() -> Iterator[bytes]:
            produced.append("one")
            yield b"\x00\x00\x00\x00\x01A"
            # The rest exists only once the client has read chunk 1.
            if not release.wait(WAIT):
                return
            produced.append("two")
            yield b"\x00\x00\x00\x00\x01B"
            yield b"\x02\x00\x00\x00\x02{}"

        return SimResponse(200, {"content-type": "application/connect+proto"}, chunks())

    sim.route("/stream", stream)
    with _client(sim) as client, client.stream("POST", "/stream", content=b"go") as response:
        assert response.headers["transfer-encoding"] == "chunked"
        assert "content-length" not in response.headers
        raw = response.iter_raw()
        first = next(raw)
        assert first == b"\x00\x00\x00\x00\x01A"
        assert produced == ["one"], "chunk 2 was produced before the client read chunk 1"
        release.set()
        rest = b"".join(raw)
    assert rest == b"\x00\x00\x00\x00\x01B\x02\x00\x00\x00\x02{}"
    assert produced == ["one", "two"]


def _cut_after_first_chunk(reset: bool, read_first: threading.Event) -> SimResponse:
    def chunks() -> Iterator[bytes]:
        yield b"partial"
        # Wait until the client holds the first chunk so a reset cannot discard it.
        read_first.wait(WAIT)
        raise Cut(reset=reset)

    return SimResponse(200, {}, chunks())


def test_cut_closes_mid_body(sim: Simulator) -> None:
    read_first = threading.Event()
    sim.route("/cut", lambda r: _cut_after_first_chunk(False, read_first))
    with _client(sim) as client:
        with client.stream("GET", "/cut") as response:
            raw = response.iter_raw()
            assert next(raw) == b"partial"
            read_first.set()
            with pytest.raises(httpx.RemoteProtocolError, match=r"incomplete|closed"):
                b"".join(raw)
        # A fresh connection still works after the cut.
        assert client.get("/nope").status_code == 404


def test_cut_with_reset_mid_body(sim: Simulator) -> None:
    read_first = threading.Event()
    sim.route("/reset", lambda r: _cut_after_first_chunk(True, read_first))
    with _client(sim) as client:
        with client.stream("GET", "/reset") as response:
            raw = response.iter_raw()
            assert next(raw) == b"partial"
            read_first.set()
            with pytest.raises(httpx.ReadError) as info:
                b"".join(raw)
        assert "reset" in str(info.value).lower() or "104" in str(info.value)
        assert client.get("/nope").status_code == 404


def test_keep_alive_serves_two_requests_on_one_connection(sim: Simulator) -> None:
    def streamed(request: SimRequest) -> SimResponse:
        return SimResponse(200, {}, iter([b"a", b"b", b"c"]))

    sim.route("/streamed", streamed)
    sim.route("/whole", lambda r: SimResponse(200, {}, b"whole"))
    ports = set()
    with _client(sim) as client:
        first = client.get("/streamed")
        ports.add(first.extensions["network_stream"].get_extra_info("client_addr"))
        second = client.post("/whole", content=b"x")
        ports.add(second.extensions["network_stream"].get_extra_info("client_addr"))
        third = client.get("/streamed")
        ports.add(third.extensions["network_stream"].get_extra_info("client_addr"))
    assert (first.content, second.content, third.content) == (b"abc", b"whole", b"abc")
    assert first.headers["transfer-encoding"] == "chunked"
    assert len(ports) == 1, f"expected one connection, saw {ports}"


def test_client_gone_is_seen_by_a_streaming_handler(sim: Simulator) -> None:
    seen_gone: list[bool] = []
    done = threading.Event()

    def stream(request: SimRequest) -> SimResponse:
        def chunks() -> Iterator[bytes]:
            try:
                yield b"first"
                # wait_gone is the handler's wait for its client to go (client_gone,
                # looked at as the socket allows).
                deadline = time.monotonic() + WAIT
                while time.monotonic() < deadline and not sim.server.stopping:
                    if request.wait_gone(deadline - time.monotonic()):
                        seen_gone.append(True)
                        return
                seen_gone.append(False)
            finally:
                done.set()

        return SimResponse(200, {}, chunks())

    sim.route("/watch", stream)
    with _client(sim) as client, client.stream("GET", "/watch") as response:
        assert next(response.iter_raw()) == b"first"
    # Leaving the block closed the unfinished response and its connection.
    assert done.wait(WAIT)
    assert seen_gone == [True]


def test_stop_ends_a_blocked_stream_and_joins() -> None:
    with Simulator() as simulator:

        def stream(request: SimRequest) -> SimResponse:
            def chunks() -> Iterator[bytes]:
                yield b"x"
                simulator.server.wait_stopping(60)  # 60 s only stops a hung test

            return SimResponse(200, {}, chunks())

        simulator.route("/forever", stream)
        client = _client(simulator)
        with client, client.stream("GET", "/forever") as response:
            raw = response.iter_raw()
            assert next(raw) == b"x"
            started = time.monotonic()
            simulator.stop()
            assert time.monotonic() - started < 30  # the handler waits 60 s: stop woke it
            # The stream ends now (cleanly or cut, depending on who wins the race), never hangs.
            with contextlib.suppress(httpx.TransportError):
                assert b"".join(raw) == b""


def test_command_line_starts_and_terminates(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "cursor_simulator", "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=tmp_path,
        env=env,
    )
    try:
        assert proc.stdout is not None
        ready, _, _ = select.select([proc.stdout], [], [], 20)
        assert ready, "the simulator printed nothing"
        line = proc.stdout.readline().decode()
        match = re.search(r"http://127\.0\.0\.1:(\d+)", line)
        assert match, line
        assert int(match.group(1)) > 0
        with httpx.Client(timeout=WAIT) as client:
            response = client.post(match.group(0) + "/no.such/Route")
        assert response.status_code == 404
        assert json.loads(response.content)["code"] == "unimplemented"
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=60) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=60)
        for pipe in (proc.stdout, proc.stderr):
            if pipe is not None:
                pipe.close()


def test_the_command_line_simulator_confirms_sign_ins_when_asked(tmp_path: Path) -> None:
    """`--confirm-sign-ins` lets a person try `nodecode-cursor login` from a shell."""
    process = subprocess.Popen(
        [sys.executable, "-m", "cursor_simulator", "--port", "0", "--confirm-sign-ins"],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        url = process.stdout.readline().split()[-1]
        env = {k: v for k, v in os.environ.items() if not k.startswith("CURSOR_")}
        env["NODECODE_HOME"] = str(tmp_path)
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "nodecode_host.cli",
                "--base-url",
                url,
                "--web-url",
                url,
                "login",
            ],
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=60,
        )
    finally:
        process.terminate()
        process.wait(60)
        if process.stdout is not None:
            process.stdout.close()
    assert done.returncode == 0, done.stderr
    assert "cursor: signed in as person@example.com" in done.stdout
    kept = json.loads((tmp_path / "auth.json").read_text())["oauth_tokens"]["cursor"]
    assert kept["email"] == "person@example.com"


def test_a_long_lived_simulator_keeps_only_its_newest_records() -> None:
    with Simulator(max_records=3) as sim, httpx.Client() as client:
        for n in range(5):
            client.get(f"{sim.url}/nowhere/{n}")
    assert [r.path for r in sim.requests] == ["/nowhere/2", "/nowhere/3", "/nowhere/4"]


def _simulator_process(*flags: str) -> tuple[subprocess.Popen[str], str]:
    """Return a running ``python -m cursor_simulator FLAGS`` and the URL it printed."""
    process = subprocess.Popen(
        [sys.executable, "-m", "cursor_simulator", *flags],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    first = process.stdout.readline()
    assert first.startswith("simulator listening on http://127.0.0.1:"), first
    url = first.split()[-1]
    hint = process.stdout.readline()
    assert hint.strip().startswith(f"nodecode-cursor --base-url {url} --web-url {url} login")
    return process, url


def _stop(process: subprocess.Popen[str]) -> None:
    """Stop the simulator process and close its pipes."""
    process.terminate()
    process.wait(60)
    for pipe in (process.stdout, process.stderr):
        if pipe is not None:
            pipe.close()


def test_a_busy_port_is_one_line_not_a_traceback() -> None:
    with Simulator() as taken:
        done = subprocess.run(
            [sys.executable, "-m", "cursor_simulator", "--port", str(taken.server.port)],
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert done.returncode == 2
    assert done.stderr == (
        f"python -m cursor_simulator: port {taken.server.port} is in use; pick another with "
        "--port, or leave --port out for a free one\n"
    )


def test_the_help_names_the_switches() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "cursor_simulator", "--help"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0
    for switch in ("--port", "--confirm-sign-ins", "--think", "--slow-stream", "--cut-stream"):
        assert switch in done.stdout


def test_the_sign_in_page_confirms_in_a_browser(tmp_path: Path) -> None:
    process, url = _simulator_process()
    try:
        env = {k: v for k, v in os.environ.items() if not k.startswith("CURSOR_")}
        env["NODECODE_HOME"] = str(tmp_path)
        login = subprocess.Popen(
            [*CLI_ARGS, "--base-url", url, "--web-url", url, "login", "--no-browser"],
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert login.stdout is not None
        line = login.stdout.readline()
        page = line.split("open ", 1)[1].split(" in a browser")[0]
        with httpx.Client(timeout=WAIT) as browser:
            shown = browser.get(page)
            assert shown.status_code == 200
            assert shown.headers["content-type"] == "text/html; charset=utf-8"
            form = re.search(
                r'<form method=post action="(/loginDeepControl/confirm)">'
                r'<input type=hidden name=uuid value="([^"]+)">'
                r"<button type=submit>Confirm</button></form>",
                shown.text,
            )
            assert form, shown.text
            # What a browser sends when the person presses Confirm.
            confirmed = browser.post(url + form.group(1), data={"uuid": form.group(2)})
            assert confirmed.status_code == 200
            assert "Signed in to the Cursor simulator" in confirmed.text
        out, err = login.communicate(timeout=60)
    finally:
        _stop(process)
    assert login.returncode == 0, err
    assert "cursor: signed in as person@example.com" in out


@pytest.mark.parametrize(
    ("flags", "said"),
    [
        (("--think", "0.05", "--slow-stream", "0.01"), "Simulated Cursor here. You said: hi"),
        (
            ("--cut-stream",),
            "the service closed the stream before the answer ended",
        ),
    ],
)
def test_the_stream_switches_shape_every_answer(
    tmp_path: Path, flags: tuple[str, ...], said: str
) -> None:
    process, url = _simulator_process(*flags)
    try:
        env = {k: v for k, v in os.environ.items() if not k.startswith("CURSOR_")}
        env.update(NODECODE_HOME=str(tmp_path), CURSOR_ACCESS_TOKEN="sim-token")
        done = subprocess.run(
            [*CLI_ARGS, "--base-url", url, "ask", "--tools", "none", "hi"],
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=60,
        )
    finally:
        _stop(process)
    assert said in done.stdout + done.stderr, done.stdout + done.stderr
    assert done.returncode == (1 if "--cut-stream" in flags else 0)
