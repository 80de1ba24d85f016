"""The reference host: a Nodecode-style host in miniature, the way ``nodecode-cursor`` runs cells.

``ReferenceHost`` implements the host contract of ``host.py`` (home, config
sections from ``config.json``, standing notices, said lines) and does what a
Nodecode-style host does with cells:

* **discovery**: cells named by entry points (``distributions.py``) in the group
  ``nodecode.cells``, and drop-in folders ``$NODECODE_HOME/cells/*/cell.toml``
  (the folder goes on the import path; ``entry = "module:attr"`` names the cell);
  a folder wins over an entry point giving the same cell;
* **veto**: a config section with ``"enabled": false`` keeps its cell out: no
  lane, no command;
* **start/stop**: starting a cell registers its lanes and commands; stopping it
  takes them out (the cell itself ends a sign-in in progress and forgets its
  conversations) and clears the standing notices;
* **the turn loop**: call the lane, run the tool calls the round hands back,
  append the results, call again until the model stops or ``max_rounds`` is
  reached. A round's resolved calls (Cursor's own tools run in place by the
  runner it is given, calls the service ran, native asks refused; flagged
  ``"resolved": true``) are kept in the history and never run here.

The host imports nothing of a cell before it loads the cells (``contract.py``
says why): a drop-in folder's copy of a package is then the one Python keeps, and
the DEBUG log names the file each cell's module was loaded from.

Rendering, argument parsing and the REPL are ``cli.py``'s; the tools themselves
are ``host_tools.py``'s; everything Cursor-specific is the cell's.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import json
import logging
import os
import sys
import threading
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from . import contract
from . import limits as host_limits
from .distributions import entry_points as installed_entry_points
from .errors import HostConfigError

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
        StreamPart,
        Usage,
    )

    from .host_tools import Toolbox

__all__ = [
    "ENTRY_POINTS_ENV",
    "ENTRY_POINT_GROUP",
    "CellNotInFolder",
    "CellSource",
    "Conversation",
    "LoadedCell",
    "ReferenceHost",
    "TurnObserver",
    "TurnOutcome",
    "discover_cells",
]

log = logging.getLogger("nodecode_host.refhost")

ENTRY_POINT_GROUP = "nodecode.cells"
# "0" (or "off", "no", "false") makes the host ignore entry points and load only
# drop-in folders: how a person (or a test) proves a folder loads on its own.
ENTRY_POINTS_ENV = "NODECODE_ENTRY_POINTS"

Lane = Callable[["RoundContext"], Awaitable["RoundResult"]]
T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class CellSource:
    """Where a cell comes from: an entry point, or a drop-in folder's cell.toml."""

    name: str
    origin: Literal["entry point", "folder"]
    entry: str
    folder: Path | None = None
    # Config sections the manifest declares (a folder's [config.*] tables) and their defaults.
    defaults: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)


@dataclass(slots=True)
class LoadedCell:
    """A cell the host imported, and what became of it."""

    source: CellSource
    cell: Cell
    module_file: str | None
    started: bool = False
    vetoed_by: str | None = None


def _entry_points_enabled() -> bool:
    """Return whether entry-point discovery is on (NODECODE_ENTRY_POINTS not falsy)."""
    value = os.environ.get(ENTRY_POINTS_ENV, "").strip().lower()
    return value not in {"0", "off", "no", "false"}


