"""The host's tools cannot be turned against the machine (issue 12, items 2–4).

Secret places are refused even inside the working folder, links followed,
unless the person allows the one call; commands inherit none of the host's
secrets; NUL characters, FIFOs, huge files, endless output, escaping children
and catastrophic regular expressions each end as a tool error the model reads.
"""

from __future__ import annotations

import json
import os
import re
import resource
import select
import sys
import threading
import time
from pathlib import Path

import pytest

from nodecode_host import limits as host_limits
from nodecode_host.host_tools import HostTools


def call(tools: HostTools, name: str, **args: object) -> str:
    """Return the result of calling NAME with ARGS."""
    return tools.run(name, json.dumps(args))


@pytest.fixture
def person_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A home folder holding a key, a host home with auth.json, and a plain file."""
    home = tmp_path / "person"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_ed25519").write_text("PRIVATE KEY\n")
    (home / ".nodecode").mkdir()
    (home / ".nodecode" / "auth.json").write_text('{"oauth_tokens": {}}\n')
    (home / ".aws").mkdir()
    (home / ".aws" / "credentials").write_text("aws_secret_access_key = SECRET\n")
    (home / "notes.txt").write_text("plain notes\n")
    (home / "key-link").symlink_to(home / ".ssh" / "id_ed25519")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("NODECODE_HOME", str(home / ".nodecode"))
    return home


# Item 2 ------------------------------------------------------------------------------------


def test_secret_places_are_refused_inside_the_folder_even_with_yes(person_home: Path) -> None:
    tools = HostTools(person_home, assume_yes=True)
    assert call(tools, "read_file", path="notes.txt") == "plain notes\n"
    for path, why in (
        (".nodecode/auth.json", "the host's home"),
        (".ssh/id_ed25519", "~/.ssh"),
        ("key-link", "~/.ssh"),  # a link is followed, not judged by its name
        (".aws/credentials", "~/.aws"),
    ):
        answer = call(tools, "read_file", path=path)
        assert answer.startswith("error: "), answer
        assert why in answer and "--yes does not" in answer
        assert "PRIVATE" not in answer and "SECRET" not in answer
    assert call(tools, "list_directory", path=".ssh").startswith("error: ")
    found = call(tools, "search_files", pattern="PRIVATE|SECRET|oauth", path=".")
    assert found == "no matches"


def test_the_person_may_allow_one_call_to_a_secret_place(person_home: Path) -> None:
    asked: list[tuple[str, str, str]] = []

    def allow(tool: str, path: str, why: str) -> bool:
        asked.append((tool, path, why))
        return len(asked) == 1  # yes once, then no

    tools = HostTools(person_home, allow_secret=allow)
    assert call(tools, "read_file", path=".ssh/id_ed25519") == "PRIVATE KEY\n"
    assert call(tools, "read_file", path=".ssh/id_ed25519").startswith("error: ")
    assert asked[0][0] == "read_file"
    assert asked[0][1].endswith("id_ed25519")


# Item 3 ------------------------------------------------------------------------------------


def test_commands_inherit_none_of_the_hosts_secrets(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CURSOR_ACCESS_TOKEN", "access-secret-value")
    monkeypatch.setenv("CURSOR_API_KEY", "crsr_api_secret_value")
    monkeypatch.setenv("NODECODE_SERVE_API_KEY", "serve-secret-value")
    monkeypatch.setenv("HARMLESS_SETTING", "kept")
    tools = HostTools(tmp_path, assume_yes=True)
    answer = call(tools, "run_command", command="env")
    assert "HARMLESS_SETTING=kept" in answer
    for name in ("CURSOR_ACCESS_TOKEN", "CURSOR_API_KEY", "NODECODE_SERVE_API_KEY"):
        assert name not in answer
    assert "secret-value" not in answer and "secret_value" not in answer


# Item 4 ------------------------------------------------------------------------------------


def test_a_nul_in_a_path_or_command_is_a_tool_error(tmp_path: Path) -> None:
    tools = HostTools(tmp_path, assume_yes=True)
    for name, args in (
        ("read_file", {"path": "a\0b"}),
        ("list_directory", {"path": "\0"}),
        ("search_files", {"pattern": "x", "path": "a\0"}),
        ("run_command", {"command": "echo a\0b"}),
    ):
        answer = tools.run(name, json.dumps(args))
        assert answer.startswith("error: ") and "NUL" in answer, (name, answer)


@pytest.mark.timeout(20)
def test_a_fifo_is_refused_not_waited_on(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe")
    (tmp_path / "plain.txt").write_text("findme\n")
    tools = HostTools(tmp_path)
    answer = call(tools, "read_file", path="pipe")
    assert answer.startswith("error: ") and "not a regular file" in answer
    assert call(tools, "search_files", pattern="findme") == "plain.txt:1: findme"
    answer = call(tools, "read_file", path="/dev/zero")
    assert answer.startswith("error: ")  # outside the folder, without --yes
    answer = call(HostTools(tmp_path, assume_yes=True), "read_file", path="/dev/zero")
    assert "not a regular file" in answer


def test_read_file_is_capped_and_reads_a_big_file_by_lines(tmp_path: Path) -> None:
    cap = host_limits.READ_FILE_MAX_BYTES
    line = b"x" * 99 + b"\n"
    with open(tmp_path / "big.txt", "wb") as handle:
        for _ in range(3 * cap // len(line)):
            handle.write(line)
        handle.write(b"the last line\n")
    tools = HostTools(tmp_path)
    answer = call(tools, "read_file", path="big.txt")
    assert answer.startswith("error: ") and "start_line" in answer and str(cap) in answer
    total = 3 * cap // len(line) + 1
    assert call(tools, "read_file", path="big.txt", start_line=total) == "the last line\n"
    assert "has only" in call(tools, "read_file", path="big.txt", start_line=total + 5)
    # A whole range past the cap stops at the cap and says where.
    answer = call(tools, "read_file", path="big.txt", start_line=1)
    assert "stopped at" in answer


@pytest.mark.timeout(60)
def test_command_output_is_kept_as_head_and_tail_with_flat_memory(tmp_path: Path) -> None:
    tools = HostTools(tmp_path, assume_yes=True)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    # 250 MB of output: held whole, the host's peak memory would grow by that much.
    command = (
        f"{sys.executable} -c \"import sys; sys.stdout.write('HEAD\\n'); "
        "[sys.stdout.write('y' * 1048575 + '\\n') for _ in range(250)]; "
        "sys.stdout.write('TAIL\\n')\""
    )
    answer = call(tools, "run_command", command=command, timeout=50)
    grown_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    assert answer.startswith("exit code 0\nHEAD")
    assert answer.rstrip().endswith("TAIL")
    assert "elided" in answer
    assert grown_kib < 100 * 1024, grown_kib


@pytest.mark.timeout(30)
def test_the_timeout_stops_a_child_that_left_the_session(tmp_path: Path) -> None:
    tools = HostTools(tmp_path, assume_yes=True)
    answer = call(tools, "run_command", command="setsid sleep 25 & echo started $!", timeout=2)
    # The command's own deadline fired (not the test's): the answer says which.
    assert answer.startswith("stopped after 2 s (timeout)")
    found = re.search(r"started (\d+)", answer)
    assert found is not None, answer
    # The escaped child is gone too: its pidfd turns readable when it has exited
    # (this test's timeout bounds the wait), and a pid no longer there is gone already.
    try:
        pidfd = os.pidfd_open(int(found.group(1)))
    except ProcessLookupError:
        return
    try:
        readable, _, _ = select.select([pidfd], [], [])
        assert readable == [pidfd]
    finally:
        os.close(pidfd)


# Past the join's own wait below (ten budgets), so the test's assertion, not the
# runner's timeout, says whether the search stopped.
@pytest.mark.timeout(host_limits.SEARCH_BUDGET_SECONDS * 15)
def test_a_catastrophic_regex_stops_at_the_search_budget(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "a.txt").write_text("a" * 60 + "b\n")
    tools = HostTools(tmp_path)
    result: list[str] = []
    worker = threading.Thread(
        target=lambda: result.append(call(tools, "search_files", pattern="(a|aa)+$")),
        daemon=True,
    )
    started = time.monotonic()
    worker.start()
    # The regex engine checks its clock as it goes: on a loaded machine it stops late,
    # but it stops (without the budget this search runs for hours).
    worker.join(host_limits.SEARCH_BUDGET_SECONDS * 10)
    assert result, "the search did not stop"
    assert time.monotonic() - started < host_limits.SEARCH_BUDGET_SECONDS * 10
    assert "search stopped after" in result[0]
