"""Greedy: play for speed, by tile efficiency.

The idea in one line: keep the hand as close to complete as possible, and among equally
close hands keep the one that the most unseen tiles would improve.

* **Shanten** counts how many tiles the hand lacks to be waiting (0 = waiting, -1 =
  complete). Every discard leaves some shanten; greedy keeps the lowest.
* **Acceptance** breaks ties: the unseen copies of every kind that would lower shanten
  if drawn. "Unseen" means not in this seat's hand, any river or any shown meld
  (:meth:`~sdk.view.GameView.visible_counts`), so a wait on tiles already gone counts
  for nothing.
* **Tile value** breaks the remaining ties: let go of what is hardest to use first, an
  isolated honor that can never score, then one that can (dragons, own and round wind),
  then terminals, 2s and 8s, the middle tiles last.
* **Claims** (chow, pung) are simulated: take the two own tiles out, make the best
  discard the claim allows (R6 bans the claimed kind after a chow or a pung) and compare
  with passing. Claim only if the hand gets closer (lower shanten) or stays as close
  with more acceptance. A kong (concealed, added or on a discard) is taken when it does
  not raise shanten: it costs nothing and draws a free tile.
* **Always win** when the rules allow it: a 0-tai win is still a win (R15 pays 1000).

Everything is computed with the fast count-vector functions of :mod:`protocol.analysis`;
a decision takes a millisecond or two.

>>> from sdk.local import play_match
>>> result = play_match([GreedyBot() for _ in range(4)], seed=3, hands=2)
>>> sum(result.scores), max(s.fallbacks for s in result.stats)
(0, 0)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from protocol.actions import KONG, PASS, WIN, Action, ActionKind
from protocol.analysis import efficiency_counts, improvements_counts, shanten_counts
from protocol.tiles import Tile
from sdk.bot import Bot, DecisionRequest
from sdk.view import GameView

__all__ = ["BOT", "GreedyBot", "Prospect", "claim_prospect", "pass_prospect", "tile_value"]


class Prospect(NamedTuple):
    """How good a waiting-to-draw hand (3n+1 tiles) is: lower ``key`` is better."""

    shanten: int
    accept: int
    """Unseen copies of the kinds that would lower shanten."""
    discard: Tile | None = None
    """The discard that leads to this hand, when one is needed."""

    @property
    def key(self) -> tuple[int, int]:
        """The sort key: fewer shanten first, then more improving tiles."""
        return (self.shanten, -self.accept)


def outside(counts: Sequence[int], seen: Sequence[int]) -> list[int]:
    """Tiles seen outside the concealed ``counts``: what ``efficiency_counts`` wants."""
    return [s - c for s, c in zip(seen, counts, strict=True)]


def tile_value(view: GameView, tile: int) -> int:
    """How useful a tile kind is in general, lower = discard first (the last tie-break).

    0 a wind that can never score, 1 a scoring honor (dragon, own or round wind),
    2 a terminal, 3 a 2 or 8, 4 a middle tile (3 to 7).
    """
    if tile >= Tile.E:
        return 1 if tile >= Tile.C or tile in (view.seat_wind(), view.round_wind) else 0
    rank = tile % 9 + 1
    return 2 if rank in (1, 9) else 3 if rank in (2, 8) else 4


def ranked_discards(
    view: GameView, counts: Sequence[int], allowed: Sequence[int], seen: Sequence[int]
) -> list[Prospect]:
    """Each allowed discard of the 3n+2 hand ``counts``, best first: shanten, then
    acceptance, then tile value."""
    options = [
        Prospect(o.shanten, o.total_unseen, o.discard)
        for o in efficiency_counts(counts, outside(counts, seen))
        if o.discard in allowed
    ]
    options.sort(key=lambda p: (p.shanten, -p.accept, tile_value(view, p.discard)))  # type: ignore[arg-type]
    return options


def pass_prospect(counts: Sequence[int], seen: Sequence[int]) -> Prospect:
    """The 3n+1 hand ``counts`` as it stands (after passing on a claim)."""
    accept = sum(n for _, n in improvements_counts(counts, outside(counts, seen)))
    return Prospect(shanten_counts(counts), accept)


def claim_prospect(view: GameView, action: Action, seen: Sequence[int]) -> Prospect:
    """The hand after claiming ``view.last_discard`` with ``action`` (chow, pung or
    kong) and, for a chow or pung, the best discard R6 still allows."""
    tile = view.last_discard
    assert tile is not None
    counts = list(view.counts)
    if action.kind is ActionKind.KONG:
        counts[tile] -= 3
        return pass_prospect(counts, seen)
    used = action.tiles if action.kind is ActionKind.CHOW else (tile, tile)
    assert used is not None
    for t in used:
        counts[t] -= 1
    allowed = [t for t in range(len(counts)) if counts[t] and t != tile]  # R6
    return ranked_discards(view, counts, allowed, seen)[0]


class GreedyBot(Bot):
    """Tile efficiency: lowest shanten, then most unseen acceptance, then tile value."""

    name = "greedy"

    def choose(self, view: GameView, request: DecisionRequest) -> Action:
        if request.allows("win"):
            return WIN
        if request.is_claim:
            return self.claim(view, request)
        return self.turn(view, request)

    # --- own turn ---------------------------------------------------------------------

    def turn(self, view: GameView, request: DecisionRequest) -> Action:
        """A kong that does not raise shanten, else the best discard."""
        seen = view.visible_counts()
        options = self.discards(view, request, seen)
        kong = self.free_kong(view, request, options[0].shanten)
        return kong or self.pick_discard(view, request, options, seen)

    def discards(
        self, view: GameView, request: DecisionRequest, seen: Sequence[int]
    ) -> list[Prospect]:
        """The legal discards ranked by efficiency, best first."""
        allowed = [a.tile for a in request.of_kind("discard")]
        return ranked_discards(view, view.counts, allowed, seen)  # type: ignore[arg-type]

    def pick_discard(
        self,
        view: GameView,
        request: DecisionRequest,
        options: list[Prospect],
        seen: Sequence[int],
    ) -> Action:
        """Greedy takes the most efficient discard (defensive weighs danger here)."""
        return Action.discard(options[0].discard)  # type: ignore[arg-type]

    def free_kong(self, view: GameView, request: DecisionRequest, best: int) -> Action | None:
        """A concealed or added kong whose hand is no further from waiting than the best
        discard's (``best`` shanten): the kong's replacement tile comes for free."""
        for action in request.legal_actions:
            if action.kind is ActionKind.CONCEALED_KONG:
                take = 4
            elif action.kind is ActionKind.ADDED_KONG:
                take = 1
            else:
                continue
            counts = list(view.counts)
            counts[action.tile] -= take  # type: ignore[index]
            if shanten_counts(counts) <= best:
                return action
        return None

    # --- another seat's discard ---------------------------------------------------------

    def claim(self, view: GameView, request: DecisionRequest) -> Action:
        """Kong if it does not raise shanten; else the claim that beats passing most."""
        seen = view.visible_counts()
        stay = pass_prospect(view.counts, seen)
        if (
            KONG in request.legal_actions
            and claim_prospect(view, KONG, seen).shanten <= stay.shanten
        ):
            return KONG
        best, best_key = PASS, stay.key
        for action in request.legal_actions:
            if action.kind in (ActionKind.PUNG, ActionKind.CHOW):
                key = claim_prospect(view, action, seen).key
                if key < best_key:
                    best, best_key = action, key
        return best


BOT = GreedyBot
"""The bot class this module offers (what loaders look for)."""

if __name__ == "__main__":
    from sdk.cli import run

    run(GreedyBot)
