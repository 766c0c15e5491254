"""The hand-made estimates the reference bots play by, as pure functions of counts.

``bots.defensive`` prices each discard with these (how likely an opponent is waiting,
how likely it waits on a tile, how likely one's own hand still wins, what a wait is
worth); :mod:`sdk.learn.features` computes the same numbers from an observation vector,
so that a network cloned from the bot sees what the bot saw. They live here, under the
bots and the learning tools both, so that the two read one model. The tables were
measured from greedy self-play (``python benchmarks/bench_bots.py --calibrate``); what
each means is told in ``bots/defensive.py``.

Everything takes plain ints: ``seen`` is the 34 visible counts of a kind (own hand,
rivers, shown melds), ``counts`` the own concealed tiles.

>>> waiting_chance(melds=4, discards=12)
0.93
>>> tile_danger(Tile.E, [4] * 34)  # every copy visible: an honor is safe
0.0
>>> tile_classes(Tile.E, Tile.E)[Tile.S], tile_classes(Tile.E, Tile.E)[Tile.M5]
(0, 4)
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

from protocol.analysis import efficiency_counts, improvements_counts
from protocol.tiles import KIND_COUNT, Tile

__all__ = [
    "DEAL_IN_LOSS",
    "HONOR_DANGER",
    "MAX_DANGER",
    "MELD_RANK_FACTOR",
    "OWN_DISCARD_FACTOR",
    "PAIR_DANGER",
    "RUN_DANGER",
    "TENPAI",
    "THREAT_FLOOR",
    "WAIT_WEIGHT",
    "WIN_CHANCE",
    "WIN_GAIN",
    "discard_value",
    "next_wait",
    "open_runs",
    "outside",
    "tile_classes",
    "tile_danger",
    "wait_value",
    "waiting_chance",
    "win_chance",
]

TENPAI: tuple[tuple[float, ...], ...] = (
    (0.00, 0.02, 0.12, 0.37, 0.46, 0.50),
    (0.01, 0.06, 0.22, 0.46, 0.68, 0.70),
    (0.03, 0.12, 0.30, 0.50, 0.65, 0.70),
    (0.10, 0.23, 0.42, 0.63, 0.76, 0.90),
    (0.30, 0.40, 0.75, 0.84, 0.93, 1.00),
    (1.00, 1.00, 1.00, 1.00, 1.00, 1.00),
)
"""P(waiting), by melds shown (row, 0 to 5) and discards made // 3 (column, capped)."""

WIN_CHANCE: tuple[tuple[float, ...], ...] = (
    (0.20, 0.33, 0.44, 0.57, 0.70),
    (0.03, 0.10, 0.19, 0.33, 0.50),
    (0.00, 0.02, 0.12, 0.23, 0.37),
    (0.00, 0.00, 0.04, 0.15, 0.26),
    (0.00, 0.00, 0.03, 0.10, 0.16),
)
"""P(win this hand), by shanten after the discard (row, capped at 4) and drawable // 12
(column, capped)."""

PAIR_DANGER = (0.0, 0.005, 0.02, 0.035, 0.04)
"""Suited kind: danger from pair and pung waits, by unseen copies (0 to 4)."""
HONOR_DANGER = (0.0, 0.0, 0.002, 0.003, 0.025)
"""Honor kind (pair and pung waits only), by unseen copies."""
RUN_DANGER = 0.009
"""Suited kind: danger per open run shape, weighted by its unseen neighbour copies."""
MAX_DANGER = 0.13
OWN_DISCARD_FACTOR = 0.1
"""Measured: 0.4% of a waiting player's own discarded kinds are waits, against 7.4%."""
MELD_RANK_FACTOR = 0.6
"""Measured: ranks in an opponent's exposed sets are waits about half as often."""
WIN_GAIN = 3400
"""What a win is worth: the average win brings 2900 (self-draws pay three times), and
winning also spares one's share of the others' self-draws. Tuned in the arena."""
DEAL_IN_LOSS = 1750
"""What dealing in costs: the average deal-in pays 1900, but had it not, the winner
would sometimes have self-drawn instead. Tuned in the arena."""
THREAT_FLOOR = 0.2
"""Opponents less likely to be waiting are ignored: the model's small risks run high
(predicted 2.9%, observed 1.7%), and chasing them costs acceptance for nothing."""
WAIT_WEIGHT = (1.5, 1.5, 1.25, 1.1, 1.0)
"""A wait's copies, weighted by the tile class of the kind (:func:`tile_classes`, 0
useless wind ... 4 middle tile): greedy-like opponents let go of honors and terminals
first, so a wait on those is thrown to us sooner."""


