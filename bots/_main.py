"""``python -m bots.<name>``: play the bot against house bots in this process.

A stand-in until the SDK's common command line (``sdk.cli.run``) lands; then each bot
module's ``__main__`` block calls that instead and this file goes away.

    python -m bots.greedy --hands 16 --seed 7 --opponents random
"""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Sequence

from sdk.bot import Bot
from sdk.local import play_match

__all__ = ["main"]

HOUSE = ("random", "greedy", "defensive")


def house_bot(name: str, seed: int) -> Bot:
    """A fresh house bot by module name (``random``, ``greedy`` or ``defensive``)."""
    cls = importlib.import_module(f"bots.{name}").BOT
    return cls(seed=seed) if name == "random" else cls()


def main(bot_class: type[Bot], argv: Sequence[str] | None = None) -> None:
    """Play one local match of ``bot_class`` (seat 0) against three house bots and print
    the scores, the hands won and the bot's decision times."""
    parser = argparse.ArgumentParser(description=f"{bot_class.__name__} in a local match")
    parser.add_argument("--hands", type=int, default=16)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--opponents", choices=HOUSE, default="greedy")
    args = parser.parse_args(argv)
    bots = [bot_class()] + [house_bot(args.opponents, args.seed * 4 + i) for i in (1, 2, 3)]
    result = play_match(bots, seed=args.seed, hands=args.hands)
    wins = [sum(1 for h in result.hand_results if h.winner == s) for s in result.seats]
    for p, name in enumerate(result.names):
        print(f"{name:>10} seat {result.seats[p]}  score {result.scores[p]:>7}  wins {wins[p]}")
    timing = result.stats[0].to_json()
    print(
        f"{result.names[0]}: {timing['decisions']} decisions, p50 {timing['p50_ms']} ms, "
        f"p99 {timing['p99_ms']} ms, max {timing['max_ms']} ms, fallbacks {timing['fallbacks']}"
    )


if __name__ == "__main__":
    main(house_bot("greedy", 0).__class__)
