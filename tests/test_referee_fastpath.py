"""The referee's fast paths against plain reference versions of the same rules.

``claim_window`` and ``turn_actions`` read the group keys and tables instead of the
counts (see protocol/rules.py); here they are compared, at every decision of seeded
random hands, with the straightforward formulation they replaced. Also: the seeded wall
order, and the shared melds being equal to fresh ones.
"""

from __future__ import annotations

import random

from protocol.actions import ADDED_KONG, CHOW, CONCEALED_KONG, DISCARD, KONG, PASS, PUNG, WIN
from protocol.analysis import is_winning_counts
from protocol.hand_state import HandState
from protocol.melds import Meld, MeldKind
from protocol.rules import claim_actions, claim_window, turn_actions
from protocol.view import CLAIMS, TURN_CLAIMED, TURN_DRAWN
from protocol.wall import RESERVED


def _ref_turn(own, pub):
    counts = own.counts
    if pub.phase == TURN_CLAIMED:
        return tuple(DISCARD[k] for k in range(34) if counts[k] and k != pub.banned)
    out = []
    if not own.passed_win and not own.kong_block and is_winning_counts(list(counts)):
        out.append(WIN)
    if pub.wall_left > RESERVED:
        out += [CONCEALED_KONG[k] for k in range(34) if counts[k] == 4]
    pungs = sorted(m.tile for m in pub.melds[own.seat] if m.kind is MeldKind.PUNG)
    out += [ADDED_KONG[k] for k in pungs if counts[k]]
    out += [DISCARD[k] for k in range(34) if counts[k]]
    return tuple(out)


def _ref_claim(own, pub):
    tile, seat, counts = pub.pending_tile, own.seat, own.counts
    held = counts[tile]
    is_next = seat == (pub.turn + 1) % 4
    with_tile = list(counts)
    with_tile[tile] += 1
    win = is_winning_counts(with_tile)
    if (held < 2 and not (is_next and tile < 27)) or pub.wall_left - RESERVED < 4:
        return (WIN, PASS) if win else ()
    out = [WIN] if win else []
    if held >= 3 and not is_next:
        out.append(KONG)
    others = pub.concealed[seat] - held
    if held >= 2 and tile not in own.passed_pung and others > 0:
        out.append(PUNG)
    if is_next and tile < 27 and pub.last_discard[seat] != tile and others > 2:
        r = tile % 9
        for lo, ok in ((tile - 2, r >= 2), (tile - 1, 1 <= r <= 7), (tile + 1, r <= 6)):
            pair = (lo, lo + 1) if lo != tile - 1 else (tile - 1, tile + 1)
            if ok and counts[pair[0]] and counts[pair[1]]:
                out.append(CHOW[pair])
    return (*out, PASS) if out else ()


def test_fast_paths_match_the_reference_rules() -> None:
    rng = random.Random(7)
    checked_turns = checked_claims = 0
    for seed in range(1, 121):
        hand = HandState.new(seed=seed, dealer=seed % 4)
        while not hand.is_over:
            pub = hand.public
            if pub.phase == CLAIMS:
                others = [(pub.turn + i) % 4 for i in (1, 2, 3)]
                window = claim_window(pub, [hand.owns[s] for s in others])
                expected = {s: _ref_claim(hand.owns[s], pub) for s in others}
                assert list(window.items()) == [(s, a) for s, a in expected.items() if a]
                for s in others:
                    assert claim_actions(hand.owns[s], pub) == expected[s]
                checked_claims += 1
            elif pub.phase in (TURN_DRAWN, TURN_CLAIMED):
                own = hand.owns[pub.turn]
                assert turn_actions(own, pub) == _ref_turn(own, pub)
                checked_turns += 1
            for seat, legal in list(hand.pending().items()):
                hand.apply(seat, legal[rng.randrange(len(legal))])
    assert checked_turns > 5000 and checked_claims > 1000


def test_shared_melds_equal_fresh_ones() -> None:
    hand = HandState.new(seed=3, dealer=0)
    rng = random.Random(3)
    while not hand.is_over:
        for seat, legal in list(hand.pending().items()):
            hand.apply(seat, legal[rng.randrange(len(legal))])
    for melds in hand.public.melds:
        for m in melds:
            assert m == Meld(m.kind, m.tile, m.called, m.source)


def test_seeded_wall_is_the_standard_shuffle() -> None:
    from protocol.wall import _ALL_TILES, shuffled_wall

    for seed in (0, 1, 2**40, 12345):
        tiles = list(_ALL_TILES)
        random.Random(seed).shuffle(tiles)
        assert shuffled_wall(seed) == tuple(tiles)
