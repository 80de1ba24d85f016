"""The cursor-agent lane against a stand-in CLI: a real subprocess per turn, real pipes.

The stand-in (tests/agent_standin/cursor-agent) replays recorded stream-json and
refuses (exit 64) when it was not given what the real CLI needs: the flags, the
key in its environment only, the whole prompt on a closed stdin, ``--resume``
exactly when expected. Each test reads back from its log what it was given.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import os
import select
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from standin import (
    API_KEY,
    FOLDER,
    VERSION,
    StandIn,
    ended,
    gone,
    pidfd,
    put_on_path,
    running_in_group,
)

from nodecode_cursor.cell import CursorCell
from nodecode_cursor.errors import ConfigError, CredentialError, ProviderError, StreamIncomplete
from nodecode_cursor.host import (
    Finish,
    MemoryHost,
    ResolvedCallResult,
    ResolvedCallStart,
    RoundContext,
    RoundResult,
    StreamPart,
    StreamStart,
    TextDelta,
)
from nodecode_cursor.lanes.agent_sessions import AgentSessions

STANDIN_BINARY = FOLDER / "cursor-agent"
SESSION = "chat-1"
FIRST_ID = "5f1c2a9e-0d3b-4c7a-9e21-6b8f0a1d2c3e"


@pytest.fixture
def standin(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> StandIn:
    return put_on_path(monkeypatch, tmp_path)


@pytest.fixture
def home(tmp_path: Path) -> Path:
    folder = tmp_path / "home"
    folder.mkdir()
    return folder


@pytest.fixture
def cell(home: Path) -> Iterator[CursorCell]:
    cell = CursorCell()
    assert cell.start(MemoryHost(home))
    yield cell
    cell.stop()


def ctx(
    text: str = "Write notes.txt then read it back",
    *,
    model: str = "cursor-agent/gpt-5.4",
    session: str | None = SESSION,
    parts: list[StreamPart] | None = None,
    cwd: Path | None = None,
    **more: object,
) -> RoundContext:
    """Return a round's context for one user message."""
    return RoundContext(
        model=model,
        messages=[{"role": "user", "content": text}],
        session_id=session,
        cwd=str(cwd) if cwd else None,
        on_part=parts.append if parts is not None else None,
        **more,  # type: ignore[arg-type]
    )


def run(cell: CursorCell, context: RoundContext) -> RoundResult:
    """Return the round on the cursor-agent lane."""
    return asyncio.run(cell.lanes["cursor-agent"](context))


def test_a_write_then_read_turn(
    cell: CursorCell, standin: StandIn, home: Path, tmp_path: Path
) -> None:
    standin.play("write_then_read.ndjson")
    parts: list[StreamPart] = []
    prompt = "Write notes.txt\nthen read it back"  # a multi-line prompt: stdin keeps it whole
    result = run(cell, ctx(prompt, parts=parts, cwd=tmp_path))

    (given,) = standin.runs()
    assert given["argv"] == [
        "-p", "--output-format", "stream-json", "--stream-partial-output", "--force", "--trust",
        "--model", "gpt-5.4",
    ]  # fmt: skip
    assert given["prompt"] == prompt
    assert given["cwd"] == str(tmp_path)
    assert not given["access_token_in_env"]
    assert isinstance(parts[0], StreamStart) and parts[0].model == "gpt-5.4"
    assert isinstance(parts[-1], Finish) and parts[-1].reason == "stop"
    assert [type(p) for p in parts if isinstance(p, ResolvedCallStart | ResolvedCallResult)] == [
        ResolvedCallStart, ResolvedCallResult, ResolvedCallStart, ResolvedCallResult,
    ]  # fmt: skip
    assert result.message["content"] == "Writing notes.txt.\n\nThe file says alpha and beta."
    assert "".join(p.text for p in parts if isinstance(p, TextDelta)) == result.message["content"]
    assert result.finish_reason == "stop" and result.wire_model == "gpt-5.4"
    assert [m["role"] for m in result.resolved] == ["assistant", "tool", "assistant", "tool"]
    assert result.resolved[1]["tool_call_id"] == "toolu_write_1"
    assert (result.usage.input, result.usage.output, result.usage.cache_read) == (1200, 80, 3000)
    # gpt-5.4's bundled rates: 2.5 in, 15 out, 0.25 cache read, per million tokens.
    assert result.cost_usd_estimate == pytest.approx((1200 * 2.5 + 80 * 15 + 3000 * 0.25) / 1e6)
    assert AgentSessions(home).get(SESSION) == FIRST_ID
    stored = home / "cursor-agent" / "sessions.json"
    assert stored.stat().st_mode & 0o777 == 0o600
    assert API_KEY not in stored.read_text()


