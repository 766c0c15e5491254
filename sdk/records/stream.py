"""The record of an in-process match, encoded hand by hand as it is played (the fast path).

In-process play (``--local``, the arena) records a match with a :class:`RecordStream`:
per decision it appends two small tuples, what was asked (:data:`Asked`, by the table)
and what came of it (:data:`Settled`, by :func:`sdk.decide.decide_inline`); nothing is
done per event, the referee's own event list is shared. At each new hand the table
calls :meth:`RecordStream.flush`, which turns what is settled into the record's bytes
and drops the tuples (so they never pile up for the garbage collector), and
:meth:`RecordStream.finish` gives the whole record at the end.

The bytes are exactly those of the reference encoding,
``encode_record(build_record(...)).encode()`` (:mod:`sdk.records.writer`: each line
``dumps(value.to_json())``), for the same decisions: a test checks it on seeded
matches with fallbacks and overridden claims, and on the files of an arena run. They
are assembled from cached text: each interned action and tile kind has its JSON once,
an event index its line head once, a decision's time below 100 ms its text once. The
referee emits one shared object per draw and per discard
(:data:`protocol.hand_state.DRAWS`, :data:`~protocol.hand_state.DISCARDS`), so their
text is looked up by object (``id``, in C); other events (a few per hand) use a
compiled f-string per type, and events built afresh (not the shared ones) take that
path too. Decision lines are built by C loops (``map``, ``zip``, ``itemgetter``) over
all the decisions of a hand at once and placed before the events they caused by
index; lists are indexed rather than enums hashed (an enum's hash is a Python call);
the text stays ASCII but for the few lines that may not be (names, tai items), so
encoding it is a copy.

What it costs (``benchmarks/bench_records.py``, ``docs/RECORDS.md``): about 0.2 ms of
CPU a hand of four random bots (a hand that costs about 0.5 ms): encoding most of it,
above all one line per decision with its legal actions (about 0.4 µs a decision for
the legal list alone), then the two tuples per decision and writing ~50 KB a hand.

>>> from protocol.match import Match
>>> from sdk.records.model import Header, SeatInfo
>>> from sdk.records.writer import build_record, encode_record
>>> m = Match.new(seed=1, hands=1)
>>> header = Header(1, 1, tuple(SeatInfo(s, s, f"bot{s}") for s in range(4)))
>>> stream = RecordStream(header, m.events)
>>> stream.finish(None) == encode_record(build_record(header, m.events, [])).encode()
True
>>> micros(0.0123456), micros_text(12346), micros_text(2_500_000)
(12346, '12.346', '2500.0')
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Sequence
from itertools import chain, compress, repeat, starmap
from operator import add, call, getitem, itemgetter, mul, sub
from typing import Any

from protocol import actions as _actions
from protocol import events as _events
from protocol.actions import Action, ActionKind
from protocol.events import Chow, Event, ExposedKong, HandEnd, HandResult, HandStart, Pung, Win
from protocol.hand_state import DISCARDS, DRAWS
from protocol.tiles import KIND_COUNT, Tile
from sdk.records.model import Header, MatchSummary
from sdk.records.outcome import Outcome
from sdk.records.writer import dumps, final_scores, lost_to, taker

__all__ = ["Asked", "RecordStream", "Settled", "micros", "micros_text"]

Asked = tuple[int, int, tuple[Action, ...]]
"""One decision as asked: the seat, how many events preceded the request (its
``after_event``), the legal actions."""
Settled = tuple[Action | None, Action, str, float]
"""What came of it (:data:`sdk.decide.Traced`): the answer (``None`` if none was
usable), the action applied, the outcome and the seconds it took."""


def micros(seconds: float) -> int:
    """A decision's time in whole microseconds: in-process records write ``ms``, the
    milliseconds, with three decimals (``int(x + 0.5)``: ``round`` is slower)."""
    return int(seconds * 1e6 + 0.5)


def micros_text(us: int) -> str:
    """``us`` microseconds as the JSON of the milliseconds ``us / 1000`` (what
    :func:`~sdk.records.writer.dumps` writes for that float)."""
    return f"{us // 1000}{_FRACTION[us % 1000]}"


_FRACTION = [repr(r / 1000)[1:] for r in range(1000)]
"""``.0``, ``.001``, ..., ``.999``: ``r`` thousandths as ``repr`` writes their decimals."""


class RecordStream:
    """The record of one in-process match with header ``header``, whose referee appends
    to ``events``. The table appends each decision to :attr:`asked` when asking and its
    :data:`Settled` to :attr:`settled` (``decide_inline(..., trace=stream.settled)``),
    calls :meth:`flush` when it likes (each new hand) and :meth:`finish` at the end."""

    def __init__(self, header: Header, events: Sequence[Event]) -> None:
        self.events = events
        self.asked: list[Asked] = []
        self.settled: list[Settled] = []
        self._done = 0
        """Events written so far."""
        self._chunks: list[bytes] = []
        self._out: list[str] = []
        self._start: HandStart | None = None
        self._hand = 0
        """The hand of the decisions written last."""
        self._hands = 0
        self._last_scores: tuple[int, ...] | None = None
        self._line(dumps(header.to_json()) + "\n")

    def flush(self) -> None:
        """Write every event so far and every decision asked before the last of them;
        keep only the decisions asked after all of them (a claim window still open)."""
        end, asked = len(self.events), self.asked
        keep = len(asked)
        while keep and asked[keep - 1][1] >= end:
            keep -= 1
        self._write(asked[:keep], self.settled[:keep], end)
        del asked[:keep], self.settled[:keep]

    def finish(self, status: str | None, ended_at: float | None = None) -> bytes:
        """The whole record as UTF-8 bytes: everything not yet written, then the result
        line with ``status`` (``finished``, ``aborted``; ``None``: none, the match goes
        on)."""
        self._write(self.asked, self.settled, len(self.events))
        self.asked, self.settled = [], []
        if status is not None:
            scores = final_scores(self.events, self._last_scores)
            summary = MatchSummary(status, self._hands, scores, ended_at)
            self._line(dumps(summary.to_json()) + "\n")
        self._encode()
        return b"".join(self._chunks)

    def _write(self, asked: list[Asked], settled: list[Settled], end: int) -> None:
        """Write events ``_done..end-1`` with the decisions ``asked``/``settled`` put
        just before the first event each caused; the decisions asked after all of them
        (``after == end``) go last."""
        if len(asked) != len(settled):
            raise ValueError(f"{len(asked)} decisions asked but {len(settled)} settled")
        seats, afters, legals = zip(*asked, strict=True) if asked else ((), (), ())  # by column
        unique = len(set(afters)) == len(afters)  # no claim window asked two seats
        if not unique or list(afters) != sorted(afters):
            asked, settled = _in_order(asked, settled)
            seats, afters, legals = zip(*asked, strict=True)
        start = self._done
        _grow(end + 1, 0)
        events = self.events[start:end]
        tails = list(map(_EVENT_TAIL.get, map(id, events)))  # the shared draws/discards
        starts, odd = self._others(events, tails, start) if None in tails else ([], [])
        prefixes = self._prefixes(afters, starts)
        texts = self._decision_texts(asked, settled, seats, afters, legals, prefixes)
        self._add(_placed(afters, texts, unique, start, end, tails), odd)
        self._done = end

    def _add(self, lines: list[str], odd: list[int]) -> None:
        """Add the lines of :func:`_placed`; ``odd`` (event positions) are those whose
        text is not ASCII (tai items), each encoded on its own."""
        at = 0
        for i in odd:
            self._out += lines[at : 2 * i + 2]
            self._line(lines[2 * i + 2])
            at = 2 * i + 3
        self._out += lines[at:] if at else lines

    def _others(
        self, events: list[Event], tails: list[str | None], start: int
    ) -> tuple[list[tuple[int, int]], list[int]]:
        """Fill in ``tails`` for the events other than draws and discards (a few per
        hand; a ``hand_end``'s is followed by the hand's line); return where each hand
        starts (event index, hand number) and the positions whose text is not ASCII."""
        starts: list[tuple[int, int]] = []
        odd: list[int] = []
        k = -1
        for _ in range(tails.count(None)):
            k = tails.index(None, k + 1)
            ev = events[k]
            cls = type(ev)
            if cls is HandEnd and self._start is not None:
                event, hand = _hand_lines(ev, self._start, start + k)  # type: ignore[arg-type]
                tails[k] = event + hand
                self._hands += 1
                self._last_scores = tuple(ev.scores)  # type: ignore[attr-defined]
                if not tails[k].isascii():  # type: ignore[union-attr]
                    odd.append(k)
                continue
            if cls is HandStart:
                self._start = ev  # type: ignore[assignment]
                starts.append((start + k, ev.hand))  # type: ignore[attr-defined]
            tails[k] = f"{_event_text(ev)}}}\n"
        return starts, odd

    def _prefixes(self, afters: Sequence[int], starts: list[tuple[int, int]]) -> list[list[str]]:
        """For each decision, the line prefixes (by seat) of its hand: that of the last
        ``hand_start`` before it."""
        hand = self._hand
        out: list[list[str]] = []
        at = 0
        for index, number in starts:
            upto = bisect.bisect_right(afters, index)
            out += repeat(_prefixes[hand], upto - at)
            at, hand = upto, number
            _grow(0, hand + 1)
        out += repeat(_prefixes[hand], len(afters) - at)
        self._hand = hand
        return out

    def _decision_texts(
        self,
        asked: list[Asked],
        settled: list[Settled],
        seats: Sequence[int],
        afters: Sequence[int],
        legals: Sequence[tuple[Action, ...]],
        prefixes: list[list[str]],
    ) -> list[str]:
        """Every decision's line, built by C loops from cached text as if it were a
        plain ``ok``; then the few that are not (a fallback, a claim that lost to a
        higher one) are rewritten one by one. ``seats``, ``afters``, ``legals``: the
        columns of ``asked``."""
        n = len(asked)
        if not n:
            return []
        if min(map(len, legals)) > 1:  # itemgetter(*legal) gives a tuple
            joined = map(",".join, map(call, starmap(itemgetter, legals), repeat(_ACTION_OF)))
        else:
            joined = map(",".join, map(map, repeat(_ACTION_OF.__getitem__), legals))
        answers, applieds, outcomes, seconds = zip(*settled, strict=True)
        plain = outcomes.count(_OK) == n and answers == applieds
        if plain:
            tails = list(map(_PLAIN_TAIL.__getitem__, answers))
        else:  # "": an answer that was not applied as it came (a fallback)
            tails = list(map(_PLAIN_PAIR.get, zip(answers, applieds, strict=True), repeat("")))
        us = list(map(int, map(add, map(mul, seconds, repeat(1e6)), repeat(0.5))))
        top = max(us)
        if top >= len(_ms_ends) and top < _MS_CACHED:
            _grow_ms(top + 1)
        ms = map(_ms_ends.__getitem__ if top < _MS_CACHED else _ms_end, us)
        lines = zip(
            map(getitem, prefixes, seats),
            map(_after_open.__getitem__, afters),
            joined,
            tails,
            ms,
            strict=True,
        )
        texts = list(map("".join, lines))
        odd = set() if plain else {k for k in range(n) if outcomes[k] is not _OK or not tails[k]}
        events, taken = self.events, _TAKEN.get
        for k in compress(range(n), map(_CLAIMS.__contains__, applieds)):
            seat, after = seats[k], afters[k]
            if after < len(events):  # usually the claim was taken: its event comes next
                ev = events[after]
                if taken(type(ev)) is applieds[k].kind and ev.seat == seat:  # type: ignore[attr-defined]
                    continue
            if k not in odd:
                texts[k] = self._checked_claim(texts[k], asked[k], settled[k])
        for k in odd:
            seat, after, legal = asked[k]
            answer, applied, outcome, _ = settled[k]
            end = self._settled_text(answer, applied, outcome, us[k])
            text = f"{prefixes[k][seat]}{after}{_legal_text(legal)}{end}"
            texts[k] = self._checked_claim(text, asked[k], settled[k])
        return texts

    def _checked_claim(self, text: str, asked: Asked, settled: Settled) -> str:
        """``text``, the line of an ``ok`` claim, marked ``overridden`` with a reason if
        it lost to a higher claim (R5); any other line as it is."""
        seat, after, _ = asked
        applied, outcome = settled[1], settled[2]
        if outcome is not _OK or applied not in _CLAIMS:
            return text
        took = taker(self.events, after)
        if took is not None and took[0] == seat and took[1] is applied.kind:
            return text
        text = text.replace(',"outcome":"ok",', ',"outcome":"overridden",', 1)
        return f'{text[:-2]},"reason":{dumps(lost_to(took))}}}\n'

    def _settled_text(self, answer: Action | None, applied: Action, outcome: str, us: int) -> str:
        """The end of the line of a fallback (the answer, if any, was not applied)."""
        answer_text = "null" if answer is None else _ACTION_OF[answer]
        applied_text = _ACTION_OF[applied]
        outcome_text = Outcome(outcome).value
        return f'{answer_text},"applied":{applied_text},"outcome":"{outcome_text}","ms":{micros_text(us)}}}\n'

    def _line(self, text: str) -> None:
        """Add a line (with its newline) that may hold non-ASCII text (names, tai
        items): such a line is encoded on its own, so the bulk stays ASCII."""
        if text.isascii():
            self._out.append(text)
        else:
            self._encode()
            self._chunks.append(text.encode())

    def _encode(self) -> None:
        if self._out:
            self._chunks.append("".join(self._out).encode())
            self._out.clear()


def _placed(
    afters: Sequence[int], texts: list[str], unique: bool, start: int, end: int, tails: list[str]
) -> list[str]:
    """The pieces of the lines of events ``start..end-1``: the lines of the decisions
    asked before the first of them, then by event its head and the rest of its line
    followed by the lines of the decisions asked just after it. ``unique``: no two
    decisions were asked after the same event. ``tails`` is changed."""
    first = bisect.bisect_right(afters, start)
    if unique:
        at = list(map(sub, afters[first:], repeat(start + 1)))
        list(map(tails.__setitem__, at, map(add, map(tails.__getitem__, at), texts[first:])))
    else:  # a claim window asked more than one seat
        for after, text in zip(afters[first:], texts[first:], strict=True):
            tails[after - start - 1] += text
    lines = [""] * (2 * (end - start) + 1)  # filled by slices: C loops, no tuples
    lines[0] = "".join(texts[:first])
    lines[1::2] = _heads[start:end]
    lines[2::2] = tails
    return lines


def _in_order(asked: list[Asked], settled: list[Settled]) -> tuple[list[Asked], list[Settled]]:
    """The decisions in the canonical order: by events before them, then by seat (a
    claim window is asked in turn order), then as asked (a stable sort)."""
    keys = list(map(add, map(mul, map(_AFTER, asked), repeat(4)), map(_SEAT, asked)))
    if keys == sorted(keys):
        return asked, settled
    order = sorted(range(len(keys)), key=keys.__getitem__)
    return list(map(asked.__getitem__, order)), list(map(settled.__getitem__, order))


# --- cached text --------------------------------------------------------------------------

_TILE = [f'"{Tile(k)}"' for k in range(KIND_COUNT)]
"""A tile kind's JSON (a list: indexing with a ``Tile`` is C speed, hashing it is not)."""
_ACTION_OF = {a: dumps(a.to_json()) for a in _actions._INTERNED.values()}
"""Every action's JSON, by action (actions hash by identity: a C-speed lookup)."""
_CLAIM_KINDS = (ActionKind.WIN, ActionKind.PUNG, ActionKind.CHOW, ActionKind.KONG)
"""An ``ok`` claim may have lost to a higher one (R5)."""
_PLAIN_TAIL = {
    a: f'],"answer":{t},"applied":{t},"outcome":"ok","ms":' for a, t in _ACTION_OF.items()
}
"""What follows a decision's legal actions up to its milliseconds when its answer was
applied as it came, by answer."""
_PLAIN_PAIR = {(a, a): t for a, t in _PLAIN_TAIL.items()}
"""The same by (answer, applied)."""
_CLAIMS = frozenset(a for a in _ACTION_OF if a.kind in _CLAIM_KINDS)
_TAKEN: dict[type, ActionKind] = {
    Win: ActionKind.WIN,
    Pung: ActionKind.PUNG,
    Chow: ActionKind.CHOW,
    ExposedKong: ActionKind.KONG,
}
"""The claim each event type takes (R5: the first of these after a claim window is the
claim that won it, :func:`~sdk.records.writer.taker`)."""
_LEGAL_OPEN = ',"request_id":"","legal":['
_LEGAL_CLOSE = '],"answer":'
_SEAT, _AFTER = itemgetter(0), itemgetter(1)
_OK = Outcome.OK
_EVENT_TAIL = {
    id(ev): dumps(ev.to_json()) + "}\n"
    for ev in chain(chain.from_iterable(chain.from_iterable(DRAWS)), chain.from_iterable(DISCARDS))
}
"""The event line after its head of each of the referee's shared draws and discards, by
object (they live as long as the module, so their ids are never reused)."""
_heads: list[str] = []
"""``{"type":"event","index":I,"event":`` for I = 0, 1, ... (grown on demand)."""
_after_open: list[str] = []
"""``I,"request_id":"","legal":[``: a decision's ``after_event`` I and what follows it
up to its legal actions (grown with the heads)."""
_prefixes: list[list[str]] = []
"""``{"type":"decision","hand":H,"seat":S,"after_event":`` by hand and seat."""
_MS_CACHED = 100_000
"""Decision times below 100 ms have their text cached (:data:`_ms_ends`)."""
_ms_ends: list[str] = []
"""``micros_text(us)`` and the line's end, for us = 0, 1, ... (grown on demand)."""


