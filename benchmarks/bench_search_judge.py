"""Benchmark: are the search bot's overrides right? A low-variance check, decision by
decision, of what the arena can only measure over thousands of hands.

In seeded hands (the search bot in one seat, defensive in the three others, the search
seat rotating), every decision where the search changes defensive's answer is judged
from the *true* state of the hand (the real hidden tiles, which the bot never saw):
both answers are played out ``--trials`` times, each trial with the live wall
reshuffled (the same shuffle for both answers) and defensive playing every seat
afterwards. The gain of an override is the mean points difference (override minus
defensive's answer) for the searching seat. A search worth having has overrides that
gain on average; the estimate of points per hand is the mean gain times the overrides
per hand. It prints each override and the summary with a 95% interval.

This judge is itself a model (the future is played by defensive from the true hands),
so it checks the search's signal, not its arena strength; it is far cheaper: about a
minute of CPU for 32 hands.

Two settings take the search apart, to find which half of it is wrong:
``--rollout defensive`` plays the rollouts with the judge's own players (defensive in
every seat, each told the kinds that went by since its last discard; about ten times
the CPU), and ``--worlds oracle`` gives the search the true hidden hands, only the live
wall reshuffled per sample (a cheat a benchmark may use, never a bot): with both, the
search measures what the judge measures, but for the order of the wall.

Run: ``python benchmarks/bench_search_judge.py [--samples 32] [--hands 32] [--trials 16]
[--confidence 1] [--min-gain 0] [--rollout guard|lite|defensive] [--worlds
uniform|oracle] [--model] [--no-claims] [--calm] [--seed 100]`` (the defaults judge every
override the search would make at one standard error, to see the sign of its signal).
``--calm`` searches with nobody threatening too; each override is printed with whether
defensive saw a threat (``threat``) or not (``calm``), so the two can be judged apart.
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import random
import statistics
import time

from bots.defensive import DefensiveBot
from bots.search import SearchBot
from protocol.actions import Action
from protocol.events import project
from protocol.hand_state import HandState
from protocol.view import SeatView
from sdk.bot import DecisionRequest
from sdk.search import (
    Policy,
    World,
    bot_policy,
    fork,
    guard_policy,
    lite_policy,
    playout,
    true_world,
)
from sdk.view import GameView

ROLLOUTS = {"guard": guard_policy, "lite": lite_policy}


class DefensiveRollout:
    """A rollout policy with defensive in every seat (:func:`~sdk.search.bot_policy`,
    listening). At each new playout every bot starts from the kinds that went by since
    each seat's last discard as the searching bot knows them (:meth:`start`: public
    information), then hears the playout's own events."""

    __name__ = "defensive_rollout"

    def __init__(self) -> None:
        self.bots = [DefensiveBot() for _ in range(4)]
        self.policies = [bot_policy(bot, listen=True) for bot in self.bots]
        self.passed: list[set[int]] = [set() for _ in range(4)]
        self.state: HandState | None = None

    def start(self, passed: list[set[int]]) -> None:
        """A new search: what the searching bot knows of the kinds gone by."""
        self.passed, self.state = [set(p) for p in passed], None

    def __call__(
        self, state: HandState, seat: int, legal: tuple[Action, ...], rng: random.Random
    ) -> Action:
        if state is not self.state:
            self.state = state
            for bot in self.bots:
                bot.passed = [set(p) for p in self.passed]
        return self.policies[seat](state, seat, legal, rng)


def oracle_world(hand: HandState, view: SeatView, rng: random.Random) -> World:
    """The true hidden hands behind ``view``, the live wall reshuffled by ``rng``."""
    world = true_world(hand, view.seat)
    live = list(world.wall)
    rng.shuffle(live)
    return dataclasses.replace(world, wall=tuple(live))


def gain(hand: HandState, seat: int, override: Action, guess: Action, trials: int) -> list[float]:
    """Points of ``override`` minus ``guess`` for ``seat``, per trial, from the true
    state, the live wall reshuffled per trial, defensive playing on for everyone."""
    judges: list[Policy] = [bot_policy(DefensiveBot()) for _ in range(4)]
    diffs = []
    for trial in range(trials):
        points = []
        for action in (override, guess):
            state = fork(hand)
            wall = state.wall
            live = list(wall.tiles[wall.front : wall.back])
            random.Random(trial).shuffle(live)
            wall.tiles = (*wall.tiles[: wall.front], *live, *wall.tiles[wall.back :])
            state.apply(seat, action)
            points.append(playout(state, judges, random.Random(trial)).points[seat])
        diffs.append(points[0] - points[1])
    return diffs


