"""The policy features give what the reference bots compute: greedy's discard exactly,
and defensive's pricing closely enough to reproduce its choices from the numbers alone."""

from __future__ import annotations

import gymnasium
import numpy as np

import sdk.learn.gym_env  # noqa: F401  (registers the environment)
from bots.defensive import DefensiveBot
from bots.greedy import GreedyBot
from protocol.actions import Action, ActionKind
from sdk.bot import DecisionRequest
from sdk.estimates import discard_value
from sdk.learn.encoding import OBS_SIZE, encode
from sdk.learn.features import N_FEATURES, discard_features
from sdk.local import play_match
from sdk.view import GameView

GREEDY, DEFENSIVE, WIN, RISK, VALUE, PRICED, THREAT = (230 + 34 * i for i in range(7))


def _recorder(base: type[GreedyBot]) -> type[GreedyBot]:
    class Recorder(base):  # type: ignore[valid-type, misc]
        """Plays as ``base`` and keeps (features, discarded kind) of each plain discard."""

        def __init__(self) -> None:
            super().__init__()
            self.rows: list[tuple[np.ndarray, int]] = []

        def choose(self, view: GameView, request: DecisionRequest) -> Action:
            action = super().choose(view, request)
            if not request.is_claim and action.kind is ActionKind.DISCARD:
                self.rows.append((discard_features(encode(view)), int(action.tile)))  # type: ignore[arg-type]
            return action

    return Recorder


def _rows(base: type[GreedyBot], seed: int) -> list[tuple[np.ndarray, int]]:
    bots = [_recorder(base)() for _ in range(4)]
    play_match(bots, seed=seed, hands=4)
    return [row for bot in bots for row in bot.rows]  # type: ignore[attr-defined]


def test_the_greedy_section_is_greedys_discard() -> None:
    rows = _rows(GreedyBot, seed=11)
    assert len(rows) > 100
    for f, tile in rows:
        assert f.shape == (N_FEATURES,)
        assert int(f[GREEDY : GREEDY + 34].argmax()) == tile


def test_defensives_choice_follows_from_its_features() -> None:
    """Win chance x gain - risk x loss over the held kinds, the first of defensive's own
    order when nobody is likely waiting: the same discard as the bot on nearly every
    decision (ties and turns a claim skipped make the rest)."""
    rows = _rows(DefensiveBot, seed=12)
    same = 0
    for f, tile in rows:
        if (f[THREAT : THREAT + 3] < 0.2).all():
            pick = int(f[DEFENSIVE : DEFENSIVE + 34].argmax())
        else:
            held = np.flatnonzero(f[:34])
            price = discard_value(f[WIN : WIN + 34], f[RISK : RISK + 34] / 10)
            gap = np.maximum((price[held] - price[held].max()) / 100, -10)
            assert np.allclose(f[VALUE : VALUE + 34][held], gap, atol=1e-4)
            pick = max(held, key=lambda k: f[VALUE + k])
            assert f[PRICED + pick] == 1 or f[VALUE + int(f[PRICED : PRICED + 34].argmax())] == 0
        same += pick == tile
    assert same / len(rows) > 0.97, same / len(rows)


def test_the_environment_appends_the_features() -> None:
    env = gymnasium.make("taimahjong/Mahjong-v1", opponents=["bots.greedy"] * 3, features=True)
    obs, _ = env.reset(seed=4)
    assert env.observation_space["observation"].shape == (OBS_SIZE + N_FEATURES,)
    for _ in range(30):
        x = obs["observation"]
        assert x.shape == (OBS_SIZE + N_FEATURES,)
        assert np.array_equal(x[OBS_SIZE:], discard_features(x[:OBS_SIZE]))
        obs, _, done, _, _ = env.step(int(np.flatnonzero(obs["action_mask"])[0]))
        if done:
            obs, _ = env.reset()
