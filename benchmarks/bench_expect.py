"""The expect bot measured: strength against a field, and the evaluator's cost.

Strength (lone expect against three copies of a field bot, duplicate seating)::

    python benchmarks/bench_expect.py strength --field defensive --hands 2048 --seed 11 \\
        --out /tmp/expect_def.jsonl

plays blocks of 128 hands (2 deals of 16 hands under the 4 rotations; block ``b`` uses
arena seed ``seed * 10007 + b``), appends each deal's lone − field difference to
``--out`` as it goes (a long run can be stopped and still counted) and prints, after
each block, the running mean with its 95% t interval over deals, and the win, deal-in
and tai-per-win rates of both sides. ``--variant`` picks an ablation (``offence``: no
hazards or ron, deal-in unpriced; ``notai``: every win at 0 tai; ``claims``: chows and
pungs by value (default: defensive's); ``depth2``: the deep pass to shanten 2; ``swaps``: wait/shape widening followed).

Cost (CPU time per decision, by shanten before the decision, against defensive's)::

    python benchmarks/bench_expect.py cost --hands 64

times every decision of a lone expect and of a lone defensive on the same deals (thread
CPU time, so a loaded machine inflates it little) and prints median, p99 and max by
shanten, with the ratio of the medians.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bots.defensive import DefensiveBot
from bots.expect import ExpectBot, ExpectConfig
from protocol.actions import Action
from sdk.arena import load_bot, run_arena
from sdk.arena.stats import mean_interval
from sdk.bot import DecisionRequest
from sdk.local import play_match
from sdk.view import GameView

BLOCK = 128
VARIANTS: dict[str, ExpectConfig] = {
    "default": ExpectConfig(),
    "offence": ExpectConfig(hazards=False),
    "notai": ExpectConfig(tai=False),
    "claims": ExpectConfig(claims=True),
    "depth2": ExpectConfig(depth=2),
    "swaps": ExpectConfig(swaps=1),
}


def t_interval(xs: Sequence[float]) -> tuple[float, float]:
    """Mean and 95% t half-width over deals (the arena's :func:`mean_interval`).

    >>> t_interval([1.0, 3.0])[0]
    2.0
    """
    interval = mean_interval(xs)
    return interval.mean, interval.half_width


def strength(field: str, hands: int, seed: int, variant: str, out: Path | None) -> None:
    """Lone expect (``variant``) against three ``field`` bots, block by block."""
    diffs: list[float] = []
    rates: dict[str, list[float]] = defaultdict(list)
    field_bot = load_bot(field if "." in field else f"bots.{field}")
    start = time.perf_counter()
    for block in range((hands + BLOCK - 1) // BLOCK):
        result = run_arena(
            [VARIANTS[variant], field_bot, field_bot, field_bot], hands=BLOCK,
            seed=seed * 10007 + block, duplicate=True, backend="local",
        )  # fmt: skip
        labels = [b.label for b in result.bots]
        hero = next(lb for lb in labels if lb.startswith("expect"))
        other = next(lb for lb in labels if lb != hero)
        lone, rest = result.deal_points[hero], result.deal_points[other]
        new = [a - b for a, b in zip(lone, rest, strict=True)]
        diffs.extend(new)
        for label, key in ((hero, "expect"), (other, field)):
            b = result.bot(label)
            rates[key + " win"].append(b.win_rate)
            rates[key + " deal-in"].append(b.deal_in_rate)
            rates[key + " tai/win"].append(b.avg_tai)
        if out is not None:
            with out.open("a") as f:
                for d in new:
                    f.write(json.dumps({"seed": seed, "block": block, "variant": variant,
                                        "field": field, "diff": d}) + "\n")  # fmt: skip
        mean, half = t_interval(diffs)
        summary = "  ".join(f"{k} {statistics.fmean(v):.3f}" for k, v in sorted(rates.items()))
        print(
            f"{variant} vs three {field}, seed {seed}: {len(diffs) * 64} hands, "
            f"{len(diffs)} deals: lone - field {mean:+.1f} ± {half:.1f} pts/hand | {summary}"
            f" | {time.perf_counter() - start:.0f} s",
            flush=True,
        )


def _timed(bot, log: dict[int, list[float]]) -> None:  # type: ignore[no-untyped-def]
    choose = bot.choose

    def timed(view: GameView, request: DecisionRequest) -> Action:
        shanten = view.shanten()
        t = time.thread_time()
        action = choose(view, request)
        log[min(max(shanten, 0), 4)].append(time.thread_time() - t)
        return action

    bot.choose = timed


def _pct(xs: Sequence[float], q: float) -> float:
    """The ``q`` quantile of sorted seconds ``xs``, in milliseconds."""
    return xs[min(len(xs) - 1, int(q * len(xs)))] * 1e3


def cost(hands: int, seed: int) -> None:
    """CPU time per decision of lone expect and lone defensive, by shanten."""
    logs: dict[str, dict[int, list[float]]] = {}
    for name, make in (("expect", ExpectBot), ("defensive", DefensiveBot)):
        log: dict[int, list[float]] = defaultdict(list)
        for m in range(max(1, hands // 16)):
            lone = make()
            _timed(lone, log)
            play_match(
                [lone, DefensiveBot(), DefensiveBot(), DefensiveBot()], seed=seed + m, hands=16
            )
        logs[name] = log
    print("CPU ms per decision by shanten (p50 / p99 / max), decisions; ratio of medians")
    for s in range(5):
        row = []
        for name in ("expect", "defensive"):
            xs = sorted(logs[name].get(s, []))
            if not xs:
                row.append(f"{name}: -")
                continue
            p50, p99 = _pct(xs, 0.5), _pct(xs, 0.99)
            row.append(f"{name} {p50:7.2f} / {p99:7.2f} / {xs[-1] * 1e3:7.1f} ({len(xs)})")
        e, d = logs["expect"].get(s), logs["defensive"].get(s)
        ratio = statistics.median(e) / statistics.median(d) if e and d else float("nan")
        print(f"shanten {s}{'+' if s == 4 else ' '}: " + "  ".join(row) + f"  ratio {ratio:6.1f}")
    for name in ("expect", "defensive"):
        xs = sorted(x for v in logs[name].values() for x in v)
        print(
            f"all {name}: p50 {xs[len(xs) // 2] * 1e3:.2f} ms  p99 {xs[int(0.99 * len(xs))] * 1e3:.2f} ms  max {xs[-1] * 1e3:.1f} ms"
        )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("strength")
    s.add_argument("--field", default="defensive")
    s.add_argument("--hands", type=int, default=1024)
    s.add_argument("--seed", type=int, default=11)
    s.add_argument("--variant", choices=sorted(VARIANTS), default="default")
    s.add_argument("--out", type=Path)
    c = sub.add_parser("cost")
    c.add_argument("--hands", type=int, default=64)
    c.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if args.cmd == "strength":
        strength(args.field, args.hands, args.seed, args.variant, args.out)
    else:
        cost(args.hands, args.seed)
    return 0


if __name__ == "__main__":
    sys.exit(main())
