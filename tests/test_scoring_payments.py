"""Payments (R15), the result's JSON form, and the errors score_win raises for bad input.

Expected payments are computed by hand: each payer pays 1000 + 500 × total tai, and on a
non-dealer's self-draw the dealer pays 500 more.
"""

from __future__ import annotations

import json

import pytest

from protocol.errors import MahjongError, MeldError, TileCountError
from protocol.melds import Meld, MeldKind
from protocol.score import build_situation
from protocol.scoring import (
    FifthTileError,
    HandSizeError,
    InvalidHandError,
    InvalidMeldError,
    InvalidSituationError,
    NotWinningError,
    WinSituation,
    compute_payments,
    score_win,
)
from protocol.tiles import Tile, parse_tiles

# 門清自摸 only on a self-draw (the 1m stops 斷么九, 67s waits on 5s/8s): 3 tai.
THREE_TAI_SELF_DRAW = "123m 567m 345p 456s 678s 55p"
# A declared chow, an honor pair, a two-sided wait: 0 tai.
ZERO_TAI = "234m 567m 345p 456s EE"


def test_rules_worked_example_non_dealer_self_draw_r15() -> None:
    # 閒家自摸 3 台: the two non-dealers pay 2500 each, the dealer 3000.
    situation = build_situation(THREE_TAI_SELF_DRAW, "8s", winner=1, dealer=0)
    result = score_win(situation)
    assert [i.id for i in result.items] == ["concealed_self_draw"]
    assert result.total_tai == 3
    assert result.payments == (-3000, 8000, -2500, -2500)


def test_dealer_self_draw_has_no_extra_r15() -> None:
    # 莊家 1 + 門清自摸 3 = 4 tai: everyone pays 1000 + 2000.
    result = score_win(build_situation(THREE_TAI_SELF_DRAW, "8s", winner=2, dealer=2))
    assert result.total_tai == 4
    assert result.payments == (-3000, -3000, 9000, -3000)


def test_dealer_deals_in_r15() -> None:
    # 莊家 is the only item: the dealer pays 1000 + 500, nobody else pays.
    situation = build_situation(
        ZERO_TAI, "6s", melds=["chow:789p"], winner=3, dealer=1, discarder=1
    )
    result = score_win(situation)
    assert [i.id for i in result.items] == ["dealer"]
    assert result.payments == (0, -1500, 0, 1500)


def test_dealer_wins_on_a_discard_r15() -> None:
    situation = build_situation(
        ZERO_TAI, "6s", melds=["chow:789p"], winner=0, dealer=0, discarder=3
    )
    assert score_win(situation).payments == (1500, 0, 0, -1500)


def test_zero_tai_discard_win_pays_the_base() -> None:
    situation = build_situation(
        ZERO_TAI, "6s", melds=["chow:789p"], winner=1, dealer=0, discarder=2
    )
    result = score_win(situation)
    assert result.total_tai == 0
    assert result.payments == (0, 1000, -1000, 0)


def test_zero_tai_non_dealer_self_draw_dealer_pays_one_tai_more() -> None:
    # 自摸 1 tai: 1500 from each non-dealer, 2000 from the dealer.
    situation = build_situation(ZERO_TAI, "6s", melds=["chow:789p"], winner=2, dealer=3)
    assert score_win(situation).payments == (-1500, -1500, 5000, -2000)


@pytest.mark.parametrize(
    ("total", "winner", "discarder", "dealer", "expected"),
    [
        (3, 1, None, 0, (-3000, 8000, -2500, -2500)),
        (0, 0, None, 0, (3000, -1000, -1000, -1000)),
        (5, 3, 2, 0, (0, 0, -3500, 3500)),
        (16, 2, None, 1, (-9000, -9500, 27500, -9000)),
    ],
)
def test_compute_payments(
    total: int,
    winner: int,
    discarder: int | None,
    dealer: int,
    expected: tuple[int, int, int, int],
) -> None:
    payments = compute_payments(total, winner, discarder, dealer)
    assert payments == expected
    assert sum(payments) == 0


def test_to_json_is_plain_json() -> None:
    situation = build_situation(THREE_TAI_SELF_DRAW, "8s", winner=1, dealer=0)
    data = score_win(situation).to_json()
    assert json.loads(json.dumps(data)) == data
    assert data["total_tai"] == 3
    assert data["payments"] == [-3000, 8000, -2500, -2500]
    assert data["items"] == [
        {"id": "concealed_self_draw", "name": "門清自摸", "tai": 3, "count": 1}
    ]
    assert data["split"]["pair"] == "5p"
    assert len(data["split"]["sets"]) == 5


def test_seat_wind_follows_the_dealer() -> None:
    winds = [
        build_situation(ZERO_TAI, "6s", melds=["chow:789p"], winner=w, dealer=2).seat_wind
        for w in range(4)
    ]
    assert winds == [Tile.W, Tile.N, Tile.E, Tile.S]


# --- errors ------------------------------------------------------------------------------


def _fields(s: WinSituation) -> dict[str, object]:
    return {name: getattr(s, name) for name in WinSituation.__dataclass_fields__}


def _situation(**changes: object) -> WinSituation:
    base = build_situation(ZERO_TAI, "6s", melds=["chow:789p"], winner=1, dealer=0, discarder=2)
    return WinSituation(**{**_fields(base), **changes})  # type: ignore[arg-type]


def test_not_winning() -> None:
    tiles = tuple(parse_tiles("234m 567m 345p 457s EE"))
    with pytest.raises(NotWinningError, match="not five sets and a pair"):
        score_win(_situation(concealed=tiles, win_tile=Tile.S7))


def test_wrong_tile_count() -> None:
    with pytest.raises(HandSizeError, match="need 14 concealed tiles"):
        score_win(_situation(concealed=tuple(parse_tiles("234m 567m 345p 456s E"))))
    assert issubclass(HandSizeError, TileCountError)


def test_fifth_copy() -> None:
    tiles = tuple(parse_tiles("234m 567m 999p 456s EE"))
    with pytest.raises(FifthTileError, match="9p"):
        score_win(_situation(concealed=tiles, melds=(Meld.parse("kong:9999p"),)))
    assert issubclass(FifthTileError, TileCountError)


def test_winning_tile_must_be_in_the_hand() -> None:
    with pytest.raises(InvalidHandError, match="winning tile"):
        score_win(_situation(win_tile=Tile.C))


def test_impossible_melds() -> None:
    chow_from_across = Meld(MeldKind.CHOW, Tile.P7, called=Tile.P7, source=3)
    with pytest.raises(InvalidMeldError, match="previous seat"):
        score_win(_situation(melds=(chow_from_across,)))
    own = Meld(MeldKind.CHOW, Tile.P7, source=1)
    with pytest.raises(InvalidMeldError):
        score_win(_situation(melds=(own,)))
    with pytest.raises(InvalidMeldError):
        score_win(_situation(melds=("chow:789p",)))
    assert issubclass(InvalidMeldError, MeldError)


def test_bad_seats_and_winds() -> None:
    with pytest.raises(InvalidSituationError, match="own discard"):
        score_win(_situation(discarder=1))
    with pytest.raises(InvalidSituationError, match=r"seat 0\.\.3"):
        score_win(_situation(winner=4))
    with pytest.raises(InvalidSituationError, match="round wind"):
        score_win(_situation(round_wind=Tile.C))


def test_every_error_is_a_mahjong_error() -> None:
    for exc in (
        NotWinningError,
        HandSizeError,
        FifthTileError,
        InvalidHandError,
        InvalidMeldError,
        InvalidSituationError,
    ):
        assert issubclass(exc, MahjongError)
