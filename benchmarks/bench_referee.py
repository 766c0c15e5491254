"""Benchmark: hands per second of the referee with four uniform-random bots, one core.

Each hand is dealt from a fixed seed; at every step the bot loop takes the seats that
must decide (``HandState.pending()``), and each picks uniformly among its legal actions
(claims are all collected before they are resolved, R5). Everything the referee does is
included: legal-action lists, validation in ``apply``, events, win checks and scoring.
It prints the median hands per CPU-second of this process (process_time, so other
load on the machine matters less) over several repeats, plus how the hands ended.

Run: ``python benchmarks/bench_referee.py [--hands N] [--repeats R]``
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections import Counter

from protocol.hand_state import HandState


def play_hand(seed: int, rng: random.Random) -> HandState:
    """One hand of four uniform-random bots from the wall of ``seed``."""
    hand = HandState.new(seed=seed, dealer=seed % 4)
    rand = rng.random  # a uniform pick as cheap as it gets, so the figure is the referee's
    while not hand.is_over:
        for seat, legal in list(hand.pending().items()):
            hand.apply(seat, legal[int(rand() * len(legal))])
    return hand


def run(hands: int, first_seed: int) -> tuple[float, Counter[str]]:
    """Play ``hands`` hands; return hands/second and the outcomes."""
    rng = random.Random(first_seed)
    outcomes: Counter[str] = Counter()
    start = time.process_time()
    for seed in range(first_seed, first_seed + hands):
        result = play_hand(seed, rng).result
        assert result is not None
        outcomes[result.outcome] += 1
    return hands / (time.process_time() - start), outcomes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    rates = []
    outcomes: Counter[str] = Counter()
    for _ in range(args.repeats):
        rate, outcomes = run(args.hands, first_seed=1)
        rates.append(rate)
    print(f"outcomes per repeat: {dict(outcomes)}")
    print(
        f"referee, 4 uniform-random bots: median {statistics.median(rates):,.0f} hands/s"
        f" over {args.repeats} repeats of {args.hands} hands (min {min(rates):,.0f},"
        f" max {max(rates):,.0f})"
    )


if __name__ == "__main__":
    main()
