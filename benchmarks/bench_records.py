"""Benchmark game records: what ``--save-logs`` costs the arena.

The same arena run (four ``bots.random`` on one core, ``--backend local``, so the
process's CPU time is the whole work: playing, encoding and writing the files) without
records, with the record of every match and with every 10th deal's, one after the other
in each repeat so they share the machine's load. Figures are hands per CPU-second
(``time.process_time``; medians of ``--repeats``) and the extra time against the run
without records (the median of each repeat's ratio). Writing goes to a temporary
directory. Without ``--save-logs`` the arena does no record work at all (no stream is
made, nothing is traced: :mod:`sdk.records.stream`), so "off" is the arena itself.

The last line splits the runs with every match recorded: the CPU time spent encoding
(``RecordStream.flush`` and ``finish``) and writing the files (``RecordFiles.add``), a
hand, next to the budget that +10% of a hand without records leaves.

Run: ``python benchmarks/bench_records.py [--hands 256] [--repeats 5] [--bots bots.random]``
(``--bots`` names the bot of all four seats, or four bots separated by commas, e.g. the
README's quick-start lineup ``bots.defensive,bots.greedy,bots.random,bots.random``)
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from sdk.arena import run_arena
from sdk.arena.recordfiles import RecordFiles
from sdk.records.stream import RecordStream


def rate(bots: list[str], hands: int, out: Path | None, every: int) -> float:
    """Hands per CPU-second of one run (records in ``out`` if given)."""
    start = time.process_time()
    result = run_arena(
        bots, hands=hands, backend="local", seed=1, save_logs=out, save_logs_every=every
    )
    return result.hands / (time.process_time() - start)


@contextlib.contextmanager
def timed(spent: dict[str, float]) -> Iterator[None]:
    """Add the CPU time of encoding (``encode``) and of writing (``write``) the records
    to ``spent`` while inside."""
    parts = [(RecordStream, "flush", "encode"), (RecordStream, "finish", "encode")]
    parts.append((RecordFiles, "add", "write"))
    saved = [(cls, name, getattr(cls, name)) for cls, name, _ in parts]

    def wrap(method: Callable[..., Any], key: str) -> Callable[..., Any]:
        def timed_method(*args: Any, **kwargs: Any) -> Any:
            start = time.process_time()
            try:
                return method(*args, **kwargs)
            finally:
                spent[key] = spent.get(key, 0.0) + time.process_time() - start

        return timed_method

    for (cls, name, key), (_, _, method) in zip(parts, saved, strict=True):
        setattr(cls, name, wrap(method, key))
    try:
        yield
    finally:
        for cls, name, method in saved:
            setattr(cls, name, method)


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
    parts: list[dict[str, float]] = []
    with tempfile.TemporaryDirectory() as tmp:
        rate(bots, 16, Path(tmp) / "warm", 1)  # warm-up: imports, tables, caches
        for i in range(args.repeats):
            runs["off"].append(rate(bots, args.hands, None, 1))
            with timed(spent := {}):
                runs["every match"].append(rate(bots, args.hands, Path(tmp) / f"all{i}", 1))
            parts.append(spent)
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
    hand = 1e6 / statistics.median(runs["off"])
    encode, write = (statistics.median(p.get(k, 0.0) for p in parts) for k in ("encode", "write"))
    print(
        f"  every match, a hand: encoding {encode / args.hands * 1e6:.1f} µs, writing "
        f"{write / args.hands * 1e6:.1f} µs; a hand without records {hand:.1f} µs, "
        f"so +10% leaves {hand / 10:.1f} µs"
    )


if __name__ == "__main__":
    main()
