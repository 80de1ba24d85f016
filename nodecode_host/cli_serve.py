"""``serve``'s command: the API server started from a shell, and its refusals before it listens.

It reads the client key from ``NODECODE_SERVE_API_KEY`` (never argv), refuses to
listen beyond loopback without one or to serve the ``cursor-agent`` lane
without one, starts the host, says where it serves, and runs the server until
Ctrl-C or SIGTERM. The server itself is ``routes.py``'s (the routes) over
``http_server.py``'s (connections, the gate, the deadlines).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import sys
from typing import TYPE_CHECKING

from .errors import HostConfigError
from .names import PROVIDER

if TYPE_CHECKING:
    from .routes import ApiServer

__all__ = ["cmd_serve"]


def cmd_serve(args: argparse.Namespace) -> int:
    """Serve the OpenAI-compatible API on ``args.host``:``args.port`` until Ctrl-C or SIGTERM.

    The client key comes from NODECODE_SERVE_API_KEY only (never argv: secrets
    do not belong in a process listing). Listening beyond loopback without one is
    refused: it would lend the Cursor account to the whole network.
    """
    import asyncio

    from .http_server import DEFAULT_LISTEN_HOST, DEFAULT_PORT, authority, loopback
    from .routes import API_KEY_ENV, serve
    from .setup import make_host

    listen_host = str(getattr(args, "host", None) or DEFAULT_LISTEN_HOST)
    port = int(getattr(args, "port", None) or DEFAULT_PORT)
    api_key = os.environ.get(API_KEY_ENV, "").strip() or None
    if not loopback(listen_host) and api_key is None:
        raise HostConfigError(
            f"refusing to listen on {listen_host} without a client key: set {API_KEY_ENV} "
            "(or listen on 127.0.0.1)"
        )
    allow_agent_lane = bool(getattr(args, "allow_agent_lane", False))
    if allow_agent_lane and api_key is None:
        raise HostConfigError(
            f"--allow-agent-lane lets clients run commands as you: set {API_KEY_ENV} to a "
            "client key first, so only your own clients can"
        )
    host = make_host(args)
    try:
        host.lane(PROVIDER)  # not installed or disabled: say so before listening

        def announce(server: ApiServer) -> None:
            where = "loopback only" if loopback(listen_host) else "reachable from the network"
            key = f"clients must send {API_KEY_ENV}" if api_key else "no client key required"
            print(
                f"nodecode-cursor: serving Cursor's models at {server.url} ({where}; {key}). "
                "Ctrl-C stops.",
                file=sys.stderr,
                flush=True,
            )

        async def run() -> None:
            task = asyncio.current_task()
            if task is not None:
                # SIGTERM (a service manager stopping us) ends the server as Ctrl-C does.
                with contextlib.suppress(NotImplementedError, RuntimeError):
                    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, task.cancel)
            with contextlib.suppress(asyncio.CancelledError):
                await serve(
                    host,
                    listen_host=listen_host,
                    port=port,
                    api_key=api_key,
                    allowed_origins=tuple(getattr(args, "allow_origin", None) or ()),
                    allow_agent_lane=allow_agent_lane,
                    ready=announce,
                )
            print("nodecode-cursor: stopped", file=sys.stderr)

        try:
            asyncio.run(run())
        except KeyboardInterrupt:
            print("nodecode-cursor: stopped", file=sys.stderr)
        except OSError as exc:
            raise HostConfigError(
                f"cannot listen on {authority(listen_host, port)}: {exc.strerror or exc}"
            ) from None
    finally:
        host.stop()
    return 0
