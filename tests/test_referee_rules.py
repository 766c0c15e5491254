"""Unit tests of the referee's pieces: wall (R1/R2), actions, events, the legal-action
function on crafted states (R2, R3, R5-R9), refusals, and the R17 defaults."""

from __future__ import annotations

import hashlib

import pytest

from protocol.actions import (
    ADDED_KONG,
    CHOW,
    CONCEALED_KONG,
    DISCARD,
    KONG,
    PASS,
    PUNG,
    WIN,
    Action,
    ActionKind,
    ActionParseError,
)
from protocol.defaults import NoDefaultError, default_action
from protocol.events import (
    ConcealedKong,
    Deal,
    Declined,
    Discard,
    Draw,
    EventParseError,
    HandEnd,
    HandResult,
    Win,
    event_from_json,
    project,
)
from protocol.hand_state import HandOverError, HandState, IllegalActionError, NotPendingError
from protocol.melds import Meld, MeldKind
from protocol.rules import legal_actions, why_illegal
from protocol.tiles import Tile, parse_tiles, tiles_to_counts
from protocol.view import CLAIMS, TURN_CLAIMED, TURN_DRAWN, OwnState, PublicState
from protocol.wall import (
    RESERVED,
    WallError,
    build_wall,
    check_wall,
    hand_seed,
    shuffled_wall,
)

# --- wall (R1, R2) -----------------------------------------------------------------------


def test_seeded_wall_is_a_deterministic_permutation() -> None:
    wall = shuffled_wall(12345)
    assert sorted(wall) == [k for k in range(34) for _ in range(4)]
    assert shuffled_wall(12345) == wall
    assert shuffled_wall(12346) != wall


def test_hand_seed_is_sha256_of_match_seed_and_hand() -> None:
    digest = hashlib.sha256(b"taimahjong/hand/99/3").digest()
    assert hand_seed(99, 3) == int.from_bytes(digest[:8], "big")
    assert len({hand_seed(1, k) for k in range(16)}) == 16


def test_check_wall_refuses_wrong_walls() -> None:
    with pytest.raises(WallError, match="136"):
        check_wall([0] * 135)
    wall = [k for k in range(34) for _ in range(4)]
    wall[4] = 0
    with pytest.raises(WallError, match="1m x5, 2m x3"):
        check_wall(wall)
    with pytest.raises(WallError):
        check_wall(["x"] * 136)  # type: ignore[list-item]


def test_deal_order_and_draw_ends_follow_r1() -> None:
    wall = tuple(shuffled_wall(5))
    hand = HandState.new(wall, dealer=1)
    deals = [e for e in hand.events if isinstance(e, Deal)]
    assert [(d.seat, d.count) for d in deals] == [(1, 17), (2, 16), (3, 16), (0, 16)]
    assert list(deals[0].tiles) == list(wall[:17])
    assert list(deals[1].tiles) == list(wall[17:33])
    assert list(deals[3].tiles) == list(wall[49:65])
    assert hand.drawn_tile(1) == wall[16]  # R10: the 17th tile is the dealer's "draw"
    assert hand.public.drawable == 136 - 65 - RESERVED
    hand.apply(1, Action.discard(wall[16]))
    while hand.public.phase == CLAIMS:  # pass any claim on it
        for seat in list(hand.pending()):
            hand.apply(seat, PASS)
    draw = hand.events[-1]
    assert isinstance(draw, Draw) and draw.seat == 2 and draw.tile == wall[65]


def test_build_wall_places_script_at_both_ends() -> None:
    texts = (
        "147m 258p 369s ESWNCFP 5m",
        "258m 369p 147s ESWNCFP",
        "369m 147p 258s ESWNCFP",
        "147m 258p 369s ESWNCFP",
    )
    hands = [parse_tiles(t) for t in texts]
    wall = build_wall(0, hands, parse_tiles("9m"), parse_tiles("1p 2p"))
    assert list(wall[:17]) == hands[0] and list(wall[49:65]) == hands[3]
    assert wall[65] == Tile.M9 and wall[-1] == Tile.P1 and wall[-2] == Tile.P2
    assert sorted(wall) == [k for k in range(34) for _ in range(4)]
    with pytest.raises(WallError, match="more than four of 5m"):
        build_wall(0, hands, parse_tiles("5m 5m 5m"))


