"""The time budget: limits as a plain dataclass, and per-decision timing statistics.

>>> Budget().reply_within
2.8
>>> stats = DecisionStats()
>>> for ms in (1, 2, 3, 50):
...     stats.record(ms / 1000)
>>> stats.count, round(stats.percentile(50) * 1000, 1), stats.max * 1000
(4, 2.5, 50.0)
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from sdk.records.outcome import Outcome

__all__ = ["DEFAULT_BUDGET", "Budget", "DecisionStats", "Outcome"]


@dataclass(frozen=True, slots=True)
class Budget:
    """Time limits of a seat, in seconds (RULINGS R17: 3 s per decision).

    ``safety_margin`` is kept back from every decision for the network and the SDK:
    the answer (or the fallback) leaves by ``decision - safety_margin`` after the request
    arrived. The default suits a LAN; raise it for a distant server.
    """

    decision: float = 3.0
    safety_margin: float = 0.2
    startup: float = 30.0

    def __post_init__(self) -> None:
        if not 0 <= self.safety_margin < self.decision:
            raise ValueError("safety_margin must be at least 0 and less than decision")

    @property
    def reply_within(self) -> float:
        """Seconds the bot has from the request to its answer."""
        return self.decision - self.safety_margin


@dataclass(slots=True)
class DecisionStats:
    """Timings and outcomes of a bot's decisions (seconds)."""

    times: list[float] = field(default_factory=list)
    outcomes: dict[str, int] = field(default_factory=dict)

    def record(self, seconds: float, outcome: str = Outcome.OK) -> None:
        self.times.append(seconds)
        self.outcomes[outcome] = self.outcomes.get(outcome, 0) + 1

    def merge(self, other: DecisionStats) -> None:
        self.times.extend(other.times)
        for k, v in other.outcomes.items():
            self.outcomes[k] = self.outcomes.get(k, 0) + v

    @property
    def count(self) -> int:
        return len(self.times)

    @property
    def fallbacks(self) -> int:
        """Decisions answered by the fallback: late, raised or illegal."""
        return self.count - self.outcomes.get(Outcome.OK, 0)

    @property
    def max(self) -> float:
        return max(self.times, default=0.0)

    def percentile(self, p: float) -> float:
        """The p-th percentile (0..100) by linear interpolation; 0 with no decisions."""
        if not self.times:
            return 0.0
        data = sorted(self.times)
        pos = (len(data) - 1) * p / 100
        lo, hi = math.floor(pos), math.ceil(pos)
        return data[lo] + (data[hi] - data[lo]) * (pos - lo)

    def to_json(self) -> dict[str, object]:
        return {
            "decisions": self.count,
            "p50_ms": round(self.percentile(50) * 1000, 3),
            "p99_ms": round(self.percentile(99) * 1000, 3),
            "max_ms": round(self.max * 1000, 3),
            "fallbacks": self.fallbacks,
            "outcomes": dict(self.outcomes),
        }


DEFAULT_BUDGET = Budget()
"""The tournament's budget: 3 s per decision, 0.2 s kept back, 30 s to start up."""
