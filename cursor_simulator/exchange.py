"""What one HTTP exchange with the simulator is, on either protocol: the request, the answer, a cut.

``server.py`` (HTTP/1.1) and ``h2server.py`` (HTTP/2) both build ``SimRequest``
and serve ``SimResponse``; they live here so neither server imports the other
for them. ``PREFACE`` is HTTP/2's connection preface, which the HTTP/1.1 side
peeks for. Serving is the servers' business.
"""

from __future__ import annotations

import select
import socket
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import ClassVar
from urllib.parse import parse_qs, urlsplit

__all__ = ["PREFACE", "Cut", "SimRequest", "SimResponse", "Trailers"]

# The client connection preface of HTTP/2 (RFC 9113 §3.4).
PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"


class Cut(Exception):
    """Raised inside a streamed body to end the connection without finishing the answer.

    ``reset=True`` aborts with a TCP reset instead of an orderly close.
    """

    def __init__(self, *, reset: bool = False) -> None:
        """Cut with an orderly close, or with a TCP reset when RESET."""
        super().__init__("cut")
        self.reset = reset


class Trailers(Exception):
    """Raised inside a streamed body to end it with these trailer HEADERS (and nothing else).

    Over HTTP/2 they are a HEADERS frame ending the stream; over HTTP/1.1 the chunked
    body's trailer section.
    """

    def __init__(self, headers: dict[str, str]) -> None:
        """End the answer with HEADERS as its trailers."""
        super().__init__("trailers")
        self.headers = headers


@dataclass
class SimRequest:
    """One received HTTP request."""

    method: str
    target: str
    headers: dict[str, str]
    body: bytes
    _sock: socket.socket | None = field(default=None, repr=False)
    # How long a wait may go without looking whether the client left: a socket cannot
    # wake a waiter when its peer goes, so it is looked at this often (h2server's
    # H2Request is woken instead, and looks less often).
    poll_seconds: ClassVar[float] = 0.02

    @property
    def path(self) -> str:
        """Return the path part of the target."""
        return urlsplit(self.target).path

    @property
    def query(self) -> dict[str, str]:
        """Return the query parameters (first value of each)."""
        return {k: v[0] for k, v in parse_qs(urlsplit(self.target).query).items()}

    def client_gone(self) -> bool:
        """Return whether the client has closed its side of the connection."""
        sock = self._sock
        if sock is None:
            return False
        try:
            readable, _, _ = select.select([sock], [], [], 0)
            if not readable:
                return False
            return sock.recv(1, socket.MSG_PEEK) == b""
        except ValueError:
            return False  # TLS cannot peek: the client counts as present
        except OSError:
            return True

    def wait_gone(self, seconds: float) -> bool:
        """Return whether the client left, after waiting up to SECONDS (here at most
        ``poll_seconds``: the socket is looked at once the wait is over)."""
        time.sleep(min(seconds, self.poll_seconds))
        return self.client_gone()


@dataclass
class SimResponse:
    """An answer: status, headers, and a whole body or an iterable of chunks to stream."""

    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes | Iterable[bytes] = b""
