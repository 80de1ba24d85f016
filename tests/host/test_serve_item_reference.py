"""The Responses API resolves ``item_reference`` from the output items it stored.

The Vercel AI SDK's Responses provider, with ``store`` at its default, sends the
items of the previous response as references by id instead of resending them.
These tests drive ``serve`` over HTTP against the simulator: a reference to a
stored message, reasoning or function call reads as the item itself; an unknown
id, and an item of a ``store: false`` response, are a 400 that says which and why.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest
from served import served

from cursor_simulator import Simulator


def post(client: httpx.Client, **body: Any) -> httpx.Response:
    return client.post("/responses", json={"model": "composer-2.5", **body})


def test_a_reference_to_a_stored_message_reads_as_the_message(
    sim: Simulator, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with served(sim, home, monkeypatch) as api, httpx.Client(base_url=api.url, timeout=30) as c:
        first = post(c, input="hello there")
        assert first.status_code == 200, first.text
        items = first.json()["output"]
        said = next(i for i in items if i["type"] == "message")
        refs = [{"type": "item_reference", "id": item["id"]} for item in items]
        second = post(
            c,
            input=[
                {"role": "user", "content": "hello there"},
                *refs,
                {"role": "user", "content": "and again"},
            ],
        )
    assert second.status_code == 200, second.text
    history = sim.agent.run().root_messages()
    spoken = [m for m in history if m.get("role") == "assistant"]
    assert spoken and said["content"][0]["text"] in str(spoken[-1]["content"])


def test_an_unknown_reference_is_a_400_naming_it(
    sim: Simulator, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with served(sim, home, monkeypatch) as api, httpx.Client(base_url=api.url, timeout=30) as c:
        answer = post(c, input=[{"type": "item_reference", "id": "msg_nowhere"}])
    assert answer.status_code == 400
    error = answer.json()["error"]
    assert "msg_nowhere" in error["message"] and "not kept here" in error["message"]
    assert error["code"] == "item_not_found"


def test_an_item_of_an_unstored_response_is_a_400_saying_so(
    sim: Simulator, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with served(sim, home, monkeypatch) as api, httpx.Client(base_url=api.url, timeout=30) as c:
        first = post(c, input="hello there", store=False)
        assert first.status_code == 200, first.text
        item = first.json()["output"][0]["id"]
        answer = post(c, input=[{"type": "item_reference", "id": item}])
    assert answer.status_code == 400
    message = answer.json()["error"]["message"]
    assert item in message and "store: false" in message
