"""Command line: analyse a hand (shanten, waits, and the best discards).

    python -m protocol.analyze "HAND" [--visible "TILES"] [--melds "pung:555p ..."] [--json]

For a hand of 3n+2 tiles (a hand about to discard) it prints the shanten and one line per
possible discard: the shanten left, the kinds that would improve it and how many of them
are unseen. For 3n+1 tiles (a hand after its discard) it prints the shanten, the waits
when waiting, and the improving kinds. ``--visible`` lists tiles seen elsewhere (rivers,
melds) so that unseen counts are right. Bad input prints the error and exits with 2.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence

from protocol.analysis import (
    efficiency_counts,
    hand_counts,
    improvements_counts,
    shanten_counts,
    waits_counts,
)
from protocol.cli import EXIT_USAGE, CommandError, Parser, run_command
from protocol.errors import MahjongError
from protocol.melds import Meld
from protocol.tiles import Tile, format_counts, parse_tiles, tiles_to_counts


def analyse(hand: str, visible: str = "", melds: Sequence[Meld] = ()) -> dict[str, object]:
    """Everything the command prints, as a JSON-ready dict.

    >>> report = analyse("123m 456p 789s 123s 555s E")
    >>> report["shanten"], report["waits"]
    (0, ['E'])
    """
    counts = hand_counts(hand, melds)
    seen = tiles_to_counts(parse_tiles(visible, check_counts=False))
    for meld in melds:
        for t in meld.tiles:
            seen[t] += 1
    report: dict[str, object] = {
        "hand": format_counts(counts),
        "melds": [str(m) for m in melds],
        "tiles": sum(counts),
        "shanten": shanten_counts(counts),
    }
    if sum(counts) % 3 == 2:
        report["discards"] = [o.to_json() for o in efficiency_counts(counts, seen)]
    else:
        meld_tiles = [t for m in melds for t in m.tiles]
        report["waits"] = [str(Tile(t)) for t in waits_counts(counts, meld_tiles)]
        report["improvements"] = {str(t): n for t, n in improvements_counts(counts, seen)}
    return report


def render(report: dict[str, object]) -> str:
    """The report as text for a person."""
    shanten = report["shanten"]
    state = {-1: "complete", 0: "waiting"}.get(shanten, f"{shanten} from waiting")  # type: ignore[arg-type]
    lines = [f"hand    {report['hand']}  ({report['tiles']} tiles)"]
    if report["melds"]:
        lines.append(f"melds   {' '.join(report['melds'])}")  # type: ignore[arg-type]
    lines.append(f"shanten {shanten} ({state})")
    if "waits" in report:
        if report["waits"]:
            lines.append(f"waits   {' '.join(report['waits'])}")  # type: ignore[arg-type]
        improving = report["improvements"]
        total = sum(improving.values())  # type: ignore[attr-defined]
        text = " ".join(f"{t}:{n}" for t, n in improving.items())  # type: ignore[attr-defined]
        lines.append(f"improve {text}  ({total} unseen)")
    else:
        lines.append("discard  shanten  unseen  improving tiles (unseen copies)")
        for option in report["discards"]:  # type: ignore[attr-defined]
            accepts = " ".join(f"{t}:{n}" for t, n in option["accepts"].items())
            lines.append(
                f"{option['discard']:<8} {option['shanten']:>7}  {option['total_unseen']:>6}  {accepts}"
            )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """The command line; returns the exit code (0, or 2 on bad input)."""
    return run_command(_main, argv)


def _main(argv: Sequence[str] | None) -> int:
    parser = Parser(prog="python -m protocol.analyze", description=__doc__.splitlines()[0])
    parser.add_argument(
        "hand",
        help='concealed tiles, e.g. "123m 456p 789s 11s 23s EE C F" (winds E S W N, '
        "dragons C F P = 中 發 白)",
    )
    parser.add_argument("--visible", default="", help="tiles seen outside the hand (rivers, melds)")
    parser.add_argument("--melds", default="", help='own melds, e.g. "pung:555p chow:123m"')
    parser.add_argument("--json", action="store_true", help="print JSON instead of text")
    args = parser.parse_args(argv)
    try:
        melds = [Meld.parse(m) for m in args.melds.split()]
        report = analyse(args.hand, args.visible, melds)
    except MahjongError as exc:
        raise CommandError(str(exc), EXIT_USAGE) from None
    print(json.dumps(report, ensure_ascii=False) if args.json else render(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
