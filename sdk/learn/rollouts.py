"""Rollouts: many environments in parallel, on Ray actors (the arena's engine) or here.

:func:`collect` plays ``episodes`` episodes of the AEC environment with one policy at
every seat and returns every decision as arrays (:class:`Batch`). Episode ``i`` is
reset with seed ``seed + i`` and its policy made with that seed too, so the batch is the
same whatever the backend and the number of actors: ``backend="local"`` plays them in
this process, ``backend="ray"`` splits them over ``workers`` Ray actors (each keeps its
own environment) on the running Ray cluster, or a local one it starts and stops.

>>> batch = collect("sdk.learn.policy:random_policy", episodes=2, backend="local", seed=1)
>>> batch.observations.shape[1], len(batch) == len(batch.actions), sorted(set(batch.episodes.tolist()))
(1104, True, [0, 1])
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from sdk.learn.action_space import N_ACTIONS
from sdk.learn.aec import AGENTS, TaiMahjongAEC
from sdk.learn.encoding import OBS_SIZE
from sdk.learn.policy import Policy

__all__ = ["Batch", "PolicySource", "collect", "play_episodes"]

PolicySource = str | Callable[[int], Policy]
"""A policy factory taking a seed, or its ``"module:name"`` (imported where it runs)."""


@dataclass(frozen=True, slots=True)
class Batch:
    """Every decision of some episodes: who decided (``agents``: seat), what it saw,
    what it did, and its points over the episode (``returns``)."""

    observations: np.ndarray
    masks: np.ndarray
    actions: np.ndarray
    returns: np.ndarray
    agents: np.ndarray
    episodes: np.ndarray

    def __len__(self) -> int:
        return len(self.actions)

    @staticmethod
    def concat(batches: Sequence[Batch]) -> Batch:
        return Batch(*(np.concatenate([getattr(b, f) for b in batches]) for f in Batch.__slots__))


def _factory(source: PolicySource) -> Callable[[int], Policy]:
    if not isinstance(source, str):
        return source
    module, _, name = source.partition(":")
    if not name:
        raise ValueError(f"name a policy factory as 'module:name', not {source!r}")
    return getattr(importlib.import_module(module), name)  # type: ignore[no-any-return]


def play_episodes(
    policy: PolicySource, episodes: Sequence[int], seed: int = 0, hands: int = 1
) -> Batch:
    """Play the episodes numbered ``episodes`` (seeds ``seed + i``) in this process."""
    make = _factory(policy)
    env = TaiMahjongAEC(hands=hands)
    obs_rows, mask_rows, actions, agents, numbers, returns = [], [], [], [], [], []
    for i in episodes:
        act = make(seed + i)
        env.reset(seed=seed + i)
        start = len(actions)
        for agent in env.agent_iter():
            obs, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            action = int(act(obs["observation"], obs["action_mask"]))
            obs_rows.append(obs["observation"])
            mask_rows.append(obs["action_mask"])
            actions.append(action)
            agents.append(AGENTS.index(agent))
            numbers.append(i)
            env.step(action)
        returns += [env.final_points[a] for a in agents[start:]]
    return Batch(
        np.array(obs_rows, np.float32).reshape(len(actions), OBS_SIZE),
        np.array(mask_rows, np.int8).reshape(len(actions), N_ACTIONS),
        np.array(actions, np.int16),
        np.array(returns, np.float32),
        np.array(agents, np.int8),
        np.array(numbers, np.int32),
    )


class RolloutWorker:
    """What runs inside one Ray actor: plays the episodes it is given."""

    def __init__(self, policy: PolicySource, seed: int, hands: int) -> None:
        self.policy, self.seed, self.hands = policy, seed, hands

    def play(self, episodes: list[int]) -> Batch:
        return play_episodes(self.policy, episodes, self.seed, self.hands)


def collect(
    policy: PolicySource,
    *,
    episodes: int,
    workers: int = 2,
    seed: int = 0,
    hands: int = 1,
    backend: str = "ray",
    address: str | None = None,
) -> Batch:
    """Play ``episodes`` episodes and return their decisions, in episode order."""
    if backend == "local":
        return play_episodes(policy, range(episodes), seed, hands)
    if backend != "ray":
        raise ValueError(f"backend must be 'ray' or 'local', not {backend!r}")
    from sdk.arena.runner import _import_ray, _start_ray

    ray = _import_ray()
    started = not ray.is_initialized()
    if started:
        _start_ray(ray, workers, address)
    try:
        return _collect_on_ray(ray, policy, episodes, workers, seed, hands)
    finally:
        if started:
            ray.shutdown()


def _collect_on_ray(
    ray: Any, policy: PolicySource, episodes: int, workers: int, seed: int, hands: int
) -> Batch:
    """One actor per share of the episodes; each is killed as soon as its share is in,
    which frees its CPU for an actor still waiting on a small cluster."""
    actor = ray.remote(num_cpus=1)(RolloutWorker)
    shares = [list(range(w, episodes, workers)) for w in range(workers)]
    pool = [actor.remote(policy, seed, hands) for _ in shares]
    pending = {a.play.remote(share): a for a, share in zip(pool, shares, strict=True)}
    parts = []
    while pending:
        done, _ = ray.wait(list(pending), num_returns=1)
        for ref in done:
            parts.append(ray.get(ref))
            ray.kill(pending.pop(ref))
    batch = Batch.concat([p for p in parts if len(p)])
    order = np.argsort(batch.episodes, kind="stable")  # episode order, as played locally
    return Batch(*(getattr(batch, f)[order] for f in Batch.__slots__))
