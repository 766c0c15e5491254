"""``bots.greedy`` and ``bots.defensive`` on their fast paths against the plain code.

The bots now rank discards from the necessary-tile tables without building efficiency
tables, and cache their analysis between decisions; ``tests/reference_bots.py`` keeps the
code they had before. On the same seeds, with the same seating, both must play the same
game: the events byte for byte, and the whole record (decisions included) apart from its
timing fields.
"""

from __future__ import annotations

import json

import pytest
from reference_bots import PlainDefensiveBot, PlainGreedyBot

from bots.defensive import DefensiveBot
from bots.greedy import GreedyBot
from sdk.bot import Bot
from sdk.local import play_match
from sdk.records.writer import comparable_lines

LINEUPS = {
    "greedy": ("g", "g", "g", "g"),
    "defensive": ("d", "d", "d", "d"),
    "mixed": ("d", "g", "d", "g"),
}


def _bots(letters: tuple[str, ...], plain: bool) -> list[Bot]:
    make = {
        ("g", False): GreedyBot,
        ("d", False): DefensiveBot,
        ("g", True): PlainGreedyBot,
        ("d", True): PlainDefensiveBot,
    }
    return [make[letter, plain]() for letter in letters]


def _play(letters: tuple[str, ...], seed: int, seats: tuple[int, ...], plain: bool) -> tuple:
    result = play_match(
        _bots(letters, plain), seed=seed, hands=6, seats=seats, record_events=True, record=True
    )
    assert result.record is not None
    events = json.dumps([e.to_json() for e in result.events], separators=(",", ":"))
    lines = json.dumps(comparable_lines(result.record), separators=(",", ":"))
    return events, lines, result.scores, [s.fallbacks for s in result.stats]


@pytest.mark.parametrize("lineup", sorted(LINEUPS))
def test_fast_bots_play_the_same_games_as_the_plain_ones(lineup: str) -> None:
    letters = LINEUPS[lineup]
    for seed, seats in ((11, (0, 1, 2, 3)), (12, (3, 2, 1, 0)), (13, (1, 3, 0, 2))):
        fast = _play(letters, seed, seats, plain=False)
        plain = _play(letters, seed, seats, plain=True)
        assert fast[0] == plain[0], f"events differ: {lineup}, seed {seed}"
        assert fast[1:] == plain[1:], f"records differ: {lineup}, seed {seed}"
        assert fast[3] == [0, 0, 0, 0]
