"""``/cursor login | status | logout``: one line each, completion, cancellation, no network."""

from __future__ import annotations

import json
import re
import threading
import time
from pathlib import Path

import pytest

from cursor_simulator import Simulator
from cursor_simulator.auth import make_token
from nodecode_cursor.account.signin import PollPacing
from nodecode_cursor.account.store import AuthStore, TokenEntry
from nodecode_cursor.commands import USAGE, CursorCommand
from nodecode_cursor.errors import NOT_SIGNED_IN
from nodecode_cursor.host import MemoryHost

FAST = PollPacing(first_delay=0.01, max_delay=0.03, request_timeout=2.0)


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("CURSOR_ACCESS_TOKEN", "CURSOR_API_KEY"):
        monkeypatch.delenv(name, raising=False)


def command(sim: Simulator, host: MemoryHost) -> CursorCommand:
    return CursorCommand(host, sim.url, sim.url, pacing=FAST)


def uuid_of(line: str) -> str:
    match = re.search(r"[?&]uuid=([0-9a-f-]+)", line)
    assert match, line
    return match.group(1)


def test_login_then_status_then_logout(sim: Simulator, home: Path) -> None:
    (home / "auth.json").write_text(json.dumps({"api_keys": {"openai": {"key": "sk-o"}}}))
    host = MemoryHost(home)
    cmd = command(sim, host)
    assert cmd.run("status") == f"cursor: {NOT_SIGNED_IN}"
    line = cmd.run("login")
    assert "\n" not in line
    assert f"{sim.url}/loginDeepControl?" in line and "redirectTarget=cli" in line
    assert cmd.run("status") == "cursor: a sign-in is in progress"
    sim.auth.confirm(uuid_of(line))
    assert cmd.signin.wait(60)
    assert host.said == ["cursor: signed in as person@example.com"]
    assert cmd.run("status") == "cursor: signed in as person@example.com"
    host.notice("cursor: something", key="cursor")
    assert cmd.run("logout") == "cursor: signed out"
    assert "cursor" not in host.notices
    assert json.loads((home / "auth.json").read_text()) == {
        "api_keys": {"openai": {"key": "sk-o"}},
        "oauth_tokens": {},
    }
    assert cmd.run("status") == f"cursor: {NOT_SIGNED_IN}"
    # A second logout has nothing to forget, says so, and writes nothing.
    before = (home / "auth.json").read_bytes()
    assert cmd.run("logout") == "cursor: not signed in; nothing to forget"
    assert (home / "auth.json").read_bytes() == before


def test_logout_with_nothing_kept_creates_no_file(sim: Simulator, home: Path) -> None:
    cmd = command(sim, MemoryHost(home))
    assert cmd.run("logout") == "cursor: not signed in; nothing to forget"
    assert not (home / "auth.json").exists()


def test_status_never_refreshes_nor_dials(sim: Simulator, home: Path) -> None:
    entry = TokenEntry(make_token(lifetime=1), "r", time.time() - 100, None)
    AuthStore(home).save_entry(entry)
    cmd = command(sim, MemoryHost(home))
    assert cmd.run("status") == "cursor: signed in"
    assert cmd.run("") == "cursor: signed in"
    assert sim.requests == []
    assert AuthStore(home).entry() == entry


