"""The own-draw evaluator (sdk.expect) against brute force, simulation and the scorer."""

from __future__ import annotations

import random
from functools import cache
from math import comb

import pytest

from protocol.analysis import is_winning_counts
from protocol.scoring import WinSituation, score_win
from protocol.tiles import Tile, counts_to_tiles, parse_counts
from sdk.expect import Evaluator, ImpossibleHandError, Situation
from sdk.expect.value import OutOfTime


def situation(hand: list[int], draws: int, unseen: list[int] | None = None, **kw) -> Situation:
    if unseen is None:
        unseen = [4 - n for n in hand]
    return Situation(0, 0, Tile.E, (), tuple(unseen), draws=draws, drawable=4 * draws, **kw)


def brute_win(hand: tuple[int, ...], pool: tuple[int, ...], draws: int) -> float:
    """Exact chance to complete ``hand`` within ``draws`` own draws from ``pool`` (drawn
    without replacement), best play: after each draw any discard (or the drawn tile)."""

    @cache
    def go(h: tuple[int, ...], p: tuple[int, ...], k: int) -> float:
        n = sum(p)
        if k == 0 or n == 0:
            return 0.0
        total = 0.0
        for t, u in enumerate(p):
            if not u:
                continue
            h2, p2 = list(h), list(p)
            h2[t] += 1
            p2[t] -= 1
            if is_winning_counts(h2):
                total += u / n
                continue
            best = 0.0
            for d in range(34):
                if h2[d]:
                    h2[d] -= 1
                    best = max(best, go(tuple(h2), tuple(p2), k - 1))
                    h2[d] += 1
            total += u / n * best
        return total

    return go(hand, pool, draws)


def test_waiting_hand_is_the_hypergeometric_chance():
    hand = parse_counts("123m 456m 789m 234p 567s 9s")
    for draws in (1, 3, 8):
        ev = Evaluator(situation(hand, draws), hazards=False, swaps=-1)  # no wait changes
        exact = 1 - comb(117, draws) / comb(120, draws)
        assert ev.hand(hand).win == pytest.approx(exact, rel=1e-9)


@pytest.mark.parametrize(
    "text, pool_text, draws",
    [
        ("13m 55p", "2m 2m 4m 5p 9s 9s 9s E E E N N", 3),  # one from waiting, a closed wait
        ("12m 5p 9s", "3m 3m 5p 5p 9s E E E N N C C", 3),  # one away, two ways to finish
        ("1122m", "1m 2m 3m 3m 3m E E E F F F", 4),
        ("1m 5p E N", "1m 1m 5p 5p E E 2s 2s 2s 9s 9s", 4),  # two from waiting
    ],
)
def test_small_hands_match_brute_force(text, pool_text, draws):
    hand = parse_counts(text)
    pool = parse_counts(pool_text)
    ev = Evaluator(situation(hand, draws, pool), hazards=False, exact=3, flat_tai=True)
    got = ev.hand(hand).win
    want = brute_win(tuple(hand), tuple(pool), draws)
    # the evaluator keeps a drawn tile only when it lowers shanten and tracks the pool
    # through the hand: never better than best play, and within a few hundredths of it
    assert got <= want + 1e-9
    assert got == pytest.approx(want, abs=0.03)


