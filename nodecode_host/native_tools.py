"""The reference host's runner of Cursor's own tools, run in place while the run waits.

``NativeTools`` is what the host hands a round as ``run_native`` (with its
``kinds`` as ``native_kinds``): each ``NativeCall`` the service asks for mid-run
is carried out by the host's own tools in ``host_tools.HostTools``, with their
confinement and bounds: ``read`` → ``read_file``, ``ls`` → ``list_directory``,
``grep`` → ``search_files``, ``glob`` → the same walk search uses, ``write`` /
``edit`` / ``delete`` → ``write_file`` / ``edit_file`` / ``delete_file``, and
``shell`` → a command run as ``run_command`` runs it. Commands and every write,
edit and delete need the person's yes (asked on the terminal while the run
waits, ``ask_on_terminal``) unless ``--yes``; with nobody to ask they are refused.

Cancelling the round cancels the call: a command's whole process group is
stopped and a question on the terminal is withdrawn. What the cell makes of an
outcome (Cursor's typed results, the record) is the cell's business.
"""

from __future__ import annotations

import asyncio
import contextlib
import fnmatch
import os
import re
import select
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import contract
from . import limits as host_limits
from .host_tools import HostTools
from .setup import command_question
from .terminal_text import has_hidden, visible
from .tool_files import Change, walk
from .tool_shell import HeadTail, child_environment
from .toolbox import Toolbox, ToolRefused, bound_output

if TYPE_CHECKING:
    from nodecode_cursor.host import NativeCall, NativeOutcome

__all__ = ["AskPerson", "NativeTools", "ask_on_terminal", "runner_for"]

# Asks the person QUESTION; returns their yes, or False once STOP is set.
AskPerson = Callable[[str, threading.Event], bool]

_MATCH_LINE = re.compile(r"^(.*?):(\d+): (.*)$")


def ask_on_terminal(question: str, stop: threading.Event) -> bool:
    """Return whether the person answers QUESTION with yes on the terminal (False when STOP)."""
    sys.stdout.write(question)
    sys.stdout.flush()
    while not stop.is_set():
        try:
            ready, _, _ = select.select([sys.stdin], [], [], 0.1)
        except (OSError, ValueError):
            return False
        if ready:
            line = sys.stdin.readline()
            return line.strip().lower() in ("y", "yes")
    return False


def runner_for(tools: Toolbox, *, assume_yes: bool, interactive: bool) -> NativeTools:
    """Return the runner of Cursor's own tools on TOOLS (the host's own set when TOOLS are not).

    INTERACTIVE: the person is asked on the terminal; else commands and writes need --yes.
    """
    if isinstance(tools, HostTools):
        host_tools = tools
    else:
        host_tools = HostTools(Path.cwd(), assume_yes=assume_yes)
    return NativeTools(host_tools, ask=ask_on_terminal if interactive else None)


