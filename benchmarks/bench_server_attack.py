"""Attack the local tournament server while honest tables play, and measure the honest
tables (the victims): can any one client freeze the tables, stop the records or exhaust
the machine?

The server runs in its own process (``python -m sdk.server``, loopback only), the
victims in this one, and each attack in a third process at the lowest CPU priority
(``nice 19``): a real attacker is another machine, and on a shared 2-core machine its
own CPU would otherwise slow the victims' bots, not the server. (So on a busy machine
the attacker gets little CPU and attacks less: its note says how much it did.) Each
phase plays ``--victims`` honest tables (four lean protocol v1 random bots each, from
127.0.0.1) while one attack class runs (from other loopback addresses, 127.0.0.2 and up,
as other clients would), and stops the attack when the victims are done (each attack is
also capped in count and time):

* ``baseline``: no attack;
* ``flood``: bots that hold a seat and send frames as fast as they can, reconnecting
  when cut off;
* ``pings``: WebSocket clients that send pings and never read a byte;
* ``idle``: connections that never send anything (up to ``--idle`` of them);
* ``rest``: concurrent loops over ``GET /v1/tables``, the leaderboard and a log;
* ``lobby``: anonymous ``hello`` spam (each would make a lobby table);
* ``house``: REST tables of four ``defensive`` house bots, as many as the server allows;
* ``absent``: 1,024-hand tables whose four bots never come.

For each phase it prints the victims' decisions, how many were defaulted (not ``ok``),
request-to-reply p50 / p99 from the server's own records, p99 relative to the baseline,
whether every victim hand was recorded, the server's peak resident memory during the
phase (``VmHWM``, reset before each phase), how much it wrote to its log, and its CPU
time during the phase per victim decision (what the attack costs the server, a figure
less sensitive to other load than latency). Goal:
under every attack, victims' p99 within 2x of the baseline, no defaulted
decision, memory bounded, no lost finished hand.

Run: ``python benchmarks/bench_server_attack.py [--victims 10] [--hands 2]
[--only flood,rest] [--idle 1500] [--nice 19]``
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import contextlib
import functools
import json
import multiprocessing
import os
import random
import socket
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import websockets
from bench_server import cpu_seconds, lean_bot, percentile, server_process

from protocol.wire import WireClient

ATTACKERS = ("127.0.0.2", "127.0.0.3", "127.0.0.4", "127.0.0.5")
PHASE_CAP = 60.0
"""Seconds any phase may last at most."""


def _memory(pid: int, field: str) -> int:
    """``VmHWM`` / ``VmRSS`` of ``pid`` in KiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return 0


def _reset_peak(pid: int) -> None:
    with contextlib.suppress(OSError):
        Path(f"/proc/{pid}/clear_refs").write_text("5")


# -- victims -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Result:
    phase: str
    decisions: int
    defaulted: int
    p50: float
    p99: float
    hands_ok: bool
    peak_mib: float
    log_kib: float
    cpu_ms: float
    """The server's CPU time during the phase per victim decision, milliseconds."""
    note: str


async def _create_victims(url: str, tables: int, hands: int, seed: int) -> list[dict]:
    """Create the honest tables (before the attack starts, so it cannot take their
    places under ``max_tables``)."""
    async with httpx.AsyncClient(base_url=url, timeout=30) as http:
        created = []
        for t in range(tables):
            seats = [{"seat": s, "bot_name": f"victim{s}"} for s in range(4)]
            body = {"seed": seed * 1000 + t, "hands": hands, "seats": seats}
            for _ in range(60):  # the last attack's tables may still hold max_tables
                answer = await http.post("/v1/tables", json=body)
                if answer.status_code == 201:
                    break
                await asyncio.sleep(0.5)
            else:
                raise SystemExit(f"cannot create a victim table: {answer.text}")
            created.append(answer.json())
    return created


