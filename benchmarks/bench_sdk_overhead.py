"""Benchmark the SDK's own time per decision over a loopback game.

A protocol v1 server (``tests/loopback.py``: ``websockets.serve`` + ``WireServerSeat`` +
the referee) runs in a subprocess; this process plays the four seats with the SDK's
WebSocket client and an instant bot. Three figures per decision, p50 / p99 / max:

* **SDK overhead**: decoding the frames that arrived since the previous decision,
  updating the mirror (and its self-check), handling the request and encoding the reply
  (``SessionResult.overhead``). The target is p99 <= 1 ms. It is measured twice: by the
  wall clock (which also counts the time the OS gives other processes in the middle of
  that work) and by this thread's CPU time (the SDK's own work only; use it on a busy
  machine).
* **bot call**: from the request reaching the bot runner to the answer, for a bot that
  answers at once: the cost of :func:`sdk.decide.decide_async` itself (a thread hop for a
  plain bot; none for a coroutine bot).
* **server round trip**: from the server writing the request to it reading the reply
  (both processes, the network stack and the four clients sharing this process).

Run: ``python benchmarks/bench_sdk_overhead.py [--hands 16] [--matches 2] [--bot both]``
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from loopback import LoopbackServer  # noqa: E402

from protocol.actions import Action  # noqa: E402
from protocol.wire import WireClient  # noqa: E402
from sdk.bot import Bot, DecisionRequest  # noqa: E402
from sdk.budget import DecisionStats  # noqa: E402
from sdk.session import Session, SessionResult, drive  # noqa: E402
from sdk.transports.ws import WireCodec, open_ws  # noqa: E402
from sdk.view import GameView  # noqa: E402


class InstantSync(Bot):
    """Answers at once (a plain bot: it runs in a thread)."""

    def __init__(self, seed: int) -> None:
        super().__init__("instant-sync")
        self.rng = random.Random(seed)

    def choose(self, view: GameView, request: DecisionRequest) -> Action:
        return self.rng.choice(request.legal_actions)


class InstantAsync(Bot):
    """Answers at once (a coroutine bot: no thread)."""

    def __init__(self, seed: int) -> None:
        super().__init__("instant-async")
        self.rng = random.Random(seed)

    async def choose(self, view: GameView, request: DecisionRequest) -> Action:
        return self.rng.choice(request.legal_actions)


async def serve(seed: int, hands: int) -> None:
    """The server side (``--serve``): print the URL, play, print the round trips."""
    async with LoopbackServer(seed=seed, hands=hands) as server:
        print(server.url, flush=True)
        await server.play()
        await asyncio.sleep(0.1)
    print(json.dumps([t for s in range(4) for t in server.latency[s]]), flush=True)


async def play_seat(bot: Bot, url: str, token: str, clock: str) -> SessionResult:
    """What :func:`sdk.transports.ws.run_ws` does, with the overhead clock chosen."""
    timer = time.thread_time if clock == "cpu" else time.perf_counter
    session = Session(bot, WireCodec(WireClient(token, bot.name)), clock=timer)
    return await drive(session, lambda: open_ws(url))


async def one_match(kind: str, seed: int, hands: int, clock: str) -> tuple[DecisionStats, ...]:
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        __file__,
        "--serve",
        "--seed",
        str(seed),
        "--hands",
        str(hands),
        stdout=asyncio.subprocess.PIPE,
        cwd=ROOT,
    )
    assert proc.stdout is not None
    url = (await proc.stdout.readline()).decode().strip()
    cls = InstantAsync if kind == "async" else InstantSync
    results = await asyncio.gather(
        *(play_seat(cls(seed * 4 + s), url, f"token-{s}", clock) for s in range(4))
    )
    round_trips = json.loads(await proc.stdout.readline())
    await proc.wait()
    overhead, bot, server = DecisionStats(), DecisionStats(), DecisionStats()
    for result in results:
        overhead.merge(result.overhead)
        bot.merge(result.stats)
    for t in round_trips:
        server.record(t)
    return overhead, bot, server


def line(label: str, stats: DecisionStats) -> str:
    ms = [stats.percentile(50) * 1000, stats.percentile(99) * 1000, stats.max * 1000]
    return f"  {label:<20} p50 {ms[0]:7.3f} ms   p99 {ms[1]:7.3f} ms   max {ms[2]:7.3f} ms"


async def bench(args: argparse.Namespace) -> None:
    kinds = ["async", "sync"] if args.bot == "both" else [args.bot]
    for kind, clock in [(k, c) for k in kinds for c in ("wall", "cpu")]:
        totals = [DecisionStats() for _ in range(3)]
        for m in range(args.matches):
            parts = await one_match(kind, args.seed + m, args.hands, clock)
            for total, part in zip(totals, parts, strict=True):
                total.merge(part)
        overhead, bot, server = totals
        timer = "thread CPU time" if clock == "cpu" else "wall clock"
        print(
            f"{kind} instant bot, {args.matches} x {args.hands} hands, {overhead.count} decisions"
        )
        print(f"  (SDK overhead timed by {timer})")
        print(line("SDK overhead", overhead))
        print(line("bot call", bot))
        print(line("server round trip", server))
        met = "met" if overhead.percentile(99) <= 0.001 else "NOT met"
        print(f"  target SDK overhead p99 <= 1 ms: {met}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--hands", type=int, default=16)
    parser.add_argument("--matches", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--bot", choices=["async", "sync", "both"], default="both")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        asyncio.run(serve(args.seed, args.hands))
    else:
        asyncio.run(bench(args))


if __name__ == "__main__":
    main()
