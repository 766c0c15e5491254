"""Benchmark: microseconds to score one winning hand with ``protocol.scoring.score_win``.

Builds random legal wins from random sets (some declared as melds, kongs included) with
a fixed seed, then times ``score_win`` over all of them several times and prints the
median microseconds per hand. It also times the 獨聽 wait computation alone
(``protocol.analysis.waits_counts`` on the same hands), because that part belongs to the
hand-analysis module and its cost is included in the scoring figure.

Run: ``python benchmarks/bench_scoring.py [--hands N] [--repeats R]``
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from protocol.analysis import waits_counts
from protocol.melds import Meld, MeldKind
from protocol.scoring import WinSituation, score_win
from protocol.tiles import KIND_COUNT, Tile

_DECLARED = (
    MeldKind.CHOW,
    MeldKind.PUNG,
    MeldKind.EXPOSED_KONG,
    MeldKind.ADDED_KONG,
    MeldKind.CONCEALED_KONG,
)


def random_win(rng: random.Random) -> WinSituation:
    """A random legal win: five random sets and a pair, at most four copies of a kind."""
    while True:
        held = [0] * KIND_COUNT
        concealed: list[Tile] = []
        melds: list[Meld] = []
        ok = True
        for _ in range(5):
            chow = rng.random() < 0.6
            if chow:
                suit, r = rng.randrange(3), rng.randrange(7)
                start = suit * 9 + r
                tiles = [start, start + 1, start + 2]
            else:
                start = rng.randrange(KIND_COUNT)
                tiles = [start] * 3
            declare = rng.random() < 0.3
            kind = MeldKind.CHOW if chow else MeldKind.PUNG
            if declare and not chow:
                kind = rng.choice(_DECLARED[1:])
                if kind.is_kong:
                    tiles = [start] * 4
            for t in tiles:
                held[t] += 1
            if declare:
                melds.append(Meld(kind, Tile(start)))
            else:
                concealed.extend(Tile(t) for t in tiles)
        pair = rng.randrange(KIND_COUNT)
        held[pair] += 2
        concealed += [Tile(pair), Tile(pair)]
        ok = max(held) <= 4
        if ok:
            break
    win = rng.choice(concealed)
    winner, dealer = rng.randrange(4), rng.randrange(4)
    discarder = None if rng.random() < 0.4 else (winner + rng.randrange(1, 4)) % 4
    return WinSituation(
        tuple(concealed),
        tuple(melds),
        win,
        winner=winner,
        discarder=discarder,
        dealer=dealer,
        round_wind=Tile(27 + rng.randrange(4)),
    )


def _time_per_item(fn, items: list, repeats: int) -> float:  # type: ignore[type-arg]
    runs = []
    for _ in range(repeats):
        start = time.perf_counter()
        for item in items:
            fn(item)
        runs.append((time.perf_counter() - start) / len(items) * 1e6)
    return statistics.median(runs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=5000)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--seed", type=int, default=20261129)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    hands = [random_win(rng) for _ in range(args.hands)]
    for hand in hands[:200]:  # warm the split caches like a long arena run would
        score_win(hand)
    before = []
    for h in hands:
        c = [0] * KIND_COUNT
        for t in h.concealed:
            c[t] += 1
        c[h.win_tile] -= 1
        before.append((c, [t for m in h.melds for t in m.tiles]))
    total = _time_per_item(score_win, hands, args.repeats)
    waits = _time_per_item(lambda cm: waits_counts(*cm), before, args.repeats)
    print(
        f"score_win: median {total:.1f} µs per hand ({args.hands} random wins, {args.repeats} repeats)"
    )
    print(f"  of which waits_counts (獨聽, protocol.analysis): {waits:.1f} µs")
    print(f"  scoring without the wait computation: {total - waits:.1f} µs")


if __name__ == "__main__":
    main()
