"""Benchmark: how strong the search bot is, by budget, in the arena.

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

Run: ``python benchmarks/bench_search_strength.py [--samples 32 96 320] [--field defensive]
[--hands N] [--seed S] [--workers W] [--match-hands M] [--report-every D]`` (a deal is
``4 * M`` hands, the unit of the statistics and of an early stop: smaller deals stop
sooner; ``--report-every`` prints the figures so far every D deals). The search bot's
settings: ``--width``, ``--confidence``, ``--min-gain``, ``--calm``, ``--rollout``,
``--model``, ``--no-claims`` (see ``bots/search.py``). 32, 96 and 320 samples took about
100, 300 and 1000 ms of CPU per searched decision on a loaded 2-core machine, about 50, 150
and 500 ms with a core free (``bench_search.py`` prints it on yours).
"""

from __future__ import annotations

import argparse
import time

from bots.search import SearchConfig
from sdk.arena.api import labels_for
from sdk.arena.deal import ArenaPlan, DealRecord, deals_for, seatings
from sdk.arena.loader import load_bot
from sdk.arena.result import Aggregator
from sdk.arena.runner import run_deals
from sdk.budget import Budget
from sdk.search import guard_policy, lite_policy

ROLLOUTS = {"guard": guard_policy, "lite": lite_policy}


def config(args: argparse.Namespace, samples: int) -> SearchConfig:
    """The search bot's settings from the command line."""
    return SearchConfig(
        samples=samples, width=args.width, confidence=args.confidence,
        min_gain=args.min_gain, calm=args.calm, rollout=ROLLOUTS[args.rollout],
        model=args.model, claims=not args.no_claims,
    )  # fmt: skip


def run(args: argparse.Namespace, samples: int) -> None:
    """One budget: search with ``samples`` worlds per decision vs three ``args.field``
    (the arena's own pieces, so that a report can be printed every few deals)."""
    field, workers = args.field, args.workers
    backend = "local" if workers <= 1 else "process"
    factories = [load_bot(b) for b in [config(args, samples)] + [f"bots.{field}"] * 3]
    plan = ArenaPlan(
        bots=tuple(factories), seed=args.seed, match_hands=args.match_hands,
        seatings=tuple(seatings(True)), budget=Budget(decision=args.decision_seconds),
    )  # fmt: skip
    labels = labels_for(factories)
    totals = Aggregator(labels, [f.spec for f in factories])
    n_deals, start = deals_for(args.hands, plan), time.monotonic()
    title = f"search ({samples} samples/decision) vs three {field}, seed {args.seed}"

    def on_deal(record: DealRecord) -> None:
        totals.add(record)
        if args.report_every and totals.deals % args.report_every == 0 < n_deals - totals.deals:
            report(title + " (so far)", totals, time.monotonic() - start, partial=True)

    complete = run_deals(plan, range(n_deals), backend=backend, workers=workers, on_deal=on_deal)
    report(title, totals, time.monotonic() - start, partial=not complete)


def report(title: str, totals: Aggregator, elapsed: float, *, partial: bool) -> None:
    """The lone bot against the field: points/hand with a 95% interval over deals, win
    and deal-in rates, decision times."""
    result = totals.result({}, partial=partial, elapsed=elapsed)
    field = next(label for label in totals.labels if label != "search")
    pair = result.pair("search", field).diff
    mark = " (partial: interrupted)" if partial and "so far" not in title else ""
    print(f"\n{title}: {result.hands} hands, {result.deals} deals, {elapsed:.0f} s{mark}")
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
    parser.add_argument("--samples", type=int, nargs="+", default=[8])
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
    parser.add_argument("--model", action="store_true", help="opponent model (ready)")
    parser.add_argument("--no-claims", action="store_true", help="claims left to defensive")
    parser.add_argument(
        "--report-every", type=int, default=0, help="print the figures so far every N deals"
    )
    args = parser.parse_args()
    for samples in args.samples:
        run(args, samples)


if __name__ == "__main__":
    main()
