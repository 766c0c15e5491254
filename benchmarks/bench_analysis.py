"""Hand-analysis speed: win check, shanten, tile efficiency, and ours vs `mahjong`.

    python benchmarks/bench_analysis.py [--hands 2000] [--repeats 7]

Every contender runs over the same uniformly random hands drawn from the 136-tile wall
(fixed seed) in this one process; each figure is the median over the repeats of the mean
CPU time per call (``time.process_time``, so other load on the machine matters less).
Targets: win check (17 tiles) <= 1 us, shanten (17) <= 5 us, 14-tile shanten
>= 5x faster than `mahjong`; a full tile-efficiency table (17 tiles) <= 60 us
and waits of 16 tiles <= 5 us, from the necessary-tile tables (``protocol.necessary``);
the plain trial forms they replaced (``tests/reference_analysis.py``) run side by side.

The fast forms memoise per combination of group signatures, as any long-running bot
does; the memo is warmed on *other* hands, and the first pass over the timed hands is
printed too (the cost with those hands' misses included).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from protocol.analysis import (
    efficiency_counts,
    improvements_counts,
    is_winning_counts,
    shanten_counts,
    waits_counts,
)
from protocol.shapes import distance, encode, is_complete

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from reference_analysis import (  # the plain forms live with the tests
    plain_efficiency_counts,
    plain_improvements_counts,
    plain_waits_counts,
)

WALL = [k for k in range(34) for _ in range(4)]


def random_hands(rng: random.Random, n_hands: int, size: int) -> list[list[int]]:
    hands = []
    for _ in range(n_hands):
        counts = [0] * 34
        for t in rng.sample(WALL, size):
            counts[t] += 1
        hands.append(counts)
    return hands


def winning_hands(rng: random.Random, n_hands: int) -> list[list[int]]:
    hands: list[list[int]] = []
    while len(hands) < n_hands:
        counts = [0] * 34
        counts[rng.randrange(34)] += 2
        for _ in range(5):
            if rng.random() < 0.6:
                s, r = rng.randrange(3), rng.randrange(7)
                for k in range(3):
                    counts[s * 9 + r + k] += 1
            else:
                counts[rng.randrange(34)] += 3
        if max(counts) <= 4:
            hands.append(counts)
    return hands


def waiting_hands(rng: random.Random, n_hands: int) -> list[list[int]]:
    """16-tile waiting hands: complete hands less one random tile."""
    hands = winning_hands(rng, n_hands)
    for counts in hands:
        counts[rng.choice([k for k in range(34) if counts[k]])] -= 1
    return hands


def per_call(fn: Callable[[Sequence[int]], object], inputs: Sequence, repeats: int) -> float:
    """Median over repeats of the mean CPU seconds per call."""
    fn(inputs[0])
    times = []
    for _ in range(repeats):
        start = time.process_time()
        for x in inputs:
            fn(x)
        times.append((time.process_time() - start) / len(inputs))
    return statistics.median(times)


def first_pass(fn: Callable[[Sequence[int]], object], inputs: Sequence) -> float:
    """Mean CPU seconds per call of one pass over hands never seen before."""
    start = time.process_time()
    for x in inputs:
        fn(x)
    return (time.process_time() - start) / len(inputs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    rng = random.Random(20261129)
    h17 = random_hands(rng, args.hands, 17)
    h14 = random_hands(rng, args.hands, 14)
    wins = winning_hands(rng, args.hands)
    keys17 = [encode(c) for c in h17]
    for c in h17 + h14:  # warm the combination memo, as any long-running process would
        shanten_counts(c)

    rows = []

    def row(name: str, seconds: float, target: str = "") -> None:
        rows.append((name, seconds * 1e6, target))

    row(
        "win check, 17 random tiles (counts)",
        per_call(is_winning_counts, h17, args.repeats),
        "<= 1 us",
    )
    row(
        "win check, 17 winning tiles (counts)",
        per_call(is_winning_counts, wins, args.repeats),
        "<= 1 us",
    )
    row(
        "win check, 17 tiles (incremental keys)",
        per_call(is_complete, keys17, args.repeats),
        "<= 1 us",
    )
    row("shanten, 17 tiles (counts)", per_call(shanten_counts, h17, args.repeats), "<= 5 us")
    row(
        "shanten, 17 tiles (incremental keys)",
        per_call(lambda k: distance(k, 5), keys17, args.repeats),
        "<= 5 us",
    )
    few = max(50, args.hands // 10)
    fresh17 = random_hands(rng, few, 17)
    for c in random_hands(rng, args.hands, 17):  # warm the memos on other hands
        efficiency_counts(c)
    eff_first = first_pass(efficiency_counts, fresh17)
    eff = per_call(efficiency_counts, fresh17, args.repeats)
    eff_plain = per_call(plain_efficiency_counts, fresh17, args.repeats)
    row("tile efficiency table, 17 tiles (plain trial)", eff_plain)
    row("tile efficiency table, 17 tiles (tables)", eff, "<= 60 us")
    row("  same, first pass over these hands", eff_first)
    h16 = random_hands(rng, args.hands, 16)
    waiting = waiting_hands(rng, args.hands)
    for hands, name in ((h16, "random"), (waiting, "waiting")):
        for c in hands[:50]:
            waits_counts(c)
        row(f"waits, 16 {name} tiles (plain)", per_call(plain_waits_counts, hands, args.repeats))
        row(
            f"waits, 16 {name} tiles (tables)",
            per_call(waits_counts, hands, args.repeats),
            "<= 5 us",
        )
    imp_plain = per_call(plain_improvements_counts, h16[:few], args.repeats)
    row("improving kinds, 16 tiles (plain trial)", imp_plain)
    row("improving kinds, 16 tiles (tables)", per_call(improvements_counts, h16, args.repeats))
    ours14 = per_call(shanten_counts, h14, args.repeats)
    row("shanten, 14 tiles (ours)", ours14)
    try:
        from mahjong.shanten import Shanten
    except ImportError:
        theirs14 = None
    else:
        reference = Shanten()
        theirs14 = per_call(reference.calculate_shanten_for_regular_hand, h14, args.repeats)
        row("shanten, 14 tiles (mahjong package)", theirs14)

    print(
        f"hand analysis: {args.hands} random hands per contender ({few} for efficiency), "
        f"CPU time per call, median of {args.repeats} repeats"
    )
    for name, us, target in rows:
        print(f"  {name:<46} {us:10.2f} us  {('target ' + target) if target else ''}")
    print(f"  tile efficiency speed-up, tables over plain: {eff_plain / eff:.1f}x")
    if theirs14 is not None:
        print(f"  14-tile shanten speed-up over mahjong: {theirs14 / ours14:.1f}x (target >= 5x)")


if __name__ == "__main__":
    main()
