"""Benchmark fairness on a shared address: one abusive local client and honest local
clients, all from 127.0.0.1 (the default loopback server, where every local client has
the same address). Can the abuser lock its neighbours out?

The server runs in its own process (``python -m sdk.server``), the victims in this one,
the abuser in a third at ``--nice`` (10). Two servers are measured in one run:

* ``per address``: ``--shared-networks`` given no network, the limits of before issue 32
  (every address is one client: one abuser's bar, connection cap and REST rate are its
  neighbours' too);
* ``shared``: the default, loopback is a shared network (limits by connection and seat).

Each server gets a ``baseline`` phase (victims alone) and an ``abuser`` phase of
``--seconds`` each. The abuser, from 127.0.0.1, at once: four WebSockets that take a
seat of its own and send pings without reading (cut off, then reconnecting), 600 idle
connections (over the 512 per address; reopened when closed), and 16 REST loops over
keep-alive connections. The victims, from 127.0.0.1: four REST loops (``GET
/v1/tables``, ten a second each) and two bot loops (create a table over REST, connect
with the seat's token, then resume: connect again with ``last_seq``), each call under
a 2 s timeout. Printed: each phase's victim calls that succeeded and their p99 latency.

Run: ``nice -n 10 python benchmarks/bench_server_shared.py [--seconds 15] [--nice 10]``
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import multiprocessing
import os
import tempfile
import time
from collections.abc import Awaitable
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import websockets
from bench_server import percentile, server_process
from bench_server_attack import _ping_frame, run_attacker

from protocol.wire import WireClient

TIMEOUT = 2.0
"""Seconds a victim's call may take before it counts as failed."""
IDLE = 600


@dataclass
class Calls:
    """One kind of victim call: how many succeeded, and their latencies (ms)."""

    ok: int = 0
    failed: int = 0
    ms: list[float] = field(default_factory=list)

    def cell(self) -> str:
        total = self.ok + self.failed
        p99 = f"{percentile(self.ms, 99):.1f} ms" if self.ms else "-"
        return f"{self.ok} / {total} | {p99}"


def _masked(opcode: int, payload: bytes) -> bytes:
    mask = os.urandom(4)
    head = bytes([0x80 | opcode, 0x80 | len(payload)]) if len(payload) < 126 else b""
    if not head:
        head = bytes([0x80 | opcode, 0x80 | 126]) + len(payload).to_bytes(2, "big")
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


async def _upgrade(port: int) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(
        b"GET /v1/ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
    )
    await writer.drain()
    return reader, writer


async def _abuse(url: str, port: int, stop: asyncio.Event) -> str:
    counts = {"cuts": 0, "idle": 0, "rest": 0}
    async with httpx.AsyncClient(base_url=url, timeout=5) as http:
        body = {
            "seed": 9,
            "hands": 64,
            "seats": [{"seat": s, "bot_name": "abuser"} for s in range(4)],
        }
        tokens = list((await http.post("/v1/tables", json=body)).json()["tokens"].values())
    pings = _ping_frame() * 64

    async def pinger(token: str) -> None:
        hello = _masked(0x1, WireClient(token, "abuser").hello().encode())
        while not stop.is_set():
            try:
                _, writer = await _upgrade(port)
                writer.write(hello)
                while not stop.is_set():
                    writer.write(pings)
                    await writer.drain()
            except (OSError, ConnectionError):
                counts["cuts"] += 1
                await asyncio.sleep(0.05)

    async def idler() -> None:
        held: list[asyncio.StreamReader] = []
        while not stop.is_set():
            held = [r for r in held if not r.at_eof()]
            while len(held) < IDLE and not stop.is_set():
                with contextlib.suppress(OSError):
                    reader, _ = await asyncio.open_connection("127.0.0.1", port)
                    held.append(reader)
                    counts["idle"] += 1
            await asyncio.sleep(0.2)

    async def rest() -> None:
        async with httpx.AsyncClient(base_url=url, timeout=2) as http:
            while not stop.is_set():
                with contextlib.suppress(httpx.HTTPError):
                    await http.get("/v1/tables?limit=500")
                    counts["rest"] += 1

    await asyncio.gather(*(pinger(t) for t in tokens), idler(), *(rest() for _ in range(16)))
    return f"cut off {counts['cuts']} times, {counts['idle']} idle connections, {counts['rest']} REST calls"