def play(args: argparse.Namespace, seed: int, me: int) -> tuple[list[float], int]:
    """One seeded hand with the search bot in seat ``me``: each override's gain and the
    number of searches."""
    hand = HandState.new(seed=seed, dealer=seed % 4)
    bots = [DefensiveBot() for _ in range(4)]
    rollout = DefensiveRollout() if args.rollout == "defensive" else ROLLOUTS[args.rollout]
    oracle = functools.partial(oracle_world, hand) if args.worlds == "oracle" else None
    search = SearchBot(
        seed, samples=args.samples, confidence=args.confidence, min_gain=args.min_gain,
        rollout=rollout, model=args.model, claims=not args.no_claims, sampler=oracle,
        calm=args.calm,
    )  # fmt: skip
    bots[me] = search
    gains, told = [], 0
    while not hand.is_over:
        for event in hand.events[told:]:
            for s, bot in enumerate(bots):
                seen = project(event, s)
                if seen is not None:
                    bot.on_event(GameView(hand.view(s)), seen)
        told = len(hand.events)
        for seat, legal in list(hand.pending().items()):
            view = GameView(hand.view(seat))
            request = DecisionRequest(
                legal, time.monotonic() + 600, drawn_tile=hand.drawn_tile(seat)
            )
            if seat != me:
                hand.apply(seat, bots[seat].choose(view, request))
                continue
            guess = DefensiveBot.choose(search, view, request)
            threatened = bool(search.threats(view))
            if isinstance(rollout, DefensiveRollout):
                rollout.start(search.passed)  # what the searching bot knows of the kinds gone by
            action = search.choose(view, request)
            if action != guess:
                diffs = gain(hand, seat, action, guess, args.trials)
                gains.append(statistics.mean(diffs))
                half = 1.96 * statistics.stdev(diffs) / len(diffs) ** 0.5
                where = "threat" if threatened else "calm"
                print(
                    f"  hand {seed} ({where}): {guess} -> {action}: {gains[-1]:+.0f} ± {half:.0f}"
                )
            hand.apply(seat, action)
    return gains, search.searched


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=32)
    parser.add_argument("--hands", type=int, default=32)
    parser.add_argument("--trials", type=int, default=16)
    parser.add_argument("--confidence", type=float, default=1.0)
    parser.add_argument("--min-gain", type=float, default=0.0)
    parser.add_argument("--rollout", choices=[*sorted(ROLLOUTS), "defensive"], default="guard")
    parser.add_argument(
        "--worlds", choices=["uniform", "oracle"], default="uniform", help="oracle: a cheat"
    )
    parser.add_argument("--model", action="store_true", help="opponent model (ready)")
    parser.add_argument("--no-claims", action="store_true", help="claims left to defensive")
    parser.add_argument("--calm", action="store_true", help="search with nobody threatening too")
    parser.add_argument("--seed", type=int, default=100)
    args = parser.parse_args()
    if args.model and args.worlds == "oracle":
        parser.error("--model shapes sampled worlds; --worlds oracle has the true ones")
    if args.samples < 1 or args.hands < 1 or args.trials < 2:
        parser.error("--samples and --hands must be at least 1, --trials at least 2")
    gains, searched, start = [], 0, time.process_time()
    for h in range(args.hands):
        more, n = play(args, args.seed + h, h % 4)
        gains += more
        searched += n
    n = len(gains)
    mean = statistics.mean(gains) if gains else 0.0
    half = 1.96 * statistics.stdev(gains) / n**0.5 if n > 1 else float("inf")
    print(
        f"{args.hands} hands, {searched} searches, {n} overrides ({n / args.hands:.2f}/hand);"
        f" gain per override {mean:+.0f} ± {half:.0f} points; about {mean * n / args.hands:+.0f}"
        f" points/hand; {time.process_time() - start:.0f} s CPU"
    )


if __name__ == "__main__":
    main()