def test_one_from_waiting_matches_simulated_play():
    """A 16-tile hand one from waiting: the evaluator's win chance within 6 draws
    against playouts in which the hand keeps the discard the evaluator values most.
    (Two good partials: a hand of isolated tiles wins more often than the evaluator
    says, as real play widens it more than once per shanten; see ``swaps``.)"""
    hand = parse_counts("123m 456m 789m 23p 67s 99s E")
    unseen = [4 - n for n in hand]
    draws = 6
    want = Evaluator(situation(hand, draws), hazards=False).hand(hand).win
    rng = random.Random(5)
    wins, trials = 0, 400
    pool = [t for t in range(34) for _ in range(unseen[t])]
    for _ in range(trials):
        wall = rng.sample(pool, draws)
        h, left = list(hand), list(unseen)
        for i, t in enumerate(wall):
            h[t] += 1
            left[t] -= 1
            if is_winning_counts(h):
                wins += 1
                break
            ev = Evaluator(situation(h, draws - i - 1, left), hazards=False)
            best = max((d for d in range(34) if h[d]), key=lambda d: _after(ev, h, d))
            h[best] -= 1
    freq = wins / trials
    sigma = (want * (1 - want) / trials) ** 0.5
    assert abs(freq - want) < 3 * sigma + 0.01, (freq, want)


def _after(ev: Evaluator, h: list[int], d: int) -> float:
    h[d] -= 1
    try:
        return ev.hand(h).value
    finally:
        h[d] += 1


def test_expected_points_are_the_scorers():
    """One draw left, no opponents: the value is the sum over the waits of their chance
    times the scorer's self-draw points (R15: 3 payers, +500 from the dealer)."""
    hand = parse_counts("234m 456p 678s 789s 22s 34m")  # waits 2m 5m
    for seat in (0, 1):
        s = Situation(seat, 0, Tile.E, (), tuple(4 - n for n in hand), draws=1, drawable=4)
        ev = Evaluator(s, hazards=False)
        n = sum(s.unseen)
        want = 0.0
        for t in range(34):
            h = list(hand)
            h[t] += 1
            if h[t] > 4 or not is_winning_counts(h):
                continue
            result = score_win(
                WinSituation(tuple(counts_to_tiles(h)), (), Tile(t), winner=seat,
                             discarder=None, dealer=0, round_wind=Tile.E)
            )  # fmt: skip
            want += s.unseen[t] / n * (-sum(p for i, p in enumerate(result.payments) if i != seat))
        v = ev.hand(hand)
        assert want > 0
        assert v.value == pytest.approx(want)
        assert v.win * v.points == pytest.approx(want)


def test_impossible_counts_are_a_narrow_error():
    hand = parse_counts("123m 456m 789m 234p 567s 9s")
    with pytest.raises(ImpossibleHandError, match="more than 4"):
        Evaluator(situation(hand, 4, [4] * 34)).hand(hand)
    with pytest.raises(ImpossibleHandError, match="3n\\+1"):
        Evaluator(situation(hand, 4)).hand([*hand[:-1], hand[-1] + 1])
    with pytest.raises(ImpossibleHandError):
        situation(hand, 4, [5] * 34)


def test_node_budget_stops_the_valuation():
    hand = parse_counts("13m 46m 79m 24p 57p 99s 123s E")
    ev = Evaluator(situation(hand, 8), exact=3, max_nodes=5)
    with pytest.raises(OutOfTime):
        ev.hand(hand)


def test_hazards_lower_the_value():
    hand = parse_counts("123m 456m 789m 2p 567s 99s E")
    calm = Evaluator(situation(hand, 8, threat=0.0)).hand(hand)
    threatened = Evaluator(situation(hand, 8, threat=2.0)).hand(hand)
    assert threatened.value < calm.value
    assert threatened.win < calm.win


def test_the_fit_is_deterministic_and_fills_every_table(tmp_path):
    from sdk.expect.fit import main
    from sdk.expect.model import load_model

    paths = [tmp_path / "a.json", tmp_path / "b.json"]
    for path in paths:
        assert main(["--matches", "2", "--seed", "3", "--out", str(path)]) == 0
    assert paths[0].read_text() == paths[1].read_text()
    model = load_model(paths[0])
    assert len(model.hazard) == 4 and all(0 < h < 1 for row in model.hazard for h in row)
    assert model.deal_in_loss >= 1000 and len(model.ron_rate) == 5
    assert len(model.leaf_win) == 7 and all(len(row) == 20 for row in model.leaf_win)
