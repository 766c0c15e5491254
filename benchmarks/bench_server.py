"""Benchmark the local tournament server: concurrent tables of random bots over loopback
WebSockets, the server in one process and every bot in another (this one).

For each number of tables (``--tables 1 10 50 100``) the benchmark creates that many
tables over REST, each with four protocol v1 seats, connects four lean clients per table
(:func:`lean_bot`: raw :mod:`websockets`, parsing only ``request`` frames and answering
each at once with a random legal action id, so the clients cost as little as they can;
they all say ``ready`` once every one is connected, so the tables start together), waits
until every match is over, and reads the server's own decision records
(``GET /v1/matches/{id}/log.jsonl``):

* decisions per second: all decisions over the span from the first request sent to the
  last reply received (server clock);
* request-to-reply latency p50 / p99: ``replied_at - sent_at`` as the server recorded
  it, so it includes both processes' queueing, the sockets and the bot;
* decisions in time: how many were settled ``ok`` (the rest were defaulted);
* CPU per decision of the server's process and of the bots' (this) process: with bots
  that answer at once the tables are a closed loop, so latency is about tables /
  throughput, and throughput is set by whichever process (or the machine's other load)
  runs out of CPU first. The load average is printed with the figures.

Each size runs ``--repeats`` times; the medians are printed, and the p99 of every run
after them (the tail varies most from run to run). The server's database goes
to a temporary directory. Target: 100 tables with every decision in time and
p99 at most 100 ms on a 2-core machine.

Run: ``python benchmarks/bench_server.py [--tables 1 10 50 100] [--hands 1] [--repeats 3]``
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import websockets

from protocol.wire import WireClient


@dataclass(frozen=True)
class Run:
    """One measurement: ``tables`` concurrent tables."""

    tables: int
    decisions: int
    in_time: int
    span: float
    p50_ms: float
    p99_ms: float
    max_ms: float
    cpu_ms: float
    """Server CPU (user + system) per decision, milliseconds."""
    bots_cpu_ms: float
    """The bots' CPU (this process) per decision, milliseconds."""

    @property
    def rate(self) -> float:
        return self.decisions / self.span if self.span else 0.0


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds the process ``pid`` has used (Linux ``/proc``)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@contextlib.contextmanager
def server_process(db: str, *options: str, log: Path | None = None) -> Iterator[tuple[str, int]]:
    """Run ``python -m sdk.server`` on a free loopback port with its database at ``db``
    and the extra command-line ``options``; yield its base URL and pid. Its output goes
    to the file ``log`` (default: this terminal). Both server benchmarks use it."""
    port = _free_port()
    command = [sys.executable, "-m", "sdk.server", "--port", str(port), "--db", db]
    command += ["--log-level", "warning", *options]
    with contextlib.ExitStack() as stack:
        out = stack.enter_context(log.open("wb")) if log is not None else None
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT if out else None)
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(300):
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{url}/v1/health").status_code == 200:
                    break
            time.sleep(0.1)
        yield url, process.pid
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()


class _Barrier:
    """Every bot says ``ready`` only once all are connected and welcomed, so the tables
    start together and connection set-up does not mix with play."""

    def __init__(self, parties: int) -> None:
        self.left, self.go = parties, asyncio.Event()

    async def wait(self) -> None:
        self.left -= 1
        if self.left == 0:
            self.go.set()
        await self.go.wait()


def _reply(frame: str, rng: random.Random) -> str | None:
    """The ``reply`` to a ``request`` frame (a random legal action), else ``None``."""
    if not frame.startswith('{"type":"request"'):
        return None
    request = json.loads(frame)
    choice = rng.choice(request["legal"])["id"]
    return f'{{"type":"reply","request_id":"{request["request_id"]}","action_id":{choice}}}'


async def lean_bot(
    ws_url: str, token: str, rng: random.Random, barrier: _Barrier | None = None
) -> None:
    """A protocol v1 bot as cheap as a client can be, so the figures are the server's:
    it parses only ``request`` frames (event frames are skipped unread) and answers each
    at once with a random legal action id; it stops at ``bye`` or when the server
    closes. With a ``barrier`` it says ``ready`` once every bot is connected."""
    client = WireClient(token, "bench-random")
    async with websockets.connect(
        ws_url, max_size=None, ping_interval=None, compression=None, open_timeout=60
    ) as ws:
        await ws.send(client.hello())
        await ws.recv()  # welcome
        if barrier is not None:
            await barrier.wait()
        await ws.send(client.ready())
        async for frame in ws:
            assert isinstance(frame, str)
            if frame.startswith('{"type":"event"'):
                continue
            reply = _reply(frame, rng)
            if reply is not None:
                await ws.send(reply)
            elif frame.startswith('{"type":"bye"'):
                return


