"""A Gymnasium single-agent environment: the learner at one seat, SDK bots at the others.

The other three seats are any SDK bots (spec strings such as ``"bots.greedy"``, classes
or factories, as the arena takes them; :mod:`sdk.learn.opponents` plays them exactly as
a table would). ``step`` plays the learner's action, then the bots, until the learner
must decide again or the episode ends. Observations are the PettingZoo-style dict
``{"observation", "action_mask"}``; the reward is the learner's points (each hand's when
it ends, or the episode's total at the end with ``reward="match"``), optionally shaped
or taken against a reference bot on the same deal (:mod:`sdk.learn.rewards`).

:meth:`TaiMahjongGymEnv.action_masks` gives the mask as booleans, the convention of
sb3-contrib's ``MaskablePPO``. At the end of an episode nothing is legal, but vector
environments still ask for an action on the step that resets (and ignore it): so the
final observation's mask holds pass alone (:data:`FINAL_MASK`), never all zeros, and a
sampler that draws from it does not fail.

The environment registers itself with Gymnasium as ``taimahjong/Mahjong-v1``:
``gymnasium.make("sdk.learn.gym_env:taimahjong/Mahjong-v1", opponents=[...])`` imports
and makes it in one call; the keyword arguments are the constructor's.

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

from protocol.actions import Action
from sdk.arena.loader import BotSource, load_bot
from sdk.learn.action_space import N_ACTIONS, index_of
from sdk.learn.encoder import Encoder
from sdk.learn.episodes import EpisodeConfig, EpisodeSeeds, observation, observation_space
from sdk.learn.game import LearningGame
from sdk.learn.opponents import Opponents
from sdk.learn.rewards import SHAPINGS, ShantenShaping, reference_points

__all__ = ["ENV_ID", "FINAL_MASK", "LegalDiscrete", "LegalSample", "TaiMahjongGymEnv"]

ENV_ID = "taimahjong/Mahjong-v1"
"""The environment's Gymnasium id (registered when this module is imported)."""

FINAL_MASK = np.zeros(N_ACTIONS, np.int8)
"""The mask of an episode's final observation: pass alone (see the module docstring)."""
FINAL_MASK[index_of(Action.parse("pass"))] = 1
FINAL_MASK.setflags(write=False)


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
    for each episode from the seed. ``shaping`` (``None``, ``"shanten"`` or ``"progress"``, with
    ``shaping_weight`` in points) and ``baseline`` (a bot spec) change the reward as
    :mod:`sdk.learn.rewards` says; ``info["points"]`` stays the learner's plain points.
    ``features`` appends :func:`sdk.learn.features.discard_features` to the observation
    (what each discard and claim leaves: a small network learns to play far sooner)."""

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
        shaping: str | None = None,
        shaping_weight: float = 100.0,
        baseline: BotSource | None = None,
        features: bool = False,
    ) -> None:
        if shaping not in SHAPINGS:
            raise ValueError(f"shaping must be one of {SHAPINGS}, not {shaping!r}")
        if len(opponents) != 3:
            raise ValueError(f"give three opponents, not {len(opponents)}")
        if seat is not None and seat not in range(4):
            raise ValueError(f"seat must be 0..3 or None, not {seat!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be None or 'ansi', not {render_mode!r}")
        self.config = EpisodeConfig(hands, reward, first_dealer, oracle, reward_scale, features)
        self.factories = [load_bot(b) for b in opponents]
        self.fixed_seat = seat
        self.seat = 0 if seat is None else seat
        self.render_mode = render_mode
        self.observation_space = observation_space(oracle, features)
        self.action_space = LegalDiscrete(self)
        self.game: LearningGame | None = None
        self._encoder = Encoder()  # its arrays serve one episode after another
        self.opponents: Opponents | None = None
        self._seeds = EpisodeSeeds(None)
        self._points = 0
        self.shaping = ShantenShaping(shaping_weight) if shaping else None
        self._refund = shaping == "shanten"  # "progress" keeps the last potential at the end
        self.baseline = load_bot(baseline) if baseline is not None else None
        self._potential = 0.0
        self._reference: list[int] = []

    def action_masks(self) -> np.ndarray:
        """The legal actions now as booleans (sb3-contrib's ``MaskablePPO`` calls this)."""
        return self._mask().astype(bool)

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
                self._potential = self._potential_now()
                return self._obs(), {"seat": self.seat}

    def _start(self) -> None:
        seeds = self._seeds
        match_seed, dealer = seeds.next(self.config.first_dealer)
        self.seat = seeds.rng.randrange(4) if self.fixed_seat is None else self.fixed_seat
        others = [s for s in range(4) if s != self.seat]
        bot_seeds = [0, 0, 0, 0]
        for s in others:
            bot_seeds[s] = seeds.bot_seed()
        bots = {s: f.make(bot_seeds[s]) for s, f in zip(others, self.factories, strict=True)}
        self.game = LearningGame(
            match_seed, self.config.hands, dealer, self.config.reward, self._encoder
        )
        self.opponents = Opponents(bots, self.config.hands)
        self.opponents.feed(self.game.last_events)
        if self.baseline is not None:
            bot_seeds[self.seat] = seeds.bot_seed()
            lineup = [self.baseline] * 4
            for s, f in zip(others, self.factories, strict=True):
                lineup[s] = f
            self._reference = reference_points(
                match_seed, self.config.hands, dealer, self.seat, lineup, bot_seeds
            )

    def step(self, action: int) -> tuple[dict[str, np.ndarray], float, bool, bool, dict[str, Any]]:
        game = self.game
        if game is None:
            raise RuntimeError("call reset() before step()")
        if game.is_over:
            raise RuntimeError("the episode is over: call reset()")
        if isinstance(action, LegalSample):
            action = action.resolve(game.mask(self.seat))
        hands_done = len(game.match.results)
        points = game.step(self.seat, action)[self.seat]  # raises, unchanged, if illegal
        self.opponents.feed(game.last_events)  # type: ignore[union-attr]
        points += self._advance()
        self._points += points
        info = {"seat": self.seat, "points": self._points}
        reward = points - self._reference_due(hands_done, len(game.match.results))
        reward += self._shaped()
        return self._obs(), float(reward * self.config.reward_scale), game.is_over, False, info

    def _reference_due(self, before: int, now: int) -> int:
        """The baseline's points for the hands that ended since ``before`` (for
        ``reward="match"``, all of them at the end)."""
        if not self._reference or before == now:
            return 0
        if self.config.reward == "match":
            return sum(self._reference) if self.game.is_over else 0  # type: ignore[union-attr]
        return sum(self._reference[before:now])

    def _shaped(self) -> float:
        """The shaping term: the potential now minus the potential at the last decision."""
        if self.shaping is None:
            return 0.0
        before, self._potential = self._potential, self._potential_now()
        return self._potential - before

    def _potential_now(self) -> float:
        game = self.game
        if self.shaping is None or game is None:
            return 0.0
        if game.is_over:
            return 0.0 if self._refund else self._potential
        return self.shaping.potential(game.views[self.seat])

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
        return {
            "observation": observation(game, self.seat, self.config),
            "action_mask": self._mask(),
        }

    def _mask(self) -> np.ndarray:
        game = self.game
        if game is None or game.is_over:
            return FINAL_MASK.copy()
        return game.mask(self.seat)

    def render(self) -> str | None:
        if self.render_mode is None or self.game is None:
            return None
        return repr(self.game.views[self.seat])


if ENV_ID not in gymnasium.registry:
    gymnasium.register(ENV_ID, entry_point=TaiMahjongGymEnv, disable_env_checker=True)
