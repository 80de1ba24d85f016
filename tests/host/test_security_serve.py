"""``serve`` lets in only the person's own clients and cannot be exhausted (issue 12, 5–6, 11).

Over real sockets: the server runs on a loop of its own in a thread, serving
from a real ReferenceHost whose cell points at the simulator. Raw sockets
stand in for a web page's browser and for a hostile client.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import resource
import select
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cli_run import CLI, cli_env
from probes import settled

from cursor_simulator import Simulator
from nodecode_host.refhost import ReferenceHost
from nodecode_host.routes import ApiServer

TOKEN = "sim-token-security-serve"
BODY = json.dumps({"model": "composer-2.5", "messages": [{"role": "user", "content": "hi"}]})


class Served:
    """An ApiServer with the given settings on a loop of its own in a thread."""

    def __init__(self, host: ReferenceHost, **settings: Any) -> None:
        self.server = ApiServer(host, **settings)
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)

    def __enter__(self) -> Served:
        self.thread.start()
        asyncio.run_coroutine_threadsafe(self.server.start("127.0.0.1", 0), self.loop).result(60)
        return self

    def __exit__(self, *_: object) -> None:
        # Each wait here only stops a hung test: close keeps a deadline of its own.
        asyncio.run_coroutine_threadsafe(self.server.close(), self.loop).result(60)
        # What asyncio.run does at the end of `serve`: what a cancelled round left in
        # flight for the next one (a shielded catalog fetch) is cancelled and awaited.
        asyncio.run_coroutine_threadsafe(_cancel_the_rest(), self.loop).result(60)
        done = asyncio.run_coroutine_threadsafe(self.loop.shutdown_default_executor(), self.loop)
        done.result(60)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(60)
        self.loop.close()

    @property
    def address(self) -> tuple[str, int]:
        return (self.server.listen_host, self.server.port)

    def request(self, raw: bytes, *, wait: float = 5.0) -> bytes:
        """Return all the server answers RAW with before it closes (or WAIT passes)."""
        with socket.create_connection(self.address, timeout=wait) as sock:
            sock.sendall(raw)
            return _read_all(sock, wait)


async def _cancel_the_rest() -> None:
    """Cancel every other task of the running loop and wait for them to end."""
    rest = [task for task in asyncio.all_tasks() if task is not asyncio.current_task()]
    for task in rest:
        task.cancel()
    await asyncio.gather(*rest, return_exceptions=True)


def _read_all(sock: socket.socket, wait: float) -> bytes:
    """Return what SOCK receives until the peer closes or WAIT passes quietly."""
    sock.settimeout(wait)
    received = b""
    with contextlib.suppress(TimeoutError, ConnectionError):
        while chunk := sock.recv(65536):
            received += chunk
            if b"\r\n\r\n" in received and _whole(received):
                break
    return received


def _whole(received: bytes) -> bool:
    """Return whether RECEIVED holds a whole response with a content-length body."""
    head, _, body = received.partition(b"\r\n\r\n")
    for line in head.split(b"\r\n"):
        if line.lower().startswith(b"content-length:"):
            return len(body) >= int(line.split(b":", 1)[1])
    return False


def status(answer: bytes) -> int:
    """Return the status code of a raw HTTP answer."""
    assert answer.startswith(b"HTTP/1.1 "), answer[:200]
    return int(answer.split(b" ", 2)[1])


@pytest.fixture
def host(sim: Simulator, home: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[ReferenceHost]:
    monkeypatch.setenv("CURSOR_ACCESS_TOKEN", TOKEN)
    monkeypatch.delenv("CURSOR_API_KEY", raising=False)
    reference = ReferenceHost(home, overrides={"cursor": {"base_url": sim.url}}, say=lambda _: None)
    reference.start()
    try:
        yield reference
    finally:
        reference.stop()


def post(
    where: str, body: str = BODY, *, content_type: str = "application/json", **extra: str
) -> bytes:
    """Return a raw chat-completions POST with HOST WHERE and the EXTRA headers."""
    lines = [
        "POST /v1/chat/completions HTTP/1.1",
        f"host: {where}",
        f"content-type: {content_type}",
        f"content-length: {len(body.encode())}",
        "connection: close",
        *(f"{k.replace('_', '-')}: {v}" for k, v in extra.items()),
    ]
    return ("\r\n".join(lines) + "\r\n\r\n" + body).encode()


def get(where: str, **extra: str) -> bytes:
    """Return a raw GET /v1/models with HOST WHERE and the EXTRA headers."""
    lines = ["GET /v1/models HTTP/1.1", f"host: {where}", "connection: close"]
    lines += [f"{k.replace('_', '-')}: {v}" for k, v in extra.items()]
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


# Item 5: web pages -------------------------------------------------------------------------


def test_a_cross_site_text_plain_post_runs_no_round(host: ReferenceHost, sim: Simulator) -> None:
    with Served(host) as served:
        where = f"127.0.0.1:{served.server.port}"
        answer = served.request(
            post(where, content_type="text/plain", origin="https://evil.example")
        )
        assert status(answer) == 403
        # Without an Origin (a script, not a page), text/plain is still no JSON body.
        assert status(served.request(post(where, content_type="text/plain"))) == 415
        # The person's own client: served.
        assert status(served.request(post(where))) == 200
    assert len(sim.agent.runs) == 1


def test_a_rebinding_host_is_refused_without_a_key(host: ReferenceHost) -> None:
    with Served(host) as served:
        port = served.server.port
        assert status(served.request(get(f"attacker.example:{port}"))) == 403
        assert status(served.request(get(f"127.0.0.1:{port + 1 if port < 65535 else 1}"))) == 403
        assert status(served.request(get(f"127.0.0.1:{port}"))) == 200
        assert status(served.request(get(f"localhost:{port}"))) == 200
        assert status(served.request(get("localhost"))) == 200


def test_origins_are_served_only_when_allowed_preflights_too(host: ReferenceHost) -> None:
    allowed = "http://localhost:3000"
    with Served(host, allowed_origins=(allowed,)) as served:
        where = f"127.0.0.1:{served.server.port}"
        preflight = (
            f"OPTIONS /v1/chat/completions HTTP/1.1\r\nhost: {where}\r\norigin: {{}}\r\n"
            "access-control-request-method: POST\r\nconnection: close\r\n\r\n"
        )
        ok = served.request(preflight.format(allowed).encode())
        assert status(ok) == 204
        assert f"access-control-allow-origin: {allowed}".encode() in ok.lower()
        refused = served.request(preflight.format("https://evil.example").encode())
        assert status(refused) == 403
        assert b"access-control-allow-origin" not in refused.lower()
        answer = served.request(get(where, origin=allowed))
        assert status(answer) == 200
        assert f"access-control-allow-origin: {allowed}".encode() in answer.lower()
        assert status(served.request(get(where, origin="https://evil.example"))) == 403


# Item 6: exhaustion ------------------------------------------------------------------------


def test_headers_past_the_limit_are_431(host: ReferenceHost) -> None:
    with Served(host) as served:
        where = f"127.0.0.1:{served.server.port}"
        padding = "x" * (100 * 1024)
        raw = f"GET /v1/models HTTP/1.1\r\nhost: {where}\r\nx-pad: {padding}\r\n\r\n".encode()
        assert status(served.request(raw)) == 431


def test_the_key_is_checked_before_the_body_is_read(host: ReferenceHost) -> None:
    with Served(host, api_key="client-key-123") as served:
        where = f"127.0.0.1:{served.server.port}"
        head = (
            f"POST /v1/chat/completions HTTP/1.1\r\nhost: {where}\r\n"
            "content-type: application/json\r\ncontent-length: 60000000\r\n\r\n"
        ).encode()
        answer = served.request(head, wait=60)  # the 60 MB body is never sent
        # Answered on the head alone: a server waiting for the body would answer 408
        # once its body timeout (30 s) passed, never 401.
        assert status(answer) == 401


def test_slow_heads_slow_bodies_and_idle_connections_are_closed(host: ReferenceHost) -> None:
    with Served(host, header_timeout=0.5, body_timeout=0.5, idle_timeout=0.5) as served:
        where = f"127.0.0.1:{served.server.port}"
        # Each socket waits 60 s, far past the server's 0.5 s deadlines: an empty read
        # is the server closing it, a server that did not would fail the read's timeout.
        with socket.create_connection(served.address, timeout=60) as sock:
            sock.sendall(b"GET /v1/models HTTP/1.1\r\nhost: ")  # and never the rest
            assert sock.recv(65536) == b""  # closed without an answer
        with socket.create_connection(served.address, timeout=60) as sock:
            sock.sendall(post(where)[:-5])  # the body's last bytes never come
            answer = _read_all(sock, 60)
            assert status(answer) == 408
        with socket.create_connection(served.address, timeout=60) as sock:
            sock.sendall(get(where).replace(b"connection: close\r\n", b""))
            assert status(_read_all(sock, 60)) == 200
            assert sock.recv(1) == b""  # the idle keep-alive connection is closed
        assert _wait(lambda: served.server.connections == 0)


def test_connections_past_the_cap_get_a_clean_503(host: ReferenceHost) -> None:
    with Served(host, max_connections=2) as served:
        where = f"127.0.0.1:{served.server.port}"
        held = [socket.create_connection(served.address, timeout=30) for _ in range(2)]
        try:
            assert _wait(lambda: served.server.connections == 2)
            answer = served.request(get(where))
            assert status(answer) == 503
            assert b"connection limit" in answer
        finally:
            for sock in held:
                sock.close()
        assert _wait(lambda: served.server.connections == 0)
        assert status(served.request(get(where))) == 200


@pytest.mark.timeout(60)
def test_running_out_of_file_descriptors_is_one_line_and_the_server_goes_on(
    sim: Simulator, home: Path
) -> None:
    def low_limit() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (48, 48))

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    process = subprocess.Popen(
        [*CLI, "--base-url", sim.url, "serve", "--port", str(port)],
        env=cli_env(home),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        bufsize=0,  # unbuffered: a line read leaves the next in the pipe, where select sees it
        preexec_fn=low_limit,
    )
    try:
        assert process.stderr is not None
        assert b"serving" in process.stderr.readline()
        held = []
        for _ in range(80):
            with contextlib.suppress(OSError):
                held.append(socket.create_connection(("127.0.0.1", port), timeout=30))
        # The server says so in one line once an accept() fails for want of descriptors.
        said = _line_with(process.stderr, "cannot accept connections")
        for sock in held:
            sock.close()
        # Taken by the kernel now, accepted once asyncio retries accept() after its pause.
        with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
            sock.sendall(get(f"127.0.0.1:{port}"))
            assert status(_read_all(sock, 30)) == 200
        process.send_signal(signal.SIGTERM)
        err = process.communicate(timeout=60)[1].decode()
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert "cannot accept connections" in said, said
    assert "Traceback" not in said + err, said + err


def _line_with(stream: Any, words: str, seconds: float = 60.0) -> str:
    """Return what STREAM said up to and with its first line holding WORDS ('' if it ended
    or SECONDS passed first: that bound only stops a hung test)."""
    said = ""
    deadline = time.monotonic() + seconds
    while (left := deadline - time.monotonic()) > 0:
        readable, _, _ = select.select([stream], [], [], left)
        if not readable:
            break
        line = stream.readline().decode()
        said += line
        if not line or words in line:
            break
    return said


# Item 11: logs -----------------------------------------------------------------------------


def test_client_values_are_escaped_in_log_lines(
    host: ReferenceHost, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, logger="nodecode_host")
    forged = "m\r\n2026-01-01 FAKE nodecode_host ERROR forged\x1b[2J"
    body = json.dumps(
        {"model": forged, "user": "s\nFAKE LINE", "messages": [{"role": "user", "content": "hi"}]}
    )
    with Served(host) as served:
        where = f"127.0.0.1:{served.server.port}"
        served.request(post(where, body))
    text = "\n".join(record.getMessage() for record in caplog.records)
    assert "\nFAKE" not in text and "\x1b" not in text, text
    assert "FAKE nodecode_host ERROR forged" in text  # there, but on the request's own line


def _wait(done: Any) -> bool:
    """Return whether DONE() holds: the server's count moves on its own loop, which tells
    no one, so it is looked at again (probes.settled) until it does."""
    return settled(done)
