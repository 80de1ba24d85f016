"""Each command imports only what it runs: ``--version`` and ``status`` load no round's machinery.

Each test runs the command line in a fresh interpreter exactly as the installed
``nodecode-cursor`` script does (``from nodecode_host.cli import main``), and the
process writes, as it ends, every module it imported beyond the interpreter's own
start-up; the last test loads the cell alone, as a host does for every cell it
finds. ``-X importtime`` would miss the cell: the host loads it with
``importlib.import_module``, which that option does not log. Start-up time itself
is measured in ``benchmarks/startup.py``, never here.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from cli_run import RUN_TIMEOUT, cli_env

# The console script's two lines, with the modules written to stderr's last line at the end.
WRAPPER = """
import sys
before = set(sys.modules)
try:
    from nodecode_host.cli import main
    code = main(sys.argv[1:])
finally:
    sys.stdout.flush()
    print("\\nmodules:", " ".join(sorted(set(sys.modules) - before)), file=sys.stderr)
sys.exit(code)
"""

# What no command that starts no round may load: the event loop, the HTTP stacks,
# protobuf, SQLite, file locks, importlib.metadata (and the email parser it pulls in).
ROUND_MACHINERY = (
    "asyncio",
    "httpx",
    "httpcore",
    "h11",
    "h2",
    "anyio",
    "ssl",
    "socket",
    "google.protobuf",
    "sqlite3",
    "filelock",
    "importlib.metadata",
    "email",
    "zipfile",
    "concurrent.futures",
)
# The host's modules of other commands: the API server, the chat, the tools, rendering.
OTHER_COMMANDS = (
    "nodecode_host.http_server",
    "nodecode_host.http_exchange",
    "nodecode_host.routes",
    "nodecode_host.cli_serve",
    "nodecode_host.cli_ask",
    "nodecode_host.cli_demo",
    "nodecode_host.cli_service",
    "nodecode_host.api_round",
    "nodecode_host.chat",
    "nodecode_host.host_tools",
    "nodecode_host.toolbox",
    "nodecode_host.tool_files",
    "nodecode_host.tool_shell",
    "nodecode_host.native_tools",
    "nodecode_host.render",
)
# The cell's modules `status` runs: the cell, its /cursor command and what that reads.
STATUS_CELL = {
    "nodecode_cursor",
    "nodecode_cursor.cell",
    "nodecode_cursor.cell_settings",
    "nodecode_cursor.limits",
    "nodecode_cursor.errors",
    "nodecode_cursor.commands",
    # The subpackages themselves (each __init__ is its docstring alone).
    "nodecode_cursor.account",
    "nodecode_cursor.lanes",
    "nodecode_cursor.account.browser",
    "nodecode_cursor.account.credentials",
    # Status says whether a crsr_ key is exchanged (stdlib only: no httpx until it dials).
    "nodecode_cursor.account.key_exchange",
    # Status lists the kept accounts (auth.json's entries: dataclasses over the store).
    "nodecode_cursor.account.accounts",
    "nodecode_cursor.account.signin",
    "nodecode_cursor.account.store",
    "nodecode_cursor.state",
    "nodecode_cursor.lanes.agent_cli",
}


def imported(
    home: Path, *argv: str, **env: str
) -> tuple[subprocess.CompletedProcess[str], set[str]]:
    """Return (the finished run of ``nodecode-cursor ARGV``, the modules it imported)."""
    variables = cli_env(home, signed_out=True, **env)
    # Only the interpreter's own folder on the PATH: no Cursor CLI is found, none is asked.
    variables["PATH"] = os.path.dirname(sys.executable)
    done = subprocess.run(
        [sys.executable, "-c", WRAPPER, *argv],
        env=variables,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT,
    )
    last = done.stderr.rstrip("\n").rpartition("\n")[2]
    assert last.startswith("modules: "), done.stderr
    return done, set(last.removeprefix("modules: ").split())


def within(modules: set[str], packages: tuple[str, ...]) -> set[str]:
    """Return the MODULES that are one of PACKAGES or lie below one."""
    return {m for m in modules if any(m == p or m.startswith(p + ".") for p in packages)}


def test_version_loads_nothing_of_the_cell_nor_of_any_command(home: Path) -> None:
    done, modules = imported(home, "--version")
    assert done.returncode == 0 and done.stdout.startswith("nodecode-cursor "), done
    assert within(modules, ("nodecode_cursor",)) == set()
    assert within(modules, ROUND_MACHINERY + OTHER_COMMANDS) == set()
    assert within(modules, ("nodecode_host.setup", "nodecode_host.refhost")) == set()
    assert within(modules, ("nodecode_host.turn", "nodecode_host.cell_sources")) == set()
    # Not even the dataclasses the host's types are made with.
    assert "dataclasses" not in modules


@pytest.mark.parametrize("signed_in", [False, True], ids=["signed-out", "signed-in"])
def test_status_loads_only_the_sign_in_it_reads(home: Path, signed_in: bool) -> None:
    if signed_in:
        entry = {
            "access_token": "a" * 40,
            "refresh_token": "r" * 40,
            "expires_at": time.time() + 3600,
        }
        (home / "auth.json").write_text(json.dumps({"oauth_tokens": {"cursor": entry}}))
    done, modules = imported(home, "status")
    assert done.returncode == 0, done
    assert done.stdout.startswith("cursor: signed in" if signed_in else "cursor: not signed in")
    assert within(modules, ROUND_MACHINERY + OTHER_COMMANDS) == set()
    assert "subprocess" not in modules  # no CLI was found, so none was asked its version
    assert within(modules, ("nodecode_cursor",)) <= STATUS_CELL
    # The cell did load, and its command ran: the check above is not of an empty run.
    assert {"nodecode_cursor.cell", "nodecode_cursor.commands"} <= modules


def test_a_usage_error_loads_no_host(home: Path) -> None:
    done, modules = imported(home, "--no-such-flag")
    assert done.returncode == 2, done
    assert (
        within(modules, ("nodecode_cursor", "nodecode_host.setup", "nodecode_host.refhost"))
        == set()
    )
    assert within(modules, ("nodecode_host.turn", "nodecode_host.cell_sources")) == set()
    assert within(modules, ROUND_MACHINERY) == set()


def test_loading_the_cell_loads_only_its_settings_and_errors() -> None:
    # What a host pays for every cell at its start-up: not the contract, nor dataclasses.
    probe = (
        "import sys\nbefore = set(sys.modules)\nimport nodecode_cursor.cell\n"
        "print(' '.join(sorted(set(sys.modules) - before)))"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=RUN_TIMEOUT
    )
    assert done.returncode == 0, done
    modules = set(done.stdout.split())
    assert within(modules, ("nodecode_cursor",)) == {
        "nodecode_cursor",
        "nodecode_cursor.cell",
        # Its config section's reader: the cell holds a Settings from the start.
        "nodecode_cursor.cell_settings",
        "nodecode_cursor.errors",
        "nodecode_cursor.limits",
    }
    assert within(modules, (*ROUND_MACHINERY, "dataclasses", "inspect")) == set()
