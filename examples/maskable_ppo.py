"""MaskablePPO (sb3-contrib) against three greedy bots, with the shaped reward, then the
trained model in the duplicate arena against three random bots.

The recipe of ``docs/LEARNING.md`` at scale: the registered Gymnasium environment with
``shaping="shanten"`` (which leaves the optimum unchanged) and the duplicate baseline
against ``bots.greedy`` (which takes the deal's luck out of the reward), MaskablePPO
reading the dict observation, then the model as a :class:`~sdk.learn.policy.PolicyBot`.

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
from sb3_contrib import MaskablePPO

import sdk.learn.gym_env  # noqa: F401  (registers taimahjong/Mahjong-v1)
from sdk.arena import run_arena
from sdk.learn.policy import PolicyBot


class ModelPolicy:
    """``policy(observation, mask)`` from a trained MaskablePPO model."""

    name = "maskable-ppo"

    def __init__(self, model: MaskablePPO) -> None:
        self.model = model

    def __call__(self, observation: np.ndarray, mask: np.ndarray) -> int:
        obs = {"observation": observation, "action_mask": mask}
        action, _ = self.model.predict(obs, action_masks=mask.astype(bool), deterministic=True)
        return int(action)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, default=300_000, help="environment steps")
    parser.add_argument("--arena-hands", type=int, default=1024, help="hands vs three random")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--save", default="maskable_ppo.zip", help="where the model is saved")
    args = parser.parse_args(argv)
    env = gymnasium.make(
        "taimahjong/Mahjong-v1",
        opponents=["bots.greedy"] * 3,
        seat=None,
        shaping="shanten",
        baseline="bots.greedy",
        reward_scale=1e-3,
    )
    model = MaskablePPO("MultiInputPolicy", env, seed=args.seed, verbose=0)
    began = time.monotonic()
    model.learn(total_timesteps=args.steps, progress_bar=False)
    model.save(args.save)
    print(f"trained {args.steps} steps in {time.monotonic() - began:.0f} s; saved {args.save}")
    learned = lambda: PolicyBot(ModelPolicy(model), name="maskable-ppo")  # noqa: E731
    result = run_arena(
        [learned, "bots.random", "bots.random", "bots.random"],
        hands=args.arena_hands,
        seed=args.seed + 1,
        duplicate=True,
        match_hands=4,
        backend="local",
    )
    for bot in result.bots:
        p = bot.points
        print(
            f"{bot.label:14} {p.mean:+8.1f} points/hand, 95% CI [{p.low:+.1f}, {p.high:+.1f}]  "
            f"win rate {bot.win_rate:.1%}  deal-in {bot.deal_in_rate:.1%}  ({bot.hands} hands)"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
