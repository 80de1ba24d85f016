"""Every dotted name the docs and docstrings quote resolves in the code.

``docs/*.md`` and the packages' docstrings cite code by dotted name in
backticks (```sse.SseRun```, ````lane.stream_round````): a module of one of the
three packages (by its last component, or in full), then attributes. When the
code moves, a citation that no longer resolves is a false claim; this test names
each one, in which file, so it is fixed with the move. A name whose first part
is not one of our modules (``os.environ``, a setting such as ``cursor.proxy``, a
file such as ``auth.json``) is not a citation and is left alone.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import re
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("nodecode_cursor", "nodecode_host", "cursor_simulator")
# A dotted name alone in a backtick span (one or two backticks).
_SPAN = re.compile(
    r"(?<!`)``?([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+)(?:\(\))?``?(?!`)"
)
# What ends a file's name, not a module's attribute.
_FILE_ENDINGS = frozenset(
    {"py", "md", "json", "jsonl", "toml", "txt", "lock", "sh", "yml", "yaml", "js", "ts", "cfg"}
    | {"proto", "lisp"}
)
# A protobuf package's version part (``agent.v1.AgentServerMessage``): Cursor's names.
_PROTO_VERSION = re.compile(r"v[0-9]+")
# Names of the APIs' own objects that read like ours.
_NOT_CODE = frozenset({"chat.completion", "chat.completion.chunk"})


def _modules() -> dict[str, list[str]]:
    """Return, per short and full module name, the full names of our modules it may mean."""
    found: dict[str, list[str]] = {}
    for package in PACKAGES:
        found.setdefault(package, []).append(package)
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if "_proto" in parts:
                continue
            if parts[-1] == "__init__":
                parts.pop()  # a subpackage (``models.routing``) is cited like a module
                if len(parts) < 2:
                    continue
            full = ".".join(parts)
            found.setdefault(full, []).append(full)
            found.setdefault(parts[-1], []).append(full)
    return found


def _has(owner: object, name: str) -> bool:
    """Return whether OWNER has NAME: an attribute, an annotation, or ``self.NAME`` set."""
    if hasattr(owner, name):
        return True
    if not inspect.isclass(owner):
        return False
    for klass in owner.__mro__:
        if name in getattr(klass, "__annotations__", {}):
            return True
        try:
            source = inspect.getsource(klass)
        except (OSError, TypeError):
            continue
        if re.search(rf"\bself\.{re.escape(name)}\b", source):
            return True
    return False


def _resolves(dotted: str, modules: dict[str, list[str]]) -> bool | None:
    """Return whether DOTTED resolves; None when it names none of our modules."""
    parts = dotted.split(".")
    if dotted in _NOT_CODE or parts[-1] in _FILE_ENDINGS:
        return None
    if any(_PROTO_VERSION.fullmatch(part) for part in parts):
        return None
    # The longest leading run of parts that names one of our modules.
    for cut in range(len(parts), 0, -1):
        candidates = modules.get(".".join(parts[:cut]))
        if candidates:
            break
    else:
        return None
    rest = parts[cut:]
    for full in candidates:
        module = importlib.import_module(full)
        # ``cell.route``: the module's object of its own name (the cell) may be meant.
        same = getattr(module, full.rpartition(".")[2], None)
        for start in (module, same) if same is not None else (module,):
            if _walk(start, rest, modules):
                return True
    return False


def _walk(owner: object, names: list[str], modules: dict[str, list[str]]) -> bool:
    """Return whether NAMES lead from OWNER, one attribute (or submodule) at a time."""
    for name in names:
        if isinstance(owner, ModuleType) and f"{owner.__name__}.{name}" in modules:
            owner = importlib.import_module(f"{owner.__name__}.{name}")
            continue
        if not _has(owner, name):
            return False
        owner = getattr(owner, name, None)
        if owner is None:
            return True  # an instance attribute: nothing below it to check
    return True


def _texts() -> list[tuple[str, str]]:
    """Return (file, text) for each doc page and each docstring in the packages."""
    found = [
        (str(path.relative_to(ROOT)), path.read_text(encoding="utf-8"))
        for path in sorted((ROOT / "docs").glob("*.md"))
    ]
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if "_proto" in path.parts:
                continue
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                if isinstance(
                    node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef
                ):
                    doc = ast.get_docstring(node, clean=False)
                    if doc:
                        found.append(
                            (f"{path.relative_to(ROOT)}:{getattr(node, 'lineno', 1)}", doc)
                        )
    return found


def unresolved(texts: list[tuple[str, str]]) -> list[str]:
    """Return one line per quoted dotted name in TEXTS that names our code but does not resolve."""
    modules = _modules()
    bad: list[str] = []
    for where, text in texts:
        for match in _SPAN.finditer(text):
            dotted = match.group(1)
            if _resolves(dotted, modules) is False:
                line = f"{where}: `{dotted}` does not resolve in the code"
                if line not in bad:
                    bad.append(line)
    return bad


def test_every_quoted_dotted_name_resolves() -> None:
    bad = unresolved(_texts())
    assert bad == [], "\n".join(bad)


def test_the_check_names_the_file_and_the_name_that_does_not_resolve() -> None:
    texts = [
        ("docs/x.md", "`sse.SseRun` and `sse.SseRun._read_stream`, `os.path.join`"),
        ("nodecode_cursor/y.py:3", "``lane.stream_round``, ``lane.no_such_thing``, ``auth.json``"),
    ]
    assert unresolved(texts) == [
        "docs/x.md: `sse.SseRun._read_stream` does not resolve in the code",
        "nodecode_cursor/y.py:3: `lane.no_such_thing` does not resolve in the code",
    ]