def _ms_end(us: int) -> str:
    """The end of a decision line that took ``us`` microseconds."""
    return f"{us // 1000}{_FRACTION[us % 1000]}}}\n"


def _grow_ms(n: int) -> None:
    """Cache the ends of decision lines of up to ``n`` microseconds (at least 1000)."""
    _ms_ends.extend(map(_ms_end, range(len(_ms_ends), max(n, 1000))))


def _grow(n: int, hands: int) -> None:
    """Cache the heads up to ``n`` (at least 1000) and the decision prefixes of
    ``hands`` hands (at least 16)."""
    for i in range(len(_heads), max(n, 1000)):
        _heads.append(f'{{"type":"event","index":{i},"event":')
        _after_open.append(f"{i}{_LEGAL_OPEN}")
    for h in range(len(_prefixes), max(hands, 16)):
        _prefixes.append(
            [f'{{"type":"decision","hand":{h},"seat":{s},"after_event":' for s in range(4)]
        )


def _legal_text(legal: tuple[Action, ...]) -> str:
    """``,"request_id":"","legal":[...],"answer":`` for ``legal``."""
    return f"{_LEGAL_OPEN}{','.join(map(_ACTION_OF.__getitem__, legal))}{_LEGAL_CLOSE}"


_FIELD_CODE: dict[int, str] = {
    id(_events._INT): "{{{v}}}",
    id(_events._BOOL): '{{"true" if {v} else "false"}}',
    id(_events._TILE): "{{_TILE[{v}]}}",
    id(_events._TILES): '[{{",".join(map(_TILE.__getitem__, {v}))}}]',
    id(_events._INTS): '[{{",".join(map(str, {v}))}}]',
}
"""How a field of each plain codec is written in an f-string (the text ``dumps`` writes
of the codec's JSON); other codecs (melds, results) call ``dumps``."""


