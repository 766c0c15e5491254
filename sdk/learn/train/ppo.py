"""Stage 3: PPO from the clone, the critic reading the oracle observation.

CleanRL-style: ``envs`` Gymnasium environments (:class:`~sdk.learn.gym_env.TaiMahjongGymEnv`,
the learner at a seat drawn per episode, opponent bots in the others) step in turn for
``steps`` steps; advantages by GAE; the clipped surrogate with an entropy bonus over the
*legal* actions only (the mask). The actor is the clone's network and reads the normal
observation; the critic reads the oracle observation (the other hands and the wall), which
exists in training only: the actor never sees it, so the policy plays from what a seat
may know. Rewards are shaped (``shaping="shanten"``, which leaves the optimum unchanged:
:mod:`sdk.learn.rewards`) and scaled to thousands of points.

Three guards keep PPO from unlearning what the clone knows (without them a first run lost
77 points a hand against greedy in 40,960 steps): the first ``warmup`` updates train the
critic alone (the actor's first steps otherwise follow a random critic's advantages); an
update's epochs stop once the approximate KL to the rollout's policy passes
``target_kl``; and ``anchor`` weighs a KL penalty towards the clone (zero leaves plain
PPO). ``baseline`` (a bot spec) rewards the points against that bot's on the same deal.

An opponent spec ``self`` is a snapshot of the actor, renewed every ``refresh`` updates
(self-play). ``ppo.pt`` is written after each update; a restarted run goes on from it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

from sdk.arena.loader import load_bot
from sdk.learn.encoding import OBS_SIZE, ORACLE_SIZE
from sdk.learn.features import with_features
from sdk.learn.gym_env import TaiMahjongGymEnv
from sdk.learn.mlp import MLP
from sdk.learn.train.model import TorchMLP, masked_logits
from sdk.learn.train.progress import bar

__all__ = ["PPOConfig", "ppo"]


@dataclass(frozen=True)
class PPOConfig:
    """How PPO runs (CleanRL's defaults where they fit)."""

    total_steps: int = 200_000
    envs: int = 8
    steps: int = 256
    epochs: int = 4
    minibatch: int = 512
    lr: float = 1e-4
    gamma: float = 0.997
    lam: float = 0.95
    clip: float = 0.2
    entropy: float = 0.003
    value_coef: float = 0.5
    opponents: tuple[str, ...] = ("bots.greedy", "bots.greedy", "bots.greedy")
    refresh: int = 10
    shaping_weight: float = 100.0
    warmup: int = 4
    """Updates that train the critic only."""
    target_kl: float = 0.02
    """An update's epochs stop when the approximate KL passes this."""
    anchor: float = 0.0
    """Weight of the KL penalty from the clone to the actor."""
    baseline: str | None = None
    """Reward against this bot's points on the same deal (:mod:`sdk.learn.rewards`)."""
    seed: int = 0


class _Critic(TorchMLP):
    """The value network over the oracle observation."""


def ppo(run: Path, start: MLP, config: PPOConfig, on_update=None, show: bool | None = None) -> MLP:  # type: ignore[no-untyped-def]
    """Run (or resume) PPO from the network ``start``; return the actor as numpy.
    ``on_update(step, actor)`` is called after each update (the curve's evaluations)."""
    torch.manual_seed(config.seed)
    actor = TorchMLP.from_numpy(start)
    clone = TorchMLP.from_numpy(start).requires_grad_(False)
    extra = ORACLE_SIZE - OBS_SIZE
    mean = np.concatenate([start.mean[:OBS_SIZE], np.zeros(extra, np.float32)])
    scale = np.concatenate([start.scale[:OBS_SIZE], np.ones(extra, np.float32)])
    critic = _Critic(mean, scale, (ORACLE_SIZE, 256, 256, 1))
    opt = torch.optim.Adam([*actor.parameters(), *critic.parameters()], lr=config.lr)
    done_steps = _resume(run / "ppo.pt", actor, critic, opt)
    batch = config.envs * config.steps
    updates = -(-config.total_steps // batch)
    first = done_steps // batch
    envs = _envs(config)
    with bar("ppo", updates * batch, first * batch, show) as advance:
        for update in range(first, updates):
            if update % config.refresh == 0:
                _renew_opponents(run, envs, actor, config, update)
            rollout = _rollout(envs, actor, critic, config, seed=update)
            stats = _update(actor, critic, opt, rollout, config, clone, update < config.warmup)
            step = (update + 1) * batch
            torch.save(
                {
                    "actor": actor.state_dict(),
                    "critic": critic.state_dict(),
                    "opt": opt.state_dict(),
                    "step": step,
                },
                run / "ppo.pt",
            )
            advance(batch, note=f"return {rollout['episode_return']:+.2f} kl {stats:.4f}")
            if on_update is not None:
                on_update(step, actor.to_numpy())
    return actor.to_numpy()


def _envs(config: PPOConfig) -> list[TaiMahjongGymEnv]:
    return [
        TaiMahjongGymEnv(
            ["bots.greedy"] * 3,
            seat=None,
            hands=1,
            oracle=True,
            shaping="shanten",
            shaping_weight=config.shaping_weight,
            reward_scale=1e-3,
            baseline=config.baseline,
        )
        for _ in range(config.envs)
    ]


def _renew_opponents(
    run: Path, envs: list[TaiMahjongGymEnv], actor: TorchMLP, config: PPOConfig, update: int
) -> None:
    """Opponent factories for the next episodes; ``self`` is a snapshot of the actor."""
    snapshot = run / f"self-{update}.npz"
    if "self" in config.opponents:
        np.savez_compressed(snapshot, **actor.to_numpy().arrays())
    factories = [
        load_bot(f"bots.neural?weights={snapshot}" if o == "self" else o) for o in config.opponents
    ]
    for env in envs:
        env.factories = factories


def _rollout(
    envs: list[TaiMahjongGymEnv], actor: TorchMLP, critic: TorchMLP, config: PPOConfig, seed: int
) -> dict:  # type: ignore[type-arg]
    """``config.steps`` steps of every environment, each started anew from the seed."""
    n, t = len(envs), config.steps
    obs = np.zeros((t, n, ORACLE_SIZE), np.float32)
    inputs = np.zeros((t, n, actor.width), np.float32)
    masks = np.zeros((t, n, 151), np.int8)
    actions = np.zeros((t, n), np.int64)
    logps, values, rewards, dones = (np.zeros((t, n), np.float32) for _ in range(4))
    current = [
        env.reset(seed=config.seed * 1_000_003 + seed * 1009 + i)[0] for i, env in enumerate(envs)
    ]
    returns, episode = [], np.zeros(n)
    for s in range(t):
        obs[s] = np.stack([c["observation"] for c in current])
        masks[s] = np.stack([c["action_mask"] for c in current])
        inputs[s] = with_features(obs[s]) if actor.features else obs[s][:, : actor.width]
        with torch.no_grad():
            x = torch.from_numpy(obs[s])
            dist = torch.distributions.Categorical(
                logits=masked_logits(actor(torch.from_numpy(inputs[s])), torch.from_numpy(masks[s]))
            )
            a = dist.sample()
            logps[s], values[s] = dist.log_prob(a).numpy(), critic(x).squeeze(-1).numpy()
        actions[s] = a.numpy()
        for i, env in enumerate(envs):
            current[i], r, done, _, _ = env.step(int(actions[s, i]))
            rewards[s, i], dones[s, i] = r, done
            episode[i] += r
            if done:
                returns.append(episode[i])
                episode[i] = 0.0
                current[i] = env.reset()[0]
    with torch.no_grad():
        last = (
            critic(torch.from_numpy(np.stack([c["observation"] for c in current])))
            .squeeze(-1)
            .numpy()
        )
    adv = _gae(rewards, values, dones, last, config)
    return {
        "obs": obs.reshape(t * n, -1),
        "inputs": inputs.reshape(t * n, -1),
        "masks": masks.reshape(t * n, -1),
        "actions": actions.reshape(-1),
        "logps": logps.reshape(-1),
        "adv": adv.reshape(-1),
        "returns": (adv + values).reshape(-1),
        "episode_return": float(np.mean(returns)) if returns else 0.0,
    }


def _gae(
    rewards: np.ndarray, values: np.ndarray, dones: np.ndarray, last: np.ndarray, config: PPOConfig
) -> np.ndarray:
    """Generalised advantage estimates; an episode's end cuts the bootstrap."""
    adv = np.zeros_like(rewards)
    running = np.zeros(rewards.shape[1], np.float32)
    for s in reversed(range(len(rewards))):
        following = last if s == len(rewards) - 1 else values[s + 1]
        alive = 1.0 - dones[s]
        delta = rewards[s] + config.gamma * following * alive - values[s]
        running = delta + config.gamma * config.lam * alive * running
        adv[s] = running
    return adv


def _update(
    actor: TorchMLP,
    critic: TorchMLP,
    opt: torch.optim.Optimizer,
    r: dict,  # type: ignore[type-arg]
    config: PPOConfig,
    clone: TorchMLP,
    critic_only: bool = False,
) -> float:
    """The PPO epochs over the rollout (the critic's alone with ``critic_only``);
    returns the last approximate KL."""
    size = len(r["actions"])
    tensors = {k: torch.from_numpy(v) for k, v in r.items() if isinstance(v, np.ndarray)}
    rng = np.random.default_rng(config.seed)
    kl = 0.0
    for _ in range(config.epochs):
        if kl > config.target_kl:
            break
        for start in range(0, size, config.minibatch):
            idx = torch.from_numpy(rng.permutation(size)[start : start + config.minibatch])
            x, m = tensors["obs"][idx], tensors["masks"][idx]
            dist = torch.distributions.Categorical(
                logits=masked_logits(actor(tensors["inputs"][idx]), m)
            )
            logp = dist.log_prob(tensors["actions"][idx])
            ratio = (logp - tensors["logps"][idx]).exp()
            adv = tensors["adv"][idx]
            adv = (adv - adv.mean()) / (adv.std() + 1e-8)
            policy_loss = -torch.min(
                ratio * adv, ratio.clamp(1 - config.clip, 1 + config.clip) * adv
            ).mean()
            value_loss = (critic(x).squeeze(-1) - tensors["returns"][idx]).pow(2).mean()
            loss = config.value_coef * value_loss
            if not critic_only:
                loss = loss + policy_loss - config.entropy * dist.entropy().mean()
                if config.anchor:
                    loss = loss + config.anchor * _kl_from(clone, tensors["inputs"][idx], m, dist)
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_([*actor.parameters(), *critic.parameters()], 0.5)
            opt.step()
            kl = float((tensors["logps"][idx] - logp).mean().detach())
    return kl


def _kl_from(
    clone: TorchMLP, x: torch.Tensor, m: torch.Tensor, dist: torch.distributions.Categorical
) -> torch.Tensor:
    """KL(clone || actor) over the legal actions, averaged over the rows."""
    fixed = torch.distributions.Categorical(logits=masked_logits(clone(x), m))
    return torch.distributions.kl_divergence(fixed, dist).mean()


def _resume(path: Path, actor: TorchMLP, critic: TorchMLP, opt: torch.optim.Optimizer) -> int:
    if not path.exists():
        return 0
    state = torch.load(path, weights_only=True)
    actor.load_state_dict(state["actor"])
    critic.load_state_dict(state["critic"])
    opt.load_state_dict(state["opt"])
    return int(state["step"])
