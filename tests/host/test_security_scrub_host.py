"""An opaque key the service echoes reaches neither ``ask --json`` nor stderr (issue 12, item 7)."""

from __future__ import annotations

from pathlib import Path

from cli_run import cli_env, run_main

from cursor_simulator import Simulator
from cursor_simulator.steps import EndError, StepStarted

KEY = "crsr_feedc0ffee0123456789abcdef0123456789"


def test_an_echoed_api_key_is_scrubbed_from_ask_json_and_stderr(sim: Simulator, home: Path) -> None:
    env = cli_env(home, signed_out=True, CURSOR_API_KEY=KEY)
    for flags in (["--json"], []):
        sim.agent.script([StepStarted(), EndError("permission_denied", f"key {KEY} refused")])
        done = run_main("--base-url", sim.url, "ask", *flags, "--tools", "none", "hi", env=env)
        assert done.returncode == 1, done
        assert KEY not in done.stdout + done.stderr
        assert "[redacted]" in done.stdout + done.stderr
