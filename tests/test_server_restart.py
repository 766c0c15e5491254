"""The server killed (SIGKILL) and restarted on the same database: finished matches,
their logs and the leaderboard are all there; the match that was running is marked
aborted and keeps every hand it had finished, identical to the same seed in-process."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx

from sdk.arena.loader import load_bot
from sdk.local import play_match
from sdk.server.core import house_seed


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextlib.contextmanager
def _server(db: Path, port: int) -> Iterator[subprocess.Popen[bytes]]:
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "sdk.server",
            "--port",
            str(port),
            "--db",
            str(db),
            "--log-level",
            "warning",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"http://127.0.0.1:{port}/v1/health").status_code == 200:
                    break
            time.sleep(0.1)
        else:
            raise AssertionError("the server did not start")
        yield process
    finally:
        if process.poll() is None:
            process.kill()
        process.wait()


def _house_table(seed: int, hands: int) -> dict:
    seats = [{"seat": s, "bot_name": "random", "transport": "builtin"} for s in range(4)]
    return {"seed": seed, "hands": hands, "seats": seats}


def _reference(seed: int, hands: int) -> list[dict]:
    bots = [load_bot("bots.random").make(house_seed(seed, s)) for s in range(4)]
    result = play_match(bots, seed=seed, hands=hands, record_events=True)
    return [e.to_json() for e in result.events]


def test_a_killed_server_restarts_with_its_finished_matches_and_leaderboard(
    tmp_path: Path,
) -> None:
    db, port = tmp_path / "league.db", _free_port()
    url = f"http://127.0.0.1:{port}"
    with _server(db, port) as process:
        done = httpx.post(f"{url}/v1/tables", json=_house_table(3, 2)).json()
        for _ in range(200):
            if httpx.get(f"{url}/v1/tables/{done['table_id']}").json()["status"] == "finished":
                break
            time.sleep(0.05)
        log_before = httpx.get(f"{url}/v1/matches/{done['match_id']}/log").json()
        board_before = httpx.get(f"{url}/v1/leaderboard").json()
        long = httpx.post(f"{url}/v1/tables", json=_house_table(9, 1000)).json()
        for _ in range(200):
            status = httpx.get(f"{url}/v1/tables/{long['table_id']}").json()
            if status["hand_no"] >= 3:
                break
            time.sleep(0.05)
        assert status["status"] == "running"
        assert httpx.get(f"{url}/v1/matches/{long['match_id']}/log").status_code == 409
        process.kill()
    with _server(db, port):
        log_after = httpx.get(f"{url}/v1/matches/{done['match_id']}/log").json()
        board_after = httpx.get(f"{url}/v1/leaderboard").json()
        aborted = httpx.get(f"{url}/v1/tables/{long['table_id']}").json()
        partial = httpx.get(f"{url}/v1/matches/{long['match_id']}/log").json()
        listed = httpx.get(f"{url}/v1/tables").json()["tables"]
        again = httpx.post(f"{url}/v1/tables", json=_house_table(4, 1)).json()
    assert log_after == log_before and log_after["events"] == _reference(3, 2)
    assert board_after == board_before and board_after["entries"]
    assert aborted["status"] == "aborted"
    assert {t["table_id"] for t in listed} >= {done["table_id"], long["table_id"]}
    assert again["match_id"] not in (done["match_id"], long["match_id"])
    hands_kept = sum(e["type"] == "hand_end" for e in partial["events"])
    assert hands_kept >= 3
    assert partial["events"] == _reference(9, hands_kept)[:-1]  # all but match_end


def test_leaderboard_ranks_by_rating_with_intervals(tmp_path: Path) -> None:
    async def scenario() -> dict:
        from sdk.server.config import ServerConfig
        from sdk.server.runner import running_server

        config = ServerConfig(port=0, db_path=str(tmp_path / "b.db"), leaderboard_min_hands=4)
        async with running_server(config) as server, httpx.AsyncClient(base_url=server.url) as http:
            ids = []
            for seed in (1, 2):
                seats = [
                    {"seat": s, "bot_name": name, "transport": "builtin"}
                    for s, name in enumerate(["greedy", "random", "random", "random"])
                ]
                body = {"seed": seed, "hands": 2, "seats": seats}
                ids.append((await http.post("/v1/tables", json=body)).json()["table_id"])
            for table_id in ids:
                for _ in range(400):
                    if (await http.get(f"/v1/tables/{table_id}")).json()["status"] == "finished":
                        break
                    await asyncio.sleep(0.05)
            return (await http.get("/v1/leaderboard")).json()  # type: ignore[no-any-return]

    board = asyncio.run(scenario())
    entries = board["entries"]
    assert board["min_hands"] == 4 and len(entries) == 2  # one line per bot identity
    assert [e["rank"] for e in entries] == [1, 2]
    ratings = [e["rating"] for e in entries]
    assert ratings == sorted(ratings, reverse=True)
    greedy = next(e for e in entries if e["bot_name"] == "house:greedy")  # the server's own
    assert (greedy["matches"], greedy["seats"], greedy["hands"]) == (2, 2, 4)
    rnd = next(e for e in entries if e["bot_name"] == "house:random")
    assert (rnd["matches"], rnd["seats"], rnd["hands"]) == (2, 6, 4)  # three seats a match
    for e in entries:  # one seat's points per hand: every match had two hands
        assert abs(e["points_per_hand"] - e["total_score"] / (e["seats"] * 2)) < 0.001
        assert e["points_per_hand_low"] <= e["points_per_hand"] <= e["points_per_hand_high"]
        assert abs(e["rating"] - (e["rating_mu"] - 3 * e["rating_sigma"])) < 0.01
    assert sum(e["total_score"] for e in entries) == 0