async def _timed(calls: Calls, work: Awaitable[bool]) -> None:
    """Count ``work`` as a call that succeeded or not, and time it."""
    started = time.perf_counter()
    try:
        async with asyncio.timeout(TIMEOUT):
            ok = await work
    except (TimeoutError, OSError, httpx.HTTPError, websockets.WebSocketException, KeyError):
        ok = False
    if ok:
        calls.ok += 1
        calls.ms.append((time.perf_counter() - started) * 1000)
    else:
        calls.failed += 1


async def _get(http: httpx.AsyncClient) -> bool:
    return (await http.get("/v1/tables?limit=10")).status_code == 200


async def _create(http: httpx.AsyncClient, seed: int, tokens: list[str]) -> bool:
    body = {"seed": seed, "hands": 1, "seats": [{"seat": 0, "bot_name": "victim"}]}
    answer = await http.post("/v1/tables", json=body)
    if answer.status_code != 201:
        return False
    tokens.append(answer.json()["tokens"]["0"])
    return True


async def _hello(ws_url: str, token: str, resume: bool) -> bool:
    """Connect with the seat's ``token`` (``resume``: with ``last_seq`` 0); whether the
    server welcomed it."""
    frame = json.loads(WireClient(token, "victim").hello())
    if resume:
        frame["last_seq"] = 0
    async with websockets.connect(ws_url, open_timeout=TIMEOUT, ping_interval=None) as ws:
        await ws.send(json.dumps(frame))
        return bool(json.loads(await ws.recv())["type"] == "welcome")


async def _victims(url: str, seconds: float) -> tuple[Calls, Calls]:
    rest, bots = Calls(), Calls()
    ws_url = url.replace("http://", "ws://") + "/v1/ws"
    deadline = time.monotonic() + seconds

    async def rest_loop() -> None:
        async with httpx.AsyncClient(base_url=url, timeout=TIMEOUT) as http:
            while time.monotonic() < deadline:
                await _timed(rest, _get(http))
                await asyncio.sleep(0.1)

    async def bot_loop(seed: int) -> None:
        async with httpx.AsyncClient(base_url=url, timeout=TIMEOUT) as http:
            while time.monotonic() < deadline:
                tokens: list[str] = []
                await _timed(rest, _create(http, seed, tokens))
                for token in tokens:
                    await _timed(bots, _hello(ws_url, token, resume=False))
                    await _timed(bots, _hello(ws_url, token, resume=True))
                await asyncio.sleep(0.2)

    await asyncio.gather(*(rest_loop() for _ in range(4)), *(bot_loop(n) for n in range(2)))
    return rest, bots


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seconds", type=float, default=15.0, help="each phase's length")
    p.add_argument("--nice", type=int, default=10, help="the abuser's CPU priority")
    args = p.parse_args()
    print(
        "| server limits | phase | victims' REST calls ok | REST p99 | bot connects and resumes ok | connect p99 |"
    )
    print("|---|---|---:|---:|---:|---:|")
    for label, options in (("per address (before)", ["--shared-networks"]), ("shared (after)", [])):
        with (
            tempfile.TemporaryDirectory() as tmp,
            server_process(str(Path(tmp) / "shared.db"), "--connect-wait", "1", *options) as (
                url,
                _pid,
            ),
        ):
            for phase in ("baseline", "abuser"):
                stop, notes = multiprocessing.Event(), multiprocessing.Queue()
                attacker = None
                if phase == "abuser":
                    attacker = multiprocessing.Process(
                        target=run_attacker, args=(_abuse, url, args.nice, stop, notes)
                    )
                    attacker.start()
                    time.sleep(2.0)  # let it get going
                rest, bots = asyncio.run(_victims(url, args.seconds))
                note = ""
                if attacker is not None:
                    stop.set()
                    attacker.join(30)
                    note = f" ({notes.get(timeout=5)})" if not notes.empty() else ""
                print(f"| {label} | {phase}{note} | {rest.cell()} | {bots.cell()} |", flush=True)
                time.sleep(3.0)  # bars and idle connections run out


if __name__ == "__main__":
    main()
