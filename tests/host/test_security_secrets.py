"""Other agents' credentials are secret places too, for every tool (issue 22, items 3, 7, 13).

A real home folder in a temp folder holds the credential files of the tools
people keep beside this one; the host's real tools (and the runner of Cursor's
own tools) are called on it as the model would call them.
"""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

import pytest

from nodecode_cursor.host import NativeCall
from nodecode_host.host_tools import HostTools
from nodecode_host.native_tools import NativeTools

CREDENTIALS = (
    ".claude/.credentials.json",
    ".codex/auth.json",
    ".config/cursor/auth.json",
    ".cursor/cli-config.json",
    ".config/gh/hosts.yml",
    ".cargo/credentials.toml",
    ".git-credentials",
    ".config/git/credentials",
    ".vault-token",
    ".config/gcloud/credentials.db",
    ".bash_history",
    ".zsh_history",
)


def call(tools: HostTools, name: str, **args: object) -> str:
    """Return the result of calling NAME with ARGS."""
    return tools.run(name, json.dumps(args))


@pytest.fixture
def person_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A home folder with each tool's credential file holding SECRET, and a plain file."""
    home = tmp_path / "person"
    for relative in CREDENTIALS:
        (home / relative).parent.mkdir(parents=True, exist_ok=True)
        (home / relative).write_text("token = SECRET\n")
    (home / ".bashrc").write_text("alias ll='ls -l'\n")
    (home / "notes.txt").write_text("plain notes\n")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("NODECODE_HOME", str(home / ".nodecode"))
    return home


def test_other_agents_credentials_are_refused_even_with_yes(person_home: Path) -> None:
    tools = HostTools(person_home, assume_yes=True)
    for relative in CREDENTIALS:
        answer = call(tools, "read_file", path=relative)
        assert answer.startswith("error: ") and "SECRET" not in answer, (relative, answer)
    assert call(tools, "read_file", path="notes.txt") == "plain notes\n"


def test_glob_lists_nothing_inside_a_secret_place(person_home: Path) -> None:
    runner = NativeTools(HostTools(person_home, assume_yes=True))
    found = asyncio.run(runner(NativeCall("glob", "g1", pattern="*", path=".claude")))
    assert ".credentials.json" not in found.text, found
    anywhere = asyncio.run(runner(NativeCall("glob", "g2", pattern="**/*.json", path=".")))
    assert "credentials" not in anywhere.text and "auth.json" not in anywhere.text, anywhere


def test_a_shell_in_a_secret_place_is_refused(person_home: Path) -> None:
    runner = NativeTools(HostTools(person_home, assume_yes=True))
    outcome = asyncio.run(runner(NativeCall("shell", "s1", command="cat *", cwd=".codex")))
    assert outcome.status == "refused" and "SECRET" not in outcome.text, outcome


def test_a_chat_started_in_the_home_asks_before_any_dot_path(person_home: Path) -> None:
    asked: list[str] = []

    def allow(tool: str, path: str, why: str) -> bool:
        asked.append(path)
        return False

    tools = HostTools(person_home, assume_yes=True, allow_secret=allow)
    answer = call(tools, "read_file", path=".bashrc")
    assert answer.startswith("error: ") and asked == [str(person_home / ".bashrc")], answer
    assert call(tools, "read_file", path="notes.txt") == "plain notes\n"
    # Started in a project folder, its own dot-files are read as before.
    project = person_home / "project"
    project.mkdir()
    (project / ".env.example").write_text("PORT=1\n")
    assert call(HostTools(project, assume_yes=True), "read_file", path=".env.example") == "PORT=1\n"


def test_a_secret_place_in_other_letter_case_is_one(person_home: Path) -> None:
    (person_home / ".SSH").mkdir()
    (person_home / ".SSH" / "id_rsa").write_text("PRIVATE\n")
    project = person_home / "work"
    project.mkdir()
    tools = HostTools(person_home / "work", assume_yes=True)
    assert call(tools, "read_file", path="../.SSH/id_rsa").startswith("error: ")


def test_a_hard_link_to_a_secret_file_is_refused(person_home: Path) -> None:
    project = person_home / "work"
    project.mkdir()
    os.link(person_home / ".codex" / "auth.json", project / "innocent.txt")
    tools = HostTools(project, assume_yes=True)
    answer = call(tools, "read_file", path="innocent.txt")
    assert answer.startswith("error: ") and "SECRET" not in answer, answer
    found = call(tools, "search_files", pattern="SECRET")
    assert found == "no matches", found
