"""Duplicate seating replays identical walls with the players moved through the seats."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

from arena_bots import GlobalRandom, RngAttribute, SeededRandom

from protocol.match import rotations
from sdk.arena import run_arena

BOTS = [SeededRandom, RngAttribute, GlobalRandom, SeededRandom]


def _matches(records: Path) -> list[dict[str, Any]]:
    """Each game record (``--save-logs``) as its deal, match seed, seating
    (``seats[player] = seat``) and events, in deal order."""
    out = []
    for path in sorted(records.glob("*.jsonl")):  # named by seed, deal and seating
        lines = [json.loads(line) for line in path.read_text().splitlines()]
        header = lines[0]
        seats = [0] * 4
        for seat in header["seats"]:
            seats[seat["player"]] = seat["seat"]
        events = [line["event"] for line in lines if line["type"] == "event"]
        out.append(
            {
                "deal": header["origin"]["deal"],
                "seed": header["seed"],
                "seats": seats,
                "events": events,
            }
        )
    return out


def _dealt_by_seat(match: dict[str, Any]) -> dict[int, list[str]]:
    return {e["seat"]: e["tiles"] for e in match["events"] if e["type"] == "deal"}


def _by_deal(matches: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    return [list(g) for _, g in itertools.groupby(matches, key=lambda m: m["deal"])]


def test_duplicate_rotates_every_player_through_every_seat_on_identical_walls(
    tmp_path: Path,
) -> None:
    log = tmp_path / "records"
    result = run_arena(
        BOTS, hands=24, match_hands=2, duplicate=True, backend="local", save_logs=log
    )
    deals = _by_deal(_matches(log))
    assert [len(d) for d in deals] == [4, 4, 4] and result.deals == 3
    for deal in deals:
        assert sorted(tuple(m["seats"]) for m in deal) == sorted(rotations())
        assert len({m["seed"] for m in deal}) == 1  # one match seed, so the same walls
        first = _dealt_by_seat(deal[0])
        assert all(_dealt_by_seat(m) == first for m in deal)  # same tiles at each seat
        for player in range(4):  # ... so each player gets each seat's tiles once
            hands = [_dealt_by_seat(m)[m["seats"][player]] for m in deal]
            assert sorted(map(tuple, hands)) == sorted(map(tuple, first.values()))
    assert len({d[0]["seed"] for d in deals}) == 3  # and every deal has new walls


def test_all_seatings_plays_the_24_permutations(tmp_path: Path) -> None:
    log = tmp_path / "records"
    run_arena(BOTS, hands=1, match_hands=1, all_seatings=True, backend="local", save_logs=log)
    matches = _matches(log)
    assert sorted(tuple(m["seats"]) for m in matches) == list(itertools.permutations(range(4)))
    assert len({json.dumps(_dealt_by_seat(m)) for m in matches}) == 1


def test_independent_walls_play_each_deal_once_in_order(tmp_path: Path) -> None:
    log = tmp_path / "records"
    result = run_arena(BOTS, hands=6, match_hands=2, backend="local", save_logs=log)
    matches = _matches(log)
    assert [(m["deal"], tuple(m["seats"])) for m in matches] == [
        (d, (0, 1, 2, 3)) for d in range(3)
    ]
    assert len({m["seed"] for m in matches}) == 3
    assert result.bot("seeded").points.n == 3 and result.hands == 6
