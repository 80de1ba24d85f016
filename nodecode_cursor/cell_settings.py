"""The cell's ``cursor`` config section read into ``Settings``, its defaults filled in.

``Settings.from_section`` checks each key a host's config may hold (its type, its
allowed values, that a URL a token goes to is not cleartext off loopback) and
refuses a wrong one with a ``ConfigError`` naming the key; unknown keys are
left alone. Which config a host reads, and when, is the host's; what the
settings change in a round is the cell object's (``cell.py``) and the lanes'.
Loaded with the cell at host start-up, so it imports only ``limits`` and
``errors``.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any, NamedTuple

from . import limits
from .errors import ConfigError, check_cleartext, json_kind

__all__ = ["AGENT_LANE", "CONTINUATIONS", "LANES", "PROVIDER", "Settings"]

PROVIDER = "cursor"
# The second lane: Cursor's own CLI, one subprocess per turn (agent_lane.py).
AGENT_LANE = "cursor-agent"
LANES = (PROVIDER, AGENT_LANE)
# cursor.continuation's values (continuation.SETTINGS; named here: loading the cell stays cheap).
CONTINUATIONS = ("auto", "resume", "message")


class Settings(NamedTuple):
    """The cell's config section, with defaults filled in (immutable).

    A named tuple rather than a dataclass: importing ``dataclasses`` (and ``inspect``
    with it) would double what loading the cell costs.
    """

    base_url: str = limits.DEFAULT_BASE_URL
    web_url: str = limits.DEFAULT_WEB_URL
    client_version: str | None = None
    enabled: bool = True
    proxy: str | None = None
    transport: str = limits.DEFAULT_RUN_TRANSPORT
    # Which lane the ``cursor`` lane's rounds take: "cursor" (the protocol) or "cursor-agent".
    lane: str = PROVIDER
    # Run cursor-agent with an empty managed HOME (the person's Claude Code hooks stay out).
    agent_isolate_home: bool = False
    # The CLI to run instead of looking for ``agent``, then ``cursor-agent``, on the PATH.
    agent_path: str | None = None
    max_reply_bytes: int = limits.MAX_REPLY_BYTES
    # The request's history budget (root blobs, root-JSON bytes); None: limits' default.
    history_budget: tuple[int, int] | None = None
    # How a run goes on after tool results: "auto", "resume" or "message" (continuation.py).
    continuation: str = "auto"
    # The kept account (its email) rounds run on; None: the active one (accounts.py).
    account: str | None = None
    # A round that names no account goes on with another kept account when Cursor refuses
    # it before any output for a cause another account mends (lanes/failover.py).
    failover: bool = True
    # The percent of an account's included usage past which no round starts on it.
    account_threshold: float = limits.ACCOUNT_THRESHOLD_PERCENT

    @classmethod
    def from_section(cls, section: Mapping[str, Any]) -> Settings:
        """Return settings read from a config section (unknown keys ignored)."""

        def text(key: str, default: str | None) -> str | None:
            value = section.get(key)
            if value is not None and not isinstance(value, str):
                # Dropping it would quietly use the default: for a URL, the real service.
                raise ConfigError(
                    f'"{key}" in the "cursor" config section must be a string, '
                    f"not {json_kind(value)}",
                    code="bad_config",
                )
            return value.strip() if isinstance(value, str) and value.strip() else default

        enabled = _flag(section, "enabled", True)

        transport = _choice(
            "transport", text("transport", limits.DEFAULT_RUN_TRANSPORT), limits.RUN_TRANSPORTS
        )

        lane = _choice("lane", text("lane", PROVIDER), LANES)
        isolate = _flag(section, "agent_isolate_home", False)

        cap = section.get("max_reply_bytes", limits.MAX_REPLY_BYTES)
        if not isinstance(cap, int) or isinstance(cap, bool) or cap < 1:
            raise ConfigError(
                '"max_reply_bytes" in the "cursor" config section must be a positive whole '
                f"number, not {json_kind(cap)}",
                code="bad_config",
            )

        continuation = _choice("continuation", text("continuation", "auto"), CONTINUATIONS)

        failover = _flag(section, "failover", True)
        threshold = section.get("account_threshold", limits.ACCOUNT_THRESHOLD_PERCENT)
        if (
            not isinstance(threshold, int | float)
            or isinstance(threshold, bool)
            or not 0 < threshold <= 100
        ):
            raise ConfigError(
                '"account_threshold" in the "cursor" config section must be a number above 0'
                " and at most 100 (the percent of an account's included usage)",
                code="bad_config",
            )

        base_url = (text("base_url", limits.DEFAULT_BASE_URL) or "").rstrip("/")
        web_url = (text("web_url", limits.DEFAULT_WEB_URL) or "").rstrip("/")
        # Tokens go to both: only a loopback one may be cleartext.
        check_cleartext(base_url, "base_url")
        check_cleartext(web_url, "web_url")
        return cls(
            lane=lane,
            agent_isolate_home=isolate,
            agent_path=text("agent_path", None),
            base_url=base_url,
            web_url=web_url,
            client_version=text("client_version", None),
            enabled=enabled,
            proxy=text("proxy", None),
            transport=transport,
            max_reply_bytes=cap,
            history_budget=_history_budget(section.get("history_budget")),
            continuation=continuation,
            account=text("account", None),
            failover=failover,
            account_threshold=float(threshold),
        )


def _flag(section: Mapping[str, Any], key: str, default: bool) -> bool:
    """Return the section's true-or-false KEY (DEFAULT when absent); ConfigError if not one."""
    value = section.get(key, default)
    if not isinstance(value, bool):
        raise ConfigError(
            f'"{key}" in the "cursor" config section must be true or false', code="bad_config"
        )
    return value


def _choice(key: str, value: str | None, allowed: Collection[str]) -> str:
    """Return KEY's VALUE lower-cased when it is one of ALLOWED; ConfigError naming them if not."""
    chosen = (value or "").lower()
    if chosen not in allowed:
        names = ", ".join(f'"{name}"' for name in allowed)
        raise ConfigError(
            f'"{key}" in the "cursor" config section must be one of {names}', code="bad_config"
        )
    return chosen


def _history_budget(value: Any) -> tuple[int, int] | None:
    """Return ``cursor.history_budget`` ({"roots": N, "bytes": N}) as (roots, bytes), or None."""
    if value is None:
        return None
    wrong = ConfigError(
        '"history_budget" in the "cursor" config section must be an object like '
        '{"roots": 192, "bytes": 524288}: at least 8 root blobs and 16384 bytes',
        code="bad_config",
    )
    if not isinstance(value, Mapping) or set(value) - {"roots", "bytes"}:
        raise wrong
    roots = value.get("roots", limits.HISTORY_BUDGET_ROOTS)
    size = value.get("bytes", limits.HISTORY_BUDGET_BYTES)
    for number, least in ((roots, 8), (size, 16 * 1024)):
        if not isinstance(number, int) or isinstance(number, bool) or number < least:
            raise wrong
    return roots, size