# --- actions -----------------------------------------------------------------------------


def test_every_action_round_trips_text_and_json() -> None:
    actions = [WIN, KONG, PUNG, PASS, *DISCARD, *CONCEALED_KONG, *ADDED_KONG, *CHOW.values()]
    for action in actions:
        assert Action.parse(str(action)) is action
        assert Action.from_json(action.to_json()) is action
        assert Action(action.kind, action.tile, action.tiles) is action
    assert len(CHOW) == 3 * (8 + 7)


def test_action_forms_of_the_issue() -> None:
    assert DISCARD[Tile.M5].to_json() == {"type": "discard", "tile": "5m"}
    assert Action.chow(Tile.M6, Tile.M4).to_json() == {"type": "chow", "tiles": ["4m", "6m"]}
    assert PUNG.to_json() == {"type": "pung"} and KONG.to_json() == {"type": "kong"}
    assert CONCEALED_KONG[Tile.E].to_json() == {"type": "concealed_kong", "tile": "E"}
    assert ADDED_KONG[Tile.P5].to_json() == {"type": "added_kong", "tile": "5p"}
    assert WIN.to_json() == {"type": "win"} and PASS.to_json() == {"type": "pass"}


@pytest.mark.parametrize(
    "text",
    ["", "discard", "discard 0m", "pung 5m", "chow 4m", "chow 4m 7m", "chow E S", "hu", "win now"],
)
def test_bad_action_text_is_refused(text: str) -> None:
    with pytest.raises(ActionParseError):
        Action.parse(text)


def test_bad_action_json_is_refused() -> None:
    for data in (
        {"type": "discard"},
        {"type": "chow", "tile": "5m"},
        {"type": "pung", "tile": "5m"},
        [],
        {"type": 3},
    ):
        with pytest.raises(ActionParseError):
            Action.from_json(data)  # type: ignore[arg-type]


def test_actions_are_immutable() -> None:
    with pytest.raises(AttributeError):
        WIN.tile = Tile.E  # type: ignore[misc]


# --- events ------------------------------------------------------------------------------


def test_projection_hides_exactly_the_hidden_parts() -> None:
    tiles = tuple(Tile(k) for k in range(16))
    assert project(Deal(2, 16, tiles), 0) == Deal(2, 16, None)
    assert project(Deal(2, 16, tiles), 2) == Deal(2, 16, tiles)
    assert project(Draw(1, True, Tile.E), 3) == Draw(1, True, None)
    assert project(ConcealedKong(1, Tile.E), 0).to_json() == {"type": "concealed_kong", "seat": 1}
    assert project(Declined(1, Tile.E, True, False), 0) is None
    assert project(Declined(1, Tile.E, True, False), 1) is not None
    assert project(Discard(1, Tile.E), 0) == Discard(1, Tile.E)


def test_win_and_hand_end_round_trip() -> None:
    meld = Meld(MeldKind.PUNG, Tile.C, Tile.C, 3)
    win = Win(0, Tile.E, 3, (Tile.E, Tile.E), (meld, Meld(MeldKind.CONCEALED_KONG, Tile.N)))
    assert event_from_json(win.to_json()) == win
    end = HandEnd(HandResult("exhaustive_draw"), (0, 0, 0, 0))
    assert event_from_json(end.to_json()) == end


def test_bad_event_json_is_refused() -> None:
    for data in (
        {"type": "nothing"},
        {"type": "discard", "seat": 1},
        {"type": "draw", "seat": 1, "replacement": False, "tile": "0z"},
    ):
        with pytest.raises(EventParseError):
            event_from_json(data)


# --- the legal-action function on crafted states ----------------------------------------


