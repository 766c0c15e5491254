"""Benchmark the server's storage: bytes per hand on disk with finished matches packed
(issue 32 item 4) against the per-hand rows of before, and the packing's CPU per hand.

The same workload runs twice in this process, on a server with packing off (the layout
of before: every hand a row of JSON lines) and on one with it on (the default): ``--tables``
tables of ``--hands`` hands, each with one protocol v1 seat (``bots.random`` over a
loopback WebSocket, so its decisions keep their raw replies) and three house ``random``
seats. When every match is over the server stops (its write-ahead log is merged), and
the database file's size is divided by the hands stored. The packing's CPU is measured
apart, on the hands of the unpacked database: :func:`sdk.server.packing.pack` of each
match (and ``unpack``, what serving a packed record adds), CPU time per hand, median
over the matches.

Run: ``python benchmarks/bench_server_storage.py [--tables 4] [--hands 64]``
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import sqlite3
import statistics
import tempfile
import time
from pathlib import Path

import httpx

from sdk.arena.loader import load_bot
from sdk.server.config import ServerConfig
from sdk.server.packing import pack, unpack
from sdk.server.runner import running_server
from sdk.transports.ws import run_ws

SEATS = [{"seat": 0, "bot_name": "bench", "transport": "ws"}] + [
    {"seat": s, "bot_name": "random", "transport": "builtin"} for s in (1, 2, 3)
]


async def _play(db: Path, tables: int, hands: int, compress: bool) -> int:
    """Play the workload on a server storing in ``db``; the hands stored."""
    config = ServerConfig(port=0, db_path=str(db), compress_records=compress)
    async with running_server(config) as server, httpx.AsyncClient(base_url=server.url) as http:
        made = []
        for seed in range(tables):
            body = {"seed": 1000 + seed, "hands": hands, "seats": SEATS}
            made.append((await http.post("/v1/tables", json=body)).json())
        bots = [
            run_ws(load_bot("bots.random").make(k), server.ws_url, created["tokens"]["0"])
            for k, created in enumerate(made)
        ]
        await asyncio.gather(*bots)
        for created in made:
            while (await http.get(f"/v1/tables/{created['table_id']}")).json()["status"] not in (
                "finished",
                "aborted",
                "incomplete",
            ):
                await asyncio.sleep(0.1)
    with contextlib.closing(sqlite3.connect(db)) as con:
        (stored,) = con.execute("SELECT sum(hands_played) FROM matches").fetchone()
    return int(stored)


def _cpu(db: Path) -> tuple[float, float]:
    """Median CPU ms per hand of packing a match, and of unpacking it."""
    packing, unpacking = [], []
    with contextlib.closing(sqlite3.connect(db)) as con:
        for (match_id,) in con.execute("SELECT match_id FROM matches").fetchall():
            hands = con.execute(
                "SELECT events, decisions FROM chunks WHERE match_id=? ORDER BY chunk",
                (match_id,),
            ).fetchall()
            start = time.process_time()
            data = pack(hands)
            middle = time.process_time()
            unpack(data)
            end = time.process_time()
            packing.append((middle - start) * 1000 / len(hands))
            unpacking.append((end - middle) * 1000 / len(hands))
    return statistics.median(packing), statistics.median(unpacking)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tables", type=int, default=4)
    parser.add_argument("--hands", type=int, default=64)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        sizes = {}
        for compress in (False, True):
            db = Path(tmp) / f"packed-{compress}.db"
            hands = asyncio.run(_play(db, args.tables, args.hands, compress))
            sizes[compress] = db.stat().st_size / hands
            print(
                f"{'after (packed)' if compress else 'before (rows)':15} {hands} hands, "
                f"{db.stat().st_size / 1e6:.2f} MB on disk: {sizes[compress]:,.0f} bytes a hand",
                flush=True,
            )
        pack_ms, unpack_ms = _cpu(Path(tmp) / "packed-False.db")
    print(f"ratio           {sizes[False] / sizes[True]:.1f}x smaller on disk (goal: >= 5x)")
    print(
        f"CPU per hand    packing {pack_ms:.3f} ms, unpacking {unpack_ms:.3f} ms "
        "(median over the matches)"
    )


if __name__ == "__main__":
    main()
