"""Defensive: greedy's offence sharpened in three places, plus a danger model that
knows when to fold.

Greedy throws whatever tile is least useful to it, even when an opponent with four
melds is surely waiting. This bot prices every discard instead::

    value(discard) = P(I win) * WIN_GAIN  -  sum over opponents of
                     P(they are waiting) * P(they wait on this tile) * DEAL_IN_LOSS

and throws the discard of highest value, greedy's order breaking ties. Early on the
risks are tiny and it plays exactly like greedy; late against open hands it folds, that
is throws the safest tile even if that breaks its own hand. Three small models feed it.
Their tables were measured from greedy self-play (``python benchmarks/bench_bots.py
--calibrate``); the few constants of the formula itself were then tuned in the arena.

* **Threat** (:func:`threat`): the chance an opponent is waiting, by how many melds it
  shows and how many tiles it has discarded (a table).
* **Danger** (:func:`danger`): the chance a waiting opponent wants this tile. Under
  these rules a player may win on a kind it discarded itself (there is no furiten; a
  passed win blocks only self-draw, R9), so its own discards are not safe by rule. What
  does hold:

  - *Passed tiles.* Players take every win they can (a 0-tai win still pays 1000, and
    passing one only blocks one's own self-draw, R9), so a kind that another seat
    discarded after an opponent's last discard, and that the opponent let go, is not
    one of its waits until its hand changes (at its next discard).
  - *Counting.* A pair or pung wait on a kind needs a copy in the opponent's hand, so
    once no copy is unseen that wait is impossible; a run wait on ``5`` needs ``34``,
    ``46`` or ``67``, closed when those tiles are all visible. An honor only pairs, so
    it is provably safe once every copy is visible.
  - *Tendencies* (measured, not rules): a waiting efficiency player seldom waits on a
    kind it threw away itself, and seldom on ranks its exposed sets already use.

* **Win chance** (:func:`win_chance`): how often a hand that far from waiting still
  wins, by how many tiles are left to draw. On the last discard (R2) nobody draws after
  it, so the chance is 0 and the bot throws its safest tile whatever its hand.

Offence is greedy's (lowest shanten, then acceptance), with three corrections that
each won points in the arena against greedy:

* **Claim only to get closer** (:meth:`DefensiveBot.claim`). Greedy also chows or
  pungs when that leaves the hand as far from waiting with more acceptance; that spends
  two concealed tiles and a set's worth of flexibility for nothing. Kongs and wins stay
  greedy's, and so do the claims that lower shanten: refusing those to keep 門清 (worth
  1 tai, 3 when self-drawn) loses far more in speed than the tai bring.
* **Look one draw ahead** (:func:`next_wait`). One tile from waiting, greedy counts the
  draws that make the hand wait; this bot counts how wide a wait each of them leads to.
* **Wait on what the others throw** (:func:`wait_value`). Waiting, greedy counts the
  unseen winning tiles; this bot weights them by how soon greedy opponents let that
  kind go (useless honors first, middle tiles last).

>>> from bots.greedy import GreedyBot
>>> from sdk.local import play_match
>>> result = play_match([DefensiveBot(), GreedyBot(), GreedyBot(), GreedyBot()], seed=3, hands=2)
>>> sum(result.scores), result.stats[0].fallbacks
(0, 0)
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from bots.greedy import (
    GreedyBot,
    Prospect,
    claim_prospect,
    pass_prospect,
    ranked_discards,
    tile_value,
    tile_values,
)
from protocol.actions import PASS, Action, ActionKind
from protocol.events import Discard, Event, HandStart
from sdk.bot import DecisionRequest
from sdk.estimates import (
    DEAL_IN_LOSS,
    THREAT_FLOOR,
    WIN_GAIN,
    discard_value,
    next_wait,
    tile_danger,
    waiting_chance,
)
from sdk.estimates import wait_value as estimated_wait_value
from sdk.estimates import win_chance as estimated_win_chance
from sdk.view import GameView

__all__ = [
    "BOT",
    "DEAL_IN_LOSS",
    "WIN_GAIN",
    "DefensiveBot",
    "danger",
    "next_wait",
    "threat",
    "wait_value",
    "win_chance",
]

MIN_THREAT = THREAT_FLOOR
"""Opponents less likely to be waiting are ignored (:data:`sdk.estimates.THREAT_FLOOR`)."""


def threat(view: GameView, seat: int) -> float:
    """The chance that ``seat`` is waiting now, from its melds and its discards."""
    melds = len(view.melds(seat)) + view.concealed_kongs(seat)
    return waiting_chance(melds, len(view.river(seat)))


def danger(
    view: GameView, seat: int, tile: int, seen: Sequence[int], passed: Collection[int] = ()
) -> float:
    """The chance a waiting ``seat`` wins on ``tile``; ``seen`` = visible counts,
    ``passed`` = kinds discarded since ``seat``'s own last discard (it let them go)."""
    if tile in passed:
        return 0.0
    return tile_danger(
        tile,
        seen,
        own_discard=tile in view.river(seat),
        in_melds=any(tile in meld.tiles for meld in view.melds(seat)),
    )


def win_chance(option: Prospect, drawable: int, best_accept: int) -> float:
    """How often a hand at ``option``'s shanten wins, by tiles left to draw, scaled by
    its acceptance against the best option at the same shanten (``best_accept``). 0 on
    the last discard: nobody draws after it (R2)."""
    return estimated_win_chance(option.shanten, option.accept, drawable, best_accept)


def wait_value(view: GameView, counts: Sequence[int], seen: Sequence[int]) -> float:
    """A waiting 3n+1 hand: the unseen copies of its winning kinds, each weighted by
    how readily greedy opponents throw that kind (``WAIT_WEIGHT``)."""
    return estimated_wait_value(counts, seen, tile_values(view))


class DefensiveBot(GreedyBot):
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

    def discards(
        self, view: GameView, request: DecisionRequest, seen: Sequence[int]
    ) -> list[Prospect]:
        """Every legal discard ranked by efficiency, best first: the danger model prices
        them all."""
        allowed = {a.tile for a in request.legal_actions if a.kind is ActionKind.DISCARD}
        return ranked_discards(view, view.counts, allowed, seen)  # type: ignore[arg-type]

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
        return discard_value(win_chance(option, view.drawable, best_accept), risk)

    def threats(self, view: GameView) -> dict[int, float]:
        """Each opponent's chance of waiting, for those at ``MIN_THREAT`` or more."""
        others = ((view.seat + k) % 4 for k in (1, 2, 3))
        return {s: t for s in others if (t := threat(view, s)) >= MIN_THREAT}


BOT = DefensiveBot
"""The bot class this module offers (what loaders look for)."""

if __name__ == "__main__":
    from sdk.cli import run

    run(DefensiveBot)
