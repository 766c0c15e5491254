"""Benchmark the arena: speed on one core, parallel speed-ups, and what duplicate buys.

Four measurements in one run (wall-clock medians over ``--repeats`` runs; the time is
the arena's own, from the first deal sent to the last received, bots included; runs
being compared alternate, so they share whatever else the machine is doing):

1. hands per CPU-second on one core (``--backend local``, everything in this process)
   with four ``bots.random`` and with four ``bots.greedy``, next to the bare referee
   (``bench_referee.py``'s loop: uniform picks straight from ``HandState.pending()``) and
   the plain in-process path (mirrors fed at every event: ``play_match(lazy_views=False)``),
   all alternating in one run, medians of the repeats. Targets: random >= 1,800
   hands per CPU-second and within 1.5x of the bare referee; greedy >= 300;
2. the process pool: the same random-bot work with 2 workers against 1 (pool start-up
   included), as a speed-up factor;
3. Ray: the same work on a local two-CPU cluster started once beforehand (its start-up is
   printed separately), against the 2-worker pool run alongside;
4. duplicate against independent walls for a pair of bots (``--pair``, two seats each):
   the variance of the per-deal points difference, scaled to one hand (variance of a
   deal's mean times the hands in a deal), and the ratio: how many times fewer hands
   duplicate seating needs for the same confidence interval.

Run: ``python benchmarks/bench_arena.py [--repeats 3] [--no-ray] [--one-core]``
"""

from __future__ import annotations

import argparse
import math
import os
import random
import statistics
import time
from collections.abc import Callable
from typing import Any

from bench_referee import play_hand

from sdk.arena import ArenaResult, run_arena
from sdk.arena.loader import load_bot
from sdk.arena.runner import local_runtime_env
from sdk.local import play_match


def rates(repeats: int, *runs: Callable[[], ArenaResult]) -> list[list[float]]:
    """Hands per second of each run, ``repeats`` times, the runs alternating so that
    they share whatever else the machine is doing."""
    out: list[list[float]] = [[] for _ in runs]
    for _ in range(repeats):
        for rate_list, run in zip(out, runs, strict=True):
            rate_list.append(run().hands_per_second)
    return out


def one_core(args: argparse.Namespace) -> None:
    """Hands per CPU-second of this process (less sensitive to other load on the
    machine), the contenders alternating; wall-clock hands/s of the arena runs too."""
    contenders: dict[str, Callable[[], int]] = {
        "bare referee, uniform picks": lambda: _referee(args.random_hands),
        "arena, 4 x bots.random": lambda: _arena("bots.random", args.random_hands),
        "plain path, 4 x bots.random": lambda: _plain("bots.random", args.random_hands),
        "arena, 4 x bots.greedy": lambda: _arena("bots.greedy", args.greedy_hands),
    }
    _arena("bots.greedy", 16)  # warm the analysis memos, as any long run would
    cpus: dict[str, list[float]] = {name: [] for name in contenders}
    for _ in range(args.repeats):
        for name, run in contenders.items():
            start = time.process_time()
            hands = run()
            cpus[name].append(hands / (time.process_time() - start))
    medians = {name: statistics.median(v) for name, v in cpus.items()}
    for name, rates_ in cpus.items():
        print(f"one core, {name:<28} {medians[name]:8.1f} hands per CPU-second  ({_fmt(rates_)})")
    bare = medians["bare referee, uniform picks"]
    for name in ("arena, 4 x bots.random", "plain path, 4 x bots.random"):
        print(
            f"  bare referee / {name}: {bare / medians[name]:.2f}x (target <= 1.5x for the arena)"
        )


def _referee(hands: int) -> int:
    rng = random.Random(1)
    for seed in range(1, hands + 1):
        play_hand(seed, rng)
    return hands


def _arena(spec: str, hands: int) -> int:
    return run_arena([spec] * 4, hands=hands, backend="local").hands


