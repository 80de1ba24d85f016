"""The host contract: what the cell needs from a Nodecode-style host, and what it gives back.

There is no Python Nodecode to import, so the seam is stated as typed protocols
and dataclasses, and this module is where a host imports them from. A host
implements ``Host`` and uses a cell object through ``Cell``; per round it
builds a ``RoundContext`` and awaits the lane, which returns a ``RoundResult``
and streams ``StreamPart``s to ``on_part`` as they arrive. ``MemoryHost`` is a
minimal in-memory host for tests and scripts.

Each side of the seam is a module of ``contract/``, in the order a round
crosses it: ``hosting.py`` (what the cell needs from its host), ``rounds.py``
(a round's context in, its result out), ``parts.py`` (what it streams meanwhile),
``native_calls.py`` (Cursor's own tools run in place while the run waits) and
``cell_face.py`` (what a host reads of a loaded cell). This module only gathers
their names under the one path hosts import; it holds no logic of the protocol
and must stay small and stable.
"""

from __future__ import annotations

from .contract.cell_face import (
    AccountUsageView,
    Cell,
    CellCommand,
    DoctorCheck,
    ModelEntry,
    ModelList,
    Route,
    SignInState,
    UsageWindowView,
)
from .contract.hosting import Host, MemoryHost, Notice, NoticeLevel, default_home
from .contract.native_calls import NATIVE_KINDS, NativeCall, NativeOutcome, NativeRunner
from .contract.parts import (
    Finish,
    FinishReason,
    ReasoningDelta,
    ResolvedCallResult,
    ResolvedCallStart,
    StreamPart,
    StreamStart,
    TextDelta,
    ToolCallArgsDelta,
    ToolCallStart,
)
from .contract.rounds import AccountSwitch, RoundContext, RoundResult, Usage

__all__ = [
    "NATIVE_KINDS",
    "AccountSwitch",
    "AccountUsageView",
    "Cell",
    "CellCommand",
    "DoctorCheck",
    "Finish",
    "FinishReason",
    "Host",
    "MemoryHost",
    "ModelEntry",
    "ModelList",
    "NativeCall",
    "NativeOutcome",
    "NativeRunner",
    "Notice",
    "NoticeLevel",
    "ReasoningDelta",
    "ResolvedCallResult",
    "ResolvedCallStart",
    "RoundContext",
    "RoundResult",
    "Route",
    "SignInState",
    "StreamPart",
    "StreamStart",
    "TextDelta",
    "ToolCallArgsDelta",
    "ToolCallStart",
    "Usage",
    "UsageWindowView",
    "default_home",
]
