"""Every item of the tai table: a hand where it holds and a near miss where it does not.

Expected items and totals are worked out by hand from the rules' 台數表 and rulings
R10-R14 (docs/RULES.md). Unless a test says otherwise the winner is seat 1 (seat wind
南), the dealer seat 0, the round wind 東, and the win is on seat 2's discard.
"""

from __future__ import annotations

import pytest

from protocol.score import build_situation
from protocol.scoring import (
    TAI_TABLE,
    InvalidSituationError,
    ScoreResult,
    score_win,
)

SELF = None  # ``by=SELF``: a self-draw win


def win(
    hand: str,
    tile: str,
    *,
    by: int | None = 2,
    melds: str = "",
    winner: int = 1,
    dealer: int = 0,
    round_wind: str = "E",
    **flags: bool,
) -> ScoreResult:
    situation = build_situation(
        hand,
        tile,
        discarder=by,
        melds=melds.split(),
        winner=winner,
        dealer=dealer,
        round_wind=round_wind,
        **flags,
    )
    return score_win(situation)


def tai(result: ScoreResult) -> dict[str, int]:
    """The items as {id: tai}; also checks the total is their sum."""
    items = {i.id: i.tai for i in result.items}
    assert len(items) == len(result.items), "an item id appears twice"
    assert result.total_tai == sum(items.values())
    return items


# Reference hands. PLAIN: concealed, five chows, no terminal or honor, two-sided wait on
# 5s/8s: 門清 1 + 平胡 2 + 斷么九 1 on a discard. VANILLA: a declared chow, an honor
# pair and a two-sided 3s/6s wait: no item at all (a 0-tai win is legal).
PLAIN = "234m 567m 345p 456s 678s 55p"
VANILLA = "234m 567m 345p 456s EE"
VANILLA_MELD = "chow:789p"


def vanilla(**kw: object) -> ScoreResult:
    return win(VANILLA, "6s", melds=VANILLA_MELD, **kw)  # type: ignore[arg-type]


def test_table_matches_the_rules() -> None:
    by_name = {spec.name: spec.tai for spec in TAI_TABLE}
    assert by_name["門清自摸"] == 3
    assert by_name["大四喜"] == 16
    assert by_name["五暗刻"] == 8
    assert by_name["明槓、加槓"] == 1
    assert len(TAI_TABLE) == 40
    assert len({spec.id for spec in TAI_TABLE}) == 40


def test_vanilla_hand_scores_zero() -> None:
    result = vanilla()
    assert tai(result) == {}
    assert result.total_tai == 0


# --- 莊家 (R13) ----------------------------------------------------------------------


def test_dealer_when_the_dealer_wins() -> None:
    assert tai(vanilla(winner=0, dealer=0)) == {"dealer": 1}


def test_dealer_when_the_dealer_deals_in() -> None:
    assert tai(vanilla(winner=1, dealer=0, by=0)) == {"dealer": 1}


def test_no_dealer_item_between_non_dealers() -> None:
    assert "dealer" not in tai(vanilla(winner=1, dealer=0, by=2))
    assert "dealer" not in tai(vanilla(winner=1, dealer=0, by=SELF))


# --- 門清, 自摸, 門清自摸 (R13, R14) ------------------------------------------------


def test_concealed_hand_on_a_discard() -> None:
    assert tai(win(PLAIN, "8s")) == {"concealed_hand": 1, "all_chows": 2, "all_simples": 1}


def test_honor_pung_breaks_concealed_hand_r11_2() -> None:
    # EEE from the wall is recorded as an exposed pung (R11.2); E is the round wind.
    result = win("234m 567m 345p 456s EEE 55p", "6s")
    assert tai(result) == {"round_wind_pung": 1}


def test_concealed_kong_keeps_concealed_hand() -> None:
    result = win("567m 345p 456s 678s 55p", "8s", melds="concealed_kong:1111m")
    # The kong is a set but not a chow: no 平胡.
    assert tai(result) == {"concealed_hand": 1, "concealed_kong": 2}


def test_declared_chow_breaks_concealed_hand() -> None:
    assert "concealed_hand" not in tai(vanilla())


