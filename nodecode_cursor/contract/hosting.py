"""What the cell needs from the host that loads it: a home, config, notices, a chat line.

The first side of the host contract (``host.py`` gathers every side): ``Host``
is the protocol a host implements, ``Notice`` a standing notice it shows,
``default_home`` where a host's files live when it names no home, and
``MemoryHost`` a minimal host held in memory for tests and scripts. How a host
shows a notice or a line, and where its config comes from, is the host's own
business; what a round needs beyond these is ``rounds.RoundContext``'s.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Protocol, runtime_checkable

__all__ = ["Host", "MemoryHost", "Notice", "NoticeLevel", "default_home"]

NoticeLevel = Literal["info", "warning", "error"]


def default_home() -> Path:
    """Return the host's home: ``$NODECODE_HOME``, else ``~/.nodecode``."""
    env = os.environ.get("NODECODE_HOME")
    return Path(env).expanduser() if env else Path.home() / ".nodecode"


@dataclass(frozen=True, slots=True)
class Notice:
    """A standing notice a cell shows above the prompt until it clears its key."""

    key: str
    text: str
    level: NoticeLevel = "warning"


@runtime_checkable
class Host(Protocol):
    """What the cell needs from the host that loads it."""

    @property
    def home(self) -> Path:
        """The host's home folder (auth.json, config.json, cells/)."""
        ...

    def config(self, section: str) -> Mapping[str, Any]:
        """Return the config section ``section`` (empty when absent)."""
        ...

    def notice(self, text: str | None, *, key: str, level: NoticeLevel = "warning") -> None:
        """Show a standing notice under ``key``; ``None`` clears it."""
        ...

    def say(self, text: str) -> None:
        """Print one line into the host's chat (background work reports this way)."""
        ...


class MemoryHost:
    """A minimal host held in memory: a home folder, config sections, notices and said lines."""

    def __init__(self, home: Path | str, config: Mapping[str, Mapping[str, Any]] | None = None):
        self._home = Path(home)
        self._config = {k: dict(v) for k, v in (config or {}).items()}
        self.notices: dict[str, Notice] = {}
        self.said: list[str] = []

    @property
    def home(self) -> Path:
        """The host's home folder."""
        return self._home

    def config(self, section: str) -> Mapping[str, Any]:
        """Return the config section (empty when absent)."""
        return self._config.get(section, {})

    def notice(self, text: str | None, *, key: str, level: NoticeLevel = "warning") -> None:
        """Set or clear the standing notice under ``key``."""
        if text is None:
            self.notices.pop(key, None)
        else:
            self.notices[key] = Notice(key, text, level)

    def say(self, text: str) -> None:
        """Keep a line the cell said."""
        self.said.append(text)
