"""Regenerate every fitted number of :mod:`sdk.expect.model` from seeded self-play.

``python -m sdk.expect.fit --matches 200 --seed 0`` plays matches of four defensive
bots (the field the evaluator is meant to beat) and, at every discard of every seat,
records what the model needs; then writes ``sdk/expect/data/model.json``:

* hazard: after a seat's discard, did another seat win (not on that discard) before the
  seat's next draw; by threat bucket and drawable bucket, and what it cost;
* ron rate: the seat waiting, did it win on an opponent's discard before its next draw;
  a rate per unseen copy of its waits, by tile-value class (Poisson fit);
* deal-in: observed rate against defensive's estimate (threat x danger), and its cost;
* leaves: by shanten after the discard and own draws left, the chance the hand is won,
  the points of that win and the seat's net points at the hand's end.

Deterministic for a seed. The default (200 matches of 16 hands) takes a few minutes on
one core; ``--out`` writes elsewhere (the shipped file is the default).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from bots.defensive import DefensiveBot, danger, threat
from bots.greedy import Prospect
from protocol.analysis import shanten_counts, waits_counts
from protocol.events import Draw, Event, HandResult
from sdk.bot import DecisionRequest
from sdk.estimates import tile_classes
from sdk.expect.model import LEAF_DRAWS, LEAF_SHANTEN, THREAT_BUCKETS, WALL_BUCKET, Model
from sdk.local import play_match
from sdk.view import GameView

__all__ = ["Tally", "fit", "main"]

WALL_BUCKETS = 8


@dataclass
class _Open:
    """A discard's record waiting for its outcome."""

    hazard_cell: tuple[int, int]
    ron_weights: tuple[int, ...] | None
    deal_in_q: float
    tile: int
    shanten: int
    draws: int


@dataclass
class Tally:
    """Counts from self-play, turned into a :class:`Model` by :meth:`model`."""

    hazard_n: dict = field(default_factory=lambda: defaultdict(int))
    hazard_hit: dict = field(default_factory=lambda: defaultdict(int))
    other_loss: list = field(default_factory=list)
    deal_in_loss: list = field(default_factory=list)
    predicted_q: float = 0.0
    deal_ins: int = 0
    ron_rows: list = field(default_factory=list)
    leaf: dict = field(default_factory=lambda: defaultdict(lambda: [0, 0, 0.0, 0.0]))

    def model(self, source: str) -> Model:
        """The fitted :class:`Model`; ``source`` records the command that made it."""
        hazard = []
        for b in range(THREAT_BUCKETS):
            row = []
            for w in range(WALL_BUCKETS):
                n, hit = self.hazard_n[b, w], self.hazard_hit[b, w]
                row.append((hit + 1) / (n + 20))  # a light prior toward 5%
            hazard.append(tuple(round(x, 4) for x in row))
        return Model(
            hazard=tuple(hazard),
            other_loss=round(_mean(self.other_loss, 1500.0), 1),
            deal_in_loss=round(_mean(self.deal_in_loss, 2000.0), 1),
            danger_scale=round(self.deal_ins / self.predicted_q if self.predicted_q else 1.0, 3),
            ron_rate=tuple(round(x, 5) for x in _poisson(self.ron_rows, 5)),
            leaf_win=self._leaf(0),
            leaf_points=self._leaf(1),
            leaf_value=self._leaf(2),
            source=source,
        )

    def _leaf(self, which: int) -> tuple[tuple[float, ...], ...]:
        rows = []
        for s in range(LEAF_SHANTEN):
            known = {}
            for k in range(LEAF_DRAWS):
                n, wins, points, net = self.leaf[s, k]
                if n >= 10:  # fewer: the nearest cell of the row with data
                    known[k] = (wins / n, points / n, net / n)[which]
            if not known:
                rows.append((0.0,) * LEAF_DRAWS)
                continue
            near = [
                known[min(known, key=lambda j, k=k: (abs(j - k), j))] for k in range(LEAF_DRAWS)
            ]
            rows.append(tuple(round(x, 4) for x in near))
        return tuple(rows)


def _mean(xs: Sequence[float], default: float) -> float:
    return sum(xs) / len(xs) if xs else default


def _poisson(rows: list[tuple[tuple[int, ...], int]], classes: int) -> list[float]:
    """Rates ``r`` with P(hit) ~ sum r_c w_c, by the multiplicative Poisson iteration."""
    rate = [0.02] * classes
    for _ in range(200):
        num, den = [0.0] * classes, [0.0] * classes
        for w, y in rows:
            lam = sum(r * x for r, x in zip(rate, w, strict=True))
            for c in range(classes):
                if w[c]:
                    den[c] += w[c]
                    if y and lam > 0:
                        num[c] += y * rate[c] * w[c] / lam
        rate = [num[c] / den[c] if den[c] else rate[c] for c in range(classes)]
    return rate