async def _victims(url: str, created: list[dict], hands: int, seed: int) -> tuple[list[dict], bool]:
    """Play the honest matches; their decision records and whether every hand of every
    one is on record."""
    ws_url = url.replace("http", "ws", 1) + "/v1/ws"
    async with httpx.AsyncClient(base_url=url, timeout=30) as http:
        rng = random.Random(seed)
        await asyncio.gather(
            *(
                lean_bot(ws_url, c["tokens"][str(s)], random.Random(rng.random()))
                for c in created
                for s in range(4)
            )
        )
        records: list[dict] = []
        complete = True
        for c in created:
            for _ in range(200):
                response = await http.get(f"/v1/matches/{c['match_id']}/log.jsonl")
                if response.status_code == 200:
                    break
                await asyncio.sleep(0.1)  # over the rate limit, or not over yet
            lines = [json.loads(line) for line in response.text.splitlines()]
            ends = [r for r in lines if r["type"] == "hand"]
            complete &= len(ends) == hands and lines[-1].get("status") == "finished"
            records.extend(r for r in lines if r["type"] == "decision")
    return records, complete


# -- attacks -------------------------------------------------------------------------------


async def _source_connect(host: str, port: int, source: str, rcvbuf: int | None = None):  # type: ignore[no-untyped-def]
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if rcvbuf is not None:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    sock.bind((source, 0))
    sock.setblocking(False)
    try:
        await asyncio.get_running_loop().sock_connect(sock, (host, port))
    except OSError:
        sock.close()
        raise
    return await asyncio.open_connection(sock=sock)


def _ping_frame() -> bytes:
    mask = os.urandom(4)
    payload = b"p" * 125
    return bytes([0x89, 0x80 | 125]) + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


async def _attacker_table(http: httpx.AsyncClient) -> str | None:
    seats = [{"seat": 0, "bot_name": "attacker", "transport": "ws"}]
    answer = await http.post("/v1/tables", json={"seed": 1, "hands": 16, "seats": seats})
    return answer.json()["tokens"]["0"] if answer.status_code == 201 else None


async def attack_flood(url: str, port: int, stop: asyncio.Event) -> str:
    ws_url = url.replace("http", "ws", 1) + "/v1/ws"
    sent = cuts = 0
    async with httpx.AsyncClient(base_url=url, timeout=10) as http:
        tokens = [await _attacker_table(http) for _ in range(4)]

    async def flood(token: str, source: str) -> None:
        nonlocal sent, cuts
        client = WireClient(token, "flood")
        while not stop.is_set():
            with contextlib.suppress(OSError, websockets.WebSocketException, TimeoutError):
                async with websockets.connect(ws_url, ping_interval=None, open_timeout=5) as ws:
                    await ws.send(client.hello())
                    while not stop.is_set():
                        await ws.send(client.ready())
                        sent += 1
            cuts += 1
            await asyncio.sleep(0.05)

    await asyncio.gather(*(flood(t, s) for t, s in zip(tokens, ATTACKERS, strict=True) if t))
    return f"{sent} frames sent, cut off {cuts} times"


async def attack_pings(url: str, port: int, stop: asyncio.Event) -> str:
    cuts = 0
    ping = _ping_frame() * 64

    async def pinger(source: str) -> None:
        nonlocal cuts
        while not stop.is_set():
            try:
                _, writer = await _source_connect("127.0.0.1", port, source, rcvbuf=4096)
                key = base64.b64encode(os.urandom(16)).decode()
                writer.write(
                    f"GET /v1/ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n"
                    f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                    "Sec-WebSocket-Version: 13\r\n\r\n".encode()
                )
                while not stop.is_set():
                    writer.write(ping)
                    await writer.drain()
            except (OSError, ConnectionError):
                cuts += 1
                await asyncio.sleep(0.05)

    await asyncio.gather(*(pinger(s) for s in ATTACKERS))
    return f"cut off {cuts} times"


async def attack_idle(url: str, port: int, stop: asyncio.Event, count: int) -> str:
    held: list[tuple[asyncio.StreamReader, asyncio.StreamWriter]] = []
    refused = 0
    for i in range(count):
        if stop.is_set():
            break
        try:
            held.append(await _source_connect("127.0.0.1", port, ATTACKERS[i % len(ATTACKERS)]))
        except OSError:
            refused += 1
    await stop.wait()
    closed = 0
    for reader, writer in held:
        with contextlib.suppress(TimeoutError, ConnectionError):
            closed += await asyncio.wait_for(reader.read(1), 0.01) == b""
        writer.close()
    return f"{len(held)} opened ({refused} refused), {closed} closed by the server by the end"


