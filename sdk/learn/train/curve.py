"""Stage 4: the learning curve, points per hand against three ``bots.greedy`` by step.

Each point is a duplicate arena run (every deal in the four rotations) of the policy as
``bots.neural`` against three ``bots.greedy``, with its 95% interval over deals. Rows go
to ``curve.csv`` (appended, so a resumed run keeps its history) and the plot to
``curve.png``.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

from sdk.arena import run_arena
from sdk.learn.mlp import MLP

__all__ = ["CurvePoint", "evaluate", "plot"]

FIELDS = ("stage", "step", "points", "low", "high", "hands")


@dataclass(frozen=True)
class CurvePoint:
    """One evaluation: the policy's points per hand with their interval."""

    stage: str
    step: int
    points: float
    low: float
    high: float
    hands: int


def evaluate(
    run: Path, net: MLP, stage: str, step: int, *, hands: int, seed: int, workers: int | None = 1
) -> CurvePoint:
    """Play ``net`` against three greedy bots and append the point to ``curve.csv``."""
    import numpy as np

    path = run / f"eval-{stage}-{step}.npz"
    np.savez_compressed(path, **net.arrays())
    result = run_arena(
        [f"bots.neural?weights={path}", "bots.greedy", "bots.greedy", "bots.greedy"],
        hands=hands,
        seed=seed,
        duplicate=True,
        match_hands=4,
        backend="local" if workers == 1 else "process",
        workers=workers,
    )
    stats = result.bots[0]
    point = CurvePoint(
        stage, step, stats.points.mean, stats.points.low, stats.points.high, result.hands
    )
    _append(run / "curve.csv", point)
    plot(run)
    return point


def read_curve(run: Path) -> list[CurvePoint]:
    """The points so far."""
    path = run / "curve.csv"
    if not path.exists():
        return []
    with path.open() as f:
        return [
            CurvePoint(
                r["stage"],
                int(r["step"]),
                float(r["points"]),
                float(r["low"]),
                float(r["high"]),
                int(r["hands"]),
            )
            for r in csv.DictReader(f)
        ]


def plot(run: Path) -> Path:
    """``curve.png`` from ``curve.csv``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    points = read_curve(run)
    fig, ax = plt.subplots(figsize=(6, 3.5), dpi=100)
    steps = [p.step for p in points]
    ax.errorbar(
        steps,
        [p.points for p in points],
        yerr=[[p.points - p.low for p in points], [p.high - p.points for p in points]],
        fmt="o-",
        capsize=3,
    )
    ax.axhline(0, color="grey", lw=0.8)
    ax.set_xlabel("PPO steps (0: the clone)")
    ax.set_ylabel("points per hand vs 3 greedy")
    ax.set_title("learning curve (95% intervals, duplicate)")
    fig.tight_layout()
    out = run / "curve.png"
    fig.savefig(out)
    plt.close(fig)
    return out


def _append(path: Path, point: CurvePoint) -> None:
    new = not path.exists()
    with path.open("a", newline="") as f:
        writer = csv.DictWriter(f, FIELDS)
        if new:
            writer.writeheader()
        writer.writerow({k: getattr(point, k) for k in FIELDS})
