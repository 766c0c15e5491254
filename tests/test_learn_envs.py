"""The PettingZoo and Gymnasium environments: API checks, seeding, claims, rewards, and
refusing an action outside the mask without changing anything."""

from __future__ import annotations

import copy
import random
import warnings

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test

from protocol.actions import PASS, Action
from sdk.learn.action_space import MaskedActionError, index_of
from sdk.learn.aec import AGENTS, TaiMahjongAEC
from sdk.learn.gym_env import TaiMahjongGymEnv


def _play_aec(env: TaiMahjongAEC, seed: int, policy_seed: int = 0) -> list:  # type: ignore[type-arg]
    """Play one episode with random legal actions; return every (agent, obs, reward)."""
    rng = random.Random(policy_seed)
    env.reset(seed=seed)
    trace = []
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, _ = env.last()
        trace.append((agent, obs["observation"].tobytes(), obs["action_mask"].tobytes(), reward))
        if terminated or truncated:
            env.step(None)
        else:
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return trace


def test_pettingzoo_api_test_passes() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # dict observations with a mask, as classic envs
        api_test(TaiMahjongAEC(hands=2), num_cycles=3000, verbose_progress=False)
        api_test(TaiMahjongAEC(hands=1, reward="match", oracle=True), num_cycles=500)


def test_gymnasium_check_env_passes() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no warning either
        check_env(TaiMahjongGymEnv(), skip_render_check=True)
        check_env(TaiMahjongGymEnv(["bots.greedy"] * 3, seat=None, hands=2), skip_render_check=True)


def test_aec_episodes_are_reproducible_from_the_seed() -> None:
    a = _play_aec(TaiMahjongAEC(hands=2), seed=9)
    b = _play_aec(TaiMahjongAEC(hands=2), seed=9)
    c = _play_aec(TaiMahjongAEC(hands=2), seed=10)
    assert a == b
    assert a != c
    env = TaiMahjongAEC()
    env.reset(seed=3)
    first = env.game.match.seed  # type: ignore[union-attr]
    env.reset()
    second = env.game.match.seed  # type: ignore[union-attr]
    env.reset(seed=3)
    assert env.game.match.seed == first != second  # type: ignore[union-attr]


def test_every_seat_that_may_claim_is_asked_before_the_claim_resolves() -> None:
    env = TaiMahjongAEC(hands=1)
    rng = random.Random(1)
    windows = 0
    for episode in range(40):
        env.reset(seed=episode)
        while env.agents:
            obs, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            pending = list(env.game.hand.pending())  # type: ignore[union-attr]
            if len(pending) > 1:  # a claim window: asked in priority order, one by one
                windows += 1
                asked = []
                while env.agents and env.game.hand.pending() and env.agent_selection not in asked:  # type: ignore[union-attr]
                    agent = env.agent_selection
                    if AGENTS.index(agent) not in pending:
                        break
                    asked.append(agent)
                    env.step(index_of(PASS))
                assert asked == [AGENTS[s] for s in pending]
                continue
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert windows > 0


def test_aec_refuses_an_action_outside_the_mask_and_changes_nothing() -> None:
    env = TaiMahjongAEC()
    env.reset(seed=5)
    obs, *_ = env.last()
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    state = copy.deepcopy(env.game.hand.events)  # type: ignore[union-attr]
    agent = env.agent_selection
    with pytest.raises(MaskedActionError) as refused:
        env.step(illegal)
    message = str(refused.value)
    assert f"may not take action {illegal}" in message
    for index in np.flatnonzero(obs["action_mask"]):
        assert f"{index} (" in message
    assert env.game.hand.events == state and env.agent_selection == agent  # type: ignore[union-attr]
    again, *_ = env.last()
    assert (again["observation"] == obs["observation"]).all()
    with pytest.raises(MaskedActionError, match=r"outside 0\.\.150"):
        env.step(151)


def test_gym_refuses_an_action_outside_the_mask_and_changes_nothing() -> None:
    env = TaiMahjongGymEnv()
    obs, _ = env.reset(seed=2)
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    before = list(env.game.match.events)  # type: ignore[union-attr]
    with pytest.raises(MaskedActionError, match="legal are"):
        env.step(illegal)
    assert env.game.match.events == before  # type: ignore[union-attr]
    legal = int(np.flatnonzero(obs["action_mask"])[0])
    env.step(legal)  # and it plays on


def _play_gym(env: TaiMahjongGymEnv, seed: int) -> tuple[list[bytes], float, int]:
    obs, info = env.reset(seed=seed)
    frames, total, done = [obs["observation"].tobytes()], 0.0, False
    while not done:
        obs, reward, done, _, info = env.step(env.action_space.sample())
        frames.append(obs["observation"].tobytes())
        total += reward
    return frames, total, info["points"]


def test_gym_is_reproducible_and_pays_points() -> None:
    a = _play_gym(TaiMahjongGymEnv(["bots.greedy", "bots.random", "bots.defensive"]), seed=4)
    b = _play_gym(TaiMahjongGymEnv(["bots.greedy", "bots.random", "bots.defensive"]), seed=4)
    assert a == b
    assert a[1] == a[2]  # the rewards add up to the learner's points
    env = TaiMahjongGymEnv(["bots.greedy"] * 3, hands=2, reward="match", seat=None)
    seats, totals = set(), []
    for seed in range(8):
        _, total, points = _play_gym(env, seed)
        seats.add(env.seat)
        totals.append(total)
        assert total == points
        assert env.game.match.player_scores()[env.seat] == points  # type: ignore[union-attr]
    assert len(seats) > 1 and any(totals)


