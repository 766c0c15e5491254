"""Game records: one JSON-lines format for every match, from every source.

A record holds the header (format version, rules, seed, seats with bot names and
versions, timing), every referee event in order, every decision (seat, request id, legal
actions, the answer, what was applied, time taken, outcome), each hand's result with its
scoring breakdown, and the match result. ``docs/RECORDS.md`` describes the format; the
JSON Schema is ``sdk/records/schema/record-v1.schema.json`` (``python -m sdk.records
--schema`` rewrites it). Every seat's view at every step is rebuilt with the referee's
own handlers:

>>> from protocol.match import Match
>>> m = Match.new(seed=3, hands=1)
>>> header = Header(seed=3, hands=1, seats=tuple(SeatInfo(s, s, f"bot{s}") for s in range(4)))
>>> rec = parse_text(encode_record(build_record(header, m.events, [])), partial=True)
>>> rec.header.seats[2].name, views_at(rec, rec.steps - 1)[1] == m.current.view(1)
('bot2', True)
"""

from sdk.records.errors import (
    CorruptRecordError,
    RecordError,
    RecordVersionError,
    TruncatedRecordError,
)
from sdk.records.model import (
    FORMAT,
    RULES_ID,
    VERSION,
    Decision,
    HandRecord,
    Header,
    MatchSummary,
    Origin,
    Record,
    SeatInfo,
    Timing,
)
from sdk.records.outcome import FALLBACKS, Outcome
from sdk.records.reader import parse_record, parse_text, read_record
from sdk.records.views import iter_views, public_at, spectator_events, verify_record, views_at
from sdk.records.writer import build_record, comparable_lines, encode_record, record_lines

__all__ = [
    "FALLBACKS",
    "FORMAT",
    "RULES_ID",
    "VERSION",
    "CorruptRecordError",
    "Decision",
    "HandRecord",
    "Header",
    "MatchSummary",
    "Origin",
    "Outcome",
    "Record",
    "RecordError",
    "RecordVersionError",
    "SeatInfo",
    "Timing",
    "TruncatedRecordError",
    "build_record",
    "comparable_lines",
    "encode_record",
    "iter_views",
    "parse_record",
    "parse_text",
    "public_at",
    "read_record",
    "record_lines",
    "spectator_events",
    "verify_record",
    "views_at",
]
