"""A logout that cannot write fails and says the tokens are still on disk (issue 12, item 10)."""

from __future__ import annotations

import json
import os
import resource
import shutil
import subprocess
import tempfile
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


def test_a_logout_in_a_folder_it_cannot_write_says_where_the_sign_in_stays() -> None:
    # Not under pytest's own temp folder, which only root may enter.
    home = Path(tempfile.mkdtemp(prefix="nodecode-logout-"))
    entry = {"access_token": "a" * 40, "refresh_token": "r" * 40, "expires_at": time.time() + 3600}
    (home / "auth.json").write_text(json.dumps({"oauth_tokens": {"cursor": entry}}))
    (home / "auth.json.lock").touch()
    (home / "auth.json").chmod(0o600)
    home.chmod(0o500)  # the file and its lock can be opened; nothing new can be made beside

    # Root writes anywhere: as root the run keeps its user (so it still reads the checkout
    # and the interpreter wherever they live) but loses the capability that overrides a
    # folder's mode (setpriv, util-linux), so the owner's r-x on the home holds for it too.
    as_root = os.geteuid() == 0
    drop = ["setpriv", "--bounding-set=-dac_override,-fowner", "--"]
    try:
        done = subprocess.run(
            [*(drop if as_root else []), *CLI, "logout"],
            env=cli_env(home, signed_out=True, HOME=str(home)),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=RUN_TIMEOUT,
        )
    finally:
        home.chmod(0o700)
        kept = (home / "auth.json").read_text()
        shutil.rmtree(home)
    assert done.returncode == 1, done
    assert "internal error" not in done.stderr and "Traceback" not in done.stderr, done.stderr
    assert done.stderr.count("\n") == 1, done.stderr
    assert f"still on disk in {home / 'auth.json'}" in done.stderr, done.stderr
    assert "remove" in done.stderr
    assert json.loads(kept)["oauth_tokens"]["cursor"] == entry
