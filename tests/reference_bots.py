"""The bots' decisions as they were before the fast paths of issue 17, for the tests.

``bots.greedy`` and ``bots.defensive`` now rank discards and claims from the
necessary-tile tables with caches between decisions; these copies of the earlier code
(full efficiency tables from ``protocol.analysis`` at every decision) must make exactly
the same decisions: seeded matches give byte-identical events and records. They carry
the same names as the bots they stand for (names are in the records). The tuned
constants are imported from ``bots.defensive``: only the decision code is frozen here.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import NamedTuple

from bots.defensive import DEAL_IN_LOSS, MIN_THREAT, WIN_GAIN
from protocol.actions import KONG, PASS, WIN, Action, ActionKind
from protocol.analysis import efficiency_counts, improvements_counts, shanten_counts
from protocol.events import Discard, Event, HandStart
from protocol.tiles import Tile
from sdk.bot import Bot, DecisionRequest
from sdk.estimates import (
    HONOR_DANGER,
    MAX_DANGER,
    MELD_RANK_FACTOR,
    OWN_DISCARD_FACTOR,
    PAIR_DANGER,
    RUN_DANGER,
    TENPAI,
    WAIT_WEIGHT,
    WIN_CHANCE,
)
from sdk.view import GameView


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


class PlainGreedyBot(Bot):
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


def threat(view: GameView, seat: int) -> float:
    """The chance that ``seat`` is waiting now, from its melds and its discards."""
    melds = len(view.melds(seat)) + view.concealed_kongs(seat)
    return TENPAI[min(melds, 5)][min(len(view.river(seat)) // 3, 5)]


def danger(
    view: GameView, seat: int, tile: int, seen: Sequence[int], passed: Collection[int] = ()
) -> float:
    """The chance a waiting ``seat`` wins on ``tile``; ``seen`` = visible counts,
    ``passed`` = kinds discarded since ``seat``'s own last discard (it let them go)."""
    if tile in passed:
        return 0.0
    unseen = 4 - seen[tile]
    if tile >= Tile.E:
        return HONOR_DANGER[unseen]
    value = PAIR_DANGER[unseen] + RUN_DANGER * open_runs(tile, seen)
    if tile in view.river(seat):
        value *= OWN_DISCARD_FACTOR
    if any(tile in meld.tiles for meld in view.melds(seat)):
        value *= MELD_RANK_FACTOR
    return min(value, MAX_DANGER)


def open_runs(tile: int, seen: Sequence[int]) -> int:
    """Run shapes that could wait on suited ``tile`` (``34``, ``46``, ``67`` for a 5),
    each counted by the unseen copies of its scarcer tile."""
    rank, total = tile % 9, 0
    for a, b in ((-2, -1), (-1, 1), (1, 2)):
        if rank + a >= 0 and rank + b <= 8:
            total += min(4 - seen[tile + a], 4 - seen[tile + b])
    return total