def test_status_names_the_environment(
    sim: Simulator, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cmd = command(sim, MemoryHost(home))
    monkeypatch.setenv("CURSOR_ACCESS_TOKEN", "env-token-value")
    line = cmd.run("status")
    assert line == (
        "cursor: not signed in; a token from the environment (CURSOR_ACCESS_TOKEN) is used"
    )
    assert "env-token-value" not in line
    monkeypatch.delenv("CURSOR_ACCESS_TOKEN")
    monkeypatch.setenv("CURSOR_API_KEY", "env-key")
    assert cmd.run("status") == (
        "cursor: not signed in; a token from the environment (CURSOR_API_KEY) is used"
    )


def test_status_names_a_connect_key(sim: Simulator, home: Path) -> None:
    (home / "auth.json").write_text(json.dumps({"api_keys": {"cursor": {"key": "k-1"}}}))
    assert command(sim, MemoryHost(home)).run("status") == (
        "cursor: not signed in; a key saved by /connect is used"
    )


def test_logout_cancels_a_sign_in_in_progress(sim: Simulator, home: Path) -> None:
    host = MemoryHost(home)
    cmd = command(sim, host)
    login_id = uuid_of(cmd.run("login"))
    assert sim.wait_until(lambda: len(sim.auth.polls) >= 1)
    assert cmd.run("logout") == "cursor: sign-in cancelled; nothing was kept"
    sim.auth.confirm(login_id)
    assert cmd.signin.wait(60)  # its thread has ended: it can write nothing more
    assert not (home / "auth.json").exists()
    assert host.said == []
    assert cmd.run("status") == f"cursor: {NOT_SIGNED_IN}"


def test_stop_cancels_a_sign_in_in_progress(sim: Simulator, home: Path) -> None:
    host = MemoryHost(home)
    cmd = command(sim, host)
    login_id = uuid_of(cmd.run("login"))
    cmd.stop()
    sim.auth.confirm(login_id)
    assert cmd.signin.wait(60)
    assert not (home / "auth.json").exists()
    assert host.said == []


def test_a_second_login_cancels_the_first(sim: Simulator, home: Path) -> None:
    host = MemoryHost(home)
    cmd = command(sim, host)
    before = {t for t in threading.enumerate() if t.name == "cursor-sign-in"}
    first = uuid_of(cmd.run("login"))
    (first_thread,) = {t for t in threading.enumerate() if t.name == "cursor-sign-in"} - before
    second = uuid_of(cmd.run("login"))
    sim.auth.confirm(first)
    first_thread.join(60)  # the cancelled first sign-in has ended: it can write nothing more
    assert not first_thread.is_alive()
    assert not (home / "auth.json").exists()
    sim.auth.confirm(second)
    assert cmd.signin.wait(60)
    stored = AuthStore(home).entry()
    assert stored is not None
    assert stored.access_token in [a for (u, a, _r) in sim.auth.issued if u == second]
    assert host.said == ["cursor: signed in as person@example.com"]


@pytest.mark.parametrize("argline", ["help", "signin", "LOGOUTX", "log in"])
def test_other_verbs_answer_the_usage_line(sim: Simulator, home: Path, argline: str) -> None:
    assert command(sim, MemoryHost(home)).run(argline) == USAGE
    assert USAGE == (
        "usage: /cursor login [--add] [--no-browser] [--api-key] [--move-aside] | status | usage "
        "| accounts | use EMAIL | logout [EMAIL] [--move-aside]"
    )
    assert sim.requests == []


def test_verbs_are_case_insensitive(sim: Simulator, home: Path) -> None:
    assert command(sim, MemoryHost(home)).run("  STATUS  ") == f"cursor: {NOT_SIGNED_IN}"


def test_completion(sim: Simulator, home: Path) -> None:
    cmd = command(sim, MemoryHost(home))
    assert cmd.complete("") == ["accounts", "login", "logout", "status", "usage", "use"]
    assert cmd.complete("log") == ["login", "logout"]
    assert cmd.complete("logi") == ["login"]
    assert cmd.complete("S") == ["status"]
    assert cmd.complete("u") == ["usage", "use"]
    assert cmd.complete("x") == []


def test_corrupt_auth_json_is_left_byte_identical(sim: Simulator, home: Path) -> None:
    content = b'{"oauth_tokens": {"cursor": "not an object"}, "other": 1}'
    (home / "auth.json").write_bytes(content)
    host = MemoryHost(home)
    cmd = command(sim, host)
    status = cmd.run("status")
    assert str(home / "auth.json") in status and "oauth_tokens.cursor" in status
    logout = cmd.run("logout")
    assert str(home / "auth.json") in logout
    login = cmd.run("login")
    assert str(home / "auth.json") in login and "loginDeepControl" not in login
    assert not cmd.signin.in_progress
    assert sim.requests == []
    assert (home / "auth.json").read_bytes() == content


def test_auth_json_broken_during_a_sign_in_is_left_alone(sim: Simulator, home: Path) -> None:
    host = MemoryHost(home)
    cmd = command(sim, host)
    line = cmd.run("login")
    content = b"[]"
    (home / "auth.json").write_bytes(content)
    sim.auth.confirm(uuid_of(line))
    assert cmd.signin.wait(60)
    assert (home / "auth.json").read_bytes() == content
    assert str(home / "auth.json") in host.notices["cursor"].text
    assert host.said and host.said[-1].startswith("cursor: sign-in failed:")


def test_status_names_an_unusable_environment_token_without_it(
    sim: Simulator, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CURSOR_ACCESS_TOKEN", "tokenPART1\ntokenPART2")
    line = command(sim, MemoryHost(home)).run("status")
    assert line.startswith("cursor: the Cursor token from CURSOR_ACCESS_TOKEN has characters")
    assert "tokenPART" not in line


def test_status_after_cursor_ended_the_session_says_so_until_a_login(
    sim: Simulator, home: Path
) -> None:
    from nodecode_cursor.account.credentials import resolve_credential
    from nodecode_cursor.errors import CredentialError

    refresh = f"refresh-ended-{time.monotonic_ns()}"
    entry = TokenEntry(make_token(lifetime=310), refresh, time.time() + 10, "kept@example.com")
    AuthStore(home).save_entry(entry)
    host = MemoryHost(home)
    ended: set[str] = set()  # the cell's CellState.ended_sessions
    cursor = CursorCommand(host, sim.url, sim.url, pacing=FAST, ended=ended)
    assert cursor.run("status") == "cursor: signed in as kept@example.com"
    sim.auth.refresh_mode = "logout"
    with pytest.raises(CredentialError):
        resolve_credential(host, for_round=True, base_url=sim.url, ended=ended)
    assert len(ended) == 1 and refresh not in ended  # a digest, never the token
    assert AuthStore(home).entry() == entry  # the kept sign-in is left as it was
    assert cursor.run("status") == (
        "cursor: signed in as kept@example.com, but Cursor ended this session: run /cursor login"
    )
    sim.auth.queue_poll("tokens")
    cursor.run("login")
    assert cursor.signin.wait(60)
    assert cursor.run("status") == "cursor: signed in as person@example.com"
    assert refresh not in cursor.run("status")


def test_a_sign_in_polls_and_reads_the_profile_through_the_given_proxy(
    sim: Simulator, home: Path
) -> None:
    """The sign-in goes the way rounds go: through cursor.proxy, not only the environment's."""
    host = MemoryHost(home)
    far, web = "http://cursor.invalid", "http://cursor-web.invalid"
    cmd = CursorCommand(host, far, web, pacing=FAST, proxy=sim.url)
    sim.auth.queue_poll("pending", "tokens")
    line = cmd.run("login")
    assert f"{web}/loginDeepControl?" in line
    assert cmd.signin.wait(60)
    assert host.said == ["cursor: signed in as person@example.com"]
    polls = sim.requests_to("/auth/poll")
    assert len(polls) == 2 and all(p.target.startswith(far + "/auth/poll?") for p in polls)
    [profile] = sim.requests_to("/api/auth/me")
    assert profile.target == web + "/api/auth/me"


def test_the_cells_command_signs_in_through_the_cursor_proxy_setting(
    sim: Simulator, home: Path
) -> None:
    from nodecode_cursor.cell import CursorCell

    far = "http://127.0.0.2"  # loopback, so http is allowed; nothing listens on its port 80
    host = MemoryHost(home, {"cursor": {"base_url": far, "web_url": far, "proxy": sim.url}})
    cell = CursorCell()
    assert cell.start(host)
    try:
        cmd = cell.commands["cursor"]
        cmd.signin.pacing = FAST
        sim.auth.queue_poll("tokens")
        cmd.run("login")
        assert cmd.signin.wait(60)
    finally:
        cell.stop()
    assert host.said == ["cursor: signed in as person@example.com"]
    assert [p.target.split("?")[0] for p in sim.requests_to("/auth/poll")] == [far + "/auth/poll"]
