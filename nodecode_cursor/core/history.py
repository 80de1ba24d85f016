"""The host's chat history as Cursor's conversation state: root prompt blobs and turns.

Cursor's run request carries the whole conversation each time, twice over:

* ``root_prompt_messages_json``: the system prompt and every history message
  before the active user message, each a compact JSON blob in the shape of the
  Vercel AI SDK's core messages (this is what the model reads;
  ``history_roots.py`` writes them);
* ``turns``: for each earlier user message, a ConversationTurnStructure blob of
  its UserMessage blob and its step blobs (assistant text, thinking when it may
  replay, one MCP tool-call step per call with its result; ``history_turns.py``
  writes them).

This module puts them together (``build_history``): the trailing user message
(text and inline images) is the run's action, not history; a history that ends
otherwise resumes. Within a budget the oldest messages fold into one transcript
(``fold_history.py`` decides which). Every blob goes into the conversation's
:class:`~nodecode_cursor.core.blobs.BlobStore` and is referenced by its SHA-256.
Blobs are memoised on keys made of the host's own strings, so a message seen in
an earlier round costs a dict lookup, not a JSON encode and a hash: request
building grows linearly with what is new.

Pure: no I/O, no clock. The run request around these ids is ``request.py``'s;
reading the messages is ``history_read.py``'s; which rounds may replay thinking
is ``writers.py``'s policy, passed in.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from itertools import chain
from typing import Any

from .blobs import BlobStore
from .budget import HistoryBudget
from .fold_history import Fold, fold_units
from .history_read import (
    HistoryRead,
    content_items,
    failed_result,
    history_role,
    items_text,
    normalize_call_id,
    parse_data_url,
)
from .history_roots import (
    DEFAULT_SYSTEM_PROMPT,
    ThinkingReplay,
    json_bytes,
    root_ids,
    system_blob_ids,
    transcript_json,
    visible_text,
)
from .history_turns import PROVIDER_IDENTIFIER, NativeReplay, items_images, turn_ids
from .surrogates import valid_unicode

__all__ = [
    "DEFAULT_SYSTEM_PROMPT",
    "PROVIDER_IDENTIFIER",
    "ActiveUser",
    "HistoryBlobs",
    "NativeReplay",
    "ThinkingReplay",
    "build_history",
    "failed_result",
    "json_bytes",
    "normalize_call_id",
    "parse_data_url",
    "system_blob_ids",
    "valid_unicode",
    "visible_text",
]


@dataclass(frozen=True, slots=True)
class ActiveUser:
    """The trailing user message the run's action carries: its text and inline images."""

    text: str
    images: tuple[tuple[str, bytes], ...]


@dataclass(frozen=True, slots=True)
class HistoryBlobs:
    """What the history became: blob ids for the state, and the action's user message."""

    system_ids: tuple[bytes, ...]
    root_ids: tuple[bytes, ...]
    turn_ids: tuple[bytes, ...]
    active: ActiveUser | None
    # Every blob id the state names, directly or through a turn (user message and
    # step blobs included): what the store must keep while this request is current.
    blob_ids: frozenset[bytes] = frozenset()
    # How many history messages were folded into the transcript blob (0: none), and why.
    folded: int = 0
    fold_reason: str = ""


def _fold(
    store: BlobStore,
    read: HistoryRead,
    replay: ThinkingReplay,
    budget: HistoryBudget,
    system_ids: tuple[bytes, ...],
    ends_on_user: bool,
) -> tuple[list[bytes], Fold]:
    """Return the root ids of the history READ within BUDGET, and how it folded.

    Pinned (never folded): when the history does not end on the action's user
    message, its last user message and the last round after it (``fold_history``).
    """
    units = read.units
    pinned: set[int] = set()
    if not ends_on_user:
        last_user = read.last_user_unit
        if last_user >= 0:
            pinned.add(last_user)
        if read.last_round_unit > last_user:
            pinned.add(read.last_round_unit)
    system = len(store.get(system_ids[0]) or b"")
    fold = fold_units(
        units,
        pinned,
        lambda unit: root_ids(store, units[unit][:1], read, replay),
        lambda blob: len(store.get(blob) or b""),
        read.rows,
        read.names,
        budget=budget,
        fixed=(len(system_ids), system),
        transcripts=read.transcript,
    )
    if not fold.folded:
        return [*system_ids, *fold.kept_ids], fold
    text = fold.transcript
    transcript = store.cached(("fold", text), partial(transcript_json, text))
    return [*system_ids, transcript, *fold.kept_ids], fold


def _no_replay(message: Mapping[str, Any]) -> str | None:
    """Return None: no round's thinking replays."""
    return None


def build_history(
    messages: Sequence[Mapping[str, Any]],
    system: str | None,
    store: BlobStore,
    replay: ThinkingReplay | None = None,
    *,
    tool_names: Mapping[str, str] | None = None,
    native: NativeReplay | None = None,
    budget: HistoryBudget | None = None,
    mcp_steps: bool = True,
    memo: HistoryRead | None = None,
) -> HistoryBlobs:
    """Store the history's blobs in STORE and return their ids and the action's user message.

    MESSAGES are OpenAI chat messages (system/developer/user/assistant/tool).
    The trailing user message, when there is one, is the action and stays out
    of the history; REPLAY says, per assistant message, the model name its
    thinking replays under (None: it does not replay). TOOL_NAMES maps host tool
    names to the wire names they are offered under (``bridge.wire_names``); NATIVE
    says which calls were native asks a host tool ran (``bridge.BridgedCalls.replay``),
    replayed as those native steps. Within BUDGET (None: no bound) the oldest
    messages the request cannot carry are folded into one transcript blob after
    the system prompt's (``fold_history.py``). Without MCP_STEPS the turns carry
    no MCP tool-call and no thinking steps (``_assistant_steps``). The ids returned name
    every blob the state needs (``blob_ids``); pruning the rest is the caller's
    call (``BlobStore.retain``). MEMO is the history as an earlier round of the
    session read it (``history_read.HistoryRead``): only newer messages are read.
    """
    policy = replay or _no_replay
    end = len(messages)
    active: ActiveUser | None = None
    last = messages[-1] if messages else None
    if isinstance(last, Mapping) and history_role(last) == "user":
        end -= 1
        items = content_items(last.get("content"))
        text = items.strip() if isinstance(items, str) else items_text(items)
        images = items_images(items)
        if text.strip() or images:
            active = ActiveUser(text, images)
    system_ids = system_blob_ids(store, system)
    read = memo if memo is not None else HistoryRead()
    read.read(messages, end, tool_names or {})
    read.finish()
    fold: Fold | None = None
    visible: Sequence[int] = range(end)
    if budget is None:
        root = list(system_ids) + root_ids(store, range(end), read, policy)
    else:
        root, fold = _fold(store, read, policy, budget, system_ids, end < len(messages))
        if fold.folded:
            units = read.units
            visible = sorted(chain.from_iterable(units[unit] for unit in fold.kept_units))
    named: list[bytes] = []
    turns = turn_ids(store, read, policy, named, visible, native, mcp_steps)
    blob_ids = frozenset((*root, *turns, *named))
    if fold is not None and fold.built_ids:
        # the folded units counted against the budget: kept, so the next round's
        # count finds them built (they are not sent)
        blob_ids |= fold.built_ids
    return HistoryBlobs(
        system_ids,
        tuple(root),
        tuple(turns),
        active,
        blob_ids,
        folded=len(fold.folded) if fold is not None else 0,
        fold_reason=fold.reason if fold is not None else "",
    )
