"""The torch side of :class:`sdk.learn.mlp.MLP`: the same network, trainable, and the
conversion both ways (a trained net is saved as numpy arrays and played without torch).

>>> import numpy as np
>>> net = TorchMLP(np.zeros(4, np.float32), np.ones(4, np.float32), (4, 8, 151))
>>> mlp = net.to_numpy()
>>> x = np.ones((2, 4), np.float32)
>>> bool(np.allclose(mlp.logits(x), net(torch.from_numpy(x)).detach().numpy(), atol=1e-5))
True
"""

from __future__ import annotations

import itertools

import numpy as np
import torch
from torch import nn

from sdk.learn.mlp import MLP

__all__ = ["TorchMLP", "masked_logits"]


class TorchMLP(nn.Module):
    """Normalisation (fixed) and ReLU layers of ``sizes``."""

    def __init__(
        self, mean: np.ndarray, scale: np.ndarray, sizes: tuple[int, ...], features: bool = False
    ) -> None:
        super().__init__()
        self.features = features
        self.register_buffer("mean", torch.as_tensor(mean, dtype=torch.float32))
        self.register_buffer("scale", torch.as_tensor(scale, dtype=torch.float32))
        self.layers = nn.ModuleList(nn.Linear(a, b) for a, b in itertools.pairwise(sizes))

    @property
    def width(self) -> int:
        """The number of input features the network reads."""
        return int(self.mean.shape[0])

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = (x[..., : self.width] - self.mean) * self.scale
        for i, layer in enumerate(self.layers):
            x = layer(x)
            if i < len(self.layers) - 1:
                x = torch.relu(x)
        return x

    def to_numpy(self) -> MLP:
        """The same network as :class:`sdk.learn.mlp.MLP` (weights transposed)."""
        layers = tuple(
            (x.weight.detach().numpy().T.copy(), x.bias.detach().numpy().copy())
            for x in self.layers
        )
        return MLP(self.mean.numpy().copy(), self.scale.numpy().copy(), layers, self.features)

    @classmethod
    def from_numpy(cls, net: MLP) -> TorchMLP:
        """A trainable copy of ``net``."""
        sizes = (net.mean.shape[0], *(w.shape[1] for w, _ in net.layers))
        model = cls(net.mean, net.scale, sizes, net.features)
        with torch.no_grad():
            for layer, (w, b) in zip(model.layers, net.layers, strict=True):
                layer.weight.copy_(torch.from_numpy(w.T))
                layer.bias.copy_(torch.from_numpy(b))
        return model


def masked_logits(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Logits with the illegal actions at a large negative value (not -inf: a row with
    no legal action stays finite)."""
    return logits.masked_fill(mask <= 0, -1e9)