def test_self_draw_without_concealed_hand() -> None:
    assert tai(vanilla(by=SELF)) == {"self_draw": 1}


def test_concealed_self_draw_replaces_both_r14() -> None:
    items = tai(win(PLAIN, "8s", by=SELF))
    assert items == {"concealed_self_draw": 3, "all_simples": 1}


# --- 海底撈月, 河底撈魚, 槓上開花 ------------------------------------------------------


def test_last_tile_self_draw() -> None:
    assert tai(vanilla(by=SELF, last_tile=True)) == {"self_draw": 1, "last_tile_draw": 1}
    assert "last_tile_draw" not in tai(vanilla(by=SELF))


def test_last_discard_win() -> None:
    assert tai(vanilla(last_discard=True)) == {"last_discard_win": 1}
    assert "last_discard_win" not in tai(vanilla())


def test_last_tile_flag_needs_a_self_draw_r2() -> None:
    with pytest.raises(InvalidSituationError):
        vanilla(last_tile=True)
    with pytest.raises(InvalidSituationError):
        vanilla(by=SELF, last_discard=True)


def test_kong_replacement_win() -> None:
    result = win(VANILLA, "6s", melds="added_kong:9999p", by=SELF, kong_replacement=True)
    assert tai(result) == {"self_draw": 1, "kong_replacement_win": 1, "exposed_kong": 1}
    result = win(VANILLA, "6s", melds="added_kong:9999p", by=SELF)
    assert "kong_replacement_win" not in tai(result)


def test_no_kong_replacement_win_after_an_exposed_kong_r9() -> None:
    with pytest.raises(InvalidSituationError):
        win(VANILLA, "6s", melds="kong:9999p", by=SELF, kong_replacement=True)


# --- 三元牌, 門風刻, 圈風刻 --------------------------------------------------------------


def test_dragon_pung_counts_each_set() -> None:
    one = win("234m 567m 456s CCC EE", "6s", melds="chow:789p")
    assert tai(one) == {"dragon_pung": 1}
    two = win("234m 567m CCC FFF EE", "4m", melds="chow:789p")
    assert tai(two) == {"dragon_pung": 2}
    assert [i.count for i in two.items] == [2]


def test_dragon_pair_is_not_a_dragon_pung() -> None:
    assert "dragon_pung" not in tai(win("234m 567m 345p 456s CC", "6s", melds="chow:789p"))


def test_seat_wind_pung() -> None:
    # Seat 1 with dealer 0 sits South.
    assert tai(win("234m 567m 456s SSS 99p", "6s", melds="chow:789p")) == {"seat_wind_pung": 1}


def test_round_wind_pung() -> None:
    assert tai(win("234m 567m 456s EEE 99p", "6s", melds="chow:789p")) == {"round_wind_pung": 1}


def test_seat_and_round_wind_both_when_equal_r13() -> None:
    result = win("234m 567m 456s SSS 99p", "6s", melds="chow:789p", round_wind="S")
    assert tai(result) == {"seat_wind_pung": 1, "round_wind_pung": 1}


def test_other_wind_pung_scores_nothing() -> None:
    assert tai(win("234m 567m 456s WWW 99p", "6s", melds="chow:789p")) == {}


# --- 斷么九 ---------------------------------------------------------------------------


def test_all_simples_near_misses() -> None:
    assert "all_simples" in tai(win(PLAIN, "8s"))
    assert "all_simples" not in tai(win("123m 567m 345p 456s 678s 55p", "8s"))
    assert "all_simples" not in tai(win("234m 567m 345p 456s 678s EE", "8s"))


# --- 一盃口, 二盃口 (R13: only with the 門清 item) ---------------------------------------


def test_pure_double_chow() -> None:
    result = win("223344m 567p 55p 345678s", "8s")
    assert tai(result) == {
        "concealed_hand": 1,
        "pure_double_chow": 1,
        "all_chows": 2,
        "all_simples": 1,
    }


def test_pure_double_chow_not_on_self_draw_r14() -> None:
    result = win("223344m 567p 55p 345678s", "8s", by=SELF)
    assert tai(result) == {"concealed_self_draw": 3, "all_simples": 1}


