"""Seeding episodes: one seed makes the whole sequence of episodes reproducible.

``reset(seed=s)`` in either environment starts an :class:`EpisodeSeeds` from ``s``; each
episode then takes its match seed (and, unless fixed, the first dealer) from it, so the
same seed and the same actions give the same games, byte for byte.

>>> a, b = EpisodeSeeds(5), EpisodeSeeds(5)
>>> [a.next() for _ in range(3)] == [b.next() for _ in range(3)]
True
"""

from __future__ import annotations

import random
from dataclasses import dataclass

import numpy as np
from gymnasium.spaces import Box, Dict, Discrete

from sdk.learn.action_space import N_ACTIONS
from sdk.learn.encoding import OBS_SIZE, ORACLE_SIZE
from sdk.learn.features import N_FEATURES, discard_features
from sdk.learn.game import LearningGame

_BOUND = 1e6

__all__ = ["EpisodeConfig", "EpisodeSeeds", "action_space", "observation", "observation_space"]


@dataclass(frozen=True, slots=True)
class EpisodeConfig:
    """What an episode is: ``hands`` hands of one match; ``reward`` ``"hand"`` (each
    hand's points when it ends) or ``"match"`` (the total at the end); ``first_dealer``
    fixed, or ``None`` to draw it from the seed; ``oracle`` observations add the hidden
    tiles (:func:`sdk.learn.encoding.encode_oracle`); rewards are multiplied by
    ``reward_scale``; ``features`` appends :func:`sdk.learn.features.discard_features`
    (the shanten and acceptance each discard and claim leaves) to the observation."""

    hands: int = 1
    reward: str = "hand"
    first_dealer: int | None = None
    oracle: bool = False
    reward_scale: float = 1.0
    features: bool = False

    def __post_init__(self) -> None:
        if self.hands < 1:
            raise ValueError(f"an episode has at least one hand, not {self.hands}")
        if self.reward not in ("hand", "match"):
            raise ValueError(f"reward must be 'hand' or 'match', not {self.reward!r}")
        if self.first_dealer is not None and self.first_dealer not in range(4):
            raise ValueError(f"first_dealer must be a seat 0..3 or None, not {self.first_dealer}")


class EpisodeSeeds:
    """The match seeds and first dealers of successive episodes, from one seed."""

    __slots__ = ("rng",)

    def __init__(self, seed: int | None) -> None:
        self.rng = random.Random(seed)

    def next(self, first_dealer: int | None = None) -> tuple[int, int]:
        """``(match seed, first dealer)`` of the next episode."""
        seed = self.rng.getrandbits(63)
        dealer = self.rng.randrange(4)
        return seed, dealer if first_dealer is None else first_dealer

    def bot_seed(self) -> int:
        """A seed for an opponent bot of the next episode."""
        return self.rng.getrandbits(63)


def observation_space(oracle: bool = False, features: bool = False) -> Dict:
    """``{"observation": Box, "action_mask": Box(0/1 int8)}``, the PettingZoo classic
    convention. The Box bounds are loose (the features are raw counts, tile ids and
    scores / 1000; see the layout). ``features`` adds
    :data:`~sdk.learn.features.N_FEATURES` columns at the end."""
    size = (ORACLE_SIZE if oracle else OBS_SIZE) + (N_FEATURES if features else 0)
    return Dict(
        {
            "observation": Box(-_BOUND, _BOUND, (size,), np.float32),
            "action_mask": Box(0, 1, (N_ACTIONS,), np.int8),
        }
    )


def action_space() -> Discrete:
    """One index per action (:mod:`sdk.learn.action_space`)."""
    return Discrete(N_ACTIONS)


def observation(game: LearningGame, seat: int, config: EpisodeConfig) -> np.ndarray:
    """``seat``'s observation as ``config`` asks: plain or oracle, with the features
    appended or not (the ``"observation"`` of :func:`observation_space`)."""
    obs = game.observe_oracle(seat) if config.oracle else game.observe(seat)
    if config.features:
        return np.concatenate([obs, discard_features(obs)])
    return obs
