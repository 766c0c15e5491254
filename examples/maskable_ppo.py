"""MaskablePPO (sb3-contrib) against three greedy bots, with the shaped reward, then the
trained model in the duplicate arena against three random bots.

The recipe of ``docs/LEARNING.md`` at scale: the registered Gymnasium environment with
``shaping="shanten"`` (which leaves the optimum unchanged) at 1000 points a shanten, so
that getting closer to a win outweighs the noise of who else wins, and ``features=True``
(what each discard leaves, appended to the observation); stable-baselines3's
``VecNormalize`` scales the observation (tile ids and counts otherwise saturate the
policy's tanh units); MaskablePPO reads the dict observation. Then the model plays as a
:class:`~sdk.learn.policy.PolicyBot` in the duplicate arena against three random bots
and against three greedy ones. ``--baseline bots.greedy`` rewards the points against
that bot's on the same deal instead (each episode plays twice).

Run: ``python examples/maskable_ppo.py --steps 300000`` (needs the ``train`` extra;
``--steps 2048 --arena-hands 64`` for a quick look).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from a clone

import gymnasium
import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.logger import configure
from stable_baselines3.common.monitor import Monitor
from stable_baselines3.common.vec_env import DummyVecEnv, VecNormalize

import sdk.learn.gym_env  # noqa: F401  (registers taimahjong/Mahjong-v1)
from sdk.arena import run_arena
from sdk.learn.features import discard_features
from sdk.learn.policy import PolicyBot


class ModelPolicy:
    """``policy(observation, mask)`` from a trained MaskablePPO model and the
    ``VecNormalize`` statistics it was trained with."""

    name = "maskable-ppo"

    def __init__(self, model: MaskablePPO, scaler: VecNormalize) -> None:
        self.model = model
        self.scaler = scaler

    def __call__(self, observation: np.ndarray, mask: np.ndarray) -> int:
        observation = np.concatenate([observation, discard_features(observation)])
        obs = self.scaler.normalize_obs({"observation": observation, "action_mask": mask})
        action, _ = self.model.predict(obs, action_masks=mask.astype(bool), deterministic=True)
        return int(action)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, default=300_000, help="environment steps")
    parser.add_argument("--arena-hands", type=int, default=1024, help="hands vs three random")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--save", default="maskable_ppo.zip", help="where the model is saved")
    parser.add_argument("--hidden", type=int, default=64, help="units in each of 2 layers")
    parser.add_argument("--ent-coef", type=float, default=0.0, help="entropy bonus")
    parser.add_argument("--shaping-weight", type=float, default=1000.0, help="points a shanten")
    parser.add_argument("--baseline", help="reward against this bot on the same deal")
    parser.add_argument("--log", help="folder for stable-baselines3's progress.csv")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)  # the environment is the bottleneck; a second thread only waits

    def make() -> Monitor:
        return Monitor(
            gymnasium.make(
                "taimahjong/Mahjong-v1",
                opponents=["bots.greedy"] * 3,
                seat=None,
                shaping="shanten",
                shaping_weight=args.shaping_weight,
                baseline=args.baseline,
                reward_scale=1e-3,
                features=True,
            )
        )

    env = VecNormalize(
        DummyVecEnv([make]), norm_obs=True, norm_reward=False, norm_obs_keys=["observation"]
    )
    model = MaskablePPO(
        "MultiInputPolicy",
        env,
        seed=args.seed,
        ent_coef=args.ent_coef,
        policy_kwargs={"net_arch": [args.hidden, args.hidden]},
        verbose=0,
    )
    if args.log:
        model.set_logger(configure(args.log, ["csv"]))
    began = time.monotonic()
    model.learn(total_timesteps=args.steps, progress_bar=False)
    model.save(args.save)
    env.save(str(Path(args.save).with_suffix(".vecnormalize.pkl")))
    env.training = False
    print(f"trained {args.steps} steps in {time.monotonic() - began:.0f} s; saved {args.save}")
    learned = lambda: PolicyBot(ModelPolicy(model, env), name="maskable-ppo")  # noqa: E731
    for field in ("bots.random", "bots.greedy"):
        result = run_arena(
            [learned, field, field, field],
            hands=args.arena_hands,
            seed=args.seed + 1,
            duplicate=True,
            match_hands=4,
            backend="local",
        )
        print(f"against three {field}:")
        for bot in result.bots:
            p = bot.points
            print(
                f"  {bot.label:14} {p.mean:+8.1f} points/hand, 95% CI [{p.low:+.1f}, "
                f"{p.high:+.1f}]  win rate {bot.win_rate:.1%}  deal-in {bot.deal_in_rate:.1%}"
                f"  ({bot.hands} hands)"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