async def attack_rest(url: str, port: int, stop: asyncio.Event) -> str:
    counts: dict[int, int] = {}

    async def loop(source: str, path: str) -> None:
        transport = httpx.AsyncHTTPTransport(local_address=source)
        async with httpx.AsyncClient(base_url=url, transport=transport, timeout=2) as http:
            while not stop.is_set():
                with contextlib.suppress(httpx.HTTPError):
                    code = (await http.get(path)).status_code
                    counts[code] = counts.get(code, 0) + 1

    paths = ["/v1/tables?limit=500", "/v1/leaderboard", "/v1/matches/m-1/log.jsonl"]
    await asyncio.gather(*(loop(ATTACKERS[i % 4], paths[i % 3]) for i in range(64)))
    return "answers " + ", ".join(f"{k}: {v}" for k, v in sorted(counts.items()))


async def attack_lobby(url: str, port: int, stop: asyncio.Event) -> str:
    ws_url = url.replace("http", "ws", 1) + "/v1/ws"
    outcomes: dict[str, int] = {}
    held = []

    async def hello(i: int) -> None:
        with contextlib.suppress(OSError, websockets.WebSocketException, TimeoutError):
            ws = await websockets.connect(ws_url, ping_interval=None, open_timeout=10)
            held.append(ws)
            await ws.send(WireClient(None, f"spam{i}").hello())
            frame = json.loads(await asyncio.wait_for(ws.recv(), 2))
            key = frame.get("code", frame["type"])
            outcomes[key] = outcomes.get(key, 0) + 1

    await asyncio.gather(*(hello(i) for i in range(400)))
    await stop.wait()
    for ws in held:
        with contextlib.suppress(Exception):
            await ws.close()
    return "first answers " + ", ".join(f"{k}: {v}" for k, v in sorted(outcomes.items()))


async def attack_house(url: str, port: int, stop: asyncio.Event) -> str:
    made = refused = 0
    async with httpx.AsyncClient(base_url=url, timeout=10) as http:
        for seed in range(100):
            seats = [{"seat": s, "bot_name": "defensive", "transport": "builtin"} for s in range(4)]
            answer = await http.post("/v1/tables", json={"seed": seed, "hands": 16, "seats": seats})
            made += answer.status_code == 201
            refused += answer.status_code != 201
    await stop.wait()
    return f"{made} defensive house tables made, {refused} refused"


async def attack_absent(url: str, port: int, stop: asyncio.Event) -> str:
    made = 0
    async with httpx.AsyncClient(base_url=url, timeout=10) as http:
        for seed in range(20):
            seats = [{"seat": s, "bot_name": f"ghost{s}"} for s in range(4)]
            answer = await http.post(
                "/v1/tables", json={"seed": seed, "hands": 1024, "seats": seats}
            )
            made += answer.status_code == 201
    await stop.wait()
    return f"{made} tables of 1,024 hands whose bots never come"


Attack = Callable[[str, int, asyncio.Event], Awaitable[str]]

ATTACKS: dict[str, Attack] = {
    "flood": attack_flood,
    "pings": attack_pings,
    "idle": attack_pings,  # replaced by attack_idle with its count in _attacker
    "rest": attack_rest,
    "lobby": attack_lobby,
    "absent": attack_absent,
    "house": attack_house,  # last: its tables play on after the phase
}


def run_attacker(
    attack: Attack,
    url: str,
    nice: int,
    stop: Any,
    notes: Any,
) -> None:
    """An attacker's process: run ``attack`` until ``stop`` is set, put its note in
    ``notes``. It stands for other machines, so it runs at a low CPU priority
    (``--nice``, 19): on a shared machine its own CPU would otherwise slow the victims'
    bots, not the server."""
    os.nice(nice)

    async def run() -> str:
        event = asyncio.Event()

        async def watch() -> None:
            while not stop.is_set():
                await asyncio.sleep(0.1)
            event.set()

        watcher = asyncio.create_task(watch())
        try:
            return await attack(url, int(url.rsplit(":", 1)[1]), event)
        finally:
            watcher.cancel()

    notes.put(asyncio.run(run()))