def test_pure_double_chow_not_with_a_declared_chow() -> None:
    result = win("234m 567p 55p 345678s", "8s", melds="chow:234m")
    assert tai(result) == {"all_chows": 2, "all_simples": 1}


def test_twice_pure_double_chow_replaces_pure_double_chow() -> None:
    result = win("223344m 556677p 345s 88s", "3s")
    assert tai(result) == {
        "concealed_hand": 1,
        "twice_pure_double_chow": 2,
        "all_chows": 2,
        "all_simples": 1,
    }


# --- 三暗刻, 四暗刻, 五暗刻 (R11.4, R13, R14) ----------------------------------------------


def test_three_concealed_pungs() -> None:
    result = win("111m 567m 555p 88p 234s 999s", "2s")
    assert tai(result) == {"concealed_hand": 1, "three_concealed_pungs": 2}


def test_pung_completed_by_the_discard_is_not_concealed_r11_4() -> None:
    # The 5p discard completes 555p: two concealed pungs left. 門清 still holds (R13).
    result = win("111m 567m 555p 88p 234s 999s", "5p")
    assert tai(result) == {"concealed_hand": 1}


def test_self_drawn_pung_stays_concealed_r11_4() -> None:
    result = win("111m 567m 555p 88p 234s 999s", "5p", by=SELF)
    assert tai(result) == {"concealed_self_draw": 3, "three_concealed_pungs": 2}


def test_four_concealed_pungs_keeps_only_the_highest_r14() -> None:
    # 57m waits on 6m alone: 獨聽.
    result = win("111m 567m 555p 88p 222s 999s", "6m")
    assert tai(result) == {"concealed_hand": 1, "four_concealed_pungs": 6, "single_wait": 1}


def test_five_concealed_pungs() -> None:
    result = win("111m 777m 555p 88p 222s 999s", "8p", by=SELF)
    assert tai(result) == {
        "concealed_self_draw": 3,
        "single_wait": 1,
        "all_pungs": 4,
        "five_concealed_pungs": 8,
    }


def test_honor_pungs_are_not_concealed_pungs_r11_2() -> None:
    # EEE is exposed by R11.2 (E is neither the seat nor the round wind here): two
    # concealed pungs only, and no 門清.
    result = win("111m 555p EEE 234s 567s 88p", "2s", round_wind="S")
    assert tai(result) == {}


def test_concealed_kongs_count_as_concealed_pungs() -> None:
    result = win("111m 567m 88p 234s", "2s", melds="concealed_kong:5555p concealed_kong:9999s")
    assert tai(result) == {
        "concealed_hand": 1,
        "three_concealed_pungs": 2,
        "concealed_kong": 4,
    }


def test_honor_concealed_kong_stays_concealed_r11_1() -> None:
    """A declared concealed kong of an honor is a set as declared (R11.1): R11.2 records
    as exposed only an honor kind held three times in the hand. So 門清 holds and the kong
    counts toward 三暗刻 (R13); the same dragons held as CCC in the hand break both."""
    kong = win("111m 555p 345s 678s 88p", "6s", melds="concealed_kong:CCCC")
    assert tai(kong) == {
        "concealed_hand": 1,
        "dragon_pung": 1,
        "three_concealed_pungs": 2,
        "concealed_kong": 2,
    }
    assert tai(win("111m 555p 345s 678s 88p CCC", "6s")) == {"dragon_pung": 1}


# --- 全求 -----------------------------------------------------------------------------


CLAIMED = "chow:234m pung:555p chow:678s chow:345p pung:WWW"


def test_all_claimed_stacks_with_single_wait_r14() -> None:
    assert tai(win("9s", "9s", melds=CLAIMED)) == {"all_claimed": 4, "single_wait": 1}


def test_all_claimed_needs_a_discard_win() -> None:
    assert tai(win("9s", "9s", melds=CLAIMED, by=SELF)) == {"self_draw": 1, "single_wait": 1}


