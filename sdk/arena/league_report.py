"""A league's results: standings, ratings, pairwise comparisons and the results page.

* **standings**: each entry's points per hand with its 95% t interval, one observation
  per table it played (its points per hand over the table's four rotations);
* **rating**: OpenSkill (Plackett-Luce, every match ranked by score, in table order),
  the server leaderboard's own (:func:`sdk.server.ratings.leaderboard`); absent, with a
  note, when ``openskill`` (the ``server`` extra) is not installed;
* **pairs**: for every two entries, the paired difference over the tables both played
  (same deals, same rotations), its interval, p-value and Holm adjustment over all
  pairs, as the arena reports (:mod:`sdk.arena.stats`);
* per entry, decision times p50 / p99 / max and the counts of late, illegal, malformed
  answers and crashed programs;
* :func:`write_html`: one self-contained page (no script or style fetched) linking every
  match to its replay viewer page (:func:`sdk.replay.html.render_html`).
"""

from __future__ import annotations

import html
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sdk.arena.deal import DealRecord, PlayerTally
from sdk.arena.program_settings import CRASHED
from sdk.arena.stats import Interval, holm, mean_interval, paired_interval, paired_p
from sdk.budget import Outcome

__all__ = [
    "EntryStanding",
    "LeagueStandings",
    "PairResult",
    "standings",
    "to_json",
    "write_html",
]


@dataclass(frozen=True, slots=True)
class EntryStanding:
    """One entry's line of the standings."""

    label: str
    spec: str
    tables: int
    tally: PlayerTally
    points: Interval
    rating: float | None

    @property
    def counts(self) -> dict[str, int]:
        """Late, illegal and malformed answers, crashed programs."""
        o = self.tally.outcomes
        keys = (Outcome.LATE, Outcome.ILLEGAL, Outcome.MALFORMED, CRASHED)
        return {str(k): o.get(k, 0) for k in keys}


@dataclass(frozen=True, slots=True)
class PairResult:
    """Two entries compared over the tables both played."""

    a: str
    b: str
    difference: Interval
    p: float
    p_holm: float

    @property
    def significant(self) -> bool:
        """Whether the difference holds for the family of all pairs (Holm, 5%)."""
        return not math.isnan(self.p_holm) and self.p_holm < 0.05


@dataclass(frozen=True, slots=True)
class LeagueStandings:
    """The whole results of the tables played so far."""

    entries: list[EntryStanding]
    pairs: list[PairResult]
    tables: int
    tables_planned: int
    matches: list[tuple[int, str, tuple[str, ...], tuple[int, ...]]]
    """(table, match id, labels by seat, scores by seat), in table order."""
    rating_note: str = ""


def standings(league: Any, results: dict[int, DealRecord]) -> LeagueStandings:
    """The standings of ``league`` (:class:`~sdk.arena.league.League`) from its results."""
    labels, tables = league.labels, league.tables
    per_table: dict[str, dict[int, float]] = {x: {} for x in labels}
    tallies = {x: PlayerTally() for x in labels}
    matches = []
    for t in sorted(results):
        group = [labels[i] for i in tables[t]]
        points = dict.fromkeys(group, 0)
        hands = dict.fromkeys(group, 0)
        for match, match_id in zip(results[t].matches, league.match_ids(t), strict=True):
            by_seat = [""] * 4
            for player, tally in enumerate(match.players):
                label = group[player]
                tallies[label].add(tally)
                points[label] += tally.points
                hands[label] += tally.hands
                by_seat[match.seating[player]] = label
            scores = [0] * 4
            for player, score in enumerate(match.scores):
                scores[match.seating[player]] = score
            matches.append((t, match_id, tuple(by_seat), tuple(scores)))
        for label in group:
            per_table[label][t] = points[label] / max(1, hands[label])
    ratings, note = _ratings(matches, league.match_hands)
    entries = [
        EntryStanding(
            x, spec.spec, len(per_table[x]), tallies[x],
            mean_interval(list(per_table[x].values())), ratings.get(x),
        )
        for x, spec in zip(labels, league.entries, strict=True)
    ]  # fmt: skip
    entries.sort(key=lambda e: -e.points.mean if not math.isnan(e.points.mean) else 0)
    return LeagueStandings(
        entries, _pairs(labels, per_table), len(results), len(tables), matches, note
    )


def _pairs(labels: tuple[str, ...], per_table: dict[str, dict[int, float]]) -> list[PairResult]:
    compared = [(a, b) for i, a in enumerate(labels) for b in labels[i + 1 :]]
    rows = []
    for a, b in compared:
        shared = sorted(set(per_table[a]) & set(per_table[b]))
        xs, ys = [per_table[a][t] for t in shared], [per_table[b][t] for t in shared]
        rows.append((a, b, paired_interval(xs, ys), paired_p(xs, ys) if shared else math.nan))
    adjusted = holm([r[3] for r in rows])
    return [PairResult(a, b, iv, p, q) for (a, b, iv, p), q in zip(rows, adjusted, strict=True)]


def _ratings(
    matches: list[tuple[int, str, tuple[str, ...], tuple[int, ...]]], hands: int
) -> tuple[dict[str, float], str]:
    """Each entry's OpenSkill rating (mu - 3 sigma), by the server leaderboard's code."""
    try:
        from sdk.server.ratings import MatchOutcome, leaderboard

        board = leaderboard(
            MatchOutcome(names, ("",) * 4, scores, hands) for _, _, names, scores in matches
        )
    except ImportError:
        return {}, "no rating: install openskill (pip install 'taimahjong[server]')"
    return {e.bot_name: e.rating for e in board.entries}, ""


