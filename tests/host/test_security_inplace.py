"""In-place write, edit, delete and shell act on what the person confirmed (issue 22, 2, 4, 6, 9).

The runner of Cursor's own tools (``NativeTools`` on the real ``HostTools``) is
driven with the calls the service sends; the person is a function that records
each question and answers it. Links are real links in a real folder, and the
swap of a link between the question and the write happens while the question is
open, as a local user racing the write would do it.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from nodecode_cursor.host import NativeCall, NativeOutcome
from nodecode_host.host_tools import HostTools
from nodecode_host.native_tools import NativeTools


class Person:
    """Answers every question with ANSWER, after running DURING (while the question is open)."""

    def __init__(self, answer: bool = True, during: Callable[[], None] | None = None) -> None:
        self.answer = answer
        self.during = during
        self.questions: list[str] = []

    def __call__(self, question: str, stop: threading.Event) -> bool:
        self.questions.append(question)
        if self.during is not None:
            self.during()
        return self.answer


def run(
    folder: Path, call: NativeCall, person: Person | None, *, yes: bool = False
) -> NativeOutcome:
    """Return the outcome of CALL run in place in FOLDER, PERSON asked (None: nobody)."""
    runner = NativeTools(HostTools(folder, assume_yes=yes), ask=person)
    return asyncio.run(runner(call))


@pytest.fixture
def layout(tmp_path: Path) -> tuple[Path, Path]:
    """Return (the working folder, a folder beside it that the tools must not reach)."""
    folder = tmp_path / "work"
    outside = tmp_path / "outside"
    folder.mkdir()
    outside.mkdir()
    (folder / ".git" / "hooks").mkdir(parents=True)
    return folder, outside


def test_a_write_through_a_linked_last_component_is_refused(layout: tuple[Path, Path]) -> None:
    folder, _ = layout
    (folder / "docs").mkdir()
    hook = folder / ".git" / "hooks" / "pre-commit"
    hook.write_text("#!/bin/sh\n")
    (folder / "docs" / "notes.md").symlink_to(hook)
    person = Person()
    outcome = run(folder, NativeCall("write", "w1", path="docs/notes.md", content="x"), person)
    assert outcome.status == "refused", outcome
    assert "link" in outcome.text
    assert hook.read_text() == "#!/bin/sh\n"
    assert (folder / "docs" / "notes.md").is_symlink()


def test_the_question_names_the_path_acted_on_and_the_link(layout: tuple[Path, Path]) -> None:
    folder, _ = layout
    (folder / "real").mkdir()
    (folder / "docs").symlink_to("real")
    person = Person()
    outcome = run(folder, NativeCall("write", "w1", path="docs/a.md", content="hi"), person)
    assert outcome.status == "done", outcome
    [question] = person.questions
    assert question.startswith("write real/a.md (2 bytes)"), question
    assert "through a link" in question and "docs/a.md" in question
    assert (folder / "real" / "a.md").read_text() == "hi"


def test_delete_removes_the_link_never_its_target(layout: tuple[Path, Path]) -> None:
    folder, outside = layout
    victim = outside / "keep.txt"
    victim.write_text("precious\n")
    (folder / "scratch.tmp").symlink_to(victim)
    person = Person()
    outcome = run(folder, NativeCall("delete", "d1", path="scratch.tmp"), person)
    assert outcome.status == "done", outcome
    assert not (folder / "scratch.tmp").is_symlink() and not (folder / "scratch.tmp").exists()
    assert victim.read_text() == "precious\n"
    [question] = person.questions
    assert "link" in question and "scratch.tmp" in question


def test_a_folder_swapped_for_a_link_while_asking_cannot_move_the_write(
    layout: tuple[Path, Path],
) -> None:
    folder, outside = layout
    (folder / "docs").mkdir()

    def swap() -> None:
        os.rename(folder / "docs", folder / "docs.old")
        (folder / "docs").symlink_to(outside)

    outcome = run(
        folder, NativeCall("write", "w1", path="docs/a.md", content="x"), Person(True, swap)
    )
    assert outcome.status in ("refused", "failed"), outcome
    assert list(outside.iterdir()) == []


# A local user who can write the folder swaps docs/ for a link to OUTSIDE and back, as
# fast as it can, from a process of its own; nothing it does may land a write outside.
_SWAPPER = """
import contextlib, os, shutil, sys
docs, aside, link, stop = sys.argv[1:]
print("swapping", flush=True)
while not os.path.exists(stop):
    try:
        os.rename(docs, aside)
        os.rename(link, docs)
        os.rename(docs, link)
        os.rename(aside, docs)
    except OSError:
        # The writer made docs/ anew while it was away: put the folder back.
        with contextlib.suppress(OSError):
            if os.path.islink(docs):
                os.rename(docs, link)
            elif os.path.isdir(docs) and os.path.isdir(aside):
                shutil.rmtree(docs)
            if os.path.isdir(aside):
                os.rename(aside, docs)
