"""The places on disk the host's tools keep out of unless the person allows each call.

Confinement to the working folder is not enough: started from the home folder,
the folder holds ``.ssh`` and the host's own ``auth.json``. ``SecretPlaces``
names the host's home (``NODECODE_HOME``) and the well-known folders and files
where credentials live (under the person's home, and by name anywhere), and
says why a path is one of them. Paths are checked both as written and with
links followed, so a link named ``notes`` that points into ``~/.ssh`` is caught.
Asking the person and refusing is ``host_tools.py``'s job; this module only
knows the places.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

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
)

# Names that hold secrets wherever they are (a copied home, a second user's folder).
SECRET_NAMES = frozenset({".ssh", ".gnupg", ".aws", ".netrc", ".git-credentials", ".pgpass"})


@dataclass(frozen=True, slots=True)
class SecretPlaces:
    """The places to keep out of, each with why (as the refusal words it)."""

    places: tuple[tuple[Path, str], ...]

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
        return cls(tuple(_both(places)))

    def why(self, path: Path) -> str | None:
        """Return why PATH (absolute, as written or resolved) is a secret place, or None."""
        candidates = [path]
        # A link loop: the lexical path alone decides.
        with contextlib.suppress(OSError, RuntimeError):
            candidates.append(path.resolve())
        for candidate in candidates:
            for place, why in self.places:
                if candidate.is_relative_to(place):
                    return why
            for part in candidate.parts:
                if part in SECRET_NAMES:
                    return f"a {part} folder or file, where credentials are kept"
        return None


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
