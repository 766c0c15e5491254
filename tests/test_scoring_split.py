"""The canonical split (R11) and its effect on the items, plus a property test on random
winning hands built from random sets."""

from __future__ import annotations

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from protocol.analysis import is_winning_counts
from protocol.melds import Meld, MeldKind
from protocol.score import build_situation
from protocol.scoring import WinSituation, score_win
from protocol.split import canonical_split
from protocol.tiles import Tile, parse_counts, tiles_to_counts


def sets_of(text: str, *, win: str | None = None, discard: bool = False) -> list[str]:
    split = canonical_split(
        parse_counts(text), (), Tile.parse(win) if win else None, discard_win=discard
    )
    assert split is not None
    return [f"{s}{'*' if s.concealed else ''}" for s in split.sets]


def test_three_identical_chows_split_as_three_pungs_r11_3() -> None:
    assert sets_of("111222333m 456p 789s EE") == [
        "pung:111m*",
        "pung:222m*",
        "pung:333m*",
        "chow:456p*",
        "chow:789s*",
    ]


def test_three_pungs_not_three_chows_changes_the_items_r11_3() -> None:
    # As pungs: 三暗刻 and no 一盃口 (the split is not chosen to score best).
    result = score_win(build_situation("111222333m 456p 789s EE", "4p", discarder=2, winner=1))
    assert {i.id for i in result.items} == {"concealed_hand", "three_concealed_pungs"}


def test_pair_candidates_in_ascending_order_r11_3() -> None:
    # 22334455m splits as 22 + 345 345 (pair 2m first), not 55 + 234 234.
    split = canonical_split(parse_counts("22334455m 123p 789s 456s"))
    assert split is not None
    assert split.pair is Tile.M2
    assert [str(s) for s in split.sets[:2]] == ["chow:345m", "chow:345m"]


def test_first_pair_for_which_the_rest_splits_r11_3() -> None:
    # 11122233m: pair 1m and pair 2m leave no split; pair 3m does.
    split = canonical_split(parse_counts("11122233m 456p 789s 123s"))
    assert split is not None
    assert split.pair is Tile.M3


def test_four_copies_make_a_pung_then_a_chow_r11_3() -> None:
    assert sets_of("111123m 567p 345s 99s 789p")[:2] == ["pung:111m*", "chow:123m*"]


def test_honor_pungs_are_recorded_as_exposed_r11_2() -> None:
    sets = sets_of("123m 456p 789s EEE CCC 99s")
    assert "pung:EEE" in sets
    assert "pung:CCC" in sets


def test_honor_pair_fixes_the_pair_r11_2() -> None:
    split = canonical_split(parse_counts("111m 234m 456p 789s SS"))
    assert split is not None
    assert split.pair is Tile.S


def test_discard_completed_pung_is_exposed_r11_4() -> None:
    assert "pung:555p" in sets_of("111m 567m 555p 88p 234s 999s", win="5p", discard=True)
    assert "pung:555p*" in sets_of("111m 567m 555p 88p 234s 999s", win="5p", discard=False)


def test_declared_melds_come_first_as_declared_r11_1() -> None:
    melds = [Meld.parse("pung:555p"), Meld.parse("concealed_kong:EEEE")]
    split = canonical_split(parse_counts("123m 456m 789s 11s"), melds)
    assert split is not None
    assert [(str(s), s.concealed, s.declared) for s in split.sets[:2]] == [
        ("pung:555p", False, True),
        ("concealed_kong:EEEE", True, True),
    ]


def test_not_winning_hands_do_not_split() -> None:
    assert canonical_split(parse_counts("123m 456p 789s 111s 2346s E")) is None
    assert canonical_split(parse_counts("123m 456p 789s 111s 23s EE")) is None  # 3n+1
    assert canonical_split(parse_counts("123m 456p 789s EE SS")) is None  # two pairs


