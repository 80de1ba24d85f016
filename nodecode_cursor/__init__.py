"""nodecode-cursor: a Nodecode cell that runs Cursor's models over Cursor's own agent protocol.

Importing the package is cheap on purpose: a host imports every cell at start-up,
so nothing here parses the model catalog, loads protobuf or imports httpx.
Those load on first use, in the modules that need them.
"""

from __future__ import annotations

__version__ = "0.1.0"

__all__ = ["__version__"]
