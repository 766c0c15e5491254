"""Rollouts collected by Ray actors on a real local cluster equal the same episodes
played in this process (bounded: a handful of short episodes on two actors)."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

from sdk.arena.runner import local_runtime_env
from sdk.learn.policy import PolicyBot, RandomPolicy
from sdk.learn.rollouts import Batch, collect

POLICY = "sdk.learn.policy:random_policy"


@pytest.fixture(scope="module")
def ray_cluster() -> Iterator[None]:
    import ray

    ray.init(
        num_cpus=2, include_dashboard=False, log_to_driver=False, runtime_env=local_runtime_env()
    )
    yield
    ray.shutdown()


def _same(a: Batch, b: Batch) -> None:
    for name in Batch.__slots__:
        assert np.array_equal(getattr(a, name), getattr(b, name)), name


def test_ray_actors_collect_the_same_rollouts_as_local_play(ray_cluster: None) -> None:
    local = collect(POLICY, episodes=6, backend="local", seed=3)
    on_ray = collect(POLICY, episodes=6, workers=2, seed=3)
    _same(local, on_ray)
    assert sorted(set(on_ray.episodes.tolist())) == list(range(6))
    assert len(on_ray) > 6 * 40
    legal = on_ray.masks[np.arange(len(on_ray)), on_ray.actions]
    assert legal.all()  # every action was in its mask
    for episode in range(6):  # the returns are the episode's points: they sum to zero
        rows = on_ray.episodes == episode
        by_seat = {
            int(s): float(r) for s, r in zip(on_ray.agents[rows], on_ray.returns[rows], strict=True)
        }
        assert sum(by_seat.values()) == 0
    three = collect(POLICY, episodes=6, workers=3, seed=3)
    _same(local, three)  # the number of actors does not matter


def test_a_policy_plays_as_an_sdk_bot_in_the_arena() -> None:
    from sdk.arena import run_arena

    result = run_arena(
        [_random_policy_bot, "bots.random", "bots.random", "bots.random"],
        hands=8,
        match_hands=2,
        backend="local",
        seed=1,
    )
    stats = {b.label: b for b in result.bots}
    assert stats["random-policy"].hands == 8 and stats["random-policy"].fallbacks == 0


def _random_policy_bot(seed: int = 0) -> PolicyBot:
    return PolicyBot(RandomPolicy(seed))
