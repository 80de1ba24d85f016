"""``serve`` answers a Content-Length or Host port of Unicode digits in words (issue 36, item 8).

``str.isdigit()`` takes ``²``, which ``int()`` then refuses: the ValueError must not
reach the client as an internal error or a dropped connection. A raw socket sends
the head, since no HTTP client would.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from served import RunningServer

from nodecode_host.refhost import ReferenceHost


@pytest.fixture
def running(home: Path) -> Iterator[RunningServer]:
    host = ReferenceHost(home, say=lambda _: None)
    host.start()
    server = RunningServer(host).start()
    try:
        yield server
    finally:
        server.stop()
        host.stop()


def answer(server: RunningServer, head: bytes) -> bytes:
    """Return the status line serve sends back to HEAD (b"" when it only hung up)."""
    parts = urlsplit(server.url)
    with socket.create_connection((parts.hostname, parts.port), timeout=10) as raw:
        raw.sendall(head)
        received = b""
        while b"\r\n" not in received:
            chunk = raw.recv(4096)
            if not chunk:
                break
            received += chunk
    return received.split(b"\r\n", 1)[0]


@pytest.mark.parametrize(
    "extra",
    [b"Content-Length: \xc2\xb2\r\n", b"Content-Length: \xb2\r\n"],
    ids=["utf8", "latin1"],
)
def test_a_content_length_of_unicode_digits_is_a_worded_refusal(
    running: RunningServer, extra: bytes
) -> None:
    port = urlsplit(running.url).port
    head = b"POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n" % port
    status = answer(running, head + extra + b"Content-Type: application/json\r\n\r\n{}")
    assert status.startswith(b"HTTP/1.1 4"), status


def test_a_host_port_of_unicode_digits_is_refused(running: RunningServer) -> None:
    head = "GET /v1/models HTTP/1.1\r\nHost: 127.0.0.1:²\r\n\r\n".encode()
    status = answer(running, head)
    assert status.startswith(b"HTTP/1.1 4"), status
