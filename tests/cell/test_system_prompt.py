"""Which messages are a round's system prompt: the opening ones and those after the person's."""

from __future__ import annotations

from typing import Any

from nodecode_cursor.core.system_prompt import split_system


def test_trailing_system_messages_join_the_prompt_and_leave_the_history() -> None:
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": "You are an agent."},
        {"role": "user", "content": "fix the bug"},
        {"role": "system", "content": "Available agent types: a, b."},
        {"role": "developer", "content": [{"type": "text", "text": "Skills: c."}]},
    ]
    system, history = split_system(messages, None)
    assert system == "You are an agent.\n\nAvailable agent types: a, b.\n\nSkills: c."
    assert history == [{"role": "user", "content": "fix the bug"}]


def test_a_given_prompt_wins_over_the_opening_ones_but_not_the_trailing_ones() -> None:
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": "opening"},
        {"role": "user", "content": "q"},
        {"role": "assistant", "content": "a"},
        {"role": "system", "content": "trailing"},
        {"role": "tool", "tool_call_id": "c", "content": "r"},
    ]
    system, history = split_system(messages, "given")
    assert system == "given\n\ntrailing"
    assert [m["role"] for m in history] == ["user", "assistant", "tool"]


def test_a_system_message_between_user_messages_keeps_its_place() -> None:
    messages: list[dict[str, Any]] = [
        {"role": "user", "content": "one"},
        {"role": "system", "content": "between"},
        {"role": "user", "content": "two"},
    ]
    system, history = split_system(messages, None)
    assert system is None
    assert history == messages


def test_only_system_messages_are_all_the_prompt() -> None:
    messages: list[dict[str, Any]] = [{"role": "system", "content": "only"}]
    assert split_system(messages, None) == ("only", [])
