"""Presenting an :class:`~sdk.arena.result.ArenaResult`: Markdown, a rich table, files.

The same rows feed the Markdown file and the terminal table, so they never disagree.

>>> from sdk.arena.stats import Interval
>>> fmt_interval(Interval(12.5, 2.25, 22.75, 40))
'+12.5 ± 10.2'
>>> fmt_interval(Interval(3.0, float("nan"), float("nan"), 1))
'+3.0 (n=1)'
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

from rich.console import Console
from rich.table import Table
from rich.text import Text

from sdk.arena.program_settings import CRASHED
from sdk.arena.result import ArenaResult, BotStats
from sdk.arena.stats import Interval
from sdk.budget import Outcome

__all__ = [
    "bot_rows",
    "fmt_interval",
    "fmt_p",
    "markdown",
    "pair_rows",
    "print_report",
    "time_rows",
    "write_report",
]

BOT_HEADER = ("bot", "pts/hand (95% CI)", "win", "self-draw", "deal-in", "tai/win", "draw")
TIME_HEADER = (
    "bot",
    "decisions",
    "p50 ms",
    "p99 ms",
    "max ms",
    "fallbacks",
    "late",
    "errors",
    "illegal",
    "malformed",
    "crashed",
)
PAIR_HEADER = ("a", "b", "a − b pts/hand (95% CI)", "p", "p (Holm)", "significant", "verdict")


def fmt_interval(iv: Interval) -> str:
    """``mean ± half-width`` (one decimal), or the mean and ``n`` when there is no CI."""
    if math.isnan(iv.mean):
        return "—"
    if math.isnan(iv.low):
        return f"{iv.mean:+.1f} (n={iv.n})"
    return f"{iv.mean:+.1f} ± {iv.half_width:.1f}"


def fmt_p(p: float) -> str:
    """A p-value for people: three decimals, ``<0.001`` below that, ``—`` when none.

    >>> fmt_p(0.04321), fmt_p(0.0000123), fmt_p(float("nan"))
    ('0.043', '<0.001', '—')
    """
    if math.isnan(p):
        return "—"
    return "<0.001" if p < 0.001 else f"{p:.3f}"


def _pct(x: float) -> str:
    return "—" if math.isnan(x) else f"{100 * x:.1f}%"


def _num(x: float, digits: int = 2) -> str:
    return "—" if math.isnan(x) else f"{x:.{digits}f}"


def _ranked(result: ArenaResult) -> list[BotStats]:
    return sorted(result.bots, key=lambda b: 0 if math.isnan(b.points.mean) else -b.points.mean)


def bot_rows(result: ArenaResult) -> list[tuple[str, ...]]:
    """One row per bot, best mean first: points and how the hands ended."""
    return [
        (
            b.label,
            fmt_interval(b.points),
            _pct(b.win_rate),
            _pct(b.self_draw_rate),
            _pct(b.deal_in_rate),
            _num(b.avg_tai),
            _pct(b.draw_rate),
        )
        for b in _ranked(result)
    ]


def time_rows(result: ArenaResult) -> list[tuple[str, ...]]:
    """One row per bot: decision times and answers replaced by the fallback."""
    return [
        (
            b.label,
            str(b.timing.count),
            _num(b.timing.percentile(50) * 1000, 3),
            _num(b.timing.percentile(99) * 1000, 3),
            _num(b.timing.max * 1000, 3),
            str(b.fallbacks),
            str(b.outcomes.get(Outcome.LATE, 0)),
            str(b.outcomes.get(Outcome.ERROR, 0)),
            str(b.outcomes.get(Outcome.ILLEGAL, 0)),
            str(b.outcomes.get(Outcome.MALFORMED, 0)),
            str(b.outcomes.get(CRASHED, 0)),
        )
        for b in _ranked(result)
    ]


def pair_rows(result: ArenaResult) -> list[tuple[str, ...]]:
    """The pairwise-difference table's rows, as text: the difference with its interval,
    the paired t test's p-value alone and adjusted for all the pairs (Holm), and the
    verdict, which goes by the adjusted one."""
    return [
        (
            p.a,
            p.b,
            fmt_interval(p.diff),
            fmt_p(p.p_value),
            fmt_p(p.p_holm),
            ("yes" if p.significant else "no") if p.tested else "untested",
            p.verdict,
        )
        for p in result.pairs
    ]


def _summary(result: ArenaResult) -> str:
    c = result.config
    mode = {1: "independent walls", 4: "duplicate (4 rotations)", 24: "duplicate (24 seatings)"}
    speed = f", {result.hands_per_second:.1f} hands/s" if result.elapsed > 0 else ""
    text = (
        f"{result.hands} hands in {result.deals} deals × {c['seatings']} seating(s) "
        f"of {c['match_hands']} hands — {mode.get(c['seatings'], 'custom seatings')}, "
        f"seed {c['seed']}{speed}"
    )
    return ("PARTIAL (interrupted): " if result.partial else "") + text


def markdown(result: ArenaResult) -> str:
    """The report as Markdown: a summary line, the bot table and the pair table."""

    def table(header: tuple[str, ...], rows: list[tuple[str, ...]]) -> list[str]:
        lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        return lines + ["| " + " | ".join(row) + " |" for row in rows]

    lines = ["# Arena", "", _summary(result), ""]
    lines += table(BOT_HEADER, bot_rows(result))
    lines += ["", "## Decisions", ""]
    lines += table(TIME_HEADER, time_rows(result))
    if result.pairs:
        lines += ["", "## Pairwise differences", ""]
        lines += table(PAIR_HEADER, pair_rows(result))
    return "\n".join(lines) + "\n"


def print_report(result: ArenaResult, console: Console | None = None) -> None:
    """Print the summary and the tables with rich (at least 100 columns wide, so the
    tables do not wrap when the output is a file or a pipe)."""
    console = console or Console(width=None if sys.stdout.isatty() else 120)
    console.print(Text(_summary(result), style="bold red" if result.partial else "bold"))
    console.print(_table("Bots", BOT_HEADER, bot_rows(result)))
    console.print(_table("Decisions", TIME_HEADER, time_rows(result)))
    if result.pairs:
        console.print(_table("Pairs", PAIR_HEADER, pair_rows(result)))


def _table(title: str, header: tuple[str, ...], rows: list[tuple[str, ...]]) -> Table:
    table = Table(*header, title=title)
    for row in rows:
        table.add_row(*(Text(cell) for cell in row))  # bot names are not markup
    return table


def write_report(result: ArenaResult, out: Path) -> list[Path]:
    """Write ``arena.json`` and ``arena.md`` into ``out`` (created); return the paths."""
    out.mkdir(parents=True, exist_ok=True)
    json_path, md_path = out / "arena.json", out / "arena.md"
    json_path.write_text(json.dumps(result.to_json(), indent=2, ensure_ascii=False) + "\n")
    md_path.write_text(markdown(result), encoding="utf-8")
    return [json_path, md_path]
