"""What every command of the reference host sets up the same way, in one place.

``make_host`` starts a ``ReferenceHost`` for the command line's flags (the home,
``config.json``'s cursor section overridden by ``--base-url``/``--web-url``);
``checked_route`` answers which model and effort a conversation runs, asking the
cell (``cell.route``) and wording its refusals for a person at a terminal;
``fetch_models``/``format_models`` give the model table; ``confirm`` asks the
person before a command runs. The ``cli_*.py`` commands, ``chat.py`` and ``serve``
all import these; the commands themselves, the REPL and the HTTP side live there.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import contract
from .errors import HostConfigError
from .names import DEFAULT_MODEL, HOME_ENV, PROVIDER, for_shell
from .refhost import ReferenceHost
from .terminal_text import has_hidden, visible

if TYPE_CHECKING:
    from nodecode_cursor.errors import BadEffort, BadUrl, UnknownModel
    from nodecode_cursor.host import Route

__all__ = [
    "DEFAULT_MODEL",
    "HOST_DEFAULTS",
    "PROVIDER",
    "allow_secret",
    "ask",
    "catalog_models",
    "checked_route",
    "configured",
    "confirm",
    "fetch_models",
    "for_shell",
    "format_models",
    "home_folder",
    "make_host",
    "native_tools_on",
    "route_for",
]

# The host's own defaults at config.json's top level, and what each must be.
HOST_DEFAULTS = {
    "model": f'a model id string, e.g. "{DEFAULT_MODEL}"',
    "effort": 'an effort string, e.g. "high", or "off"',
    "native_tools": '"on" or "off" (Cursor\'s own tools run in place)',
}


def home_folder() -> Path:
    """Return the host's home: $NODECODE_HOME, else ~/.nodecode (where it looks for cells)."""
    env = os.environ.get(HOME_ENV)
    return Path(env).expanduser() if env else Path.home() / ".nodecode"


def make_host(
    args: argparse.Namespace,
    *,
    home: Path | None = None,
    say: Callable[[str], None] | None = None,
    overrides: dict[str, Any] | None = None,
) -> ReferenceHost:
    """Return a started ReferenceHost for ARGS (flags override config.json's cursor section)."""
    section: dict[str, Any] = dict(overrides or {})
    if getattr(args, "base_url", None):
        section["base_url"] = args.base_url
    if getattr(args, "web_url", None):
        section["web_url"] = args.web_url
    if getattr(args, "account", None):
        section["account"] = args.account
    host = ReferenceHost(home or home_folder(), overrides={PROVIDER: section}, say=say)
    # A broken config.json is a config error before anything loads.
    for key in HOST_DEFAULTS:
        configured(host, key)
    try:
        host.start()
    except contract.BadUrl as exc:
        raise HostConfigError(bad_url_line(host, exc, flags=section)) from None
    for problem in host.problems:
        print(f"warning: {problem}", file=sys.stderr)
    return host


# The command-line flag that sets each URL of the cursor section.
URL_FLAGS = {"base_url": "--base-url", "web_url": "--web-url"}


def bad_url_line(host: ReferenceHost, exc: BadUrl, *, flags: dict[str, Any]) -> str:
    """Return the cell's BadUrl worded with the name the person gave the URL by.

    FLAGS is the section the command line set: a URL from it is named by its flag,
    any other by its key in config.json.
    """
    flag = URL_FLAGS.get(exc.setting)
    if flag is not None and exc.setting in flags:
        name = flag
    else:
        name = f'"{exc.setting}" in the "{PROVIDER}" section of {host.config_path}'
    return f"{name} {exc.url} {exc.problem}: {exc.fix}"


def configured(host: ReferenceHost, key: str) -> str | None:
    """Return the host's default KEY (model, effort) from config.json's top level.

    HostConfigError when it is there but not a string: ignoring it would quietly
    run another model than the one the person set.
    """
    value = host.config_file().get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        raise HostConfigError(
            f'"{key}" in {host.config_path} must be {HOST_DEFAULTS[key]}, '
            f"not {contract.json_kind(value)}"
        )
    return value if value.strip() else None


