"""The browser sign-in and the token refresh, over real sockets against the simulator."""

from __future__ import annotations

import base64
import hashlib
import json
import logging
import re
import socket
import stat
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path
from urllib.parse import parse_qs, quote, urlsplit

import jwt
import pytest

from cursor_simulator import Simulator
from cursor_simulator.auth import make_token
from nodecode_cursor.account import signin as signin_module
from nodecode_cursor.account.signin import PollPacing, SignIn, refresh_if_due
from nodecode_cursor.account.store import AuthStore, TokenEntry
from nodecode_cursor.errors import CredentialError, ProviderError
from nodecode_cursor.host import MemoryHost

FAST = PollPacing(first_delay=0.01, backoff=1.2, max_delay=0.03, request_timeout=2.0)
CLIENT_ID = "KbZUR41cY7W6zRSdpSUJ7I7mLYBKOCmB"
B64URL = re.compile(r"^[A-Za-z0-9_-]+$")


def page_of(line: str) -> dict[str, str]:
    """Return the login page's path and query parameters named in ``line``."""
    match = re.search(r"(http://\S+)", line)
    assert match, line
    parts = urlsplit(match.group(1))
    params = {k: v[0] for k, v in parse_qs(parts.query).items()}
    params["_path"] = parts.path
    return params


def claims(token: str) -> dict[str, object]:
    return jwt.decode(token, options={"verify_signature": False})


def closed_port_url() -> str:
    """Return a loopback URL where nothing listens (connections are refused)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}"


# --- the sign-in ------------------------------------------------------------------------


def test_full_login_flow(sim: Simulator, home: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    other = {"api_keys": {"openai": {"key": "sk-other"}}, "oauth_tokens": {"x": {"a": 1}}}
    (home / "auth.json").write_text(json.dumps(other))
    host = MemoryHost(home)
    host.notice("cursor: sign-in failed: earlier", key="cursor")
    sim.auth.queue_poll("pending", "tokens")
    signin = SignIn(host, AuthStore(home), sim.url, sim.url, FAST)

    line = signin.start()
    assert signin.wait(60)

    page = page_of(line)
    assert page["_path"] == "/loginDeepControl"
    assert page["mode"] == "login" and page["redirectTarget"] == "cli"
    assert line.startswith(f"cursor: open {sim.url}/loginDeepControl?")
    polls = sim.auth.polls
    assert len(polls) == 2
    assert [p["uuid"] for p in polls] == [page["uuid"], page["uuid"]]
    verifier = polls[0]["verifier"]
    assert polls[1]["verifier"] == verifier
    assert 43 <= len(verifier) <= 128 and B64URL.match(verifier)
    expected = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest())
    assert page["challenge"] == expected.rstrip(b"=").decode()

    (login_id, access, refresh) = sim.auth.issued[0]
    assert login_id == page["uuid"]
    assert sim.auth.profile_cookies == [
        "WorkosCursorSessionToken=" + quote("user_123::" + access, safe="")
    ]
    assert "%3A%3A" in sim.auth.profile_cookies[0]

    data = json.loads((home / "auth.json").read_text())
    exp = claims(access)["exp"]
    assert isinstance(exp, int)
    assert data["oauth_tokens"]["cursor"] == {
        "access_token": access,
        "refresh_token": refresh,
        "expires_at": exp - 300,
        "email": "person@example.com",
    }
    assert data["api_keys"] == other["api_keys"]
    assert data["oauth_tokens"]["x"] == {"a": 1}
    assert stat.S_IMODE((home / "auth.json").stat().st_mode) == 0o600
    assert host.said == ["cursor: signed in as person@example.com"]
    assert "cursor" not in host.notices
    assert not signin.in_progress
    assert access not in caplog.text and refresh not in caplog.text


def test_fresh_home_gets_a_private_folder(sim: Simulator, tmp_path: Path) -> None:
    home = tmp_path / "fresh"
    host = MemoryHost(home)
    signin = SignIn(host, AuthStore(home), sim.url, sim.url, FAST)
    sim.auth.queue_poll("tokens")
    signin.start()
    assert signin.wait(60)
    assert stat.S_IMODE(home.stat().st_mode) == 0o700
    assert stat.S_IMODE((home / "auth.json").stat().st_mode) == 0o600


@pytest.mark.parametrize(
    "outcomes", [("error", "not-json", "cut"), ("error", "error", "error"), ("cut",) * 3]
)
def test_three_errors_in_a_row_end_it(sim: Simulator, home: Path, outcomes: tuple[str]) -> None:
    host = MemoryHost(home)
    sim.auth.queue_poll(*outcomes, "tokens")  # type: ignore[arg-type]
    signin = SignIn(host, AuthStore(home), sim.url, sim.url, FAST)
    signin.start()
    assert signin.wait(60)
    assert len(sim.auth.polls) == 3
    line = host.said[0]
    assert line.startswith(
        "cursor: sign-in failed: Too many consecutive errors during Cursor auth polling (the last: "
    )
    last = {"error": "HTTP 500 from", "not-json": "not a JSON object", "cut": "no answer from"}
    assert last[outcomes[-1]] in line and f"{sim.url}/auth/poll" in line
    assert "verifier" not in line and sim.auth.polls[0]["verifier"] not in line
    assert host.notices["cursor"].text == line
    assert host.said == [line]
    assert not (home / "auth.json").exists()


def test_no_connection_counts_as_an_error(home: Path) -> None:
    host = MemoryHost(home)
    dead = closed_port_url()
    signin = SignIn(host, AuthStore(home), dead, dead, FAST)
    signin.start()
    assert signin.wait(60)
    text = host.notices["cursor"].text
    assert "Too many consecutive errors during Cursor auth polling" in text
    assert f"no answer from {dead}/auth/poll (ConnectionRefusedError)" in text
    assert not (home / "auth.json").exists()


def test_a_pending_answer_resets_the_error_count(sim: Simulator, home: Path) -> None:
    host = MemoryHost(home)
    sim.auth.queue_poll("error", "error", "pending", "not-json", "error", "tokens")
    signin = SignIn(host, AuthStore(home), sim.url, sim.url, FAST)
    signin.start()
    assert signin.wait(60)
    assert len(sim.auth.polls) == 6
    assert host.said == ["cursor: signed in as person@example.com"]


def test_running_out_of_polls_times_out(sim: Simulator, home: Path) -> None:
    host = MemoryHost(home)
    pacing = PollPacing(first_delay=0.001, max_delay=0.002, max_attempts=4)
    signin = SignIn(host, AuthStore(home), sim.url, sim.url, pacing)
    signin.start()
    assert signin.wait(60)
    assert len(sim.auth.polls) == 4
    assert "timeout" in host.notices["cursor"].text
    assert not (home / "auth.json").exists()


class _Waits(threading.Event):
    """A cancel event that is never set and records each wait's timeout instead of waiting."""

    def __init__(self) -> None:
        super().__init__()
        self.timeouts: list[float | None] = []

    def wait(self, timeout: float | None = None) -> bool:
        self.timeouts.append(timeout)
        return False


