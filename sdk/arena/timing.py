"""Decision times of long runs in constant memory: a log-scale histogram.

A run of 100 000 hands makes millions of decisions; keeping every time (as
:class:`~sdk.budget.DecisionStats` does for one match) would cost hundreds of megabytes in
the parent. Times are instead counted in bins 5 % wide from 1 µs up, so p50 and p99 are
exact to within 5 % (the bin's geometric middle is reported) and the maximum is exact.
Histograms merge by adding counts, so workers send small dicts.

>>> h = TimingHistogram()
>>> for ms in (1, 2, 3, 50):
...     h.add(ms / 1000)
>>> h.count, h.max * 1000
(4, 50.0)
>>> 1.9 < h.percentile(50) * 1000 < 2.1 and 47 < h.percentile(100) * 1000 < 53
True
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field

__all__ = ["TimingHistogram"]

_FLOOR = 1e-6  # seconds: everything faster falls in bin 0
_RATIO = 1.05
_LOG_RATIO = math.log(_RATIO)


def _bin(seconds: float) -> int:
    if seconds <= _FLOOR:
        return 0
    return 1 + int(math.log(seconds / _FLOOR) / _LOG_RATIO)


def _middle(index: int) -> float:
    if index == 0:
        return _FLOOR
    return _FLOOR * _RATIO ** (index - 0.5)


@dataclass(slots=True)
class TimingHistogram:
    """Counts of decision times per bin (seconds), with the exact maximum."""

    bins: dict[int, int] = field(default_factory=dict)
    count: int = 0
    max: float = 0.0

    def add(self, seconds: float) -> None:
        b = _bin(seconds)
        self.bins[b] = self.bins.get(b, 0) + 1
        self.count += 1
        self.max = max(self.max, seconds)

    def add_all(self, times: Iterable[float]) -> None:
        """Add many times (one call per match: the loop of :meth:`add`, inlined)."""
        bins, log, floor, step = self.bins, math.log, _FLOOR, _LOG_RATIO
        n, top = 0, self.max
        for t in times:
            b = 0 if t <= floor else 1 + int(log(t / floor) / step)
            bins[b] = bins.get(b, 0) + 1
            n += 1
            if t > top:
                top = t
        self.count += n
        self.max = top

    def merge(self, other: TimingHistogram) -> None:
        for b, n in other.bins.items():
            self.bins[b] = self.bins.get(b, 0) + n
        self.count += other.count
        self.max = max(self.max, other.max)

    def percentile(self, p: float) -> float:
        """The p-th percentile (0..100) to within one bin (at most the maximum)."""
        if not self.count:
            return 0.0
        rank = p / 100 * (self.count - 1)
        seen = 0
        for b in sorted(self.bins):
            seen += self.bins[b]
            if seen > rank:
                return min(_middle(b), self.max)
        return self.max

    def to_json(self) -> dict[str, float | int]:
        return {
            "decisions": self.count,
            "p50_ms": round(self.percentile(50) * 1000, 3),
            "p99_ms": round(self.percentile(99) * 1000, 3),
            "max_ms": round(self.max * 1000, 3),
        }
