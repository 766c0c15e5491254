"""Benchmark the server's memory over many finished tables: its RSS after 5, 20 and 50
finished tables, for this tree and (``--before PATH``) another checkout side by side.

Two scenarios, each on a fresh ``python -m sdk.server`` process (its database in a
temporary directory):

* ``ws``: four lean protocol v1 clients per table (raw WebSockets, answering every
  request at once, as ``bench_server.py`` does), ``--parallel`` tables at a time, of
  ``--hands`` hands each: the WebSocket scenario of issue 32;
* ``ordinary``: four SDK bots per table (:class:`bots.random.RandomBot` through
  :func:`sdk.transports.ws.run_ws`, the client a bot author uses), of
  ``--ordinary-hands`` hands.

First it prints what a seat's frame log costs (:class:`protocol.wire.framelog.FrameLog`):
the frames of a 64-hand match kept as strings and packed per hand, and the CPU the
packing adds per hand (``--frames-only``: just that).

At each count the benchmark waits ``finished_grace`` (10 s) and a little more, so the
finished tables are forgotten, then reads the server's ``VmRSS``. The goal of issue 32:
the RSS after 50 finished tables within 50 MiB of the RSS after 5. Memory grows once
while the allocator warms up; what matters is that it stops.

The ``before`` server runs the other checkout's code (``PYTHONPATH=PATH``); the clients
are this tree's either way.

Run: ``nice -n 10 python benchmarks/bench_server_memory.py --before /work/main``
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_server import lean_bot, server_process

from bots.random import RandomBot
from protocol.wire import WireServerSeat
from sdk.local import play_match
from sdk.transports.ws import run_ws

GRACE = 10.0
"""The server's ``finished_grace`` (its default): finished tables stay this long."""
MIB = 1 << 20


def rss(pid: int) -> int:
    """The resident set size of process ``pid``, bytes (Linux ``/proc``)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise RuntimeError(f"no VmRSS for {pid}")


@contextlib.contextmanager
def python_path(tree: str | None) -> Iterator[None]:
    """Start processes with ``PYTHONPATH=tree`` inside the block (``None``: unchanged)."""
    old = os.environ.get("PYTHONPATH")
    if tree is not None:
        os.environ["PYTHONPATH"] = tree
    try:
        yield
    finally:
        if old is None:
            os.environ.pop("PYTHONPATH", None)
        else:
            os.environ["PYTHONPATH"] = old


async def _table(
    http: httpx.AsyncClient, ws_url: str, scenario: str, hands: int, seed: int
) -> None:
    seats = [{"seat": s, "bot_name": f"mem{s}"} for s in range(4)]
    body = {"seed": seed, "hands": hands, "seats": seats}
    created = (await http.post("/v1/tables", json=body)).json()
    tokens = [created["tokens"][str(s)] for s in range(4)]
    if scenario == "ws":
        rng = random.Random(seed)
        await asyncio.gather(*(lean_bot(ws_url, t, rng) for t in tokens))
    else:
        await asyncio.gather(
            *(run_ws(RandomBot(seed=seed * 4 + i), ws_url, t) for i, t in enumerate(tokens))
        )


async def _measure(
    url: str, pid: int, scenario: str, hands: int, parallel: int, counts: list[int]
) -> list[int]:
    ws_url = url.replace("http://", "ws://") + "/v1/ws"
    out: list[int] = []
    done = 0
    async with httpx.AsyncClient(base_url=url, timeout=60) as http:
        for count in counts:
            while done < count:
                batch = min(parallel, count - done)
                await asyncio.gather(
                    *(_table(http, ws_url, scenario, hands, done + i) for i in range(batch))
                )
                done += batch
            await asyncio.sleep(GRACE + 2.0)
            out.append(rss(pid))
            print(
                f"  {scenario}: {out[-1] / MIB:.1f} MiB after {count} tables",
                file=sys.stderr,
                flush=True,
            )
    return out


def run(tree: str | None, scenario: str, hands: int, parallel: int, counts: list[int]) -> list[int]:
    """RSS after each count of finished tables, on a fresh server running ``tree``."""
    with (
        tempfile.TemporaryDirectory() as tmp,
        python_path(tree),
        server_process(str(Path(tmp) / "mem.db")) as (url, pid),
    ):
        return asyncio.run(_measure(url, pid, scenario, hands, parallel, counts))


def frame_log_figures(hands: int = 64) -> str:
    """One seat's frames of a ``hands``-hand match: memory as strings and packed, and
    the CPU time of pushing them with and without packing (medians of 5)."""
    events = play_match(
        [RandomBot(seed=s) for s in range(4)], seed=3, hands=hands, record_events=True
    ).events

    def push(pack: bool) -> tuple[float, WireServerSeat]:
        seat = WireServerSeat(0, "token", "m-1", "t-1")
        if not pack:
            seat._log.pack = lambda: None  # type: ignore[method-assign]
        started = time.process_time()
        for event in events:
            seat.push_event(event)
        return time.process_time() - started, seat

    plain_s = statistics.median(push(False)[0] for _ in range(5))
    packed_s = statistics.median(push(True)[0] for _ in range(5))
    log_plain, log_packed = push(False)[1]._log, push(True)[1]._log
    plain = sum(sys.getsizeof(f) for f in log_plain.frames(0, len(log_plain)))
    packed = sum(map(len, log_packed._blocks)) + sum(sys.getsizeof(f) for f in log_packed._recent)
    extra = (packed_s - plain_s) / hands * 1000
    return (
        f"one seat's frames of a {hands}-hand match: {plain / MIB:.2f} MiB as strings,"
        f" {packed / MIB:.2f} MiB packed ({plain / packed:.1f}x); pushing them"
        f" {plain_s * 1000:.1f} ms, packed {packed_s * 1000:.1f} ms ({extra:+.3f} ms a hand)"
    )


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--before", help="a checkout to measure side by side (e.g. /work/main)")
    p.add_argument("--scenarios", nargs="+", default=["ws", "ordinary"], choices=["ws", "ordinary"])
    p.add_argument("--hands", type=int, default=64, help="hands per table, ws scenario")
    p.add_argument("--ordinary-hands", type=int, default=16, help="hands per table, ordinary play")
    p.add_argument("--parallel", type=int, default=4, help="tables played at once")
    p.add_argument("--counts", type=int, nargs="+", default=[5, 20, 50])
    p.add_argument("--frames-only", action="store_true", help="only the frame log's figures")
    args = p.parse_args()
    print(frame_log_figures(), flush=True)
    if args.frames_only:
        return
    trees = [("after (this tree)", str(Path(__file__).resolve().parent.parent))]
    if args.before:
        trees.insert(0, (f"before ({args.before})", args.before))
    counts = sorted(args.counts)
    head = " | ".join(f"RSS after {c}" for c in counts)
    print(f"| scenario | server | {head} | {counts[-1]} minus {counts[0]} |")
    print("|---|---|" + "---:|" * (len(counts) + 1))
    for scenario in args.scenarios:
        hands = args.hands if scenario == "ws" else args.ordinary_hands
        for label, tree in trees:
            started = time.monotonic()
            sizes = run(tree, scenario, hands, args.parallel, counts)
            cells = " | ".join(f"{s / MIB:.1f} MiB" for s in sizes)
            grown = (sizes[-1] - sizes[0]) / MIB
            print(
                f"| {scenario}, {hands} hands | {label} | {cells} | {grown:+.1f} MiB |", flush=True
            )
            print(f"  ({time.monotonic() - started:.0f} s)", file=sys.stderr, flush=True)


if __name__ == "__main__":
    main()
