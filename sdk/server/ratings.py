"""The leaderboard: who is better, and how sure we are.

Finished matches are grouped by bot *identity*, the name and version of whoever played
the seat (:func:`credited_players`: what a protocol v1 bot said in ``hello`` holding the
seat's token, a line seat's name, ``house:NAME`` for the server's own bots), whatever
seat or transport it played. Names are shown by the one rule for names
(:func:`protocol.names.display_name`). For each identity: matches, hands,
points per hand with a 95% t interval over its matches (each match's points per hand is
one observation), and an OpenSkill rating (the Plackett-Luce model for the four players
of a match, ranked by final score, applied match by match in the order played). Bots
with fewer than ``min_hands`` hands are listed but not ranked: an early lucky streak
should not top the table.

>>> m = MatchOutcome(("a", "b", "c", "d"), ("", "", "", ""), (3000, -1000, -1000, -1000), 16)
>>> board = leaderboard([m, m], min_hands=32)
>>> [(e.rank, e.bot_name, e.hands, e.points_per_hand) for e in board.entries][:2]
[(1, 'a', 32, 187.5), (2, 'b', 32, -62.5)]
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from protocol.names import display_name, house_name
from protocol.wire.rest import Leaderboard, LeaderboardEntry
from sdk.arena.stats import mean_interval

__all__ = ["MatchOutcome", "credited_players", "leaderboard"]

UNNAMED = "(unnamed)"
"""Shown for a name stored before the rule for names that the rule refuses."""


def _shown(name: str, empty: bool = False) -> str:
    try:
        return display_name(name, empty=empty)
    except ValueError:
        return "" if empty else UNNAMED


def credited_players(
    names: Sequence[str], seats: Sequence[Mapping[str, Any]]
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The names and versions a stored match's results are credited to, by seat: each
    seat's ``player`` (see :attr:`sdk.server.seats.Seat.player`); for a match stored
    before players were recorded, the seat's name, a house bot's under ``house:``.

    >>> seats = [{"seat": 0, "player": ["me", "2"]}, {"seat": 1, "transport": "builtin"}]
    >>> credited_players(["x", "greedy", "c ", "d"], seats)
    (('me', 'house:greedy', 'c', 'd'), ('2', '', '', ''))
    """
    by_seat = {s.get("seat"): s for s in seats}
    players, versions = [], []
    for i, name in enumerate(names):
        seat = by_seat.get(i, {})
        player = seat.get("player")
        if player is None:
            builtin = seat.get("transport") == "builtin"
            player = [house_name(name) if builtin else name, seat.get("version", "")]
        players.append(_shown(player[0]))
        versions.append(_shown(player[1], empty=True))
    return tuple(players), tuple(versions)


@dataclass(frozen=True, slots=True)
class MatchOutcome:
    """What the leaderboard needs of one finished match, by seat."""

    names: tuple[str, ...]
    versions: tuple[str, ...]
    scores: tuple[int, ...]
    hands: int


@dataclass(slots=True)
class _Tally:
    matches: int = 0
    seats: int = 0
    hands: int = 0
    seat_hands: int = 0
    total: int = 0
    per_hand: list[float] = field(default_factory=list)


def leaderboard(matches: Iterable[MatchOutcome], min_hands: int = 0) -> Leaderboard:
    """The leaderboard of ``matches`` (in the order they were played).

    A match counts once for a bot however many seats it held there (``seats`` counts
    those), and so do its hands; points per hand and the mean score are one seat's, and
    the interval's observation for a match is the mean of the bot's seats there.

    >>> m = MatchOutcome(("a", "a", "b", "c"), ("",) * 4, (600, 200, -400, -400), 2)
    >>> e = leaderboard([m, m]).entries[0]
    >>> (e.bot_name, e.matches, e.seats, e.hands, e.total_score, e.points_per_hand)
    ('a', 2, 4, 4, 1600, 200.0)
    """
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    tallies: dict[tuple[str, str], _Tally] = {}
    ratings: dict[tuple[str, str], object] = {}
    for match in matches:
        ids = list(zip(match.names, match.versions, strict=True))
        for who, scores in _by_identity(ids, match.scores).items():
            _count(tallies.setdefault(who, _Tally()), scores, match.hands)
        _rate(model, ratings, ids, match.scores)
    entries = [_entry(who, t, ratings[who]) for who, t in tallies.items()]
    ranked = sorted(
        (e for e in entries if e.hands >= min_hands),
        key=lambda e: (-e.rating, -e.points_per_hand, e.bot_name, e.bot_version),
    )
    unranked = sorted(
        (e for e in entries if e.hands < min_hands), key=lambda e: (-e.hands, e.bot_name)
    )
    ranked = [e.model_copy(update={"rank": i}) for i, e in enumerate(ranked, 1)]
    return Leaderboard(entries=ranked + unranked, min_hands=min_hands)


def _by_identity(
    ids: list[tuple[str, str]], scores: tuple[int, ...]
) -> dict[tuple[str, str], list[int]]:
    """Each identity's final scores in one match (more than one if it held several seats)."""
    out: dict[tuple[str, str], list[int]] = {}
    for who, score in zip(ids, scores, strict=True):
        out.setdefault(who, []).append(score)
    return out


def _count(tally: _Tally, scores: list[int], hands: int) -> None:
    """One match of one identity: one match, ``len(scores)`` seats, one observation."""
    tally.matches += 1
    tally.seats += len(scores)
    tally.hands += hands
    tally.seat_hands += len(scores) * hands
    tally.total += sum(scores)
    tally.per_hand.append(sum(scores) / len(scores) / max(1, hands))


def _rate(
    model: object, ratings: dict, ids: list[tuple[str, str]], scores: tuple[int, ...]
) -> None:
    """One match's update. An identity at several seats (three house bots) plays each
    seat with its rating before the match and keeps the mean of their updates."""
    before = [ratings.get(who) or model.rating() for who in ids]  # type: ignore[attr-defined]
    after = model.rate([[r] for r in before], scores=list(scores))  # type: ignore[attr-defined]
    updates: dict[tuple[str, str], list[object]] = {}
    for who, (rating,) in zip(ids, after, strict=True):
        updates.setdefault(who, []).append(rating)
    for who, rs in updates.items():
        mu = sum(r.mu for r in rs) / len(rs)  # type: ignore[attr-defined]
        sigma = sum(r.sigma for r in rs) / len(rs)  # type: ignore[attr-defined]
        ratings[who] = model.rating(mu=mu, sigma=sigma)  # type: ignore[attr-defined]


def _entry(who: tuple[str, str], tally: _Tally, rating: object) -> LeaderboardEntry:
    interval = mean_interval(tally.per_hand)
    mu, sigma = rating.mu, rating.sigma  # type: ignore[attr-defined]
    return LeaderboardEntry(
        bot_name=who[0],
        bot_version=who[1],
        matches=tally.matches,
        seats=tally.seats,
        hands=tally.hands,
        total_score=tally.total,
        mean_score=round(tally.total / tally.seats, 3),
        points_per_hand=round(tally.total / max(1, tally.seat_hands), 3),
        points_per_hand_low=None if math.isnan(interval.low) else round(interval.low, 3),
        points_per_hand_high=None if math.isnan(interval.high) else round(interval.high, 3),
        rating=round(mu - 3 * sigma, 3),
        rating_mu=round(mu, 3),
        rating_sigma=round(sigma, 3),
    )
