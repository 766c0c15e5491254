"""A match over TCP against a scripted line-protocol referee, kept as a transcript
(importable as ``transcript_helpers`` from the tests folder)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from test_sdk_line import Referee

from bots.greedy import GreedyBot
from protocol.actions import Action
from protocol.match import Match
from sdk.transports.line import run_tcp
from sdk.transports.transcript import open_transcript


async def serve_one_match(referee: Referee, sent: list[str]) -> tuple[asyncio.Server, int]:
    """A server on a free loopback port that plays ``referee``'s match with the first
    program that connects; every line it writes is appended to ``sent``."""

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        async def read() -> str:
            return (await reader.readline()).decode().strip()

        async def write(line: str) -> None:
            sent.append(line)
            writer.write(line.encode() + b"\n")
            await writer.drain()

        try:
            await referee.run(read, write)
        finally:
            writer.close()

    server = await asyncio.start_server(serve, "127.0.0.1", 0)
    return server, server.sockets[0].getsockname()[1]


def play_transcribed(path: Path, seed: int, hands: int, seat: int) -> tuple[Match, list[Action]]:
    """Play ``GreedyBot`` at ``seat`` over TCP with its transcript kept at ``path``;
    return the referee's match and the actions the seat answered."""

    async def play() -> Referee:
        referee = Referee(seed=seed, hands=hands, seat=seat)
        server, port = await serve_one_match(referee, [])
        async with server:
            transcript = open_transcript(path, "greedy")
            try:
                await run_tcp(GreedyBot(), "127.0.0.1", port, transcript=transcript)
            finally:
                transcript.close()
        return referee

    referee = asyncio.run(play())
    return referee.match, referee.answered
