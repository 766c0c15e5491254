"""``python -m sdk.learn.train RUN_DIR``: the whole recipe (see :mod:`sdk.learn.train`).

Exit codes as every command of the project: 0 done, 1 failure, 2 usage.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from protocol.cli.exits import run_command

__all__ = ["main"]


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m sdk.learn.train",
        description="Train a policy: behaviour cloning from a teacher, then PPO. "
        "Stop it and run the same command again to go on.",
        epilog="exit codes: 0 done, 1 failure, 2 usage",
    )
    p.add_argument(
        "run", metavar="RUN_DIR", help="folder for data, checkpoints, curve and policy.npz"
    )
    p.add_argument(
        "--seed", type=int, default=0, help="makes the whole run reproducible (default 0)"
    )
    p.add_argument(
        "--teacher", default="bots.defensive", help="bot to imitate (default bots.defensive)"
    )
    p.add_argument(
        "--data-hands", type=int, default=2048, help="teacher hands recorded (default 2048)"
    )
    p.add_argument("--epochs", type=int, default=8, help="cloning epochs (default 8)")
    p.add_argument("--hidden", default="512,256", help="hidden layer sizes (default 512,256)")
    p.add_argument(
        "--features",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="append shanten and acceptance of each discard (sdk.learn.features)",
    )
    p.add_argument(
        "--raw",
        action="store_true",
        help="let the clone read the whole observation, not only the features, the hand "
        "and the decision (it then memorises more than it learns)",
    )
    p.add_argument(
        "--ppo-steps", type=int, default=200_000, help="PPO environment steps; 0 skips PPO"
    )
    p.add_argument(
        "--ppo-envs", type=int, default=8, help="environments stepped in turn (default 8)"
    )
    p.add_argument(
        "--opponents",
        default="bots.greedy,bots.greedy,bots.greedy",
        help="the three PPO opponents; 'self' is a snapshot of the policy",
    )
    p.add_argument("--ppo-lr", type=float, default=1e-4, help="PPO learning rate (default 1e-4)")
    p.add_argument(
        "--ppo-anchor",
        type=float,
        default=0.0,
        help="weight of a KL penalty towards the clone (default 0: plain PPO)",
    )
    p.add_argument(
        "--ppo-warmup",
        type=int,
        default=4,
        help="PPO updates that train the critic alone at the start (default 4)",
    )
    p.add_argument(
        "--ppo-baseline",
        metavar="BOT",
        help="reward the points against this bot's on the same deal (duplicate baseline)",
    )
    p.add_argument(
        "--eval-hands", type=int, default=512, help="hands per curve point (default 512)"
    )
    p.add_argument("--eval-every", type=int, default=50_000, help="PPO steps between curve points")
    p.add_argument(
        "--workers", type=int, default=1, help="arena processes for data and curve (default 1)"
    )
    p.add_argument("--threads", type=int, default=2, help="torch threads (default 2)")
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Run the recipe; returns the exit code."""
    return run_command(_main, argv)


def _main(argv: Sequence[str] | None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        hidden = tuple(int(h) for h in args.hidden.split(","))
        opponents = tuple(o.strip() for o in args.opponents.split(","))
    except ValueError:
        parser.error(f"--hidden takes sizes like 512,256, not {args.hidden!r}")
    if len(opponents) != 3:
        parser.error(f"--opponents names three bots, not {len(opponents)}")
    for name in (
        "data_hands",
        "epochs",
        "ppo_envs",
        "eval_hands",
        "eval_every",
        "workers",
        "threads",
    ):
        if getattr(args, name) < 1:
            parser.error(f"--{name.replace('_', '-')} must be at least 1")
    if not args.ppo_lr > 0:
        parser.error("--ppo-lr must be positive")
    if args.ppo_anchor < 0:
        parser.error("--ppo-anchor must be 0 or more")
    if args.ppo_warmup < 0:
        parser.error("--ppo-warmup must be 0 or more")
    try:
        import torch
    except ImportError:
        print("error: training needs torch: pip install '.[train]' in a clone", file=sys.stderr)
        return 1
    torch.set_num_threads(args.threads)
    return _train(args, hidden, opponents)


def _train(args: argparse.Namespace, hidden: tuple[int, ...], opponents: tuple[str, ...]) -> int:
    import numpy as np

    from sdk.learn.train.clone import CloneConfig, clone
    from sdk.learn.train.curve import evaluate, read_curve
    from sdk.learn.train.data import make_dataset
    from sdk.learn.train.ppo import PPOConfig, ppo

    run = Path(args.run)
    run.mkdir(parents=True, exist_ok=True)
    show = False if args.quiet else None
    began = time.monotonic()
    dataset = make_dataset(
        run, teacher=args.teacher, hands=args.data_hands, seed=args.seed, workers=args.workers
    )
    net, agree = clone(
        run,
        dataset,
        CloneConfig(hidden, args.features, args.raw, args.epochs, seed=args.seed),
        show,
    )
    np.savez_compressed(run / "clone.npz", **net.arrays())
    print(f"clone: {agree:.1%} agreement with {args.teacher} on held-out decisions")
    done = {(p.stage, p.step) for p in read_curve(run)}

    def point(stage: str, step: int, policy) -> None:  # type: ignore[no-untyped-def]
        if (stage, step) not in done:
            p = evaluate(
                run,
                policy,
                stage,
                step,
                hands=args.eval_hands,
                seed=args.seed + 1,
                workers=args.workers,
            )
            print(
                f"{stage} {step}: {p.points:+.1f} points/hand vs 3 greedy [{p.low:+.1f}, {p.high:+.1f}]"
            )

    point("clone", 0, net)
    if args.ppo_steps > 0:
        config = PPOConfig(
            total_steps=args.ppo_steps,
            envs=args.ppo_envs,
            opponents=opponents,
            lr=args.ppo_lr,
            anchor=args.ppo_anchor,
            warmup=args.ppo_warmup,
            baseline=args.ppo_baseline,
            seed=args.seed,
        )
        batch = config.envs * config.steps

        def on_update(step: int, actor) -> None:  # type: ignore[no-untyped-def]
            if step % args.eval_every < batch or step >= args.ppo_steps:
                point("ppo", step, actor)

        net = ppo(run, net, config, on_update, show)
    np.savez_compressed(run / "policy.npz", **net.arrays())
    summary = {
        "agreement": agree,
        "seconds": round(time.monotonic() - began, 1),
        "curve": [p.__dict__ for p in read_curve(run)],
    }
    (run / "summary.json").write_text(json.dumps(summary, indent=1))
    print(f"wrote {run / 'policy.npz'} and {run / 'curve.png'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
