"""The places on disk the host's tools keep out of unless the person allows each call.

Confinement to the working folder is not enough: started from the home folder,
the folder holds ``.ssh`` and the host's own ``auth.json``. ``SecretPlaces``
names the host's home (``NODECODE_HOME``) and the well-known folders and files
where credentials live (under the person's home, and by name anywhere), and
says why a path is one of them. Paths are checked both as written and with
links followed, so a link named ``notes`` that points into ``~/.ssh`` is caught;
letter case is ignored (``~/.SSH`` is ``~/.ssh`` on macOS's file system); a file
with more than one hard link is checked by its inode against the files of the
places, so a hard link made elsewhere to a key is caught too. The places include
the credentials of the agents and tools people keep beside this one (Claude
Code, Codex, Cursor's CLI, gh, cargo, git, vault, cloud CLIs) and shell
histories. With the tools working in the home itself (or above it), every
dot-path of the home counts: that is where configuration, and so secrets, live.
Asking the person and refusing is ``host_tools.py``'s job; this module only
knows the places.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path, PurePath

__all__ = ["SECRET_NAMES", "SecretPlaces"]

# Under the person's home: where keys, tokens and passwords are kept by convention.
_HOME_PLACES = (
    ".ssh",
    ".gnupg",
    ".aws",
    ".azure",
    ".netrc",
    ".git-credentials",
    ".pgpass",
    ".npmrc",
    ".pypirc",
    ".docker/config.json",
    ".kube",
    ".password-store",
    ".config/gh",
    ".config/gcloud",
    ".config/hub",
    ".local/share/keyrings",
    # Other agents' sign-ins and keys.
    ".claude/.credentials.json",
    ".claude.json",
    ".codex/auth.json",
    ".config/cursor",
    ".cursor",
    ".gemini",
    ".local/share/opencode/auth.json",
    ".pi/agent/auth.json",
    # Package registries, git, secret stores and cloud CLIs.
    ".cargo/credentials",
    ".cargo/credentials.toml",
    ".gem/credentials",
    ".config/git/credentials",
    ".vault-token",
    ".oci",
    ".config/doctl",
    ".config/op",
    ".config/rclone",
    ".terraform.d/credentials.tfrc.json",
    ".s3cfg",
    ".boto",
    # What was typed at a prompt: tokens pasted on a command line stay there.
    ".bash_history",
    ".zsh_history",
    ".history",
    ".sh_history",
    ".python_history",
    ".node_repl_history",
    ".psql_history",
    ".mysql_history",
    ".sqlite_history",
    ".local/share/fish/fish_history",
)

# Names that hold secrets wherever they are (a copied home, a second user's folder).
SECRET_NAMES = frozenset(
    {
        ".ssh",
        ".gnupg",
        ".aws",
        ".netrc",
        ".git-credentials",
        ".pgpass",
        ".vault-token",
        ".credentials.json",
        ".bash_history",
        ".zsh_history",
    }
)
# How many files of the places are looked at to know their inodes (hard links).
_MAX_INODE_FILES = 20000


@dataclass(frozen=True, slots=True)
class SecretPlaces:
    """The places to keep out of, each with why (as the refusal words it)."""

    places: tuple[tuple[Path, str], ...]
    # The person's home, and whether every dot-path in it counts (tools working in it).
    home: Path | None = None
    dot_paths: bool = False
    # (device, inode) of each file in the places, read once when a hard link is checked.
    _inodes: dict[tuple[int, int], str] = field(default_factory=dict, compare=False, repr=False)
    # The places case-folded, made once (every file a search walks is checked).
    _folded_places: tuple[tuple[PurePath, str], ...] = field(default=(), compare=False, repr=False)

    def __post_init__(self) -> None:
        if not self._folded_places:
            folded = tuple((_folded(place), why) for place, why in self.places)
            object.__setattr__(self, "_folded_places", folded)

    @classmethod
    def standard(cls, host_home: Path | str | None = None) -> SecretPlaces:
        """Return the host's home and the well-known secret places of the person's home."""
        places: list[tuple[Path, str]] = []
        try:
            home: Path | None = Path.home()
        except RuntimeError:  # no HOME and no passwd entry: only the host's home is known
            home = None
        if host_home is None:
            host_home = os.environ.get("NODECODE_HOME") or (
                home / ".nodecode" if home is not None else None
            )
        if host_home is not None:
            places.append((Path(host_home).expanduser(), "the host's home, with its auth.json"))
        if home is not None:
            for name in _HOME_PLACES:
                places.append((home / name, f"~/{name}, where credentials are kept"))
        return cls(tuple(_both(places)), home=home)

    def for_root(self, root: Path) -> SecretPlaces:
        """Return these places for tools working in ROOT: in (or above) the home, every
        dot-path of the home counts too."""
        if self.home is None or not self.home.is_relative_to(root):
            return self
        return dataclasses.replace(self, dot_paths=True, _inodes={})

    def why(self, path: Path) -> str | None:
        """Return why PATH (absolute, as written or resolved) is a secret place, or None."""
        candidates = [path]
        # A link loop: the lexical path alone decides.
        with contextlib.suppress(OSError, RuntimeError):
            candidates.append(path.resolve())
        for candidate in candidates:
            # Letter case ignored: on a case-insensitive file system .SSH is .ssh.
            folded = _folded(candidate)
            for place, why in self._folded_places:
                if folded.is_relative_to(place):
                    return why
            for part in folded.parts:
                if part in SECRET_NAMES:
                    return f"a {part} folder or file, where credentials are kept"
            if self.dot_paths and self.home is not None:
                home = _folded(self.home)
                if folded.is_relative_to(home) and folded != home:
                    first = folded.relative_to(home).parts[0]
                    if first.startswith("."):
                        return f"~/{first}, a dot-path of the home the tools work in"
        return None

    def hard_link_to(self, info: os.stat_result) -> str | None:
        """Return why a file of INFO (an fstat) is a secret file under another name, or None.

        Only a file with more than one link can be one; its inode is looked up among
        the places' files (read once).
        """
        if info.st_nlink <= 1:
            return None
        if not self._inodes:
            self._inodes.update(_inodes(self.places))
        why = self._inodes.get((info.st_dev, info.st_ino))
        return None if why is None else f"a hard link to a file in {why}"


def _folded(path: Path) -> PurePath:
    """Return PATH with its letters case-folded, for comparing places."""
    return PurePath(str(path).casefold())


def _inodes(places: Iterable[tuple[Path, str]]) -> dict[tuple[int, int], str]:
    """Return (device, inode) of each file in PLACES (at most _MAX_INODE_FILES), with why."""
    found: dict[tuple[int, int], str] = {}

    def add(path: str, why: str) -> None:
        with contextlib.suppress(OSError):
            info = os.stat(path, follow_symlinks=False)
            if not os.path.isdir(path):
                found.setdefault((info.st_dev, info.st_ino), why)

    for place, why in places:
        if len(found) >= _MAX_INODE_FILES:
            break
        if not place.is_dir():
            add(str(place), why)
            continue
        for folder, _, files in os.walk(place):
            for name in files:
                add(os.path.join(folder, name), why)
            if len(found) >= _MAX_INODE_FILES:
                break
    return found


def _both(places: Iterable[tuple[Path, str]]) -> Iterable[tuple[Path, str]]:
    """Yield each place as written and, when it differs, with links followed."""
    for place, why in places:
        yield place, why
        try:
            real = place.resolve()
        except (OSError, RuntimeError):
            continue
        if real != place:
            yield real, why