def _folder_source(manifest: Path) -> CellSource:
    """Return the CellSource a cell.toml describes; HostConfigError when it is unusable."""
    import tomllib  # here: a home without drop-in folders never parses TOML

    try:
        data = tomllib.loads(manifest.read_text("utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise HostConfigError(f"cannot read the cell manifest {manifest}: {exc}") from None
    entry = data.get("entry")
    if not isinstance(entry, str) or ":" not in entry:
        raise HostConfigError(f'{manifest}: entry must be "module:attr"')
    config = data.get("config") or {}
    defaults = {k: dict(v) for k, v in config.items() if isinstance(v, dict)}
    name = data.get("name") if isinstance(data.get("name"), str) else manifest.parent.name
    return CellSource(str(name), "folder", entry, manifest.parent, defaults)


def discover_cells(
    home: Path, *, entry_points: bool | None = None
) -> tuple[list[CellSource], list[str]]:
    """Return (the cells found, one line per folder that could not be read), folders first."""
    found: list[CellSource] = []
    problems: list[str] = []
    for manifest in sorted((home / "cells").glob("*/cell.toml")):
        try:
            found.append(_folder_source(manifest))
        except HostConfigError as exc:
            problems.append(str(exc))
    if entry_points if entry_points is not None else _entry_points_enabled():
        # Read as importlib.metadata reads them, without its import (distributions.py).
        for point in installed_entry_points(ENTRY_POINT_GROUP):
            found.append(CellSource(point.name, "entry point", point.value))
    return found, problems


class CellNotInFolder(HostConfigError):
    """A drop-in folder's cell.toml names a module the folder does not hold."""


def outside_folder(source: CellSource, module_file: str | None) -> str | None:
    """Return the warning for a folder's cell whose module came from elsewhere, or None."""
    if source.folder is None or module_file is None:
        return None
    if Path(module_file).resolve().is_relative_to(source.folder.resolve()):
        return None
    return (
        f"cell {source.name} (folder {source.folder}) was loaded from {module_file}, "
        "outside its folder: a copy imported earlier shadows the folder's"
    )


def _import_cell(source: CellSource) -> tuple[Any, str | None]:
    """Return (the cell object SOURCE names, the file of its module).

    A folder goes first on the import path. The host has imported nothing of any
    cell yet (``contract.py``), so the folder's copy of a package is the one loaded,
    even where the same package is installed too.
    """
    module_name, _, attr = source.entry.partition(":")
    if source.folder is not None:
        folder = str(source.folder)
        top = module_name.partition(".")[0]
        # Checked before the import: without its package, the folder would quietly lend
        # its name to whichever copy is installed.
        if importlib.machinery.PathFinder.find_spec(top, [folder]) is None:
            raise CellNotInFolder(
                f"the folder {folder} holds no {top} package (its cell.toml names "
                f'"{source.entry}"); copy the package into the folder, or remove the folder'
            )
        if folder not in sys.path:
            sys.path.insert(0, folder)
    module = importlib.import_module(module_name)
    target: Any = module
    for part in attr.split("."):
        target = getattr(target, part)
    return target, getattr(module, "__file__", None)


@dataclass(slots=True)
class Conversation:
    """One chat as the host keeps it: the model, the effort, the session and the history."""

    model: str
    effort: str | None = None
    system: str | None = None
    session_id: str | None = None
    messages: list[dict[str, Any]] = field(default_factory=list)
    cwd: str | None = None
    request_timeout: float | None = None
    credential: str | None = None
    provider: str = "cursor"


@dataclass(slots=True)
class TurnOutcome:
    """What a turn ended with: the last assistant message and the turn's accounting."""

    message: dict[str, Any]
    finish_reason: Literal["stop", "tool_calls"]
    usage: Usage
    rounds: int
    wire_model: str = ""
    interrupted: bool = False
    # Tool calls of the last message the host did not run (max rounds, or tools from a file).
    unrun: list[dict[str, Any]] = field(default_factory=list)
    # Calls the provider ran itself (cursor-agent's tools), as RoundResult.resolved gives them.
    resolved: list[dict[str, Any]] = field(default_factory=list)
    # The rounds' estimated cost summed (USD at published rates); None when a round had none.
    cost_usd_estimate: float | None = None
    # Every message the turn added to the history, in order (resolved calls included).
    messages: list[dict[str, Any]] = field(default_factory=list)
    # How many earlier messages the last round's request folded into a summary to fit
    # its history budget (RoundResult.folded), and why.
    folded: int = 0
    fold_reason: str = ""
    # The kept Cursor account the last round ran on, when the cell chose among several,
    # and every move to another account before any output, in order, as
    # {"round", "from", "to", "reason"} (RoundResult.account, RoundResult.failovers).
    account: str | None = None
    failovers: list[dict[str, Any]] = field(default_factory=list)


@dataclass(slots=True)
class _Accounts:
    """What the rounds of a turn said of their accounts (a cell that says nothing: nothing)."""

    account: str | None = None
    failovers: list[dict[str, Any]] = field(default_factory=list)

    def note(self, round_number: int, result: RoundResult) -> None:
        """Keep RESULT's account and its switches (read with getattr: an older cell lacks them)."""
        self.account = getattr(result, "account", None) or self.account
        for switch in getattr(result, "failovers", None) or []:
            said = switch.as_dict() if hasattr(switch, "as_dict") else dict(switch)
            self.failovers.append({"round": round_number, **said})


class TurnObserver:
    """What a turn shows as it goes; the default shows nothing."""

    def part(self, part: StreamPart) -> None:
        """Show one stream part."""

    def round_done(self, result: RoundResult) -> None:
        """Show that a round finished."""

    def tool_call(self, call: dict[str, Any]) -> None:
        """Show a tool call about to run."""

    def tool_result(self, call: dict[str, Any], text: str) -> None:
        """Show the result of a tool call."""


def _add_cost(total: float | None, rounds: int, result: RoundResult) -> float | None:
    """Return the turn's estimate with RESULT's added: unknown once any round's is unknown."""
    more = result.cost_usd_estimate
    if more is None or (total is None and rounds > 1):
        return None
    return (total or 0.0) + more


def _add_usage(total: Usage, more: Usage) -> None:
    """Add MORE's counts into TOTAL (the context occupancy is the latest round's)."""
    total.input += more.input
    total.output += more.output
    total.cache_read += more.cache_read
    total.cache_write += more.cache_write
    total.reasoning += more.reasoning
    if more.context_tokens is not None:
        total.context_tokens = more.context_tokens


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
                cell, module_file = _import_cell(source)
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
        """
        seen = _Accounts()
        outcome = self._turn(conversation, tools, max_rounds, observer, native, native_kinds, seen)
        outcome.account, outcome.failovers = seen.account, seen.failovers
        return outcome

    def _turn(
        self,
        conversation: Conversation,
        tools: Toolbox,
        max_rounds: int,
        observer: TurnObserver | None,
        native: NativeRunner | None,
        native_kinds: frozenset[str],
        seen: _Accounts,
    ) -> TurnOutcome:
        """Return ``run_turn``'s outcome; each round's account and switches go to SEEN."""
        view = observer or TurnObserver()
        lane = self.lane(conversation.provider)
        total = contract.Usage()
        rounds = 0
        wire = ""
        cost: float | None = None
        resolved: list[dict[str, Any]] = []
        added: list[dict[str, Any]] = []  # every message this turn adds, in order

        def add(*messages: dict[str, Any]) -> None:
            conversation.messages.extend(messages)
            added.extend(messages)

        while True:
            text: list[str] = []
            thinking: list[str] = []

            def on_part(
                part: StreamPart, text: list[str] = text, thinking: list[str] = thinking
            ) -> None:
                if isinstance(part, contract.TextDelta):
                    text.append(part.text)
                elif isinstance(part, contract.ReasoningDelta):
                    thinking.append(part.text)
                view.part(part)

            ctx = contract.RoundContext(
                model=conversation.model,
                messages=list(conversation.messages),
                effort=conversation.effort,
                system=conversation.system,
                tools=tools.definitions(),
                session_id=conversation.session_id,
                cwd=conversation.cwd,
                credential=conversation.credential,
                request_timeout=conversation.request_timeout,
                on_part=on_part,
                host=self,
                run_native=native,
                native_kinds=native_kinds if native is not None else frozenset(),
            )
            started = time.monotonic()
            try:
                result = self.run_async(lane(ctx))
            except KeyboardInterrupt:
                # A clean stop: what streamed so far stays in the history.
                kept: dict[str, Any] = {"role": "assistant", "content": "".join(text) or None}
                if thinking:
                    kept["reasoning_content"] = "".join(thinking)
                if text or thinking:
                    add(kept)
                return TurnOutcome(
                    kept,
                    "stop",
                    total,
                    rounds,
                    wire,
                    interrupted=True,
                    cost_usd_estimate=cost,
                    messages=added,
                )
            rounds += 1
            seen.note(rounds, result)
            usage = result.usage
            log.info(
                "round %d: model %s (wire %s), effort %s, session %s, finish %s, "
                "usage in %d out %d cache read %d write %d, %.2fs",
                rounds,
                conversation.model,
                result.wire_model or "-",
                conversation.effort or "off",
                conversation.session_id or "-",
                result.finish_reason,
                usage.input,
                usage.output,
                usage.cache_read,
                usage.cache_write,
                time.monotonic() - started,
            )
            _add_usage(total, result.usage)
            cost = _add_cost(cost, rounds, result)
            # Read with getattr: a cell from an older folder may not set it.
            resolved.extend(getattr(result, "resolved", None) or [])
            wire = result.wire_model or wire
            # Every message the round added: its resolved calls, then its last message.
            add(*(getattr(result, "messages", None) or [result.message]))
            view.round_done(result)
            calls: list[dict[str, Any]] = [
                call
                for call in result.message.get("tool_calls") or []
                if not (isinstance(call, dict) and call.get("resolved") is True)
            ]
            # Read with getattr: a cell from an older folder may not set it.
            folded = getattr(result, "folded", 0)
            fold_reason = getattr(result, "fold_reason", "")
            if folded:
                log.info("round %d: %d earlier messages folded (%s)", rounds, folded, fold_reason)
            if result.finish_reason != "tool_calls" or not calls:
                return TurnOutcome(
                    result.message,
                    "stop",
                    total,
                    rounds,
                    wire,
                    resolved=resolved,
                    cost_usd_estimate=cost,
                    messages=added,
                    folded=folded,
                    fold_reason=fold_reason,
                )
            names = [str(call.get("function", {}).get("name", "")) for call in calls]
            if rounds >= max_rounds or not any(tools.runs(name) for name in names):
                return TurnOutcome(
                    result.message,
                    "tool_calls",
                    total,
                    rounds,
                    wire,
                    unrun=calls,
                    resolved=resolved,
                    cost_usd_estimate=cost,
                    messages=added,
                    folded=folded,
                    fold_reason=fold_reason,
                )
            for index, call in enumerate(calls):
                view.tool_call(call)
                try:
                    output = tools.run(
                        names[index], str(call.get("function", {}).get("arguments", ""))
                    )
                except KeyboardInterrupt:
                    # Keep the history whole: every call gets a result, even the skipped ones.
                    for skipped in calls[index:]:
                        add(_tool_message(skipped, "interrupted by the person; not run"))
                    return TurnOutcome(
                        result.message,
                        "stop",
                        total,
                        rounds,
                        wire,
                        interrupted=True,
                        cost_usd_estimate=cost,
                        messages=added,
                    )
                add(_tool_message(call, output))
                view.tool_result(call, output)


async def _awaited(awaitable: Awaitable[T]) -> T:
    """Return what AWAITABLE gives (asyncio.Runner takes coroutines only)."""
    return await awaitable


def _tool_message(call: dict[str, Any], content: str) -> dict[str, Any]:
    """Return the tool message carrying CONTENT as CALL's result (``is_error`` if it failed)."""
    message: dict[str, Any] = {
        "role": "tool",
        "tool_call_id": str(call.get("id", "")),
        "content": content,
    }
    from .host_tools import ToolFailure  # here: a command that runs no tools never loads them

    if isinstance(content, ToolFailure):
        message["is_error"] = True  # the contract's failed result: the model sees an error
    return message


def _read(cell: Any, name: str) -> Mapping[str, Any]:
    """Return the mapping a cell exposes as NAME (an attribute, property or method)."""
    value = getattr(cell, name, None)
    if callable(value) and not isinstance(value, Mapping):
        value = value()
    return value if isinstance(value, Mapping) else {}
