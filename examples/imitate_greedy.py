"""Learn to play like ``bots.greedy`` from its own games, with numpy only.

1. **Data.** Four greedy bots play each other in-process; a thin wrapper records, at
   every decision of every seat, the observation (:func:`sdk.learn.encoding.encode` of
   the bot's view), the legal-action mask and the index of greedy's answer. (The same
   arrays come from game records with ``python -m sdk.learn.dataset``.)
2. **Model.** A small softmax policy over the count and flag features of the encoding
   (:data:`FEATURES`): the features scaled, one hidden layer of ReLUs
   (``--hidden 0`` makes it plain softmax regression), logits over the 151 actions with
   the illegal ones masked out; trained by minibatch Adam on the cross-entropy.
3. **Held-out agreement.** The last matches are kept apart; the model's choice is
   compared with greedy's there, overall and for discards and claims.
4. **Play.** The model becomes an SDK bot (:class:`sdk.learn.policy.PolicyBot`) and
   plays the arena against three ``bots.random``, duplicate seating; the points per hand
   come with a 95% confidence interval.

Run: ``python examples/imitate_greedy.py`` (a few minutes on two cores; ``--matches``,
``--epochs``, ``--arena-hands`` to scale up or down).
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from a clone

from bots.greedy import GreedyBot
from protocol.actions import PASS, ActionKind
from sdk.arena import run_arena
from sdk.bot import Bot, DecisionRequest
from sdk.learn.action_space import N_ACTIONS, action_of, index_of, legal_mask
from sdk.learn.encoding import LAYOUT, OBS_SIZE, encode, section
from sdk.learn.policy import PolicyBot
from sdk.local import play_match
from sdk.view import GameView

# --- 1. data ---------------------------------------------------------------------------


class Recorder(Bot):
    """Plays like ``inner`` and keeps (observation, mask, action) of every decision."""

    def __init__(self, inner: Bot, rows: list[tuple[np.ndarray, np.ndarray, int]]) -> None:
        super().__init__(inner.name)
        self.inner, self.rows = inner, rows

    def choose(self, view: GameView, request: DecisionRequest):  # type: ignore[no-untyped-def]
        action = self.inner.choose(view, request)
        self.rows.append((encode(view), legal_mask(request.legal_actions), index_of(action)))
        return action


FEATURES = np.concatenate(
    [
        np.arange(OBS_SIZE)[section(name)]
        for name, _ in LAYOUT
        if not name.startswith(("river_", "melds_")) or name.startswith("river_counts")
    ]
)
"""The model's inputs: every count and flag of the layout; the in-order sections
(``river_r``, ``river_claimed_r``, ``melds_r``: tile ids meant for a sequence model) are
left out of this small model."""


def record_match(seed: int, hands: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(X, M, y) of one match of four recorded greedy bots."""
    rows: list[tuple[np.ndarray, np.ndarray, int]] = []
    play_match([Recorder(GreedyBot(), rows) for _ in range(4)], seed=seed, hands=hands)
    return (
        np.stack([r[0][FEATURES] for r in rows]),
        np.stack([r[1] for r in rows]).astype(bool),
        np.array([r[2] for r in rows]),
    )


def generate(
    matches: int, hands: int, seed: int, workers: int
) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """One (X, M, y) triple per match, on ``workers`` processes."""
    seeds = [seed + m for m in range(matches)]
    if workers <= 1:
        return [record_match(s, hands) for s in seeds]
    context = multiprocessing.get_context("fork" if os.name == "posix" else "spawn")
    with ProcessPoolExecutor(workers, mp_context=context) as pool:
        return list(pool.map(record_match, seeds, [hands] * matches))


# --- 2. model --------------------------------------------------------------------------


