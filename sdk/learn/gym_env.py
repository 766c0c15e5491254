"""A Gymnasium single-agent environment: the learner at one seat, SDK bots at the others.

The other three seats are any SDK bots (spec strings such as ``"bots.greedy"``, classes
or factories, as the arena takes them; :mod:`sdk.learn.opponents` plays them exactly as
a table would). ``step`` plays the learner's action, then the bots, until the learner
must decide again or the episode ends. Observations are the PettingZoo-style dict
``{"observation", "action_mask"}``; the reward is the learner's points (each hand's when
it ends, or the episode's total at the end with ``reward="match"``).

An index outside the mask raises :class:`~sdk.learn.action_space.MaskedActionError`
naming the legal set, and nothing changes. ``env.action_space.sample()`` draws a
*legal* action (uniformly, from the action space's own seeded generator; see
:class:`LegalSample`), which is what a random agent and Gymnasium's ``check_env`` need.

>>> env = TaiMahjongGymEnv(opponents=["bots.random"] * 3)
>>> obs, info = env.reset(seed=1)
>>> done = False
>>> while not done:
...     obs, reward, done, truncated, info = env.step(env.action_space.sample())
>>> info["points"] == reward  # one hand: the reward is its points
True
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import gymnasium
import numpy as np
from gymnasium.spaces import Discrete

from sdk.arena.loader import BotSource, load_bot
from sdk.learn.action_space import N_ACTIONS
from sdk.learn.encoder import Encoder
from sdk.learn.episodes import EpisodeConfig, EpisodeSeeds, observation_space
from sdk.learn.game import LearningGame
from sdk.learn.opponents import Opponents

__all__ = ["LegalDiscrete", "LegalSample", "TaiMahjongGymEnv"]


class LegalSample(int):
    """What :meth:`LegalDiscrete.sample` returns: a legal index of the decision it was
    drawn at, carrying the uniform draw that chose it. If the environment has moved on
    (typically: reset) before it is played, it stands for the legal action that the same
    draw picks now. A plain integer gets no such help: outside the mask, it raises."""

    draw: float

    def __new__(cls, index: int, draw: float) -> LegalSample:
        self = super().__new__(cls, index)
        self.draw = draw
        return self

    def resolve(self, mask: np.ndarray) -> int:
        """This index if legal under ``mask``, else the legal index the draw picks."""
        if mask[int(self)]:
            return int(self)
        legal = np.flatnonzero(mask)
        return int(legal[int(self.draw * len(legal))]) if len(legal) else int(self)


class LegalDiscrete(Discrete):
    """``Discrete(N_ACTIONS)`` whose ``sample()`` without a mask draws uniformly among
    the legal actions of the environment's current decision (a :class:`LegalSample`)."""

    def __init__(self, env: TaiMahjongGymEnv) -> None:
        super().__init__(N_ACTIONS)
        self._env = env

    def sample(self, mask: Any = None, probability: Any = None) -> Any:
        game = self._env.game
        if mask is not None or probability is not None or game is None:
            return super().sample(mask=mask, probability=probability)
        legal = np.flatnonzero(game.mask(self._env.seat))
        draw = float(self.np_random.random())
        return LegalSample(int(legal[int(draw * len(legal))]) if len(legal) else 0, draw)


class TaiMahjongGymEnv(gymnasium.Env):
    """See the module docstring. ``seat`` is the learner's seat, or ``None`` to draw it
    for each episode from the seed."""

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi"]}

    def __init__(
        self,
        opponents: Sequence[BotSource] = ("bots.random", "bots.random", "bots.random"),
        seat: int | None = 0,
        hands: int = 1,
        reward: str = "hand",
        first_dealer: int | None = None,
        oracle: bool = False,
        reward_scale: float = 1.0,
        render_mode: str | None = None,
    ) -> None:
        if len(opponents) != 3:
            raise ValueError(f"give three opponents, not {len(opponents)}")
        if seat is not None and seat not in range(4):
            raise ValueError(f"seat must be 0..3 or None, not {seat!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be None or 'ansi', not {render_mode!r}")
        self.config = EpisodeConfig(hands, reward, first_dealer, oracle, reward_scale)
        self.factories = [load_bot(b) for b in opponents]
        self.fixed_seat = seat
        self.seat = 0 if seat is None else seat
        self.render_mode = render_mode
        self.observation_space = observation_space(oracle)
        self.action_space = LegalDiscrete(self)
        self.game: LearningGame | None = None
        self._encoder = Encoder()  # its arrays serve one episode after another
        self.opponents: Opponents | None = None
        self._seeds = EpisodeSeeds(None)
        self._points = 0

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        super().reset(seed=seed)
        if seed is not None:
            self._seeds = EpisodeSeeds(seed)
            self.action_space.seed(seed)
        while True:  # an episode over before the learner's first decision is skipped
            self._start()
            self._points = 0
            self._advance()
            if not self.game.is_over:  # type: ignore[union-attr]
                return self._obs(), {"seat": self.seat}

    def _start(self) -> None:
        seeds = self._seeds
        match_seed, dealer = seeds.next(self.config.first_dealer)
        self.seat = seeds.rng.randrange(4) if self.fixed_seat is None else self.fixed_seat
        others = [s for s in range(4) if s != self.seat]
        bots = {s: f.make(seeds.bot_seed()) for s, f in zip(others, self.factories, strict=True)}
        self.game = LearningGame(
            match_seed, self.config.hands, dealer, self.config.reward, self._encoder
        )
        self.opponents = Opponents(bots, self.config.hands)
        self.opponents.feed(self.game.last_events)

    def step(self, action: int) -> tuple[dict[str, np.ndarray], float, bool, bool, dict[str, Any]]:
        game = self.game
        if game is None:
            raise RuntimeError("call reset() before step()")
        if game.is_over:
            raise RuntimeError("the episode is over: call reset()")
        if isinstance(action, LegalSample):
            action = action.resolve(game.mask(self.seat))
        points = game.step(self.seat, action)[self.seat]  # raises, unchanged, if illegal
        self.opponents.feed(game.last_events)  # type: ignore[union-attr]
        points += self._advance()
        self._points += points
        info = {"seat": self.seat, "points": self._points}
        reward = float(points * self.config.reward_scale)
        return self._obs(), reward, game.is_over, False, info

    def _advance(self) -> int:
        """Let the bots play until the learner must decide or the episode ends; return
        the learner's points meanwhile."""
        game, table, me = self.game, self.opponents, self.seat
        assert game is not None and table is not None
        points = 0
        while not game.is_over:
            pending = game.pending_seats()
            if me in pending:
                break
            seat = pending[0]
            points += game.play(seat, table.decide(seat, game.legal(seat)))[me]
            table.feed(game.last_events)
        return points

    def _obs(self) -> dict[str, np.ndarray]:
        game = self.game
        assert game is not None
        obs = game.observe_oracle(self.seat) if self.config.oracle else game.observe(self.seat)
        return {"observation": obs, "action_mask": game.mask(self.seat)}

    def render(self) -> str | None:
        if self.render_mode is None or self.game is None:
            return None
        return repr(self.game.views[self.seat])