"""


def test_a_racing_link_swap_never_lands_a_write_outside(layout: tuple[Path, Path]) -> None:
    folder, outside = layout
    (folder / "docs").mkdir()
    (folder / "lnk").symlink_to(outside)
    stop = folder.parent / "stop"
    swapper = subprocess.Popen(
        [
            sys.executable,
            "-c",
            _SWAPPER,
            str(folder / "docs"),
            str(folder / "aside"),
            str(folder / "lnk"),
            str(stop),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert swapper.stdout is not None and swapper.stdout.readline() == "swapping\n"
        tools = HostTools(folder, assume_yes=True)
        runner = NativeTools(tools)

        async def writes() -> None:
            for index in range(300):
                await runner(NativeCall("write", f"w{index}", path="docs/a.md", content="x"))

        asyncio.run(writes())
    finally:
        stop.touch()
        swapper.wait(30)
    assert list(outside.iterdir()) == []


def test_a_file_swapped_for_a_link_while_asking_is_not_followed(
    layout: tuple[Path, Path],
) -> None:
    folder, outside = layout
    target = outside / "target.txt"
    target.write_text("old words\n")
    (folder / "b.txt").write_text("old words\n")

    def swap() -> None:
        (folder / "b.txt").unlink()
        (folder / "b.txt").symlink_to(target)

    for call in (
        NativeCall("write", "w1", path="b.txt", content="new\n"),
        NativeCall("edit", "e1", path="b.txt", edits=(("old", "new"),)),
    ):
        if (folder / "b.txt").is_symlink():
            (folder / "b.txt").unlink()
            (folder / "b.txt").write_text("old words\n")
        outcome = run(folder, call, Person(True, swap))
        assert outcome.status in ("refused", "failed"), outcome
        assert target.read_text() == "old words\n"


def test_yes_keeps_writes_inside_the_folder(layout: tuple[Path, Path]) -> None:
    folder, outside = layout
    call = NativeCall("write", "w1", path="../outside/new.txt", content="x")
    nobody = run(folder, call, None, yes=True)
    assert nobody.status == "refused", nobody
    assert not (outside / "new.txt").exists()
    person = Person(answer=False)
    asked = run(folder, call, person, yes=True)
    assert asked.status == "refused" and len(person.questions) == 1
    assert "outside" in person.questions[0]
    assert not (outside / "new.txt").exists()
    (outside / "old.txt").write_text("x")
    gone = run(folder, NativeCall("delete", "d1", path="../outside/old.txt"), None, yes=True)
    assert gone.status == "refused" and (outside / "old.txt").exists()


def test_git_inside_the_folder_needs_a_yes_even_with_yes(layout: tuple[Path, Path]) -> None:
    folder, _ = layout
    call = NativeCall("write", "w1", path=".git/hooks/pre-commit", content="#!/bin/sh\nevil\n")
    nobody = run(folder, call, None, yes=True)
    assert nobody.status == "refused", nobody
    assert not (folder / ".git" / "hooks" / "pre-commit").exists()
    person = Person()
    allowed = run(folder, call, person, yes=True)
    assert allowed.status == "done" and ".git" in person.questions[0]
    # Elsewhere in the folder --yes still needs no question.
    quiet = Person()
    assert run(folder, NativeCall("write", "w2", path="a.txt", content="x"), quiet, yes=True)
    assert quiet.questions == []


def test_a_shell_ask_names_its_working_folder(layout: tuple[Path, Path]) -> None:
    folder, _ = layout
    (folder / "keep").mkdir()
    person = Person(answer=False)
    run(folder, NativeCall("shell", "s1", command="rm -rf ./*", cwd="keep"), person)
    [question] = person.questions
    assert "keep" in question, question
    at_root = Person(answer=False)
    run(folder, NativeCall("shell", "s2", command="ls", cwd=str(folder)), at_root)
    assert "folder" not in at_root.questions[0], at_root.questions[0]
