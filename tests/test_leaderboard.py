"""Honest ratings (issue 18): the leaderboard groups by bot identity (name and version),
reports points per hand with a 95% interval and hands played, rates with OpenSkill, and
ranks only bots with enough hands."""

from __future__ import annotations

import asyncio
from pathlib import Path

import httpx

from bots.random import RandomBot
from sdk.server.config import ServerConfig
from sdk.server.core import LEADERBOARD_TTL
from sdk.server.ratings import MatchOutcome, leaderboard
from sdk.server.runner import running_server
from sdk.transports.ws import run_ws


def _match(names: tuple[str, ...], scores: tuple[int, ...], versions=("",) * 4, hands=16):
    return MatchOutcome(names, tuple(versions), scores, hands)


def test_identity_is_name_and_version() -> None:
    matches = [
        _match(("me", "x", "y", "z"), (800, -400, -200, -200), ("1", "", "", "")),
        _match(("me", "x", "y", "z"), (-600, 200, 200, 200), ("2", "", "", "")),
        _match(("x", "me", "y", "z"), (-100, 300, -100, -100), ("", "1", "", "")),
    ]
    board = leaderboard(matches)
    mine = {e.bot_version: e for e in board.entries if e.bot_name == "me"}
    assert set(mine) == {"1", "2"}
    assert (mine["1"].matches, mine["1"].hands, mine["1"].total_score) == (2, 32, 1100)
    assert mine["1"].points_per_hand == round(1100 / 32, 3)
    assert mine["1"].points_per_hand_low is not None  # two matches: an interval
    assert mine["2"].points_per_hand_low is None  # one match: no spread to estimate


def test_a_bot_seated_twice_counts_one_match_and_one_seats_points() -> None:
    """Three matches with ``twice`` in two seats: 3 matches (6 seats), 48 hands, and the
    points of one seat per hand; the means are rounded (no 30666.666666666668)."""
    scores = [(30000, 1000, -16000, -15000), (-2000, 5000, -1000, -2000), (100, 0, 0, -100)]
    matches = [_match(("twice", "twice", "b", "c"), s) for s in scores]
    entry = next(e for e in leaderboard(matches).entries if e.bot_name == "twice")
    assert (entry.matches, entry.seats, entry.hands, entry.total_score) == (3, 6, 48, 34100)
    assert entry.points_per_hand == round(34100 / (6 * 16), 3)
    assert entry.mean_score == round(34100 / 6, 3) == 5683.333
    per_match = [(a + b) / 2 / 16 for a, b, *_ in scores]  # one observation a match
    assert entry.points_per_hand_low is not None
    assert entry.points_per_hand_low < min(per_match) < max(per_match) < entry.points_per_hand_high
    lone = next(e for e in leaderboard(matches).entries if e.bot_name == "b")
    assert (lone.matches, lone.seats, lone.hands) == (3, 3, 48)


def test_winners_rate_higher_and_the_minimum_holds_ranks_back() -> None:
    strong = [_match(("a", "b", "c", "d"), (3000, -1000, -1000, -1000)) for _ in range(5)]
    board = leaderboard([*strong, _match(("a", "b", "c", "new"), (0, 0, 0, 0))], min_hands=32)
    ranked = [e for e in board.entries if e.rank is not None]
    assert [e.rank for e in ranked] == list(range(1, len(ranked) + 1))
    assert ranked[0].bot_name == "a" and ranked[0].rating > ranked[-1].rating
    assert board.entries[-1].bot_name == "new" and board.entries[-1].rank is None
    assert board.min_hands == 32 and sum(e.total_score for e in board.entries) == 0


class Versioned(RandomBot):
    name = "versioned"
    version = "2.1"


async def test_the_version_sent_in_hello_reaches_the_leaderboard(tmp_path: Path) -> None:
    config = ServerConfig(port=0, db_path=str(tmp_path / "l.db"), leaderboard_min_hands=1)
    async with running_server(config) as server, httpx.AsyncClient(base_url=server.url) as http:
        seats = [{"seat": 0, "bot_name": "versioned", "transport": "ws"}]
        created = (
            await http.post("/v1/tables", json={"seed": 3, "hands": 1, "seats": seats})
        ).json()
        result = await run_ws(Versioned(seed=1), server.ws_url, created["tokens"]["0"])
        assert result.completed
        for _ in range(100):
            board = (await http.get("/v1/leaderboard")).json()
            if board["entries"]:
                break
            await asyncio.sleep(0.05)
    entry = next(e for e in board["entries"] if e["bot_name"] == "versioned")
    assert entry["bot_version"] == "2.1" and entry["hands"] == 1 and entry["rank"] >= 1


class Impostor(RandomBot):
    name = "greedy"  # the house bot's name, said in hello


class Renamed(RandomBot):
    name = "bob"
    version = "3"


async def _finished(http: httpx.AsyncClient, table_id: str) -> None:
    for _ in range(400):
        if (await http.get(f"/v1/tables/{table_id}")).json()["status"] == "finished":
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"{table_id} did not finish")


async def test_results_go_to_who_played_and_no_remote_seat_takes_a_house_bots_line(
    tmp_path: Path,
) -> None:
    config = ServerConfig(
        port=0, db_path=str(tmp_path / "l.db"), leaderboard_min_hands=1, connect_wait=0.5
    )
    async with running_server(config) as server, httpx.AsyncClient(base_url=server.url) as http:
        house = [{"seat": s, "bot_name": "greedy", "transport": "builtin"} for s in (1, 2, 3)]
        posed = [{"seat": 0, "bot_name": "greedy"}, *house]  # a REST seat named greedy
        one = (await http.post("/v1/tables", json={"seed": 5, "hands": 1, "seats": posed})).json()
        await run_ws(Impostor(seed=1), server.ws_url, one["tokens"]["0"])
        seats = [{"seat": 0, "bot_name": "alice"}, {"seat": 1, "bot_name": "greedy"}]
        two = (await http.post("/v1/tables", json={"seed": 6, "hands": 1, "seats": seats})).json()
        await run_ws(Renamed(seed=2), server.ws_url, two["tokens"]["0"])  # seat 1: no one
        for created in (one, two):
            await _finished(http, created["table_id"])
        reserved = {"seat": 0, "bot_name": "house:greedy"}
        refused = await http.post("/v1/tables", json={"seed": 7, "hands": 1, "seats": [reserved]})
        await asyncio.sleep(LEADERBOARD_TTL)
        board = (await http.get("/v1/leaderboard")).json()
    assert refused.status_code == 422
    lines = {(e["bot_name"], e["bot_version"]): e for e in board["entries"]}
    greedy = lines[("house:greedy", "")]  # its own seats only, in two matches of one hand
    assert (greedy["matches"], greedy["seats"], greedy["hands"]) == (2, 3 + 2, 2)
    assert lines[("greedy", "")]["hands"] == 1  # the impostor has a line of its own
    assert lines[("bob", "3")]["hands"] == 1  # the hello name, not the REST seat's "alice"
    assert lines[("house:default", "")]["hands"] == 1  # nobody took seat 1 of table two
    assert not any(name == "alice" for name, _ in lines)
