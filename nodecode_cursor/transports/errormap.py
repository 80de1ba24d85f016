"""The kit's one error map: what the libraries under it raise, as the cell's errors.

Every request the cell makes to Cursor goes down through sockets (``OSError``
and its kin, asyncio's stream errors), TLS (``ssl.SSLError``), HTTP/2 (h2's
``H2Error``), HTTP/1.1 (the kit's own codec's ``http1.BadResponse``) and
proxies (a CONNECT tunnel's failures, python-socks's). Each fails in its own
classes and its own words. ``mapped`` is the one place they are caught, as
httpx's ``map_httpcore_exceptions`` is for httpcore's: a context the kit runs
each step of a request in, which turns a library's failure into

* ``Unreachable`` (the cell's error: no answer at all, naming the URL and, by
  the failure's type, its cause in words) when the step was reaching the
  service (``Step.CONNECT``);
* ``Cut`` (the kit's: the connection under an answer broke off) when the step
  was on a connection the kit holds (``Step.STREAM``: writing a request,
  reading its head or its body, HTTP/2 frames). Whether a cut loses anything is
  the caller's to say: a stream's reader calls it ``cut``, a kept-alive
  connection cut before any answer is asked again, otherwise it is
  ``Unreachable`` (``unreachable``);
* ``Failed`` (the step's failure as plain facts: its words, its kind, a TLS
  reason and certificate verdict) when the step was one of doctor's probes
  (``Step.PROBE``: ``diagnose/reach.py`` says which layer failed, in its words).

A deadline of the kit's own (``asyncio.timeout``: a ``TimeoutError``) passes
through unchanged except while connecting, where it is the connection timing
out; the caller words its own (silence, ``late``). No module of the kit
catches a library's exception anywhere else (``tests/test_layout.py`` checks
it), and nothing here reads an error's text to decide: the class decides, and
the text is only shown.

What a refused call's body means (``http.http_error`` and its kin) is not a
failure of the libraries and is not mapped here.
"""

from __future__ import annotations

import asyncio
import enum
import ssl
import sys
from types import TracebackType

from ..errors import Unreachable
from .http1 import BadResponse

__all__ = [
    "DOCTOR_HINT",
    "Cut",
    "Failed",
    "Step",
    "late",
    "mapped",
    "unreachable",
]

# What a failure to reach the service adds: the command that checks each step on the way.
DOCTOR_HINT = " (run `nodecode-cursor doctor` to see which step fails)"


class Step(enum.Enum):
    """Where in a request the kit was when a library failed: what the failure means."""

    # Reaching the service: TCP, a proxy's CONNECT tunnel or SOCKS5, TLS.
    CONNECT = "connect"
    # One of doctor's probes of a layer (DNS, a connection, a tunnel, TLS): facts, not errors.
    PROBE = "probe"
    # On a connection the kit holds: writing a request, reading its answer.
    STREAM = "stream"


class Cut(Exception):
    """The connection under a request broke off: the reason in words is the message.

    ``why`` names the kind of failure (the library's exception class) for a line
    that must not carry more than that.
    """

    def __init__(self, words: str, *, why: str | None = None) -> None:
        super().__init__(words)
        self.why = why or type(self).__name__


class Failed(Exception):
    """A probe's step failed (``Step.PROBE``): the failure as facts, never the library's object.

    ``words`` is the cause as the map words it; ``why`` the failure's kind (its
    class name); ``reason`` the TLS library's short reason (e.g.
    ``WRONG_VERSION_NUMBER``) and ``verify_code`` / ``verify_message``
    OpenSSL's verdict on a certificate, when the failure was TLS's.
    """

    def __init__(
        self,
        words: str,
        *,
        why: str,
        reason: str | None = None,
        verify_code: int | None = None,
        verify_message: str | None = None,
    ) -> None:
        super().__init__(words)
        self.words = words
        self.why = why
        self.reason = reason
        self.verify_code = verify_code
        self.verify_message = verify_message