class _Recorder(DefensiveBot):
    """Defensive, recording each of its discards for the tally."""

    name = "defensive"

    def __init__(self, tally: Tally) -> None:
        super().__init__()
        self.tally = tally
        self.open: list[_Open] = []
        self.leaves: list[tuple[int, int]] = []

    def pick_discard(
        self, view: GameView, request: DecisionRequest, options: list[Prospect], seen: Sequence[int]
    ):  # type: ignore[no-untyped-def]
        action = super().pick_discard(view, request, options, seen)
        self.record(view, int(action.tile), seen)  # type: ignore[arg-type]
        return action

    def record(self, view: GameView, tile: int, seen: Sequence[int]) -> None:
        counts = list(view.counts)
        counts[tile] -= 1
        others = [(view.seat + k) % 4 for k in (1, 2, 3)]
        threats = {s: threat(view, s) for s in others}
        total = sum(threats.values())
        bucket = (
            min(int(total * 2), THREAT_BUCKETS - 1),
            min(view.drawable // WALL_BUCKET, WALL_BUCKETS - 1),
        )
        q = sum(t * danger(view, s, tile, seen, self.passed[s]) for s, t in threats.items())
        shanten = shanten_counts(counts)
        weights = None
        if shanten == 0:
            classes = tile_classes(view.seat_wind(), view.round_wind)
            w = [0] * 5
            melded = [t for m in view.melds() for t in m.tiles]
            for kind in waits_counts(counts, melded):
                w[classes[kind]] += max(0, 4 - seen[kind])
            weights = tuple(w)
        draws = min(view.drawable // 4, LEAF_DRAWS - 1)
        self.open.append(_Open(bucket, weights, q, tile, min(shanten, LEAF_SHANTEN - 1), draws))
        self.leaves.append((min(shanten, LEAF_SHANTEN - 1), draws))

    def on_event(self, view: GameView, event: Event) -> None:
        super().on_event(view, event)
        if isinstance(event, Draw) and event.seat == view.seat:
            for rec in self.open:
                self._close(rec, None, view.seat)
            self.open = []

    def on_hand_end(self, view: GameView, result: HandResult) -> None:
        for rec in self.open:
            self._close(rec, result, view.seat)
        self.open = []
        me = view.seat
        won = result.winner == me
        for s, k in self.leaves:
            cell = self.tally.leaf[s, k]
            cell[0] += 1
            cell[1] += won
            cell[2] += result.payments[me] if won else 0
            cell[3] += result.payments[me]
        self.leaves = []

    def _close(self, rec: _Open, result: HandResult | None, me: int) -> None:
        t = self.tally
        winner = None if result is None else result.winner
        dealt_in = winner is not None and result.discarder == me  # type: ignore[union-attr]
        t.predicted_q += rec.deal_in_q
        if dealt_in:
            t.deal_ins += 1
            t.deal_in_loss.append(-result.payments[me])  # type: ignore[union-attr]
            return
        other = winner is not None and winner != me
        t.hazard_n[rec.hazard_cell] += 1
        if other:
            t.hazard_hit[rec.hazard_cell] += 1
            t.other_loss.append(-result.payments[me])  # type: ignore[union-attr]
        if rec.ron_weights is not None:
            ron = winner == me and result.discarder is not None  # type: ignore[union-attr]
            t.ron_rows.append((rec.ron_weights, int(ron)))


def fit(matches: int, seed: int, hands: int = 16) -> Model:
    """Play ``matches`` seeded self-play matches and fit the model."""
    tally = Tally()
    for m in range(matches):
        bots = [_Recorder(tally) for _ in range(4)]
        play_match(bots, seed=seed * 100_003 + m, hands=hands, clock=False)
    return tally.model(f"python -m sdk.expect.fit --matches {matches} --seed {seed}")


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m sdk.expect.fit``: fit and write the model file."""
    parser = argparse.ArgumentParser(
        prog="python -m sdk.expect.fit", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--matches", type=int, default=200, help="self-play matches (default 200)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "data" / "model.json")
    args = parser.parse_args(argv)
    if args.matches < 1:
        parser.error("--matches must be at least 1")
    start = time.perf_counter()
    model = fit(args.matches, args.seed)
    args.out.write_text(json.dumps(model.to_json(), indent=1) + "\n")
    print(f"wrote {args.out} from {args.matches} matches in {time.perf_counter() - start:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
