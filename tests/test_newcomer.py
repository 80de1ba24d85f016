"""The newcomer's path: the README's commands are the ones CI runs, and they work from a clone.

What is checked, and what is not (to stay cheap): the README's install and test
commands are word for word the ones ``.ci/run`` runs; ``tools/test.py`` on a
machine without ``node`` says what to install in one line and exits 2; and a
fresh ``git clone`` of this checkout in a temp folder runs the README's test
command (``tools/test.py``) far enough to collect the whole suite from the
clone's own files. The clone reuses this checkout's installed npm agents when
their lock matches (a symlink), and this interpreter's packages (pip's work is
not repeated); ``.ci/run`` itself runs the full install and suite on a fresh CI
machine.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TIMEOUT = 600


def readme_commands() -> list[str]:
    """Return the commands of the README's first two ``sh`` blocks (install+demo, tests)."""
    blocks = re.findall(r"```sh\n(.*?)```", (ROOT / "README.md").read_text("utf-8"), re.S)
    return [line.strip() for block in blocks[:2] for line in block.strip().splitlines()]


def test_the_readme_commands_are_the_ones_ci_runs() -> None:
    install, tests = readme_commands()
    assert install == (
        "python3 -m venv .venv && .venv/bin/pip install -e '.[test]' && "
        ".venv/bin/nodecode-cursor demo"
    )
    assert tests == ".venv/bin/python tools/test.py -q"
    ci = (ROOT / ".ci" / "run").read_text("utf-8")
    # .ci/run adds only --quiet to pip, and PYTHON picks python3 by default.
    assert 'PYTHON="${PYTHON:-python3}"' in ci
    assert '"$PYTHON" -m venv .venv\n' in ci
    assert ".venv/bin/pip install --quiet -e '.[test]'\n" in ci
    assert "\n.venv/bin/python tools/test.py -q || status=$?\n" in ci


def test_the_test_command_without_node_is_one_line_and_exit_2(tmp_path: Path) -> None:
    # A PATH holding only this Python's folder: no node, no npm.
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "python").symlink_to(sys.executable)
    env = {**os.environ, "PATH": str(bin_dir)}
    done = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "test.py"), "-q"],
        env=env,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr == (
        "tools/test.py: the serve tests drive coding agents installed from npm, and `node` "
        "was not found: install Node.js 20 or newer with npm (Debian/Ubuntu: apt-get install "
        "nodejs npm; macOS: brew install node), then run this command again\n"
    )


@pytest.mark.timeout(TIMEOUT)
def test_a_fresh_clone_runs_the_readme_test_command(tmp_path: Path) -> None:
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(clone)], check=True, timeout=TIMEOUT)
    done = subprocess.run(
        [sys.executable, "tools/test.py", "--collect-only", "-q", "-p", "no:cacheprovider"],
        cwd=clone,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    collected = re.search(r"^(\d+) tests collected", done.stdout, re.M)
    assert collected and int(collected.group(1)) > 1000, done.stdout[-500:]
    # The clone's own test files were collected (not this checkout's).
    assert "tests/host/test_cli_chat.py::" in done.stdout
    # Nothing was installed into the clone to collect it.
    assert not (clone / ".ci" / "node" / "node_modules").exists()
