"""Rewards that teach without changing what is best: shaping and a duplicate baseline.

Points alone are a sparse signal: a hand pays once, at its end, and a policy that has not
yet learned to win sees almost nothing but the points it loses (four random players won
0 of 300 hands). Two options add signal while keeping the game's true objective:

``shaping="shanten"``
    Potential-based shaping (Ng, Harada and Russell, 1999). The potential of a state is
    ``-weight * shanten`` of the learner's concealed tiles; each reward adds
    ``potential(now) - potential(before)``, and the potential of the episode's end is 0.
    Over an episode the additions sum to ``-potential(first decision)``, which no action
    of the learner can change, so every policy's expected return moves by the same
    amount and the optimal policies are the same as with points alone. In between, the
    learner is paid at once for a discard that brings the hand closer to winning.

``shaping="progress"``
    The same payments at each decision, but the potential is not taken back at the end:
    the episode's return adds ``-weight * shanten`` at the learner's last decision (and
    takes away the same at its first, which no action changes). This *does* change what
    is best: a hand that ends one step from winning is paid for it, which these rules
    do not do. It is the signal that teaches, though. With ``"shanten"`` a critic soon
    learns that a step back now is refunded at the end, the advantages cancel, and what
    is left is the points alone, which a learner that cannot yet win hardly sees: 300,000
    steps of MaskablePPO learned nothing with it.
``baseline=BOT``
    The duplicate difference: the same deal is played once more with ``BOT`` in the
    learner's seat (same wall, same opponents with the same seeds), and each hand's
    reward is the learner's points minus ``BOT``'s points on that hand. The subtracted
    amount does not depend on the learner's actions, so again the optimum is unchanged;
    what goes is most of the luck of the deal (a hand dealt to win pays both), which is
    most of the variance. It costs one extra game per episode.

>>> from sdk.learn.game import LearningGame
>>> game = LearningGame(seed=3)
>>> shaping = ShantenShaping(weight=100.0)
>>> shaping.potential(game.views[0]) == -100.0 * game.views[0].shanten()
True
>>> reference_points(3, 2, 0, 1, ["bots.greedy"] * 4, [1, 2, 3, 4])  # two hands, seat 1
[-1500, -2500]
"""

from __future__ import annotations

from collections.abc import Sequence

from sdk.arena.loader import BotSource, load_bot
from sdk.learn.game import NO_POINTS, LearningGame
from sdk.learn.opponents import Opponents
from sdk.view import GameView

__all__ = ["SHAPINGS", "ShantenShaping", "reference_points"]

SHAPINGS = (None, "shanten", "progress")
"""The shaping options: none (points only), ``"shanten"`` or ``"progress"``."""


class ShantenShaping:
    """The potential ``-weight * shanten`` of a seat's concealed tiles (see the module
    docstring). ``weight`` is in points: 100 pays a step closer to winning a tenth of
    the smallest win's 1,000 points a payer."""

    __slots__ = ("weight",)

    def __init__(self, weight: float = 100.0) -> None:
        if weight <= 0:
            raise ValueError(f"shaping_weight must be positive, not {weight}")
        self.weight = weight

    def potential(self, view: GameView) -> float:
        """The potential of the seat's state now."""
        return -self.weight * view.shanten()


def reference_points(
    seed: int,
    hands: int,
    first_dealer: int,
    seat: int,
    bots: Sequence[BotSource],
    bot_seeds: Sequence[int],
) -> list[int]:
    """Seat ``seat``'s points in each hand of the match ``seed`` played by ``bots`` (one
    per seat, each made with its seed of ``bot_seeds``): the baseline of the duplicate
    difference."""
    game = LearningGame(seed, hands, first_dealer, "hand")
    made = {s: load_bot(b).make(bot_seeds[s]) for s, b in enumerate(bots)}
    table = Opponents(made, hands)
    table.feed(game.last_events)
    points: list[int] = []
    while not game.is_over:
        mover = game.pending_seats()[0]
        paid = game.play(mover, table.decide(mover, game.legal(mover)))
        table.feed(game.last_events)
        if paid is not NO_POINTS:
            points.append(paid[seat])
    return points
