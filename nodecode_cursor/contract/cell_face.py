"""What a host reads of a loaded cell: the ``Cell`` protocol and the answers it gives.

A host loads the cell object (``nodecode_cursor.cell:cell``) and sees it as a
``Cell``: its lanes and commands, its catalog row, its credential, its model
listing and key check, where a round on a model goes (``Route``), how the
sign-in stands (``SignInState``), the account's usage (``AccountUsageView``)
and ``doctor``'s checks (``DoctorCheck``). The answers' shapes are stated here;
the cell object (``cell.py``) and the modules it wires make them, and how a
host words them for its own audience is the host's.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol, runtime_checkable

from .hosting import Host
from .rounds import RoundContext, RoundResult

__all__ = [
    "AccountUsageView",
    "Cell",
    "CellCommand",
    "DoctorCheck",
    "ModelEntry",
    "ModelList",
    "Route",
    "SignInState",
    "UsageWindowView",
]


@dataclass(frozen=True, slots=True)
class SignInState:
    """How the Cursor sign-in stands, read from auth.json and the environment, never the network.

    ``source`` is what a round would send, in the credential ladder's order:
    ``"saved key"`` (a host's /connect), ``"sign-in"`` (the kept browser sign-in),
    ``"environment"`` (``env_name`` says which variable), or None: nothing.
    """

    signed_in: bool  # a kept browser sign-in is there
    source: str | None
    email: str | None = None
    expires_at: float | None = None  # the kept sign-in's access token, epoch seconds
    session_ended: bool = False  # Cursor ended the kept sign-in's session
    env_name: str | None = None
    in_progress: bool = False  # a browser sign-in is waiting for the person
    login_url: str | None = None  # the page the latest sign-in asked the person to open
    browser_opened: bool = False  # that page was handed to the person's browser
    # Every kept account's name (its email), the active one first (accounts.py).
    accounts: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Route:
    """Where a round on a model at an effort goes: what ``Cell.route`` answers."""

    model: str  # the model id, without the provider's prefix
    requested_effort: str | None  # the effort asked for, None for off
    effort: str | None  # the effort the round asks for (None: off, or the model does not reason)
    wire_model: str  # the slug ModelDetails names on the wire
    efforts: tuple[str, ...]  # the efforts the model takes (empty: it does not reason)
    bundled: bool  # False: a model only the account's roster lists


@dataclass(frozen=True, slots=True)
class DoctorCheck:
    """One check ``Cell.doctor`` made: its verdict in a line and, when it failed, the fix."""

    name: str
    status: Literal["ok", "fail", "skip"]  # skip: not checked, and the verdict says why
    verdict: str
    fix: str | None = None

    def as_dict(self) -> dict[str, str | None]:
        """Return the check as JSON-ready data."""
        return {"name": self.name, "status": self.status, "verdict": self.verdict, "fix": self.fix}


class CellCommand(Protocol):
    """A slash command a cell installs (``/cursor``)."""

    def run(self, argline: str) -> str:
        """Return the command's one-line answer to ARGLINE."""
        ...

    def complete(self, prefix: str) -> list[str]:
        """Return the completions of PREFIX."""
        ...


class ModelEntry(Protocol):
    """One model of a cell's listing."""

    @property
    def id(self) -> str:
        """The model id."""
        ...

    @property
    def name(self) -> str:
        """The model's display name."""
        ...

    @property
    def context_window(self) -> int:
        """The model's context window, in tokens."""
        ...

    @property
    def max_mode(self) -> bool | None:
        """Whether the model runs in max mode (None: not said)."""
        ...

    @property
    def max_context_window(self) -> int | None:
        """The model's context window in max mode, in tokens (None: not said)."""
        ...

    @property
    def images(self) -> bool | None:
        """Whether the model takes images (None: not said)."""
        ...

    @property
    def thinking(self) -> bool | None:
        """Whether the model thinks (None: not said)."""
        ...

    @property
    def parameters(self) -> tuple[tuple[str, tuple[str, ...]], ...]:
        """Each parameter the model takes and its values (empty: not said)."""
        ...


class ModelList(Protocol):
    """What ``list_models`` answers: the account's models, or the bundled ones and why."""

    @property
    def models(self) -> Sequence[ModelEntry]:
        """The models."""
        ...

    @property
    def live(self) -> bool:
        """Whether the account's own roster answered."""
        ...

    @property
    def reason(self) -> str | None:
        """Why the live roster is missing (None when live)."""
        ...

    @property
    def hint(self) -> str | None:
        """What to do about the missing roster, as ``CursorError.hint`` says it (or None)."""
        ...


class UsageWindowView(Protocol):
    """One window of a plan's included usage (what ``AccountUsageView.windows`` holds)."""

    @property
    def key(self) -> str:
        """The window's key: "total", "auto" or "api"."""
        ...

    @property
    def name(self) -> str:
        """The window's name, as a person reads it."""
        ...

    @property
    def percent(self) -> float:
        """How much of the window is used, 0..100 (more when over)."""
        ...


class AccountUsageView(Protocol):
    """What ``Cell.account_usage`` answers: the account's current period at a glance."""

    @property
    def windows(self) -> Sequence[UsageWindowView]:
        """The plan's usage windows."""
        ...

    @property
    def period_end(self) -> float | None:
        """When the period resets, epoch seconds (None: not said)."""
        ...

    def as_dict(self) -> dict[str, Any]:
        """Return the usage as JSON-ready data."""
        ...

    def text(self, now: float) -> str:
        """Return the compact block a person reads, the reset counted from NOW (epoch s)."""
        ...


@runtime_checkable
class Cell(Protocol):
    """The cell object a host loads (``nodecode_cursor.cell:cell``), as a host sees it."""

    name: str
    provider: str

    def start(self, host: Host) -> bool:
        """Install the cell into HOST; return False when its config vetoes it."""
        ...

    def stop(self) -> None:
        """Take the cell out of its host."""
        ...

    @property
    def lanes(self) -> Mapping[str, Callable[[RoundContext], Awaitable[RoundResult]]]:
        """The provider lanes the cell installs (none when not started)."""
        ...

    @property
    def commands(self) -> Mapping[str, CellCommand]:
        """The slash commands the cell installs, by name (none when not started)."""
        ...

    def catalog(self) -> dict[str, Any]:
        """Return the catalog row: the provider and its bundled models."""
        ...

    def credential(self, provider: str) -> str | None:
        """Return the token for PROVIDER without refreshing; None when there is none."""
        ...

    async def list_models(self, key: str | None = None) -> ModelList:
        """Return the account's models, or the bundled ones and why."""
        ...

    async def check_key(self, key: str) -> str | None:
        """Return None when the service accepts KEY, else the line saying why not."""
        ...

    def route(
        self,
        model: str,
        effort: str | None,
        *,
        roster: Iterable[str] | None = None,
        unchecked: str | None = None,
    ) -> Route:
        """Return where a round on MODEL at EFFORT goes; UnknownModel or BadEffort when not."""
        ...

    def sign_in_state(self) -> SignInState:
        """Return how the sign-in stands, never touching the network."""
        ...

    async def account_usage(self) -> AccountUsageView:
        """Return the account's usage from the service's dashboard; the cell's errors if not."""
        ...

    async def doctor(
        self, *, rounds: bool = True, report: Callable[[DoctorCheck], None] | None = None
    ) -> list[DoctorCheck]:
        """Return what works with the service today, check by check (ROUNDS cost tokens)."""
        ...