def test_poll_delays_grow_by_a_fifth_up_to_the_cap(sim: Simulator) -> None:
    pacing = PollPacing(first_delay=0.04, backoff=1.2, max_delay=0.06, max_attempts=5)
    waits = _Waits()
    with pytest.raises(ProviderError) as raised:
        signin_module.poll_tokens(None, sim.url, "login-1", "verifier-1", pacing, waits)
    assert str(raised.value) == signin_module.POLL_TIMEOUT
    # Each pending poll (404) waits a fifth longer than the last, up to the cap.
    assert waits.timeouts == pytest.approx([0.04, 0.048, 0.0576, 0.06, 0.06])
    assert len(sim.auth.polls) == 5


def test_tokens_without_refresh_token_fail(sim: Simulator, home: Path) -> None:
    host = MemoryHost(home)
    sim.auth.queue_poll("incomplete")
    signin = SignIn(host, AuthStore(home), sim.url, sim.url, FAST)
    signin.start()
    assert signin.wait(60)
    assert "without both tokens" in host.notices["cursor"].text
    assert not (home / "auth.json").exists()


@pytest.mark.parametrize("fault", ["status", "other-user"])
def test_profile_failure_leaves_email_unknown(sim: Simulator, home: Path, fault: str) -> None:
    if fault == "status":
        sim.auth.profile_status = 500
    else:
        sim.auth.profile_sub = "user_999"
    host = MemoryHost(home)
    sim.auth.queue_poll("tokens")
    signin = SignIn(host, AuthStore(home), sim.url, sim.url, FAST)
    signin.start()
    assert signin.wait(60)
    entry = json.loads((home / "auth.json").read_text())["oauth_tokens"]["cursor"]
    assert "email" not in entry
    assert entry["access_token"] == sim.auth.issued[0][1]
    assert host.said == ["cursor: signed in"]


def sign_in_threads() -> set[threading.Thread]:
    """Return the sign-in threads running now (``SignIn`` names each one)."""
    return {t for t in threading.enumerate() if t.name == "cursor-sign-in"}


