"""How much the bundled catalog costs: first use, and importing the package.

Usage: python benchmarks/catalog.py

Two measurements, each a ratio against a baseline taken in the same run so the
machine's speed cancels out:

1. Loading the bundled rows (models.json and wire.json, into typed rows) and
   resolving every model x declared effort (plus off) once, against a plain
   ``json.load`` of the same two files. Each round clears the caches, so it is
   the cost a process pays on first use.
2. ``python -c "import nodecode_cursor"`` against ``python -c pass``, best of
   several subprocess runs; the import must not parse the catalog or pull in
   httpx, which the script checks in a child process too.

Only prints; it asserts nothing about speed. What the rows mean is routing.py's
and catalog.py's business.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from nodecode_cursor.models import catalog, routing  # noqa: E402

DATA = REPO / "nodecode_cursor" / "data"
ROUNDS = 30
IMPORT_RUNS = 15


def best_of(runs: int, work: Callable[[], object]) -> float:
    """Return the fastest of RUNS timings of WORK, in seconds."""
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        work()
        best = min(best, time.perf_counter() - start)
    return best


def plain_load() -> object:
    """Return both files parsed with json.load and nothing else: the baseline."""
    with (DATA / "models.json").open(encoding="utf-8") as models:
        first = json.load(models)
    with (DATA / "wire.json").open(encoding="utf-8") as wire:
        second = json.load(wire)
    return first, second


def cold_load() -> object:
    """Return the typed rows of both files, loaded from scratch."""
    routing._rows.cache_clear()
    catalog._models.cache_clear()
    return routing._rows(), catalog._models()


def resolve_all() -> int:
    """Return how many routes were resolved: every model x declared effort, plus off."""
    resolved = 0
    for row in catalog.bundled_models():
        for effort in (None, *row.efforts):
            wire = routing.wire_model_id(row.id, effort)
            routing.resolve_wire_model(row.id, wire)
            resolved += 1
    return resolved


def cold_resolve() -> int:
    """Return how many routes were resolved after loading the rows from scratch."""
    # Clear the caches so every round pays the load, as a fresh process does.
    cold_load()
    return resolve_all()


def import_time(code: str) -> float:
    """Return the best wall time of running ``python -c CODE``, in seconds."""
    command = [sys.executable, "-c", code]

    def run() -> None:
        """Run the command once (returns nothing)."""
        subprocess.run(command, check=True, cwd=REPO)

    return best_of(IMPORT_RUNS, run)


def line(label: str, seconds: float) -> None:
    """Print one timing, aligned."""
    print(f"{label + ':':<48}{seconds * 1e3:9.3f} ms")


def main() -> None:
    """Measure and print both ratios and a verdict."""
    routes = cold_resolve()
    baseline = best_of(ROUNDS, plain_load)
    typed = best_of(ROUNDS, cold_load)
    warm = best_of(ROUNDS, resolve_all)
    loaded = best_of(ROUNDS, cold_resolve)
    ratio = loaded / baseline
    line("baseline, json.load of models.json + wire.json", baseline)
    line("typed rows from both files, cold", typed)
    line(f"{routes} resolutions, rows already cached", warm)
    line(f"typed rows + {routes} resolutions, cold", loaded)
    print(f"ratio: {ratio:.2f}x the plain json.load ({typed / baseline:.2f}x for the rows alone)")

    probe = (
        "import sys, nodecode_cursor, nodecode_cursor.models.routing as r,"
        " nodecode_cursor.models.catalog as c;"
        "assert 'httpx' not in sys.modules, 'httpx imported';"
        "assert r._rows.cache_info().currsize == 0, 'wire.json parsed at import';"
        "assert c._models.cache_info().currsize == 0, 'models.json parsed at import'"
    )
    subprocess.run([sys.executable, "-c", probe], check=True, cwd=REPO)
    bare = import_time("pass")
    package = import_time("import nodecode_cursor")
    line("python -c pass", bare)
    line("python -c 'import nodecode_cursor'", package)
    print(f"import ratio: {package / bare:.2f}x; the catalog and httpx stay unloaded at import")

    # A round is a network call of hundreds of milliseconds; a few milliseconds
    # once per process is noise next to it, and so is a sub-1.5x import.
    cheap = loaded < 0.010 and package / bare < 1.5
    verdict = "cheap" if cheap else "worth a look"
    print(
        f"verdict: {verdict}: first use costs {loaded * 1e3:.1f} ms once per process "
        f"({ratio:.1f}x a bare json.load), importing adds {(package - bare) * 1e3:.1f} ms"
    )


if __name__ == "__main__":
    main()