class NativeTools:
    """Runs Cursor's native calls on the host's own tools (a ``RoundContext.run_native``)."""

    kinds = frozenset({"read", "ls", "grep", "glob", "shell", "write", "edit", "delete"})

    def __init__(self, tools: HostTools, *, ask: AskPerson | None = None) -> None:
        self.tools = tools
        # None: nobody can be asked, so commands and writes are refused (unless --yes).
        self.ask = ask

    async def __call__(self, call: NativeCall) -> NativeOutcome:
        """Return the outcome of CALL, run with the host's tools (cancelling stops it)."""
        outcome = contract.NativeOutcome
        try:
            if call.kind == "shell":
                return await self._shell(call)
            if call.kind in ("write", "edit", "delete"):
                # Checked once, shown as it will be acted on, then acted on as checked.
                change = self.tools.change(call.path, call.kind)
                await self._allowed(_question(call, change), always=change.asks)
                return await asyncio.to_thread(self._change, call, change)
            return await asyncio.to_thread(self._run, call)
        except ToolRefused as exc:
            return outcome.refused(str(exc))
        except OSError as exc:
            where = f": {exc.filename}" if exc.filename else ""
            return outcome.failed(f"{exc.strerror or exc}{where}")
        except UnicodeDecodeError:
            return outcome.failed(f"{call.path} is not UTF-8 text")

    async def _allowed(self, question: str, *, always: str | None = None) -> None:
        """Return once the person allowed QUESTION (or --yes); raise ToolRefused when not.

        ALWAYS says why this one needs the person's yes even under --yes.
        """
        if self.tools.assume_yes and always is None:
            return
        if self.ask is None:
            if always is not None:
                raise ToolRefused(
                    f"this is {always}: it needs the person's confirmation even with --yes, "
                    "and nobody can be asked"
                )
            raise ToolRefused(
                "this needs the person's confirmation and nobody can be asked "
                "(run with --yes to allow it)"
            )
        stop = threading.Event()
        try:
            allowed = await asyncio.to_thread(self.ask, question, stop)
        finally:
            stop.set()  # a cancelled round withdraws the question
        if not allowed:
            raise ToolRefused("the person declined")

    def _run(self, call: NativeCall) -> NativeOutcome:
        """Return the outcome of a file call (blocking: run it in a worker thread)."""
        outcome = contract.NativeOutcome
        tools = self.tools
        if call.kind == "read":
            args: dict[str, Any] = {"path": call.path}
            if call.offset is not None:
                args["start_line"] = max(1, call.offset)
            if call.limit is not None:
                args["end_line"] = max(1, call.offset or 1) + max(1, call.limit) - 1
            text = tools.read_file(args)
            size = tools._path(call.path, "read_file").stat().st_size
            whole = call.offset is None and call.limit is None
            shown = bound_output(text)
            return outcome.done(
                shown,
                content=shown,
                file_size=size,
                total_lines=len(text.splitlines()) if whole else None,
                truncated=shown != text,
            )
        if call.kind == "ls":
            text = tools.list_directory({"path": call.path or "."})
            lines = text.splitlines()
            more = bool(lines) and lines[-1].startswith("… and ")
            entries = tuple(lines[:-1] if more else lines)
            if len(lines) == 1 and text.endswith(" is empty"):
                entries = ()
            if call.limit is not None and len(entries) > call.limit:
                entries, more = entries[: call.limit], True
            return outcome.done("\n".join(entries) or text, entries=entries, truncated=more)
        if call.kind == "grep":
            pattern = f"(?i){call.pattern}" if call.case_insensitive else call.pattern
            args = {"pattern": pattern, "path": call.path or "."}
            if call.glob:
                args["include"] = call.glob
            text = tools.search_files(args)
            matches: list[tuple[str, int, str]] = []
            stopped = False
            for line in text.splitlines():
                found = _MATCH_LINE.match(line)
                if found is not None:
                    matches.append((found.group(1), int(found.group(2)), found.group(3)))
                elif line.startswith("… stopped at"):
                    stopped = True
            if call.limit is not None and len(matches) > call.limit:
                matches, stopped = matches[: call.limit], True
            return outcome.done(bound_output(text), matches=tuple(matches), truncated=stopped)
        if call.kind == "glob":
            return self._glob(call)
        return outcome.refused(f"the host does not run {call.kind}")

    def _change(self, call: NativeCall, change: Change) -> NativeOutcome:
        """Return the outcome of a write, edit or delete, acted on as CHANGE was checked."""
        outcome = contract.NativeOutcome
        tools = self.tools
        if call.kind == "write":
            text = tools.write_file({"path": call.path, "content": call.content}, change)
            return outcome.done(text, file_size=len(call.content.encode("utf-8")))
        if call.kind == "edit":
            edits = [{"old_text": old, "new_text": new} for old, new in call.edits]
            return outcome.done(tools.edit_file({"path": call.path, "edits": edits}, change))
        deleted = tools.delete(change)
        return outcome.done(
            deleted.text, file_size=deleted.size, content=bound_output(deleted.before)
        )

    def _glob(self, call: NativeCall) -> NativeOutcome:
        """Return the files under the call's path whose path matches its glob pattern."""
        tools = self.tools
        if not call.pattern:
            raise ToolRefused("pattern must be a non-empty glob")
        base = tools._path(call.path or ".", "search_files")
        cap = min(call.limit or host_limits.LIST_MAX_ENTRIES, host_limits.LIST_MAX_ENTRIES)
        found: list[str] = []
        more = False
        # The same rule as search: secret places are never listed.
        for file in walk(base, None if tools.assume_yes else tools.root, tools.secrets):
            relative = str(file.relative_to(base)) if file.is_relative_to(base) else str(file)
            pattern = call.pattern
            if fnmatch.fnmatch(relative, pattern) or (
                "/" not in pattern and fnmatch.fnmatch(file.name, pattern)
            ):
                if len(found) >= cap:
                    more = True
                    break
                found.append(tools._shown(file))
        text = "\n".join(found) if found else "no files match"
        return contract.NativeOutcome.done(text, entries=tuple(found), truncated=more)

    async def _shell(self, call: NativeCall) -> NativeOutcome:
        """Return the outcome of a command, after the person allowed it (stopped if cancelled)."""
        outcome = contract.NativeOutcome
        command = call.command
        if not command.strip():
            raise ToolRefused("command must be a non-empty string")
        if "\0" in command:
            raise ToolRefused("command holds a NUL character, which no shell can take")
        cwd = self.tools._path(call.cwd or ".", "run_command")
        timeout = min(
            call.timeout or self.tools.command_timeout, host_limits.COMMAND_MAX_TIMEOUT_SECONDS
        )
        # Where it runs, when not the folder's root: `rm -rf ./*` means something else there.
        where = None if cwd == self.tools.root else self.tools._shown(cwd)
        await self._allowed(command_question(command, where=where))
        started = time.monotonic()
        # A session of its own: a timeout or a cancelled round stops its children too.
        # The child gets the host's environment without the cell's secrets.
        process = await asyncio.create_subprocess_shell(
            command,
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
            env=child_environment(),
        )
        # Only a bounded head and tail of each stream is kept, whatever the command prints.
        out = HeadTail(host_limits.COMMAND_OUTPUT_HEAD_BYTES, host_limits.COMMAND_OUTPUT_TAIL_BYTES)
        err = HeadTail(host_limits.COMMAND_OUTPUT_HEAD_BYTES, host_limits.COMMAND_OUTPUT_TAIL_BYTES)
        assert process.stdout is not None and process.stderr is not None
        readers = asyncio.gather(_drain(process.stdout, out), _drain(process.stderr, err))
        try:
            async with asyncio.timeout(timeout):
                await readers
                await process.wait()
        except TimeoutError:
            await _stop(process, readers)
            said = out.text() + err.text()
            return outcome.failed(bound_output(f"stopped after {timeout:g} s (timeout)\n{said}"))
        except BaseException:
            await _stop(process, readers)
            raise
        stdout = bound_output(out.text())
        stderr = bound_output(err.text())
        code = process.returncode if process.returncode is not None else -1
        return outcome.done(
            f"exit code {code}\n{stdout}{stderr}",
            exit_code=code,
            stdout=stdout,
            stderr=stderr,
            duration_ms=int((time.monotonic() - started) * 1000),
        )