def test_split_to_json() -> None:
    split = canonical_split(parse_counts("123m 456p 789s EEE 11s 234s"))
    assert split is not None
    data = split.to_json()
    assert data["pair"] == "1s"
    assert data["sets"][0] == {
        "kind": "chow",
        "tile": "1m",
        "tiles": "123m",
        "concealed": True,
        "declared": False,
    }


# --- property test -----------------------------------------------------------------------


CHOW_STARTS = [s * 9 + r for s in range(3) for r in range(7)]


@st.composite
def random_wins(draw: st.DrawFn) -> WinSituation:
    """A legal win built from five random sets and a pair (at most four of a kind)."""
    held = [0] * 34
    concealed: list[Tile] = []
    melds: list[Meld] = []
    for _ in range(5):
        if draw(st.booleans()):
            start = draw(st.sampled_from(CHOW_STARTS))
            kind = MeldKind.CHOW
        else:
            start = draw(st.integers(0, 33))
            kind = draw(st.sampled_from(list(MeldKind)[1:]))
        if draw(st.integers(0, 2)) == 0:  # declared as a meld
            melds.append(Meld(kind, Tile(start)))
            tiles = melds[-1].tiles
        else:  # in the concealed hand
            tiles = Meld(MeldKind.CHOW if kind is MeldKind.CHOW else MeldKind.PUNG, start).tiles
            concealed.extend(tiles)
        for t in tiles:
            held[t] += 1
    pair = draw(st.integers(0, 33))
    held[pair] += 2
    concealed += [Tile(pair)] * 2
    assume(max(held) <= 4)
    win = draw(st.sampled_from(concealed))
    winner = draw(st.integers(0, 3))
    dealer = draw(st.integers(0, 3))
    discarder = draw(st.sampled_from([None, *((winner + k) % 4 for k in (1, 2, 3))]))
    first = draw(st.booleans()) and all(m.kind is MeldKind.CONCEALED_KONG for m in melds)
    if first and discarder is not None and winner == dealer:
        first = False
    return WinSituation(
        tuple(concealed),
        tuple(melds),
        win,
        winner=winner,
        dealer=dealer,
        discarder=discarder,
        round_wind=draw(st.sampled_from([Tile.E, Tile.S, Tile.W, Tile.N])),
        last_tile=discarder is None and draw(st.booleans()),
        last_discard=discarder is not None and draw(st.booleans()),
        kong_replacement=discarder is None
        and any(m.kind in (MeldKind.CONCEALED_KONG, MeldKind.ADDED_KONG) for m in melds)
        and draw(st.booleans()),
        first_go_round=first,
    )


@settings(max_examples=400, deadline=None)
@given(random_wins())
def test_random_wins_score_consistently(situation: WinSituation) -> None:
    assert is_winning_counts(tiles_to_counts(situation.concealed))
    result = score_win(situation)
    assert result.total_tai == sum(i.tai for i in result.items)
    assert sum(result.payments) == 0
    assert result.payments[situation.winner] > 0
    assert len(result.split.sets) == 5
    # The split uses exactly the hand's tiles.
    split_tiles = [result.split.pair] * 2 + [t for s in result.split.sets for t in s.tiles]
    meld_tiles = [t for m in situation.melds for t in m.tiles]
    assert sorted(split_tiles) == sorted([*situation.concealed, *meld_tiles])
    assert len({i.id for i in result.items}) == len(result.items)


@settings(max_examples=400, deadline=None)
@given(random_wins(), st.integers(0, 16), st.integers(0, 33))
def test_split_exists_exactly_for_winning_hands(
    situation: WinSituation, position: int, kind: int
) -> None:
    # A random win with possibly one tile replaced: the canonical split must exist
    # exactly when the hand is five sets and a pair (R11.3's claim about its order).
    tiles = list(situation.concealed)
    tiles[position % len(tiles)] = Tile(kind)
    counts = tiles_to_counts(tiles)
    assume(max(counts) <= 4)  # a fifth copy is no hand at all (tile counts: the caller's check)
    assert (canonical_split(counts) is not None) == is_winning_counts(counts)
