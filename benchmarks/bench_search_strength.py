"""Benchmark: how strong the search bot is, by budget, in the arena (issue 14 item 3).

The search bot (``bots.search``) plays alone against three of a sample bot under
duplicate seating (every deal replayed under the four rotations), once per budget. The
budget is a sample count (worlds per decision), not a time: a sample count gives the
same games on a loaded or an idle machine, so runs are reproducible and comparable. The
arena's time limit per decision is raised to 30 s by default for the same reason: on a
busy machine a niced run can take longer than 3 s of wall clock for a decision that
needs a few milliseconds of CPU, and the arena would then cut the search short.
It prints, for each budget, the lone bot's points per hand minus the field's with a 95%
t interval over deals, both sides' win and deal-in rates, and the decision times
(arena wall clock, so they include the machine's load).

Ctrl-C (or SIGINT) stops a run early and still prints what was played (marked partial).

Run: ``python benchmarks/bench_search_strength.py [--samples 4 16 64] [--field defensive]
[--hands N] [--seed S] [--workers W] [--match-hands M]`` (a deal is ``4 * M`` hands, the
unit of the statistics and of an early stop: smaller deals stop sooner).
"""

from __future__ import annotations

import argparse

from bots.search import SearchConfig
from sdk.arena import run_arena
from sdk.budget import Budget
from sdk.search import guard_policy, lite_policy

ROLLOUTS = {"guard": guard_policy, "lite": lite_policy}


def config(args: argparse.Namespace, samples: int) -> SearchConfig:
    """The search bot's settings from the command line."""
    return SearchConfig(
        samples=samples, width=args.width, confidence=args.confidence,
        min_gain=args.min_gain, calm=args.calm, rollout=ROLLOUTS[args.rollout],
    )  # fmt: skip


def run(args: argparse.Namespace, samples: int) -> None:
    """One budget: search with ``samples`` worlds per decision vs three ``args.field``."""
    field, seed, workers = args.field, args.seed, args.workers
    backend = "local" if workers <= 1 else "process"
    result = run_arena(
        [config(args, samples)] + [f"bots.{field}"] * 3,
        hands=args.hands, seed=seed, duplicate=True, backend=backend, workers=workers,
        match_hands=args.match_hands, budget=Budget(decision=args.decision_seconds),
    )  # fmt: skip
    pair = result.pair("search", field).diff
    partial = " (partial: interrupted)" if result.partial else ""
    print(
        f"\nsearch ({samples} samples/decision) vs three {field}: {result.hands} hands,"
        f" {result.deals} deals, seed {seed}{partial}"
    )
    print(f"  search - {field}: {pair.mean:+.1f} ± {pair.half_width:.1f} points/hand")
    for label in ("search", field):
        b = result.bot(label)
        t = b.timing
        print(
            f"  {label:>9}: {b.points.mean:+8.1f} ± {b.points.half_width:6.1f} pts/hand"
            f"  win {b.win_rate:6.1%}  deal-in {b.deal_in_rate:6.1%}  tai/win {b.avg_tai:4.2f}"
            f"  | p50 {t.percentile(50) * 1e3:7.2f} ms  p99 {t.percentile(99) * 1e3:7.2f} ms"
            f"  fallbacks {b.fallbacks}",
            flush=True,
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, nargs="+", default=[4])
    parser.add_argument("--field", default="defensive", help="bots.<field> x3")
    parser.add_argument("--hands", type=int, default=64)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=1, help="arena processes")
    parser.add_argument(
        "--match-hands", type=int, default=16, help="hands per match (a deal is 4 matches)"
    )
    parser.add_argument(
        "--decision-seconds",
        type=float,
        default=30.0,
        help="the arena's time limit per decision (default %(default)s: generous, so that a"
        " loaded machine cannot cut a sample-count search short)",
    )
    parser.add_argument("--width", type=int, default=4, help="discards searched")
    parser.add_argument("--confidence", type=float, default=2.0, help="standard errors")
    parser.add_argument("--min-gain", type=float, default=100.0, help="points/hand")
    parser.add_argument("--calm", action="store_true", help="search with no threat too")
    parser.add_argument("--rollout", choices=sorted(ROLLOUTS), default="guard")
    args = parser.parse_args()
    for samples in args.samples:
        run(args, samples)


if __name__ == "__main__":
    main()
