"""Arena statistics against hand-computed values: t quantiles, t intervals, p-values
and Holm's adjustment, and the clustering by deal under duplicate seating."""

from __future__ import annotations

import math
import random

import pytest

from sdk.arena.deal import DealRecord, MatchRecord, PlayerTally
from sdk.arena.result import Aggregator
from sdk.arena.stats import (
    holm,
    mean_interval,
    paired_interval,
    paired_p,
    t_cdf,
    t_quantile,
    t_test_p,
)

# Student's t 0.975 quantiles from printed tables.
T975 = {1: 12.7062, 2: 4.3027, 3: 3.1824, 5: 2.5706, 10: 2.2281, 30: 2.0423, 1000: 1.9623}


@pytest.mark.parametrize(("df", "expected"), sorted(T975.items()))
def test_t_quantile_matches_the_table(df: int, expected: float) -> None:
    assert t_quantile(0.975, df) == pytest.approx(expected, abs=1e-4)
    assert t_quantile(0.025, df) == pytest.approx(-expected, abs=1e-4)
    assert t_cdf(t_quantile(0.975, df), df) == pytest.approx(0.975, abs=1e-9)


def test_t_interval_by_hand() -> None:
    # values 1, 2, 3, 6: mean 3, squared deviations 4 + 1 + 0 + 9 = 14, s^2 = 14/3,
    # standard error sqrt(14/3/4) = 1.08012, half-width 3.18245 * 1.08012 = 3.43744.
    iv = mean_interval([1.0, 2.0, 3.0, 6.0])
    assert (iv.mean, iv.n) == (3.0, 4)
    assert iv.low == pytest.approx(3 - 3.43744, abs=1e-4)
    assert iv.high == pytest.approx(3 + 3.43744, abs=1e-4)
    assert not iv.excludes_zero


def test_paired_interval_by_hand() -> None:
    # differences 6, 4, 10: mean 6.6667, s^2 = (0.4444 + 7.1111 + 11.1111) / 2 = 9.3333,
    # standard error sqrt(9.3333 / 3) = 1.76383, half-width 4.30265 * 1.76383 = 7.58915.
    iv = paired_interval([10.0, 20.0, 30.0], [4.0, 16.0, 20.0])
    assert iv.mean == pytest.approx(6.66667, abs=1e-4)
    assert iv.half_width == pytest.approx(7.58915, abs=1e-4)
    assert not iv.excludes_zero
    assert paired_interval([10.0, 20.0, 30.0], [0.0, 11.0, 19.0]).excludes_zero  # d = 10, 9, 11


def test_t_test_p_by_numerical_integration() -> None:
    # values 1, 2, 3, 6: t = 3 / 1.08012 = 2.77746 on 3 degrees of freedom; twice the
    # upper tail of the t density, integrated numerically (midpoint rule), is 0.069137.
    assert t_test_p([1.0, 2.0, 3.0, 6.0]) == pytest.approx(0.069137, abs=1e-5)
    assert t_test_p([-1.0, -2.0, -3.0, -6.0]) == t_test_p([1.0, 2.0, 3.0, 6.0])
    assert (t_test_p([0.0, 0.0, 0.0]), t_test_p([5.0, 5.0])) == (1.0, 0.0)
    assert math.isnan(t_test_p([7.0]))


def test_p_value_and_interval_agree() -> None:
    # p < 1 - level exactly when the interval at that level excludes 0
    rng = random.Random(7)
    seen = set()
    for _ in range(400):
        n = rng.randint(2, 40)
        shift = rng.uniform(-1.5, 1.5)
        values = [rng.gauss(shift, 2.0) for _ in range(n)]
        for level in (0.9, 0.95, 0.99):
            significant = t_test_p(values) < 1 - level
            assert significant == mean_interval(values, level).excludes_zero
            seen.add(significant)
    assert seen == {True, False}


def test_paired_p_is_the_test_of_the_differences() -> None:
    a, b = [10.0, 20.0, 30.0], [4.0, 16.0, 20.0]
    assert paired_p(a, b) == t_test_p([6.0, 4.0, 10.0])
    with pytest.raises(ValueError, match="equal length"):
        paired_p([1.0], [1.0, 2.0])


def test_holm_by_hand() -> None:
    # sorted 0.005, 0.01, 0.03, 0.04 times 4, 3, 2, 1: 0.02, 0.03, 0.06, 0.04 -> the
    # running maximum 0.02, 0.03, 0.06, 0.06, given back in the original order
    adjusted = holm([0.01, 0.04, 0.03, 0.005])
    assert adjusted == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert holm([0.5, 0.9]) == [1.0, 1.0]  # capped at 1
    assert holm([0.03]) == [0.03]  # one comparison: nothing to adjust
    nan_kept = holm([math.nan, 0.02, 0.04])
    assert math.isnan(nan_kept[0]) and nan_kept[1:] == pytest.approx([0.04, 0.04])


def test_one_observation_has_no_interval() -> None:
    iv = mean_interval([4.0])
    assert iv.mean == 4.0 and math.isnan(iv.low) and not iv.excludes_zero


