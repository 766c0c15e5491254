"""Actions built from notation: text, Tile or int give the same interned action."""

from __future__ import annotations

import re

import pytest

from protocol.actions import KONG, PASS, PUNG, WIN, Action, ActionParseError
from protocol.tiles import Tile


@pytest.mark.parametrize("tile", ["9s", Tile.S9, 26, " 9s "])
def test_discard_accepts_text_tile_or_int(tile: object) -> None:
    assert Action.discard(tile) is Action.parse("discard 9s")  # type: ignore[arg-type]


def test_honor_letters_name_the_dragons() -> None:
    assert [str(Action.discard(t)) for t in "CFP"] == ["discard C", "discard F", "discard P"]
    assert Action.discard("C").tile.chinese == "中"  # type: ignore[union-attr]


def test_kongs_accept_text() -> None:
    assert Action.concealed_kong("E") is Action.parse("concealed_kong E")
    assert Action.added_kong("5p") is Action.parse("added_kong 5p")


@pytest.mark.parametrize(
    "args", [("4m", "6m"), ("6m", "4m"), ("4m 6m",), ("4m6m",), (Tile.M4, 5), (3, Tile.M6)]
)
def test_chow_forms(args: tuple[object, ...]) -> None:
    assert Action.chow(*args) is Action.parse("chow 4m 6m")  # type: ignore[arg-type]


def test_claims_without_a_tile_are_the_constants() -> None:
    assert (Action.win(), Action.pung(), Action.kong(), Action.pass_()) == (WIN, PUNG, KONG, PASS)
    assert Action.win() is WIN and Action.pass_() is PASS


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: Action.discard("0m"), "'0m' is not a tile"),
        (lambda: Action.discard(34), "34 is not a tile"),
        (lambda: Action.discard(-1), "-1 is not a tile"),
        (lambda: Action.discard(True), "True is not a tile"),
        (lambda: Action.chow("4m", "E"), "4m and E cannot make a chow"),
        (lambda: Action.chow("4m"), "a chow names two own tiles"),
        (lambda: Action.chow(3), "a chow needs two tiles"),
    ],
)
def test_bad_tiles_raise_a_clear_error(call: object, message: str) -> None:
    with pytest.raises(ActionParseError, match=message):
        call()  # type: ignore[operator]


def test_fields_are_listed_in_the_docstrings() -> None:
    from sdk.bot import DecisionRequest
    from sdk.view import GameView

    for cls in (DecisionRequest, GameView):
        public = [n for n in dir(cls) if not n.startswith("_")]
        doc = cls.__doc__ or ""
        named = {m.group(1) for m in re.finditer(r"(?:``|:\w+:`)(\w+)", doc)}
        missing = [n for n in public if n not in named]
        assert not missing, f"the {cls.__name__} docstring does not list {missing}"
