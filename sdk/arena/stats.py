"""Confidence intervals for arena results: Student's t over independent observations.

Mahjong points are heavy-tailed and the hands of one deal are not independent (the same
walls are replayed under every seating), so the arena never treats a hand as an
observation. Each *deal* contributes one number per bot (its mean points per hand over
all its seats in that deal) and the interval is the t interval of those numbers; a
difference between two bots uses the paired per-deal differences. This module only does
the arithmetic, on plain lists of floats, with no third-party dependency.

>>> iv = mean_interval([1.0, 2.0, 3.0, 6.0])
>>> iv.mean, iv.n, round(iv.low, 3), round(iv.high, 3)
(3.0, 4, -0.437, 6.437)
>>> iv.excludes_zero
False
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist

__all__ = [
    "Interval",
    "holm",
    "mean_interval",
    "paired_interval",
    "paired_p",
    "t_cdf",
    "t_quantile",
    "t_test_p",
]


@dataclass(frozen=True, slots=True)
class Interval:
    """A mean with its two-sided confidence interval over ``n`` observations.

    ``low`` and ``high`` are NaN when ``n < 2`` (no spread to estimate)."""

    mean: float
    low: float
    high: float
    n: int
    level: float = 0.95

    @property
    def half_width(self) -> float:
        """Half the interval's width."""
        return (self.high - self.low) / 2

    @property
    def excludes_zero(self) -> bool:
        """True when the whole interval is on one side of 0 (a significant difference)."""
        return self.low > 0 or self.high < 0

    def to_json(self, digits: int = 3) -> dict[str, float | int | None]:
        """A plain dict, rounded to ``digits``."""

        def num(x: float) -> float | None:
            return None if math.isnan(x) else round(x, digits)

        return {"mean": num(self.mean), "low": num(self.low), "high": num(self.high), "n": self.n}


def mean_interval(values: Sequence[float], level: float = 0.95) -> Interval:
    """The mean of ``values`` with the t interval ``mean ± t(level, n-1) · s / √n``.

    >>> mean_interval([5.0, 5.0, 5.0])
    Interval(mean=5.0, low=5.0, high=5.0, n=3, level=0.95)
    >>> mean_interval([2.0]).high
    nan
    """
    n = len(values)
    if n == 0:
        return Interval(math.nan, math.nan, math.nan, 0, level)
    mean = math.fsum(values) / n
    if n == 1:
        return Interval(mean, math.nan, math.nan, 1, level)
    variance = math.fsum((v - mean) ** 2 for v in values) / (n - 1)
    half = t_quantile((1 + level) / 2, n - 1) * math.sqrt(variance / n)
    return Interval(mean, mean - half, mean + half, n, level)


def paired_interval(a: Sequence[float], b: Sequence[float], level: float = 0.95) -> Interval:
    """The interval of the mean of ``a[i] - b[i]`` (observations paired by deal).

    >>> paired_interval([3.0, 1.0, 2.0], [1.0, 1.0, 1.0]).mean
    1.0
    """
    return mean_interval(_differences(a, b), level)


def paired_p(a: Sequence[float], b: Sequence[float]) -> float:
    """The two-sided p-value of the paired t test of ``a[i] - b[i]``
    (:func:`t_test_p` of the differences).

    >>> paired_p([3.0, 1.0, 2.0], [3.0, 1.0, 2.0])
    1.0
    """
    return t_test_p(_differences(a, b))


def _differences(a: Sequence[float], b: Sequence[float]) -> list[float]:
    if len(a) != len(b):
        raise ValueError("paired observations need lists of equal length")
    return [x - y for x, y in zip(a, b, strict=True)]


