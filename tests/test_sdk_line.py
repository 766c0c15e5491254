"""The line-protocol transports: a scripted transcript, a whole match over TCP, and a
bot program on stdin/stdout as the official wrapper runs it (with a bot that prints)."""

from __future__ import annotations

import asyncio
import random
import sys
from collections.abc import Awaitable, Callable

from protocol.actions import PASS, Action
from protocol.events import HandEnd, HandResult
from protocol.line.adapter import Decided, LineTable, NextAsk
from protocol.match import Match
from sdk.bot import Bot, DecisionRequest
from sdk.budget import Outcome
from sdk.session import ConnectionLost, Session, drive
from sdk.transports.line import LineCodec, run_tcp
from sdk.transports.mock import MockTransport
from sdk.view import GameView

Read = Callable[[], Awaitable[str]]
Write = Callable[[str], Awaitable[None]]


class Referee:
    """A line-protocol referee for one program at ``seat``; the other seats play at
    random in-process."""

    def __init__(self, seed: int, hands: int, seat: int = 0) -> None:
        self.match = Match.new(seed, hands)
        self.table = LineTable()
        self.seat = self.table.add_seat(seat, "bot")
        self.rng = random.Random(seed)
        self.answered: list[Action] = []

    async def run(self, read: Read, write: Write) -> Match:
        await write(self.seat.start_line())
        await self._feed(self.match.events, write)
        while not self.match.is_over:
            for s, legal in list(self.match.pending().items()):
                action = await self._ask(legal, read, write) if s == self.seat.seat else None
                action = action or self.rng.choice(legal)
                await self._feed(self.match.apply(s, action), write)
        return self.match

    async def _ask(self, legal: tuple[Action, ...], read: Read, write: Write) -> Action:
        claim = self.match.current.public.pending_tile if PASS in legal else None
        line = self.seat.request(legal, claim)
        while True:
            await write(line)
            reply = self.seat.receive_line(await asyncio.wait_for(read(), 10))
            if isinstance(reply, Decided):
                self.answered.append(reply.action)
                return reply.action
            assert isinstance(reply, NextAsk)
            line = reply.line

    async def _feed(self, events: list, write: Write) -> None:  # type: ignore[type-arg]
        for event in events:
            for line in self.table.feed(event)[self.seat.seat]:
                await write(line)


class LastLegal(Bot):
    def choose(self, view: GameView, request: DecisionRequest) -> Action:
        return request.legal_actions[-1]


class Scorer(LastLegal):
    """Notes what the hooks at the end of each hand and of the match are given."""

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.results: list[HandResult] = []
        self.scores: list[tuple[int, ...]] = []
        self.final: tuple[int, ...] | None = None

    def on_hand_end(self, view: GameView, result: HandResult) -> None:
        self.results.append(result)
        self.scores.append(tuple(view.scores))

    def on_match_end(self, view: GameView, scores: tuple[int, ...]) -> None:
        self.final = scores


async def test_a_transcript_from_start_to_exit() -> None:
    match = Match.new(3, 1)
    table = LineTable()
    seat = table.add_seat(0, "bot")
    dealt = [line for ev in match.events for line in table.feed(ev)[0]]
    assert [line.split()[0] for line in dealt] == ["/initGame", "/initCard"]
    legal = match.pending()[0]
    transport = MockTransport()
    channel = transport.connection()
    channel.incoming(seat.start_line(), "/ready").expect("/ready", *dealt)
    channel.incoming(seat.request(legal)).expect(lambda line: line.startswith("/throw "), "/exit")
    session = Session(LastLegal("last"), LineCodec(), strict=True)
    result = await drive(session, transport.connect)
    transport.assert_done()
    thrown = seat.receive_line(channel.sent[-1])
    assert thrown == Decided(legal[-1])  # the tile ids name the bot's discard
    assert result.completed and result.seat == 0 and result.stats.outcomes == {Outcome.OK: 1}
    # the line protocol sends no scores: the seat keeps them, and the hand /exit cut
    # short is a draw (R15: no payments)
    assert result.scores == (0, 0, 0, 0)


async def test_a_whole_match_over_tcp() -> None:
    referee = Referee(seed=7, hands=2, seat=2)
    done: asyncio.Future[Match] = asyncio.get_running_loop().create_future()

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        async def read() -> str:
            return (await reader.readline()).decode().strip()

        async def write(line: str) -> None:
            writer.write(line.encode() + b"\n")
            await writer.drain()

        try:
            done.set_result(await referee.run(read, write))
        except Exception as exc:  # surfaces in the test below
            done.set_exception(exc)
        finally:
            writer.close()

    server = await asyncio.start_server(serve, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    bot = Scorer("last")
    async with server:
        result = await run_tcp(bot, "127.0.0.1", port, strict=True)
        match = await asyncio.wait_for(done, 10)
    assert match.is_over and result.completed and result.seat == 2 and result.hands == 2
    assert result.stats.count == len(referee.answered) > 10
    assert result.stats.fallbacks == 0
    # no scores on the wire, yet the hooks get the referee's results and scores: the
    # seat scores each hand itself (protocol.line.hand_end)
    ends = [e for e in match.events if isinstance(e, HandEnd)]
    assert bot.results == [e.result for e in ends] and len(ends) == 2
    assert bot.scores == [tuple(e.scores) for e in ends]
    assert bot.final == result.scores == match.scores


async def test_an_unreachable_referee_fails_at_once() -> None:
    server = await asyncio.start_server(lambda r, w: None, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    server.close()
    await server.wait_closed()
    try:
        await run_tcp(LastLegal("x"), "127.0.0.1", port)
    except ConnectionLost as exc:
        assert "cannot connect" in str(exc)
    else:
        raise AssertionError("expected ConnectionLost")


PROGRAM = """
import random
from sdk.bot import Bot
from sdk.cli import run

class Noisy(Bot):
    def choose(self, view, request):
        print("thinking aloud")  # must not reach the referee
        return random.Random(len(view.hand)).choice(request.legal_actions)

run(Noisy, ["--line", "--log-level", "ERROR"])
"""


async def test_a_program_on_stdin_and_stdout_plays_a_match() -> None:
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        PROGRAM,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    stdin, stdout = proc.stdin, proc.stdout

    async def read() -> str:
        return (await stdout.readline()).decode().strip()

    async def write(line: str) -> None:
        stdin.write(line.encode() + b"\n")
        await stdin.drain()

    referee = Referee(seed=11, hands=1, seat=1)
    try:
        match = await asyncio.wait_for(referee.run(read, write), 30)
        code = await asyncio.wait_for(proc.wait(), 30)
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
    errors = (await proc.stderr.read()).decode()
    assert match.is_over and len(referee.answered) > 3
    assert code == 0, errors
    assert "thinking aloud" in errors  # the prints went to stderr
