"""The CLI's process as the cursor-agent lane drives it: its pipes, its exit, its closing.

``asyncio``'s own ``Process.wait()`` returns only once every pipe has closed,
so a background process the CLI left holding its stdout (a dev server it
started) would keep a finished turn waiting. ``AgentChild`` says when the
process itself exited (``exited``, from the protocol's ``process_exited``),
and ``close`` closes the transport, its pipes included, so no pipe is left to
be closed by the garbage collector after the event loop is gone (the
"Event loop is closed" traceback at exit). The prompt is handed to stdin's
transport, which writes it as the CLI reads: nothing waits on a CLI that never
reads. What to read, how long to wait and when to end the group are
``agent_lane.py``'s.
"""

from __future__ import annotations

import asyncio
import contextlib
from asyncio.subprocess import PIPE, Process, SubprocessStreamProtocol
from typing import Any

__all__ = ["AgentChild", "start_child"]

# What one read of a pipe may buffer before its reader is paused (asyncio's default).
_STREAM_LIMIT = 2**16


class _Protocol(SubprocessStreamProtocol):
    """The stream protocol of asyncio's ``Process``, which also says when the process exited."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        super().__init__(limit=_STREAM_LIMIT, loop=loop)
        self.exited: asyncio.Future[None] = loop.create_future()

    def process_exited(self) -> None:
        """Mark the process exited (its pipes may still be held by others); returns nothing."""
        super().process_exited()
        if not self.exited.done():
            self.exited.set_result(None)


class AgentChild:
    """One running CLI: its ``Process`` (streams, pid, returncode) and when it exited."""

    def __init__(
        self, process: Process, transport: asyncio.SubprocessTransport, exited: asyncio.Future[None]
    ) -> None:
        self.process = process
        self._transport = transport
        self.exited = exited

    @property
    def pid(self) -> int:
        """Return the process id (the guard's: the group's leader)."""
        return self.process.pid

    @property
    def returncode(self) -> int | None:
        """Return how the process ended (None: it still runs)."""
        return self.process.returncode

    def send(self, data: bytes) -> None:
        """Hand DATA to stdin and close it after; the loop writes it as the child reads."""
        pipe = self._transport.get_pipe_transport(0)
        if not isinstance(pipe, asyncio.WriteTransport) or pipe.is_closing():
            return
        with contextlib.suppress(OSError, RuntimeError):
            pipe.write(data)
            pipe.write_eof()

    def close(self) -> None:
        """Close the transport and every pipe at once, unread and unwritten bytes dropped."""
        stdin = self._transport.get_pipe_transport(0)
        # Closing with bytes left to write waits for a reader that may never come.
        if isinstance(stdin, asyncio.WriteTransport) and stdin.get_write_buffer_size():
            stdin.abort()
        self._transport.close()


async def start_child(argv: list[str], **options: Any) -> AgentChild:
    """Return ARGV started with piped stdin, stdout and stderr (OPTIONS as for subprocess_exec)."""
    loop = asyncio.get_running_loop()
    transport, protocol = await loop.subprocess_exec(
        lambda: _Protocol(loop), *argv, stdin=PIPE, stdout=PIPE, stderr=PIPE, **options
    )
    return AgentChild(Process(transport, protocol, loop), transport, protocol.exited)
