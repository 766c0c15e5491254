"""Benchmark: what reading the opponents is worth, and how well defensive reads them.

A search bot can only be as good as its picture of the hidden tiles. This measures the
two ends of that picture against the defensive field, with cheats that read the true
hidden state (a benchmark may; a bot never can):

* **defensive** itself (the harness: 0 by construction, every seat plays alike);
* **knows who waits**: defensive whose threats are the truth (a waiting opponent counts
  as certain, the others not at all); which tiles they wait on still comes from its
  danger model.
* **knows the waits**: defensive that prices each discard by whether it *is* a winning
  tile of a waiting opponent (the deal-in loss, certain) instead of by its models;
* **your model** (``--model module:function``, no cheat): defensive whose risk comes from
  ``function(view, seat, kind, passed)``, the chance that ``kind`` wins for ``seat`` now
  (``passed``: the kinds that went by since that seat's last discard, which it did not
  take), used where defensive sees a threat, a deal-in priced at ``--price`` points.
  :func:`defensive_risk` is defensive's own (with the default price, it plays exactly
  like defensive).

Each deal is one seeded hand played four times (the reader in each seat in turn, three
``bots.defensive`` in the others, every seat fed its events), played with
:func:`sdk.search.playout` on the referee's state. It prints the reader's points per
hand minus the field's with a 95% t interval over deals, and both
sides' win and deal-in rates. Then the grading of each risk model: at every discard
decision of a plain defensive seat, for each opponent and each kind it may throw, the
model's risk against the truth (that kind wins for that opponent now): the AUC (the
chance a true winning tile is rated riskier than a safe one) and the mean risk given to
each.

Run: ``python benchmarks/bench_reading.py [--deals 256] [--seed 0] [--model
module:function] [--price 1750]`` (about 20 s of CPU per 256 deals and reader).
"""

from __future__ import annotations

import argparse
import importlib
import random
import statistics
import time
from collections.abc import Callable, Collection, Sequence

from bots.defensive import DEAL_IN_LOSS, WIN_GAIN, DefensiveBot, danger, threat, win_chance
from bots.greedy import Prospect
from protocol.actions import Action, ActionKind
from protocol.analysis import shanten_counts, waits_counts
from protocol.hand_state import HandState
from sdk.arena.stats import mean_interval
from sdk.bot import DecisionRequest
from sdk.search import Policy, bot_policy, playout
from sdk.view import GameView


class Reader(DefensiveBot):
    """Defensive with a window on the true state (set by :func:`reader_policy`)."""

    state: HandState | None = None

    def true_waits(self, seat: int) -> list[int]:
        """The kinds ``seat`` wins on now (none if it is not waiting)."""
        assert self.state is not None
        counts = self.state.owns[seat].counts
        if sum(counts) % 3 != 1 or shanten_counts(counts) != 0:
            return []
        return waits_counts(counts)


class KnowsWhoWaits(Reader):
    """Its threats are the truth: certain for a waiting opponent, none otherwise."""

    name = "knows who waits"

    def threats(self, view: GameView) -> dict[int, float]:
        others = ((view.seat + k) % 4 for k in (1, 2, 3))
        return {s: 1.0 for s in others if self.true_waits(s)}


class KnowsTheWaits(Reader):
    """Prices a discard by whether it wins for someone now, not by the models."""

    name = "knows the waits"

    def pick_discard(
        self, view: GameView, request: DecisionRequest, options: list[Prospect], seen: Sequence[int]
    ) -> Action:
        options = self.rerank(view, options, seen)
        deadly = {k for s in range(4) if s != view.seat for k in self.true_waits(s)}
        return priced(view, options, {o.discard: float(o.discard in deadly) for o in options})


def priced(
    view: GameView,
    options: list[Prospect],
    risk: dict[int | None, float],
    price: float = DEAL_IN_LOSS,
) -> Action:
    """Defensive's choice with ``risk`` (by discard): the option of highest win chance
    times the worth of a win less its risk times ``price``, the first of equals."""
    most: dict[int, int] = {}  # the best acceptance at each shanten
    for o in options:
        most[o.shanten] = max(most.get(o.shanten, 0), o.accept)

    def value(o: Prospect) -> float:
        return win_chance(o, view.drawable, most[o.shanten]) * WIN_GAIN - risk[o.discard] * price

    return Action.discard(max(options, key=value).discard)  # type: ignore[arg-type]