def _attacker(name: str, url: str, idle: int, nice: int, stop: Any, notes: Any) -> None:
    """Attack ``name`` in this process (:func:`run_attacker`)."""
    attack = functools.partial(attack_idle, count=idle) if name == "idle" else ATTACKS[name]
    run_attacker(attack, url, nice, stop, notes)


async def phase(name: str, url: str, pid: int, log: Path, args: argparse.Namespace) -> Result:
    """Victims while attack ``name`` runs in a process of its own."""
    context = multiprocessing.get_context("fork")
    stop, notes = context.Event(), context.Queue()
    log_before = log.stat().st_size
    _reset_peak(pid)
    cpu_before = cpu_seconds(pid)
    created = await _create_victims(url, args.victims, args.hands, args.seed)
    attacker = None
    if name != "baseline":
        attacker = context.Process(
            target=_attacker, args=(name, url, args.idle, args.nice, stop, notes)
        )
        attacker.start()
        await asyncio.sleep(3.0)  # let the attack build up (a flooder is cut after ~4 s)
    try:
        records, complete = await asyncio.wait_for(
            _victims(url, created, args.hands, args.seed), PHASE_CAP
        )
    except TimeoutError:
        records, complete = [], False
    stop.set()
    cpu = cpu_seconds(pid) - cpu_before
    note = ""
    if attacker is not None:
        try:
            note = await asyncio.to_thread(notes.get, True, 40)
        except Exception:
            note = "the attack did not report"
        attacker.join(5)
        if attacker.is_alive():
            attacker.kill()
    latencies = [r["ms"] for r in records if r.get("ms") is not None]
    return Result(
        phase=name,
        decisions=len(records),
        defaulted=sum(r["outcome"] not in ("ok", "overridden") for r in records),
        p50=percentile(latencies, 50),
        p99=percentile(latencies, 99),
        hands_ok=complete,
        peak_mib=_memory(pid, "VmHWM") / 1024,
        log_kib=(log.stat().st_size - log_before) / 1024,
        cpu_ms=cpu * 1000 / max(1, len(records)),
        note=note,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--victims", type=int, default=10, help="honest tables per phase")
    parser.add_argument("--hands", type=int, default=2, help="hands per honest match")
    parser.add_argument("--idle", type=int, default=1500, help="idle connections to open")
    parser.add_argument(
        "--nice", type=int, default=19, help="the attacker process's niceness (default: 19)"
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--only", default="", help="comma-separated attacks (default: all)")
    args = parser.parse_args()
    chosen = [a for a in args.only.split(",") if a] or list(ATTACKS)
    max_tables = args.victims + 50
    options = ["--max-tables", str(max_tables), "--connect-wait", "2"]
    options += ["--unattended-wait", "5", "--lobby-wait", "1"]
    with (
        tempfile.TemporaryDirectory() as tmp,
        server_process(f"{tmp}/attack.db", *options, log=Path(tmp) / "server.log") as (url, pid),
    ):
        log = Path(tmp) / "server.log"
        print(
            f"server {url} (own process, max tables {max_tables}); "
            f"{args.victims} victim tables x {args.hands} hands per phase; load average "
            + " / ".join(f"{x:.2f}" for x in os.getloadavg())
            + f" (1/5/15 min) on {os.cpu_count()} CPUs"
        )
        print(
            f"{'phase':<9} {'decisions':>9} {'defaulted':>9} {'p50 ms':>7} {'p99 ms':>7} "
            f"{'p99/base':>8} {'hands':>5} {'peak MiB':>8} {'log KiB':>7} {'srv CPU':>7}  attack"
        )
        base: float | None = None
        for name in ["baseline", *chosen]:
            result = asyncio.run(phase(name, url, pid, log, args))
            base = result.p99 if name == "baseline" else base
            ratio = result.p99 / base if base else float("nan")
            print(
                f"{result.phase:<9} {result.decisions:>9} {result.defaulted:>9} "
                f"{result.p50:>7.1f} {result.p99:>7.1f} {ratio:>8.2f} "
                f"{'all' if result.hands_ok else 'LOST':>5} {result.peak_mib:>8.1f} "
                f"{result.log_kib:>7.1f} {result.cpu_ms:>7.2f}  {result.note}",
                flush=True,
            )
            time.sleep(6)  # let the attack's leftovers (paused tables, sockets) clear


if __name__ == "__main__":
    main()
