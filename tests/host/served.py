"""``serve`` in-process for tests: the API on a loop of its own in a thread, Cursor the simulator.

``served(sim, home, …)`` starts a real ReferenceHost whose cell points at the
simulator (the Cursor token comes from CURSOR_ACCESS_TOKEN through the cell's own
credential ladder) and ``serve`` on a free loopback port; leaving the block
stops both. The real clients in tests/host/test_serve_*.py talk to its ``url``.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from cursor_simulator import Simulator
from nodecode_host.refhost import ReferenceHost
from nodecode_host.routes import ApiServer, serve

TOKEN = "sim-token-serve-clients-secret"


class RunningServer:
    """The API served by ``serve`` on a loop of its own in a thread; ``stop`` cancels it."""

    def __init__(
        self, host: ReferenceHost, *, api_key: str | None = None, allow_agent_lane: bool = False
    ) -> None:
        self.host = host
        self.api_key = api_key
        self.allow_agent_lane = allow_agent_lane
        self.server: ApiServer | None = None
        self.failure: BaseException | None = None
        self._ready = threading.Event()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._task: asyncio.Task[None] | None = None
        self._thread = threading.Thread(target=self._run, name="serve-clients")

    def _run(self) -> None:
        try:
            asyncio.run(self._main())
        except BaseException as exc:
            self.failure = exc
            self._ready.set()

    async def _main(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._task = asyncio.current_task()  # type: ignore[assignment]

        def ready(server: ApiServer) -> None:
            self.server = server
            self._ready.set()

        with contextlib.suppress(asyncio.CancelledError):
            # Only an opt-in is passed: serve's own default is what the other tests hold.
            opt_in = {"allow_agent_lane": True} if self.allow_agent_lane else {}
            await serve(self.host, port=0, api_key=self.api_key, ready=ready, **opt_in)

    def start(self) -> RunningServer:
        self._thread.start()
        assert self._ready.wait(60), "the server did not start"
        assert self.failure is None, self.failure
        return self

    @property
    def url(self) -> str:
        """The base URL, ``http://127.0.0.1:PORT/v1``."""
        assert self.server is not None
        return self.server.url

    @property
    def root(self) -> str:
        """The server's root URL, without ``/v1`` (what Anthropic's clients take)."""
        return self.url.removesuffix("/v1")

    def stop(self) -> None:
        if self._loop is not None and self._task is not None:
            self._loop.call_soon_threadsafe(self._task.cancel)
        self._thread.join(60)
        assert not self._thread.is_alive()


@contextlib.contextmanager
def served(
    sim: Simulator,
    home: Path,
    monkeypatch: pytest.MonkeyPatch,
    *,
    api_key: str | None = None,
    config: Mapping[str, Any] | None = None,
) -> Iterator[RunningServer]:
    """Yield ``serve`` running over a ReferenceHost on SIM; CONFIG is written to config.json."""
    monkeypatch.setenv("CURSOR_ACCESS_TOKEN", TOKEN)
    monkeypatch.delenv("CURSOR_API_KEY", raising=False)
    if config:
        import json

        (home / "config.json").write_text(json.dumps(config))
    reference = ReferenceHost(home, overrides={"cursor": {"base_url": sim.url}}, say=lambda _: None)
    reference.start()
    try:
        running = RunningServer(reference, api_key=api_key).start()
        try:
            yield running
        finally:
            running.stop()
    finally:
        reference.stop()