def test_a_second_login_cancels_the_first(sim: Simulator, home: Path) -> None:
    host = MemoryHost(home)
    signin = SignIn(host, AuthStore(home), sim.url, sim.url, FAST)
    before = sign_in_threads()
    first = page_of(signin.start())["uuid"]
    (first_thread,) = sign_in_threads() - before
    assert sim.wait_until(lambda: any(p["uuid"] == first for p in sim.auth.polls))
    second = page_of(signin.start())["uuid"]
    assert second != first
    # The person confirms the first page too late: that sign-in must write nothing.
    sim.auth.confirm(first)
    assert sim.wait_until(lambda: any(p["uuid"] == second for p in sim.auth.polls))
    first_thread.join(60)  # the first sign-in has ended: it can write nothing more
    assert not first_thread.is_alive()
    assert not (home / "auth.json").exists()
    assert host.said == []
    sim.auth.confirm(second)
    assert signin.wait(60)
    stored = json.loads((home / "auth.json").read_text())["oauth_tokens"]["cursor"]
    second_tokens = [(a, r) for (u, a, r) in sim.auth.issued if u == second]
    assert (stored["access_token"], stored["refresh_token"]) == second_tokens[0]
    assert host.said == ["cursor: signed in as person@example.com"]


def test_cancel_writes_nothing(sim: Simulator, home: Path) -> None:
    host = MemoryHost(home)
    signin = SignIn(host, AuthStore(home), sim.url, sim.url, FAST)
    login_id = page_of(signin.start())["uuid"]
    assert sim.wait_until(lambda: len(sim.auth.polls) >= 2)
    assert signin.in_progress
    assert signin.cancel() is True
    assert not signin.in_progress
    sim.auth.confirm(login_id)
    assert signin.wait(60)  # its thread has ended: it can write nothing more
    assert not (home / "auth.json").exists()
    assert host.said == [] and host.notices == {}
    assert signin.cancel() is False


# --- the refresh ------------------------------------------------------------------------


def keep_due_entry(home: Path, *, email: str | None = "kept@example.com") -> TokenEntry:
    """Keep a sign-in whose token lapses in 10 s (due) and return it."""
    entry = TokenEntry(make_token(lifetime=310), "refresh-original", time.time() + 10, email)
    AuthStore(home).save_entry(entry)
    return entry