def native_tools_on(host: ReferenceHost, flag: str | None, tools: str) -> bool:
    """Return whether Cursor's own tools run in place: the flag, else config.json, else by TOOLS.

    The default is on with the host's default tools and off with ``--tools FILE|none``
    (whose caller owns the tools). HostConfigError when config.json says neither on nor off.
    """
    if flag is not None:
        return flag == "on"
    value = configured(host, "native_tools")
    if value is None:
        return tools == "default"
    if value not in ("on", "off"):
        raise HostConfigError(
            f'"native_tools" in {host.config_path} must be {HOST_DEFAULTS["native_tools"]}, '
            f"not {contract.json_kind(value)}"
        )
    return value == "on"


def _from_file(host: ReferenceHost, key: str, configured_value: str | None) -> str:
    """Return the note that KEY's value came from config.json (empty when it came from argv)."""
    return "" if configured_value is None else f' (the "{key}" in {host.config_path})'


# Which model, at which effort -------------------------------------------------------------


def route_for(
    host: ReferenceHost, model: str, effort: str | None, roster_ids: Sequence[str] = ()
) -> Route:
    """Return the cell's route for MODEL at EFFORT; the cell's UnknownModel or BadEffort if not.

    A model the bundled rows lack costs one roster call (made only then), since the
    account's own roster may still list it; ROSTER_IDS are ids already fetched.
    """
    cell = host.cell_for(PROVIDER)
    try:
        return cell.route(model, effort, roster=roster_ids)
    except contract.UnknownModel:
        live, why, _, rows = fetch_models(host)
        fetched = [str(row["id"]) for row in rows if row.get("id")] if live else []
        return cell.route(
            model, effort, roster=[*roster_ids, *fetched], unchecked=None if live else why
        )


def checked_route(
    host: ReferenceHost,
    model: str | None,
    effort: str | None,
    roster_ids: Sequence[str] = (),
    *,
    defaults: bool = True,
) -> Route:
    """Return the route for MODEL at EFFORT; HostConfigError worded for a person when refused.

    With DEFAULTS, a model or effort not given (None) comes from config.json's top
    level, then the host's default model; the error then says where it came from.
    """
    model_default = configured(host, "model") if defaults and not model else None
    effort_default = configured(host, "effort") if defaults and effort is None else None
    name = (model or model_default or DEFAULT_MODEL).strip()
    try:
        return route_for(host, name, effort if effort is not None else effort_default, roster_ids)
    except contract.UnknownModel as exc:
        raise HostConfigError(
            unknown_model_line(exc, _from_file(host, "model", model_default))
        ) from None
    except contract.BadEffort as exc:
        raise HostConfigError(
            bad_effort_line(exc, _from_file(host, "effort", effort_default))
        ) from None


def unknown_model_line(
    exc: UnknownModel, note: str = "", roster: Sequence[str] | None = None
) -> str:
    """Return the line a person at a terminal reads for the cell's UnknownModel (NOTE: whence).

    ROSTER, the account's model ids when known, is where the nearest ids come from then:
    a model the account cannot use is no suggestion.
    """
    if roster is not None:
        import difflib  # here: only a model that is not found needs it

        near = difflib.get_close_matches(exc.model, list(roster), n=5, cutoff=0.0)
        hint = f" Nearest on your account: {', '.join(near)}." if near else ""
    else:
        hint = f" Nearest supported: {', '.join(exc.near)}." if exc.near else ""
    unchecked = f" The live roster could not be checked ({exc.unchecked})." if exc.unchecked else ""
    return (
        f"unknown model {PROVIDER}/{exc.model}{note}.{hint}{unchecked} "
        "(`nodecode-cursor models` lists them)"
    )


def bad_effort_line(exc: BadEffort, note: str = "") -> str:
    """Return the line a person at a terminal reads for the cell's BadEffort (NOTE: whence)."""
    if exc.model is None:
        return (
            f"thinking effort {exc.effort!r}{note} is not a known level; "
            f"known efforts: {', '.join(exc.allowed)}, or off"
        )
    return (
        f"effort {exc.effort!r}{note} is not supported by {PROVIDER}/{exc.model}; "
        f"its efforts: {', '.join(exc.allowed)}, or off"
    )


# The model table ---------------------------------------------------------------------------


def catalog_models(host: ReferenceHost) -> dict[str, dict[str, Any]]:
    """Return the cursor lane's catalog models by id."""
    row = host.cell_for(PROVIDER).catalog()
    return {str(m["id"]): m for m in row.get("models", [])}


