"""Benchmark programs in the arena: the cost of a program seat, and a league's speed.

**Overhead per decision.** The same arena run twice: four copies of a C line-protocol
program (``tests/line_programs/drawn.c``: pass every claim, throw the tile just drawn)
over pipes, and four in-process bots playing the same policy (the R17 default, which
is exactly that). The games are the same, event for event (checked); the difference of
the two runs' wall time divided by the decisions is what a program seat costs the arena
(starting the programs, the line protocol, pipes, the table's clock), next to the goal
of 1 ms. The programs' decision round trips (ask written to reply read, wall time) are
shown as p50 / p99 / max, the p99 next to its goal of 5 ms.

**A league's speed.** Eight programs (copies of the same C program, so the work is the
arena's, not the programs') in a league on ``--workers`` cores: hands per second.

Run: ``nice -n 10 python benchmarks/bench_programs.py [--hands 64] [--repeats 3]
[--league-hands 1] [--workers 2]`` (needs ``cc``)
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from sdk.arena import run_arena
from sdk.arena.league import League
from sdk.arena.loader import load_bot
from sdk.bot import Bot
from sdk.records import read_record

SOURCE = Path(__file__).resolve().parent.parent / "tests" / "line_programs" / "drawn.c"


def default_bot() -> Bot:
    """The in-process twin of the C program: the R17 default of every decision."""
    return Bot.from_function(lambda view, request: request.default(), name="default")


def compile_program(folder: Path) -> Path:
    """The C program, compiled into ``folder``."""
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        raise SystemExit("needs a C compiler (cc)")
    out = folder / "drawn"
    subprocess.run([cc, "-O2", "-o", str(out), str(SOURCE)], check=True)
    return out


def timed_run(bots: list, hands: int, logs: Path) -> tuple[float, float, object]:
    """Wall and CPU seconds of one arena run (this process only: the arena's own work,
    not the programs'; records kept for the check)."""
    start, cpu = time.perf_counter(), time.process_time()
    result = run_arena(bots, hands=hands, match_hands=16, duplicate=True, backend="local",
                       seed=11, save_logs=logs)  # fmt: skip
    return time.perf_counter() - start, time.process_time() - cpu, result


def overhead(binary: Path, hands: int, repeats: int, folder: Path) -> None:
    """Print the per-decision cost of a program seat against the in-process twin."""
    gaps, cpu_gaps, walls = [], [], {}
    for r in range(repeats):
        t_prog, c_prog, res_prog = timed_run([f"cmd:{binary}"] * 4, hands, folder / f"p{r}")
        t_bot, c_bot, _ = timed_run([default_bot] * 4, hands, folder / f"b{r}")
        decisions = res_prog.bots[0].timing.count  # type: ignore[attr-defined]
        gaps.append((t_prog - t_bot) / decisions * 1000)
        cpu_gaps.append((c_prog - c_bot) / decisions * 1000)
        walls.setdefault("program", []).append(t_prog)
        walls.setdefault("in-process", []).append(t_bot)
        timing = res_prog.bots[0].timing  # type: ignore[attr-defined]
    same = all(
        read_record(a).events == read_record(b).events
        for a, b in zip(sorted((folder / "p0").glob("*.jsonl")),
                        sorted((folder / "b0").glob("*.jsonl")), strict=True)
    )  # fmt: skip
    print(f"overhead: {hands} hands, four C programs over pipes vs four in-process bots "
          f"(same policy; same events: {'yes' if same else 'NO'}), {repeats} repeats")  # fmt: skip
    for name, values in walls.items():
        print(f"  {name:>10}: {statistics.median(values):.2f} s wall (median)")
    gap, cpu_gap = statistics.median(gaps), statistics.median(cpu_gaps)
    print(f"  arena cost per program decision: {gap:.3f} ms wall, {cpu_gap:.3f} ms of the "
          f"arena's CPU (medians; goal < 1 ms: {'met' if gap < 1 else 'NOT met'})")  # fmt: skip
    p99 = timing.percentile(99) * 1000
    print(f"  (load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)")
    print(f"  decision round trip over pipes: p50 {timing.percentile(50) * 1000:.3f} ms, "
          f"p99 {p99:.3f} ms (goal < 5 ms: {'met' if p99 < 5 else 'NOT met'}), "
          f"max {timing.max * 1000:.3f} ms, {timing.count} decisions")  # fmt: skip


def league_speed(binary: Path, match_hands: int, workers: int, folder: Path) -> None:
    """Print hands per second of a league of eight programs."""
    copies = []
    for i in range(8):
        copy = folder / f"prog{i}"
        shutil.copy(binary, copy)
        copies.append(load_bot(f"cmd:{copy}"))
    league = League(tuple(copies), tuple(f"prog{i}" for i in range(8)), folder / "league",
                    match_hands=match_hands)  # fmt: skip
    hands = len(league.tables) * 4 * match_hands
    start = time.perf_counter()
    league.run(workers)
    wall = time.perf_counter() - start
    print(f"league: 8 C programs, {len(league.tables)} tables x 4 rotations x {match_hands} "
          f"hand(s) = {hands} hands on {workers} worker(s), {os.cpu_count()} cores: "
          f"{wall:.1f} s, {hands / wall:.1f} hands/s")  # fmt: skip


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--hands", type=int, default=64)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--league-hands", type=int, default=1, help="hands per league match")
    p.add_argument("--workers", type=int, default=2)
    args = p.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        binary = compile_program(folder)
        overhead(binary, args.hands, args.repeats, folder)
        league_speed(binary, args.league_hands, args.workers, folder)


if __name__ == "__main__":
    main()
