"""The ``cursor-agent`` lane: one round is one run of Cursor's own CLI, a subprocess per turn.

For hosts that have only a Cursor API key, or want the exact behaviour of
Cursor's official agent (its own tools, rules and sandbox), the round runs
``cursor-agent -p --output-format stream-json --stream-partial-output --force
--trust [--model M] [--resume ID]`` in the round's working folder:

* the prompt (``agent_prompt.py``) goes on stdin, whole and then closed: never on
  the command line, where a multi-line prompt is cut, and an open stdin makes the
  CLI wait for input. The loop writes it as the CLI reads, while stdout is read
  (``agent_child.py``): a CLI that never reads it is stopped by the idle timeout;
* the API key goes in the child's environment as ``CURSOR_API_KEY``, never in its
  arguments: ``CURSOR_API_KEY`` from the environment, else the key a host's
  ``/connect`` saved, else the active account when it is an API key kept as one
  (``login --add --api-key``). A browser sign-in's token is not a key the CLI's
  headless mode accepts;
* the CLI is ``agent`` (its name since 2026), else ``cursor-agent`` (the older
  name some installs still have), on the PATH, unless ``cursor.agent_path`` names
  one (``agent_cli.py`` finds it); every message names the binary found;
* the CLI's session id is kept per host session on disk (``agent_sessions.py``)
  and passed back as ``--resume``: only a turn that ended with a result event and
  succeeded changes it; an interrupted or failed turn keeps the previous one;
* stdout is read line by line (``agent_stream.py``) into stream parts; the CLI's
  own tool calls come back as resolved calls (``RoundResult.resolved``), never as
  calls for the host to run. The answer (text, thinking, calls) stops at
  ``cursor.max_reply_bytes`` (``reply_too_large``). Every wait is bounded: once the
  CLI exits its output is read for a short grace and no longer (a background
  process it left may hold stdout open for ever), and a CLI whose stdout ended gets
  as short a grace to exit before its group is ended; the answer is kept;
* a CLI that exits cleanly having printed no stream-json is answered with its
  plain output (salvage); a turn that delivered answer text is a success even
  when its result says ``is_error`` (the cause goes to the log);
* the child runs in a process group of its own, and the whole group is ended when
  the round ends, fails or is cancelled, and when the host's interpreter exits with
  a round still running. The CLI runs under a guard (``agent_guard.py``), the
  group's leader, that holds one end of a pipe from the host: when the host dies,
  even killed outright (SIGKILL), the pipe reads end of file and the guard kills
  the whole group, the CLI and all it started there. The guard passes the CLI's
  exit status or signal through unchanged;
* the usage is priced at the bundled rows' rates (``cost.py``), an estimate.

``HOME`` isolation (the ``agent_isolate_home`` setting) runs the CLI with an empty
managed home under the host's, keeping the git identity through
``GIT_CONFIG_GLOBAL``, so the person's Claude Code hooks (which the CLI imports
from ``~/.claude``) cannot block its tools.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import logging
import os
import signal
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import limits
from ..account.store import AuthStore
from ..core.cost import round_cost
from ..errors import (
    ConfigError,
    CredentialError,
    ProviderError,
    StoreError,
    StreamIncomplete,
    scrub,
)
from ..host import (
    Finish,
    RoundContext,
    RoundResult,
    StreamPart,
    StreamStart,
    TextDelta,
    Usage,
    default_home,
)
from .agent_child import AgentChild, start_child
from .agent_cli import (
    AGENT_BINARIES,
    AGENT_BINARY,
    AGENT_PREFIX,
    INSTALL_HINT,
    LANE,
    agent_model,
    agent_status_line,
    agent_version,
    find_agent,
    locate_agent,
    missing_words,
)
from .agent_cli import named as _named
from .agent_prompt import build_prompt
from .agent_sessions import AgentSessions
from .agent_stream import AgentStream

if TYPE_CHECKING:
    from asyncio.subprocess import Process

__all__ = [
    "AGENT_BINARIES",
    "AGENT_BINARY",
    "AGENT_PREFIX",
    "ENV_API_KEY",
    "INSTALL_HINT",
    "LANE",
    "agent_argv",
    "agent_model",
    "agent_status_line",
    "agent_version",
    "find_agent",
    "stream_agent_round",
]

log = logging.getLogger("nodecode_cursor.lanes.agent_lane")

# The process between the host and the CLI that ends the CLI's group when the host dies.
_GUARD = Path(__file__).with_name("agent_guard.py")
ENV_API_KEY = "CURSOR_API_KEY"
# The CLI's own words when it stops at the headless workspace-trust gate.
_TRUST_WORDS = ("workspace trust", "trust required")
_AUTH_WORDS = ("api key", "not logged in", "unauthorized", "unauthenticated", "authentication")
# The secrets a host holds that the child never needs: the cell's own bearer, the
# refresh token, serve's client key. The CLI runs whatever the model asks with
# --force, so every command it runs would inherit them.
_DROPPED_ENV = frozenset(
    {"CURSOR_ACCESS_TOKEN", "CURSOR_REFRESH_TOKEN", "CURSOR_AUTH_TOKEN", "NODECODE_SERVE_API_KEY"}
)
# Any other variable of ours or of Cursor's named like a secret goes too (CURSOR_API_KEY,
# the one the CLI needs, is set after).
_SECRET_WORDS = ("KEY", "TOKEN", "SECRET", "PASSWORD", "CREDENTIAL")
_READ_SIZE = 65536
# The exit status a CLI that closed its stdout and did not exit is settled with.
_LINGERED = 0


def agent_argv(binary: str, model: str | None, resume: str | None) -> list[str]:
    """Return the command line of one turn (never the prompt, never the key)."""
    argv = [binary, "-p", "--output-format", "stream-json", "--stream-partial-output"]
    argv += ["--force", "--trust"]
    if model:
        argv += ["--model", model]
    if resume:
        argv += ["--resume", resume]
    return argv


def _api_key(home: Path) -> str:
    """Return the API key the CLI gets; ConfigError saying how to set one when there is none."""
    key = os.environ.get(ENV_API_KEY, "").strip()
    if key:
        return key
    store = AuthStore(home)
    saved = store.api_key()
    if saved:
        return saved
    active = store.entry()
    if active is not None and active.access_token.startswith("crsr_"):
        return active.access_token  # the active account is an API key (key_account.py)
    howto = (
        "set CURSOR_API_KEY to a key from cursor.com/dashboard (Integrations → API keys), "
        "or save one with /connect"
    )
    if store.entry() is not None:
        raise ConfigError(
            f"the cursor-agent lane needs a Cursor API key; the browser sign-in is not "
            f"accepted by the CLI's headless mode: {howto}",
            code="no_api_key",
        )
    raise ConfigError(f"the cursor-agent lane needs a Cursor API key: {howto}", code="no_api_key")


def _child_env(key: str, isolated_home: Path | None) -> dict[str, str]:
    """Return the child's environment: ours, with the key set and the host's other secrets out."""
    env = {k: v for k, v in os.environ.items() if not _host_secret(k)}
    env[ENV_API_KEY] = key
    if isolated_home is not None:
        git_config = _git_config()
        isolated_home.mkdir(parents=True, exist_ok=True, mode=0o700)
        env["HOME"] = str(isolated_home)
        if git_config is not None:
            env["GIT_CONFIG_GLOBAL"] = str(git_config)
    return env


def _host_secret(name: str) -> bool:
    """Return whether the variable NAME holds a secret of the host's the CLI must not get."""
    if name in _DROPPED_ENV:
        return True
    ours = name.upper().startswith(("CURSOR_", "NODECODE_"))
    return ours and any(word in name.upper() for word in _SECRET_WORDS)