def t_test_p(values: Sequence[float]) -> float:
    """The two-sided p-value of Student's t test that the mean of ``values`` is 0: the
    chance of a mean this far from 0 if there were no difference. ``p < 1 - level``
    exactly when :func:`mean_interval` at ``level`` excludes 0. NaN for fewer than two
    values; with no spread, 1.0 if every value is 0, else 0.0.

    >>> round(t_test_p([1.0, 2.0, 3.0, 6.0]), 4), t_test_p([2.0, 2.0]), t_test_p([1.0])
    (0.0691, 0.0, nan)
    """
    n = len(values)
    if n < 2:
        return math.nan
    mean = math.fsum(values) / n
    variance = math.fsum((v - mean) ** 2 for v in values) / (n - 1)
    if variance == 0:
        return 1.0 if mean == 0 else 0.0
    t = abs(mean) / math.sqrt(variance / n)
    return min(1.0, 2 * (1 - t_cdf(t, n - 1)))


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm's step-down adjustment of the p-values of several comparisons made at once,
    in their order: a comparison is significant at level ``alpha`` for the whole family
    (the chance of *any* false "significant" stays under ``alpha``) when its adjusted
    value is below ``alpha``. With six pairs of four bots, six unadjusted 95% tests say
    "significant" by chance far more often than one time in twenty. NaN values (no
    test) stay NaN and do not count as comparisons.

    >>> holm([0.01, 0.04, 0.03])
    [0.03, 0.06, 0.06]
    >>> holm([0.2, float("nan")])
    [0.2, nan]
    """
    tested = sorted((p, i) for i, p in enumerate(p_values) if not math.isnan(p))
    out = [math.nan] * len(p_values)
    running = 0.0
    for rank, (p, i) in enumerate(tested):
        running = max(running, min(1.0, (len(tested) - rank) * p))
        out[i] = running
    return out


def t_cdf(t: float, df: float) -> float:
    """P(T <= t) for Student's t with ``df`` degrees of freedom.

    >>> t_cdf(0.0, 5), round(t_cdf(12.7062047, 1), 6)
    (0.5, 0.975)
    """
    x = df / (df + t * t)
    tail = 0.5 * _betainc(df / 2, 0.5, x)
    return 1 - tail if t > 0 else tail


def t_quantile(p: float, df: float) -> float:
    """The ``p`` quantile of Student's t (inverse of :func:`t_cdf`), by bisection.

    >>> [round(t_quantile(0.975, df), 4) for df in (1, 3, 10, 30)]
    [12.7062, 3.1824, 2.2281, 2.0423]
    """
    if not 0 < p < 1 or df <= 0:
        raise ValueError("t_quantile needs 0 < p < 1 and df > 0")
    if p < 0.5:
        return -t_quantile(1 - p, df)
    if df > 1e7:
        return NormalDist().inv_cdf(p)
    lo, hi = 0.0, 1.0
    while t_cdf(hi, df) < p:
        lo, hi = hi, hi * 2
    for _ in range(200):
        mid = (lo + hi) / 2
        if t_cdf(mid, df) < p:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-12 * max(1.0, hi):
            break
    return (lo + hi) / 2


def _betainc(a: float, b: float, x: float) -> float:
    """The regularized incomplete beta function I_x(a, b) (continued fraction)."""
    if x <= 0:
        return 0.0
    if x >= 1:
        return 1.0
    log_front = (
        math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    )
    if x < (a + 1) / (a + b + 2):
        return math.exp(log_front) * _beta_fraction(a, b, x) / a
    return 1 - math.exp(log_front) * _beta_fraction(b, a, 1 - x) / b


def _beta_fraction(a: float, b: float, x: float) -> float:
    """Lentz's evaluation of the incomplete beta continued fraction."""
    tiny = 1e-300
    c, d = 1.0, 1 - (a + b) * x / (a + 1)
    d = 1 / (d if abs(d) > tiny else tiny)
    result = d
    for m in range(1, 500):
        for numerator in (
            m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
            -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1)),
        ):
            d = 1 + numerator * d
            d = 1 / (d if abs(d) > tiny else tiny)
            c = 1 + numerator / c
            c = c if abs(c) > tiny else tiny
            result *= c * d
        if abs(c * d - 1) < 1e-15:
            break
    return result
