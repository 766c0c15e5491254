"""Protocol v1 REST bodies (served by the local server under ``/v1``, used through
httpx by the SDK). Same conventions as the frames: strict types, unknown fields ignored.

>>> TableCreate(seed=7, seats=[SeatAssignment(seat=0, bot_name="a")]).hands
16
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field, NonNegativeInt, model_validator

from protocol.wire import PROTOCOL_VERSION
from protocol.wire.common import ErrorCode
from protocol.wire.messages import BotName, EventJSON, Timing, _Model

__all__ = [
    "SEED_MAX",
    "ErrorBody",
    "Health",
    "Leaderboard",
    "LeaderboardEntry",
    "MatchLog",
    "SeatAssignment",
    "SeatStatus",
    "TableCreate",
    "TableCreated",
    "TableList",
    "TableStatus",
]

SEED_MAX = 2**63 - 1
"""Largest table seed: every integer a client sends has a range checked at the edge."""


class Health(_Model):
    """``GET /v1/health``: ``degraded`` while the server cannot write its database
    (``storage_error`` says why): running matches go on, new tables are refused."""

    status: Literal["ok", "degraded"] = "ok"
    protocol_version: int = PROTOCOL_VERSION
    server_version: str = ""
    storage_error: str | None = None
    """Why the database cannot be written (absent when it can)."""


class SeatAssignment(_Model):
    """Who sits at ``seat``: a remote bot over protocol v1 (``ws``), a program speaking
    the line protocol (``line``), or a bot built into the server (``builtin``)."""

    seat: int = Field(ge=0, le=3)
    bot_name: BotName
    transport: Literal["ws", "line", "builtin"] = "ws"
    command: list[str] | None = None
    """For ``line`` seats the server starts: the program and its arguments."""


class TableCreate(_Model):
    """``POST /v1/tables``: a table to create and its match."""

    rules: str = "tcga-2024"
    seed: int = Field(ge=0, le=SEED_MAX)
    """The wall's seed (stored as a 64-bit SQLite integer, hence the range)."""
    hands: int = Field(default=16, ge=1, le=1024)
    first_dealer: int = Field(default=0, ge=0, le=3)
    timing: Timing = Timing()
    seats: list[SeatAssignment] = Field(min_length=1, max_length=4)

    @model_validator(mode="after")
    def _distinct(self) -> TableCreate:
        seats = [s.seat for s in self.seats]
        if len(set(seats)) != len(seats):
            raise ValueError("each seat is assigned at most once")
        return self


class TableCreated(_Model):
    """The answer to ``POST /v1/tables``: ids and one secret token per ``ws`` seat (the
    token goes into that bot's ``hello``) and per TCP ``line`` seat (a ``/token`` line)."""

    table_id: str
    match_id: str
    tokens: dict[str, str] = Field(default_factory=dict)
    """Seat number (as text) to token."""


class SeatStatus(_Model):
    """One seat of a table in ``GET /v1/tables/{table_id}``: who sits there and how its decisions went."""

    seat: int = Field(ge=0, le=3)
    bot_name: str
    transport: Literal["ws", "line", "builtin"]
    connected: bool
    ready: bool
    fallbacks: NonNegativeInt = 0
    """Decisions the server defaulted (R17) for this seat."""


class TableStatus(_Model):
    """``GET /v1/tables/{table_id}`` (and each item of the list)."""

    table_id: str
    match_id: str
    status: Literal["waiting", "running", "finished", "aborted", "incomplete"]
    """``incomplete``: the match ended but its record could not be stored whole (the
    server's disk was full); it has no record."""
    hand_no: NonNegativeInt = 0
    hands: int = Field(ge=1)
    seats: list[SeatStatus] = Field(default_factory=list)
    scores: list[int] = Field(default=[0, 0, 0, 0], min_length=4, max_length=4)


class TableList(_Model):
    """``GET /v1/tables[?limit=N&before=S]``: one page of tables, newest first."""

    tables: list[TableStatus]
    next_before: int | None = None
    """Give it as ``before`` to get the next page (absent: this is the last page)."""


class MatchLog(_Model):
    """``GET /v1/matches/{match_id}/log``: every referee event of a finished match, with
    nothing hidden (the full log, not a seat's projection)."""

    match_id: str
    table_id: str
    seed: int
    hands: int = Field(ge=1)
    seat_names: list[str] = Field(min_length=4, max_length=4)
    events: list[EventJSON]
    scores: list[int] = Field(min_length=4, max_length=4)


class LeaderboardEntry(_Model):
    """One bot's line of ``GET /v1/leaderboard``: a bot is its name and version (as sent
    in ``hello``). ``rank`` is ``None`` until it has played the leaderboard's
    ``min_hands``. ``matches`` counts each match once, however many seats the bot held in
    it; ``seats`` counts the seats (a bot seated twice in each of three matches: 3 matches,
    6 seats) and ``hands`` the hands of its matches. ``total_score`` sums its seats' final
    scores, ``mean_score`` is one seat's mean final score and ``points_per_hand`` one
    seat's points per hand, with its 95% interval over the bot's matches (``None`` before
    two matches). ``rating`` is the OpenSkill (Plackett-Luce) rating's conservative
    estimate ``rating_mu - 3 * rating_sigma``, updated match by match with the four seats
    ranked by final score. Every float is rounded to 3 decimals."""

    rank: int | None = Field(default=None, ge=1)
    bot_name: str
    bot_version: str = ""
    matches: NonNegativeInt
    seats: NonNegativeInt = 0
    hands: NonNegativeInt
    total_score: int
    mean_score: float = Field(strict=False)
    points_per_hand: float = Field(default=0.0, strict=False)
    points_per_hand_low: float | None = Field(default=None, strict=False)
    points_per_hand_high: float | None = Field(default=None, strict=False)
    rating: float = Field(default=0.0, strict=False)
    rating_mu: float = Field(default=0.0, strict=False)
    rating_sigma: float = Field(default=0.0, strict=False)


class Leaderboard(_Model):
    """``GET /v1/leaderboard``: ranked bots first (best rating first), then the bots
    with fewer than ``min_hands`` hands."""

    entries: list[LeaderboardEntry]
    min_hands: NonNegativeInt = 0


class ErrorBody(_Model):
    """Every REST error response (4xx/5xx): a stable code and a text."""

    code: ErrorCode
    message: str