def _event_encoder(cls: type[Event]) -> Callable[[Event], str]:
    """A compiled encoder for events of type ``cls``: one f-string from its fields'
    codecs (an event with a field left out, ``None``, goes through ``to_json``)."""
    env: dict[str, Any] = {"_TILE": _TILE, "dumps": dumps, "_slow": _slow_event_text}
    names, parts = [], ['{{"type":' + dumps(cls.type)]
    for n, (_, key, codec) in enumerate(cls._fields):
        var = f"v{n}"
        names.append(var)
        code = _FIELD_CODE.get(id(codec))
        if code is None:
            env[f"_enc{n}"] = codec[0]
            code = f"{{{{dumps(_enc{n}({{v}}))}}}}"
        parts.append(f',"{key}":' + code.format(v=var))
    fetch = "".join(
        f"    {var} = ev.{name}\n" for var, (name, _, _) in zip(names, cls._fields, strict=True)
    )
    missing = " or ".join(f"{var} is None" for var in names) or "False"
    source = (
        f"def encode(ev):\n{fetch}    if {missing}:\n        return _slow(ev)\n"
        f"    return f'{''.join(parts)}}}}}'\n"
    )
    exec(source, env)
    return env["encode"]  # type: ignore[no-any-return]


def _slow_event_text(ev: Event) -> str:
    return dumps(ev.to_json())


