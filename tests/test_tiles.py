"""Tiles and melds: notation, ordering, properties and specific parse errors."""

from __future__ import annotations

import pytest

from protocol import (
    Meld,
    MeldError,
    MeldKind,
    Tile,
    TileCountError,
    TileParseError,
    format_tiles,
    parse_counts,
    parse_tiles,
)


def test_every_kind_prints_and_parses_back() -> None:
    names = [f"{r}{s}" for s in "mps" for r in range(1, 10)] + list("ESWNCFP")
    assert [str(t) for t in Tile] == names
    assert [Tile.parse(n) for n in names] == list(Tile)


def test_tile_order_is_tournament_order() -> None:
    order = parse_tiles("1m 9m 1p 9p 1s 9s E S W N C F P")
    assert order == sorted(order)
    assert Tile.M9 < Tile.P1 < Tile.S9 < Tile.E < Tile.N < Tile.C < Tile.P


@pytest.mark.parametrize(
    ("tile", "suit", "rank", "honor", "terminal"),
    [("1m", "m", 1, False, True), ("5p", "p", 5, False, False), ("9s", "s", 9, False, True),
     ("E", None, 1, True, False), ("P", None, 7, True, False)],
)  # fmt: skip
def test_tile_properties(
    tile: str, suit: str | None, rank: int, honor: bool, terminal: bool
) -> None:
    t = Tile.parse(tile)
    assert (t.suit, t.rank, t.is_honor, t.is_terminal) == (suit, rank, honor, terminal)


def test_compact_notation_with_and_without_spaces() -> None:
    assert parse_tiles("123m456p789sEESSCC") == parse_tiles("123m 456p 789s EE SS CC")
    assert format_tiles(parse_tiles("CC SS EE 789s 456p 123m")) == "123m456p789s EESSCC"
    assert parse_counts("5555m")[4] == 4


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("10m", "'0'"),
        ("0p", "'0'"),
        ("X", "'X'"),
        ("12", "'12'"),
        ("m", "'m'"),
        ("12E", "'12'"),
        ("1z", "'z'"),
    ],
)
def test_bad_text_raises_a_parse_error_naming_the_part(text: str, names: str) -> None:
    with pytest.raises(TileParseError, match=names):
        parse_tiles(text)


def test_fifth_copy_raises_count_error() -> None:
    with pytest.raises(TileCountError, match="5m"):
        parse_tiles("55555m")
    assert len(parse_tiles("55555m", check_counts=False)) == 5


def test_tile_parse_rejects_compact_groups() -> None:
    with pytest.raises(TileParseError):
        Tile.parse("12m")


def test_meld_text_round_trip_and_errors() -> None:
    for text in ("chow:123m", "pung:555p", "kong:EEEE", "added_kong:9999s", "concealed_kong:CCCC"):
        assert str(Meld.parse(text)) == text
    assert Meld.parse("kong:EEEE").kind is MeldKind.EXPOSED_KONG
    with pytest.raises(MeldError, match="not a chow"):
        Meld.parse("chow:124m")
    with pytest.raises(MeldError, match="meld kind"):
        Meld.parse("set:123m")
    with pytest.raises(MeldError):
        Meld(MeldKind.CHOW, Tile.M8)
    with pytest.raises(MeldError, match="not a pung"):
        Meld.parse("pung:55p")