def waiting_chance(melds: int, discards: int) -> float:
    """The chance that a seat showing ``melds`` sets (concealed kongs included) after
    ``discards`` discards is waiting."""
    return TENPAI[min(melds, 5)][min(discards // 3, 5)]


def tile_danger(
    tile: int,
    seen: Sequence[int],
    *,
    own_discard: bool = False,
    in_melds: bool = False,
    passed: bool = False,
) -> float:
    """The chance a waiting seat wins on ``tile``: ``own_discard`` if the kind is in its
    river, ``in_melds`` if its shown sets use the kind, ``passed`` if it let the kind go
    since its last discard (then 0: players take every win they can)."""
    if passed:
        return 0.0
    unseen = 4 - seen[tile]
    if tile >= Tile.E:
        return HONOR_DANGER[unseen]
    value = PAIR_DANGER[unseen] + RUN_DANGER * open_runs(tile, seen)
    if own_discard:
        value *= OWN_DISCARD_FACTOR
    if in_melds:
        value *= MELD_RANK_FACTOR
    return min(value, MAX_DANGER)


def open_runs(tile: int, seen: Sequence[int]) -> int:
    """Run shapes that could wait on suited ``tile`` (``34``, ``46``, ``67`` for a 5),
    each counted by the unseen copies of its scarcer tile."""
    rank, total = tile % 9, 0
    for a, b in ((-2, -1), (-1, 1), (1, 2)):
        if rank + a >= 0 and rank + b <= 8:
            total += min(4 - seen[tile + a], 4 - seen[tile + b])
    return total


def win_chance(shanten: int, accept: int, drawable: int, best_accept: int) -> float:
    """How often a hand at ``shanten`` with ``accept`` improving tiles wins, by tiles left
    to draw, scaled against the best acceptance at that shanten (``best_accept``): half
    the tiles that help, about twice as long to get there. 0 when nobody draws again."""
    if drawable <= 0:
        return 0.0
    base = WIN_CHANCE[min(shanten, 4)][min(drawable // 12, 4)]
    return base * accept / best_accept if best_accept else base


def discard_value(win: float, risk: float) -> float:
    """Defensive's price of a discard, in points: the ``win`` chance of the hand it leaves
    times :data:`WIN_GAIN`, less the summed deal-in ``risk`` (over the opponents, their
    waiting chance x the tile's danger) times :data:`DEAL_IN_LOSS`."""
    return win * WIN_GAIN - risk * DEAL_IN_LOSS


def outside(counts: Sequence[int], seen: Sequence[int]) -> list[int]:
    """Tiles seen outside the concealed ``counts``: what ``efficiency_counts`` wants."""
    return [s - c for s, c in zip(seen, counts, strict=True)]


def wait_value(counts: Sequence[int], seen: Sequence[int], classes: Sequence[int]) -> float:
    """A waiting 3n+1 hand: the unseen copies of its winning kinds, each weighted by how
    readily opponents throw that kind (:data:`WAIT_WEIGHT` of its class in ``classes``)."""
    lowering = improvements_counts(counts, outside(counts, seen))
    return sum(n * WAIT_WEIGHT[classes[kind]] for kind, n in lowering)


def next_wait(counts: Sequence[int], seen: Sequence[int]) -> int:
    """A 3n+1 hand one tile from waiting, looked at one draw ahead: over every draw
    that makes it wait, the unseen copies of that draw times the widest wait it then
    reaches (the best discard's unseen winning tiles)."""
    c, out, total = list(counts), outside(counts, seen), 0
    for kind, n in improvements_counts(c, out):
        c[kind] += 1
        best = efficiency_counts(c, out)[0]
        c[kind] -= 1
        if best.shanten == 0:
            total += n * best.total_unseen
    return total


@cache
def tile_classes(seat_wind: int, round_wind: int) -> tuple[int, ...]:
    """How useful each kind is in general, lower = let go first: 0 a wind that can never
    score, 1 a scoring honor (dragon, own or round wind), 2 a terminal, 3 a 2 or 8, 4 a
    middle tile (3 to 7). Greedy's last tie-break, and the classes rates are fitted by."""
    out = []
    for t in range(KIND_COUNT):
        if t >= Tile.E:
            out.append(1 if t >= Tile.C or t in (seat_wind, round_wind) else 0)
        else:
            rank = t % 9 + 1
            out.append(2 if rank in (1, 9) else 3 if rank in (2, 8) else 4)
    return tuple(out)