def percentile(data: list[float], p: float) -> float:
    data = sorted(data)
    pos = (len(data) - 1) * p / 100
    lo, hi = int(pos), min(int(pos) + 1, len(data) - 1)
    return data[lo] + (data[hi] - data[lo]) * (pos - lo)


async def measure(url: str, pid: int, tables: int, hands: int, seed: int) -> Run:
    """Play ``tables`` matches at once and read the server's records."""
    cpu_before = cpu_seconds(pid)
    ws_url = url.replace("http", "ws", 1) + "/v1/ws"
    rng = random.Random(seed)
    limits = httpx.Limits(max_connections=50)
    async with httpx.AsyncClient(base_url=url, timeout=60, limits=limits) as http:
        created = []
        for t in range(tables):
            seats = [{"seat": s, "bot_name": f"bench{s}"} for s in range(4)]
            body = {"seed": seed * 1000 + t, "hands": hands, "seats": seats}
            created.append((await http.post("/v1/tables", json=body)).json())
        barrier = _Barrier(4 * tables)
        bots_before = time.process_time()
        await asyncio.gather(
            *(
                lean_bot(ws_url, c["tokens"][str(s)], random.Random(rng.random()), barrier)
                for c in created
                for s in range(4)
            )
        )
        cpu = cpu_seconds(pid) - cpu_before
        bots_cpu = time.process_time() - bots_before
        records: list[dict] = []
        for c in created:
            for _ in range(100):
                response = await http.get(f"/v1/matches/{c['match_id']}/log.jsonl")
                if response.status_code == 200:
                    break
                await asyncio.sleep(0.05)
            lines = [json.loads(line) for line in response.text.splitlines()]
            records.extend(r for r in lines if r["type"] == "decision")
    latencies = [r["ms"] for r in records if r["ms"] is not None]
    span = max(r["replied_at"] or r["sent_at"] for r in records) - min(
        r["sent_at"] for r in records
    )
    return Run(
        tables=tables,
        decisions=len(records),
        in_time=sum(r["outcome"] in ("ok", "overridden") for r in records),
        span=span,
        p50_ms=percentile(latencies, 50),
        p99_ms=percentile(latencies, 99),
        max_ms=max(latencies),
        cpu_ms=cpu * 1000 / max(1, len(records)),
        bots_cpu_ms=bots_cpu * 1000 / max(1, len(records)),
    )


def _median_run(runs: list[Run]) -> Run:
    med = statistics.median
    return Run(
        tables=runs[0].tables,
        decisions=int(med(r.decisions for r in runs)),
        in_time=int(med(r.in_time for r in runs)),
        span=med(r.span for r in runs),
        p50_ms=med(r.p50_ms for r in runs),
        p99_ms=med(r.p99_ms for r in runs),
        max_ms=med(r.max_ms for r in runs),
        cpu_ms=med(r.cpu_ms for r in runs),
        bots_cpu_ms=med(r.bots_cpu_ms for r in runs),
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tables", type=int, nargs="+", default=[1, 10, 50, 100])
    parser.add_argument("--hands", type=int, default=1, help="hands per match")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    options = ["--max-tables", "2000", "--rest-rate", "1000", "--rest-burst", "1000"]
    with (
        tempfile.TemporaryDirectory() as tmp,
        server_process(f"{tmp}/bench.db", *options) as (url, pid),
    ):
        load = " / ".join(f"{x:.2f}" for x in os.getloadavg())
        print(
            f"server: {url} (separate process); bots: this process; {args.hands} hand(s)/match;"
            f" load average {load} (1/5/15 min) on {os.cpu_count()} CPUs"
        )
        print(
            f"{'tables':>6} {'decisions':>9} {'in time':>9} {'dec/s':>8} {'p50 ms':>8} "
            f"{'p99 ms':>8} {'max ms':>8} {'srv CPU ms/dec':>14} {'bots CPU ms/dec':>15}"
            "  p99 ms of each run"
        )
        for tables in args.tables:
            runs = [
                asyncio.run(measure(url, pid, tables, args.hands, seed))
                for seed in range(args.repeats)
            ]
            r = _median_run(runs)
            print(
                f"{r.tables:>6} {r.decisions:>9} {r.in_time:>9} {r.rate:>8.0f} "
                f"{r.p50_ms:>8.1f} {r.p99_ms:>8.1f} {r.max_ms:>8.1f} {r.cpu_ms:>14.2f}"
                f" {r.bots_cpu_ms:>15.2f}  " + " ".join(f"{run.p99_ms:.1f}" for run in runs),
                flush=True,
            )


if __name__ == "__main__":
    main()