class SoftmaxPolicy:
    """``softmax(W2 relu(W1 (x - mu) / sd + b1) + b2)`` over the legal actions."""

    name = "imitation"

    def __init__(self, mu: np.ndarray, sd: np.ndarray, hidden: int, seed: int) -> None:
        rng = np.random.default_rng(seed)
        n_in = len(mu)
        self.mu, self.sd = mu, sd
        width = hidden or n_in
        self.params = {
            "W1": rng.normal(0, np.sqrt(2 / n_in), (n_in, hidden)) if hidden else None,
            "b1": np.zeros(hidden) if hidden else None,
            "W2": rng.normal(0, np.sqrt(1 / width), (width, N_ACTIONS)),
            "b2": np.zeros(N_ACTIONS),
        }
        self.params = {k: v for k, v in self.params.items() if v is not None}

    def hidden(self, x: np.ndarray) -> np.ndarray:
        z = (x - self.mu) / self.sd
        if "W1" in self.params:
            return np.maximum(z @ self.params["W1"] + self.params["b1"], 0.0)
        return z

    def logits(self, x: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        h = self.hidden(x)
        out = h @ self.params["W2"] + self.params["b2"]
        return np.where(mask, out, -1e9), h

    def __call__(self, observation: np.ndarray, mask: np.ndarray) -> int:
        x = observation[FEATURES][None, :]
        logits, _ = self.logits(x, mask[None, :].astype(bool))
        return int(np.argmax(logits[0]))

    def grads(self, x: np.ndarray, mask: np.ndarray, y: np.ndarray) -> tuple[float, dict]:
        logits, h = self.logits(x, mask)
        logits -= logits.max(axis=1, keepdims=True)
        p = np.exp(logits)
        p /= p.sum(axis=1, keepdims=True)
        n = len(y)
        loss = -np.log(p[np.arange(n), y] + 1e-12).mean()
        d = p
        d[np.arange(n), y] -= 1.0
        d /= n
        g = {"W2": h.T @ d, "b2": d.sum(axis=0)}
        if "W1" in self.params:
            dh = (d @ self.params["W2"].T) * (h > 0)
            z = (x - self.mu) / self.sd
            g["W1"], g["b1"] = z.T @ dh, dh.sum(axis=0)
        return float(loss), g


def train(
    model: SoftmaxPolicy, x, m, y, epochs: int, seed: int, lr: float = 1e-3, decay: float = 1e-4
) -> None:  # type: ignore[no-untyped-def]
    """Minibatch Adam on the masked cross-entropy, with a little weight decay."""
    rng = np.random.default_rng(seed)
    moments = {k: (np.zeros_like(v), np.zeros_like(v)) for k, v in model.params.items()}
    step = 0
    for epoch in range(epochs):
        order = rng.permutation(len(y))
        losses = []
        for start in range(0, len(y), 256):
            idx = order[start : start + 256]
            loss, g = model.grads(x[idx], m[idx], y[idx])
            losses.append(loss)
            step += 1
            for k, grad in g.items():
                if k.startswith("W"):
                    grad = grad + decay * model.params[k]
                m1, m2 = moments[k]
                m1 *= 0.9
                m1 += 0.1 * grad
                m2 *= 0.999
                m2 += 0.001 * grad * grad
                update = (m1 / (1 - 0.9**step)) / (np.sqrt(m2 / (1 - 0.999**step)) + 1e-8)
                model.params[k] -= lr * update
        if epoch % 5 == 4 or epoch == epochs - 1:
            print(f"  epoch {epoch + 1:3d}: training loss {np.mean(losses):.3f}")


# --- 3. agreement ----------------------------------------------------------------------


def agreement(model: SoftmaxPolicy, x, m, y) -> dict[str, tuple[float, int]]:  # type: ignore[no-untyped-def]
    """Share of decisions where the model picks greedy's action, by kind of decision."""
    logits, _ = model.logits(x, m)
    picked = logits.argmax(axis=1)
    claim = m[:, index_of(PASS)]  # pass is legal exactly when answering a discard
    only_one = m.sum(axis=1) == 1
    kinds = {
        "all decisions": np.ones(len(y), bool),
        "with a choice": ~only_one,
        "own turn (discard or kong)": ~claim & ~only_one,
        "claims (pass or call)": claim & ~only_one,
    }
    return {name: (float((picked[k] == y[k]).mean()), int(k.sum())) for name, k in kinds.items()}


# --- 4. play ---------------------------------------------------------------------------

_MODEL: SoftmaxPolicy | None = None


def learned_bot() -> Bot:
    """The arena's factory (module level, so worker processes can use it)."""
    assert _MODEL is not None
    return PolicyBot(_MODEL, name="imitation")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Imitate bots.greedy with a softmax model.")
    parser.add_argument("--matches", type=int, default=96, help="greedy matches to record")
    parser.add_argument("--match-hands", type=int, default=4)
    parser.add_argument("--held-out", type=float, default=0.2, help="share of matches kept apart")
    parser.add_argument("--hidden", type=int, default=128, help="hidden units (0: linear)")
    parser.add_argument("--epochs", type=int, default=8)
    parser.add_argument("--arena-hands", type=int, default=512)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    global _MODEL

    start = time.monotonic()
    print(
        f"1. recording {args.matches} matches of four greedy bots ({args.match_hands} hands each)"
    )
    data = generate(args.matches, args.match_hands, args.seed, args.workers)
    cut = max(1, int(len(data) * (1 - args.held_out)))
    x, m, y = (np.concatenate([d[i] for d in data[:cut]]) for i in range(3))
    hx, hm, hy = (np.concatenate([d[i] for d in data[cut:]]) for i in range(3))
    print(
        f"   {len(y)} training and {len(hy)} held-out decisions ({time.monotonic() - start:.0f} s)"
    )

    print(
        f"2. training a softmax policy ({args.hidden or 'no'} hidden units, {args.epochs} epochs)"
    )
    sd = x.std(axis=0)
    model = SoftmaxPolicy(x.mean(axis=0), np.where(sd > 0, sd, 1.0), args.hidden, args.seed)
    train(model, x, m, y, args.epochs, args.seed)

    print("3. agreement with greedy on held-out matches")
    for name, (share, n) in agreement(model, hx, hm, hy).items():
        print(f"   {name:28s} {100 * share:5.1f}%  of {n}")
    kinds = [action_of(int(a)).kind for a in hy]
    print(
        f"   (greedy discards in {100 * kinds.count(ActionKind.DISCARD) / len(kinds):.0f}% of them)"
    )

    print(
        f"4. the model as an SDK bot in the arena: vs three bots.random, {args.arena_hands} hands"
    )
    _MODEL = model
    result = run_arena(
        [learned_bot, "bots.random", "bots.random", "bots.random"],
        hands=args.arena_hands,
        match_hands=4,
        duplicate=True,
        backend="process" if args.workers > 1 else "local",
        workers=args.workers,
        seed=args.seed + 1,
    )
    for bot in result.bots:
        p = bot.points
        print(
            f"   {bot.label:10s} {p.mean:+8.1f} points/hand, 95% CI [{p.low:+.1f}, {p.high:+.1f}]"
            f"  win rate {100 * bot.win_rate:.1f}%  deal-in {100 * bot.deal_in_rate:.1f}%"
            f"  ({bot.hands} hands, {bot.fallbacks} fallbacks)"
        )
    print(f"done in {time.monotonic() - start:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
