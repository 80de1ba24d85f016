"""``serve`` bounds what a connection makes it hold, and says why it answered an error
(issue 22, item 5; issue 21, item 5; the readable 503 of issues 23 and 25).

Over real sockets against a real ApiServer serving from a real ReferenceHost whose
cell points at the simulator; the simulator's think time holds rounds open.
"""

from __future__ import annotations

import contextlib
import json
import logging
import socket
import threading

import pytest
from probes import settled
from test_security_serve import Served, _read_all, host, post, status

from cursor_simulator import Simulator
from nodecode_host.refhost import ReferenceHost

__all__ = ["host"]  # the fixture, shared with test_security_serve


def test_bytes_sent_while_a_round_runs_close_the_connection_and_cancel_it(
    host: ReferenceHost, sim: Simulator
) -> None:
    sim.agent.first_token_delay = 60.0  # the round is still thinking while the client sends
    with Served(host) as served:
        where = f"127.0.0.1:{served.server.port}"
        with socket.create_connection(served.address, timeout=30) as sock:
            sock.sendall(post(where).replace(b"connection: close\r\n", b""))
            junk = b"x" * 65536
            sent = 0
            with contextlib.suppress(ConnectionError, OSError):
                while sent < 64 * 1024 * 1024:
                    sock.sendall(junk)
                    sent += len(junk)
            answer = _read_all(sock, 30)
        assert sent < 64 * 1024 * 1024, "the server kept taking bytes"
        assert b"200 OK" not in answer
        # The round ends on the server's loop, which tells no one: looked at again.
        assert settled(lambda: served.server.rounds_in_flight == 0)


def test_a_hundred_clients_at_the_cap_each_read_a_503_or_are_served(
    host: ReferenceHost, sim: Simulator
) -> None:
    sim.agent.first_token_delay = 60.0  # the first 64 rounds hold their connections
    answers: dict[int, bytes] = {}
    resets: list[int] = []
    socks: list[socket.socket] = []
    answered = threading.Condition()
    # A long conversation: its body is still on its way when the server turns it away.
    long = json.dumps(
        {"model": "composer-2.5", "messages": [{"role": "user", "content": "word " * 800000}]}
    )
    with Served(host, max_connections=64) as served:
        where = f"127.0.0.1:{served.server.port}"

        def client(index: int) -> None:
            try:
                sock = socket.create_connection(served.address, timeout=60)
                with answered:
                    socks.append(sock)
                sock.sendall(post(where, long))
                got = _until_closed(sock)
            except (ConnectionResetError, BrokenPipeError):
                with answered:
                    resets.append(index)
                    answered.notify_all()
                return
            except OSError:
                got = b""  # closed by the test once the 503s were counted
            with answered:
                answers[index] = got
                answered.notify_all()

        threads = [threading.Thread(target=client, args=(i,)) for i in range(100)]
        for thread in threads:
            thread.start()
        with answered:
            assert answered.wait_for(lambda: len(answers) + len(resets) >= 36, timeout=60)
        with answered:
            for sock in socks:
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)
        for thread in threads:
            thread.join(60)
        for sock in socks:
            sock.close()
        refused = [a for a in answers.values() if a.startswith(b"HTTP/1.1 503")]
    assert resets == []
    assert len(refused) == 36, [a[:40] for a in answers.values()]
    for answer in refused:
        head, _, body = answer.partition(b"\r\n\r\n")
        assert b"retry-after: 1" in head.lower()
        assert "connection limit" in json.loads(body)["error"]["message"]


def test_every_error_answer_is_logged_with_its_reason(
    host: ReferenceHost, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, logger="nodecode_host")
    forged = "no-such\x1b[2J-model"
    body = json.dumps({"model": forged, "messages": []})
    with Served(host) as served:
        where = f"127.0.0.1:{served.server.port}"
        bad = status(served.request(post(where, "{not json")))
        empty = status(served.request(post(where, body)))
    assert bad == 400 and empty == 400
    lines = [
        r.getMessage() for r in caplog.records if "/v1/chat/completions -> 4" in r.getMessage()
    ]
    assert len(lines) == 2, lines
    assert all(": " in line.split(" -> ", 1)[1] for line in lines), lines
    assert "json" in lines[0].lower(), lines
    assert "\x1b" not in "\n".join(lines)


def _until_closed(sock: socket.socket) -> bytes:
    """Return what SOCK receives until the server closes it (a reset raises)."""
    received = b""
    while chunk := sock.recv(65536):
        received += chunk
    return received


def test_a_session_header_is_escaped_in_the_cells_log_lines(
    host: ReferenceHost, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, logger="nodecode_cursor")
    with Served(host) as served:
        where = f"127.0.0.1:{served.server.port}"
        answer = served.request(post(where, x_session_id="s\x1b[2Jforged\x07"))
    assert status(answer) == 200
    lines = [r.getMessage() for r in caplog.records if r.name.startswith("nodecode_cursor")]
    assert any("round start" in line and "forged" in line for line in lines), lines
    assert not any("\x1b" in line or "\x07" in line for line in lines), lines
