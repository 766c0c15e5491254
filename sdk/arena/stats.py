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

__all__ = ["Interval", "mean_interval", "paired_interval", "t_cdf", "t_quantile"]


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
    if len(a) != len(b):
        raise ValueError("paired observations need lists of equal length")
    return mean_interval([x - y for x, y in zip(a, b, strict=True)], level)


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