def fetch_models(
    host: ReferenceHost,
) -> tuple[bool, str | None, str | None, list[dict[str, Any]]]:
    """Return (live, why not live, its hint, rows): the account's roster, else the bundled rows.

    The hint is the cell's (``CursorError.hint``, e.g. /cursor login), for ``for_shell``.
    """
    cell = host.cell_for(PROVIDER)
    catalog = catalog_models(host)
    rows: list[dict[str, Any]] = []
    reason: str | None
    hint: str | None
    try:
        listing = host.run_async(cell.list_models())
    except contract.CursorError as exc:
        live, reason, hint = False, str(exc), exc.hint
    else:
        live, reason, hint = listing.live, listing.reason, listing.hint
        rows = [
            {
                "id": m.id,
                "name": m.name,
                "context_window": m.context_window,
                "max_mode": m.max_mode,
                "max_context_window": m.max_context_window,
                "images": m.images,
                "thinking": m.thinking,
                "parameters": {key: list(values) for key, values in m.parameters},
            }
            for m in listing.models
        ]
    if not rows:
        rows = [
            {"id": m["id"], "name": m.get("name"), "context_window": m.get("context_window")}
            for m in catalog.values()
        ]
        live = False
        reason = reason or "the account's roster is not available"
    for row in rows:
        bundled = catalog.get(str(row.get("id")))
        row.setdefault("efforts", list(bundled.get("efforts") or []) if bundled else [])
    return live, reason, hint, rows


def format_models(live: bool, reason: str | None, rows: list[dict[str, Any]]) -> str:
    """Return the model table a person reads."""
    if live:
        head = f"Cursor models your account may use ({len(rows)}):"
    else:
        head = f"Cursor's bundled models ({len(rows)}); the live list is missing: {reason}"
    cells = []
    for row in rows:
        window = _window(row.get("context_window"))
        larger = row.get("max_context_window")
        if isinstance(larger, int) and larger > (row.get("context_window") or 0):
            window += f"/{_window(larger)}"
        efforts = ",".join(row.get("efforts") or []) or "-"
        cells.append((str(row.get("id")), window, efforts, str(row.get("name") or "")))
    # Each column as wide as its widest cell: a long effort list must not push the name out.
    widths = [max((len(cell[i]) for cell in cells), default=0) for i in range(3)]
    lines = [head]
    for ident, window, efforts, name in cells:
        line = f"  {ident:<{widths[0]}}  {window:>{widths[1]}}  {efforts:<{widths[2]}}  {name}"
        lines.append(line.rstrip())
    return "\n".join(lines)


def _window(tokens: Any) -> str:
    """Return a context window as a person reads it: 200k, 1M ('' when unknown)."""
    if not isinstance(tokens, int) or isinstance(tokens, bool) or tokens <= 0:
        return ""
    if tokens >= 1_000_000 and tokens % 1_000_000 == 0:
        return f"{tokens // 1_000_000}M"
    return f"{tokens // 1000}k"


def command_question(command: str, *, where: str | None = None) -> str:
    """Return the question that asks the person to allow COMMAND (run in WHERE when given).

    The command stands on a line of its own, exactly as the shell will get it, with
    line breaks and every non-printing character shown as a visible escape: the
    model writes the command, and must not be able to make it look like another.
    """
    lines = ["the model asks to run this command:", "  " + visible(command, lines=False)]
    if has_hidden(command):
        lines.append(
            "  (it holds line breaks or non-printing characters, shown above as \\n, \\x1b, …)"
        )
    if where is not None:
        lines.append(f"  in the folder {visible(where, lines=False)}")
    return "\n".join(lines) + "\nrun it? [y/N] "


def confirm(command: str) -> bool:
    """Return whether the person allows COMMAND (asked on the terminal)."""
    return ask(command_question(command))


def allow_secret(tool: str, path: str, why: str) -> bool:
    """Return whether the person lets TOOL reach PATH, a place that holds secrets (WHY)."""
    shown = visible(path, lines=False)
    return ask(
        f"{visible(tool, lines=False)} asks to reach {shown}, which holds secrets ({why}).\n"
        "allow this once? [y/N] "
    )


def ask(question: str) -> bool:
    """Return whether the person answers QUESTION with yes (asked on the terminal)."""
    # The waiting line would draw over the question: it stands aside while it is asked.
    from .render import paused  # here: only a question asked at a terminal needs it

    with paused():
        try:
            answer = input(question)
        except EOFError:
            return False
    return answer.strip().lower() in ("y", "yes")
