"""The three packages import each other in one direction only, and the pure core does no I/O.

``nodecode_cursor`` (the cell) is the bottom: it imports neither the reference
host nor the simulator. The simulator (``cursor_simulator``) borrows only the
cell's protocol modules, so it stays a stand-in for Cursor rather than a copy
of the cell. The reference host (``nodecode_host``) speaks to the cell only
through what any host may use: ``host``, ``errors``, ``cell`` and the package
itself (for ``__version__``). Inside the cell, the sans-I/O core (framing,
values, history, request, fold, answers, routing, ...) imports no network,
thread, process or event-loop module, so it can be tested byte for byte.

The checker reads every import statement with ``ast`` — at top level, inside
functions, under ``TYPE_CHECKING`` — and resolves relative imports to absolute
module names; the last tests run it on a small synthetic tree to show that each
rule does report a forbidden import. No module reaches itself through others
(``cycles``), counting those same imports: a deferred import hides a cycle from
Python, not from a reader. And no module of the three packages is over 600 lines
(``long_modules``; code generated from ``proto/`` aside): a module that long has
more than one job (issue 37).
"""

from __future__ import annotations

import ast
import builtins
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("nodecode_cursor", "nodecode_host", "cursor_simulator")

# The cell's sans-I/O core and the cell modules it may lean on (themselves free of I/O).
PURE_CORE = (
    # Whole subpackages: the wire's encodings and the round's pure core.
    "wire",
    "core",
    # And the pure modules of the others.
    "models.routing",
    "models.catalog",
    "models.variants",
    "transports.http1",
    "lanes.agent_stream",
    "lanes.agent_prompt",
)
CORE_SUPPORT = ("_proto", "errors", "limits", "host", "contract")
IO_MODULES = ("httpx", "asyncio", "threading", "socket", "h11", "subprocess")


@dataclass(frozen=True)
class Rule:
    """Modules under IMPORTERS may import nothing under TARGETS except the ALLOWED children.

    ``allowed`` is None when the targets are forbidden outright; otherwise it names
    the modules or subpackages below the target that may be imported, by their dotted
    name below it ("" is the target package itself, e.g. ``from nodecode_cursor import
    __version__``; ``"core"`` allows every module of ``nodecode_cursor.core``).
    """

    name: str
    importers: tuple[str, ...]
    targets: tuple[str, ...]
    allowed: frozenset[str] | None = None


def _within(module: str, prefixes: tuple[str, ...]) -> bool:
    """Return whether MODULE is one of PREFIXES or lies below one of them."""
    return any(module == p or module.startswith(p + ".") for p in prefixes)


CELL_IS_THE_BOTTOM = Rule(
    "the cell imports neither the host nor the simulator",
    ("nodecode_cursor",),
    ("nodecode_host", "cursor_simulator"),
)
SIMULATOR_NEVER_IMPORTS_HOST = Rule(
    "the simulator never imports the host", ("cursor_simulator",), ("nodecode_host",)
)
SIMULATOR_BORROWS_ONLY_PROTOCOL = Rule(
    "the simulator borrows only the cell's protocol modules",
    ("cursor_simulator",),
    ("nodecode_cursor",),
    frozenset({"wire", "_proto"}),
)
HOST_USES_ONLY_THE_HOST_FACE = Rule(
    "the host uses only the cell's host-facing modules",
    ("nodecode_host",),
    ("nodecode_cursor",),
    frozenset({"", "host", "errors", "cell"}),
)
CORE_DOES_NO_IO = Rule(
    "the pure core imports no I/O module",
    tuple(f"nodecode_cursor.{m}" for m in PURE_CORE + CORE_SUPPORT),
    IO_MODULES,
)
CORE_STAYS_IN_THE_CORE = Rule(
    "the pure core imports only the core from the cell",
    tuple(f"nodecode_cursor.{m}" for m in PURE_CORE + CORE_SUPPORT),
    ("nodecode_cursor",),
    frozenset(PURE_CORE + CORE_SUPPORT),
)


