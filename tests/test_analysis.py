"""Hand analysis against independent references, known shapes and bad input."""

from __future__ import annotations

import random

import pytest
from hand_samples import random_counts, winning_counts
from hypothesis import given, settings
from hypothesis import strategies as st
from mahjong.shanten import Shanten
from reference_analysis import brute_is_winning, brute_shanten

from protocol import Meld, TileCountError, TileParseError, parse_counts
from protocol.analysis import (
    efficiency_counts,
    is_winning,
    is_winning_counts,
    shanten,
    shanten_counts,
    tile_efficiency,
    waits,
    waits_counts,
)


@pytest.mark.parametrize("size", [14, 16, 17])
def test_win_check_and_shanten_match_brute_force_on_random_hands(size: int) -> None:
    rng = random.Random(size)
    for _ in range(700):
        counts = random_counts(rng, size)
        assert shanten_counts(counts) == brute_shanten(counts), counts
        if size % 3 == 2:
            assert is_winning_counts(counts) == brute_is_winning(counts), counts


@pytest.mark.parametrize("sets", [4, 5])
def test_built_winning_hands_are_winning_with_shanten_minus_one(sets: int) -> None:
    rng = random.Random(sets)
    for _ in range(2000):
        counts = winning_counts(rng, sets)
        assert is_winning_counts(counts)
        assert shanten_counts(counts) == -1
        # removing any one tile leaves a waiting hand that waits on that tile (unless R12)
        t = rng.choice([k for k in range(34) if counts[k]])
        counts[t] -= 1
        assert shanten_counts(counts) == 0
        if counts[t] < 3:
            assert t in waits_counts(counts)


def test_near_winning_hands_match_brute_force() -> None:
    """Winning hands with one tile swapped: the hard cases for a win check."""
    rng = random.Random(7)
    for _ in range(800):
        counts = winning_counts(rng, 5)
        out = rng.choice([k for k in range(34) if counts[k]])
        into = rng.choice([k for k in range(34) if counts[k] < 4 and k != out])
        counts[out] -= 1
        counts[into] += 1
        assert is_winning_counts(counts) == brute_is_winning(counts), counts
        assert shanten_counts(counts) == brute_shanten(counts), counts


def test_fourteen_tile_shanten_matches_the_mahjong_package() -> None:
    rng = random.Random(14)
    reference = Shanten()
    for _ in range(3000):
        counts = random_counts(rng, 14)
        assert shanten_counts(counts) == reference.calculate_shanten_for_regular_hand(counts), (
            counts
        )


def test_waits_are_exactly_the_completing_kinds_minus_r12() -> None:
    rng = random.Random(16)
    checked = 0
    while checked < 400:
        counts = winning_counts(rng, 5)
        counts[rng.choice([k for k in range(34) if counts[k]])] -= 1
        expected = []
        for k in range(34):
            if counts[k] < 4:
                counts[k] += 1
                if brute_is_winning(counts) and counts[k] <= 4:
                    expected.append(k)
                counts[k] -= 1
        # R12: kinds already held four times in hand are never waits
        expected = [k for k in expected if counts[k] < 4]
        assert waits_counts(counts) == expected
        checked += 1


def test_r12_counts_own_melds_as_held() -> None:
    assert [str(t) for t in waits("123m 4p")] == ["4p"]
    melds = [Meld.parse(m) for m in ("pung:444p", "pung:EEE", "pung:SSS", "pung:WWW")]
    assert waits("123m 4p", melds=melds) == []  # the fourth 4p is the one in hand (R12)
    melds[0] = Meld.parse("pung:555p")
    assert [str(t) for t in waits("123m 4p", melds=melds)] == ["4p"]