def reader_policy(bot: Reader) -> Policy:
    """``bot`` as a policy that sees the state it plays in (the cheat)."""
    inner = bot_policy(bot)

    def policy(
        state: HandState, seat: int, legal: tuple[Action, ...], rng: random.Random
    ) -> Action:
        bot.state = state
        return inner(state, seat, legal, rng)

    return policy


def deal(make: Callable[[], Reader], seed: int) -> tuple[float, list[tuple[bool, bool]]]:
    """One hand under the four seatings: the reader's mean points minus the field's, and
    (won, dealt in) per seating for the reader then per field seat."""
    diffs, rates = [], []
    for me in range(4):
        policies = [bot_policy(DefensiveBot()) for _ in range(4)]
        policies[me] = reader_policy(make())
        out = playout(HandState.new(seed=seed, dealer=seed % 4), policies, random.Random(seed))
        points, result = out.points, out.result
        field = [points[s] for s in range(4) if s != me]
        diffs.append(points[me] - statistics.fmean(field))
        for s in [me] + [s for s in range(4) if s != me]:
            rates.append((result.winner == s, result.discarder == s))
    return statistics.fmean(diffs), rates


def strength(make: Callable[[], Reader], deals: int, seed: int) -> None:
    """Print the reader ``make()`` against the field over ``deals`` deals."""
    start = time.process_time()
    diffs, mine, field = [], [], []
    for d in range(deals):
        diff, rates = deal(make, seed * 1_000_003 + d)
        diffs.append(diff)
        for i in range(0, len(rates), 4):
            mine.append(rates[i])
            field.extend(rates[i + 1 : i + 4])
    iv = mean_interval(diffs)
    cpu = time.process_time() - start

    def rate(rows: list[tuple[bool, bool]], i: int) -> float:
        return 100 * sum(r[i] for r in rows) / len(rows)

    print(
        f"  {make().name:<16} {iv.mean:+7.1f} ± {iv.half_width:5.1f} pts/hand vs the field | "
        f"win {rate(mine, 0):4.1f}% deal-in {rate(mine, 1):4.1f}% | "
        f"field win {rate(field, 0):4.1f}% deal-in {rate(field, 1):4.1f}% | {cpu:.0f} s CPU"
    )


Risk = Callable[[GameView, int, int, Collection[int]], float]
"""``risk(view, seat, kind, passed)``: the chance that ``kind`` wins for ``seat`` now."""


def defensive_risk(view: GameView, seat: int, kind: int, passed: Collection[int]) -> float:
    """Defensive's own: the chance ``seat`` waits times the chance it waits on ``kind``."""
    return threat(view, seat) * danger(view, seat, kind, view.visible_counts(), passed)


class ModelReader(Reader):
    """Defensive whose risk comes from ``model``: where defensive sees a threat, each
    discard is worth its win chance less the model's risk summed over those opponents,
    a deal-in priced at ``price`` (with :func:`defensive_risk` and defensive's price,
    exactly defensive)."""

    name = "your model"

    def __init__(self, model: Risk, price: float = DEAL_IN_LOSS) -> None:
        super().__init__()
        self.model, self.price = model, price

    def pick_discard(
        self, view: GameView, request: DecisionRequest, options: list[Prospect], seen: Sequence[int]
    ) -> Action:
        options = self.rerank(view, options, seen)
        threats = self.threats(view)
        if not threats:
            return Action.discard(options[0].discard)  # type: ignore[arg-type]
        risk = {
            o.discard: sum(self.model(view, s, o.discard, self.passed[s]) for s in threats)  # type: ignore[arg-type]
            for o in options
        }
        return priced(view, options, risk, self.price)


