"""Start-up of the commands against a bare ``python -c pass``, each with a verdict.

Usage: python benchmarks/startup.py [runs]

Spawns, RUNS times each and interleaved: ``python -c pass``; ``python -c 'import
nodecode_cursor.cell'``; the installed ``nodecode-cursor --version``; and
``nodecode-cursor status`` in an empty home (not signed in, no network: status
reads the store and says so). Each child's CPU time (user + system, from
``os.wait4``) is taken, best of the runs, so other load on a shared machine costs
waiting for a core rather than the sample; the wall time is printed beside it.
The children may write bytecode (``PYTHONDONTWRITEBYTECODE`` is dropped) and one
untimed round runs first, so each module is read from its ``.pyc`` as from an
installed package, never compiled from source inside a sample.
Goals (issue 25): ``status`` and ``--version`` at most 4x bare Python,
``import nodecode_cursor.cell`` at most 1.5x. Also prints which heavy modules
``status`` loads that it does not run.

Detail (issue 37): what finding the cells costs a start-up. Two more children,
interleaved with the others, ask the two questions every start-up asks of the
installed distributions (the entry points of ``nodecode.cells``, and
``nodecode-cursor``'s version): one with ``importlib.metadata``, one with the
host's own ``nodecode_host/distributions.py``; the difference is what the host's
reader saves each start-up, printed beside ``status``'s own CPU.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CLI = Path(sys.executable).with_name("nodecode-cursor")
# Modules of other commands: `status` runs none of them.
NOT_STATUS = (
    "nodecode_host.http_server",
    "nodecode_host.routes",
    "nodecode_host.chat",
    "nodecode_host.host_tools",
    "nodecode_host.native_tools",
    "httpx",
    "h11",
    "h2",
    "asyncio",
    "importlib.metadata",
    "google.protobuf",
    "sqlite3",
    "filelock",
)


# The two questions a start-up asks of the installed distributions, through READER.
LOOKUPS = (
    "{reader}\n"
    "points = entry_points('nodecode.cells')\n"
    "assert any(p.name == 'cursor' for p in points), points\n"
    "assert version('nodecode-cursor')"
)
STDLIB_READER = (
    "import importlib.metadata as m\n"
    "entry_points = lambda group: m.entry_points(group=group)\nversion = m.version"
)
OUR_READER = "from nodecode_host.distributions import entry_points, version"
DISCOVERY_STDLIB = "find cells: importlib.metadata"
DISCOVERY_OURS = "find cells: distributions.py"


def spawn(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Return (CPU seconds, wall seconds) of running ARGV to its end."""
    start = time.perf_counter()
    child = subprocess.Popen(
        argv, env=env, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - start
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode != 0:
        raise SystemExit(f"{argv} exited {child.returncode}")
    return usage.ru_utime + usage.ru_stime, wall


def main() -> None:
    """Print each command's start-up against bare Python, with verdicts."""
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 15
    home = tempfile.mkdtemp(prefix="nodecode-startup-")
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("CURSOR_", "NODECODE_"))
        and k not in ("PYTHONPATH", "PYTHONDONTWRITEBYTECODE")
    }
    env["NODECODE_HOME"] = home
    cases = {
        "python -c pass": [sys.executable, "-c", "pass"],
        "import nodecode_cursor.cell": [sys.executable, "-c", "import nodecode_cursor.cell"],
        "nodecode-cursor --version": [str(CLI), "--version"],
        "nodecode-cursor status": [str(CLI), "status"],
        DISCOVERY_STDLIB: [sys.executable, "-c", LOOKUPS.format(reader=STDLIB_READER)],
        DISCOVERY_OURS: [sys.executable, "-c", LOOKUPS.format(reader=OUR_READER)],
    }
    for argv in cases.values():  # untimed: writes the bytecode a timed run then reads
        spawn(argv, env)
    best = {name: (float("inf"), float("inf")) for name in cases}
    for _ in range(runs):
        for name, argv in cases.items():
            cpu, wall = spawn(argv, env)
            best[name] = (min(best[name][0], cpu), min(best[name][1], wall))
    bare_cpu, bare_wall = best["python -c pass"]
    print(f"start-up: best of {runs}, CPU of each child (wall beside it), vs python -c pass")
    print(f"  machine load average at start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    ratios = {}
    for name, (cpu, wall) in best.items():
        ratios[name] = cpu / bare_cpu
        print(
            f"  {name:30} {cpu * 1e3:7.1f} ms CPU {ratios[name]:5.2f}x"
            f"   {wall * 1e3:7.1f} ms wall {wall / bare_wall:5.2f}x"
        )
    probe = (
        "import runpy, sys; sys.argv = ['nodecode-cursor', 'status'];"
        "\ntry:\n    runpy.run_module('nodecode_host.cli', run_name='__main__')"
        "\nexcept SystemExit:\n    pass"
        f"\nprint(','.join(m for m in {NOT_STATUS!r} if m in sys.modules), file=sys.stderr)"
    )
    loaded = (
        subprocess.run(
            [sys.executable, "-c", probe], env=env, cwd=REPO, capture_output=True, text=True
        )
        .stderr.strip()
        .splitlines()
    )
    extra = loaded[-1] if loaded else ""
    print(f"  modules status loads but does not run: {extra or 'none'}")
    saved = best[DISCOVERY_STDLIB][0] - best[DISCOVERY_OURS][0]
    status_cpu = best["nodecode-cursor status"][0]
    print(
        f"  distributions.py saves {saved * 1e3:.1f} ms CPU a start-up against"
        f" importlib.metadata: {saved / status_cpu:.0%} of status's"
        f" ({(status_cpu + saved) / bare_cpu:.2f}x python -c pass without it)"
    )
    for name, goal in (
        ("nodecode-cursor status", 4.0),
        ("nodecode-cursor --version", 4.0),
        ("import nodecode_cursor.cell", 1.5),
    ):
        ok = ratios[name] <= goal
        print(
            f"  verdict: {'PASS' if ok else 'FAIL'} — {name} {ratios[name]:.2f}x"
            f" python -c pass (goal <= {goal:g}x)"
        )


if __name__ == "__main__":
    main()