def _deal(number: int, matches: list[tuple[int, int, int, int]]) -> DealRecord:
    """A duplicate deal of one-hand matches with the given points by player."""
    records = [
        MatchRecord(
            tuple((p + r) % 4 for p in range(4)),
            points,
            [PlayerTally(points=x, hands=1) for x in points],
        )
        for r, points in enumerate(matches)
    ]
    return DealRecord(number, number, records)


def test_duplicate_deals_are_the_observations() -> None:
    agg = Aggregator(["A", "B", "C", "D"])
    agg.add(
        _deal(0, [(1000, -1000, 0, 0), (3000, -1000, -1000, -1000), (0,) * 4, (-2000, 2000, 0, 0)])
    )
    agg.add(_deal(2, [(-500, 500, 0, 0)] * 4))  # arrives before deal 1, as from a pool
    agg.add(
        _deal(
            1,
            [
                (1500, -1500, 0, 0),
                (1500, -500, -500, -500),
                (1500, 0, -1500, 0),
                (1500, 0, 0, -1500),
            ],
        )
    )
    result = agg.result({}, partial=False, elapsed=1.0)
    # A per deal: (1000 + 3000 + 0 - 2000) / 4 = 500, 1500, -500.
    assert result.deal_points["A"] == [500.0, 1500.0, -500.0]
    assert result.deal_points["B"] == [0.0, -500.0, 500.0]
    a = result.bot("A").points
    # three clusters, not twelve matches: s = 1000, half-width 4.30265 * 1000 / sqrt(3)
    assert (a.mean, a.n) == (500.0, 3)
    assert a.half_width == pytest.approx(2484.14, abs=0.01)
    # A - B per deal: 500, 2000, -1000; s = 1500, half-width 4.30265 * 1500 / sqrt(3)
    diff = result.pair("A", "B").diff
    assert (diff.mean, diff.n) == (500.0, 3)
    assert diff.half_width == pytest.approx(3726.21, abs=0.01)
    assert not result.pair("A", "B").significant
    flipped = result.pair("B", "A").diff
    assert (flipped.mean, flipped.low, flipped.high) == (-diff.mean, -diff.high, -diff.low)
    assert (result.deals, result.matches, result.hands) == (3, 12, 12)


def test_players_of_one_bot_are_pooled() -> None:
    agg = Aggregator(["A", "A", "B", "B"])
    agg.add(_deal(0, [(1000, 0, -500, -500)] * 4))
    agg.add(_deal(1, [(2000, 2000, -3000, -1000)] * 4))
    result = agg.result({}, partial=False, elapsed=1.0)
    assert result.deal_points == {"A": [500.0, 2000.0], "B": [-500.0, -2000.0]}
    assert [p.a + p.b for p in result.pairs] == ["AB"]
    assert result.bot("A").players == (0, 1) and result.bot("A").hands == 16


def test_pairs_are_judged_over_all_pairs_holm() -> None:
    # Four bots, one match of one hand per deal (points by seat). A - B per deal is
    # 3, 1, 2, 4, 0, 2: mean 2, s^2 = 2, t = 2 / sqrt(2 / 6) = 3.4641 on 5 degrees of
    # freedom, p = 0.018 alone; C and D are noise, so every other pair's p is larger and
    # A - B's adjusted p is 6 x 0.018 = 0.108: not significant over the six pairs.
    a = [5, 3, 4, 6, 2, 4]
    b = [2, 2, 2, 2, 2, 2]
    c = [900, -800, 50, -700, 1000, -400]
    d = [-300, 600, -900, 400, 100, -200]
    agg = Aggregator(["A", "B", "C", "D"])
    for n, points in enumerate(zip(a, b, c, d, strict=True)):
        tallies = [PlayerTally(points=x, hands=1) for x in points]
        agg.add(DealRecord(n, n, [MatchRecord((0, 1, 2, 3), points, tallies)]))
    result = agg.result({}, partial=False, elapsed=1.0)
    ab = result.pair("A", "B")
    assert ab.diff.excludes_zero and ab.p_value == pytest.approx(0.018, abs=0.001)
    assert min(p.p_value for p in result.pairs) == ab.p_value
    assert ab.p_holm == pytest.approx(6 * ab.p_value)
    assert not ab.significant
    assert ab.verdict == "A ahead of B, not significant over all pairs (Holm)"
    assert result.pair("B", "A").p_holm == ab.p_holm  # either order
    assert result.to_json()["pairs"][0]["p_holm"] == pytest.approx(ab.p_holm, rel=1e-3)

    # the same two bots alone: one comparison, so the interval decides
    alone = Aggregator(["A", "B", "B", "B"])
    for n, (x, y) in enumerate(zip(a, b, strict=True)):
        points = (x, y, y, y)
        tallies = [PlayerTally(points=v, hands=1) for v in points]
        alone.add(DealRecord(n, n, [MatchRecord((0, 1, 2, 3), points, tallies)]))
    pair = alone.result({}, partial=False, elapsed=1.0).pair("A", "B")
    assert pair.significant and pair.p_holm == pair.p_value
    assert pair.verdict == "A beats B"