class Graded(Reader):
    """Plain defensive that notes, at each of its discards, each model's risk and the
    truth for every opponent and every kind it may throw."""

    def __init__(self, models: Sequence[Risk], rows: list[tuple[tuple[float, ...], bool]]) -> None:
        super().__init__()
        self.models, self.rows = models, rows

    def pick_discard(
        self, view: GameView, request: DecisionRequest, options: list[Prospect], seen: Sequence[int]
    ) -> Action:
        kinds = {a.tile for a in request.legal_actions if a.kind is ActionKind.DISCARD}
        for s in range(4):
            if s != view.seat:
                waits, passed = set(self.true_waits(s)), self.passed[s]
                for k in kinds:
                    risks = tuple(model(view, s, k, passed) for model in self.models)  # type: ignore[arg-type]
                    self.rows.append((risks, k in waits))
        return super().pick_discard(view, request, options, seen)


def auc(rows: list[tuple[float, bool]]) -> float:
    """The chance a random positive row scores above a random negative one (ties half)."""
    ranked = sorted(rows, key=lambda r: r[0])
    positives = sum(1 for r in rows if r[1])
    negatives = len(rows) - positives
    below = total = 0.0
    i = 0
    while i < len(ranked):  # walk groups of equal scores
        j = i
        while j < len(ranked) and ranked[j][0] == ranked[i][0]:
            j += 1
        group_pos = sum(1 for r in ranked[i:j] if r[1])
        total += group_pos * (below + (j - i - group_pos) / 2)
        below += j - i - group_pos
        i = j
    return total / (positives * negatives)


def grading(models: dict[str, Risk], deals: int, seed: int) -> None:
    """Print how well each model ranks the true winning tiles, on the same pairs."""
    rows: list[tuple[tuple[float, ...], bool]] = []
    for d in range(deals):
        s = seed * 1_000_003 + d
        grader = reader_policy(Graded(list(models.values()), rows))
        policies = [grader] + [bot_policy(DefensiveBot()) for _ in range(3)]
        playout(HandState.new(seed=s, dealer=s % 4), policies, random.Random(s))
    winning = sum(1 for _, hit in rows if hit)
    print(f"  grading: {len(rows):,} (opponent, kind) pairs, {winning:,} of them winning tiles")
    for i, name in enumerate(models):
        scored = [(risks[i], hit) for risks, hit in rows]
        hits = [r for r, hit in scored if hit]
        safe = [r for r, hit in scored if not hit]
        print(
            f"  {name:<36} AUC {auc(scored):.3f}; mean risk {statistics.fmean(hits):.3f} "
            f"on winning tiles, {statistics.fmean(safe):.4f} on the others"
        )


def load_model(spec: str) -> Risk:
    """``module:function`` imported (``ValueError`` naming what is wrong)."""
    module_name, _, attr = spec.partition(":")
    if not module_name or not attr:
        raise ValueError(f"--model wants module:function, got {spec!r}")
    try:
        model = getattr(importlib.import_module(module_name), attr)
    except (ImportError, AttributeError) as exc:
        raise ValueError(f"--model {spec}: {exc}") from None
    if not callable(model):
        raise ValueError(f"--model {spec} is not callable")
    return model  # type: ignore[no-any-return]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=256, help="hands, each in 4 seatings")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--model", help="module:function, your risk model (see the doc)")
    parser.add_argument("--price", type=float, default=DEAL_IN_LOSS, help="of a deal-in")
    args = parser.parse_args()
    if args.deals < 2:
        parser.error("--deals must be at least 2 (an interval needs two deals)")
    models: dict[str, Risk] = {"defensive's risk (threat x danger)": defensive_risk}
    readers: list[Callable[[], Reader]] = [Reader, KnowsWhoWaits, KnowsTheWaits]
    if args.model:
        try:
            model = load_model(args.model)
        except ValueError as exc:
            parser.error(str(exc))
        models[args.model] = model
        readers.append(lambda: ModelReader(model, args.price))
    print(f"readers vs three defensive, {args.deals} deals x 4 seatings, seed {args.seed}:")
    for make in readers:
        strength(make, args.deals, args.seed)
    grading(models, args.deals, args.seed)


if __name__ == "__main__":
    main()
