"""Cursor's ``GetServerConfig``: whether this account may, or must, run over HTTP/2.

``POST /agent.v1.AgentService/GetServerConfig`` takes an empty request and
answers ``GetServerConfigResponse{7 http2_config}`` (docs/protocol.md §4b):
unspecified (0), FORCE_ALL_DISABLED (1), FORCE_ALL_ENABLED (2),
FORCE_BIDI_DISABLED (3), FORCE_BIDI_ENABLED (4). ``auto`` asks it only where
the answer can change the choice — when TLS did not negotiate h2 — as
oh-my-pi does: a DISABLED answer lets the run go over RunSSE (and keeps
``auto`` off HTTP/2 while it is cached), an ENABLED one makes the failed
negotiation the round's error. Anything that is not a clean answer (a refusal,
a timeout, a body that does not parse) is "unspecified".

``parse_server_config`` is pure; ``ask_server_config`` makes the call over
HTTP/1.1 (HTTP/2 is what just failed) through the cell's pooled client and
proxy (``unary.unary``); ``ServerConfigs`` (on ``RunConnections``, so on ``CellState``) keeps
each answer 30 s per base URL and account and lets concurrent rounds share one
call. What the answer changes is ``core.routes.next_route``'s to decide.
"""

from __future__ import annotations

import asyncio
import enum
import hashlib
import logging
import threading
import time
import uuid
from typing import TYPE_CHECKING

from .. import limits

if TYPE_CHECKING:
    from ..transports.run import RunSettings

__all__ = [
    "GET_SERVER_CONFIG_PATH",
    "Http2Policy",
    "ServerConfigs",
    "ask_server_config",
    "parse_server_config",
]

log = logging.getLogger(__name__)

GET_SERVER_CONFIG_PATH = "/agent.v1.AgentService/GetServerConfig"

# Answers kept at once; a long-lived cell with rotating accounts keeps no more.
_MAX_KEPT = 8

# (base URL without a trailing slash, SHA-256 hex digest of the token).
ConfigKey = tuple[str, str]


class Http2Policy(enum.IntEnum):
    """What Cursor's server config says of HTTP/2 (``agent.v1.Http2Config`` numbers)."""

    UNSPECIFIED = 0
    FORCE_ALL_DISABLED = 1
    FORCE_ALL_ENABLED = 2
    FORCE_BIDI_DISABLED = 3
    FORCE_BIDI_ENABLED = 4

    @property
    def forbids_http2(self) -> bool:
        """Return whether the run must not go over HTTP/2 (bidi or all disabled)."""
        return self in (Http2Policy.FORCE_ALL_DISABLED, Http2Policy.FORCE_BIDI_DISABLED)

    @property
    def requires_http2(self) -> bool:
        """Return whether the run must go over HTTP/2 (bidi or all enabled)."""
        return self in (Http2Policy.FORCE_ALL_ENABLED, Http2Policy.FORCE_BIDI_ENABLED)


def parse_server_config(body: bytes) -> Http2Policy:
    """Return the policy a GetServerConfig answer body says; UNSPECIFIED for anything unclear.

    The body is the bare message or one Connect frame of it (``read_unary_body``);
    an error trailer, a body that is not the message, or a number this code does
    not know are all "unspecified".
    """
    from google.protobuf.message import DecodeError

    from .._proto import agent_pb2
    from ..errors import CursorError
    from ..wire.connect import read_unary_body

    try:
        message = agent_pb2.GetServerConfigResponse.FromString(read_unary_body(body))
    except (DecodeError, RecursionError, CursorError):
        return Http2Policy.UNSPECIFIED
    number = int(message.http2_config)
    try:
        return Http2Policy(number)
    except ValueError:
        return Http2Policy.UNSPECIFIED