async def _drain(stream: asyncio.StreamReader, sink: HeadTail) -> None:
    """Read STREAM to its end into SINK (which keeps a bounded head and tail)."""
    while chunk := await stream.read(65536):
        sink.add(chunk)


async def _stop(process: asyncio.subprocess.Process, readers: asyncio.Future[Any]) -> None:
    """Kill PROCESS's whole group and stop reading it, without waiting on a held pipe."""
    _kill_group(process.pid)
    readers.cancel()
    with contextlib.suppress(asyncio.CancelledError, Exception):
        await readers
    # The leader is gone; a child that left the session may still hold the pipes, so
    # the host waits for the leader alone, and briefly.
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(host_limits.COMMAND_REAP_SECONDS):
            await process.wait()


def _question(call: NativeCall, change: Change) -> str:
    """Return what the person is asked before a write, an edit or a delete.

    It names the file as it will be acted on (relative to the folder), and says
    when that goes through a link, leaves the folder or reaches ``.git/``.
    """
    path = visible(change.shown, lines=False)  # the model chose it: shown, never interpreted
    if call.kind == "write":
        asked = f"write {path} ({len(call.content.encode('utf-8'))} bytes)"
    elif call.kind == "edit":
        asked = f"edit {path} ({len(call.edits)} change(s))"
    else:
        asked = f"delete {path}"
    notes = [visible(note, lines=False) for note in change.notes]
    if change.asks is not None:
        notes.append(visible(change.asks, lines=False))
    if has_hidden(call.path) or has_hidden(change.shown):
        notes.append("the path holds non-printing characters, shown as \\x.. or \\u....")
    said = "".join(f"\n  ({note})" for note in notes)
    return f"{asked}?{said}\n[y/N] " if said else f"{asked}? [y/N] "


def _kill_group(pid: int) -> None:
    """Stop the process PID leads and everything it started."""
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