@pytest.mark.parametrize(
    ("hand", "winning"),
    [
        ("111122233344m 567p 99s", True),
        ("111222333m 789p 12s EE F", False),
        ("123m 456p 789s 123s 555s EE", True),
        ("111m 999m 111p 999p 111s EE", True),
        ("EEE SSS WWW NNN CCC FF", True),
        ("EEE SSS WWW NNN CC FF P", False),
        ("1133m 5577p 99s EE CC", False),  # seven pairs never count
        ("19m 19p 19s ESWNCFP 1m", False),  # nor thirteen orphans
    ],
)
def test_known_shapes(hand: str, winning: bool) -> None:
    assert is_winning(hand) is winning


def test_known_waits() -> None:
    assert [str(t) for t in waits("1234444m")] == ["1m"]
    assert [str(t) for t in waits("1112345678999m")] == [f"{r}m" for r in range(1, 10)]
    assert [str(t) for t in waits("123m 456p 789s 456s 11s 22s")] == ["1s", "2s"]
    assert waits("123m 456p 789s 123s 59s E C") == []


def test_shanten_of_sized_hands() -> None:
    assert shanten("123m 456p 789s 123s 555s EE") == -1
    assert shanten("123m 456p 789s 123s 555s E") == 0
    assert shanten("19m 19p 19s ESWNCFP 1m 9s 5p") == 8
    assert shanten("1111m") == 1  # 16 tiles' logic on 4: one set + pair needs 2 more tiles


def test_tile_efficiency_table_agrees_with_direct_shanten() -> None:
    rng = random.Random(99)
    for _ in range(100):
        counts = random_counts(rng, 17)
        visible = random_counts(rng, 20)
        visible = [min(v, 4 - c) for v, c in zip(visible, counts, strict=True)]
        options = efficiency_counts(counts, visible)
        assert len(options) == sum(1 for c in counts if c)
        for option in options:
            after = list(counts)
            after[option.discard] -= 1
            assert option.shanten == shanten_counts(after)
            lowering = []
            for k in range(34):
                if after[k] < 4:
                    after[k] += 1
                    if shanten_counts(after) < option.shanten:
                        lowering.append(k)
                    after[k] -= 1
            assert list(option.accepts) == lowering
            assert list(option.unseen) == [4 - counts[k] - visible[k] for k in lowering]
        keys = [(o.shanten, -o.total_unseen, o.discard) for o in options]
        assert keys == sorted(keys)


def test_tile_efficiency_counts_visible_and_own_melds() -> None:
    best = tile_efficiency("1199m 5p", visible="1m 9m")[0]
    assert (str(best.discard), best.total_unseen) == ("5p", 2)


@pytest.mark.parametrize(
    ("call", "error"),
    [
        (lambda: is_winning("123m 4p"), TileCountError),  # 3n+2 needed
        (lambda: waits("123m 456p"), TileCountError),  # 3n+1 needed
        (lambda: shanten("123m 456p 789s"), TileCountError),  # 3n has no shanten
        (lambda: shanten("11111m 23p"), TileCountError),  # fifth copy
        (lambda: shanten("12x"), TileParseError),
        (
            lambda: is_winning("11m", melds=[Meld.parse("pung:111m"), Meld.parse("pung:222m")]),
            TileCountError,
        ),
        (lambda: tile_efficiency("11m", visible="1q"), TileParseError),
    ],
)
def test_bad_input_raises_specific_errors(call, error) -> None:
    with pytest.raises(error):
        call()


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, 33), min_size=1, max_size=17))
def test_property_shanten_bounds_and_consistency(tiles: list[int]) -> None:
    counts = [0] * 34
    for t in tiles:
        counts[t] = min(4, counts[t] + 1)
    n = sum(counts)
    if n % 3 == 0:
        return
    s = shanten_counts(counts)
    assert -1 <= s <= 2 * (n // 3)
    if n % 3 == 2:
        assert (s == -1) == is_winning_counts(counts)
    else:
        assert (s == 0) == bool(waits_counts(counts)) or any(
            counts[k] == 4 for k in range(34)
        )  # a hand may wait only on kinds it holds four of (R12)


def test_parse_counts_helper_feeds_the_fast_functions() -> None:
    assert is_winning_counts(parse_counts("123m 456p 789s 123s 555s EE"))
