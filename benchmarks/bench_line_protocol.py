"""What the tournament-compatibility changes cost and hide, measured.

    python benchmarks/bench_line_protocol.py [--seeds 20] [--hands 4]

1. Claims in tiers: over seeded matches where every seat claims half the time it may
   (its highest claim; otherwise a random legal action), how many claim windows open, and how many
   rounds of asks each takes when every seat is asked tier by tier (as the server asks
   line-protocol seats) instead of one round when all are asked at once. Each extra
   round is one more reply to wait for (at most 3 s under R17).
2. Physical tile ids: over random play seen through the line protocol, how often an
   unseen copy of a kind with a *lower* digit than a copy just seen is already out of
   the wall, against an unseen *higher* copy: equal rates mean the digit tells nothing.
   The same with copies numbered by order of appearance (the old scheme) side by side.
"""

from __future__ import annotations

import argparse
import random
import statistics
from collections.abc import Sequence

from protocol.actions import Action
from protocol.claim_tiers import ClaimTiers, tier_of
from protocol.line.leakage import (
    CopyDigitSamples,
    copy_digit_samples,
    ids_in_order_of_appearance,
)
from protocol.match import Match
from protocol.view import CLAIMS


def _claimer(legal: Sequence[Action], rng: random.Random) -> Action:
    """Claims half the time it may (the highest claim), else a random legal action."""
    claims = [a for a in legal if tier_of(a) is not None]
    return claims[0] if claims and rng.random() < 0.5 else rng.choice(legal)


def tier_rounds(seeds: int, hands: int) -> list[int]:
    """Rounds of asks per claim window, every seat tiered."""
    rounds: list[int] = []
    for seed in range(seeds):
        match, rng = Match.new(seed, hands), random.Random(seed)
        while not match.is_over:
            pending = dict(match.pending())
            if match.current.public.phase != CLAIMS:
                for seat, legal in pending.items():
                    match.apply(seat, _claimer(legal, rng))
                continue
            tiers, n = ClaimTiers(pending, set(pending)), 0
            while not tiers.done:
                asks = tiers.asks()
                n += 1
                for seat, offered in asks.items():
                    full = _claimer(pending[seat], rng)
                    tiers.answer(seat, full if full in offered else offered[-1])
            rounds.append(n)
            for seat, action in tiers.decisions().items():
                match.apply(seat, action)
    return rounds


def inference_rates(seeds: int, hands: int, physical: bool) -> tuple[float, float, int]:
    """(rate lower copies out, rate higher copies out, samples) over random play."""
    low: list[bool] = []
    high: list[bool] = []
    for seed in range(seeds):
        match, rng = Match.new(seed, hands), random.Random(seed)
        walls = match.physical_wall if physical else ids_in_order_of_appearance(match)
        samples = copy_digit_samples(match, walls, lambda legal, rng=rng: _claimer(legal, rng))
        low += samples.lower
        high += samples.higher
    return CopyDigitSamples.rate(low), CopyDigitSamples.rate(high), len(low) + len(high)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--hands", type=int, default=4)
    args = parser.parse_args()
    rounds = tier_rounds(args.seeds, args.hands)
    shares = {n: sum(r == n for r in rounds) / len(rounds) for n in sorted(set(rounds))}
    print(f"claim windows: {len(rounds)} in {args.seeds * args.hands} hands")
    print(f"  rounds of asks, all seats in tiers: mean {statistics.mean(rounds):.2f} (at once: 1)")
    print("  share by rounds: " + ", ".join(f"{n}: {p:.1%}" for n, p in shares.items()))
    for physical in (True, False):
        lo, hi, n = inference_rates(args.seeds, args.hands, physical)
        name = "physical ids       " if physical else "order of appearance"
        print(f"{name}: unseen lower copy out {lo:.3f}, unseen higher copy out {hi:.3f} ({n})")


if __name__ == "__main__":
    main()
