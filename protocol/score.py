"""Command line: score one winning hand the way the tournament judge does.

``python -m protocol.score "HAND" --win TILE (--self-draw | --from SEAT) [options]``

``HAND`` is the concealed tiles in compact notation, with or without the winning tile
(the count tells which: with the melds it must come to 17 tiles). Melds are given as
``--melds "pung:555p chow:123m concealed_kong:EEEE"``. Seats are 0..3 and the next seat
of ``s`` is ``(s + 1) % 4``. The winner's seat is ``--winner`` (default 0) or follows
from ``--seat-wind`` and ``--dealer``. Prints the canonical split, the items with their
tai, the total, notes on sets held in hand that count as exposed (R11.2, R11.4) and
every seat's payment; ``--json`` prints the same as JSON. Bad input
prints the error and exits with status 2.

>>> situation = build_situation("123m 456p 789s 234s 567s 9s", "9s", discarder=2)
>>> len(situation.concealed), str(situation.win_tile), situation.seat_wind
(17, '9s', <Tile.E: 27>)
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from protocol.cli import EXIT_USAGE, CommandError, Parser, run_command
from protocol.errors import MahjongError
from protocol.melds import Meld
from protocol.scoring import (
    HandSizeError,
    InvalidSituationError,
    ScoreResult,
    WinSituation,
    score_win,
)
from protocol.tiles import Tile, parse_tiles

__all__ = ["build_situation", "format_result", "main"]

_WIND_LETTERS = "ESWN"


def _parse_melds(texts: Sequence[str]) -> tuple[Meld, ...]:
    return tuple(Meld.parse(part) for text in texts for part in text.split())


def _wind(text: str) -> Tile:
    tile = Tile.parse(text)
    if not tile.is_wind:
        raise InvalidSituationError(f"{text!r} is not a wind (E, S, W or N)")
    return tile


def _seats(winner: int | None, dealer: int | None, seat_wind: str | None) -> tuple[int, int]:
    """Resolve the winner and dealer seats from the options given."""
    if seat_wind is None:
        return (winner or 0), (dealer or 0)
    offset = _WIND_LETTERS.index(_wind(seat_wind).name)
    if winner is None and dealer is None:
        winner = 0
    if winner is None:
        assert dealer is not None
        return (dealer + offset) % 4, dealer
    if dealer is None:
        return winner, (winner - offset) % 4
    if (winner - dealer) % 4 != offset:
        raise InvalidSituationError(
            f"seat {winner} has seat wind {_WIND_LETTERS[(winner - dealer) % 4]} when seat"
            f" {dealer} deals, not {seat_wind}"
        )
    return winner, dealer


def build_situation(
    hand: str,
    win: str,
    *,
    discarder: int | None = None,
    melds: Sequence[str] = (),
    winner: int | None = None,
    dealer: int | None = None,
    seat_wind: str | None = None,
    round_wind: str = "E",
    last_tile: bool = False,
    last_discard: bool = False,
    kong_replacement: bool = False,
    first_go_round: bool = False,
) -> WinSituation:
    """A :class:`WinSituation` from text; ``hand`` may include the winning tile or not."""
    declared = _parse_melds(melds)
    tiles = parse_tiles(hand, check_counts=False)
    win_tile = Tile.parse(win)
    expected = 17 - 3 * len(declared)
    if len(tiles) == expected - 1:
        tiles.append(win_tile)
    elif len(tiles) != expected:
        raise HandSizeError(
            f"{len(declared)} meld(s) need {expected - 1} concealed tiles plus the winning"
            f" tile, got {len(tiles)}"
        )
    winner_seat, dealer_seat = _seats(winner, dealer, seat_wind)
    return WinSituation(
        tuple(tiles),
        declared,
        win_tile,
        winner=winner_seat,
        discarder=discarder,
        dealer=dealer_seat,
        round_wind=_wind(round_wind),
        last_tile=last_tile,
        last_discard=last_discard,
        kong_replacement=kong_replacement,
        first_go_round=first_go_round,
    )


def format_result(situation: WinSituation, result: ScoreResult) -> str:
    """The human-readable report: split, items, total, payments."""
    how = "self-draw" if situation.discarder is None else f"discard from seat {situation.discarder}"
    lines = [
        f"win: {situation.win_tile} by {how}; winner seat {situation.winner}"
        f" ({situation.seat_wind.chinese}), dealer seat {situation.dealer},"
        f" round wind {situation.round_wind.chinese}",
        f"split: {result.split}   (* = concealed)",
        "items:",
    ]
    for item in result.items:
        count = f" x{item.count}" if item.count > 1 else ""
        lines.append(f"  {item.name}{count}  {item.tai} ({item.id})")
    if not result.items:
        lines.append("  (none: a 0-tai win)")
    lines.append(f"total: {result.total_tai} tai")
    lines += [f"note: {note}" for note in split_notes(situation, result)]
    pays = ", ".join(f"seat {seat} {change:+d}" for seat, change in enumerate(result.payments))
    lines.append(f"payments: {pays}")
    return "\n".join(lines)


def split_notes(situation: WinSituation, result: ScoreResult) -> list[str]:
    """Why sets found in the hand are not marked concealed: the rulings a reader meets.

    >>> situation = build_situation("123m 456p 789s CCC 55s EE", "E", discarder=2)
    >>> for note in split_notes(situation, score_win(situation)):
    ...     print(note)
    pung:EEE counts as exposed: the winning discard completed it (R11.4)
    pung:CCC is held in hand but counts as exposed: an honor pung from the hand is recorded as exposed, so it is no concealed pung and the hand is not 門清 (R11.2)
    """
    notes = []
    for s in result.split.sets:
        if s.declared or s.concealed or s.is_chow:
            continue
        if situation.discarder is not None and s.tile == situation.win_tile:
            notes.append(f"{s} counts as exposed: the winning discard completed it (R11.4)")
        elif s.tile.is_honor:
            notes.append(
                f"{s} is held in hand but counts as exposed: an honor pung from the hand is "
                "recorded as exposed, so it is no concealed pung and the hand is not 門清 (R11.2)"
            )
    return notes


def _parser() -> argparse.ArgumentParser:
    p = Parser(
        prog="python -m protocol.score",
        description="Score a winning hand under the tournament rules (see docs/RULES.md).",
    )
    p.add_argument(
        "hand",
        help='concealed tiles, for example "123m 456p 789s 234s 567s 9s" (winds E S W N, '
        "dragons C F P = 中 發 白)",
    )
    p.add_argument("--win", required=True, help="the winning tile, for example 9s")
    how = p.add_mutually_exclusive_group(required=True)
    how.add_argument("--self-draw", action="store_true", help="won by self-draw")
    how.add_argument("--from", dest="discarder", type=int, help="seat that dealt in (0..3)")
    p.add_argument("--melds", nargs="+", default=[], help='e.g. "pung:555p chow:123m"')
    p.add_argument("--winner", type=int, help="winner seat 0..3 (default 0)")
    p.add_argument("--dealer", type=int, help="dealer seat 0..3 (default 0)")
    p.add_argument("--seat-wind", help="winner's seat wind E/S/W/N (sets winner or dealer)")
    p.add_argument("--round-wind", default="E", help="round wind E/S/W/N (default E)")
    p.add_argument("--last-tile", action="store_true", help="self-draw on the last tile")
    p.add_argument("--last-discard", action="store_true", help="win on the last discard")
    p.add_argument("--kong-replacement", action="store_true", help="win on a replacement")
    p.add_argument("--first-go-round", action="store_true", help="R10 holds for the winner")
    p.add_argument("--json", action="store_true", help="print JSON")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status (0, or 2 on bad input)."""
    return run_command(_main, argv)


def _main(argv: Sequence[str] | None) -> int:
    args = _parser().parse_args(argv)
    try:
        situation = build_situation(
            args.hand,
            args.win,
            discarder=args.discarder,
            melds=args.melds,
            winner=args.winner,
            dealer=args.dealer,
            seat_wind=args.seat_wind,
            round_wind=args.round_wind,
            last_tile=args.last_tile,
            last_discard=args.last_discard,
            kong_replacement=args.kong_replacement,
            first_go_round=args.first_go_round,
        )
        result = score_win(situation)
    except MahjongError as exc:
        raise CommandError(str(exc), EXIT_USAGE) from None
    if args.json:
        report = {**result.to_json(), "notes": split_notes(situation, result)}
        print(json.dumps(report, ensure_ascii=False))
    else:
        print(format_result(situation, result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
