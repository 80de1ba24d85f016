"""The simulator's GetServerConfig route, over HTTP/1.1 and over HTTP/2 (prior knowledge).

The HTTP/2 client here is python-hyper's ``h2`` on a plain socket, not the
cell's; expected bytes are written by hand (tag 7 << 3 | 0 = 0x38).
"""

from __future__ import annotations

import socket
import urllib.parse
from collections.abc import Callable

import h2.config
import h2.connection
import h2.events
import httpx
import pytest

from cursor_simulator import Simulator

PATH = "/agent.v1.AgentService/GetServerConfig"
HEADERS = {
    "authorization": "Bearer tok-sim-config",
    "content-type": "application/proto",
    "x-cursor-client-type": "cli",
    "x-ghost-mode": "true",
    "x-cursor-client-version": "cli-test",
}


def over_http2(url: str, body: bytes = b"") -> tuple[int, bytes]:
    """Return the status and body of one POST to PATH over HTTP/2 with prior knowledge."""
    parts = urllib.parse.urlsplit(url)
    sock = socket.create_connection((parts.hostname, parts.port), timeout=30)
    conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True))
    conn.initiate_connection()
    head = [
        (":method", "POST"),
        (":scheme", "http"),
        (":authority", parts.netloc),
        (":path", PATH),
        *HEADERS.items(),
    ]
    conn.send_headers(1, head, end_stream=not body)
    if body:
        conn.send_data(1, body, end_stream=True)
    sock.sendall(conn.data_to_send())
    status, answer = 0, bytearray()
    try:
        while True:
            data = sock.recv(65536)
            assert data, "the simulator closed before the answer ended"
            for event in conn.receive_data(data):
                if isinstance(event, h2.events.ResponseReceived):
                    status = int(dict(event.headers)[b":status"])
                elif isinstance(event, h2.events.DataReceived):
                    answer += event.data
                    conn.acknowledge_received_data(event.flow_controlled_length, 1)
                elif isinstance(event, h2.events.StreamEnded):
                    return status, bytes(answer)
            sock.sendall(conn.data_to_send())
    finally:
        sock.close()


def over_http1(url: str, body: bytes = b"") -> tuple[int, bytes]:
    response = httpx.post(url + PATH, content=body, headers=HEADERS)
    return response.status_code, response.content


@pytest.mark.parametrize("call", [over_http1, over_http2], ids=["http1", "http2"])
def test_the_answer_and_a_refusal_on_either_protocol(
    sim: Simulator, call: Callable[..., tuple[int, bytes]]
) -> None:
    ask = call
    assert ask(sim.url) == (200, b"")  # unspecified: proto3 leaves a zero enum out
    sim.server_config.http2_config = 3
    assert ask(sim.url) == (200, b"\x38\x03")
    sim.server_config.framed = True
    assert ask(sim.url) == (200, b"\x00\x00\x00\x00\x02\x38\x03\x02\x00\x00\x00\x02{}")
    status, body = ask(sim.url, b"\x08\x01")  # the request has no field
    assert status == 400 and b"GetServerConfigRequest is empty" in body
    sim.server_config.refuse(503, "unavailable", "not now")
    status, body = ask(sim.url)
    assert status == 503 and b'"code":"unavailable"' in body
    assert sim.server_config.calls == 5
