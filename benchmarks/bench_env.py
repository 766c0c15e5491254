"""Benchmark the learning environment against RLCard's mahjong environment, side by side.

Both play uniformly random legal actions, one agent after another, and every step
includes what a learner needs: the observation and the legal-action mask of the agent to
act. Ours is the PettingZoo AEC environment (``env.last()`` then ``env.step``: the
observation vector and the mask; :mod:`sdk.learn.aec`); RLCard's is
``rlcard.make("mahjong")`` (``env.step`` returns the next state with its observation
planes and legal actions). The figure is environment steps per CPU second
(``time.process_time``) on one core, median of ``--repeats`` runs of ``--seconds``
each, the two alternating so that they share whatever else the machine is doing.

RLCard is NOT a dependency of this project: it runs in its own virtual environment, in a
child process, which this script starts with the interpreter given by
``--rlcard-python``. Set it up once::

    python -m venv /tmp/bench-env && /tmp/bench-env/bin/pip install rlcard numpy

Run: ``python benchmarks/bench_env.py [--seconds 3] [--repeats 5]
[--rlcard-python /tmp/bench-env/bin/python]`` (``--no-rlcard`` measures ours only).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import time

from sdk.learn.aec import TaiMahjongAEC
from sdk.learn.game import LearningGame

RLCARD_SCRIPT = """
import json, random, sys, time
import rlcard
seconds, seed = float(sys.argv[1]), int(sys.argv[2])
env = rlcard.make("mahjong", config={"seed": seed})
rng = random.Random(seed)
steps = 0
start = time.process_time()
while time.process_time() - start < seconds:
    state, player = env.reset()
    while not env.is_over():
        legal = list(state["legal_actions"])
        state, player = env.step(rng.choice(legal))
        obs = state["obs"]
        steps += 1
print(json.dumps({"steps": steps, "cpu": time.process_time() - start}))
"""


def ours_aec(seconds: float, seed: int) -> float:
    """Steps per CPU second of the AEC environment with random legal actions."""
    rng = random.Random(seed)
    choose = lambda obs, mask: int(rng.choice(mask.nonzero()[0]))  # noqa: E731
    return _aec_steps(seconds, seed, choose, timed=False)[0]


def ours_aec_policy(seconds: float, seed: int) -> tuple[float, float]:
    """Steps per CPU second of the AEC environment with the shipped policy
    (``bots.neural``'s network) answering in every seat, and the policy's median CPU
    time per decision in seconds."""
    from bots.neural import DEFAULT_WEIGHTS
    from sdk.learn.mlp import MLP, MLPPolicy

    return _aec_steps(seconds, seed, MLPPolicy(MLP.load(DEFAULT_WEIGHTS)))


def _aec_steps(seconds: float, seed: int, choose, timed: bool = True) -> tuple[float, float]:  # type: ignore[no-untyped-def]
    """Steps per CPU second of the AEC environment with ``choose(observation, mask)``
    answering for every seat, and (``timed``) its median CPU time per decision."""
    env = TaiMahjongAEC(hands=1)
    env.reset(seed=seed)
    steps, spent = 0, []
    start = time.process_time()
    while time.process_time() - start < seconds:
        env.reset()
        while env.agents:
            obs, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            before = time.process_time() if timed else 0.0
            index = choose(obs["observation"], obs["action_mask"])
            if timed:
                spent.append(time.process_time() - before)
            env.step(index)
            steps += 1
    return steps / (time.process_time() - start), statistics.median(spent) if timed else 0.0


def ours_referee(seconds: float, seed: int) -> float:
    """Steps per CPU second of the same game without observations or masks."""
    rng = random.Random(seed)
    steps, n = 0, 0
    start = time.process_time()
    while time.process_time() - start < seconds:
        game = LearningGame(seed + n, 1, n % 4)
        n += 1
        while not game.is_over:
            seat = game.next_seat()
            legal = game.legal(seat)  # type: ignore[arg-type]
            game.play(seat, rng.choice(legal))  # type: ignore[arg-type]
            steps += 1
    return steps / (time.process_time() - start)


def rlcard(python: str, seconds: float, seed: int) -> float:
    """Steps per CPU second of RLCard's mahjong environment, in its own interpreter."""
    out = subprocess.run(
        [python, "-c", RLCARD_SCRIPT, str(seconds), str(seed)],
        check=True,
        capture_output=True,
        text=True,
    )
    data = json.loads(out.stdout.strip().splitlines()[-1])
    return data["steps"] / data["cpu"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--rlcard-python", default="/tmp/bench-env/bin/python")
    parser.add_argument("--no-rlcard", action="store_true")
    args = parser.parse_args(argv)
    with_rlcard = not args.no_rlcard
    if with_rlcard and not os.path.exists(args.rlcard_python):
        print(
            f"no interpreter at {args.rlcard_python}: set up RLCard's own environment with "
            "'python -m venv /tmp/bench-env && /tmp/bench-env/bin/pip install rlcard numpy', "
            "or pass --no-rlcard",
            file=sys.stderr,
        )
        return 2
    aec, raw, peer, policy, decision = [], [], [], [], []
    for i in range(args.repeats):
        seed = args.seed + i
        aec.append(ours_aec(args.seconds, seed))
        with_policy, per_decision = ours_aec_policy(args.seconds, seed)
        policy.append(with_policy)
        decision.append(per_decision)
        raw.append(ours_referee(args.seconds, seed))
        if with_rlcard:
            peer.append(rlcard(args.rlcard_python, args.seconds, seed))
    _report(aec, raw, peer, args)
    med = statistics.median
    print(
        f"  AEC env + bots.neural in every seat     : {med(policy):10,.0f}  (runs: {_runs(policy)})"
    )
    print(
        f"  bots.neural policy, median CPU per decision: {med(decision) * 1e3:.3f} ms (goal <= 2 ms)"
    )
    return 0


def _report(
    aec: list[float], raw: list[float], peer: list[float], args: argparse.Namespace
) -> None:
    med = statistics.median
    print(
        f"environment steps per CPU second, one core, median of {args.repeats} x {args.seconds:g} s"
    )
    print(f"  taimahjong AEC env (observation + mask) : {med(aec):10,.0f}  (runs: {_runs(aec)})")
    print(f"  taimahjong referee only (no obs/mask)   : {med(raw):10,.0f}  (runs: {_runs(raw)})")
    if peer:
        print(
            f"  RLCard mahjong env (obs + legal actions): {med(peer):10,.0f}  (runs: {_runs(peer)})"
        )
        ratios = [a / p for a, p in zip(aec, peer, strict=True)]
        print(
            f"  ratio AEC / RLCard: {med(ratios):.1f}x (per repeat: "
            f"{', '.join(f'{r:.1f}' for r in ratios)}; goal >= 10x)"
        )


def _runs(values: list[float]) -> str:
    return ", ".join(f"{v:,.0f}" for v in values)


if __name__ == "__main__":
    sys.exit(main())
