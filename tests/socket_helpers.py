"""Raw sockets for the server's attack tests: clients no library would be."""

from __future__ import annotations

import asyncio
import base64
import os
import socket
import struct

from sdk.server.runner import ServerHandle


async def closed_within(reader: asyncio.StreamReader, seconds: float) -> bool:
    """Whether the server closes the connection within ``seconds`` (data is skipped)."""
    try:
        async with asyncio.timeout(seconds):
            while await reader.read(65536):
                pass
    except TimeoutError:
        return False
    except ConnectionError:
        pass
    return True


async def raw_socket(
    server: ServerHandle, source: str = "127.0.0.1", rcvbuf: int | None = None
) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """A plain TCP connection to ``server`` from ``source`` (any loopback address),
    with a receive buffer of ``rcvbuf`` bytes if given (a client slow to read)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if rcvbuf is not None:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    sock.bind((source, 0))
    sock.setblocking(False)
    await asyncio.get_running_loop().sock_connect(sock, (server.host, server.port))
    return await asyncio.open_connection(sock=sock)


def ws_frame(opcode: int, payload: bytes) -> bytes:
    """A masked client WebSocket frame."""
    mask = os.urandom(4)
    head = bytes([0x80 | opcode])
    n = len(payload)
    head += bytes([0x80 | n]) if n < 126 else bytes([0x80 | 126]) + struct.pack("!H", n)
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


async def upgraded(
    server: ServerHandle, rcvbuf: int | None = None, source: str = "127.0.0.1"
) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """A raw connection upgraded to a WebSocket at ``/v1/ws`` (frames: :func:`ws_frame`)."""
    reader, writer = await raw_socket(server, source, rcvbuf=rcvbuf)
    key = base64.b64encode(os.urandom(16)).decode()
    writer.write(
        f"GET /v1/ws HTTP/1.1\r\nHost: {server.host}\r\nUpgrade: websocket\r\n"
        f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
        "Sec-WebSocket-Version: 13\r\n\r\n".encode()
    )
    head = await reader.readuntil(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 101"), head
    return reader, writer
