"""Stage 1: the teacher's games, recorded and encoded into a dataset.

>>> from pathlib import Path
>>> import tempfile, numpy as np
>>> with tempfile.TemporaryDirectory() as run:
...     path = make_dataset(Path(run), teacher="bots.greedy", hands=4, seed=0)
...     with np.load(path) as data:
...         print(data["observation"].shape[1], data["mask"].shape[1], len(data["action"]) > 50)
1104 151 True
"""

from __future__ import annotations

from pathlib import Path

from sdk.arena import run_arena
from sdk.learn.dataset import build_dataset

__all__ = ["make_dataset"]


def make_dataset(
    run: Path, *, teacher: str, hands: int, seed: int, workers: int | None = 1
) -> Path:
    """``run/bc.npz`` from ``hands`` hands of four ``teacher`` bots (kept if there)."""
    out = run / "bc.npz"
    if out.exists():
        return out
    records = run / "records"
    run_arena(
        [teacher] * 4,
        hands=hands,
        seed=seed,
        match_hands=4,
        backend="local" if workers == 1 else "process",
        workers=workers,
        save_logs=records,
    )
    build_dataset([records], out.with_suffix(".tmp.npz"))
    out.with_suffix(".tmp.npz").rename(out)
    return out