class ServerConfigs:
    """Cursor's GetServerConfig answers, each kept ``ttl_seconds`` per base URL and account.

    ``lock`` guards the tables; the calls in flight are per event loop.
    """

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.ttl_seconds = limits.SERVER_CONFIG_TTL_SECONDS
        self.timeout_seconds = limits.SERVER_CONFIG_TIMEOUT_SECONDS
        self.asked = 0  # calls made so far (tests count them)
        # Per key, the answer and when it stops counting (time.monotonic()).
        self._answers: dict[ConfigKey, tuple[Http2Policy, float]] = {}
        # Per loop and key, the call in flight: concurrent rounds wait on one.
        self._asking: dict[tuple[int, ConfigKey], asyncio.Task[Http2Policy]] = {}

    @staticmethod
    def key(base_url: str, token: str) -> ConfigKey:
        """Return the key of an answer: the base URL and the account's digest."""
        return (base_url.rstrip("/"), hashlib.sha256(token.encode()).hexdigest())

    def cached(self, base_url: str, token: str) -> Http2Policy | None:
        """Return the answer kept for BASE_URL and TOKEN's account, or None when none is fresh."""
        key = self.key(base_url, token)
        with self.lock:
            found = self._answers.get(key)
            if found is None:
                return None
            if found[1] <= time.monotonic():
                del self._answers[key]
                return None
            return found[0]

    def keep(self, base_url: str, token: str, policy: Http2Policy) -> None:
        """Keep POLICY as the answer for BASE_URL and TOKEN's account (returns nothing)."""
        key = self.key(base_url, token)
        now = time.monotonic()
        with self.lock:
            for old, (_, until) in list(self._answers.items()):
                if until <= now:
                    del self._answers[old]
            self._answers.pop(key, None)
            self._answers[key] = (policy, now + self.ttl_seconds)
            while len(self._answers) > _MAX_KEPT:
                del self._answers[next(iter(self._answers))]

    def clear(self) -> None:
        """Forget every answer (returns nothing)."""
        with self.lock:
            self._answers.clear()


async def ask_server_config(
    settings: RunSettings, configs: ServerConfigs | None = None
) -> Http2Policy:
    """Return what Cursor's server config says of HTTP/2 for the run's base URL and account.

    A fresh kept answer is returned without a call; otherwise one call (shared
    with concurrent rounds of this loop) is made and its answer kept. Never
    raises but for cancellation: any failure is UNSPECIFIED.
    """
    if configs is None:
        return await _fetch(settings, limits.SERVER_CONFIG_TIMEOUT_SECONDS)
    found = configs.cached(settings.base_url, settings.token)
    if found is not None:
        return found
    loop = asyncio.get_running_loop()
    slot = (id(loop), configs.key(settings.base_url, settings.token))
    with configs.lock:
        task = configs._asking.get(slot)
        if task is None or task.get_loop() is not loop:
            configs.asked += 1
            task = loop.create_task(
                _fetch(settings, configs.timeout_seconds), name="cursor-server-config"
            )
            configs._asking[slot] = task

            def landed(done: asyncio.Task[Http2Policy]) -> None:
                with configs.lock:
                    if configs._asking.get(slot) is done:
                        del configs._asking[slot]
                if not done.cancelled() and done.exception() is None:
                    configs.keep(settings.base_url, settings.token, done.result())

            task.add_done_callback(landed)
    # shield: a round cancelled while waiting must not cancel the call others wait on.
    return await asyncio.shield(task)


async def _fetch(settings: RunSettings, timeout: float) -> Http2Policy:
    """Return the policy one GetServerConfig call answers; UNSPECIFIED on any failure."""
    # Deferred: CursorCell.start loads this module (through runpool) and must stay cheap.
    from ..errors import CursorError
    from ..transports.http import rpc_headers
    from ..transports.unary import unary

    url = settings.base_url.rstrip("/") + GET_SERVER_CONFIG_PATH
    headers = rpc_headers(settings.token, settings.client_version, str(uuid.uuid4()))
    headers["content-type"] = "application/proto"
    try:
        async with asyncio.timeout(timeout):
            # An empty GetServerConfigRequest is zero bytes, sent unframed (unary
            # application/proto), over the kit's HTTP/1.1: HTTP/2 is what just failed.
            answer = await unary(
                url,
                headers=headers,
                timeout=timeout,
                proxy=settings.proxy,
                clients=settings.clients,
                max_bytes=limits.SERVER_CONFIG_MAX_BYTES,  # a config is bytes
            )
    except TimeoutError:
        log.debug("GetServerConfig did not answer within %g s; taken as unspecified", timeout)
        return Http2Policy.UNSPECIFIED
    except CursorError as exc:
        # Refused proxies, unreachable hosts, TLS failures: fail open, as oh-my-pi does.
        log.debug("GetServerConfig failed (%s); taken as unspecified", exc.detail)
        return Http2Policy.UNSPECIFIED
    if answer.status != 200:
        log.debug("GetServerConfig answered HTTP %d; taken as unspecified", answer.status)
        return Http2Policy.UNSPECIFIED
    if answer.content is None:
        limit = limits.SERVER_CONFIG_MAX_BYTES
        log.debug("GetServerConfig's answer passed %d bytes; taken as unspecified", limit)
        return Http2Policy.UNSPECIFIED
    policy = parse_server_config(answer.content)
    log.debug("Cursor's server config for %s says %s", settings.base_url, policy.name)
    return policy
