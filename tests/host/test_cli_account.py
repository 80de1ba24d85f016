"""The account in the reference host: cost estimates in ``ask --json`` and the chat, and the
chat's standing notice when the plan runs low (80 %, 95 %, cleared by a new period)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from cli_run import TOKEN, cli_env, run_main

from cursor_simulator import Simulator
from cursor_simulator.dashboard import USAGE_PATH
from cursor_simulator.steps import End, Text, TurnEnded
from nodecode_host.chat import USAGE_KEY, ChatRepl, money
from nodecode_host.refhost import ReferenceHost
from nodecode_host.toolbox import Toolbox
from nodecode_host.turn import Conversation


def test_ask_json_carries_the_estimate_only_for_a_priced_model(sim: Simulator, home: Path) -> None:
    sim.agent.script([Text("hi"), TurnEnded(input=1000, output=200, cache_read=400), End()])
    done = run_main(
        "--base-url",
        sim.url,
        "ask",
        "--json",
        "--model",
        "composer-2.5",
        "--tools",
        "none",
        "hi",
        env=cli_env(home),
    )
    usage = json.loads(done.stdout)["usage"]
    # composer-2.5: input 0.5, output 2.5, cache read 0.2 USD per million (models.json).
    assert usage["cost_usd_estimate"] == pytest.approx((600 * 0.5 + 200 * 2.5 + 400 * 0.2) / 1e6)
    sim.agent.script([Text("hi"), TurnEnded(input=1000, output=200), End()])
    unpriced = run_main(
        "--base-url",
        sim.url,
        "ask",
        "--json",
        "--model",
        "composer-1.5",
        "--tools",
        "none",
        "hi",
        env=cli_env(home),
    )
    assert "cost_usd_estimate" not in json.loads(unpriced.stdout)["usage"]


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def chat(
    sim: Simulator, home: Path, monkeypatch: pytest.MonkeyPatch
) -> tuple[ChatRepl, io.StringIO, Clock, ReferenceHost]:
    monkeypatch.setenv("CURSOR_ACCESS_TOKEN", TOKEN)
    host = ReferenceHost(home, overrides={"cursor": {"base_url": sim.url}})
    host.start()
    out, clock = io.StringIO(), Clock()
    conversation = Conversation(model="composer-2.5", session_id="s-account")
    repl = ChatRepl(host, conversation, Toolbox(), out=out, usage_interval=300.0, clock=clock)
    yield repl, out, clock, host
    host.stop()


def notice(host: ReferenceHost) -> str | None:
    return next((n.text for n in host.notices() if n.key == USAGE_KEY), None)


def test_the_chat_footer_and_cost_sum(
    chat: tuple[ChatRepl, io.StringIO, Clock, ReferenceHost], sim: Simulator
) -> None:
    repl, out, _clock, _host = chat
    for _ in range(2):
        sim.agent.script([Text("hi"), TurnEnded(input=10_000, output=1000), End()])
        repl.turn("hello")
    one = (10_000 * 0.5 + 1000 * 2.5) / 1e6
    # $0.0075: whole cents in the footer (never "$0.0000"), the sum to the tenth of a cent.
    assert out.getvalue().count("── tokens in 10000 / out 1000 · est. $0.01 ──") == 2
    repl.slash("/cost")
    assert f"cost: about ${2 * one:.4f} over 2 turns" in out.getvalue()
    repl.slash("/model composer-1.5")
    sim.agent.script([Text("hi"), TurnEnded(input=10, output=10), End()])
    repl.turn("hello")
    assert "── tokens in 10 / out 10 ──" in out.getvalue()
    repl.slash("/cost")
    assert "1 turn(s) on models without a known price are not counted" in out.getvalue()


def test_the_plan_notice_at_80_then_95_and_cleared_by_a_new_period(
    chat: tuple[ChatRepl, io.StringIO, Clock, ReferenceHost], sim: Simulator
) -> None:
    repl, _out, clock, host = chat
    repl.turn("hello")
    assert sim.dashboard.count(USAGE_PATH) == 1
    assert notice(host) is None  # 65 % at most
    sim.dashboard.set_percents(50.0, auto=20.0, api=83.0)
    repl.turn("hello")
    assert sim.dashboard.count(USAGE_PATH) == 1  # asked at most every few minutes
    repl.slash("/cursor status")
    repl.slash("/models")
    assert sim.dashboard.count(USAGE_PATH) == 1  # never on a status question
    clock.now += 301
    repl.turn("hello")
    assert sim.dashboard.count(USAGE_PATH) == 2
    warned = notice(host)
    assert warned is not None and warned.startswith("cursor: 83% of your plan's API usage is used")
    sim.dashboard.set_percents(50.0, auto=20.0, api=88.0)
    clock.now += 301
    repl.turn("hello")
    assert notice(host) == warned  # 80 % warned once: the notice stands as it was
    sim.dashboard.set_percents(96.0, auto=20.0, api=88.0)
    clock.now += 301
    repl.turn("hello")
    now = notice(host)
    assert now is not None and now.startswith("cursor: 96% of your plan's Total usage is used")
    sim.dashboard.new_period()
    clock.now += 301
    repl.turn("hello")
    assert notice(host) is None


def test_the_plan_notice_on_a_plan_with_usage_based_pricing(
    chat: tuple[ChatRepl, io.StringIO, Clock, ReferenceHost], sim: Simulator
) -> None:
    # Past the plan, rounds go on at a price: the notice warns all the same, once per level.
    repl, _out, clock, host = chat
    sim.dashboard.usage_based(limit_dollars=100, spent_cents=2550)
    sim.dashboard.set_percents(81.0, auto=20.0, api=30.0)
    repl.turn("hello")
    warned = notice(host)
    assert warned is not None and warned.startswith(
        "cursor: 81% of your plan's Total usage is used"
    )
    sim.dashboard.set_percents(100.0)
    clock.now += 301
    repl.turn("hello")
    full = notice(host)
    assert full is not None and full.startswith("cursor: 100% of your plan's Total usage is used")
    assert full.endswith("(/cursor usage)")
    clock.now += 301
    repl.turn("hello")
    assert notice(host) == full and sim.dashboard.count(USAGE_PATH) == 3
    sim.dashboard.new_period()
    clock.now += 301
    repl.turn("hello")
    assert notice(host) is None


def test_a_refused_dashboard_leaves_the_chat_quiet(
    chat: tuple[ChatRepl, io.StringIO, Clock, ReferenceHost], sim: Simulator
) -> None:
    repl, out, _clock, host = chat
    sim.dashboard.refuse(USAGE_PATH, 500, "internal", "boom")
    repl.turn("hello")
    assert sim.dashboard.count(USAGE_PATH) == 1
    assert notice(host) is None
    assert "error" not in out.getvalue()


def test_the_footer_shows_whole_cents_or_less_than_one() -> None:
    assert [money(v) for v in (0.0, 0.0001, 0.0049, 0.005, 0.0123, 1.5)] == [
        "<$0.01",
        "<$0.01",
        "<$0.01",
        "$0.01",
        "$0.01",
        "$1.50",
    ]
