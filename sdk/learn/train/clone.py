"""Stage 2: behaviour cloning, a network that answers as the teacher did.

Cross-entropy of the teacher's action over the legal actions (the mask), minibatch Adam,
a held-out share of the decisions to report agreement. A checkpoint after each epoch
(``clone.pt``) lets a stopped run go on where it was; the same seed gives the same
network.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

from sdk.learn.action_space import N_ACTIONS
from sdk.learn.encoding import OBS_SIZE, section
from sdk.learn.features import with_features
from sdk.learn.mlp import MLP
from sdk.learn.train.model import TorchMLP, masked_logits
from sdk.learn.train.progress import bar

__all__ = ["KEPT", "CloneConfig", "clone"]

KEPT = ("hand", "table", "decision", "claim_tile", "claim_from", "banned")
"""The observation's sections a clone without ``raw`` reads besides the features."""


@dataclass(frozen=True)
class CloneConfig:
    """How the clone is trained."""

    hidden: tuple[int, ...] = (512, 256)
    features: bool = True
    """Append :mod:`sdk.learn.features` to the observation (shanten and acceptance of
    each discard, defensive's estimates): the clone agrees with defensive far more
    often with them."""
    raw: bool = False
    """Read the whole observation too. Without it (and with ``features``) the network
    reads the features and :data:`KEPT` alone: the rest of the observation (the rivers'
    order, the melds' detail) only let it memorise the teacher's games (held-out
    agreement 95.5% with it, 99.2% without)."""
    epochs: int = 8
    batch: int = 512
    lr: float = 1e-3
    held_out: float = 0.05
    seed: int = 0


def clone(
    run: Path, dataset: Path, config: CloneConfig, show: bool | None = None
) -> tuple[MLP, float]:
    """Train (or finish training) the clone; return it as numpy and its held-out agreement."""
    torch.manual_seed(config.seed)
    x, m, y = _load(dataset)
    if config.features:
        x = with_features(x)
    rng = np.random.default_rng(config.seed)
    order = rng.permutation(len(y))
    cut = max(1, int(len(y) * config.held_out))
    test, train = order[:cut], order[cut:]
    mean, scale = _normalisation(x[train], config.raw or not config.features)
    model = TorchMLP(mean, scale, (x.shape[1], *config.hidden, N_ACTIONS), config.features)
    opt = torch.optim.Adam(model.parameters(), lr=config.lr)
    start = _resume(run / "clone.pt", model, opt)
    steps = -(-len(train) // config.batch)
    with bar("clone", config.epochs * steps, start * steps, show) as advance:
        for epoch in range(start, config.epochs):
            perm = np.random.default_rng([config.seed, epoch]).permutation(train)
            for i in range(steps):
                rows = perm[i * config.batch : (i + 1) * config.batch]
                loss = _loss(model, x[rows], m[rows], y[rows])
                opt.zero_grad()
                loss.backward()
                opt.step()
                advance(note=f"epoch {epoch + 1} loss {loss.item():.3f}")
            torch.save(
                {"model": model.state_dict(), "opt": opt.state_dict(), "epoch": epoch + 1},
                run / "clone.pt",
            )
    return model.to_numpy(), agreement(model.to_numpy(), x[test], m[test], y[test])


def agreement(net: MLP, x: np.ndarray, m: np.ndarray, y: np.ndarray) -> float:
    """The share of decisions where the network picks the teacher's action (``x`` as
    the first layer reads it)."""
    logits = np.where(m > 0, net.logits_of_inputs(x), -np.inf)
    return float((logits.argmax(axis=1) == y).mean()) if len(y) else float("nan")


def _load(path: Path) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    with np.load(path) as data:
        return data["observation"], data["mask"], data["action"].astype(np.int64)


def _normalisation(x: np.ndarray, raw: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """Per-column mean and 1/std; without ``raw``, 0 and 0 for the observation's
    columns outside :data:`KEPT` (the first layer then ignores them)."""
    mean = x.mean(axis=0)
    std = x.std(axis=0)
    scale = 1.0 / np.where(std > 1e-3, std, 1.0)
    if not raw:
        ignored = np.ones(x.shape[1], bool)
        ignored[OBS_SIZE:] = False
        for name in KEPT:
            ignored[section(name)] = False
        mean[ignored] = scale[ignored] = 0.0
    return mean.astype(np.float32), scale.astype(np.float32)


def _loss(model: TorchMLP, x: np.ndarray, m: np.ndarray, y: np.ndarray) -> torch.Tensor:
    logits = masked_logits(model(torch.from_numpy(x)), torch.from_numpy(m))
    return torch.nn.functional.cross_entropy(logits, torch.from_numpy(y))


def _resume(path: Path, model: TorchMLP, opt: torch.optim.Optimizer) -> int:
    if not path.exists():
        return 0
    state = torch.load(path, weights_only=True)
    model.load_state_dict(state["model"])
    opt.load_state_dict(state["opt"])
    return int(state["epoch"])
