"""Benchmark: the simulation API's speed: sampling, forking, playouts.

The states are mid-hand: in each of ``--hands`` seeded hands (lite policy for all four
seats), the first decision once half the drawable wall is gone. For each it measures,
in CPU time of this process (``time.process_time``, so the machine's other load counts
less), the median over ``--repeats`` repeats of:

* ``sample_world`` (a uniform world for the deciding seat's view), in microseconds;
* ``state_from_world`` (the referee state continuing from that point), microseconds;
* ``fork`` of such a state, microseconds;
* playouts to the end of the hand per second, one core, fork included, with each ready
  policy for all four seats (random, lite, guard = the search bot's, efficiency) and
  with the defensive bot in every seat (:func:`~sdk.search.bot_policy`: what the judge
  plays, ``bench_search_judge.py --rollout defensive``);
* the search bot's own loop (sample with its opponent model, build, fork, play out with
  guard): playouts per second inside :func:`sdk.search.flat.search`, and the CPU
  milliseconds per decision at each sample count of ``--samples`` (the strength runs'
  budgets: 32, 96 and 320 samples took about 100, 300 and 1000 ms on a loaded 2-core
  machine, about 50, 150 and 500 ms with a core free).

Then the search's precision: on the same states, the median standard error of a
candidate's advantage over the bot's guess (points per hand, paired world by world) at
8 and 64 samples; it shrinks as 1/sqrt(samples), which says how many samples it takes to
tell two discards apart.

It also times, in the same run, the referee benchmark's loop (``bench_referee.py``: full
hands of four uniform-random bots), so that figures from a loaded machine can be set
against that benchmark's published figure.

Run: ``python benchmarks/bench_search.py [--hands 40] [--repeats 5] [--samples 8 32]``
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable

from bench_referee import play_hand

from bots.defensive import DefensiveBot
from bots.search import SearchBot
from protocol.hand_state import HandState
from protocol.tiles import TILE_COUNT
from protocol.wall import DEAL_SIZE, RESERVED
from sdk.bot import DecisionRequest
from sdk.search import (
    bot_policy,
    efficiency_policy,
    fork,
    guard_policy,
    lite_policy,
    playout,
    random_policy,
    sample_world,
    state_from_world,
)
from sdk.view import GameView

HALF = (TILE_COUNT - DEAL_SIZE - RESERVED) // 2
"""Drawable tiles left at mid-hand."""


def mid_hands(hands: int) -> list[tuple[HandState, int]]:
    """The first decision with at most half the drawable wall left, per seeded hand."""
    out = []
    for seed in range(hands):
        rng = random.Random(seed)
        hand = HandState.new(seed=seed, dealer=seed % 4)
        while not hand.is_over:
            pending = list(hand.pending().items())
            if hand.public.drawable <= HALF and len(pending) == 1:
                out.append((hand, pending[0][0]))
                break
            for seat, legal in pending:
                hand.apply(seat, lite_policy(hand, seat, legal, rng))
    return out


def per_call(fn: Callable[[], object], n: int) -> float:
    """CPU seconds per call of ``fn`` over ``n`` calls."""
    start = time.process_time()
    for _ in range(n):
        fn()
    return (time.process_time() - start) / n


def median_of(repeats: int, measure: Callable[[], float]) -> float:
    return statistics.median(measure() for _ in range(repeats))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=40)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument(
        "--samples", type=int, nargs="+", default=[8, 32], help="search bot sample counts"
    )
    args = parser.parse_args()
    if args.hands < 1 or args.repeats < 1 or min(args.samples) < 1:
        parser.error("--hands, --repeats and every --samples count must be at least 1")
    points = mid_hands(args.hands)
    views = [(h.view(s), h, s) for h, s in points]
    rng = random.Random(1)
    worlds = [(v, sample_world(v, rng)) for v, _, _ in views]
    states = [state_from_world(v, w) for v, w in worlds]
    print(f"{len(points)} mid-hand states (drawable <= {HALF}), medians of {args.repeats} repeats")

    def sampling() -> float:
        return statistics.mean(per_call(lambda v=v: sample_world(v, rng), 50) for v, _, _ in views)

    def building() -> float:
        return statistics.mean(
            per_call(lambda v=v, w=w: state_from_world(v, w), 50) for v, w in worlds
        )

    def forking() -> float:
        return statistics.mean(per_call(lambda s=s: fork(s), 200) for s in states)

    print(
        f"  sample_world      {median_of(args.repeats, sampling) * 1e6:8.1f} us   (target <= 100)"
    )
    print(f"  state_from_world  {median_of(args.repeats, building) * 1e6:8.1f} us")
    print(f"  fork              {median_of(args.repeats, forking) * 1e6:8.1f} us   (target <= 20)")
    for name, policies, calls in (
        ("random", [random_policy] * 4, 5),
        ("lite", [lite_policy] * 4, 5),
        ("guard", [guard_policy] * 4, 5),
        ("efficiency", [efficiency_policy] * 4, 5),
        ("defensive", [bot_policy(DefensiveBot()) for _ in range(4)], 1),
    ):

        def playing(policies=policies, calls=calls) -> float:
            return 1 / statistics.mean(
                per_call(lambda s=s: playout(fork(s), policies, rng), calls) for s in states
            )

        target = {
            "random": "   (target >= 3,000)",
            "guard": "   (the search bot's)",
            "defensive": "   (the sample bot, listening: bench_search_judge's players)",
        }.get(name, "")
        print(f"  playouts/s, {name:<10} {median_of(args.repeats, playing):8,.0f}{target}")
    search_speed(views, args.repeats, args.samples)
    precision(views)
    referee = median_of(args.repeats, lambda: referee_rate(200))
    print(f"  referee, full random hands/s (bench_referee's loop, same run) {referee:8,.0f}")


def precision(views: list) -> None:
    """Median standard error of the candidates' advantage, by sample count."""
    for samples in (8, 64):
        errors = []
        for view, hand, seat in views:
            bot = SearchBot(seed=0, samples=samples, calm=True)
            request = DecisionRequest(hand.legal_actions(seat), time.monotonic() + 60)
            bot.choose(GameView(view), request)
            if bot.last is not None:
                errors += [c.stderr for c in bot.last.candidates[1:] if c.stderr < float("inf")]
        print(
            f"  search precision, {samples:>2} samples: median standard error of an advantage"
            f" {statistics.median(errors):6.0f} points ({len(errors)} candidates)"
        )


