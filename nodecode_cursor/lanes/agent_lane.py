"""The ``cursor-agent`` lane: one round is one run of Cursor's own CLI, a subprocess per turn.

For hosts that have only a Cursor API key, or want the exact behaviour of
Cursor's official agent (its own tools, rules and sandbox), the round runs
``cursor-agent -p --output-format stream-json --stream-partial-output --force
--trust [--model M] [--resume ID]`` in the round's working folder:

* the prompt (``agent_prompt.py``) goes on stdin, written whole and then closed:
  never on the command line, where a multi-line prompt is cut, and an open stdin
  makes the CLI wait for input;
* the API key goes in the child's environment as ``CURSOR_API_KEY``, never in its
  arguments: ``CURSOR_API_KEY`` from the environment, else the key a host's
  ``/connect`` saved. A browser sign-in's token is not a key the CLI's headless
  mode accepts;
* the CLI is ``agent`` (its name since 2026), else ``cursor-agent`` (the older
  name some installs still have), on the PATH, unless ``cursor.agent_path`` names
  one (``agent_cli.py`` finds it); every message names the binary found;
* the CLI's session id is kept per host session on disk (``agent_sessions.py``)
  and passed back as ``--resume``: only a turn that ended with a result event and
  succeeded changes it; an interrupted or failed turn keeps the previous one;
* stdout is read line by line (``agent_stream.py``) into stream parts; the CLI's
  own tool calls come back as resolved calls (``RoundResult.resolved``), never as
  calls for the host to run;
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
from typing import TYPE_CHECKING

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
    ctx: RoundContext, *, isolate_home: bool = False, agent_path: str | None = None
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
        process = await asyncio.create_subprocess_exec(
            *_guarded(argv, watch),
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
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
    _RUNNING_GROUPS.add(process.pid)
    drain = asyncio.create_task(_drain(process, stderr))
    try:
        emit(StreamStart(model))
        await _send(process, prompt)
        await _read(process, stream, emit, idle, name)
        returncode = await process.wait()
        await drain
    finally:
        await _end_group(process)
        _RUNNING_GROUPS.discard(process.pid)
        os.close(host_end)  # the group is gone: the guard (if it still ran) ends nothing more
        drain.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await drain
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


async def _send(process: Process, prompt: str) -> None:
    """Write PROMPT to the child's stdin as UTF-8 and close it (EOF ends its input)."""
    stdin = process.stdin
    if stdin is None:  # pragma: no cover - created with stdin=PIPE
        return
    try:
        stdin.write(prompt.encode("utf-8"))
        await stdin.drain()
    except (BrokenPipeError, ConnectionResetError):
        log.debug("the CLI closed its stdin before the prompt was written")
    finally:
        stdin.close()
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            await stdin.wait_closed()


async def _drain(process: Process, tail: _Tail) -> None:
    """Read the child's stderr to its end, keeping its tail (returns nothing)."""
    if process.stderr is None:  # pragma: no cover - created with stderr=PIPE
        return
    while chunk := await process.stderr.read(_READ_SIZE):
        tail.add(chunk)


async def _read(
    process: Process,
    stream: AgentStream,
    emit: Callable[[StreamPart], None],
    idle: float,
    name: str,
) -> None:
    """Feed stdout to STREAM a line at a time, emitting parts; StreamIncomplete on silence."""
    reader = process.stdout
    if reader is None:  # pragma: no cover - created with stdout=PIPE
        return
    pending = bytearray()
    dropping = False  # inside a line already over the size bound
    while True:
        try:
            chunk = await asyncio.wait_for(reader.read(_READ_SIZE), idle)
        except TimeoutError:
            raise StreamIncomplete(
                f"{name} printed nothing for {idle:g} s; the turn was stopped"
            ) from None
        if not chunk:
            break
        pending += chunk
        while (end := pending.find(b"\n")) >= 0:
            line = bytes(pending[:end])
            del pending[: end + 1]
            if dropping:
                dropping = False
                continue
            for part in stream.feed(line):
                emit(part)
        if len(pending) > limits.AGENT_MAX_LINE_BYTES:
            pending.clear()
            if not dropping:
                stream.note_overlong_line()
            dropping = True
    if pending and not dropping:
        for part in stream.feed(bytes(pending)):
            emit(part)


async def _end_group(process: Process) -> None:
    """End the child's whole process group: SIGTERM, a grace period, then SIGKILL (no raise)."""
    group = process.pid
    if process.returncode is None:
        _signal_group(group, signal.SIGTERM)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(process.wait(), limits.AGENT_KILL_GRACE_SECONDS)
    # Whatever the CLI started (a shell tool, a server) is in its group: none outlives it.
    _signal_group(group, signal.SIGKILL)
    if process.returncode is None:
        with contextlib.suppress(ProcessLookupError):
            process.kill()
        await process.wait()


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
