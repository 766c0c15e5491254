"""Neural: a trained policy network, played on numpy alone.

The network reads the observation every learning tool uses (:mod:`sdk.learn.encoding`)
and scores the 151 actions (:mod:`sdk.learn.action_space`); the bot plays the legal
action of highest score. The weights it ships with (``bots/data/neural.npz``) were
trained by ``python -m sdk.learn.train`` (behaviour cloning of ``bots.defensive``, see
``docs/LEARNING.md`` for the recipe, its figures and how to train your own). Another
weights file is one option away, on the command line or in a bot spec:

.. code-block:: sh

    python -m bots.neural --local --weights run/policy.npz
    python -m sdk.arena "bots.neural?weights=run/policy.npz" greedy greedy greedy

A decision is one encoding and three matrix products: well under a millisecond.

>>> from sdk.local import play_match
>>> result = play_match([NeuralBot()] + [NeuralBot() for _ in range(3)], seed=3, hands=1)
>>> sum(result.scores), max(s.fallbacks for s in result.stats)
(0, 0)
"""

from __future__ import annotations

import argparse
import functools
import sys
from collections.abc import Sequence
from pathlib import Path

try:
    from sdk.learn.mlp import MLP, MLPPolicy
    from sdk.learn.policy import PolicyBot
except ImportError as exc:  # numpy comes with the rl extra
    why = f"bots.neural needs numpy: pip install '.[rl]' in a clone ({exc})"
    if __name__ == "__main__":
        sys.exit(f"error: {why}")
    raise ImportError(why) from None

__all__ = ["DEFAULT_WEIGHTS", "NeuralBot"]

DEFAULT_WEIGHTS = Path(__file__).with_name("data") / "neural.npz"
"""The shipped policy."""

_LOADED: dict[Path, MLP] = {}


class NeuralBot(PolicyBot):
    """Plays the policy in ``weights`` (a file of :mod:`sdk.learn.mlp`'s format; the
    shipped one by default). Files are read once per process."""

    def __init__(self, weights: str | Path | None = None) -> None:
        path = Path(weights).expanduser().resolve() if weights else DEFAULT_WEIGHTS
        net = _LOADED.get(path)
        if net is None:
            net = _LOADED[path] = MLP.load(path)
        name = "neural" if path == DEFAULT_WEIGHTS else f"neural:{path.stem}"
        super().__init__(MLPPolicy(net, name), name=name)


def _add_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--weights", metavar="FILE", help="a policy file to play (default: the shipped one)"
    )


def _make(args: argparse.Namespace) -> functools.partial[NeuralBot]:
    if args.weights and not Path(args.weights).is_file():
        raise ValueError(f"--weights: no such file {args.weights}")
    return functools.partial(NeuralBot, args.weights)


def main(argv: Sequence[str] | None = None) -> None:
    """``python -m bots.neural``: the bot command line, with ``--weights``."""
    from sdk.cli import BotOptions, run

    run(NeuralBot, argv, options=BotOptions(_add_options, _make))


if __name__ == "__main__":
    main()