def win_chance(option: Prospect, drawable: int, best_accept: int) -> float:
    """How often a hand at ``option``'s shanten wins, by tiles left to draw, scaled by
    its acceptance against the best option at the same shanten (``best_accept``): half
    the tiles that help, about twice as long to get there. 0 on the last discard:
    nobody draws after it (R2)."""
    if drawable <= 0:
        return 0.0
    base = WIN_CHANCE[min(option.shanten, 4)][min(drawable // 12, 4)]
    return base * option.accept / best_accept if best_accept else base


def wait_value(view: GameView, counts: Sequence[int], seen: Sequence[int]) -> float:
    """A waiting 3n+1 hand: the unseen copies of its winning kinds, each weighted by
    how readily greedy opponents throw that kind (``WAIT_WEIGHT``)."""
    lowering = improvements_counts(counts, outside(counts, seen))
    return sum(n * WAIT_WEIGHT[tile_value(view, kind)] for kind, n in lowering)


def next_wait(counts: Sequence[int], seen: Sequence[int]) -> int:
    """A 3n+1 hand one tile from waiting, looked at one draw ahead: over every draw
    that makes it wait, the unseen copies of that draw times the widest wait it then
    reaches (the best discard's unseen winning tiles). Greedy counts only the draws;
    two hands with equal acceptance can lead to a 2-tile wait or an 8-tile one."""
    c, out, total = list(counts), outside(counts, seen), 0
    for kind, n in improvements_counts(c, out):
        c[kind] += 1
        best = efficiency_counts(c, out)[0]
        c[kind] -= 1
        if best.shanten == 0:
            total += n * best.total_unseen
    return total


class PlainDefensiveBot(PlainGreedyBot):
    """Greedy, but each discard is priced by its danger; folds when that pays."""

    name = "defensive"

    def __init__(self, name: str | None = None) -> None:
        super().__init__(name)
        self.passed: list[set[int]] = [set() for _ in range(4)]

    def on_event(self, view: GameView, event: Event) -> None:
        """Track, for each seat, the kinds others discarded since its own last discard.

        Everyone here takes every win it can (a 0-tai win pays 1000, and passing one
        only forbids self-draw, R9), so a kind that went by is not what it waits on,
        until its hand changes, which it does at its next discard."""
        if isinstance(event, HandStart):
            self.passed = [set() for _ in range(4)]
        elif isinstance(event, Discard):
            self.passed[event.seat] = set()
            for seat in range(4):
                if seat != event.seat:
                    self.passed[seat].add(event.tile)

    def pick_discard(
        self,
        view: GameView,
        request: DecisionRequest,
        options: list[Prospect],
        seen: Sequence[int],
    ) -> Action:
        options = self.rerank(view, options, seen)
        threats = self.threats(view)
        if not threats:
            return Action.discard(options[0].discard)  # type: ignore[arg-type]
        most = {}  # the best acceptance at each shanten
        for o in options:
            most[o.shanten] = max(most.get(o.shanten, 0), o.accept)
        best = max(options, key=lambda o: self.value(view, o, most[o.shanten], threats, seen))
        return Action.discard(best.discard)  # type: ignore[arg-type]

    def rerank(
        self, view: GameView, options: list[Prospect], seen: Sequence[int]
    ) -> list[Prospect]:
        """Greedy's options, but near the end of the road each one at the best shanten is
        measured by what its wait is worth (:func:`wait_value`, when waiting) or will be
        (:func:`next_wait`, one tile away) rather than by the bare acceptance."""
        best = options[0].shanten
        if best > 1:
            return options
        counts, ranked = list(view.counts), []
        for o in options:
            if o.shanten == best and o.accept:
                counts[o.discard] -= 1  # type: ignore[index]
                worth = wait_value(view, counts, seen) if best == 0 else next_wait(counts, seen)
                counts[o.discard] += 1  # type: ignore[index]
                o = Prospect(o.shanten, worth, o.discard)  # type: ignore[arg-type]
            ranked.append(o)
        ranked.sort(key=lambda p: (p.shanten, -p.accept, tile_value(view, p.discard)))  # type: ignore[arg-type]
        return ranked

    def claim(self, view: GameView, request: DecisionRequest) -> Action:
        """Greedy's claim, but a chow or pung only when it lowers shanten.

        Greedy also claims to stay as far from waiting with more acceptance; that gives
        up two tiles of the concealed hand's flexibility for nothing. Measured against
        claiming them (2048-hand pilots, points/hand): +68 ± 70 (seed 2), +25 ± 79
        (seed 3); claiming at equal shanten whatever the acceptance lost 238 ± 93.
        Kongs stay greedy's."""
        action = super().claim(view, request)
        if action.kind in (ActionKind.CHOW, ActionKind.PUNG):
            seen = view.visible_counts()
            stay = pass_prospect(view.counts, seen)
            if claim_prospect(view, action, seen).shanten >= stay.shanten:
                return PASS
        return action

    def value(
        self,
        view: GameView,
        option: Prospect,
        best_accept: int,
        threats: dict[int, float],
        seen: Sequence[int],
    ) -> float:
        """Expected points of a discard: my chances minus the deal-in risk."""
        tile = option.discard
        assert tile is not None
        risk = sum(t * danger(view, s, tile, seen, self.passed[s]) for s, t in threats.items())
        return win_chance(option, view.drawable, best_accept) * WIN_GAIN - risk * DEAL_IN_LOSS

    def threats(self, view: GameView) -> dict[int, float]:
        """Each opponent's chance of waiting, for those at ``MIN_THREAT`` or more."""
        others = ((view.seat + k) % 4 for k in (1, 2, 3))
        return {s: t for s in others if (t := threat(view, s)) >= MIN_THREAT}
