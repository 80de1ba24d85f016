"""A coding session of 500 tool calls through the reference host's turn loop, to its end.

Against the strict simulator (a run past 208 root blobs is ended as Cursor ends
it), one question is followed by 500 rounds of one call each whose results run
from 1 to 200 KiB: over 1,000 messages. Every round's request stays within the
history budget and the model answers from the last result.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from long_session import CALLS, QUESTION, calling, hydrated, result_text, within_budget

from cursor_simulator import Simulator
from nodecode_cursor.host import RoundResult
from nodecode_host.refhost import ReferenceHost
from nodecode_host.toolbox import Toolbox
from nodecode_host.turn import Conversation, TurnObserver


class Files(Toolbox):
    """One tool, ``read_file``, whose result for ``{"n": N}`` is ``result_text(N)``."""

    def definitions(self) -> list[dict[str, Any]]:
        """Return the one function tool."""
        schema = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
        return [{"type": "function", "function": {"name": "read_file", "parameters": schema}}]

    def runs(self, name: str) -> bool:
        """Return whether NAME is the one tool."""
        return name == "read_file"

    def run(self, name: str, arguments: str) -> str:
        """Return the result of reading the file the arguments name."""
        import json

        return result_text(int(json.loads(arguments)["n"]))


class Rounds(TurnObserver):
    """Keeps how much each round folded."""

    def __init__(self) -> None:
        self.folded: list[int] = []

    def round_done(self, result: RoundResult) -> None:
        """Keep the round's folded count."""
        self.folded.append(result.folded)


@pytest.mark.sim_answer_timeout(10.0)
def test_five_hundred_tool_calls_run_to_the_end_within_the_budget(
    sim: Simulator, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CURSOR_ACCESS_TOKEN", "sim-token-long-session")
    assert sim.agent.root_limit == 208  # the strict simulator
    for n in range(CALLS):
        sim.agent.script(calling(n, hydrate=n % 50 == 0))
    # then the default scripted model, which answers from the result the history ends on
    host = ReferenceHost(home, overrides={"cursor": {"base_url": sim.url}}, say=lambda _: None)
    host.start()
    rounds = Rounds()
    try:
        conversation = Conversation(
            model="claude-4.5-sonnet",
            session_id="long-session",
            messages=[{"role": "user", "content": QUESTION}],
        )
        outcome = host.run_turn(conversation, Files(), max_rounds=CALLS + 1, observer=rounds)
    finally:
        host.stop()
    assert outcome.rounds == CALLS + 1 and outcome.finish_reason == "stop"
    assert len(conversation.messages) > 1000
    last = CALLS - 1
    assert outcome.message["content"] == f"read_file returned: {result_text(last)}"
    assert outcome.message["content"].endswith(f"the answer of file {last} is {last * 3}")
    runs = [run for run in sim.agent.runs if run.run_request is not None]
    assert len(runs) == CALLS + 1
    assert all(within_budget(run) for run in runs)
    assert sum(1 for run in runs if hydrated(run)) >= CALLS // 50
    # the history folded, and the answer says how much
    assert rounds.folded[-1] > 0 and outcome.folded == rounds.folded[-1]
    assert not sim.agent.violations()