def referee_rate(hands: int) -> float:
    """bench_referee's hands per CPU second, for scale."""
    rng = random.Random(0)
    start = time.process_time()
    for seed in range(hands):
        play_hand(seed, rng)
    return hands / (time.process_time() - start)


def search_speed(views: list, repeats: int, counts: list[int]) -> None:
    """The search bot's decisions: playouts per CPU second, CPU ms per decision (it
    searches every decision here, ``calm=True``: most of these states have no threat)."""
    for samples in counts:
        rates, times = [], []
        for _ in range(repeats):
            playouts, cpu, decisions = 0, 0.0, 0
            for view, hand, seat in views:
                bot = SearchBot(seed=0, samples=samples, calm=True)
                request = DecisionRequest(hand.legal_actions(seat), time.monotonic() + 60)
                start = time.process_time()
                bot.choose(GameView(view), request)
                cpu += time.process_time() - start
                if bot.last is not None:
                    playouts += bot.last.playouts
                    decisions += 1
            rates.append(playouts / cpu)
            times.append(cpu / max(decisions, 1))
        print(
            f"  search bot, {samples:>2} samples: {statistics.median(rates):8,.0f} playouts/s,"
            f" {statistics.median(times) * 1e3:6.1f} ms CPU per decision (guess included)"
        )


if __name__ == "__main__":
    main()