def test_all_claimed_not_with_a_concealed_kong() -> None:
    melds = "chow:234m concealed_kong:5555p chow:678s chow:123p pung:WWW"
    assert tai(win("9s", "9s", melds=melds)) == {"single_wait": 1, "concealed_kong": 2}


# --- 平胡, 獨聽 (R12, R13) ----------------------------------------------------------------


def test_all_chows_not_with_a_single_wait_r13() -> None:
    # 12m waits on 3m only.
    assert tai(win("123m 567m 345p 456s 678s 55p", "3m")) == {
        "concealed_hand": 1,
        "single_wait": 1,
    }


def test_all_chows_not_with_an_honor_pair() -> None:
    assert tai(win("234m 567m 345p 456s 678s EE", "8s")) == {"concealed_hand": 1}


def test_all_chows_not_on_self_draw() -> None:
    assert "all_chows" not in tai(win(PLAIN, "8s", by=SELF))


def test_all_chows_allows_declared_chows_r13() -> None:
    assert tai(win(VANILLA.replace("EE", "99s"), "6s", melds=VANILLA_MELD)) == {"all_chows": 2}


def test_exhausted_kind_makes_a_two_sided_shape_a_single_wait_r12() -> None:
    # 1234444m looks like a 1m/4m wait, but all four 4m are held: only 1m wins.
    result = win("1234444m 567p 345s 678s", "1m")
    assert tai(result) == {"concealed_hand": 1, "single_wait": 1}


def test_kind_exhausted_by_own_meld_is_not_a_wait_r12() -> None:
    # 34m waits on 2m/5m, but the player's own kong holds all four 5m: only 2m wins.
    result = win("34m 567p 99p 345s", "2m", melds="kong:5555m chow:678s")
    assert tai(result) == {"single_wait": 1, "exposed_kong": 1}


def test_single_looking_wait_with_three_waits_r12() -> None:
    # 4445m waits on 3m, 5m and 6m.
    result = win("4445m 567p 345s 678s 234p", "5m")
    assert tai(result) == {"concealed_hand": 1, "all_simples": 1}


# --- 混帶么, 純帶么 -------------------------------------------------------------------------


def test_mixed_outside_hand() -> None:
    assert tai(win("123m 789m 789p 123s WWW 99s", "W")) == {"mixed_outside_hand": 2}


def test_mixed_outside_hand_near_miss() -> None:
    assert tai(win("123m 789m 789p 234s WWW 99s", "W")) == {}


def test_pure_outside_hand() -> None:
    result = win("123m 789m 123p 999p 789s 11s", "1s")
    assert tai(result) == {"concealed_hand": 1, "single_wait": 1, "pure_outside_hand": 4}


# --- 三色同順, 一條龍 (2, or 4 with the 門清 item), 三色同刻 -------------------------------


def test_mixed_triple_chow_doubled_with_concealed_hand() -> None:
    result = win("234m 567m 234p 55p 234s 678s", "8s")
    assert tai(result) == {
        "concealed_hand": 1,
        "all_chows": 2,
        "all_simples": 1,
        "mixed_triple_chow": 4,
    }


def test_mixed_triple_chow_not_doubled_on_self_draw_r14() -> None:
    result = win("234m 567m 234p 55p 234s 678s", "8s", by=SELF)
    assert tai(result) == {"concealed_self_draw": 3, "all_simples": 1, "mixed_triple_chow": 2}


def test_mixed_triple_chow_open() -> None:
    result = win("234m 234p 55p 234s 678s", "8s", melds="chow:567m")
    assert tai(result) == {"all_chows": 2, "all_simples": 1, "mixed_triple_chow": 2}


def test_mixed_triple_chow_near_miss() -> None:
    result = win("234m 567m 234p 55p 345s 678s", "8s")
    assert "mixed_triple_chow" not in tai(result)


def test_pure_straight() -> None:
    result = win("123m 456m 789m 234p 567s 99s", "2p")
    assert tai(result) == {"concealed_hand": 1, "all_chows": 2, "pure_straight": 4}
    result = win("123m 456m 789m 234p 567s 99s", "2p", by=SELF)
    assert tai(result) == {"concealed_self_draw": 3, "pure_straight": 2}


