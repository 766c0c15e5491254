"""Does a tile id tell a seat more than the rules do? A measurement over played matches.

Every line-protocol tile carries a copy digit (``101`` to ``103``: copies 1 to 3 of one
kind). If the digits followed the order in which copies appear, a seat that sees copy
``c`` of a kind would know that copies ``0 .. c-1`` are already out of the wall. With ids
from the seeded shuffle (:meth:`protocol.match.Match.physical_wall`) the digit says
nothing: an unseen copy with a *lower* digit than one just seen is out of the wall no
more often than an unseen copy with a *higher* digit.

:func:`copy_digit_samples` plays one match through a :class:`~protocol.line.adapter.LineTable`
and collects, for each id a seat sees for the first time, whether each unseen copy of
its kind is out of the wall, split by lower and higher digit. Equal rates of ``True`` in
the two lists mean the digit leaks nothing. The benchmark
``benchmarks/bench_line_protocol.py`` and the test ``tests/test_line_tile_ids_hidden.py``
both use it.

>>> import random
>>> from protocol.match import Match
>>> match = Match.new(1, 1)
>>> rng = random.Random(1)
>>> samples = copy_digit_samples(match, match.physical_wall, lambda legal: rng.choice(legal))
>>> samples.ids_seen > 50 and len(samples.lower) > 0 and len(samples.higher) > 0
True
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from protocol.actions import Action
from protocol.events import Event, HandStart
from protocol.line.adapter import LineTable
from protocol.line.tile_ids import ALL_TILE_IDS, kind_of, tile_id
from protocol.match import Match

__all__ = ["CopyDigitSamples", "copy_digit_samples", "ids_in_order_of_appearance"]

_ID = re.compile(r"\b[1-4][1-9][0-3]\b")
_HEADERS = ("/initGame", "/start")


@dataclass
class CopyDigitSamples:
    """For each unseen copy of a kind whose id a seat just saw: is it out of the wall?

    ``lower`` holds the answers for copies with a lower digit than the id seen,
    ``higher`` for those with a higher one; ``ids_seen`` counts the first sightings.
    """

    lower: list[bool] = field(default_factory=list)
    higher: list[bool] = field(default_factory=list)
    ids_seen: int = 0

    @staticmethod
    def rate(answers: Sequence[bool]) -> float:
        """The share of ``True`` in ``answers`` (0.0 when empty)."""
        return sum(answers) / len(answers) if answers else 0.0


def copy_digit_samples(
    match: Match,
    walls: Callable[[int], Sequence[int]],
    choose: Callable[[tuple[Action, ...]], Action],
) -> CopyDigitSamples:
    """Play ``match`` to its end (``choose`` picks each decision from the legal actions,
    one seat at a time) with the tile ids of ``walls``; return the samples."""
    table = LineTable(walls)
    for s in range(4):
        table.add_seat(s, f"p{s + 1}")
    samples = CopyDigitSamples()
    seen: list[set[int]] = [set() for _ in range(4)]

    def feed(events: Sequence[Event]) -> None:
        for ev in events:
            if isinstance(ev, HandStart):
                for ids in seen:
                    ids.clear()
            for s, lines in table.feed(ev).items():
                for line in lines:
                    if not line.startswith(_HEADERS):
                        _sample_line(line, seen[s], table, samples)

    feed(match.events)
    while not match.is_over:
        seat, legal = next(iter(match.pending().items()))
        feed(match.apply(seat, choose(legal)))
    return samples


def _sample_line(line: str, seen: set[int], table: LineTable, samples: CopyDigitSamples) -> None:
    for tid in map(int, _ID.findall(line)):
        if tid not in ALL_TILE_IDS or tid in seen:
            continue
        samples.ids_seen += 1
        seen.add(tid)
        kind, copy = kind_of(tid), tid % 10
        for j in range(4):
            other = tile_id(kind, j)
            if other not in seen:
                out = other in table.tracker.out
                (samples.lower if j < copy else samples.higher).append(out)


def ids_in_order_of_appearance(match: Match) -> Callable[[int], list[int]]:
    """The walls of ``match`` with copies numbered in the order they come out of the wall
    (the old scheme, which leaks): the comparison for :func:`copy_digit_samples`.

    >>> match = Match.new(1, 1)
    >>> ids = ids_in_order_of_appearance(match)(0)
    >>> [i // 4 for i in ids] == list(match.wall(0)) and ids.index(match.wall(0)[0] * 4) == 0
    True
    """

    def wall(hand_no: int) -> list[int]:
        copies = [0] * 34
        out = []
        for kind in match.wall(hand_no):
            out.append(kind * 4 + copies[kind])
            copies[kind] += 1
        return out

    return wall
