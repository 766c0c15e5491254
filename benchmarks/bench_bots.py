"""The sample bots measured: strength (duplicate arena) and decision times; calibration.

Strength (the figures in bots/README.md)::

    python benchmarks/bench_bots.py --hands 4096 --seed 0

plays, in the arena with duplicate seating (each deal under the four rotations), one
bot against three copies of another: greedy vs random, defensive vs greedy and greedy vs
defensive. It prints the mean points per hand of the lone bot and of the field with 95%
t intervals over deals, the paired difference, win and deal-in rates, and decision times
(p50, p99, max from the arena's timing histogram) with the number of fallbacks.

Calibration (where the numbers in ``bots/defensive.py`` come from)::

    python benchmarks/bench_bots.py --calibrate --matches 40

plays greedy self-play and measures, from every discard decision: how often a player is
waiting by melds and discards (``TENPAI``), how often a player at a given shanten goes
on to win by tiles left (``WIN_CHANCE``), how often a waiting player's waits include a
kind by its unseen copies and open run shapes (the danger tables), the two soft signals
(own discards, ranks of exposed sets) and the average deal-in loss and win gain.

Decision cost without the noise of a shared machine::

    python benchmarks/bench_bots.py --cpu-timing --hands 512

times each decision of each bot (in its matchup, as above) in CPU time of the playing
thread, which a busy machine does not inflate the way it inflates wall-clock time.

Runs on one core (``backend="local"``); use ``nice`` when the machine is shared.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bots.greedy import GreedyBot, Prospect
from protocol.actions import Action
from protocol.analysis import shanten_counts, waits_counts
from sdk.arena import load_bot, run_arena
from sdk.bot import DecisionRequest
from sdk.estimates import open_runs
from sdk.local import play_match
from sdk.view import GameView

MATCHUPS = (("greedy", "random"), ("defensive", "greedy"), ("greedy", "defensive"))


def strength(hands: int, seed: int, matchups: Sequence[tuple[str, str]]) -> None:
    """One lone bot against three of another, duplicate seating, for each matchup."""
    for hero, field in matchups:
        spec = [f"bots.{hero}"] + [f"bots.{field}"] * 3
        result = run_arena(spec, hands=hands, seed=seed, duplicate=True, backend="local")
        pair = result.pair(hero, field).diff
        print(f"\n{hero} vs three {field}: {result.hands} hands, {result.deals} deals, seed {seed}")
        print(f"  {hero} - {field}: {pair.mean:+.1f} ± {pair.half_width:.1f} points/hand")
        for label in (hero, field):
            b = result.bot(label)
            t = b.timing
            print(
                f"  {label:>9}: {b.points.mean:+8.1f} ± {b.points.half_width:6.1f} pts/hand"
                f"  win {b.win_rate:6.1%}  self-draw {b.self_draw_rate:6.1%}"
                f"  deal-in {b.deal_in_rate:6.1%}  tai/win {b.avg_tai:4.2f}"
                f"  | p50 {t.percentile(50) * 1e3:6.2f} ms  p99 {t.percentile(99) * 1e3:6.2f} ms"
                f"  max {t.max * 1e3:7.2f} ms  fallbacks {b.fallbacks}"
            )


def cpu_timing(hands: int, seed: int, matchups: Sequence[tuple[str, str]]) -> None:
    """Per-decision CPU time (thread time) of the lone bot of each matchup."""
    for hero, field in matchups:
        times: list[float] = []
        for deal in range(max(1, hands // 64)):
            for rotation in range(4):
                bots = [load_bot(f"bots.{n}").make(deal) for n in (hero, field, field, field)]
                bots[0].choose = _timed(bots[0].choose, times)  # type: ignore[method-assign]
                seats = tuple((p + rotation) % 4 for p in range(4))
                play_match(bots, seed=seed + deal, hands=16, seats=seats)
        q = statistics.quantiles(times, n=100)
        print(
            f"{hero} (vs {field}) CPU per decision over {len(times)} decisions: "
            f"p50 {q[49] * 1e3:.2f} ms  p99 {q[98] * 1e3:.2f} ms  max {max(times) * 1e3:.2f} ms"
        )


def _timed(choose: Callable[[GameView, DecisionRequest], Action], times: list[float]) -> Callable:
    def timed(view: GameView, request: DecisionRequest) -> Action:
        start = time.thread_time()
        action = choose(view, request)
        times.append(time.thread_time() - start)
        return action

    return timed


# --- calibration -------------------------------------------------------------------------


class _Tally(defaultdict):
    """key -> [hits, total]."""

    def __init__(self) -> None:
        super().__init__(lambda: [0, 0])

    def add(self, key: object, hit: bool) -> None:
        self[key][0] += hit
        self[key][1] += 1

    def show(self, title: str, minimum: int = 100) -> None:
        print(f"\n{title}")
        for key in sorted(self):
            hits, total = self[key]
            if total >= minimum:
                print(f"  {key!s:<28} {hits / total:7.4f}  (n={total})")


class _Recorder(GreedyBot):
    """Greedy that records, at each of its discards, what the models need. Each bot of
    the table registers its view so the recorder can peek at the others' true hands."""

    views: dict[int, GameView]

    def __init__(self, log: _Calibration) -> None:
        super().__init__()
        self.log = log

    def pick_discard(
        self,
        view: GameView,
        request: DecisionRequest,
        options: list[Prospect],
        seen: Sequence[int],
    ) -> Action:
        self.log.views[view.seat] = view
        self.log.record(view, options[0], seen)
        return super().pick_discard(view, request, options, seen)