def test_pure_straight_near_miss() -> None:
    result = win("123m 456m 789p 234p 567s 99s", "2p")
    assert "pure_straight" not in tai(result)


def test_triple_pung() -> None:
    result = win("222m 345m 222p 678p 222s 99s", "6p")
    assert tai(result) == {
        "concealed_hand": 1,
        "three_concealed_pungs": 2,
        "triple_pung": 2,
    }


def test_triple_pung_near_miss() -> None:
    result = win("222m 345m 222p 678p 333s 99s", "6p")
    assert "triple_pung" not in tai(result)


# --- 暗槓, 明槓、加槓, 四槓子 ------------------------------------------------------------------


def test_concealed_kong_each() -> None:
    one = win(VANILLA, "6s", melds="concealed_kong:9999p")
    assert tai(one) == {"concealed_hand": 1, "concealed_kong": 2}


def test_exposed_and_added_kongs_each() -> None:
    result = win("234m 567m 456s EE", "6s", melds="kong:9999p added_kong:1111s")
    assert tai(result) == {"exposed_kong": 2}
    assert [(i.id, i.count) for i in result.items] == [("exposed_kong", 2)]


def test_four_kongs() -> None:
    melds = "kong:2222m concealed_kong:5555p added_kong:7777s kong:3333s"
    result = win("678m 44p", "4p", melds=melds)
    assert tai(result) == {
        "all_simples": 1,
        "single_wait": 1,
        "concealed_kong": 2,
        "exposed_kong": 3,
        "four_kongs": 6,
    }


def test_three_kongs_are_not_four_kongs() -> None:
    melds = "kong:2222m concealed_kong:5555p added_kong:7777s chow:345s"
    assert "four_kongs" not in tai(win("678m 44p", "4p", melds=melds))


# --- 小三元, 大三元, 小四喜, 大四喜 (R14 exclusions) -----------------------------------------------


def test_little_three_dragons() -> None:
    result = win("234m 567p 345s CCC FFF PP", "F")
    assert tai(result) == {"dragon_pung": 2, "little_three_dragons": 4}


def test_little_three_dragons_needs_a_dragon_pair() -> None:
    result = win("234m 567p 345s CCC FFF EE", "F")
    assert tai(result) == {"dragon_pung": 2}


def test_big_three_dragons_excludes_little_and_stacks_dragon_pungs_r14() -> None:
    result = win("234m 567p CCC FFF PPP 99s", "P")
    assert tai(result) == {"dragon_pung": 3, "big_three_dragons": 8}


def test_little_four_winds() -> None:
    result = win("234m 567p EEE SSS WWW NN", "W")
    assert tai(result) == {"seat_wind_pung": 1, "round_wind_pung": 1, "little_four_winds": 8}


def test_little_four_winds_needs_a_wind_pair() -> None:
    result = win("234m 567p EEE SSS WWW CC", "W")
    assert "little_four_winds" not in tai(result)


def test_big_four_winds_stacks_with_wind_pungs_r14() -> None:
    result = win("777m EEE SSS WWW NNN 55m", "N")
    assert tai(result) == {
        "seat_wind_pung": 1,
        "round_wind_pung": 1,
        "half_flush": 4,
        "all_pungs": 4,
        "big_four_winds": 16,
    }


# --- 混一色, 清一色, 字一色, 碰碰胡, 混老頭, 清老頭 ------------------------------------------------


def test_half_flush() -> None:
    assert tai(win("123m 456m 678m WWW 99m", "W", melds="chow:234m")) == {"half_flush": 4}


def test_half_flush_near_miss() -> None:
    assert tai(win("123m 456m 678m WWW 99p", "W", melds="chow:234m")) == {}


def test_full_flush() -> None:
    result = win("123m 555m 789m 99m", "1m", melds="chow:234m pung:666m")
    assert tai(result) == {"full_flush": 8}


def test_full_flush_near_miss_is_half_flush() -> None:
    result = win("123m 555m 789m EE", "1m", melds="chow:234m pung:666m")
    assert tai(result) == {"half_flush": 4}


