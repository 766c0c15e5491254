"""The fitted numbers the evaluator prices a hand with, and where they are stored.

Everything the own-draw evaluator cannot derive from the rules is a table here, fitted
from seeded self-play by ``python -m sdk.expect.fit`` and shipped as
``sdk/expect/data/model.json``:

* ``hazard[t][w]``: the chance that another seat wins (not on our discard) between our
  discard and our next draw, by the visible threat bucket ``t`` (:func:`threat_bucket`)
  and the drawable tiles bucket ``w`` (``drawable // 8``).
* ``other_loss``: what such a win costs us on average (our share of a self-draw; nothing
  when a third seat deals in).
* ``deal_in_loss``: what dealing in costs on average (R15: 1000 + 500 x tai).
* ``danger_scale``: defensive's per-tile deal-in estimate times this is the observed rate.
* ``ron_rate[c]``: per unseen copy of a winning kind of tile-value class ``c``
  (:func:`bots.greedy.tile_value`), the chance per go-round that an opponent throws it.
* ``leaf_*[s][k]``: beyond the exact depth, a hand at shanten ``s`` with ``k`` own draws
  left: win chance, expected win points and expected net points.

>>> model = load_model()
>>> 0 < model.hazard_at(0, 40) < 1, model.deal_in_loss > 1000
(True, True)
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from importlib import resources
from pathlib import Path

__all__ = ["MODEL_FILE", "Model", "load_model", "threat_bucket"]

MODEL_FILE = "model.json"
THREAT_BUCKETS = 4
WALL_BUCKET = 8
LEAF_SHANTEN = 7
LEAF_DRAWS = 20


def threat_bucket(threats: float) -> int:
    """The summed chance that an opponent is waiting, in four buckets.

    >>> threat_bucket(0.0), threat_bucket(0.6), threat_bucket(2.5)
    (0, 1, 3)
    """
    return min(int(threats * 2), THREAT_BUCKETS - 1)


@dataclass(frozen=True)
class Model:
    """The fitted numbers (see the module docstring); plain tuples, read on hot paths."""

    hazard: tuple[tuple[float, ...], ...]
    other_loss: float
    deal_in_loss: float
    danger_scale: float
    ron_rate: tuple[float, ...]
    leaf_win: tuple[tuple[float, ...], ...]
    leaf_points: tuple[tuple[float, ...], ...]
    leaf_value: tuple[tuple[float, ...], ...]
    source: str = ""

    def hazard_at(self, bucket: int, drawable: int) -> float:
        """``hazard`` for a threat bucket at ``drawable`` tiles left."""
        row = self.hazard[min(bucket, len(self.hazard) - 1)]
        return row[min(max(drawable, 0) // WALL_BUCKET, len(row) - 1)]

    def leaf(self, shanten: int, draws: int) -> tuple[float, float, float]:
        """``(win, win points, net value)`` of a hand beyond the exact depth."""
        s = min(max(shanten, 0), len(self.leaf_win) - 1)
        k = min(max(draws, 0), len(self.leaf_win[s]) - 1)
        return self.leaf_win[s][k], self.leaf_points[s][k], self.leaf_value[s][k]

    def to_json(self) -> dict:
        """The model as JSON-ready lists."""
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict) -> Model:
        """The inverse of :meth:`to_json`."""

        def rows(v: list) -> tuple[tuple[float, ...], ...]:
            return tuple(tuple(float(x) for x in r) for r in v)

        return cls(
            hazard=rows(data["hazard"]),
            other_loss=float(data["other_loss"]),
            deal_in_loss=float(data["deal_in_loss"]),
            danger_scale=float(data["danger_scale"]),
            ron_rate=tuple(float(x) for x in data["ron_rate"]),
            leaf_win=rows(data["leaf_win"]),
            leaf_points=rows(data["leaf_points"]),
            leaf_value=rows(data["leaf_value"]),
            source=str(data.get("source", "")),
        )


_CACHE: dict[str, Model] = {}


def load_model(path: str | Path | None = None) -> Model:
    """The shipped model (``sdk/expect/data/model.json``), or the one at ``path``."""
    key = str(path or "")
    model = _CACHE.get(key)
    if model is None:
        if path is None:
            text = resources.files("sdk.expect").joinpath("data", MODEL_FILE).read_text()
        else:
            text = Path(path).read_text()
        model = _CACHE[key] = Model.from_json(json.loads(text))
    return model