def state(seat: int, hand: str, **public) -> tuple[OwnState, PublicState]:
    own = OwnState(seat, tiles_to_counts(parse_tiles(hand)))
    pub = PublicState(wall_left=60, **public)
    pub.concealed[seat] = sum(own.counts)
    return own, pub


def strs(actions: tuple[Action, ...]) -> list[str]:
    return [str(a) for a in actions]


def test_r6_chow_needs_a_discard_left_pung_does_not_lose_it() -> None:
    # 4p 6p 5p 5p: chowing 5p with 4p 6p would leave only 5p 5p, both banned (R6);
    # the pung leaves 4p 6p. (Such a hand always wins on the tile too.)
    own, pub = state(1, "46p 55p", phase=CLAIMS, turn=0, pending_tile=Tile.P5)
    assert strs(legal_actions(own, pub)) == ["win", "pung", "pass"]
    assert "R6" in why_illegal(own, pub, Action.chow(Tile.P4, Tile.P6))


def test_r3_claims_need_four_drawable() -> None:
    own, pub = state(2, "555p 1234m 789s 11p 999s", phase=CLAIMS, turn=0, pending_tile=Tile.P5)
    assert strs(legal_actions(own, pub)) == ["kong", "pung", "pass"]
    pub.wall_left = RESERVED + 3
    assert legal_actions(own, pub) == ()
    assert "R3" in why_illegal(own, pub, PUNG)
    pub.wall_left = RESERVED
    assert "R2" in why_illegal(own, pub, PUNG)


def test_r5_chow_only_by_next_seat_and_r8_kong_not_by_next_seat() -> None:
    own, pub = state(2, "46p 1234m 789s 11p 999s E", phase=CLAIMS, turn=0, pending_tile=Tile.P5)
    assert legal_actions(own, pub) == ()
    assert "R5" in why_illegal(own, pub, Action.chow(Tile.P4, Tile.P6))
    own, pub = state(1, "555p 1234m 789s 11p 99s", phase=CLAIMS, turn=0, pending_tile=Tile.P5)
    assert strs(legal_actions(own, pub)) == ["pung", "pass"]
    assert "R8" in why_illegal(own, pub, KONG)


def test_r7_chow_ban_applies_to_own_last_discard_only() -> None:
    own, pub = state(1, "46p 1234m 789s 11p 999s", phase=CLAIMS, turn=0, pending_tile=Tile.P5)
    assert strs(legal_actions(own, pub)) == ["chow 4p 6p", "pass"]
    pub.last_discard[1] = Tile.P5
    assert legal_actions(own, pub) == ()
    assert "R7" in why_illegal(own, pub, Action.chow(Tile.P4, Tile.P6))
    pub.last_discard[1], pub.last_discard[0] = Tile.P6, Tile.P5
    assert strs(legal_actions(own, pub)) == ["chow 4p 6p", "pass"]


def test_r9_passed_pung_blocks_pung_not_kong() -> None:
    own, pub = state(2, "555p 1234m 789s 11p 999s", phase=CLAIMS, turn=0, pending_tile=Tile.P5)
    own.passed_pung.add(Tile.P5)
    assert strs(legal_actions(own, pub)) == ["kong", "pass"]
    assert "R9" in why_illegal(own, pub, PUNG)


def test_r9_flags_block_self_draw_only() -> None:
    own, pub = state(0, "123m 456m 789m 123p 456p 99s", phase=TURN_DRAWN, turn=0)
    assert strs(legal_actions(own, pub))[0] == "win"
    own.passed_win = True
    assert "win" not in strs(legal_actions(own, pub))
    assert "R9" in why_illegal(own, pub, WIN)
    own.passed_win, own.kong_block = False, True
    assert "win" not in strs(legal_actions(own, pub))
    # ...but a discard win stays allowed (R9).
    own, pub = state(1, "123m 456m 789m 123p 456p 9s", phase=CLAIMS, turn=0, pending_tile=Tile.S9)
    own.passed_win = own.kong_block = True
    assert strs(legal_actions(own, pub)) == ["win", "pass"]