def test_a_crsr_key_is_handed_to_the_cli_unchanged_and_never_exchanged(
    standin: StandIn, home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from cursor_simulator import Simulator

    key = "crsr_" + "0123456789abcdef" * 4
    monkeypatch.setenv("CURSOR_API_KEY", key)
    standin.play("write_then_read.ndjson")
    with Simulator() as sim:  # where the cell would exchange, if it did: it must not
        cell = CursorCell()
        assert cell.start(MemoryHost(home, {"cursor": {"base_url": sim.url}}))
        try:
            run(cell, ctx(cwd=tmp_path))
        finally:
            cell.stop()
        assert sim.requests == [] and sim.auth.exchanges == 0
    (given,) = standin.runs()
    # Cursor's CLI exchanges the key itself: it gets the key as it is, in its environment
    # only (the stand-in refuses a key on its command line).
    assert given["key_sha256"] == hashlib.sha256(key.encode()).hexdigest()
    assert not any(key in arg for arg in given["argv"])


def test_the_next_turn_resumes_and_sends_only_the_new_text(
    cell: CursorCell, standin: StandIn
) -> None:
    standin.play("write_then_read.ndjson")
    history = [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Write notes.txt then read it back"},
    ]
    first = run(
        cell, RoundContext(model="cursor-agent/gpt-5.4", messages=history, session_id=SESSION)
    )
    history += [first.message, {"role": "user", "content": "And now?"}]
    standin.play("write_then_read.ndjson", resume=FIRST_ID)
    run(cell, RoundContext(model="cursor-agent/gpt-5.4", messages=history, session_id=SESSION))
    one, two = standin.runs()
    assert one["prompt"].startswith("System instructions:\nBe brief.")
    assert two["argv"][-2:] == ["--resume", FIRST_ID]
    assert two["prompt"] == "And now?"


def test_a_turn_without_a_session_id_keeps_the_old_one(
    cell: CursorCell, standin: StandIn, home: Path
) -> None:
    standin.play("write_then_read.ndjson")
    run(cell, ctx())
    standin.play("no_session_id.ndjson", resume=FIRST_ID)
    assert run(cell, ctx("again")).message["content"] == "Still here."
    assert AgentSessions(home).get(SESSION) == FIRST_ID
    standin.play("write_then_read.ndjson", resume=FIRST_ID)
    run(cell, ctx("once more"))
    assert len(standin.runs()) == 3  # the stand-in refuses a missing or wrong --resume


def test_plain_text_is_salvaged_as_the_reply_keeping_the_session(
    cell: CursorCell, standin: StandIn, home: Path
) -> None:
    AgentSessions(home).keep(SESSION, "prior-session-1")
    standin.play("plain_text.txt", resume="prior-session-1")
    parts: list[StreamPart] = []
    result = run(cell, ctx(parts=parts))
    assert result.message["content"] == "The answer is 42.\nIt came from the notes."
    assert [p.text for p in parts if isinstance(p, TextDelta)] == [result.message["content"]]
    assert AgentSessions(home).get(SESSION) == "prior-session-1"
    assert result.cost_usd_estimate is None and result.usage.total == 0


def test_a_delivered_reply_wins_over_a_soft_error(
    cell: CursorCell, standin: StandIn, caplog: pytest.LogCaptureFixture
) -> None:
    standin.play("soft_error.ndjson")
    result = run(cell, ctx())
    assert result.message["content"] == "Here is the summary you asked for."
    assert "stream closed early by the service" in caplog.text


def test_an_error_without_an_answer_is_raised(cell: CursorCell, standin: StandIn) -> None:
    standin.play("error_only.ndjson")
    with pytest.raises(ProviderError, match="the model refused the request"):
        run(cell, ctx())


def test_malformed_lines_do_not_end_the_turn(cell: CursorCell, standin: StandIn) -> None:
    standin.play("malformed.ndjson")
    assert run(cell, ctx()).message["content"] == "Hello world"


def test_cancelling_the_round_ends_the_whole_process_group(
    cell: CursorCell, standin: StandIn, home: Path
) -> None:
    AgentSessions(home).keep(SESSION, FIRST_ID)
    standin.play("hang.ndjson", resume=FIRST_ID)
    parts: list[StreamPart] = []

    async def cancelled() -> None:
        streaming = asyncio.Event()

        def on_part(part: StreamPart) -> None:
            parts.append(part)
            if isinstance(part, TextDelta):
                streaming.set()

        context = ctx()
        context.on_part = on_part
        task = asyncio.create_task(cell.lanes["cursor-agent"](context))
        # The stand-in logged its run (and its grandchild) before it printed a word.
        await streaming.wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(cancelled())
    (given,) = standin.runs()
    assert gone(given["pid"]) and gone(given["child_pid"])
    assert [p.text for p in parts if isinstance(p, TextDelta)] == ["Working on it"]
    # The interrupted turn gave no result event: the session it began is not kept, the
    # previous one is (Omniscio's rule), so the next turn resumes what was whole.
    assert AgentSessions(home).get(SESSION) == FIRST_ID


def test_silence_past_the_timeout_stops_the_turn(cell: CursorCell, standin: StandIn) -> None:
    standin.play("hang.ndjson")
    # Long enough for the stand-in to start on a loaded machine, short for a test.
    with pytest.raises(StreamIncomplete, match=r"printed nothing for 2 s"):
        run(cell, ctx(request_timeout=2))
    (given,) = standin.runs()
    assert gone(given["pid"]) and gone(given["child_pid"])


def test_the_trust_gate_and_a_refused_key_say_what_happened(
    cell: CursorCell, standin: StandIn
) -> None:
    standin.play("trust_gate.txt")
    with pytest.raises(ProviderError, match="workspace is not trusted"):
        run(cell, ctx())
    standin.play("auth_refused.txt")
    with pytest.raises(CredentialError, match="refused the API key: Error: invalid API key"):
        run(cell, ctx())


def test_a_missing_cli_says_how_to_install_it(
    cell: CursorCell, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setenv("CURSOR_API_KEY", API_KEY)
    with pytest.raises(ConfigError, match=r"curl https://cursor\.com/install") as caught:
        run(cell, ctx())
    assert caught.value.code == "agent_missing"
    assert "neither agent nor cursor-agent is on the PATH" in str(caught.value)


def test_no_api_key_says_how_to_set_one(
    cell: CursorCell, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, home: Path
) -> None:
    standin = put_on_path(monkeypatch, tmp_path, key=False)
    standin.play("write_then_read.ndjson")
    with pytest.raises(ConfigError, match="set CURSOR_API_KEY") as caught:
        run(cell, ctx())
    assert caught.value.code == "no_api_key" and standin.runs() == []
    # A key a host's /connect saved is used, in the child's environment only.
    (home / "auth.json").write_text(json.dumps({"api_keys": {"cursor": {"key": API_KEY}}}))
    os.chmod(home / "auth.json", 0o600)
    assert run(cell, ctx()).message["content"]


def test_the_cursor_lane_takes_a_cursor_agent_model_and_the_lane_setting(
    standin: StandIn, home: Path
) -> None:
    standin.play("write_then_read.ndjson")
    plain = CursorCell()
    assert plain.start(MemoryHost(home))
    try:
        route = plain.route("cursor-agent/gpt-5.4", None)
        assert (route.model, route.wire_model, route.bundled) == (
            "cursor-agent/gpt-5.4",
            "gpt-5.4",
            True,
        )
        assert plain.route("cursor-agent/sonnet-4.5-thinking", "high").effort is None
        result = asyncio.run(plain.lanes["cursor"](ctx(model="cursor-agent/gpt-5.4")))
        assert result.wire_model == "gpt-5.4"
    finally:
        plain.stop()
    configured = CursorCell()
    config = {"cursor": {"lane": "cursor-agent", "agent_isolate_home": True}}
    monkeypatch_git = home / "gitconfig"
    monkeypatch_git.write_text("[user]\n\tname = Person\n")
    standin.monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(monkeypatch_git))
    assert configured.start(MemoryHost(home, config))
    try:
        assert configured.route("auto", None).wire_model == "auto"
        asyncio.run(configured.lanes["cursor"](ctx(model="auto", session=None)))
    finally:
        configured.stop()
    given = standin.runs()[-1]
    assert given["argv"][-2:] == ["--model", "auto"]  # no session: nothing to resume
    assert given["home"] == str(home / "cursor-agent" / "home")
    assert given["git_config_global"] == str(monkeypatch_git)


def test_a_bad_lane_setting_is_a_config_error(home: Path) -> None:
    with pytest.raises(ConfigError, match='"lane"'):
        CursorCell().start(MemoryHost(home, {"cursor": {"lane": "cli"}}))
    with pytest.raises(ConfigError, match='"agent_isolate_home"'):
        CursorCell().start(MemoryHost(home, {"cursor": {"agent_isolate_home": "yes"}}))


def test_status_names_the_cli_and_its_version(
    cell: CursorCell, standin: StandIn, monkeypatch: pytest.MonkeyPatch, home: Path, tmp_path: Path
) -> None:
    line = cell.commands["cursor"].run("status")
    assert line.endswith(f"; cursor-agent {VERSION} is on the PATH ({STANDIN_BINARY})")
    monkeypatch.setenv("PATH", str(tmp_path))
    absent = cell.commands["cursor"].run("status")
    assert absent.endswith(
        "; neither agent nor cursor-agent is on the PATH (the cursor-agent lane is unavailable)"
    )
    chosen = CursorCell()
    assert chosen.start(MemoryHost(home, {"cursor": {"lane": "cursor-agent"}}))
    try:
        assert "cursor-agent is on the PATH (install it with" in chosen.commands["cursor"].run(
            "status"
        )
    finally:
        chosen.stop()


# The binary: ``agent`` first, then ``cursor-agent``; a configured path wins ----------------


def named(folder: Path, name: str) -> Path:
    """Return a link called NAME in FOLDER to the stand-in (the CLI under another name)."""
    folder.mkdir(exist_ok=True)
    link = folder / name
    link.symlink_to(STANDIN_BINARY)
    return link


def test_agent_is_found_before_cursor_agent_and_named_in_every_message(
    cell: CursorCell, standin: StandIn, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    newer = named(tmp_path / "bin", "agent")
    monkeypatch.setenv("PATH", f"{newer.parent}{os.pathsep}{os.environ['PATH']}")
    standin.play("write_then_read.ndjson")
    run(cell, ctx())
    assert [r["binary"] for r in standin.runs()] == ["agent"]
    assert (
        cell.commands["cursor"]
        .run("status")
        .endswith(f"; agent {VERSION} is on the PATH ({newer})")
    )
    standin.play("trust_gate.txt")
    with pytest.raises(ProviderError, match=r"^agent refused to work in .*not trusted"):
        run(cell, ctx(session=None))
    standin.play("hang.ndjson")
    with pytest.raises(StreamIncomplete, match=r"^agent printed nothing for 2 s"):
        run(cell, ctx(session=None, request_timeout=2))


def test_a_configured_path_wins_over_both_names(
    standin: StandIn, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, home: Path
) -> None:
    monkeypatch.setenv("PATH", f"{named(tmp_path / 'bin', 'agent').parent}{os.pathsep}"
                       f"{os.environ['PATH']}")  # fmt: skip
    chosen = named(tmp_path / "opt", "my-cursor-cli")
    configured = CursorCell()
    assert configured.start(MemoryHost(home, {"cursor": {"agent_path": str(chosen)}}))
    try:
        standin.play("write_then_read.ndjson")
        run(configured, ctx())
        assert (
            configured.commands["cursor"]
            .run("status")
            .endswith(f"; my-cursor-cli {VERSION} is on cursor.agent_path ({chosen})")
        )
    finally:
        configured.stop()
    assert [r["binary"] for r in standin.runs()] == ["my-cursor-cli"]
    missing = CursorCell()
    absent = str(tmp_path / "nowhere" / "agent")
    assert missing.start(MemoryHost(home, {"cursor": {"agent_path": absent}}))
    try:
        with pytest.raises(ConfigError, match=r"cursor\.agent_path") as caught:
            run(missing, ctx())
        assert caught.value.code == "agent_missing" and absent in str(caught.value)
    finally:
        missing.stop()


# The session rules: only a result event moves the stored --resume id -------------------------


def test_a_failed_turn_keeps_the_previous_session(
    cell: CursorCell, standin: StandIn, home: Path
) -> None:
    AgentSessions(home).keep(SESSION, FIRST_ID)
    standin.play("error_only.ndjson", resume=FIRST_ID)  # its result names another session
    with pytest.raises(ProviderError, match="the model refused the request"):
        run(cell, ctx())
    assert AgentSessions(home).get(SESSION) == FIRST_ID


def test_a_turn_cut_before_its_result_keeps_no_new_session(
    cell: CursorCell, standin: StandIn, home: Path
) -> None:
    standin.play("hang.ndjson")  # init names a session, then silence: no result event
    with pytest.raises(StreamIncomplete):
        run(cell, ctx(request_timeout=2))
    assert AgentSessions(home).get(SESSION) is None


# The CLI dies with its host ---------------------------------------------------------------

HOST_SCRIPT = """
import asyncio, sys
from pathlib import Path
from nodecode_cursor.cell import CursorCell
from nodecode_cursor.host import MemoryHost, RoundContext, TextDelta

def streaming(part):
    if isinstance(part, TextDelta):  # the CLI runs and has started its child: say so
        print("streaming", flush=True)

cell = CursorCell()
cell.start(MemoryHost(Path(sys.argv[1])))
context = RoundContext(
    model="cursor-agent/auto", messages=[{"role": "user", "content": "go"}], on_part=streaming
)
asyncio.run(cell.lanes["cursor-agent"](context))
"""


def test_a_host_killed_outright_leaves_nothing_of_the_clis_group_running(
    standin: StandIn, home: Path
) -> None:
    # The CLI streams a little, starts a child that would sleep ten minutes, then hangs.
    standin.play("hang.ndjson")
    env = {**standin.env(), "CURSOR_API_KEY": API_KEY, "NODECODE_HOME": str(home)}
    host = subprocess.Popen(
        [sys.executable, "-c", HOST_SCRIPT, str(home)],
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    group: int | None = None
    try:
        assert host.stdout is not None
        ready, _, _ = select.select([host.stdout], [], [], 30)
        assert ready and host.stdout.readline() == b"streaming\n"
        (given,) = standin.runs()
        group = int(given["pgid"])
        # The CLI, its child and the group's leader (the guard), watched while they run:
        # a pid reused later cannot pass for one of them.
        cli, child = pidfd(int(given["pid"])), pidfd(int(given["child_pid"]))
        leader = pidfd(group)
        assert group != host.pid and os.getpgid(int(given["child_pid"])) == group
        assert sorted(running_in_group(group)) == sorted(
            {group, int(given["pid"]), int(given["child_pid"])}
        )
        host.send_signal(signal.SIGKILL)  # no handler, no atexit, no finally runs
        host.wait(60)
        assert ended(cli, within=10), "the CLI outlived its host"
        assert ended(child, within=10), "what the CLI started outlived the host"
        assert ended(leader, within=10)
        assert running_in_group(group) == []  # nothing else of the CLI's group runs
    finally:
        if host.poll() is None:
            host.kill()
            host.wait()
        if host.stdout is not None:
            host.stdout.close()
        if group is not None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(group, signal.SIGKILL)  # whatever is left of its group


def test_the_active_account_gives_its_key_when_it_is_an_api_key(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, home: Path
) -> None:
    standin = put_on_path(monkeypatch, tmp_path, key=False)
    standin.play("write_then_read.ndjson")
    key = "crsr_" + "fedcba9876543210" * 4
    browser = {"access_token": "a.b.c", "refresh_token": "r", "expires_at": 4e9}
    kept = {"access_token": key, "refresh_token": key, "expires_at": 253402300799.0}
    auth = home / "auth.json"
    # A browser sign-in active: its token is no key the CLI takes, as before.
    auth.write_text(json.dumps({"oauth_tokens": {"cursor": browser}}))
    os.chmod(auth, 0o600)
    cell = CursorCell()
    assert cell.start(MemoryHost(home))
    try:
        with pytest.raises(ConfigError, match="browser sign-in is not accepted"):
            run(cell, ctx())
        # The key kept as the active account (login --api-key) is the CLI's key.
        auth.write_text(json.dumps({"oauth_tokens": {"cursor": {**kept, "email": "k@x.com"}}}))
        assert run(cell, ctx()).message["content"]
    finally:
        cell.stop()
    (given,) = standin.runs()
    assert given["key_sha256"] == hashlib.sha256(key.encode()).hexdigest()