def test_refresh_when_due_sends_the_exact_body(
    sim: Simulator, home: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    old = keep_due_entry(home)
    entry = refresh_if_due(AuthStore(home), sim.url, host=MemoryHost(home))
    assert sim.auth.refresh_calls == 1
    (request,) = sim.requests_to("/oauth/token")
    assert request.method == "POST"
    assert request.headers["content-type"] == "application/json"
    assert json.loads(request.body) == {
        "grant_type": "refresh_token",
        "client_id": CLIENT_ID,
        "refresh_token": "refresh-original",
    }
    assert entry is not None
    new_access = sim.auth.refreshed[0]
    assert entry.access_token == new_access != old.access_token
    assert entry.refresh_token == "refresh-original"  # not rotated: kept
    assert entry.email == "kept@example.com"
    exp = claims(new_access)["exp"]
    assert isinstance(exp, int)
    assert entry.expires_at == exp - 300
    assert AuthStore(home).entry() == entry
    assert new_access not in caplog.text and "refresh-original" not in caplog.text


def test_refresh_keeps_a_rotated_refresh_token(sim: Simulator, home: Path) -> None:
    keep_due_entry(home, email=None)
    sim.auth.refresh_mode = "rotate"
    entry = refresh_if_due(AuthStore(home), sim.url)
    assert entry is not None
    assert entry.refresh_token.startswith("refresh-") and entry.refresh_token != "refresh-original"
    assert entry.email is None
    assert AuthStore(home).entry() == entry


def test_no_refresh_when_not_due(sim: Simulator, home: Path) -> None:
    entry = TokenEntry(make_token(), "r", time.time() + 3000, None)
    AuthStore(home).save_entry(entry)
    assert refresh_if_due(AuthStore(home), sim.url) == entry
    assert refresh_if_due(AuthStore(home), sim.url) == entry
    assert sim.auth.refresh_calls == 0


def test_should_logout_ends_the_session(sim: Simulator, home: Path) -> None:
    old = keep_due_entry(home)
    before = (home / "auth.json").read_bytes()
    host = MemoryHost(home)
    sim.auth.refresh_mode = "logout"
    with pytest.raises(CredentialError) as caught:
        refresh_if_due(AuthStore(home), sim.url, host=host)
    assert "/cursor login" in str(caught.value)
    assert old.access_token not in str(caught.value)
    assert "/cursor login" in host.notices["cursor"].text
    assert (home / "auth.json").read_bytes() == before
    # The notice stands until a login succeeds.
    sim.auth.queue_poll("tokens")
    signin = SignIn(host, AuthStore(home), sim.url, sim.url, FAST)
    signin.start()
    assert signin.wait(60)
    assert "cursor" not in host.notices


@pytest.mark.parametrize(
    ("mode", "words"), [("refuse", "HTTP 401 invalid_grant"), ("no-token", "no access token")]
)
def test_refused_refresh_says_so(sim: Simulator, home: Path, mode: str, words: str) -> None:
    old = keep_due_entry(home)
    before = (home / "auth.json").read_bytes()
    sim.auth.refresh_mode = mode  # type: ignore[assignment]
    with pytest.raises(CredentialError) as caught:
        refresh_if_due(AuthStore(home), sim.url)
    assert words in str(caught.value)
    assert old.refresh_token not in str(caught.value)
    assert (home / "auth.json").read_bytes() == before


def test_concurrent_rounds_refresh_once(sim: Simulator, home: Path) -> None:
    import asyncio

    from nodecode_cursor.account.credentials import resolve_credential_async

    keep_due_entry(home)
    sim.auth.refresh_delay = 0.2

    async def two_rounds() -> list[str | None]:
        # Each round resolves its own credential, as the lane does (in a worker thread).
        host_a, host_b = MemoryHost(home), MemoryHost(home)
        return list(
            await asyncio.gather(
                resolve_credential_async(host_a, for_round=True, base_url=sim.url),
                resolve_credential_async(host_b, for_round=True, base_url=sim.url),
            )
        )

    first, second = asyncio.run(two_rounds())
    assert sim.auth.refresh_calls == 1
    renewed = AuthStore(home).entry()
    assert renewed is not None
    assert first == second == renewed.access_token


REFRESH_SCRIPT = textwrap.dedent(
    """
    import hashlib, sys
    from nodecode_cursor.account.signin import refresh_if_due
    from nodecode_cursor.account.store import AuthStore
    import httpx  # loaded before the start signal, so both processes race fairly
    home, url = sys.argv[1], sys.argv[2]
    print("ready", flush=True)
    sys.stdin.readline()
    entry = refresh_if_due(AuthStore(home), url)
    print(hashlib.sha256(entry.access_token.encode()).hexdigest(), flush=True)
    """
)


def test_two_processes_refresh_once(sim: Simulator, home: Path) -> None:
    keep_due_entry(home)
    # Slow enough that both processes read the due entry before either writes.
    sim.auth.refresh_delay = 0.5
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", REFRESH_SCRIPT, str(home), sim.url],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    try:
        for proc in procs:
            assert proc.stdout is not None
            assert proc.stdout.readline().strip() == "ready"
        for proc in procs:
            assert proc.stdin is not None
            proc.stdin.write("go\n")
            proc.stdin.flush()
        outputs = [proc.communicate(timeout=30) for proc in procs]
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    for proc, (_out, err) in zip(procs, outputs, strict=True):
        assert proc.returncode == 0, err
    digests = {out.strip() for out, _ in outputs}
    assert sim.auth.refresh_calls == 1
    stored = AuthStore(home).entry()
    assert stored is not None and stored.access_token == sim.auth.refreshed[0]
    assert digests == {hashlib.sha256(stored.access_token.encode()).hexdigest()}


def test_httpx_request_log_never_shows_the_verifier(caplog: pytest.LogCaptureFixture) -> None:
    import logging

    import nodecode_cursor.account.signin  # noqa: F401 - installs the mask

    caplog.set_level(logging.INFO, logger="httpx")
    logging.getLogger("httpx").info(
        'HTTP Request: %s %s "%s"', "GET", "http://x/auth/poll?uuid=u1&verifier=SECRETVERIFIER", 404
    )
    assert "SECRETVERIFIER" not in caplog.text
    assert "verifier=[redacted]" in caplog.text


@pytest.mark.usefixtures("bad_proxy_environment")
def test_a_refresh_through_an_unusable_proxy_is_a_config_error(sim: Simulator, home: Path) -> None:
    from nodecode_cursor.errors import ConfigError

    keep_due_entry(home)
    before = (home / "auth.json").read_bytes()
    with pytest.raises(ConfigError) as caught:
        refresh_if_due(AuthStore(home), sim.url)
    assert caught.value.code == "bad_proxy" and "proxy environment" in str(caught.value)
    assert "s3cr3t" not in repr(caught.value) and "s3cr3t" not in str(caught.value)
    assert sim.auth.refresh_calls == 0
    assert (home / "auth.json").read_bytes() == before


@pytest.mark.usefixtures("bad_proxy_environment")
def test_a_sign_in_through_an_unusable_proxy_says_so(sim: Simulator, home: Path) -> None:
    host = MemoryHost(home)
    signin = SignIn(host, AuthStore(home), sim.url, sim.url, FAST)
    signin.start()
    assert signin.wait(60)
    failure = host.notices["cursor"].text
    assert "sign-in failed" in failure and "proxy environment" in failure
    assert "s3cr3t" not in failure and "unexpected" not in failure