def test_hand_rewards_add_up_to_the_match_scores() -> None:
    env = TaiMahjongAEC(hands=4, reward="hand", reward_scale=0.001)
    rng = random.Random(0)
    env.reset(seed=8)
    totals = dict.fromkeys(AGENTS, 0.0)
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, _ = env.last()
        totals[agent] += reward
        env.step(
            None if terminated or truncated else int(rng.choice(np.flatnonzero(obs["action_mask"])))
        )
    scores = env.final_points
    assert [round(totals[a] * 1000) for a in AGENTS] == scores
    assert len(env.game.match.results) == 4 and sum(scores) == 0  # type: ignore[union-attr]


def _greedy_index(env: TaiMahjongGymEnv) -> int:
    """What bots.greedy answers at the learner's decision, as an action index."""
    from bots.greedy import GreedyBot
    from sdk.bot import DecisionRequest

    game, seat = env.game, env.seat
    assert game is not None
    view, legal = game.views[seat], game.legal(seat)
    return index_of(GreedyBot().choose(view, DecisionRequest(legal, 1e9, "", view.drawn_tile)))


def test_action_masks_agree_with_the_observation_at_every_step() -> None:
    env = TaiMahjongGymEnv(["bots.greedy"] * 3, seat=None, hands=2)
    for seed in range(3):
        obs, _ = env.reset(seed=seed)
        done = False
        while not done:
            assert np.array_equal(env.action_masks(), obs["action_mask"].astype(bool))
            obs, _, done, _, _ = env.step(env.action_space.sample())
        assert np.array_equal(env.action_masks(), obs["action_mask"].astype(bool))
        assert np.flatnonzero(obs["action_mask"]).tolist() == [index_of(Action.parse("pass"))]


def test_a_vector_env_carries_a_usable_mask_at_episode_ends() -> None:
    import gymnasium

    envs = gymnasium.make_vec(
        "sdk.learn.gym_env:taimahjong/Mahjong-v1", num_envs=2, vectorization_mode="sync"
    )
    obs, _ = envs.reset(seed=4)
    rng = np.random.default_rng(0)
    ends = 0
    for _ in range(400):
        masks = obs["action_mask"]
        assert masks.any(axis=1).all()  # never all zeros, episode end or not
        actions = [int(rng.choice(np.flatnonzero(m))) for m in masks]
        obs, _, terminated, _, _ = envs.step(actions)
        ends += int(terminated.sum())
    assert ends > 0
    envs.close()


def test_gymnasium_make_takes_the_constructor_keywords() -> None:
    import gymnasium

    env = gymnasium.make(
        "sdk.learn.gym_env:taimahjong/Mahjong-v1", opponents=["bots.greedy"] * 3, hands=2
    )
    assert env.unwrapped.config.hands == 2
    with pytest.raises(ValueError, match="shaping must be one of"):
        TaiMahjongGymEnv(shaping="tiles")


def test_shanten_shaping_adds_only_minus_the_first_potential() -> None:
    env = TaiMahjongGymEnv(["bots.greedy"] * 3, seat=None, hands=2, shaping="shanten")
    for seed in range(4):
        env.reset(seed=seed)
        first = env.shaping.potential(env.game.views[env.seat])  # type: ignore[union-attr]
        total, done, shaped_steps = 0.0, False, 0
        while not done:
            _, reward, done, _, info = env.step(_greedy_index(env))
            total += reward
            shaped_steps += reward != 0
        assert total == pytest.approx(info["points"] - first)
        assert shaped_steps > 2  # paid along the way, not only at the hand ends


def test_the_duplicate_baseline_pays_nothing_for_playing_as_the_baseline() -> None:
    env = TaiMahjongGymEnv(["bots.greedy"] * 3, seat=None, hands=2, baseline="bots.greedy")
    plain = TaiMahjongGymEnv(["bots.greedy"] * 3, seat=None, hands=2)
    paid = 0
    for seed in range(4):
        env.reset(seed=seed)
        plain.reset(seed=seed)
        rewards, points, done = [], [], False
        while not done:
            index = _greedy_index(env)
            _, reward, done, _, info = env.step(index)
            _, plain_reward, _, _, _ = plain.step(index)
            rewards.append(reward)
            points.append(plain_reward)
        assert rewards == [0.0] * len(rewards)  # the same play as the baseline: no difference
        assert info["points"] == sum(points)  # info keeps the plain points
        paid += any(points)
    assert paid  # some hands paid the learner: the zeros above are differences


def test_progress_shaping_keeps_the_last_potential() -> None:
    """``"progress"`` pays the same steps but takes nothing back at the end: the return is
    the points plus the last decision's potential minus the first's."""
    env = TaiMahjongGymEnv(["bots.greedy"] * 3, seat=None, shaping="progress")
    for seed in range(4):
        env.reset(seed=seed)
        first = env.shaping.potential(env.game.views[env.seat])  # type: ignore[union-attr]
        total, done = 0.0, False
        while not done:
            last = env.shaping.potential(env.game.views[env.seat])  # type: ignore[union-attr]
            _, reward, done, _, info = env.step(_greedy_index(env))
            total += reward
        assert total == pytest.approx(info["points"] + last - first)
