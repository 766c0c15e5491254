"""Benchmark game records: what ``--save-logs`` costs the arena.

The same arena run (four ``bots.random`` on one core, ``--backend local``, so the
process's CPU time is the whole work: playing, encoding and writing the files) without
records, with the record of every match and with every 10th deal's, one after the other
in each repeat so they share the machine's load. Figures are hands per CPU-second
(``time.process_time``; medians of ``--repeats``) and the extra time against the run
without records (the median of each repeat's ratio). Writing goes to a temporary
directory. Without ``--save-logs`` the arena does no record work at all (no stream is
made, nothing is traced: :mod:`sdk.records.stream`), so "off" is the arena itself.

Run: ``python benchmarks/bench_records.py [--hands 256] [--repeats 5] [--bots bots.random]``
(``--bots`` names the bot of all four seats, or four bots separated by commas, e.g. the
README's quick-start lineup ``bots.defensive,bots.greedy,bots.random,bots.random``)
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from sdk.arena import run_arena


def rate(bots: list[str], hands: int, out: Path | None, every: int) -> float:
    """Hands per CPU-second of one run (records in ``out`` if given)."""
    start = time.process_time()
    result = run_arena(
        bots, hands=hands, backend="local", seed=1, save_logs=out, save_logs_every=every
    )
    return result.hands / (time.process_time() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=256)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument(
        "--bots", default="bots.random", help="the bot of all four seats, or four, comma-separated"
    )
    args = parser.parse_args()
    bots = args.bots.split(",")
    if len(bots) == 1:
        bots *= 4
    if len(bots) != 4:
        parser.error(f"--bots takes one bot or four, not {len(bots)}")
    runs: dict[str, list[float]] = {"off": [], "every match": [], "every 10th deal": []}
    with tempfile.TemporaryDirectory() as tmp:
        rate(bots, 16, Path(tmp) / "warm", 1)  # warm-up: imports, tables, caches
        for i in range(args.repeats):
            runs["off"].append(rate(bots, args.hands, None, 1))
            runs["every match"].append(rate(bots, args.hands, Path(tmp) / f"all{i}", 1))
            runs["every 10th deal"].append(rate(bots, args.hands, Path(tmp) / f"s{i}", 10))
    lineup = f"4 x {bots[0]}" if len(set(bots)) == 1 else ", ".join(bots)
    print(f"arena, one core, {lineup}, {args.hands} hands, {args.repeats} repeats:")
    for label, rates in runs.items():
        extra = [off / rate - 1 for off, rate in zip(runs["off"], rates, strict=True)]
        print(
            f"  --save-logs {label:<16} {statistics.median(rates):8.1f} hands per CPU-second "
            f"({statistics.median(extra) * 100:+.1f}% time vs off; "
            f"runs {', '.join(f'{r:.0f}' for r in rates)})"
        )


if __name__ == "__main__":
    main()