def _f(x: float | None, digits: int = 1, sign: bool = True) -> str:
    if x is None or math.isnan(x):
        return "—"
    return f"{x:+.{digits}f}" if sign else f"{x:.{digits}f}"


def _iv(iv: Interval) -> str:
    if math.isnan(iv.low):
        return f"{_f(iv.mean)} (n={iv.n})"
    return f"{_f(iv.mean)} [{_f(iv.low)}, {_f(iv.high)}]"


def standing_rows(s: LeagueStandings) -> list[tuple[str, ...]]:
    """The standings as text cells (rank, entry, pts/hand [95% CI], rating, tables,
    hands, decisions, p50/p99/max ms, late, illegal, malformed, crashed)."""
    rows = []
    for rank, e in enumerate(s.entries, 1):
        t = e.tally.timing
        c = e.counts
        rows.append((
            str(rank), e.label, _iv(e.points), _f(e.rating, 2, sign=False), str(e.tables),
            str(e.tally.hands), str(t.count), _f(t.percentile(50) * 1000, 2, False),
            _f(t.percentile(99) * 1000, 2, False), _f(t.max * 1000, 2, False),
            str(c["late"]), str(c["illegal"]), str(c["malformed"]), str(c[CRASHED]),
        ))  # fmt: skip
    return rows


STANDING_HEADER = (
    "#", "entry", "pts/hand (95% CI)", "rating", "tables", "hands", "decisions",
    "p50 ms", "p99 ms", "max ms", "late", "illegal", "malformed", "crashed",
)  # fmt: skip
PAIR_HEADER = ("a", "b", "a − b pts/hand (95% CI)", "p", "p (Holm)", "significant")


def pair_rows(s: LeagueStandings) -> list[tuple[str, ...]]:
    """The pairwise comparisons as text cells."""
    return [
        (p.a, p.b, _iv(p.difference), _f(p.p, 4, False), _f(p.p_holm, 4, False),
         "yes" if p.significant else "no")
        for p in s.pairs
    ]  # fmt: skip


def to_json(s: LeagueStandings) -> dict[str, Any]:
    """The results as plain data (``results.json``)."""

    def r(x: float | None) -> float | None:
        return None if x is None or math.isnan(x) else round(x, 4)

    def iv(i: Interval) -> dict[str, Any]:
        return {"mean": r(i.mean), "low": r(i.low), "high": r(i.high), "n": i.n}

    return {
        "tables": s.tables,
        "tables_planned": s.tables_planned,
        "standings": [
            {"entry": e.label, "spec": e.spec, "points_per_hand": iv(e.points),
             "rating": e.rating, "tables": e.tables, "hands": e.tally.hands,
             "decisions": e.tally.timing.count, "timing": e.tally.timing.to_json(), **e.counts}
            for e in s.entries
        ],
        "pairs": [
            {"a": p.a, "b": p.b, "difference": iv(p.difference), "p": r(p.p),
             "p_holm": r(p.p_holm), "significant": p.significant}
            for p in s.pairs
        ],
        "matches": [
            {"table": t, "match_id": m, "seats": list(n), "scores": list(sc)}
            for t, m, n, sc in s.matches
        ],
        "rating_note": s.rating_note,
    }  # fmt: skip


def _table(header: tuple[str, ...], rows: list[tuple[str, ...]]) -> str:
    head = "".join(f"<th>{html.escape(h)}</th>" for h in header)
    body = "".join(
        "<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in row) + "</tr>" for row in rows
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


_STYLE = """body{font-family:system-ui,sans-serif;margin:2em;color:#222}
table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:.3em .6em;
text-align:right}td:nth-child(2),th:nth-child(2){text-align:left}h1{font-size:1.4em}"""


def write_html(s: LeagueStandings, path: Path, viewer_dir: str = "viewer") -> None:
    """The self-contained results page; each match links to ``viewer_dir/<id>.html``."""
    links = [
        (str(t), f'<a href="{viewer_dir}/{html.escape(m)}.html">{html.escape(m)}</a>',
         " · ".join(html.escape(x) for x in names), " ".join(f"{v:+d}" for v in scores))
        for t, m, names, scores in s.matches
    ]  # fmt: skip
    rows = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in links)
    note = f"<p>{html.escape(s.rating_note)}</p>" if s.rating_note else ""
    page = f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>League results</title>
<style>{_STYLE}</style></head><body>
<h1>League results</h1>
<p>{s.tables} of {s.tables_planned} tables played; each table is one deal in the four
rotations. Points per hand with 95% intervals over tables; rating: OpenSkill
(mu − 3 sigma); pairs over the tables both played, p-values Holm-adjusted.</p>{note}
<h2>Standings</h2>{_table(STANDING_HEADER, standing_rows(s))}
<h2>Pairs</h2>{_table(PAIR_HEADER, pair_rows(s))}
<h2>Matches</h2><table><thead><tr><th>table</th><th>match (replay)</th>
<th>seats 0..3</th><th>scores</th></tr></thead><tbody>{rows}</tbody></table>
</body></html>
"""
    path.write_text(page, encoding="utf-8")
