"""The reference host: a Nodecode-style host in miniature, the way ``nodecode-cursor`` runs cells.

``ReferenceHost`` implements the host contract of ``host.py`` (home, config
sections from ``config.json``, standing notices, said lines) and does what a
Nodecode-style host does with cells:

* **discovery**: cells named by entry points in the group ``nodecode.cells``,
  and drop-in folders ``$NODECODE_HOME/cells/*/cell.toml``, found and imported
  by ``cell_sources.py``; a folder wins over an entry point giving the same cell;
* **veto**: a config section with ``"enabled": false`` keeps its cell out: no
  lane, no command;
* **start/stop**: starting a cell registers its lanes and commands; stopping it
  takes them out (the cell itself ends a sign-in in progress and forgets its
  conversations) and clears the standing notices;
* **the turn loop**: ``run_turn`` runs a turn's rounds on the host's event loop
  (Ctrl-C cancels the round), taking ``turn.Turn``'s steps in order.

The host imports nothing of a cell before it loads the cells (``contract.py``
says why): a drop-in folder's copy of a package is then the one Python keeps, and
the DEBUG log names the file each cell's module was loaded from.

Finding and importing cells is ``cell_sources.py``'s; a turn's steps and its
account are ``turn.py``'s; rendering is ``render.py``'s, the command line
``cli.py``'s (and its ``cli_*.py``), the REPL ``chat.py``'s; the tools themselves
are ``host_tools.py``'s; everything Cursor-specific is the cell's.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from . import contract
from . import limits as host_limits
from .cell_sources import CellSource, discover_cells, import_cell, outside_folder
from .errors import HostConfigError
from .turn import Conversation, RoundHeard, Turn, TurnObserver, TurnOutcome, host_calls

if TYPE_CHECKING:
    import asyncio

    from nodecode_cursor.host import (
        Cell,
        CellCommand,
        NativeRunner,
        Notice,
        NoticeLevel,
        RoundContext,
        RoundResult,
    )

    from .toolbox import Toolbox

__all__ = [
    # Re-exported for cli_ask.py and cli_demo.py, which import it from here (its home is turn.py).
    "Conversation",
    "LoadedCell",
    "ReferenceHost",
]

log = logging.getLogger(__name__)


Lane = Callable[["RoundContext"], Awaitable["RoundResult"]]
T = TypeVar("T")


@dataclass(slots=True)
class LoadedCell:
    """A cell the host imported, and what became of it."""

    source: CellSource
    cell: Cell
    module_file: str | None
    started: bool = False
    vetoed_by: str | None = None


class ReferenceHost:
    """A host that loads cells, keeps config and notices, and runs turns."""

    def __init__(
        self,
        home: Path | str,
        *,
        overrides: Mapping[str, Mapping[str, Any]] | None = None,
        say: Callable[[str], None] | None = None,
    ) -> None:
        self._home = Path(home)
        self._overrides = {k: dict(v) for k, v in (overrides or {}).items()}
        self._defaults: dict[str, dict[str, Any]] = {}
        self._file: dict[str, Any] | None = None
        self._notices: dict[str, Notice] = {}
        self._lock = threading.Lock()
        self._say = say or (lambda text: print(text, flush=True))
        self.cells: list[LoadedCell] = []
        self.lanes: dict[str, Lane] = {}
        self.commands: dict[str, CellCommand] = {}
        self.problems: list[str] = []
        self._vetoed: dict[str, str] = {}
        self._runner: asyncio.Runner | None = None

    # The contract of host.Host ---------------------------------------------------------

    @property
    def home(self) -> Path:
        """The host's home folder (auth.json, config.json, cells/)."""
        return self._home

    @property
    def config_path(self) -> Path:
        """The host's config.json (it need not exist)."""
        return self._home / "config.json"

    def config_file(self) -> dict[str, Any]:
        """Return config.json as a dict (empty if absent or blank); HostConfigError if not JSON."""
        if self._file is None:
            path = self.config_path
            try:
                text = path.read_text("utf-8")
                # A file created empty (touch, an editor's new file) means "nothing set".
                raw = json.loads(text) if text.strip() else {}
            except FileNotFoundError:
                raw = {}
            except (OSError, UnicodeDecodeError, ValueError, RecursionError) as exc:
                # ValueError covers JSONDecodeError and numbers past Python's digit limit.
                raise HostConfigError(f"cannot read {path}: {exc}") from None
            if not isinstance(raw, dict):
                raise HostConfigError(f"{path} must hold a JSON object")
            self._file = raw
        return self._file

    def config(self, section: str) -> Mapping[str, Any]:
        """Return SECTION: manifest defaults, then config.json, then command-line overrides.

        HostConfigError when config.json gives SECTION as something other than an object:
        ignoring it would quietly drop what the person meant to set (a veto included).
        """
        merged = dict(self._defaults.get(section, {}))
        from_file = self.config_file().get(section)
        if isinstance(from_file, dict):
            merged.update(from_file)
        elif from_file is not None:
            raise HostConfigError(
                f'"{section}" in {self.config_path} must be a JSON object '
                f'(e.g. "{section}": {{"enabled": true}}), not {contract.json_kind(from_file)}'
            )
        merged.update(self._overrides.get(section, {}))
        return merged

    def notice(self, text: str | None, *, key: str, level: NoticeLevel = "warning") -> None:
        """Set the standing notice under KEY, or clear it when TEXT is None."""
        with self._lock:
            if text is None:
                self._notices.pop(key, None)
            else:
                self._notices[key] = contract.Notice(key, text, level)

    def notices(self) -> list[Notice]:
        """Return the standing notices, oldest first."""
        with self._lock:
            return list(self._notices.values())

    def say(self, text: str) -> None:
        """Print one line from a cell (background work reports this way)."""
        with self._lock:
            self._say(text)

    # Cells --------------------------------------------------------------------------------

    def start(self, *, entry_points: bool | None = None) -> list[LoadedCell]:
        """Discover, import and start every cell not vetoed; return them all."""
        sources, self.problems = discover_cells(self._home, entry_points=entry_points)
        seen: set[int] = set()
        for source in sources:
            try:
                cell, module_file = import_cell(source)
            except Exception as exc:  # a broken cell must not take the host down
                log.debug("cell %s failed to import", source.name, exc_info=True)
                self.problems.append(f"cell {source.name} ({source.origin}) failed to load: {exc}")
                continue
            shadowed = outside_folder(source, module_file)
            if shadowed is not None:
                self.problems.append(shadowed)
            if id(cell) in seen:
                log.debug("cell %s (%s) is already loaded", source.name, source.origin)
                continue
            seen.add(id(cell))
            loaded = LoadedCell(source, cell, module_file)
            self.cells.append(loaded)
            log.debug(
                "loaded cell %s from %s %s (module %s)",
                source.name,
                source.origin,
                source.folder or source.entry,
                module_file,
            )
            self._start_cell(loaded)
        return self.cells

    def _sections(self, loaded: LoadedCell) -> list[str]:
        """Return the config sections that speak for LOADED (and may veto it)."""
        names = list(loaded.source.defaults)
        provider = getattr(loaded.cell, "provider", None)
        if isinstance(provider, str):
            names.append(provider)
        if loaded.source.origin == "entry point":
            names.append(loaded.source.name)
        return list(dict.fromkeys(names))

    def _start_cell(self, loaded: LoadedCell) -> None:
        """Start LOADED unless a config section vetoes it; register its lanes and commands."""
        for section, defaults in loaded.source.defaults.items():
            self._defaults.setdefault(section, dict(defaults))
        for section in self._sections(loaded):
            enabled = self.config(section).get("enabled", True)
            if not isinstance(enabled, bool):
                # "no", 0 or "false" must not leave the cell running as if it said true.
                raise HostConfigError(
                    f'"enabled" in the "{section}" section of {self.config_path} must be '
                    f"true or false, not {contract.json_kind(enabled)}"
                )
            if enabled is False:
                loaded.vetoed_by = section
                self._vetoed[section] = loaded.source.name
                log.debug("cell %s vetoed by config section %r", loaded.source.name, section)
                return
        answer = loaded.cell.start(self)
        if answer is False:  # the cell may veto itself from its own config reading
            loaded.vetoed_by = self._sections(loaded)[0] if self._sections(loaded) else "?"
            self._vetoed[loaded.vetoed_by] = loaded.source.name
            return
        loaded.started = True
        for name, lane in dict(_read(loaded.cell, "lanes")).items():
            self.lanes.setdefault(name, lane)
        for name, command in dict(_read(loaded.cell, "commands")).items():
            self.commands.setdefault(name, command)

    def stop(self) -> None:
        """Stop every started cell, take out its lanes and commands, clear the notices."""
        for loaded in reversed(self.cells):
            if not loaded.started:
                continue
            try:
                loaded.cell.stop()
            except Exception:
                log.debug("cell %s failed to stop cleanly", loaded.source.name, exc_info=True)
            loaded.started = False
        self.lanes.clear()
        self.commands.clear()
        with self._lock:
            self._notices.clear()
        if self._runner is not None:
            self._runner.close()
            self._runner = None

    def __enter__(self) -> ReferenceHost:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def cell_for(self, provider: str) -> Cell:
        """Return the started cell that gives PROVIDER's lane; HostConfigError when none does."""
        self.lane(provider)
        for loaded in self.cells:
            if loaded.started and provider in dict(_read(loaded.cell, "lanes")):
                return loaded.cell
        raise HostConfigError(f"no cell gives the {provider} lane")  # pragma: no cover

    def lane(self, provider: str) -> Lane:
        """Return PROVIDER's lane; HostConfigError saying why there is none."""
        lane = self.lanes.get(provider)
        if lane is not None:
            return lane
        if provider in self._vetoed:
            raise HostConfigError(
                f"the {self._vetoed[provider]} cell is disabled in "
                f'{self._home / "config.json"} ("{provider}": {{"enabled": false}})'
            )
        hint = f" ({'; '.join(self.problems)})" if self.problems else ""
        raise HostConfigError(
            f"no cell gives the {provider} lane: install nodecode-cursor, or drop its folder "
            f"into {self._home / 'cells'}{hint}"
        )

    def command(self, name: str) -> CellCommand:
        """Return the slash command NAME; HostConfigError when no started cell gives it."""
        command = self.commands.get(name)
        if command is None:
            self.lane(name)  # says "disabled" or "not installed" when that is why
            raise HostConfigError(f"no cell gives the /{name} command")
        return command

    # Running ------------------------------------------------------------------------------

    def run_async(self, awaitable: Awaitable[T]) -> T:
        """Return AWAITABLE's result, run on the host's event loop (Ctrl-C cancels it)."""
        if self._runner is None:
            import asyncio  # here: a command that runs nothing asynchronous never loads it

            self._runner = asyncio.Runner()
        # asyncio.Runner turns a first Ctrl-C into cancelling the task (a clean stop)
        # and raises KeyboardInterrupt once it has ended.
        return self._runner.run(_awaited(awaitable))

    def run_turn(
        self,
        conversation: Conversation,
        tools: Toolbox,
        *,
        max_rounds: int = host_limits.MAX_ROUNDS,
        observer: TurnObserver | None = None,
        native: NativeRunner | None = None,
        native_kinds: frozenset[str] = frozenset(),
    ) -> TurnOutcome:
        """Return the turn's outcome after running rounds and tool calls until the model stops.

        NATIVE runs Cursor's own tools of NATIVE_KINDS in place, mid-round; None refuses them.
        Each round is ``turn.Turn``'s steps, run in order on the host's event loop.
        """
        turn = Turn(conversation, tools, observer or TurnObserver())
        lane = self.lane(conversation.provider)
        while True:
            heard = RoundHeard(turn.view)
            ctx = turn.context(self, heard, native, native_kinds)
            started = time.monotonic()
            try:
                result = self.run_async(lane(ctx))
            except KeyboardInterrupt:
                return turn.interrupted(heard)
            turn.took(result, time.monotonic() - started)
            calls = host_calls(result)
            outcome = turn.ending(result, calls, max_rounds)
            if outcome is None:
                outcome = turn.run_calls(result, calls)
            if outcome is not None:
                return outcome


async def _awaited(awaitable: Awaitable[T]) -> T:
    """Return what AWAITABLE gives (asyncio.Runner takes coroutines only)."""
    return await awaitable


def _read(cell: Any, name: str) -> Mapping[str, Any]:
    """Return the mapping a cell exposes as NAME (an attribute, property or method)."""
    value = getattr(cell, name, None)
    if callable(value) and not isinstance(value, Mapping):
        value = value()
    return value if isinstance(value, Mapping) else {}
