"""A logout that cannot write fails and says the tokens are still on disk (issue 12, item 10)."""

from __future__ import annotations

import json
import resource
import subprocess
import time
from pathlib import Path

from cli_run import CLI, RUN_TIMEOUT, cli_env


def test_a_logout_that_cannot_write_exits_non_zero(home: Path) -> None:
    entry = {"access_token": "a" * 40, "refresh_token": "r" * 40, "expires_at": time.time() + 3600}
    (home / "auth.json").write_text(json.dumps({"oauth_tokens": {"cursor": entry}}))

    def no_room() -> None:
        # Any file write past 16 bytes fails (EFBIG): reads still work, writes cannot.
        resource.setrlimit(resource.RLIMIT_FSIZE, (16, 16))

    done = subprocess.run(
        [*CLI, "logout"],
        env=cli_env(home, signed_out=True),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT,
        preexec_fn=no_room,
    )
    assert done.returncode != 0, done
    assert "still on disk" in done.stderr
    assert "signed out" not in done.stdout
    assert json.loads((home / "auth.json").read_text())["oauth_tokens"]["cursor"] == entry
