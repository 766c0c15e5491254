"""A PettingZoo AEC environment: four agents, one per seat, on the referee.

Agents ``player_0`` .. ``player_3`` sit at seats 0..3. The agent selected is the one the
referee asks next: after a discard every seat that may claim it is asked in turn (claim
priority from the discarder's next seat, R5), and claims resolve once all have answered,
exactly as at a real table; a seat that cannot claim is not asked. Observations are
``{"observation": float32 vector, "action_mask": int8 vector}``
(:mod:`sdk.learn.encoding`, :mod:`sdk.learn.action_space`); the mask of an agent that
has nothing to decide is all zeros. An action outside the mask raises
:class:`~sdk.learn.action_space.MaskedActionError` naming the legal set, and the
environment is unchanged.

Rewards are points: each hand's payments when it ends (``reward="hand"``) or the
episode's totals at its end (``reward="match"``); an episode is ``hands`` hands of one
match. ``reset(seed=s)`` makes everything that follows reproducible.

>>> env = TaiMahjongAEC(hands=1)
>>> env.reset(seed=42)
>>> while env.agents:
...     obs, reward, terminated, truncated, info = env.last()
...     if terminated or truncated:
...         env.step(None)
...     else:
...         env.step(int(obs["action_mask"].nonzero()[0][-1]))  # pass, or the highest discard
>>> env.agents, sum(env.final_points)  # everyone stepped out; payments sum to zero
([], 0)
"""

from __future__ import annotations

import functools
from typing import Any, ClassVar

import numpy as np
from gymnasium.spaces import Dict, Discrete
from pettingzoo import AECEnv

from sdk.learn.encoder import Encoder
from sdk.learn.episodes import (
    EpisodeConfig,
    EpisodeSeeds,
    action_space,
    observation,
    observation_space,
)
from sdk.learn.game import NO_POINTS, LearningGame

__all__ = ["AGENTS", "TaiMahjongAEC", "env"]

AGENTS = ("player_0", "player_1", "player_2", "player_3")
_SEAT = {agent: seat for seat, agent in enumerate(AGENTS)}


class TaiMahjongAEC(AECEnv):
    """The four-seat AEC environment (see the module docstring)."""

    metadata: ClassVar[dict[str, Any]] = {
        "name": "taimahjong_v1",
        "render_modes": ["ansi"],
        "is_parallelizable": False,
    }

    def __init__(
        self,
        hands: int = 1,
        reward: str = "hand",
        first_dealer: int | None = None,
        oracle: bool = False,
        reward_scale: float = 1.0,
        render_mode: str | None = None,
        features: bool = False,
    ) -> None:
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be None or 'ansi', not {render_mode!r}")
        self.config = EpisodeConfig(hands, reward, first_dealer, oracle, reward_scale, features)
        self.render_mode = render_mode
        self.possible_agents = list(AGENTS)
        self.agents: list[str] = []
        self._seeds = EpisodeSeeds(None)
        self.game: LearningGame | None = None
        self._encoder = Encoder()  # its arrays serve one episode after another
        self.final_points: list[int] = [0, 0, 0, 0]
        """Each seat's points over the last finished episode."""

    @functools.cache  # noqa: B019  (PettingZoo wants the same object back)
    def observation_space(self, agent: str) -> Dict:
        return observation_space(self.config.oracle, self.config.features)

    @functools.cache  # noqa: B019
    def action_space(self, agent: str) -> Discrete:
        return action_space()

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:
            self._seeds = EpisodeSeeds(seed)
        match_seed, dealer = self._seeds.next(self.config.first_dealer)
        self.game = LearningGame(
            match_seed, self.config.hands, dealer, self.config.reward, self._encoder
        )
        self.agents = list(AGENTS)
        self.rewards = dict.fromkeys(AGENTS, 0.0)
        self._cumulative_rewards = dict.fromkeys(AGENTS, 0.0)
        self.terminations = dict.fromkeys(AGENTS, False)
        self.truncations = dict.fromkeys(AGENTS, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in AGENTS}
        self._totals = [0, 0, 0, 0]
        self._rewarded = False
        self.agent_selection = AGENTS[self.game.next_seat()]  # type: ignore[index]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        assert self.game is not None, "call reset() first"
        game, seat = self.game, _SEAT[agent]
        return {"observation": observation(game, seat, self.config), "action_mask": game.mask(seat)}

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        game = self.game
        assert game is not None
        points = game.step(_SEAT[agent], action)  # type: ignore[arg-type]  # raises, unchanged, if illegal
        self._cumulative_rewards[agent] = 0.0
        if points is NO_POINTS and not self._rewarded:  # the usual step: no hand ended
            self.agent_selection = AGENTS[game.next_seat()]  # type: ignore[index]
            return
        if any(points) or self._rewarded:  # rewards are zero between hand ends
            scale = self.config.reward_scale
            for s, a in enumerate(AGENTS):
                self.rewards[a] = points[s] * scale
            self._totals = [t + p for t, p in zip(self._totals, points, strict=True)]
            self._rewarded = any(points)
            self._accumulate_rewards()
        if game.is_over:
            self.final_points = list(self._totals) if self.config.reward == "hand" else points
            for a in AGENTS:
                self.terminations[a] = True
                self.infos[a] = {"points": self.final_points[AGENTS.index(a)]}
        else:
            self.agent_selection = AGENTS[game.next_seat()]  # type: ignore[index]

    def render(self) -> str | None:
        if self.render_mode is None or self.game is None:
            return None
        view = self.game.views[AGENTS.index(self.agent_selection)]
        return f"{self.agent_selection}: {view!r}"

    def close(self) -> None:
        self.game = None


def env(**kwargs: Any) -> TaiMahjongAEC:
    """The environment, PettingZoo-style (``env = sdk.learn.aec.env(hands=4)``)."""
    return TaiMahjongAEC(**kwargs)
