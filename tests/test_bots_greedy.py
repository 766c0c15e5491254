"""Greedy on crafted hands: the discard and the claims follow from the hand itself.

Each expectation is reasoned in a comment from the hand, not read off the bot.
"""

from __future__ import annotations

from bots.greedy import GreedyBot
from protocol.actions import DISCARD, PASS, PUNG, Action
from protocol.melds import Meld
from protocol.tiles import Tile, parse_tiles, tiles_to_counts
from protocol.view import CLAIMS, TURN_DRAWN, SeatView
from sdk.bot import DecisionRequest
from sdk.view import GameView


def table(
    hand: str,
    *,
    rivers: dict[int, str] | None = None,
    melds: dict[int, list[str]] | None = None,
    wall_left: int = 60,
    discard_by: int | None = None,
) -> tuple[GameView, DecisionRequest]:
    """Seat 0 (the dealer: seat and round wind E) holding ``hand``, on its own turn, or
    answering ``discard_by``'s discard (the last tile of that seat's river)."""
    view = SeatView(0)
    pub, own = view.public, view.own
    own.counts = tiles_to_counts(parse_tiles(hand))
    pub.concealed = [16, 16, 16, 16]
    pub.concealed[0] = sum(own.counts)
    pub.first_round = False
    for seat, text in (rivers or {}).items():
        pub.rivers[seat] = [int(t) for t in parse_tiles(text, check_counts=False)]
        pub.discarded[seat] = True
    for seat, texts in (melds or {}).items():
        pub.melds[seat] = [Meld.parse(m) for m in texts]
        pub.concealed[seat] -= 3 * len(texts)
    for seat in range(4):
        for t in pub.rivers[seat]:
            pub.visible[t] += 1
        for meld in pub.melds[seat]:
            for t in meld.tiles:
                pub.visible[t] += 1
    assert all(v + c <= 4 for v, c in zip(pub.visible, own.counts, strict=True))
    pub.wall_left = wall_left
    if discard_by is None:
        pub.phase, pub.turn = TURN_DRAWN, 0
    else:
        pub.phase, pub.turn = CLAIMS, discard_by
        pub.pending_tile = pub.last_discard[discard_by] = pub.rivers[discard_by][-1]
    legal = view.legal_actions()
    assert legal, "the crafted state must ask seat 0 for a decision"
    return GameView(view), DecisionRequest(legal, deadline=float("inf"))


def choose(hand: str, **kw: object) -> Action:
    view, request = table(hand, **kw)  # type: ignore[arg-type]
    return GreedyBot().choose(view, request)


def test_discard_that_makes_the_hand_wait() -> None:
    # Four sets (123m 456m 789p 234s), the pair 11s, and 45s 7s. Throwing 7s waits on
    # 3s/6s (3 + 4 unseen = 7 tiles). Throwing 4s waits on 6s only (57s: 4 tiles); 1s
    # is a terminal but throwing it leaves no pair (not waiting). So 7s, a middle tile,
    # beats the terminal on shanten and the other waiting discard on acceptance.
    assert choose("123m 456m 789p 234s 11s 45s 7s") is DISCARD[Tile.S7]


def test_ties_go_to_the_useless_honor() -> None:
    # 123m 456m 789p 234s, pair 55s, 6s, and single E and N. Keeping either honor is
    # symmetric (same shanten, same unseen copies), but seat 0 is the dealer in an East
    # round: E would score as seat and round wind, N never can. Throw N, though E comes
    # first in tile order.
    assert choose("123m 456m 789p 234s 55s 6s E N") is DISCARD[Tile.N]


def test_isolated_honor_goes_first() -> None:
    # 123m 456m 789p 234s, pair 55s, 68s and a lone C: throwing C waits on 7s; anything
    # else leaves C and the hand one tile further.
    assert choose("123m 456m 789p 234s 55s 68s C") is DISCARD[Tile.C]


def test_pung_that_brings_the_hand_to_waiting() -> None:
    # 16 tiles: 123m 456m 789p, pairs 55s and EE, 79s and C: one tile from waiting
    # (shanten 1). Seat 2 (across, so no chow) throws E: pung EE, then throw C leaves
    # 123m 456m 789p 55s 79s + the E pung, waiting on 8s (shanten 0). Claim it.
    hand = "123m 456m 789p 55s EE 79s C"
    assert choose(hand, rivers={2: "E"}, discard_by=2) is PUNG


def test_no_pung_that_breaks_a_better_wait() -> None:
    # 16 tiles: 123m 456m 789p 234s 55s 79s wait on 8s (4 unseen). Seat 2 throws 5s:
    # pung 55s, and the hand must throw 7s or 9s, waiting on a single 9s or 7s (3
    # unseen). Same shanten, less acceptance: pass.
    hand = "123m 456m 789p 234s 55s 79s"
    assert choose(hand, rivers={2: "5s"}, discard_by=2) is PASS
