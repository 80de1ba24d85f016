"""The seam between the reference host and the cell: what the host imports, and what it asks.

The host reaches the cell through the contract (``nodecode_cursor.host``), the
cell's errors and the cell object only, and imports none of them before it
loads the cells. The cell object answers the host's two questions, "may this
model run at this effort, and as what" (``route``) and "how does the sign-in
stand" (``sign_in_state``), in fields a host words for its own audience.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from cursor_simulator import Simulator
from nodecode_cursor.cell import CursorCell
from nodecode_cursor.errors import BadEffort, ConfigError, StoreError, UnknownModel
from nodecode_cursor.host import MemoryHost
from nodecode_host.setup import bad_effort_line, unknown_model_line

HOST_PACKAGE = Path(__file__).resolve().parents[2] / "nodecode_host"
# What a host may import of the cell: the contract, the errors, the cell object (types only).
ALLOWED = {"nodecode_cursor.host", "nodecode_cursor.errors", "nodecode_cursor.cell"}


def _cell_imports(path: Path) -> list[tuple[str, bool]]:
    """Return (module, under TYPE_CHECKING) for each nodecode_cursor import in PATH."""
    tree = ast.parse(path.read_text("utf-8"))
    guarded: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            guarded.update(id(inner) for inner in ast.walk(node))
    found = []
    for node in ast.walk(tree):
        names = []
        if isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module]
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        found += [(n, id(node) in guarded) for n in names if n.startswith("nodecode_cursor")]
    return found


def test_the_host_imports_only_the_contract_and_only_for_types() -> None:
    seen = 0
    for path in sorted(HOST_PACKAGE.glob("*.py")):
        for module, typing_only in _cell_imports(path):
            seen += 1
            assert module in ALLOWED, f"{path.name} imports {module}"
            assert typing_only, f"{path.name} imports {module} at run time"
    assert seen > 0  # the check looked at something


def test_importing_the_host_loads_nothing_of_the_cell() -> None:
    probe = (
        "import sys, nodecode_host.cli, nodecode_host.chat, nodecode_host.http_server, "
        "nodecode_host.routes; "
        "print(sorted(m for m in sys.modules if m.startswith('nodecode_cursor')))"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=True
    )
    assert done.stdout.strip() == "[]", done.stdout


# route -----------------------------------------------------------------------------------------


def started(home: Path, **section: str) -> CursorCell:
    """Return a fresh cell started in a MemoryHost at HOME."""
    cell = CursorCell()
    assert cell.start(MemoryHost(home, {"cursor": dict(section)}))
    return cell


def test_route_answers_model_effort_and_wire_slug(home: Path) -> None:
    cell = started(home)
    try:
        route = cell.route("cursor/gpt-5.4", "HIGH")
        assert (route.model, route.requested_effort, route.effort) == ("gpt-5.4", "high", "high")
        assert route.wire_model == "gpt-5.4-high" and route.bundled
        assert route.efforts == ("low", "medium", "high", "xhigh")
        # "Off" is spelled one way; None and "" mean it too.
        for off in (None, "", "off", " Off "):
            assert cell.route("gpt-5.4", off).effort is None
        # A model that does not reason is asked no effort, whatever was asked.
        plain = cell.route("composer-2.5", "high")
        assert plain.requested_effort == "high" and plain.effort is None and plain.efforts == ()
    finally:
        cell.stop()


def test_route_refuses_in_fields_a_host_words_itself(home: Path) -> None:
    cell = started(home)
    try:
        with pytest.raises(UnknownModel) as unknown:
            cell.route("gpt-5.9", None)
        assert unknown.value.model == "gpt-5.9" and "gpt-5.5" in unknown.value.near
        assert isinstance(unknown.value, ConfigError) and unknown.value.code == "unknown_model"
        with pytest.raises(BadEffort) as unsupported:
            cell.route("gpt-5.4", "max")
        assert unsupported.value.model == "gpt-5.4" and unsupported.value.effort == "max"
        assert unsupported.value.allowed == ("low", "medium", "high", "xhigh")
        with pytest.raises(BadEffort) as misspelt:
            cell.route("composer-2.5", "bogus")  # refused even where the model does not reason
        assert misspelt.value.model is None and "high" in misspelt.value.allowed
        with pytest.raises(BadEffort):
            cell.route("gpt-5.4", "none")  # OpenAI's word is the server's to translate
    finally:
        cell.stop()
    assert unknown_model_line(unknown.value).startswith("unknown model cursor/gpt-5.9. Nearest")
    assert bad_effort_line(unsupported.value, " (here)") == (
        "effort 'max' (here) is not supported by cursor/gpt-5.4; "
        "its efforts: low, medium, high, xhigh, or off"
    )
    assert "'bogus' is not a known level" in bad_effort_line(misspelt.value)


def test_route_allows_a_model_the_roster_lists(home: Path) -> None:
    cell = started(home)
    try:
        route = cell.route("gpt-5.4-high", "high", roster=["gpt-5.4-high"])
        assert (route.wire_model, route.effort, route.bundled) == ("gpt-5.4-high", None, False)
        with pytest.raises(UnknownModel) as caught:
            cell.route("gpt-5.4-high", None, unchecked="not signed in")
        assert caught.value.unchecked == "not signed in"
    finally:
        cell.stop()


# sign_in_state ---------------------------------------------------------------------------------


def test_sign_in_state_reads_the_ladder_without_the_network(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("CURSOR_ACCESS_TOKEN", raising=False)
    monkeypatch.delenv("CURSOR_API_KEY", raising=False)
    assert CursorCell().sign_in_state().source is None  # not started: nothing to say
    cell = started(home, base_url="http://127.0.0.1:9")
    try:
        bare = cell.sign_in_state()
        assert (bare.signed_in, bare.source, bare.in_progress) == (False, None, False)
        monkeypatch.setenv("CURSOR_API_KEY", "key-from-the-environment")
        env = cell.sign_in_state()
        assert (env.source, env.env_name) == ("environment", "CURSOR_API_KEY")
        assert "key-from-the-environment" not in repr(env)
        entry = {"access_token": "a", "refresh_token": "r", "expires_at": 4102444800.0}
        entry["email"] = "person@example.com"
        (home / "auth.json").write_text(json.dumps({"oauth_tokens": {"cursor": entry}}))
        kept = cell.sign_in_state()
        assert (kept.signed_in, kept.source, kept.email) == (True, "sign-in", entry["email"])
        assert kept.expires_at == 4102444800.0 and not kept.session_ended
        (home / "auth.json").write_text("{oops")
        with pytest.raises(StoreError):
            cell.sign_in_state()
    finally:
        cell.stop()


def test_sign_in_state_names_the_page_of_a_sign_in_in_progress(sim: Simulator, home: Path) -> None:
    cell = started(home, base_url=sim.url, web_url=sim.url)
    try:
        cell.commands["cursor"].run("login")
        state = cell.sign_in_state()
        assert state.in_progress
        assert state.login_url is not None
        assert state.login_url.startswith(f"{sim.url}/loginDeepControl?")
        login_id = state.login_url.split("uuid=")[1].split("&")[0]
        sim.auth.confirm(login_id)
        # The sign-in's thread ends once it has kept what the confirmed poll gave.
        (signing_in,) = [t for t in threading.enumerate() if t.name == "cursor-sign-in"]
        signing_in.join(60)  # only stops a hung test
        done = cell.sign_in_state()
        assert not done.in_progress and done.signed_in and done.source == "sign-in"
        assert done.email == "person@example.com"
    finally:
        cell.stop()
