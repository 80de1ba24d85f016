"""The one place the reference host reaches the cell contract at run time.

A host must load its cells before it imports anything of theirs: Python keeps
the first module imported under a name, so a host that imported
``nodecode_cursor`` at start-up would shadow the copy in a drop-in folder with
the installed one. So no module of ``nodecode_host`` imports ``nodecode_cursor``
at its top except under ``TYPE_CHECKING``; each reads the contract's names here
(``contract.TextDelta``, ``contract.CursorError``) when it runs, and this module
imports ``nodecode_cursor.host`` (the contract) or ``nodecode_cursor.errors``
(the cell's errors) on the first such read, through the module ``__getattr__``
of PEP 562. By then ``ReferenceHost.start`` has loaded the cells, and the names
come from the copy that was loaded. Nothing is cached: each read goes through
``sys.modules``, which is what the cell itself uses.
"""

from __future__ import annotations

import importlib
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from nodecode_cursor.cell import CursorCell
    from nodecode_cursor.errors import (
        MOVE_ASIDE_HINT,
        NOT_SIGNED_IN,
        SIGN_IN_HINT,
        BadEffort,
        BadUrl,
        ConfigError,
        CredentialError,
        CursorError,
        NotSignedIn,
        StoreError,
        StreamIncomplete,
        UnknownModel,
        json_kind,
        loggable,
        scrub,
    )
    from nodecode_cursor.host import (
        Cell,
        DoctorCheck,
        Finish,
        NativeCall,
        NativeOutcome,
        Notice,
        ReasoningDelta,
        ResolvedCallResult,
        ResolvedCallStart,
        RoundContext,
        RoundResult,
        StreamStart,
        TextDelta,
        ToolCallArgsDelta,
        ToolCallStart,
        Usage,
    )

    def _the_cursor_cell_is_a_cell(cell: CursorCell) -> Cell:
        """Return CELL: mypy checks here that the cell object meets the Cell protocol."""
        return cell


__all__ = [
    "MOVE_ASIDE_HINT",
    "NOT_SIGNED_IN",
    "SIGN_IN_HINT",
    "BadEffort",
    "BadUrl",
    "ConfigError",
    "CredentialError",
    "CursorError",
    "DoctorCheck",
    "Finish",
    "NativeCall",
    "NativeOutcome",
    "NotSignedIn",
    "Notice",
    "ReasoningDelta",
    "ResolvedCallResult",
    "ResolvedCallStart",
    "RoundContext",
    "RoundResult",
    "StoreError",
    "StreamIncomplete",
    "StreamStart",
    "TextDelta",
    "ToolCallArgsDelta",
    "ToolCallStart",
    "UnknownModel",
    "Usage",
    "json_kind",
    "loggable",
    "scrub",
]

# Where each name lives in the cell's package.
_ERRORS = "nodecode_cursor.errors"
_CONTRACT = "nodecode_cursor.host"
_HOMES = {
    **dict.fromkeys(
        (
            "MOVE_ASIDE_HINT",
            "NOT_SIGNED_IN",
            "SIGN_IN_HINT",
            "BadEffort",
            "BadUrl",
            "ConfigError",
            "CredentialError",
            "CursorError",
            "NotSignedIn",
            "StoreError",
            "StreamIncomplete",
            "UnknownModel",
            "json_kind",
            "loggable",
            "scrub",
        ),
        _ERRORS,
    ),
    **dict.fromkeys(
        (
            "DoctorCheck",
            "Finish",
            "NativeCall",
            "NativeOutcome",
            "Notice",
            "ReasoningDelta",
            "ResolvedCallResult",
            "ResolvedCallStart",
            "RoundContext",
            "RoundResult",
            "StreamStart",
            "TextDelta",
            "ToolCallArgsDelta",
            "ToolCallStart",
            "Usage",
        ),
        _CONTRACT,
    ),
}


def __getattr__(name: str) -> Any:
    """Return the contract's NAME, importing its module on first use (PEP 562)."""
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    # sys.modules first: a streamed answer reads names for every part it sends, and
    # import_module takes the import lock each time even for a module already loaded.
    module = sys.modules.get(home)
    if module is None:
        module = importlib.import_module(home)
    return getattr(module, name)
