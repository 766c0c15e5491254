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

Everything is computed from the necessary-tile tables (:mod:`protocol.necessary`): a
discard is ranked by one table read for the discarded suit plus parts shared by every
discard from that suit, with no trial shanten call and no full efficiency table
(:func:`protocol.analysis.efficiency_counts` gives the same ranking with the tiles
spelled out). A decision takes some tens of microseconds.

>>> from sdk.local import play_match
>>> result = play_match([GreedyBot() for _ in range(4)], seed=3, hands=2)
>>> sum(result.scores), max(s.fallbacks for s in result.stats)
(0, 0)
"""

from __future__ import annotations

from collections.abc import Container, Sequence
from typing import NamedTuple

from protocol.actions import KONG, PASS, WIN, Action, ActionKind
from protocol.analysis import shanten_counts
from protocol.necessary import discard_accepts, necessary
from protocol.shapes import distance, encode
from protocol.tiles import KIND_COUNT, TILES, Tile
from sdk.bot import Bot, DecisionRequest
from sdk.estimates import tile_classes
from sdk.view import GameView

__all__ = [
    "BOT",
    "GreedyBot",
    "Prospect",
    "claim_prospect",
    "pass_prospect",
    "tile_value",
    "tile_values",
]


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


def tile_value(view: GameView, tile: int) -> int:
    """How useful a tile kind is in general, lower = discard first (the last tie-break).

    0 a wind that can never score, 1 a scoring honor (dragon, own or round wind),
    2 a terminal, 3 a 2 or 8, 4 a middle tile (3 to 7).
    """
    return tile_values(view)[tile]


def tile_values(view: GameView) -> tuple[int, ...]:
    """:func:`tile_value` of every kind for ``view``'s seat and round winds
    (:func:`sdk.estimates.tile_classes`, cached: the value of a kind depends on nothing
    else)."""
    return tile_classes(view.seat_wind(), view.round_wind)


def unseen_of(seen: Sequence[int]) -> list[int]:
    """Unseen copies of each kind, from the visible counts (own hand included)."""
    return [4 - n if n < 4 else 0 for n in seen]


def _ranked(
    view: GameView,
    counts: Sequence[int],
    allowed: Container[int] | None,
    seen: Sequence[int],
    best_only: bool = False,
) -> list[tuple[int, int, int, int]]:
    """``(shanten, -acceptance, tile value, kind)`` of each discard in ``allowed`` (all
    held kinds if ``None``), best first; with ``best_only``, only the lowest shanten."""
    values = tile_values(view)
    table = discard_accepts(counts, encode(counts), unseen_of(seen), allowed, best_only)
    rows = [(dist - 1, -accept, values[d], d) for d, dist, accept in table]
    rows.sort()
    return rows


def ranked_discards(
    view: GameView,
    counts: Sequence[int],
    allowed: Container[int],
    seen: Sequence[int],
    best_only: bool = False,
) -> list[Prospect]:
    """Each allowed discard of the 3n+2 hand ``counts``, best first: shanten, then
    acceptance, then tile value (then tile order). With ``best_only``, only the
    discards at the lowest shanten (the others' acceptance is not computed)."""
    return [
        Prospect(shanten, -neg, TILES[d])
        for shanten, neg, _, d in _ranked(view, counts, allowed, seen, best_only)
    ]


_ALL_BUT: tuple[frozenset[int], ...] = tuple(
    frozenset(range(KIND_COUNT)) - {t} for t in range(KIND_COUNT)
)
"""Every kind but one (R6: the claimed kind may not be discarded right after)."""


def pass_prospect(counts: Sequence[int], seen: Sequence[int]) -> Prospect:
    """The 3n+1 hand ``counts`` as it stands (after passing on a claim)."""
    dist, kinds = necessary(encode(counts), sum(counts) // 3)
    accept = 0
    for t in kinds:
        n = seen[t]
        if n < 4:
            accept += 4 - n
    return Prospect(dist - 1, accept)


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
    shanten, neg, _, d = _ranked(view, counts, _ALL_BUT[tile], seen, best_only=True)[0]
    return Prospect(shanten, -neg, TILES[d])


def claim_floor(counts: Sequence[int], used: Sequence[int]) -> int:
    """A floor under the shanten of a chow or pung that takes ``used`` out of the 3n+1
    hand ``counts``: whatever the discard after it, the hand left is no closer than
    the 3n+2 tiles it is made from (and a complete one must still let a tile go), so
    claims whose floor is worse than passing need no discard ranking."""
    after = list(counts)
    for t in used:
        after[t] -= 1
    return max(distance(encode(after), sum(after) // 3), 1) - 1


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
        """The legal discards at the lowest shanten ranked by efficiency, best first
        (greedy takes the first; the others are not even ranked)."""
        allowed = {a.tile for a in request.legal_actions if a.kind is ActionKind.DISCARD}
        return ranked_discards(view, view.counts, allowed, seen, best_only=True)  # type: ignore[arg-type]

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
        counts = view.counts
        stay = pass_prospect(counts, seen)
        tile = view.last_discard
        if KONG in request.legal_actions:
            after = list(counts)
            after[tile] -= 3  # type: ignore[index]
            if shanten_counts(after) <= stay.shanten:
                return KONG
        best, best_key = PASS, stay.key
        for action in request.legal_actions:
            kind = action.kind
            if kind is ActionKind.PUNG or kind is ActionKind.CHOW:
                used = action.tiles if kind is ActionKind.CHOW else (tile, tile)
                if claim_floor(counts, used) > best_key[0]:  # type: ignore[arg-type]
                    continue  # cannot beat the best so far: skip the discard ranking
                key = claim_prospect(view, action, seen).key
                if key < best_key:
                    best, best_key = action, key
        return best


BOT = GreedyBot
"""The bot class this module offers (what loaders look for)."""

if __name__ == "__main__":
    from sdk.cli import run

    run(GreedyBot)
