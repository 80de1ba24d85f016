"""A run's reader stops reading when its consumer is behind by messages, not only by reads.

One network read of small frames can carry thousands of messages (issue 36: a
flood in one read skipped the back-pressure that counted reads): the reader
waits until the consumer has taken them.
"""

from __future__ import annotations

import asyncio

from nodecode_cursor import limits
from nodecode_cursor.transports.run import RunSettings, RunStream
from nodecode_cursor.wire.stream import ServerItem


class _Reader(RunStream):
    """The shared consumer side alone: a test hands it batches as a transport would."""

    async def aclose(self) -> None:
        return None

    async def read(self, batch: list[ServerItem]) -> None:
        await self._deliver(batch)


def test_one_read_of_too_many_messages_waits_for_the_consumer() -> None:
    async def scenario() -> tuple[bool, bool, int]:
        stream = _Reader(RunSettings("http://127.0.0.1:9", "t", "cli-test"), None)
        flood: list[ServerItem] = ["delta"] * limits.RUN_INBOX_MESSAGES
        reading = asyncio.create_task(stream.read(flood))
        # Let the reader run to its wait (or to its end, had it not waited).
        for _ in range(3):
            await asyncio.sleep(0)
        waited = not reading.done()
        batches = stream.batches()
        taken = await anext(batches)
        await asyncio.wait_for(reading, 10)
        small = asyncio.create_task(stream.read(["one"]))
        for _ in range(3):
            await asyncio.sleep(0)
        small_waited = not small.done()
        await small
        await batches.aclose()
        return waited, small_waited, len(taken)

    waited, small_waited, taken = asyncio.run(scenario())
    assert (waited, small_waited, taken) == (True, False, limits.RUN_INBOX_MESSAGES)
