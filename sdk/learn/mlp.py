"""A small policy network that plays on numpy alone: the format trained policies ship in.

A policy file is an ``.npz`` with the input normalisation (``mean``, ``scale``, one per
feature of the observation) and the layers ``w0, b0, w1, b1, ...`` of a multilayer
perceptron with ReLUs between them; the last layer gives one logit per action of
:mod:`sdk.learn.action_space`. With ``features`` (a one-element array holding
:data:`~sdk.learn.features.FEATURES_VERSION`) the network reads the observation with
:func:`~sdk.learn.features.with_features` appended. Playing picks the legal action of
highest logit. Training
(:mod:`sdk.learn.train`, which needs torch) writes the same file, so playing needs only
numpy: a few matrix products per decision.

>>> rng = np.random.default_rng(0)
>>> net = MLP.random(rng, sizes=(OBS_SIZE, 8, N_ACTIONS))
>>> policy = MLPPolicy(net)
>>> mask = np.zeros(N_ACTIONS, np.int8)
>>> mask[[3, 150]] = 1
>>> policy(np.zeros(OBS_SIZE, np.float32), mask) in (3, 150)
True
"""

from __future__ import annotations

import contextlib
import itertools
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from sdk.learn.action_space import N_ACTIONS
from sdk.learn.encoding import OBS_SIZE
from sdk.learn.features import FEATURES_VERSION, N_FEATURES, with_features

__all__ = ["MLP", "MLPPolicy", "PolicyFileError"]


class PolicyFileError(ValueError):
    """A policy file that cannot be read as this module's format (names the file)."""


@dataclass(frozen=True)
class MLP:
    """The network: ``(x - mean) * scale`` through ``layers`` of ``(weight, bias)``,
    ReLU between them. ``weight`` is ``(inputs, outputs)``."""

    mean: np.ndarray
    scale: np.ndarray
    layers: tuple[tuple[np.ndarray, np.ndarray], ...]
    features: bool = False
    """Whether the input is the observation with its features appended."""
    _rows: tuple[np.ndarray, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        # one observation is a matrix-vector product per layer, fast with the weights
        # stored output-major (vector @ matrix on input-major weights took 10-30 ms here)
        rows = tuple(np.ascontiguousarray(w.T) for w, _ in self.layers)
        object.__setattr__(self, "_rows", rows)

    @classmethod
    def load(cls, path: str | Path) -> MLP:
        """Read a policy file; a missing or malformed one raises :class:`PolicyFileError`."""
        try:
            with np.load(path) as data:
                arrays = {k: data[k].astype(np.float32) for k in data.files}
        except (OSError, ValueError) as exc:
            raise PolicyFileError(f"{path}: not a policy file ({exc})") from None
        return cls.from_arrays(arrays, str(path))

    @classmethod
    def from_arrays(cls, arrays: dict[str, np.ndarray], name: str = "policy") -> MLP:
        """The network from its named arrays (the file's contents)."""
        n = sum(1 for k in arrays if k.startswith("w"))
        try:
            layers = tuple((arrays[f"w{i}"], arrays[f"b{i}"]) for i in range(n))
            mean, scale = arrays["mean"], arrays["scale"]
        except KeyError as exc:
            raise PolicyFileError(f"{name}: missing array {exc}") from None
        features = "features" in arrays
        if features and int(arrays["features"][0]) != FEATURES_VERSION:
            raise PolicyFileError(
                f"{name}: features version {int(arrays['features'][0])}, "
                f"this SDK computes version {FEATURES_VERSION}"
            )
        net = cls(mean, scale, layers, features)
        net._check(name)
        return net

    @classmethod
    def random(cls, rng: np.random.Generator, sizes: tuple[int, ...]) -> MLP:
        """A network of random weights (for tests and as a starting point)."""
        layers = tuple(
            (rng.normal(0, (2 / a) ** 0.5, (a, b)).astype(np.float32), np.zeros(b, np.float32))
            for a, b in itertools.pairwise(sizes)
        )
        return cls(np.zeros(sizes[0], np.float32), np.ones(sizes[0], np.float32), layers)

    def arrays(self) -> dict[str, np.ndarray]:
        """The named arrays to save (``np.savez_compressed(path, **net.arrays())``)."""
        out = {"mean": self.mean, "scale": self.scale}
        for i, (w, b) in enumerate(self.layers):
            out[f"w{i}"], out[f"b{i}"] = w, b
        if self.features:
            out["features"] = np.array([FEATURES_VERSION], np.int32)
        return out

    def inputs(self, observation: np.ndarray) -> np.ndarray:
        """What the first layer reads: the observation, with its features if the
        network was trained with them."""
        return with_features(observation) if self.features else observation[..., :OBS_SIZE]

    def logits(self, observation: np.ndarray) -> np.ndarray:
        """One logit per action (rows for a batch of observations)."""
        return self.logits_of_inputs(self.inputs(observation))

    def logits_of_inputs(self, inputs: np.ndarray) -> np.ndarray:
        """:meth:`logits` of what :meth:`inputs` made (for batches already prepared)."""
        x = (inputs - self.mean) * self.scale
        single = x.ndim == 1
        with _one_thread() if single else contextlib.nullcontext():
            for i, (w, b) in enumerate(self.layers):
                x = (self._rows[i] @ x if single else x @ w) + b
                if i < len(self.layers) - 1:
                    np.maximum(x, 0, out=x)
        return x

    def _check(self, name: str) -> None:
        width = self.mean.shape[0]
        if self.scale.shape != (width,) or width != OBS_SIZE + N_FEATURES * self.features:
            raise PolicyFileError(f"{name}: normalisation of {width} features does not fit")
        for i, (w, b) in enumerate(self.layers):
            if w.ndim != 2 or w.shape[0] != width or b.shape != (w.shape[1],):
                raise PolicyFileError(
                    f"{name}: layer {i} has shape {w.shape}, expected ({width}, n)"
                )
            width = w.shape[1]
        if width != N_ACTIONS:
            raise PolicyFileError(f"{name}: {width} outputs, the action space has {N_ACTIONS}")


_CONTROLLER: Any = None


def _one_thread() -> contextlib.AbstractContextManager[Any]:
    """BLAS on one thread for one observation's products: with its thread pool, a
    decision cost 6 ms of CPU instead of 0.2 (the threads spin; threadpoolctl, from the
    ``rl`` extra, sets the pool; without it nothing changes)."""
    global _CONTROLLER
    if _CONTROLLER is None:
        try:
            from threadpoolctl import ThreadpoolController

            _CONTROLLER = ThreadpoolController()
        except ImportError:
            _CONTROLLER = False
    if not _CONTROLLER:
        return contextlib.nullcontext()
    return _CONTROLLER.limit(limits=1, user_api="blas")  # type: ignore[no-any-return]


class MLPPolicy:
    """``policy(observation, mask) -> index``: the legal action of highest logit."""

    def __init__(self, net: MLP, name: str = "mlp") -> None:
        self.net = net
        self.name = name

    def __call__(self, observation: np.ndarray, mask: np.ndarray) -> int:
        logits = self.net.logits(observation.astype(np.float32, copy=False))
        return int(np.argmax(np.where(mask > 0, logits, -np.inf)))
