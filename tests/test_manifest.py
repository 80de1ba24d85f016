"""cell.toml, pyproject.toml and the package agree, and importing the cell stays cheap.

A host reads cell.toml for a drop-in folder and the ``nodecode.cells`` entry
point for an installed distribution; both must name the same object and the
same version, and the config defaults a host shows must be the ones the code
uses.
"""

from __future__ import annotations

import importlib
import json
import shutil
import subprocess
import sys
import tomllib
import zipfile
from importlib import metadata
from pathlib import Path
from typing import Any

import pytest

import nodecode_cursor
from nodecode_cursor import limits

ROOT = Path(__file__).resolve().parent.parent

# Modules a host must not pay for when it merely loads the cell.
HEAVY = ("httpx", "httpcore", "h11", "h2", "google.protobuf", "jwt", "filelock", "PIL")
HEAVY_OURS = ("nodecode_cursor.models.catalog", "nodecode_cursor._proto", "cursor_simulator")


def _toml(name: str) -> dict[str, Any]:
    with (ROOT / name).open("rb") as f:
        return tomllib.load(f)


@pytest.fixture(scope="module")
def cell() -> dict[str, Any]:
    return _toml("cell.toml")


@pytest.fixture(scope="module")
def pyproject() -> dict[str, Any]:
    return _toml("pyproject.toml")


def test_entry_matches_entry_point(cell: dict[str, Any], pyproject: dict[str, Any]) -> None:
    entry_point = pyproject["project"]["entry-points"]["nodecode.cells"]["cursor"]
    assert cell["entry"] == entry_point
    assert ":" in cell["entry"]


def test_versions_agree(cell: dict[str, Any], pyproject: dict[str, Any]) -> None:
    assert cell["version"] == pyproject["project"]["version"] == nodecode_cursor.__version__


def test_names_and_license(cell: dict[str, Any], pyproject: dict[str, Any]) -> None:
    assert cell["name"] == pyproject["project"]["name"] == "nodecode-cursor"
    assert cell["license"] == pyproject["project"]["license"] == "MIT"
    assert cell["description"].strip()
    assert "\n" not in cell["description"]
    assert isinstance(cell["depends_on"], list)


def test_entry_resolves_to_the_cell_object(cell: dict[str, Any]) -> None:
    module_name, _, attr = cell["entry"].partition(":")
    target = getattr(importlib.import_module(module_name), attr)
    assert target is not None


def test_installed_metadata_agrees(cell: dict[str, Any]) -> None:
    try:
        dist = metadata.distribution("nodecode-cursor")
    except metadata.PackageNotFoundError:
        pytest.skip("the package is not installed (run pip install -e '.[test]')")
    assert dist.version == cell["version"]
    points = {ep.name: ep.value for ep in dist.entry_points if ep.group == "nodecode.cells"}
    assert points == {"cursor": cell["entry"]}


def test_config_section_defaults(cell: dict[str, Any]) -> None:
    section = cell["config"]["cursor"]
    assert section["base_url"] == limits.DEFAULT_BASE_URL == "https://api2.cursor.sh"
    assert section["web_url"] == limits.DEFAULT_WEB_URL == "https://cursor.com"
    # Unset: a default here would count as a setting and hide the installed CLI's version.
    assert "client_version" not in section
    assert section["enabled"] is True