def test_r2_r8_kongs_on_own_turn() -> None:
    own, pub = state(3, "1111m 55p 789p 123s E", phase=TURN_DRAWN, turn=3)
    pub.melds[3].append(Meld(MeldKind.PUNG, Tile.P5, Tile.P5, 1))
    listed = strs(legal_actions(own, pub))
    assert listed[:2] == ["concealed_kong 1m", "added_kong 5p"]
    pub.wall_left = RESERVED  # the last tile: no concealed kong, added kong still allowed
    listed = strs(legal_actions(own, pub))
    assert "concealed_kong 1m" not in listed and listed[0] == "added_kong 5p"
    assert "R2" in why_illegal(own, pub, CONCEALED_KONG[Tile.M1])
    pub.wall_left, pub.phase, pub.banned = 60, TURN_CLAIMED, Tile.P5  # right after a claim
    listed = strs(legal_actions(own, pub))
    assert not any("kong" in a for a in listed) and "discard 5p" not in listed
    assert listed == [f"discard {t}" for t in ("1m", "7p", "8p", "9p", "1s", "2s", "3s", "E")]


def test_legal_lists_are_in_the_stable_order() -> None:
    own, pub = state(1, "55p 46p 34p 1234m 78s", phase=CLAIMS, turn=0, pending_tile=Tile.P5)
    listed = legal_actions(own, pub)
    assert list(listed) == sorted(listed, key=lambda a: a.sort_key)
    assert strs(listed) == ["pung", "chow 3p 4p", "chow 4p 6p", "pass"]


# --- refusals ----------------------------------------------------------------------------


def test_refusals_name_the_reason_and_change_nothing() -> None:
    hand = HandState.new(seed=3, dealer=0)
    before = (len(hand.events), dict(hand.pending()))
    with pytest.raises(NotPendingError) as info:
        hand.apply(1, DISCARD[0])
    assert "seat 0's turn" in info.value.reason and info.value.legal == ()
    with pytest.raises(IllegalActionError) as info:
        hand.apply(0, PUNG)
    assert info.value.legal == hand.pending()[0] and "another seat's discard" in info.value.reason
    with pytest.raises(NotPendingError):
        hand.apply(7, PASS)
    assert (len(hand.events), dict(hand.pending())) == before


def test_hand_over_refuses_everything() -> None:
    wall = build_wall(
        0,
        [parse_tiles("123m 456m 789m 234p 567s 9s 9s")]
        + [
            parse_tiles(h)
            for h in ("147m 258p 369s ESWNCFP", "258m 369p 147s ESWNCFP", "369m 147p 258s ESWNCFP")
        ],
    )
    hand = HandState.new(wall)
    hand.apply(0, WIN)
    assert hand.is_over and hand.pending() == {}
    with pytest.raises(HandOverError):
        hand.apply(0, DISCARD[0])


# --- R17 defaults ------------------------------------------------------------------------


def test_r17_defaults() -> None:
    assert default_action((WIN, PUNG, Action.chow(0, 1), PASS), None) is PASS
    turn = (WIN, CONCEALED_KONG[0], DISCARD[0], DISCARD[9], DISCARD[27])
    assert default_action(turn, Tile.M1) is DISCARD[0]  # the tile just drawn
    assert default_action(turn, None) is DISCARD[27]  # highest in tile order
    assert default_action((DISCARD[3], DISCARD[5]), Tile.M5) is DISCARD[5]  # drawn not legal
    with pytest.raises(NoDefaultError):
        default_action((WIN,), Tile.M1)


def test_r17_default_is_always_legal_in_play() -> None:
    hand = HandState.new(seed=8)
    while not hand.is_over:
        for seat, legal in list(hand.pending().items()):
            action = default_action(legal, hand.drawn_tile(seat))
            assert action.kind in (ActionKind.PASS, ActionKind.DISCARD)
            hand.apply(seat, action)
    assert hand.result is not None and hand.result.outcome != "win"
