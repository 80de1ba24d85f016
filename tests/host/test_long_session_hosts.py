"""The 500-call session's last rounds through ``ask --history`` processes and through ``serve``.

Each host shape carries the whole history (over 1,000 messages, results of 1 to
200 KiB, screenshots on the way) as an agent does: ``ask --history FILE --json``
run as a separate process per round, the agent appending each call the answer
makes and its result; the ``openai`` SDK against ``serve``, the client appending
likewise. Every request stays within the default budget (root blobs counted,
root JSON bytes counted from what the service hydrated), the answers say the
history folded, and the model answers from the last result. Playing all 500
rounds this way would send about 12 GiB of history JSON: the rounds before the
last few are carried as the agent had them (``long_session.history``); the
reference host's test plays every round.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cli_run import cli_env, json_object, run_cli
from long_session import (
    CALLS,
    READ_FILE,
    calling,
    history,
    result_text,
    screenshot,
    within_budget,
)
from served import served

from cursor_simulator import Simulator
from nodecode_cursor.core.images import placeholder

# The rounds each test plays as a host would: the calls of the last files, then the answer.
LAST = 2
EARLIER_IMAGE = placeholder("image/png", screenshot())


def served_roots(sim: Simulator, index: int) -> str:
    """Return the root blobs run INDEX's request named, as the service hydrated them."""
    run = sim.agent.run(index)
    assert run.run_request is not None
    roots = run.run_request.conversation_state.root_prompt_messages_json
    return "\n".join(run.served[root.hex()].decode() for root in roots)


def result_for(call: dict[str, Any]) -> dict[str, Any]:
    """Return the tool message an agent appends after running CALL (read_file)."""
    n = json.loads(call["function"]["arguments"])["n"]
    return {"role": "tool", "tool_call_id": call["id"], "content": result_text(n)}


@pytest.mark.sim_answer_timeout(30.0)
def test_the_last_rounds_as_ask_history_processes(
    sim: Simulator, home: Path, tmp_path: Path
) -> None:
    first = CALLS - LAST
    for n in range(first, CALLS):
        sim.agent.script(calling(n, hydrate=True))
    # then the default scripted model: it hydrates every root and answers from the last result
    messages = history(first)
    tools = tmp_path / "tools.json"
    tools.write_text(json.dumps([READ_FILE]))
    path = tmp_path / "history.json"
    answers = []
    for _ in range(LAST + 1):
        path.write_text(json.dumps(messages))
        done = run_cli(
            "--base-url", sim.url, "ask", "--json", "--session", "long",
            "--tools", str(tools), "--history", str(path),
            env=cli_env(home), cwd=tmp_path,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr[-2000:]
        answer = json_object(done.stdout)
        answers.append(answer)
        message = answer["message"]
        messages.append(message)
        messages += [result_for(call) for call in message.get("tool_calls") or []]
    assert len(messages) > 1000
    assert [a["finish_reason"] for a in answers] == ["tool_calls"] * LAST + ["stop"]
    last = CALLS - 1
    assert answers[-1]["message"]["content"] == f"read_file returned: {result_text(last)}"
    assert answers[-1]["message"]["content"].endswith(f"the answer of file {last} is {last * 3}")
    for index, answer in enumerate(answers):
        # --json says the history folded, and why
        assert answer["folded"]["messages"] > 900, answer["folded"]
        assert "KiB of prompt" in answer["folded"]["reason"]
        run = sim.agent.run(index)
        assert run.served and within_budget(run)
        # the screenshot of an earlier turn rides as its placeholder, not its bytes
        roots = served_roots(sim, index)
        assert EARLIER_IMAGE in roots and "data:image" not in roots
    assert len(sim.agent.runs) == LAST + 1
    assert not sim.agent.violations()


@pytest.mark.sim_answer_timeout(30.0)
def test_the_last_rounds_through_serve_with_the_openai_sdk(
    sim: Simulator, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import openai

    first = CALLS - LAST
    for n in range(first, CALLS):
        sim.agent.script(calling(n, hydrate=True))
    messages: list[Any] = history(first)
    finish: list[str] = []
    with (
        served(sim, home, monkeypatch) as api,
        openai.OpenAI(base_url=api.url, api_key="unused", max_retries=0, timeout=60) as client,
    ):
        for _ in range(LAST + 1):
            completion = client.chat.completions.create(
                model="claude-4.5-sonnet", messages=messages, tools=[READ_FILE]
            )
            choice = completion.choices[0]
            finish.append(choice.finish_reason)
            message = choice.message.model_dump(exclude_none=True)
            messages.append(message)
            messages += [result_for(call) for call in message.get("tool_calls") or []]
    assert len(messages) > 1000
    assert finish == ["tool_calls"] * LAST + ["stop"]
    last = CALLS - 1
    assert messages[-1]["content"] == f"read_file returned: {result_text(last)}"
    for index in range(LAST + 1):
        run = sim.agent.run(index)
        assert run.served and within_budget(run)
        roots = served_roots(sim, index)
        assert EARLIER_IMAGE in roots and "data:image" not in roots
    assert len(sim.agent.runs) == LAST + 1
    assert not sim.agent.violations()


# The first rounds of the session through serve, from the question on: the history
# passes the budget's 512 KiB after a handful of results and folds from then on.
FIRST = 60


@pytest.mark.sim_answer_timeout(30.0)
def test_the_first_rounds_through_serve_fold_once_the_budget_is_reached(
    sim: Simulator, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import openai

    for n in range(FIRST):
        sim.agent.script(calling(n, hydrate=True))
    messages: list[Any] = history(0)
    with (
        served(sim, home, monkeypatch) as api,
        openai.OpenAI(base_url=api.url, api_key="unused", max_retries=0, timeout=60) as client,
    ):
        for _ in range(FIRST + 1):
            completion = client.chat.completions.create(
                model="claude-4.5-sonnet", messages=messages, tools=[READ_FILE]
            )
            message = completion.choices[0].message.model_dump(exclude_none=True)
            messages.append(message)
            messages += [result_for(call) for call in message.get("tool_calls") or []]
    last = FIRST - 1
    assert messages[-1]["content"] == f"read_file returned: {result_text(last)}"
    runs = sim.agent.runs
    assert len(runs) == FIRST + 1
    assert all(run.served and within_budget(run) for run in runs)
    summaries = ["[Summary of " in served_roots(sim, index) for index in range(FIRST + 1)]
    # no summary until the history is over the budget; from then on, every round folds
    onset = summaries.index(True)
    assert 3 < onset < 15 and all(summaries[onset:]), summaries
    assert not sim.agent.violations()