def test_client_version_env_override(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(limits.CLIENT_VERSION_ENV, raising=False)
    assert limits.CLIENT_VERSION_ENV == "CURSOR_CLIENT_VERSION"
    assert limits.client_version() == limits.DEFAULT_CLIENT_VERSION
    assert limits.client_version("cli-configured") == "cli-configured"
    monkeypatch.setenv("CURSOR_CLIENT_VERSION", "cli-from-env")
    assert limits.client_version("cli-configured") == "cli-from-env"


def test_cursor_command_declared(cell: dict[str, Any]) -> None:
    command = cell["commands"]["cursor"]
    assert command["description"].strip()
    assert "login" in command["argument_hint"]


def test_console_script_declared(pyproject: dict[str, Any]) -> None:
    target = pyproject["project"]["scripts"]["nodecode-cursor"]
    module_name, _, attr = target.partition(":")
    assert callable(getattr(importlib.import_module(module_name), attr))


def test_runtime_dependencies_are_the_allowed_ones(pyproject: dict[str, Any]) -> None:
    names = {
        dep.split(">")[0].split("<")[0].split("=")[0].split("[")[0].strip().lower()
        for dep in pyproject["project"]["dependencies"]
    }
    # regex: the reference host's search_files needs a match that can be stopped (timeout).
    # jsonschema: the reference host's structured-output check validates the whole schema.
    # pillow: the cell re-encodes an image over Cursor's limits (core/images.py).
    # python-socks: the dialer's SOCKS5 (transports/socks.py), so a socks5:// proxy keeps
    # the cell's own clients and their trailers.
    # certifi: the kit's TLS trust (transports/http.py); httpx left with issue 37's kit.
    assert names == {
        "certifi",
        "h11",
        "h2",
        "protobuf",
        "pyjwt",
        "filelock",
        "regex",
        "jsonschema",
        "pillow",
        "python-socks",
    }
    assert pyproject["project"]["requires-python"] == ">=3.11"


def _modules_after(code: str) -> list[str]:
    """Return the module names loaded by a fresh interpreter after running ``code``."""
    script = f"import json, sys\n{code}\nprint(json.dumps(sorted(sys.modules)))"
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
        check=True,
    )
    loaded: list[str] = json.loads(done.stdout.strip().splitlines()[-1])
    return loaded


def _heavy(loaded: list[str]) -> list[str]:
    return [
        name
        for name in loaded
        if any(name == h or name.startswith(h + ".") for h in HEAVY + HEAVY_OURS)
    ]


def test_package_import_is_cheap() -> None:
    loaded = _modules_after("import nodecode_cursor")
    assert "nodecode_cursor" in loaded
    assert _heavy(loaded) == []


def test_loading_the_cell_entry_is_cheap(cell: dict[str, Any]) -> None:
    module_name, _, attr = cell["entry"].partition(":")
    loaded = _modules_after(f"from {module_name} import {attr}")
    assert module_name in loaded
    assert _heavy(loaded) == []


def test_wheel_carries_data_and_stubs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A non-editable install gets only what the wheel holds: the bundled rows,
    # the handoff text, the .pyi stubs and py.typed must be inside it. Built from
    # a copy of the tracked files (root symlinks kept as links) so the checkout
    # is untouched and an untracked file cannot hide a gap.
    setuptools_build = pytest.importorskip("setuptools.build_meta")
    tracked = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=False)
    if tracked.returncode != 0:
        pytest.skip("not a git checkout")
    src = tmp_path / "src"
    for name in tracked.stdout.decode().split("\0"):
        if not name:
            continue
        origin, target = ROOT / name, src / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if origin.is_symlink():
            target.symlink_to(origin.readlink())
        elif origin.is_file():
            shutil.copyfile(origin, target)
    out = tmp_path / "dist"
    out.mkdir()
    monkeypatch.chdir(src)
    wheel_name = setuptools_build.build_wheel(str(out))
    with zipfile.ZipFile(out / wheel_name) as wheel:
        names = set(wheel.namelist())
        entry_points = next(n for n in names if n.endswith(".dist-info/entry_points.txt"))
        points = wheel.read(entry_points).decode()
    for needed in (
        "nodecode_cursor/data/models.json",
        "nodecode_cursor/data/wire.json",
        "nodecode_cursor/data/external-tool-handoff.md",
        "nodecode_cursor/_proto/agent_pb2.pyi",
        "nodecode_cursor/_proto/aiserver_pb2.pyi",
        "nodecode_cursor/py.typed",
        "cursor_simulator/__main__.py",
    ):
        assert needed in names, needed
    # the root links are not shipped as top-level files
    assert not {"models.json", "wire.json", "external-tool-handoff.md"} & names
    assert not any(name.startswith("tests/") for name in names)
    assert "[nodecode.cells]\ncursor = nodecode_cursor.cell:cell" in points
    assert "nodecode-cursor = nodecode_host.cli:main" in points