def unreachable(url: str, cause: BaseException | str) -> Unreachable:
    """Return the error for a request to URL that never got an answer: the URL and the cause.

    CAUSE is our own words, a ``Cut``, or a library's exception (worded by its
    type: the layers below word the same failure differently, "All connection
    attempts failed", "[Errno 111] …").
    """
    if isinstance(cause, str):
        words, why = cause, "unreachable"
    elif isinstance(cause, Cut):
        words, why = str(cause), cause.why
    else:
        words, why = _words(cause), type(cause).__name__
    return Unreachable(f"could not reach {url}: {words}{DOCTOR_HINT}", why=why)


def late(url: str, timeout: float) -> Unreachable:
    """Return the error for a call to URL whose whole answer did not come within TIMEOUT."""
    return Unreachable(
        f"no whole answer from {url} within {timeout:g} s{DOCTOR_HINT}",
        why="TimeoutError",
    )


class mapped:  # named as the function it reads as: ``with mapped(step, url):``
    """A context in which a library's failure becomes the cell's error or a ``Cut``, by STEP.

    URL names the request in an ``Unreachable``. A class rather than a generator
    context: it sits on the hot path of every read.
    """

    __slots__ = ("step", "url")

    def __init__(self, step: Step, url: str = "") -> None:
        self.step = step
        self.url = url

    def __enter__(self) -> None:
        return None

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        # Never swallows: a failure goes on as it was, or as what it maps to.
        if exc is None or not isinstance(exc, Exception):
            return  # nothing failed, or a cancellation or exit: never mapped
        if isinstance(exc, TimeoutError):
            if self.step is Step.CONNECT:
                raise unreachable(self.url, exc) from None
            return  # the kit's own deadline: its caller words it
        if isinstance(exc, _foreign()):
            raise _translate(exc, self.step, self.url) from None


def _translate(exc: Exception, step: Step, url: str) -> Exception:
    """Return what EXC, a library's failure at STEP of a request to URL, stands for."""
    if step is Step.PROBE:
        certificate = exc if isinstance(exc, ssl.SSLCertVerificationError) else None
        return Failed(
            _words(exc),
            why=type(exc).__name__,
            reason=getattr(exc, "reason", None) if isinstance(exc, ssl.SSLError) else None,
            verify_code=certificate.verify_code if certificate is not None else None,
            verify_message=certificate.verify_message if certificate is not None else None,
        )
    if step is Step.STREAM:
        return Cut(_words(exc), why=type(exc).__name__)
    return unreachable(url, exc)


def _foreign() -> tuple[type[BaseException], ...]:
    """Return the classes of the failures the libraries under the kit raise.

    A library not loaded yet raised nothing: h2 and python-socks are looked up
    only once imported (the kit imports each on first need).
    """
    kinds: list[type[BaseException]] = [
        OSError,  # sockets, and ssl.SSLError, which is one
        asyncio.IncompleteReadError,
        asyncio.LimitOverrunError,
        BadResponse,
    ]
    for module, name in (
        ("h2.exceptions", "H2Error"),
        ("python_socks", "ProxyError"),  # its connection and timeout errors are OSErrors
    ):
        found = sys.modules.get(module)
        if found is not None:
            kinds.append(getattr(found, name))
    return tuple(kinds)


def _words(exc: BaseException) -> str:
    """Return what kept a request from its answer, in words, by EXC's type.

    The OS's reason where there is one, a few causes down (python-socks wraps
    one); the TLS library's reason for a TLS failure.
    """
    if isinstance(exc, TimeoutError):
        return "connecting timed out"
    seen: BaseException | None = exc
    for _ in range(8):
        if seen is None:
            break
        if isinstance(seen, ssl.SSLError):
            return f"TLS failed ({getattr(seen, 'reason', None) or seen})"
        if isinstance(seen, OSError) and seen.strerror:
            return seen.strerror.lower()
        seen = seen.__cause__ or seen.__context__
    h2 = sys.modules.get("h2.exceptions")
    if h2 is not None and isinstance(exc, h2.H2Error):
        return f"the service broke HTTP/2 ({exc})"
    socks = sys.modules.get("python_socks")
    if socks is not None and isinstance(exc, socks.ProxyError):
        # python-socks words the proxy's reply; none of its words quote the proxy's URL.
        return f"the SOCKS5 proxy would not connect: {exc}"
    if not exc.args:
        return "the connection failed"
    return str(exc)