_ENCODERS: dict[type, Callable[[Event], str]] = {}


def _event_text(ev: Event) -> str:
    """``dumps(ev.to_json())``, from the type's compiled encoder."""
    cls = type(ev)
    encode = _ENCODERS.get(cls)
    if encode is None:
        encode = _ENCODERS[cls] = _event_encoder(cls)
    return encode(ev)


_RESULTS = {
    (o, (0, 0, 0, 0)): dumps(HandResult(o).to_json()) for o in ("exhaustive_draw", "four_winds")
}
"""The JSON of the results of a hand nobody won (R15: no payments)."""


def _hand_lines(ev: HandEnd, start: HandStart, i: int) -> tuple[str, str]:
    """The ``hand_end`` event line (index ``i``) after its head and the hand line after
    it, sharing the result's JSON."""
    result = (
        _RESULTS.get((ev.result.outcome, ev.result.payments)) if ev.result.winner is None else None
    )
    if result is None:
        result = dumps(ev.result.to_json())
    scores = ",".join(map(str, ev.scores))
    event = f'{{"type":"hand_end","result":{result},"scores":[{scores}]}}}}\n'
    hand = (
        f'{{"type":"hand","hand":{start.hand},"dealer":{start.dealer},'
        f'"round_wind":{_TILE[start.round_wind]},"end_event":{i},"result":{result},'
        f'"scores":[{scores}]}}\n'
    )
    return event, hand
