"""Defensive on crafted tables: it folds where the danger is real and pushes where not.

Expectations are reasoned from the tables in comments (see ``bots/defensive.py`` for the
model: value = win chance x gain - threat x danger x loss).
"""

from __future__ import annotations

from bots.defensive import DefensiveBot, danger, next_wait, threat
from bots.greedy import GreedyBot
from protocol.actions import DISCARD, PASS, Action, ActionKind
from protocol.analysis import shanten
from protocol.tiles import Tile, parse_tiles, tiles_to_counts
from tests.test_bots_greedy import table

# Three opponents, four melds each and nine discards: all very likely waiting. Two W
# are in their rivers. None of the melds or rivers touch the hands below (so every
# suited tile in them keeps unseen copies).
OPEN_MELDS = {
    1: ["pung:EEE", "pung:NNN", "chow:234m", "chow:345p"],
    2: ["pung:CCC", "pung:FFF", "chow:678s", "chow:678m"],
    3: ["pung:PPP", "pung:SSS", "chow:234s", "chow:567p"],
}
LATE_RIVERS = {
    1: "W 8m 8m 8m 1p 1p 1p 3p E",
    2: "W 1p 3p 3p 2s 2s 2s 6s N",
    3: "6s 6s 8s 8s 8s C F P S",
}
WAITING = "123m 456m 789p 345s WW 46p 5s"
"""123m 456m 789p 345s, the WW pair, 46p and a loose 5s: throwing 5s waits on 5p."""


def decide(bot: GreedyBot, hand: str, **kw: object) -> Action:
    view, request = table(hand, **kw)  # type: ignore[arg-type]
    return bot.choose(view, request)


def test_provably_safe_tiles() -> None:
    view, _ = table(WAITING, rivers=LATE_RIVERS, melds=OPEN_MELDS)
    seen = view.visible_counts()
    # W: two in hand, two in rivers. Nobody holds one, and an honor only pairs: no wait.
    assert all(danger(view, s, Tile.W, seen) == 0 for s in (1, 2, 3))
    # 5p: three unseen copies (one is in seat 3's 567p), and the 46p and 67p shapes are
    # open (34p is not: all four 3p are visible): dangerous.
    assert all(danger(view, s, Tile.P5, seen) > 0.03 for s in (1, 2, 3))
    assert all(threat(view, s) > 0.8 for s in (1, 2, 3))


def test_folds_on_a_dangerous_table() -> None:
    # A far hand: no set at all, six two-tile shapes and the WW pair (shanten 4), with
    # ten tiles left to draw. Its chance to win is nil, so it throws the one tile nobody
    # can win on: W. Greedy keeps the pair (breaking it raises shanten) and throws a
    # live suited tile.
    hand = "13m 57m 9m 24p 68p 9p 13s 57s 9s WW"
    assert shanten(hand) == 4
    kw = {"rivers": LATE_RIVERS, "melds": OPEN_MELDS, "wall_left": 26}
    assert decide(DefensiveBot(), hand, **kw) is DISCARD[Tile.W]
    assert decide(GreedyBot(), hand, **kw) is not DISCARD[Tile.W]


def test_last_discard_is_always_the_safest() -> None:
    # Throwing 5s would leave this hand waiting on 5p. But it holds the last tile
    # (wall_left 16 = drawable 0, R2): nobody draws after this discard, so waiting is
    # worth nothing and W, which nobody can win on, is the only sensible discard.
    kw = {"rivers": LATE_RIVERS, "melds": OPEN_MELDS, "wall_left": 16}
    assert decide(DefensiveBot(), WAITING, **kw) is DISCARD[Tile.W]


def test_pushes_on_a_quiet_table() -> None:
    # Mid-hand (40 drawable), each opponent has one meld and six discards (about one in
    # five waiting). The waiting hand wins often from here, so it keeps waiting: it
    # throws 5s, the only discard that leaves it waiting, rather than folding with W.
    melds = {1: ["chow:789m"], 2: ["pung:SSS"], 3: ["chow:789s"]}
    rivers = {1: "W 1m 9p 1s E N", 2: "W 9m 1p 9s C F", 3: "P 1m 9p 2s 8m 2p"}
    kw = {"rivers": rivers, "melds": melds, "wall_left": 56}
    assert decide(DefensiveBot(), WAITING, **kw) is DISCARD[Tile.S5]


def test_no_claim_that_only_adds_acceptance() -> None:
    # 123m 8m 1234p 678p 3456s 8s: one tile from waiting. Seat 3 throws 2p: chowing it
    # with 1p 3p (and throwing 8m) leaves the hand one tile from waiting as before, with
    # more unseen acceptance (21 against 13). Greedy claims; defensive passes, since a
    # claim that does not bring the hand closer spends two tiles of a concealed hand.
    hand = "123m 8m 1234p 678p 3456s 8s"
    kw = {"rivers": {3: "2p"}, "discard_by": 3}
    assert decide(GreedyBot(), hand, **kw).kind is ActionKind.CHOW
    assert decide(DefensiveBot(), hand, **kw) is PASS


def test_claims_that_bring_the_hand_closer() -> None:
    # The greedy test hand: pung EE brings it from one tile away to waiting. Both claim.
    hand = "123m 456m 789p 55s EE 79s C"
    kw = {"rivers": {2: "E"}, "discard_by": 2}
    assert decide(DefensiveBot(), hand, **kw) == decide(GreedyBot(), hand, **kw)
    assert decide(DefensiveBot(), hand, **kw).kind is ActionKind.PUNG


def test_waits_on_what_greedy_players_throw() -> None:
    # 123m 456m 789p 234s 567s, with N and 5p left: throwing either waits on a single
    # tile with 3 unseen copies. Greedy throws N (its least useful kind); defensive
    # keeps it, since greedy opponents let go of a useless wind long before a 5p.
    hand = "123m 456m 789p 234s 567s N 5p"
    assert decide(GreedyBot(), hand) is DISCARD[Tile.N]
    assert decide(DefensiveBot(), hand) is DISCARD[Tile.P5]


def test_next_wait_looks_one_draw_ahead() -> None:
    # 45p 1m 9s (one set and a pair wanted): a 3p or 6p (4 unseen each) makes 345p or
    # 456p, then a single-tile wait on 1m or 9s (3 unseen); a 1m or 9s (3 unseen each)
    # makes the pair, then the 45p wait on 3p and 6p (8 unseen).
    counts = tiles_to_counts(parse_tiles("45p 1m 9s"))
    assert next_wait(counts, counts) == 4 * 3 + 4 * 3 + 3 * 8 + 3 * 8
