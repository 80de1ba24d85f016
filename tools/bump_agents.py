"""Bump the test agents pinned in ``.ci/node`` to the registry's current releases, in one command.

``.venv/bin/python tools/bump_agents.py`` asks the npm registry (``npm view NAME
version``, through npm and its configured registry) for the current release of each
dependency in ``.ci/node/package.json``, pins those exact versions, regenerates
``package-lock.json`` and checks that ``npm ci`` accepts it. ``node`` (Node.js from the
registry, which the agents run on) stays on its major line: its newest ``22.x``, not a
new major, since the agents' ``engines`` name the major. ``--dry-run`` prints what
would change and writes nothing. ``tools/test.py`` installs the new lock on its next run.

Some platform packages an agent lists as optional (opencode's binaries for other
systems, qwen-code's clipboard helpers) are absent from some registries or mirrors:
npm then leaves them out of the lock but keeps the edge to them, and ``npm ci``
refuses such a lock ("Missing: … from lock file"). Those dangling optional edges are
dropped from the lock, so the lock lists exactly what this registry serves.

It leaves running the tests to ``tools/test.py`` and installs nothing itself.
"""

from __future__ import annotations

import argparse
import json
import posixpath
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
PREFIX = ROOT / ".ci" / "node"
MANIFEST = PREFIX / "package.json"
LOCK = PREFIX / "package-lock.json"
# Pins that follow a major line rather than the registry's latest: Node.js from npm.
SAME_MAJOR = ("node",)


def npm(*args: str) -> str:
    """Return npm's standard output for ARGS run in .ci/node; raise when npm fails."""
    done = subprocess.run(["npm", *args], cwd=PREFIX, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"npm {' '.join(args)} failed:\n{done.stderr.strip()}")
    return done.stdout


def current_version(name: str, pinned: str) -> str:
    """Return the registry's current release of NAME (on PINNED's major line for SAME_MAJOR)."""
    if name not in SAME_MAJOR:
        return str(json.loads(npm("view", name, "version", "--json")))
    major = pinned.split(".", 1)[0]
    found = json.loads(npm("view", f"{name}@{major}", "version", "--json"))
    versions = found if isinstance(found, list) else [found]
    return max((str(v) for v in versions), key=lambda v: tuple(int(p) for p in v.split(".")))


def _resolves(packages: dict[str, Any], where: str, name: str) -> bool:
    """Return whether NAME required from the package at WHERE resolves to an entry of the lock."""
    place = where
    while True:
        candidate = posixpath.join(place, "node_modules", name) if place else f"node_modules/{name}"
        if candidate in packages:
            return True
        if not place:
            return False
        cut = place.rfind("node_modules/")
        place = place[:cut].rstrip("/") if cut > 0 else ""


def prune_dangling_optionals(lock: dict[str, Any]) -> list[str]:
    """Drop optional edges to packages the lock does not hold; return them as "from -> name"."""
    packages: dict[str, Any] = lock["packages"]
    dropped = []
    for where, entry in packages.items():
        optional = entry.get("optionalDependencies")
        if not optional:
            continue
        for name in list(optional):
            if not _resolves(packages, where, name):
                del optional[name]
                dropped.append(f"{where or '(root)'} -> {name}")
    return dropped


def main(argv: list[str]) -> int:
    """Return 0 once the pins and the lock are bumped (or, with --dry-run, shown)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--dry-run", action="store_true", help="show the bumps, write nothing")
    args = parser.parse_args(argv)

    manifest = json.loads(MANIFEST.read_text(encoding="utf-8"))
    pins: dict[str, str] = manifest["dependencies"]
    bumped = {name: current_version(name, pinned) for name, pinned in pins.items()}
    for name, version in bumped.items():
        mark = "" if version == pins[name] else f"  (was {pins[name]})"
        print(f"{name} {version}{mark}")
    if args.dry_run:
        return 0

    manifest["dependencies"] = dict(sorted(bumped.items()))
    MANIFEST.write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    LOCK.unlink(missing_ok=True)
    # The lock alone: npm resolves the whole tree from the registry, installs nothing.
    npm("install", "--package-lock-only", "--no-audit", "--no-fund", "--loglevel=error")
    lock = json.loads(LOCK.read_text(encoding="utf-8"))
    for edge in prune_dangling_optionals(lock):
        print(f"not on this registry, left out of the lock: {edge}")
    LOCK.write_text(json.dumps(lock, indent=2) + "\n", encoding="utf-8")
    npm("ci", "--dry-run", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error")
    print("bumped .ci/node/package.json and package-lock.json; tools/test.py installs them")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
