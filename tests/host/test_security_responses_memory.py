"""The Responses API's memory is bounded (issue 36, item 6): a reference weighs what it names,
and the store keeps a byte budget, not only a count.

300 ``item_reference``s to one 1 MiB item in a 21 KiB request once cost +1.2 GiB: the
items they name now count against the request's body cap. The store's 256 responses
could each hold 64 MiB: it now forgets its oldest past ``RESPONSES_STORE_MAX_BYTES``,
always keeping the newest. Pure: the requests are read and answered as ``serve`` does.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from nodecode_host import contract
from nodecode_host import limits as host_limits
from nodecode_host.api_round import ApiError
from nodecode_host.responses_api import parse_responses_request
from nodecode_host.responses_reply import ResponsesReply
from nodecode_host.responses_store import ResponseStore

MIB = 1024 * 1024


def answered(store: ResponseStore, text: str, prompt: str = "hi") -> dict[str, Any]:
    """Return the stored response a round answering TEXT to PROMPT makes in STORE."""
    body = json.dumps({"model": "composer-2.5", "input": prompt}).encode()
    ask = parse_responses_request(body, store)
    result = contract.RoundResult(
        message={"role": "assistant", "content": text},
        usage=contract.Usage(input=1, output=1),
        finish_reason="stop",
    )
    return ResponsesReply(ask, store).answer(result)


def test_references_weigh_what_they_name_against_the_body_cap() -> None:
    store = ResponseStore()
    response = answered(store, "x" * MIB)
    [item] = response["output"]
    refs = [{"type": "item_reference", "id": item["id"]}] * 300
    body = json.dumps({"model": "composer-2.5", "input": [*refs, "go on"]}).encode()
    assert len(body) < 32 * 1024  # a small request...
    with pytest.raises(ApiError) as refused:
        parse_responses_request(body, store)
    # ...standing for 300 MiB: refused before any of it is built.
    assert refused.value.status == 413
    assert refused.value.body()["error"]["code"] == "request_too_large"
    assert (
        ": the request with its item references resolved passes the 64 MiB"
        in (refused.value.body()["error"]["message"])
    )


def test_references_within_the_cap_still_resolve() -> None:
    store = ResponseStore()
    [item] = answered(store, "x" * MIB)["output"]
    refs = [{"type": "item_reference", "id": item["id"]}] * 3
    user = {"role": "user", "content": "go on"}
    body = json.dumps({"model": "composer-2.5", "input": [*refs, user]}).encode()
    ask = parse_responses_request(body, store)
    # The three items read as the assistant's turn (joined), then the new question.
    assistant, question = ask.round.messages
    assert assistant["role"] == "assistant" and str(assistant["content"]).count("x") == 3 * MIB
    assert question == user


def test_the_store_forgets_its_oldest_past_its_byte_budget() -> None:
    store = ResponseStore(max_bytes=3 * MIB)
    ids = [answered(store, "y" * MIB, prompt=f"turn {n}")["id"] for n in range(6)]
    assert store.bytes <= 3 * MIB
    assert store.get(ids[-1]) is not None
    assert store.get(ids[0]) is None and len(store) < 6
    # The newest is kept whatever it weighs: the next turn builds on it.
    big = answered(store, "z" * 4 * MIB)["id"]
    assert store.get(big) is not None and len(store) == 1


def test_the_default_store_budget_is_named() -> None:
    assert ResponseStore().max_bytes == host_limits.RESPONSES_STORE_MAX_BYTES