def test_all_honors_stacks_r14() -> None:
    result = win("EEE SSS WWW NN CCC FFF", "N")
    assert tai(result) == {
        "dragon_pung": 2,
        "seat_wind_pung": 1,
        "round_wind_pung": 1,
        "single_wait": 1,
        "all_pungs": 4,
        "all_terminals_and_honors": 4,
        "little_four_winds": 8,
        "all_honors": 8,
    }


def test_all_pungs() -> None:
    result = win("222m 555p 777s WWW 88s", "8s", melds="pung:666m")
    assert tai(result) == {"three_concealed_pungs": 2, "all_pungs": 4}


def test_all_pungs_with_an_honor_pair_r11_2() -> None:
    result = win("234m 567m WWW CCC EE", "C", melds="pung:999p")
    assert tai(result) == {"dragon_pung": 1}
    result = win("222m 555m WWW CCC EE", "C", melds="pung:999p")
    assert tai(result) == {"dragon_pung": 1, "all_pungs": 4}


def test_all_terminals_and_honors() -> None:
    result = win("111m 999m 999p 111s WWW 99s", "1s")
    assert tai(result) == {
        "three_concealed_pungs": 2,
        "mixed_outside_hand": 2,
        "all_pungs": 4,
        "all_terminals_and_honors": 4,
    }


def test_all_terminals_stacks_r14() -> None:
    result = win("111m 999m 111p 999p 111s 99s", "1s")
    assert tai(result) == {
        "concealed_hand": 1,
        "triple_pung": 2,
        "all_pungs": 4,
        "pure_outside_hand": 4,
        "all_terminals_and_honors": 4,
        "all_terminals": 4,
        "four_concealed_pungs": 6,
    }


# --- 天胡, 地胡, 人胡 (R10) --------------------------------------------------------------------


def test_heavenly_win() -> None:
    result = win(PLAIN, "8s", by=SELF, winner=0, dealer=0, first_go_round=True)
    assert tai(result) == {
        "dealer": 1,
        "concealed_self_draw": 3,
        "all_simples": 1,
        "heavenly_win": 16,
    }


def test_earthly_win() -> None:
    result = win(PLAIN, "8s", by=SELF, first_go_round=True)
    assert tai(result) == {"concealed_self_draw": 3, "all_simples": 1, "earthly_win": 16}


def test_human_win() -> None:
    result = win(PLAIN, "8s", first_go_round=True)
    assert tai(result) == {
        "concealed_hand": 1,
        "all_chows": 2,
        "all_simples": 1,
        "human_win": 16,
    }


def test_first_go_round_items_need_the_flag() -> None:
    items = tai(win(PLAIN, "8s", by=SELF, winner=0, dealer=0))
    assert not {"heavenly_win", "earthly_win", "human_win"} & items.keys()


def test_concealed_kong_does_not_end_the_first_go_round_r10() -> None:
    result = win(
        "567m 345p 456s 678s 55p",
        "8s",
        melds="concealed_kong:2222m",
        by=SELF,
        winner=0,
        dealer=0,
        first_go_round=True,
        kong_replacement=True,
    )
    assert tai(result) == {
        "dealer": 1,
        "concealed_self_draw": 3,
        "kong_replacement_win": 1,
        "all_simples": 1,
        "concealed_kong": 2,
        "heavenly_win": 16,
    }


def test_first_go_round_is_impossible_after_a_claim_r10() -> None:
    with pytest.raises(InvalidSituationError, match="R10"):
        vanilla(first_go_round=True)


def test_dealer_cannot_win_a_discard_in_the_first_go_round_r10() -> None:
    with pytest.raises(InvalidSituationError, match="R10"):
        win(PLAIN, "8s", winner=0, dealer=0, first_go_round=True)


def test_items_come_in_table_order() -> None:
    result = win("EEE SSS WWW NN CCC FFF", "N")
    order = [spec.id for spec in TAI_TABLE]
    positions = [order.index(i.id) for i in result.items]
    assert positions == sorted(positions)
    assert [i.name for i in result.items][:2] == ["三元牌", "門風刻"]