def _plain(spec: str, hands: int) -> int:
    """The arena's work (16-hand matches) through ``play_match`` with eager mirrors."""
    factory = load_bot(spec)
    played = 0
    for seed in range(-(-hands // 16)):
        bots = [factory.make(seed * 4 + p) for p in range(4)]
        played += len(play_match(bots, seed=seed, hands=16, lazy_views=False).hand_results)
    return played


def parallel(args: argparse.Namespace) -> None:
    work: dict[str, Any] = {"hands": args.pool_hands, "seed": 1}
    bots = ["bots.random"] * 4
    ones, twos = rates(
        args.repeats,
        lambda: run_arena(bots, workers=1, **work),
        lambda: run_arena(bots, workers=2, **work),
    )
    one, two = statistics.median(ones), statistics.median(twos)
    print(f"process pool, 1 worker   {one:8.1f} hands/s  ({_fmt(ones)})")
    print(f"process pool, 2 workers  {two:8.1f} hands/s  ({_fmt(twos)})")
    print(f"  speed-up 2 workers / 1 worker: {two / one:.2f}x (medians)")


def ray_run(args: argparse.Namespace) -> None:
    import ray

    start = time.perf_counter()
    ray.init(
        num_cpus=2, include_dashboard=False, log_to_driver=False, runtime_env=local_runtime_env()
    )
    print(f"ray local cluster start-up: {time.perf_counter() - start:.1f} s (not counted below)")
    work: dict[str, Any] = {"hands": args.pool_hands, "seed": 1, "workers": 2}
    bots = ["bots.random"] * 4
    try:
        rays, pools = rates(
            args.repeats,
            lambda: run_arena(bots, backend="ray", **work),
            lambda: run_arena(bots, backend="process", **work),
        )
    finally:
        ray.shutdown()
    ray_rate, pool_rate = statistics.median(rays), statistics.median(pools)
    print(f"ray, 2 CPUs              {ray_rate:8.1f} hands/s  ({_fmt(rays)})")
    print(f"process pool, 2 workers  {pool_rate:8.1f} hands/s  ({_fmt(pools)}, alongside)")
    print(f"  ray / process pool (2 workers): {ray_rate / pool_rate:.2f}x (medians)")


def variance(args: argparse.Namespace) -> None:
    a, b = args.pair
    bots = [a, a, b, b]
    common: dict[str, Any] = {"hands": args.variance_hands, "match_hands": 4, "seed": 7}
    per_hand: dict[str, float] = {}
    deals: dict[str, int] = {}
    for name, duplicate in (("independent", False), ("duplicate", True)):
        result = run_arena(bots, duplicate=duplicate, **common)
        pair = result.pairs[0]
        diffs = [
            x - y
            for x, y in zip(result.deal_points[pair.a], result.deal_points[pair.b], strict=True)
        ]
        hands_per_deal = result.hands // result.deals
        per_hand[name] = statistics.variance(diffs) * hands_per_deal
        deals[name] = result.deals
        needed = (1.96**2) * per_hand[name] / 100**2
        print(
            f"{name:<12} {result.deals:4d} deals of {hands_per_deal:2d} hands: "
            f"{pair.a} - {pair.b} = {pair.diff.mean:+8.1f} ± {pair.diff.half_width:6.1f} "
            f"pts/hand; per-hand variance {per_hand[name]:12,.0f}; "
            f"~{needed:,.0f} hands for ± 100"
        )
    factor = per_hand["independent"] / per_hand["duplicate"]
    error = math.sqrt(2 / (deals["independent"] - 1) + 2 / (deals["duplicate"] - 1))
    print(
        f"  duplicate needs {factor:.2f}x fewer hands than independent walls "
        f"(about ±{100 * error:.0f}% sampling error on that ratio, normal theory)"
    )


def _fmt(rates: list[float]) -> str:
    return ", ".join(f"{r:.1f}" for r in rates)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--random-hands", type=int, default=1024)
    parser.add_argument("--greedy-hands", type=int, default=128)
    parser.add_argument("--pool-hands", type=int, default=2048)
    parser.add_argument("--variance-hands", type=int, default=1024)
    parser.add_argument("--pair", nargs=2, default=["bots.greedy", "bots.defensive"])
    parser.add_argument("--no-ray", action="store_true", help="skip the Ray measurement")
    parser.add_argument("--one-core", action="store_true", help="only the one-core figures")
    args = parser.parse_args()
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"{os.cpu_count()} cores, load average {load} (other load slows the parallel runs)")
    one_core(args)
    if args.one_core:
        return
    parallel(args)
    if not args.no_ray:
        ray_run(args)
    variance(args)


if __name__ == "__main__":
    main()
