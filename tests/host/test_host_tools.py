"""The reference host's own tools: what each answers, what each refuses, and their bounds."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from nodecode_host import limits as host_limits
from nodecode_host.errors import HostConfigError
from nodecode_host.host_tools import NATIVE_TOOL_NAMES, HostTools
from nodecode_host.toolbox import bound_output, load_tool_file


def call(tools: HostTools, name: str, **args: object) -> str:
    """Return the result of calling NAME with ARGS."""
    return tools.run(name, json.dumps(args))


@pytest.fixture
def work(tmp_path: Path) -> Path:
    root = tmp_path / "work"
    root.mkdir()
    (root / "a.txt").write_text("one\ntwo\nthree\nfour\n")
    (root / "src").mkdir()
    (root / "src" / "main.py").write_text("def main():\n    return 42  # answer\n")
    (root / ".git").mkdir()
    (root / ".git" / "config").write_text("answer = hidden\n")
    (tmp_path / "secret.txt").write_text("outside\n")
    return root


def test_definitions_are_function_tools_with_names_cursor_does_not_drive(work: Path) -> None:
    definitions = HostTools(work).definitions()
    names = [d["function"]["name"] for d in definitions]
    assert names == ["read_file", "list_directory", "search_files", "run_command"]
    assert not set(names) & NATIVE_TOOL_NAMES
    for definition in definitions:
        assert definition["type"] == "function"
        assert definition["function"]["parameters"]["type"] == "object"
    # Each call gets fresh copies: a caller editing them changes nothing for the next.
    definitions[0]["function"]["name"] = "changed"
    assert HostTools(work).definitions()[0]["function"]["name"] == "read_file"


def test_read_file_whole_and_by_lines(work: Path) -> None:
    tools = HostTools(work)
    assert call(tools, "read_file", path="a.txt") == "one\ntwo\nthree\nfour\n"
    assert call(tools, "read_file", path="a.txt", start_line=2, end_line=3) == "two\nthree\n"
    assert call(tools, "read_file", path="a.txt", start_line=4) == "four\n"
    assert "only 4 lines" in call(tools, "read_file", path="a.txt", start_line=9)
    assert "positive integer" in call(tools, "read_file", path="a.txt", start_line=0)


def test_read_file_refuses_outside_the_folder_unless_allowed(work: Path) -> None:
    refused = call(HostTools(work), "read_file", path="../secret.txt")
    assert refused.startswith("error:") and "outside the working directory" in refused
    assert "outside\n" not in refused
    absolute = call(HostTools(work), "read_file", path=str(work.parent / "secret.txt"))
    assert "outside the working directory" in absolute
    assert call(HostTools(work, assume_yes=True), "read_file", path="../secret.txt") == "outside\n"


def test_read_file_errors_are_text(work: Path) -> None:
    tools = HostTools(work)
    assert "No such file" in call(tools, "read_file", path="missing.txt")
    assert "is a folder" in call(tools, "read_file", path="src")
    (work / "blob.bin").write_bytes(b"\x00\x01\x02" * 10)
    assert "binary file of 30 bytes" in call(tools, "read_file", path="blob.bin")
    assert tools.run("read_file", "{not json").startswith("error: the arguments are not JSON")
    assert tools.run("read_file", "[1]") == "error: the arguments are not a JSON object"
    assert call(tools, "nope") == "error: unknown tool 'nope'"


def test_list_directory_marks_folders_and_is_bounded(work: Path) -> None:
    tools = HostTools(work)
    assert call(tools, "list_directory").splitlines() == [".git/", "a.txt", "src/"]
    assert call(tools, "list_directory", path="src") == "main.py"
    many = work / "many"
    many.mkdir()
    for index in range(host_limits.LIST_MAX_ENTRIES + 7):
        (many / f"f{index:04d}").touch()
    lines = call(tools, "list_directory", path="many").splitlines()
    assert len(lines) == host_limits.LIST_MAX_ENTRIES + 1
    assert lines[-1] == "… and 7 more"


def test_search_files_finds_lines_and_skips_hidden_folders(work: Path) -> None:
    tools = HostTools(work)
    assert (
        call(tools, "search_files", pattern=r"answer") == "src/main.py:2:     return 42  # answer"
    )
    assert call(tools, "search_files", pattern="t[wh]", include="*.txt") == (
        "a.txt:2: two\na.txt:3: three"
    )
    assert call(tools, "search_files", pattern="zzz") == "no matches"
    assert "bad regular expression" in call(tools, "search_files", pattern="(")


def test_search_files_skips_links_outside_the_folder_unless_allowed(work: Path) -> None:
    outside = work.parent / "elsewhere"
    outside.mkdir()
    (outside / "notes.txt").write_text("outside line\n")
    (work / "link.txt").symlink_to(work.parent / "secret.txt")
    (work / "linked").symlink_to(outside, target_is_directory=True)
    (work / "inner.txt").symlink_to(work / "a.txt")  # a link that stays inside is searched
    tools = HostTools(work)
    assert call(tools, "search_files", pattern="outside") == "no matches"
    named = call(tools, "search_files", pattern="outside", path="link.txt")
    assert "outside the working directory" in named and "link.txt:1" not in named
    assert call(tools, "search_files", pattern="two") == "a.txt:2: two\ninner.txt:2: two"
    # read_file refuses the same link.
    assert "outside the working directory" in call(tools, "read_file", path="link.txt")
    allowed = HostTools(work, assume_yes=True)
    assert call(allowed, "search_files", pattern="outside") == "link.txt:1: outside"


def test_search_files_stops_at_the_match_cap(work: Path) -> None:
    lines = "hit\n" * (host_limits.SEARCH_MAX_MATCHES + 50)
    (work / "big.txt").write_text(lines)
    found = call(HostTools(work), "search_files", pattern="hit").splitlines()
    assert len(found) == host_limits.SEARCH_MAX_MATCHES + 1
    assert found[-1] == f"… stopped at {host_limits.SEARCH_MAX_MATCHES} matches"


def test_run_command_needs_a_yes(work: Path) -> None:
    nobody = call(HostTools(work), "run_command", command="touch made")
    assert "needs the person's confirmation" in nobody
    asked: list[str] = []

    def decline(command: str) -> bool:
        asked.append(command)
        return False

    declined = call(HostTools(work, confirm=decline), "run_command", command="touch made")
    assert "declined" in declined and asked == ["touch made"]
    assert not (work / "made").exists()
    ran = call(HostTools(work, confirm=lambda _: True), "run_command", command="touch made; pwd")
    assert ran.startswith("exit code 0\n") and str(work) in ran
    assert (work / "made").exists()
    failed = call(HostTools(work, assume_yes=True), "run_command", command="exit 3")
    assert failed.startswith("exit code 3")


def test_run_command_times_out_and_bounds_its_output(work: Path) -> None:
    tools = HostTools(work, assume_yes=True, command_timeout=0.3)
    started = time.monotonic()
    slow = call(tools, "run_command", command="echo begun; sleep 30")
    assert time.monotonic() - started < 10
    assert slow.startswith("stopped after 0.3 s (timeout)") and "begun" in slow
    loud = call(tools, "run_command", command="head -c 200000 /dev/zero | tr '\\0' x")
    assert len(loud) < host_limits.TOOL_OUTPUT_CHARS + 200
    assert "characters elided" in loud


def test_bound_output_keeps_head_and_tail() -> None:
    text = "A" * 100 + "B" * 100 + "C" * 100
    bounded = bound_output(text, 90)
    assert bounded.startswith("A" * 60) and bounded.endswith("C" * 30)
    assert "[210 characters elided]" in bounded
    assert bound_output("short", 90) == "short"


def test_load_tool_file_accepts_the_usual_shapes(tmp_path: Path) -> None:
    function = {"name": "f", "description": "d", "parameters": {"type": "object"}}
    for shape in ([{"type": "function", "function": function}], {"tools": [function]}):
        path = tmp_path / "tools.json"
        path.write_text(json.dumps(shape))
        tools = load_tool_file(path)
        assert tools.definitions() == [{"type": "function", "function": function}]
        assert not tools.runs("f")


@pytest.mark.parametrize(
    ("content", "says"),
    [("{oops", "is not JSON"), ('{"a": 1}', "JSON array"), ("[42]", "entry 0")],
)
def test_load_tool_file_refuses_what_is_not_tools(tmp_path: Path, content: str, says: str) -> None:
    path = tmp_path / "tools.json"
    path.write_text(content)
    with pytest.raises(HostConfigError, match=says):
        load_tool_file(path)
    with pytest.raises(HostConfigError, match="cannot read"):
        load_tool_file(tmp_path / "missing.json")


def test_arguments_past_the_digit_limit_are_an_error_text(tmp_path: Path) -> None:
    tools = HostTools(tmp_path)
    answer = tools.run("list_directory", '{"path": ' + "1" * 5000 + "}")
    assert answer.startswith("error: the arguments cannot be read")