class _Calibration:
    def __init__(self) -> None:
        self.views: dict[int, GameView] = {}
        self.tenpai, self.danger, self.signals, self.win = _Tally(), _Tally(), _Tally(), _Tally()
        self.deal_ins_by_shanten: dict[int, int] = defaultdict(int)
        self.pending: list[tuple[int, int, tuple[int, int]]] = []
        self.deal_in: list[int] = []
        self.gain: list[int] = []

    def record(self, view: GameView, best: Prospect, seen: Sequence[int]) -> None:
        me = view.seat
        melds = len(view.melds(me))
        self.tenpai.add((melds, len(view.river(me)) // 3), best.shanten == 0)
        self.pending.append((view.hand_number, me, (min(best.shanten, 4), view.drawable // 12)))
        for seat, other in self.views.items():
            if seat == me or shanten_counts(other.counts) != 0:
                continue
            waits = set(waits_counts(other.counts, [t for m in other.melds() for t in m.tiles]))
            river, shown = set(view.river(seat)), {t for m in view.melds(seat) for t in m.tiles}
            for t in range(34):
                hit = t in waits
                if t >= 27:
                    self.danger.add(("honor", 4 - seen[t]), hit)
                    continue
                self.danger.add(("suited", 4 - seen[t], open_runs(t, seen)), hit)
                self.signals.add("own discard" if t in river else "not own discard", hit)
                if shown:
                    self.signals.add("in exposed set" if t in shown else "not in exposed", hit)

    def finish_match(self, results: Sequence) -> None:
        last = {(hand, seat): i for i, (hand, seat, _) in enumerate(self.pending)}
        for i, (hand, seat, key) in enumerate(self.pending):
            self.win.add(key, results[hand].winner == seat)
            if results[hand].discarder == seat and last[(hand, seat)] == i:
                self.deal_ins_by_shanten[key[0]] += 1
        self.pending.clear()
        for r in results:
            if r.outcome == "win":
                self.gain.append(r.payments[r.winner])
                if r.discarder is not None:
                    self.deal_in.append(-r.payments[r.discarder])


def calibrate(matches: int, seed: int) -> None:
    log = _Calibration()
    for m in range(matches):
        log.views.clear()
        result = play_match([_Recorder(log) for _ in range(4)], seed=seed + m, hands=16)
        log.finish_match(result.hand_results)
    log.tenpai.show("P(waiting) by (melds, discards // 3)  -> TENPAI")
    log.win.show("P(win) by (shanten after discard, drawable // 12)  -> WIN_CHANCE")
    log.danger.show("P(kind in waits | waiting) by (kind, unseen, open runs)  -> danger")
    log.signals.show("P(kind in waits | waiting), soft signals (suited kinds)")
    total = sum(log.deal_ins_by_shanten.values())
    print("\nshare of deal-ins by the discarder's shanten after the discard")
    for shanten, n in sorted(log.deal_ins_by_shanten.items()):
        print(f"  {shanten}  {n / total:6.1%}  (n={n})")
    print(
        f"\naverage deal-in loss {sum(log.deal_in) / len(log.deal_in):.0f} (n={len(log.deal_in)})"
    )
    print(f"average win gain {sum(log.gain) / len(log.gain):.0f} (n={len(log.gain)})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--hands", type=int, default=4096, help="table hands per matchup")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--only", help="one matchup as HERO,FIELD (e.g. defensive,greedy)")
    parser.add_argument("--calibrate", action="store_true", help="measure the model tables")
    parser.add_argument("--matches", type=int, default=40, help="calibration matches")
    parser.add_argument("--cpu-timing", action="store_true", help="decision CPU time only")
    args = parser.parse_args()
    if args.calibrate:
        calibrate(args.matches, args.seed)
        return
    matchups = [tuple(args.only.split(","))] if args.only else MATCHUPS
    if args.cpu_timing:
        cpu_timing(args.hands, args.seed, matchups)  # type: ignore[arg-type]
    else:
        strength(args.hands, args.seed, matchups)  # type: ignore[arg-type]


if __name__ == "__main__":
    main()
