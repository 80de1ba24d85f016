"""What the kit's unary calls (sign-in poll, profile, dashboard, roster) say about themselves.

A loopback server reads the request's head off a real socket.
"""

from __future__ import annotations

import asyncio

from nodecode_cursor import limits
from nodecode_cursor.transports.unary import unary


async def _heads_of_one_call(headers: dict[str, str]) -> bytes:
    """Return the head of the one request ``unary`` sends with HEADERS."""
    seen: asyncio.Future[bytes] = asyncio.get_running_loop().create_future()

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        seen.set_result(await reader.readuntil(b"\r\n\r\n"))
        writer.write(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n{}")
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(answer, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    async with server:
        got = await unary(
            f"http://127.0.0.1:{port}/api/auth/me", headers=headers, timeout=30, method="GET"
        )
    assert got.status == 200
    return await seen


def test_a_unary_call_names_the_cell_and_accepts_any_type() -> None:
    head = asyncio.run(_heads_of_one_call({"cookie": "c=1"})).lower()
    assert f"user-agent: {limits.UNARY_USER_AGENT}\r\n".lower().encode() in head
    assert b"\r\naccept: */*\r\n" in head
    assert b"\r\ncookie: c=1\r\n" in head


def test_a_callers_own_user_agent_and_accept_win() -> None:
    head = asyncio.run(
        _heads_of_one_call({"user-agent": "mine/2", "accept": "application/json"})
    ).lower()
    assert head.count(b"user-agent:") == 1
    assert b"\r\nuser-agent: mine/2\r\n" in head
    assert b"\r\naccept: application/json\r\n" in head
