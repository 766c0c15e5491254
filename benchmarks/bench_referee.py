"""Benchmark: hands per CPU-second of the referee alone, on random and on real hands.

Two figures, side by side in one run (medians of the repeats, CPU time of this process,
so other load on the machine matters less):

* **uniform-random hands**: each hand is dealt from a fixed seed; at every step the loop
  takes the seats that must decide (``HandState.pending()``) and each picks uniformly
  among its legal actions (claims are all collected before they are resolved, R5).
  Nearly all such hands end in an exhaustive draw;
* **recorded hands**: matches of ``bots.defensive`` and ``bots.greedy`` are played first
  (not timed), every decision the referee applied is recorded, and the decision
  sequences are then replayed through the referee alone (``Match.apply``, i.e.
  ``HandState.apply`` plus the move to the next hand): real hands, with wins, claims and
  kongs, and no bot or SDK cost. The replay must end with the recorded scores.

Everything the referee does is included: legal-action lists, validation in ``apply``,
events, win checks and scoring. It also prints how the hands ended (share of wins) and
the claims and kongs per hand of each kind of hand.

Run: ``python benchmarks/bench_referee.py [--hands N] [--repeats R] [--matches M]``
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections import Counter
from collections.abc import Sequence

from bots.defensive import DefensiveBot
from bots.greedy import GreedyBot
from protocol.actions import Action
from protocol.events import AddedKong, Chow, ConcealedKong, Event, ExposedKong, Pung
from protocol.hand_state import HandState
from protocol.match import Match
from sdk.bot import Bot, DecisionRequest
from sdk.local import play_match
from sdk.view import GameView

MATCH_HANDS = 16
Decisions = list[tuple[int, Action]]


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


def recording(cls: type[Bot], log: Decisions) -> type[Bot]:
    """A subclass of ``cls`` that appends each ``(seat, action)`` it answers to ``log``."""

    class Recording(cls):  # type: ignore[valid-type, misc]
        def choose(self, view: GameView, request: DecisionRequest) -> Action:
            action = super().choose(view, request)
            log.append((view.seat, action))
            return action

    return Recording


def record_matches(matches: int) -> list[tuple[int, Decisions, tuple[int, ...]]]:
    """Play ``matches`` matches of defensive and greedy bots; return per match its seed,
    the decisions in the order applied, and the final scores."""
    out = []
    for seed in range(matches):
        log: Decisions = []
        kinds = (DefensiveBot, GreedyBot, DefensiveBot, GreedyBot)
        bots = [recording(k, log)() for k in kinds]
        result = play_match(bots, seed=seed, hands=MATCH_HANDS)
        assert all(s.fallbacks == 0 for s in result.stats), "a fallback: decisions differ"
        out.append((seed, log, result.scores))
    return out


def replay(seed: int, decisions: Decisions) -> Match:
    """The recorded match again, through the referee alone."""
    match = Match.new(seed, MATCH_HANDS)
    apply = match.apply
    for seat, action in decisions:
        apply(seat, action)
    return match


def run_recorded(recorded: list[tuple[int, Decisions, tuple[int, ...]]]) -> float:
    """Replay every recorded match; return hands per CPU-second."""
    start = time.process_time()
    for seed, decisions, _ in recorded:
        replay(seed, decisions)
    return len(recorded) * MATCH_HANDS / (time.process_time() - start)


def describe(results: Counter[str], events: Sequence[Event], hands: int) -> str:
    """Share of wins, and claims and kongs per hand."""
    claims = sum(isinstance(e, Chow | Pung | ExposedKong) for e in events)
    kongs = sum(isinstance(e, ExposedKong | AddedKong | ConcealedKong) for e in events)
    wins = results.get("win", 0)
    return (
        f"{100 * wins / hands:.1f}% won, {claims / hands:.2f} claims and "
        f"{kongs / hands:.2f} kongs per hand ({dict(results)})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=2000, help="uniform-random hands")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument(
        "--matches", type=int, default=8, help=f"recorded matches of {MATCH_HANDS} hands"
    )
    args = parser.parse_args()
    start = time.perf_counter()
    recorded = record_matches(args.matches)
    print(
        f"recorded {args.matches} matches of defensive/greedy bots "
        f"({args.matches * MATCH_HANDS} hands) in {time.perf_counter() - start:.1f} s"
    )
    real_events: list[Event] = []
    real_results: Counter[str] = Counter()
    for seed, decisions, scores in recorded:
        match = replay(seed, decisions)
        assert match.is_over and match.player_scores() == scores, "the replay diverged"
        real_events.extend(match.events)
        real_results.update(r.outcome for r in match.results)
    uniform, recorded_rates = [], []
    outcomes: Counter[str] = Counter()
    for _ in range(args.repeats):  # alternating, so both share whatever else runs
        rate, outcomes = run(args.hands, first_seed=1)
        uniform.append(rate)
        recorded_rates.append(run_recorded(recorded))
    uniform_events: list[Event] = []
    rng = random.Random(1)  # the same hands once more, for their claims and kongs
    for seed in range(1, 1 + args.hands):
        uniform_events.extend(play_hand(seed, rng).events)
    n_real = args.matches * MATCH_HANDS
    print(
        f"referee, 4 uniform-random bots: median {statistics.median(uniform):,.0f} hands per"
        f" CPU-second over {args.repeats} repeats of {args.hands} hands"
        f" (min {min(uniform):,.0f}, max {max(uniform):,.0f})"
    )
    print(f"  those hands: {describe(outcomes, uniform_events, args.hands)}")
    print(
        f"referee, recorded defensive/greedy hands: median "
        f"{statistics.median(recorded_rates):,.0f} hands per CPU-second over {args.repeats}"
        f" repeats of {n_real} hands (min {min(recorded_rates):,.0f},"
        f" max {max(recorded_rates):,.0f})"
    )
    print(f"  those hands: {describe(real_results, real_events, n_real)}")


if __name__ == "__main__":
    main()