def module_files(root: Path) -> dict[str, Path]:
    """Return every module of the three packages under ROOT, by absolute module name."""
    found: dict[str, Path] = {}
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            parts = list(path.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


def imports_in(module: str, path: Path, known: set[str]) -> Iterator[tuple[str, int]]:
    """Yield (absolute module name, line) for every import statement anywhere in PATH."""
    is_package = path.name == "__init__.py"
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, node.lineno
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                package = module.split(".") if is_package else module.split(".")[:-1]
                # Each level beyond the first climbs one package up.
                package = package[: len(package) - (node.level - 1)]
                base = ".".join(package + ([node.module] if node.module else []))
            else:
                base = node.module or ""
            for alias in node.names:
                # ``from pkg import sub`` imports the module pkg.sub when there is one.
                child = f"{base}.{alias.name}"
                yield (child if child in known else base), node.lineno


def violations(root: Path, rules: tuple[Rule, ...]) -> list[str]:
    """Return one line per import under ROOT that breaks one of RULES (empty when none does)."""
    files = module_files(root)
    known = set(files)
    found: list[str] = []
    for module, path in files.items():
        for imported, line in imports_in(module, path, known):
            for rule in rules:
                if not _within(module, rule.importers):
                    continue
                for target in rule.targets:
                    if not _within(imported, (target,)):
                        continue
                    if rule.allowed is not None:
                        below = imported[len(target) + 1 :]
                        if below in rule.allowed or _within(below, tuple(rule.allowed - {""})):
                            continue
                    where = path.relative_to(root)
                    report = f"{where}:{line}: imports {imported} ({rule.name})"
                    # ``from m import a, b`` is one import of m, reported once.
                    if report not in found:
                        found.append(report)
    return found


def import_graph(root: Path) -> dict[str, set[str]]:
    """Return, per module under ROOT, the modules of the three packages it imports anywhere."""
    files = module_files(root)
    known = set(files)
    graph: dict[str, set[str]] = {module: set() for module in files}
    for module, path in files.items():
        for imported, _ in imports_in(module, path, known):
            # ``from pkg.mod import name``: the module is the longest known prefix.
            while imported and imported not in known:
                imported = imported.rpartition(".")[0]
            if imported and imported != module:
                graph[module].add(imported)
    return graph


def cycles(root: Path) -> list[list[str]]:
    """Return each import cycle under ROOT as its modules, sorted (empty when there is none).

    A cycle is a strongly connected set of two or more modules (Tarjan's algorithm,
    iterative so a deep tree cannot overflow the stack).
    """
    graph = import_graph(root)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, edges = work[-1]
            step = next(edges, None)
            if step is not None:
                if step not in index:
                    index[step] = low[step] = len(index)
                    stack.append(step)
                    on_stack.add(step)
                    work.append((step, iter(sorted(graph[step]))))
                elif step in on_stack:
                    low[node] = min(low[node], index[step])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component: list[str] = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return sorted(found)


def test_the_three_packages_are_all_seen() -> None:
    modules = module_files(ROOT)
    for name in ("nodecode_cursor.core.fold", "nodecode_host.cli", "cursor_simulator.agent"):
        assert name in modules
    # Relative imports resolve: the simulator's package imports its own families.
    imported = {
        m for m, _ in imports_in("cursor_simulator", modules["cursor_simulator"], set(modules))
    }
    assert "cursor_simulator.agent" in imported


def test_the_cell_imports_neither_host_nor_simulator() -> None:
    assert violations(ROOT, (CELL_IS_THE_BOTTOM,)) == []


def test_the_simulator_never_imports_the_host() -> None:
    assert violations(ROOT, (SIMULATOR_NEVER_IMPORTS_HOST,)) == []


def test_the_simulator_borrows_only_the_cells_protocol_modules() -> None:
    assert violations(ROOT, (SIMULATOR_BORROWS_ONLY_PROTOCOL,)) == []


def test_the_host_uses_only_the_cells_host_facing_modules() -> None:
    assert violations(ROOT, (HOST_USES_ONLY_THE_HOST_FACE,)) == []


def test_the_pure_core_imports_no_io_module() -> None:
    assert violations(ROOT, (CORE_DOES_NO_IO, CORE_STAYS_IN_THE_CORE)) == []


def test_no_module_imports_itself_through_others() -> None:
    assert cycles(ROOT) == []


# --- the transports catch no library's exception outside the error map -------------------

# The kit's one error map (issue 37): the only transport module that catches what the
# libraries under the kit raise.
ERROR_MAP = "nodecode_cursor.transports.errormap"
TRANSPORTS = "nodecode_cursor.transports"
# Modules whose every exception class is a library's failure the map is there for.
FOREIGN_MODULES = ("ssl", "socket", "h2", "h11", "httpx", "httpcore", "anyio", "python_socks")
# asyncio's stream failures (its TimeoutError and CancelledError are the kit's own).
FOREIGN_NAMES = frozenset({"asyncio.IncompleteReadError", "asyncio.LimitOverrunError"})


def _foreign_builtin(name: str) -> bool:
    """Return whether NAME is a builtin socket failure (OSError and its kin, not TimeoutError).

    TimeoutError is what the kit's own deadlines (``asyncio.timeout``) raise.
    """
    found = getattr(builtins, name, None)
    return isinstance(found, type) and issubclass(found, OSError) and found is not TimeoutError


def _dotted(node: ast.expr, names: dict[str, str]) -> str | None:
    """Return the dotted name NODE spells, its first part resolved through NAMES (imports)."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(names.get(node.id, node.id))
    return ".".join(reversed(parts))


def caught_foreign(path: Path) -> list[tuple[int, str]]:
    """Return (line, name) for every library exception PATH catches (``except`` or ``suppress``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    names: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                local = alias.asname or alias.name.split(".")[0]
                names[local] = alias.name if alias.asname else local
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                names[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        caught: list[ast.expr] = []
        if isinstance(node, ast.ExceptHandler) and node.type is not None:
            kinds = node.type
            caught = list(kinds.elts) if isinstance(kinds, ast.Tuple) else [kinds]
        elif isinstance(node, ast.Call) and (_dotted(node.func, names) or "").endswith("suppress"):
            caught = list(node.args)
        for kind in caught:
            name = _dotted(kind, names)
            if name is None:
                continue
            top = name.split(".")[0]
            if top in FOREIGN_MODULES or name in FOREIGN_NAMES or _foreign_builtin(name):
                found.append((kind.lineno, name))
    return found


def foreign_catches(root: Path) -> list[str]:
    """Return one line per library exception a transport module other than the map catches."""
    found: list[str] = []
    for module, path in module_files(root).items():
        if not _within(module, (TRANSPORTS,)) or module == ERROR_MAP:
            continue
        for line, name in sorted(caught_foreign(path)):
            found.append(f"{path.relative_to(root)}:{line}: catches {name}")
    return found


def test_no_transport_module_catches_a_library_exception_outside_the_error_map() -> None:
    assert (ROOT / "nodecode_cursor" / "transports" / "errormap.py").is_file()
    assert foreign_catches(ROOT) == []


def test_checker_finds_each_way_of_catching_a_library_exception(tmp_path: Path) -> None:
    source = (
        "import asyncio, contextlib, ssl\n"
        "import h2.exceptions\n"
        "from httpx import TimeoutException as Slow\n"
        "def f():\n"
        "    try:\n"
        "        pass\n"
        "    except ConnectionResetError:\n"
        "        pass\n"
        "    except (ValueError, ssl.SSLError):\n"
        "        pass\n"
        "    except h2.exceptions.H2Error:\n"
        "        pass\n"
        "    except Slow:\n"
        "        pass\n"
        "    except asyncio.IncompleteReadError:\n"
        "        pass\n"
        "    except (TimeoutError, asyncio.CancelledError, Exception):\n"
        "        pass\n"
        "    with contextlib.suppress(OSError):\n"
        "        pass\n"
    )
    _write(
        tmp_path,
        {
            "nodecode_cursor/transports/__init__.py": "",
            "nodecode_cursor/transports/sse.py": source,
            # The map may; a module outside the transports is not this rule's.
            "nodecode_cursor/transports/errormap.py": source,
            "nodecode_cursor/diagnose/reach.py": source,
        },
    )
    assert foreign_catches(tmp_path) == [
        "nodecode_cursor/transports/sse.py:7: catches ConnectionResetError",
        "nodecode_cursor/transports/sse.py:9: catches ssl.SSLError",
        "nodecode_cursor/transports/sse.py:11: catches h2.exceptions.H2Error",
        "nodecode_cursor/transports/sse.py:13: catches httpx.TimeoutException",
        "nodecode_cursor/transports/sse.py:15: catches asyncio.IncompleteReadError",
        "nodecode_cursor/transports/sse.py:19: catches OSError",
    ]


# --- no module over 600 lines ----------------------------------------------------------

# The most lines a module of the three packages may have (issue 37: h11's largest is 659,
# httpcore's 592); past it a module holds more than one job.
MAX_LINES = 600


def generated(path: Path) -> bool:
    """Return whether PATH is code protoc generated (``*_pb2.py``, ``*_pb2_grpc.py``)."""
    return path.stem.endswith(("_pb2", "_pb2_grpc"))


def long_modules(root: Path) -> list[str]:
    """Return one line per module under ROOT over MAX_LINES lines (generated code aside)."""
    found: list[str] = []
    for path in module_files(root).values():
        if generated(path):
            continue
        count = len(path.read_text(encoding="utf-8").splitlines())
        if count > MAX_LINES:
            found.append(f"{path.relative_to(root)}: {count} lines (most {MAX_LINES})")
    return found


def test_no_module_is_over_600_lines() -> None:
    assert long_modules(ROOT) == []


def test_checker_finds_a_long_module_and_leaves_generated_code_alone(tmp_path: Path) -> None:
    line = "x = 1\n"
    _write(
        tmp_path,
        {
            "nodecode_cursor/at_the_cap.py": line * MAX_LINES,
            "nodecode_host/one_over.py": line * (MAX_LINES + 1),
            "cursor_simulator/sub/deep.py": line * 2000,
            "nodecode_cursor/_proto/agent_pb2.py": line * 5000,
            "nodecode_cursor/_proto/agent_pb2_grpc.py": line * 5000,
        },
    )
    assert sorted(long_modules(tmp_path)) == [
        "cursor_simulator/sub/deep.py: 2000 lines (most 600)",
        "nodecode_host/one_over.py: 601 lines (most 600)",
    ]


# --- the checker itself, on a synthetic tree --------------------------------------------


def _write(root: Path, files: dict[str, str]) -> None:
    """Write FILES (relative path → source) under ROOT, with an __init__.py per package."""
    for package in PACKAGES:
        (root / package).mkdir(parents=True, exist_ok=True)
        (root / package / "__init__.py").touch()
    for relative, source in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(source, encoding="utf-8")


def test_checker_finds_a_function_local_relative_import_of_the_simulator(tmp_path: Path) -> None:
    _write(
        tmp_path,
        {
            "nodecode_cursor/sub/__init__.py": "",
            "nodecode_cursor/sub/deep.py": "def f():\n    from ...cursor_simulator import agent\n",
            "cursor_simulator/agent.py": "",
        },
    )
    (found,) = violations(tmp_path, (CELL_IS_THE_BOTTOM,))
    assert found.startswith("nodecode_cursor/sub/deep.py:2: imports cursor_simulator.agent")


def test_checker_finds_an_import_under_type_checking(tmp_path: Path) -> None:
    source = (
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import nodecode_host.cli as cli\n"
    )
    _write(tmp_path, {"cursor_simulator/models.py": source, "nodecode_host/cli.py": ""})
    found = violations(tmp_path, (SIMULATOR_NEVER_IMPORTS_HOST,))
    assert found == [
        "cursor_simulator/models.py:3: imports nodecode_host.cli "
        "(the simulator never imports the host)"
    ]


def test_checker_allows_protocol_modules_and_reports_others(tmp_path: Path) -> None:
    source = (
        "from nodecode_cursor.wire import connect, values\n"
        "from nodecode_cursor.transports.sse import run, RunSettings\n"
    )
    _write(
        tmp_path,
        {
            "cursor_simulator/agent.py": source,
            "nodecode_cursor/wire/__init__.py": "",
            "nodecode_cursor/wire/connect.py": "",
            "nodecode_cursor/wire/values.py": "",
            "nodecode_cursor/transports/__init__.py": "",
            "nodecode_cursor/transports/sse.py": "",
        },
    )
    found = violations(tmp_path, (SIMULATOR_BORROWS_ONLY_PROTOCOL,))
    assert [f.split(" (")[0] for f in found] == [
        "cursor_simulator/agent.py:2: imports nodecode_cursor.transports.sse"
    ]


def test_checker_lets_the_host_take_version_but_not_internals(tmp_path: Path) -> None:
    source = (
        "from nodecode_cursor import __version__\n"
        "from nodecode_cursor.errors import ConfigError\n"
        "from nodecode_cursor.account.store import AuthStore\n"
    )
    _write(
        tmp_path,
        {
            "nodecode_host/cli.py": source,
            "nodecode_cursor/errors.py": "",
            "nodecode_cursor/account/__init__.py": "",
            "nodecode_cursor/account/store.py": "",
        },
    )
    found = violations(tmp_path, (HOST_USES_ONLY_THE_HOST_FACE,))
    assert [f.split(" (")[0] for f in found] == [
        "nodecode_host/cli.py:3: imports nodecode_cursor.account.store"
    ]


@pytest.mark.parametrize("module", IO_MODULES)
def test_checker_finds_io_in_the_pure_core(tmp_path: Path, module: str) -> None:
    fold = "nodecode_cursor/core/fold.py"
    _write(tmp_path, {fold: f"def f():\n    import {module}.sub\n"})
    found = violations(tmp_path, (CORE_DOES_NO_IO,))
    assert [f.split(" (")[0] for f in found] == [f"{fold}:2: imports {module}.sub"]


def test_checker_finds_the_core_leaning_on_the_transport(tmp_path: Path) -> None:
    _write(
        tmp_path,
        {
            "nodecode_cursor/core/__init__.py": "",
            "nodecode_cursor/core/request.py": (
                "from ..transports.sse import run\nfrom . import history\n"
                "from ..models import routing\n"
            ),
            "nodecode_cursor/core/history.py": "",
            "nodecode_cursor/models/__init__.py": "",
            "nodecode_cursor/models/routing.py": "",
            "nodecode_cursor/transports/__init__.py": "",
            "nodecode_cursor/transports/sse.py": "",
            # Outside the core, the same import is allowed.
            "nodecode_cursor/lanes/__init__.py": "",
            "nodecode_cursor/lanes/lane.py": "from ..transports.sse import run\n",
        },
    )
    found = violations(tmp_path, (CORE_STAYS_IN_THE_CORE,))
    assert [f.split(" (")[0] for f in found] == [
        "nodecode_cursor/core/request.py:1: imports nodecode_cursor.transports.sse"
    ]


def test_checker_finds_a_cycle_through_a_function_local_and_a_type_checking_import(
    tmp_path: Path,
) -> None:
    _write(
        tmp_path,
        {
            "nodecode_cursor/transport.py": "def f():\n    from .h2run import ChosenRun\n",
            "nodecode_cursor/h2run.py": "from .server_config import ask\n",
            "nodecode_cursor/server_config.py": (
                "from typing import TYPE_CHECKING\n"
                "if TYPE_CHECKING:\n    from nodecode_cursor.transport import RunSettings\n"
            ),
            # Importing a module of a cycle does not join it.
            "nodecode_cursor/lane.py": "from .transport import run\n",
            "cursor_simulator/server.py": "from . import h2server\n",
            "cursor_simulator/h2server.py": "from .server import Cut\n",
        },
    )
    assert cycles(tmp_path) == [
        ["cursor_simulator.h2server", "cursor_simulator.server"],
        [
            "nodecode_cursor.h2run",
            "nodecode_cursor.server_config",
            "nodecode_cursor.transport",
        ],
    ]


def test_checker_finds_no_cycle_in_a_chain(tmp_path: Path) -> None:
    _write(
        tmp_path,
        {
            "nodecode_cursor/a.py": "from . import b\n",
            "nodecode_cursor/b.py": "def f():\n    from .c import x\n",
            "nodecode_cursor/c.py": "import nodecode_cursor\n",
        },
    )
    assert cycles(tmp_path) == []


def files_importing_the_tests_package(tests_root: Path) -> list[str]:
    """Return the test files under TESTS_ROOT that import through a ``tests`` package."""
    found = []
    for path in sorted(tests_root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = []
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            elif isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            if any(name == "tests" or name.startswith("tests.") for name in names):
                found.append(str(path.relative_to(tests_root)))
                break
    return found


def test_plain_pytest_imports_every_test_module() -> None:
    # Plain `pytest` from the checkout's root puts each test's folder (rootdir-relative,
    # no package) on the path, not the root: `from tests.x` imports only by accident.
    assert files_importing_the_tests_package(ROOT / "tests") == []


def test_checker_finds_an_import_through_the_tests_package(tmp_path: Path) -> None:
    (tmp_path / "cell").mkdir()
    (tmp_path / "cell" / "test_a.py").write_text("from tests.protobytes import ld\n")
    (tmp_path / "cell" / "test_b.py").write_text("from protobytes import ld\n")
    (tmp_path / "test_c.py").write_text("import tests.probes\n")
    assert files_importing_the_tests_package(tmp_path) == ["cell/test_a.py", "test_c.py"]