def _git_config() -> Path | None:
    """Return the person's global git config file (their commit identity), or None."""
    given = os.environ.get("GIT_CONFIG_GLOBAL")
    if given:
        return Path(given)
    xdg = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    for candidate in (Path.home() / ".gitconfig", Path(xdg) / "git" / "config"):
        if candidate.is_file():
            return candidate
    return None


class _Tail:
    """The last bytes of a stream, for an error line."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.data = bytearray()

    def add(self, chunk: bytes) -> None:
        """Keep CHUNK, dropping what falls out of the tail (returns nothing)."""
        self.data += chunk
        if len(self.data) > self.size:
            del self.data[: len(self.data) - self.size]

    def lines(self, secret: str, count: int = 3) -> str:
        """Return the last COUNT non-empty lines as one line, SECRET and credentials redacted."""
        text = self.data.decode("utf-8", errors="replace")
        kept = [line.strip() for line in text.splitlines() if line.strip()][-count:]
        line = " | ".join(kept)
        if secret:
            line = line.replace(secret, "[redacted]")
        return scrub(line[:400])


# Process groups of CLIs still running, ended when the interpreter exits with a round in
# flight (a host leaving without cancelling its task). Process-wide by nature: atexit is.
_RUNNING_GROUPS: set[int] = set()


@atexit.register
def _end_running_groups() -> None:
    """End every CLI process group a round left running (returns nothing)."""
    for group in list(_RUNNING_GROUPS):
        _signal_group(group, signal.SIGKILL)
    _RUNNING_GROUPS.clear()


def _guarded(argv: list[str], watch: int) -> list[str]:
    """Return the command running ARGV under the guard (``agent_guard.py``) watching WATCH.

    The guard is a second interpreter of the host's own Python, isolated (``-I``)
    and without ``site`` (``-S``): it needs the standard library only, and starts in
    a few milliseconds.
    """
    return [sys.executable, "-I", "-S", str(_GUARD), str(watch), "--", *argv]


async def stream_agent_round(
    ctx: RoundContext,
    *,
    isolate_home: bool = False,
    agent_path: str | None = None,
    max_reply_bytes: int = limits.MAX_REPLY_BYTES,
) -> RoundResult:
    """Return one round run by ``cursor-agent``: its answer, resolved calls, usage and cost.

    Stream parts go to ``ctx.on_part`` as the CLI prints (StreamStart first, Finish
    last). Raises ConfigError (the CLI is missing, no API key, nothing to send),
    CredentialError (the CLI refused the key), ProviderError (the CLI failed without
    an answer) or StreamIncomplete (it went silent). Cancelling the task ends the
    CLI's whole process group; the text streamed so far is the host's to keep.
    """
    model = agent_model(ctx.model)
    home = ctx.host.home if ctx.host is not None else default_home()
    # In a thread: telling an unknown ``agent`` from Cursor's may run it (once a process).
    located = await asyncio.to_thread(locate_agent, agent_path)
    binary = located.path
    if binary is None:
        missing = missing_words(located, agent_path)
        if not agent_path:
            missing = f"Cursor's CLI is not installed: {missing}"
        raise ConfigError(f"{missing}: {INSTALL_HINT}", code="agent_missing")
    name = _named(binary)
    key = _api_key(home)
    sessions = AgentSessions(home) if ctx.session_id else None
    prior = await _kept_session(sessions, ctx.session_id)
    prompt = build_prompt(ctx.messages, ctx.system, resumed=prior is not None)
    if not prompt:
        raise ConfigError(f"nothing to send to {name}: the history ends without a new message")
    argv = agent_argv(binary, model, prior)
    env = _child_env(key, home / "cursor-agent" / "home" if isolate_home else None)
    cwd = ctx.cwd or os.getcwd()
    emit: Callable[[StreamPart], None] = ctx.on_part or (lambda part: None)
    idle = ctx.request_timeout or limits.AGENT_IDLE_TIMEOUT_SECONDS
    log.debug("%s turn: model %s, resume %s, cwd %s", name, model or "-", prior or "-", cwd)
    stream = AgentStream()
    stderr = _Tail(limits.AGENT_STDERR_TAIL_BYTES)
    # The guard holds the read end; the host's write end closes when the host dies.
    watch, host_end = os.pipe()
    try:
        child = await start_child(
            _guarded(argv, watch),
            cwd=cwd,
            env=env,
            start_new_session=True,  # its own process group: ended whole with the round
            pass_fds=(watch,),
        )
    except BaseException as exc:
        os.close(host_end)  # a guard that did start ends its group at once
        if isinstance(exc, OSError):
            raise ProviderError(f"could not start {name}: {exc.strerror or exc}") from None
        raise
    finally:
        os.close(watch)
    _RUNNING_GROUPS.add(child.pid)
    drain = asyncio.create_task(_drain(child.process, stderr))
    try:
        emit(StreamStart(model))
        # Written by the loop as the CLI reads, while stdout is read: a CLI that never
        # reads its prompt is stopped by the idle timeout like one that prints nothing.
        child.send(prompt.encode("utf-8"))
        await _read(child, stream, emit, idle, name, max_reply_bytes)
        returncode = await _exit_status(child, name)
    finally:
        try:
            await _end_group(child)
            _RUNNING_GROUPS.discard(child.pid)
            os.close(host_end)  # the group is gone: the guard (if it still ran) ends nothing
            # stderr's end is bounded too: a process outside the group may hold it open.
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(drain), limits.AGENT_READ_AFTER_EXIT_SECONDS)
        finally:
            drain.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await drain
            child.close()
    _settle(stream, returncode, stderr, key, emit, cwd, name)
    # Only a turn that ended with its result, and did not fail, moves the session on.
    _keep_session(sessions, ctx.session_id, stream.end.session_id if stream.end else None)
    usage = stream.end.usage if stream.end is not None else None
    emit(Finish("stop"))
    message = stream.message()
    resolved = stream.resolved_messages()
    return RoundResult(
        message=message,
        usage=usage or Usage(),
        finish_reason="stop",
        wire_model=model,
        resolved=resolved,
        cost_usd_estimate=round_cost(model, usage) if usage is not None else None,
        # The CLI's calls, already run, then its answer: what the round adds to a history.
        messages=[*resolved, message],
    )


async def _kept_session(sessions: AgentSessions | None, host_session: str | None) -> str | None:
    """Return the CLI session kept for HOST_SESSION (None: none, or the table is unreadable)."""
    if sessions is None or host_session is None:
        return None
    try:
        return await asyncio.to_thread(sessions.get, host_session)
    except (OSError, StoreError) as exc:
        log.warning("the cursor-agent session table could not be read: %s", exc)
        return None


def _keep_session(
    sessions: AgentSessions | None, host_session: str | None, cli_session: str | None
) -> None:
    """Keep CLI_SESSION (a result event's) for HOST_SESSION (an empty one leaves the old id)."""
    if sessions is None or host_session is None:
        return
    try:
        sessions.keep(host_session, cli_session)
    except OSError as exc:
        log.warning("the cursor-agent session id could not be kept: %s", exc)


async def _drain(process: Process, tail: _Tail) -> None:
    """Read the child's stderr to its end, keeping its tail (returns nothing)."""
    if process.stderr is None:  # pragma: no cover - created with stderr=PIPE
        return
    while chunk := await process.stderr.read(_READ_SIZE):
        tail.add(chunk)


async def _read(
    child: AgentChild,
    stream: AgentStream,
    emit: Callable[[StreamPart], None],
    idle: float,
    name: str,
    cap: int,
) -> None:
    """Feed stdout to STREAM a line at a time, emitting parts, until it ends or the CLI is done.

    Raises StreamIncomplete when the CLI prints nothing for IDLE seconds, and the
    ``reply_too_large`` ProviderError when the answer passes CAP bytes. Once the
    CLI has exited, what it printed is read for at most
    ``limits.AGENT_READ_AFTER_EXIT_SECONDS`` more: a background process it left
    (a dev server) may hold its stdout open for ever, and the turn is over.
    """
    reader = child.process.stdout
    if reader is None:  # pragma: no cover - created with stdout=PIPE
        return
    loop = asyncio.get_running_loop()
    lines = _Lines(stream, emit, cap, name)
    until: float | None = None  # when reading stops, once the CLI has exited
    while True:
        if until is None and child.exited.done():
            until = loop.time() + limits.AGENT_READ_AFTER_EXIT_SECONDS
        wait = idle if until is None else min(idle, until - loop.time())
        if wait <= 0:
            log.info("%s exited; what it left running holds its output: reading stopped", name)
            break
        read = asyncio.ensure_future(reader.read(_READ_SIZE))
        watched: set[asyncio.Future[Any]] = {read}
        if until is None:
            watched.add(child.exited)
        try:
            await asyncio.wait(watched, timeout=wait, return_when=asyncio.FIRST_COMPLETED)
        finally:
            if not read.done():
                read.cancel()  # a read cancelled while waiting loses no bytes
                with contextlib.suppress(asyncio.CancelledError):
                    await read
        if not read.done() or read.cancelled():
            if child.exited.done():
                continue  # the CLI exited: read on for the grace, no longer
            raise StreamIncomplete(f"{name} printed nothing for {idle:g} s; the turn was stopped")
        chunk = read.result()
        if not chunk:
            break
        lines.feed(chunk)
    lines.end()


class _Lines:
    """Stdout cut into lines for the stream, an over-long line dropped, the answer capped."""

    def __init__(
        self, stream: AgentStream, emit: Callable[[StreamPart], None], cap: int, name: str
    ) -> None:
        self.stream, self.emit, self.cap, self.name = stream, emit, cap, name
        self.pending = bytearray()
        self.dropping = False  # inside a line already over the size bound

    def feed(self, chunk: bytes) -> None:
        """Hand every whole line of CHUNK (after what came before) to the stream (no return)."""
        pending = self.pending
        pending += chunk
        start = 0
        while (end := pending.find(b"\n", start)) >= 0:
            line = bytes(pending[start:end])
            start = end + 1
            if self.dropping:
                self.dropping = False
                continue
            self._line(line)
        del pending[:start]
        if len(pending) > limits.AGENT_MAX_LINE_BYTES:
            pending.clear()
            if not self.dropping:
                self.stream.note_overlong_line()
            self.dropping = True

    def end(self) -> None:
        """Hand the last line, if stdout ended without a line break (returns nothing)."""
        if self.pending and not self.dropping:
            self._line(bytes(self.pending))
        self.pending.clear()

    def _line(self, line: bytes) -> None:
        """Feed LINE, emitting its parts; ProviderError when the answer passed the cap."""
        parts = self.stream.feed(line)
        if self.stream.reply_bytes > self.cap:
            raise ProviderError(
                f"{self.name}'s answer passed {self.cap} bytes of text, thinking and tool "
                "calls (cursor.max_reply_bytes); the turn was stopped",
                code="reply_too_large",
            )
        for part in parts:
            self.emit(part)


async def _exit_status(child: AgentChild, name: str) -> int:
    """Return the CLI's exit status, waiting a short grace for it after its stdout ended.

    A CLI that closed its stdout and lingers is ended with its group and settled as
    if it had exited cleanly: what it printed decides (an answer is kept, a turn
    without one fails as any other).
    """
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(asyncio.shield(child.exited), limits.AGENT_EXIT_AFTER_EOF_SECONDS)
    if child.returncode is not None:
        return child.returncode
    log.info("%s closed its output and did not exit; it was stopped", name)
    return _LINGERED


async def _end_group(child: AgentChild) -> None:
    """End the child's whole process group: SIGTERM, a grace period, then SIGKILL (no raise)."""
    group = child.pid
    if child.returncode is None:
        _signal_group(group, signal.SIGTERM)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(child.exited), limits.AGENT_KILL_GRACE_SECONDS)
    # Whatever the CLI started (a shell tool, a server) is in its group: none outlives it.
    _signal_group(group, signal.SIGKILL)
    if child.returncode is None:
        with contextlib.suppress(ProcessLookupError):
            child.process.kill()
        # SIGKILL cannot be refused: the exit is reported at once (bounded all the same).
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(child.exited), limits.AGENT_KILL_GRACE_SECONDS)


