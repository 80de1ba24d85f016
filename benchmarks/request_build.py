"""How request building grows with the history, and what round N+1 costs.

Usage: python benchmarks/request_build.py

For histories of 10, 100, 1 000 and 5 000 messages (user turns, assistant text,
tool rounds, and a 100 KiB tool result every 50 messages) it prints, per size:
the time and peak traced memory of the first build into a fresh conversation,
the time per message (flat when the cost grows linearly), and the time and
bytes hashed of the next round's build (two new messages) in the same
conversation, which must not hash the old blobs again, and how many blobs the
conversation keeps after it (only those the latest request names).

Only prints; it asserts nothing about speed. What a request holds is
request.py's and history.py's business.
"""

from __future__ import annotations

import sys
import time
import tracemalloc
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from nodecode_cursor.core.blobs import Conversation  # noqa: E402
from nodecode_cursor.core.request import build_run_request  # noqa: E402
from nodecode_cursor.models.routing import WireModel  # noqa: E402

WIRE = WireModel("gpt-5", "gpt-5-high", (("reasoning", "high"),), False)
BIG = "r" * (100 * 1024)


def history(size: int) -> list[dict[str, Any]]:
    """Return a history of SIZE messages with tool rounds and a few large results."""
    messages: list[dict[str, Any]] = []
    n = 0
    while len(messages) < size - 1:
        messages.append({"role": "user", "content": f"question {n}"})
        call_id = f"call_{n}"
        messages.append(
            {
                "role": "assistant",
                "content": f"looking {n}",
                "tool_calls": [
                    {
                        "id": call_id,
                        "type": "function",
                        "function": {"name": "read", "arguments": f'{{"path":"f{n}.txt"}}'},
                    }
                ],
            }
        )
        content = BIG if n % 12 == 0 else f"contents {n}"
        messages.append({"role": "tool", "tool_call_id": call_id, "content": content})
        messages.append({"role": "assistant", "content": f"answer {n}"})
        n += 1
    messages = messages[: size - 1]
    messages.append({"role": "user", "content": "and now?"})
    return messages


def main() -> None:
    """Print the measurements."""
    print(
        f"{'messages':>8} {'first ms':>9} {'us/msg':>7} {'peak MiB':>9} "
        f"{'next ms':>8} {'next hashed':>12} {'kept':>6}"
    )
    for size in (10, 100, 1000, 5000):
        messages = history(size)
        conversation = Conversation("bench")
        tracemalloc.start()
        start = time.perf_counter()
        build_run_request(messages, "system", WIRE, "gpt-5", "GPT-5", conversation)
        first = time.perf_counter() - start
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        hashed = conversation.blobs.hashed_bytes
        messages[-1:] = [
            {"role": "user", "content": "and now?"},
            {"role": "assistant", "content": "done"},
            {"role": "user", "content": "thanks"},
        ]
        start = time.perf_counter()
        build_run_request(messages, "system", WIRE, "gpt-5", "GPT-5", conversation)
        following = time.perf_counter() - start
        print(
            f"{size:>8} {first * 1e3:>9.1f} {first / size * 1e6:>7.1f} {peak / 2**20:>9.1f} "
            f"{following * 1e3:>8.1f} {conversation.blobs.hashed_bytes - hashed:>12}"
            f" {len(conversation.blobs):>6}"
        )


if __name__ == "__main__":
    main()
