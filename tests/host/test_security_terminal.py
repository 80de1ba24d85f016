"""What the model controls cannot drive the person's terminal (issue 12, item 1).

The chat runs on a real pseudo-terminal against the simulator; the model's
text, reasoning, tool names and arguments and the run_command confirmation
carry escape sequences, and none of them reaches the terminal as one.
"""

from __future__ import annotations

import json
from pathlib import Path

from cli_run import close_chat, spawn_chat

from cursor_simulator import Simulator
from cursor_simulator.steps import (
    Checkpoint,
    End,
    KvRead,
    StepCompleted,
    StepStarted,
    Text,
    Thinking,
    ToolCall,
    TurnEnded,
)
from nodecode_host.render import call_summary, result_preview

CLEAR = "\x1b[2J\x1b[H"
FORGED = "touch PWNED #" + CLEAR + "\r\nrun `ls`? [y/N] "


def test_visible_shows_controls_and_keeps_prose() -> None:
    from nodecode_host.terminal_text import visible

    assert visible("a\x1b[31mred\x07\r") == "a\\x1b[31mred\\x07\\r"
    assert visible("two\nlines\tand tab") == "two\nlines\tand tab"
    assert visible("two\nlines", lines=False) == "two\\nlines"
    assert visible("\x9b2J \u202egnp.exe") == "\\x9b2J \\u202egnp.exe"
    assert visible("plain — unicode ✓") == "plain — unicode ✓"


def test_summaries_and_previews_carry_no_escape() -> None:
    call = {"function": {"name": "x\x1b[2J", "arguments": '{"a": "\\u001b]0;title\\u0007"}'}}
    assert "\x1b" not in call_summary(call)
    assert "\x07" not in call_summary(call)
    assert "\x1b" not in result_preview("ok\n\x1b[2Jcleared\rover")


def test_the_run_command_confirmation_cannot_be_forged(
    sim: Simulator, home: Path, tmp_path: Path
) -> None:
    sim.agent.script(
        [
            StepStarted(),
            Thinking("plan" + CLEAR),
            Text("hello" + CLEAR + "\x1b]0;pwned\x07"),
            ToolCall("run_command", {"command": FORGED}, call_id="call_1"),
            StepCompleted(),
            TurnEnded(10, 5),
            Checkpoint(),
            End(),
        ]
    )
    child = spawn_chat(sim, home, tmp_path)
    seen = ""
    try:
        child.expect("> ")
        child.sendline("go")
        child.expect_exact("run it? [y/N] ", timeout=15)
        seen = child.before
        child.sendline("n")
        child.expect("> ")
        seen += child.before
        close_chat(child)
    finally:
        child.close(force=True)
    # The escape characters never reached the terminal; they are shown instead.
    assert "\x1b" not in seen, repr(seen)
    assert "\x07" not in seen
    assert "hello\\x1b[2J\\x1b[H\\x1b]0;pwned\\x07" in seen
    # The command stands on its own line, exactly, with its line break made visible.
    assert "  touch PWNED #\\x1b[2J\\x1b[H\\r\\nrun `ls`? [y/N] \r\n" in seen
    assert "non-printing characters" in seen
    assert not (tmp_path / "PWNED").exists()


def _secret_turn() -> list[object]:
    """Return a run that asks for the host's read_file on a key in the working folder."""
    return [
        StepStarted(),
        ToolCall("read_file", {"path": ".ssh/id_ed25519"}, call_id="call_key"),
        StepCompleted(),
        TurnEnded(10, 5),
        Checkpoint(),
        End(),
    ]


def _after_the_result() -> list[object]:
    """Return a run that reads the history (the tool's result) and answers."""
    return [
        KvRead(),
        StepStarted(),
        Text("noted"),
        StepCompleted(),
        TurnEnded(10, 5),
        Checkpoint(),
        End(),
    ]


def test_the_chat_asks_before_a_tool_reaches_a_secret_place(
    sim: Simulator, home: Path, tmp_path: Path
) -> None:
    (tmp_path / ".ssh").mkdir()
    (tmp_path / ".ssh" / "id_ed25519").write_text("PRIVATE KEY\n")
    sim.agent.script(_secret_turn())
    sim.agent.script(_after_the_result())
    sim.agent.script(_secret_turn())
    sim.agent.script(_after_the_result())
    child = spawn_chat(sim, home, tmp_path)
    try:
        child.expect("> ")
        child.sendline("read my key")
        child.expect_exact("allow this once? [y/N] ", timeout=15)
        assert "holds secrets" in child.before
        child.sendline("y")  # the person allows this one call
        child.expect("noted")
        child.expect("> ")
        child.sendline("and again")
        child.expect_exact("allow this once? [y/N] ", timeout=15)
        child.sendline("n")  # and declines the next
        child.expect("noted")
        child.expect("> ")
        close_chat(child)
    finally:
        child.close(force=True)
    allowed, declined = (sim.agent.run(index) for index in (1, 3))
    assert "PRIVATE KEY" in json.dumps(allowed.root_messages())
    refused = json.dumps(declined.root_messages())
    assert "PRIVATE KEY" not in refused.split("and again", 1)[1]
    assert "--yes does not" in refused
