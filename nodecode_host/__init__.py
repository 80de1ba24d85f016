"""The reference host: a Nodecode-style host in miniature that runs cells from a terminal.

It discovers cells (entry points in ``nodecode.cells`` and drop-in folders),
runs the turn loop with its own bounded, confined tools, and offers the
``nodecode-cursor`` command: chat, ask, models, sign-in, the offline demo and
``serve``, an OpenAI-compatible API. It reaches the cell only through the host
contract (``nodecode_cursor.host``), the cell's errors and the cell object, the
way any host would; nothing in the cell imports it.
"""

from __future__ import annotations

__all__: list[str] = []