def _signal_group(group: int, signum: int) -> None:
    """Send SIGNUM to the process group GROUP; a group already gone is fine (returns nothing)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(group, signum)


def _settle(
    stream: AgentStream,
    returncode: int,
    stderr: _Tail,
    key: str,
    emit: Callable[[StreamPart], None],
    cwd: str,
    name: str,
) -> None:
    """Decide how the finished turn ends: returns when it answered, raises when it did not."""
    answered = bool(stream.text.strip())
    end = stream.end
    if end is None and not stream.recognized:
        salvage = stream.salvage()
        if returncode == 0 and salvage:
            # The CLI answered in plain text instead of stream-json: keep the answer.
            log.info("%s printed no stream-json; its plain output is the reply", name)
            stream.text = salvage
            emit(TextDelta(salvage))
            return
        raise _failure(stream, returncode, stderr, key, cwd, name)
    if end is None:
        if returncode != 0 or not (answered or stream.calls):
            raise _failure(stream, returncode, stderr, key, cwd, name)
        log.info("%s ended without a result event; keeping its answer", name)
        return
    if end.is_error:
        cause = scrub(end.text.replace(key, "[redacted]")) if key else scrub(end.text)
        if answered:
            # The reply was delivered: a soft error after it is the log's business.
            log.warning("%s flagged an error after answering: %s", name, cause or end.subtype)
            return
        detail = cause or stderr.lines(key) or end.subtype
        raise ProviderError(f"{name} could not complete the turn: {detail}")
    if returncode != 0:
        log.info("%s exited with status %d after a successful result", name, returncode)
    if not answered and end.text.strip():
        # No text streamed, yet the result carries the answer: that is the reply.
        stream.text = end.text
        emit(TextDelta(end.text))


def _failure(
    stream: AgentStream, returncode: int, stderr: _Tail, key: str, cwd: str, name: str
) -> Exception:
    """Return the error a turn without an answer ends with, worded for the person."""
    said = " | ".join(part for part in (stderr.lines(key), _plain_tail(stream, key)) if part)
    lowered = said.lower()
    if any(words in lowered for words in _TRUST_WORDS):
        return ProviderError(
            f"{name} refused to work in {cwd}: the workspace is not trusted ({said})"
        )
    if returncode != 0 and any(words in lowered for words in _AUTH_WORDS):
        return CredentialError(
            f"{name} refused the API key: {said} (check CURSOR_API_KEY or the key saved "
            "with /connect)"
        )
    if returncode != 0:
        because = f": {said}" if said else ""
        return ProviderError(f"{name} exited with status {returncode}{because}")
    return ProviderError(f"{name} ended without an answer" + (f": {said}" if said else ""))


def _plain_tail(stream: AgentStream, key: str) -> str:
    """Return the last non-stream-json lines the CLI printed on stdout, redacted."""
    tail = _Tail(limits.AGENT_STDERR_TAIL_BYTES)
    tail.add("\n".join(stream.plain[-5:]).encode("utf-8"))
    return tail.lines(key)
