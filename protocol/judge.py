"""Scenario judge: play a scripted hand on the referee and print what happened as JSON.

Usage: ``python -m protocol.judge SCENARIO.json [--seat N]``. The format is documented in
``docs/SCENARIOS.md``. Exit status: 0 when the script played through (and its checks, if
any, held); 1 when an action was illegal (the output names the step, the action, the
legal alternatives and the reason); 2 when the scenario file is missing, unreadable or
malformed (one line on stderr, never a traceback); 3 when a check in the scenario
(``expect_pending`` steps or the top-level ``expect``) did not hold.

>>> report = run_scenario({"dealer": 0, "round_wind": "E", "wall_seed": 3,
...                        "actions": [{"seat": 0, "action": "win"}]})
>>> report.error["reason"]
'the hand is not five sets and a pair'
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from protocol.actions import PASS, Action, ActionKind, ActionParseError
from protocol.cli import Parser, run_command
from protocol.defaults import default_action
from protocol.errors import MahjongError
from protocol.hand_state import HandState, IllegalActionError
from protocol.tiles import Tile, parse_tiles
from protocol.view import CLAIMS
from protocol.wall import build_wall, shuffled_wall

__all__ = ["JudgeReport", "ScenarioError", "dumps_report", "main", "result_json", "run_scenario"]

_CLAIMS = frozenset(
    {ActionKind.WIN, ActionKind.KONG, ActionKind.PUNG, ActionKind.CHOW, ActionKind.PASS}
)


class ScenarioError(MahjongError):
    """The scenario file is malformed (not an illegal action: that is a report)."""


@dataclass
class JudgeReport:
    """What a scenario did: the hand (as far as it got), the illegal action that stopped
    it if any, and the checks of the scenario that failed."""

    hand: HandState
    error: dict[str, Any] | None = None
    failures: list[str] = field(default_factory=list)

    def to_json(self, seat: int | None = None) -> dict[str, Any]:
        """The report as printed: every event (or ``seat``'s view of them) and the result."""
        events = self.hand.events if seat is None else self.hand.projected_events(seat)
        out: dict[str, Any] = {
            "events": [e.to_json() for e in events],
            "result": result_json(self.hand),
        }
        if self.error is not None:
            out["error"] = self.error
        if self.failures:
            out["failures"] = self.failures
        return out


def result_json(hand: HandState) -> dict[str, Any] | None:
    """The hand's result, flat: outcome, winner, discarder, win tile, split, items, total
    tai and payments for a win; outcome and zero payments for a draw; ``None`` if the hand
    is not over."""
    result = hand.result
    if result is None:
        return None
    out = result.to_json()
    score = out.pop("score", None)
    if score:
        out.update({k: v for k, v in score.items() if k != "payments"})
    return out


def _tiles(value: Any, what: str) -> list[int]:
    try:
        if isinstance(value, str):
            return [int(t) for t in parse_tiles(value, check_counts=False)]
        if isinstance(value, list):
            return [int(Tile.parse(t)) for t in value]
    except MahjongError as exc:
        raise ScenarioError(f"{what}: {exc}") from None
    raise ScenarioError(f"{what}: expected tiles as text or a list, got {value!r}")


def _new_hand(data: Mapping[str, Any]) -> HandState:
    try:
        dealer = int(data.get("dealer", 0))
        round_wind = Tile.parse(str(data.get("round_wind", "E")))
    except (TypeError, ValueError) as exc:
        raise ScenarioError(f"dealer / round_wind: {exc}") from None
    sources = [k for k in ("wall", "hands", "wall_seed") if k in data]
    if len(sources) != 1:
        raise ScenarioError("give exactly one of 'wall', 'hands' or 'wall_seed'")
    try:
        if "wall" in data:
            wall = tuple(_tiles(data["wall"], "wall"))
        elif "hands" in data:
            hands = data["hands"]
            if not isinstance(hands, list) or len(hands) != 4:
                raise ScenarioError("'hands' lists the four seats' starting tiles")
            wall = build_wall(
                dealer,
                [_tiles(h, f"hands[{i}]") for i, h in enumerate(hands)],
                _tiles(data.get("draws", []), "draws"),
                _tiles(data.get("replacements", []), "replacements"),
            )
        else:
            wall = shuffled_wall(int(data["wall_seed"]))
        return HandState.new(wall, dealer, round_wind)
    except ScenarioError:
        raise
    except (MahjongError, ValueError) as exc:
        raise ScenarioError(str(exc)) from None


def _action(step: int, entry: Any) -> tuple[int, Action | None]:
    """The step's seat and action; ``None`` for ``"timeout"`` (the R17 default)."""
    if not isinstance(entry, Mapping) or "seat" not in entry or "action" not in entry:
        raise ScenarioError(f"step {step}: expected {{'seat': N, 'action': ...}}, got {entry!r}")
    raw = entry["action"]
    try:
        if raw == "timeout":
            action = None
        else:
            action = Action.parse(raw) if isinstance(raw, str) else Action.from_json(raw)
    except ActionParseError as exc:
        raise ScenarioError(f"step {step}: {exc}") from None
    seat = entry["seat"]
    if not isinstance(seat, int) or not 0 <= seat <= 3:
        raise ScenarioError(f"step {step}: seat must be 0..3, got {seat!r}")
    return seat, action


def _pass_open_claims(hand: HandState) -> None:
    """Every seat that may still claim the pending discard passes."""
    if hand.public.phase == CLAIMS:
        for seat in list(hand.pending()):
            hand.apply(seat, PASS)


def _check_pending(step: int, hand: HandState, spec: Any) -> list[str]:
    if not isinstance(spec, Mapping):
        raise ScenarioError(f"step {step}: expect_pending maps seats to actions")
    failures = []
    pending = hand.pending()
    for key, want in spec.items():
        seat = _pending_seat(step, key, want)
        got = [str(a) for a in pending.get(seat, ())]
        if isinstance(want, list):
            if got != want:
                failures.append(f"step {step}: seat {seat} legal {got}, expected {want}")
            continue
        for text in want.get("has", []):
            if text not in got:
                failures.append(f"step {step}: seat {seat} lacks {text!r} (legal {got})")
        for text in want.get("lacks", []):
            if text in got:
                failures.append(f"step {step}: seat {seat} may {text!r} (legal {got})")
    return failures


def _pending_seat(step: int, key: Any, want: Any) -> int:
    """The seat of one ``expect_pending`` entry: a seat number (``"0"``..``"3"`` in
    JSON) mapped to a list of actions or to ``{"has": [...], "lacks": [...]}``."""
    if isinstance(key, bool) or str(key) not in ("0", "1", "2", "3"):
        raise ScenarioError(f"step {step}: expect_pending: {key!r} is not a seat 0..3")
    if not isinstance(want, (list, Mapping)):
        raise ScenarioError(f"step {step}: expect_pending[{key}]: a list or has/lacks")
    return int(key)


def _check_expect_shape(expect: Any) -> None:
    """``expect`` must be an object whose ``error`` and ``result`` are objects (or
    null) and whose ``events_include`` / ``events_exclude`` are lists of objects."""
    if not isinstance(expect, Mapping):
        raise ScenarioError("'expect' is a JSON object")
    for key in ("error", "result"):
        if not isinstance(expect.get(key), (Mapping, type(None))):
            raise ScenarioError(f"expect.{key} is a JSON object or null")
    for key in ("events_include", "events_exclude"):
        patterns = expect.get(key, [])
        if not isinstance(patterns, list) or not all(isinstance(p, Mapping) for p in patterns):
            raise ScenarioError(f"expect.{key} is a list of JSON objects")


def _check_expect(report: JudgeReport, expect: Mapping[str, Any]) -> None:
    _check_expect_shape(expect)
    want_error = expect.get("error")
    if want_error is None and report.error is not None:
        return  # an unexpected illegal action is already the report's verdict
    if want_error is not None:
        got = report.error
        if got is None:
            report.failures.append(f"expected an illegal action: {want_error}")
        elif (
            got["step"] != want_error.get("step", got["step"])
            or want_error.get("reason", "") not in got["reason"]
        ):
            report.failures.append(f"expected error {want_error}, got {got}")
    events = [e.to_json() for e in report.hand.events]
    for pattern in expect.get("events_include", []):
        if not any(_matches(e, pattern) for e in events):
            report.failures.append(f"no event matches {pattern}")
    for pattern in expect.get("events_exclude", []):
        found = [e for e in events if _matches(e, pattern)]
        if found:
            report.failures.append(f"unexpected event {found[0]} (matches {pattern})")
    if "result" in expect and expect["result"] is None and report.hand.result is not None:
        report.failures.append(f"expected the hand to go on, it ended: {result_json(report.hand)}")
    want_result = expect.get("result")
    if want_result is not None:
        got_result = result_json(report.hand) or {}
        for key, value in want_result.items():
            if key == "items":
                names = {i["name"]: i["tai"] for i in got_result.get("items", [])}
                if names != value:
                    report.failures.append(f"result items {names}, expected {value}")
            elif got_result.get(key) != value:
                report.failures.append(
                    f"result {key} = {got_result.get(key)!r}, expected {value!r}"
                )


def _matches(event: Mapping[str, Any], pattern: Mapping[str, Any]) -> bool:
    return all(event.get(k) == v for k, v in pattern.items())


def run_scenario(data: Mapping[str, Any]) -> JudgeReport:
    """Play a scenario (a parsed JSON object); raise :class:`ScenarioError` if malformed."""
    if not isinstance(data, Mapping):
        raise ScenarioError("a scenario is a JSON object")
    report = JudgeReport(_new_hand(data))
    hand = report.hand
    actions = data.get("actions", [])
    if not isinstance(actions, list):
        raise ScenarioError("'actions' is a list")
    for step, entry in enumerate(actions):
        if isinstance(entry, Mapping) and "expect_pending" in entry:
            report.failures += _check_pending(step, hand, entry["expect_pending"])
            continue
        seat, action = _action(step, entry)
        claiming = seat in hand.pending() and hand.public.phase == CLAIMS
        if not (claiming and (action is None or action.kind in _CLAIMS)):
            _pass_open_claims(hand)
        if action is None:  # the seat did not answer in time: R17 default
            legal = hand.pending().get(seat, ())
            action = default_action(legal, hand.drawn_tile(seat)) if legal else PASS
        try:
            hand.apply(seat, action)
        except IllegalActionError as exc:
            report.error = {
                "step": step,
                "seat": seat,
                "action": action.to_json(),
                "legal": [a.to_json() for a in exc.legal],
                "pending": {str(s): [str(a) for a in acts] for s, acts in hand.pending().items()},
                "reason": exc.reason,
            }
            break
    else:
        _pass_open_claims(hand)
    _check_expect(report, data.get("expect", {}))
    return report


def dumps_report(data: Mapping[str, Any]) -> str:
    """The report as JSON text with one event per line (diff- and grep-friendly)."""
    parts = ["{", ' "events": [']
    events = data["events"]
    for i, event in enumerate(events):
        comma = "," if i < len(events) - 1 else ""
        parts.append("  " + json.dumps(event, ensure_ascii=False) + comma)
    parts.append(" ],")
    rest = [
        f" {json.dumps(k)}: {json.dumps(v, ensure_ascii=False)}"
        for k, v in data.items()
        if k != "events"
    ]
    parts.append(",\n".join(rest))
    parts.append("}")
    return "\n".join(parts)


def _load(path: str) -> Any:
    """The JSON in ``path``; :class:`ScenarioError` if it is not UTF-8 JSON (or nests too
    deep to read), :class:`OSError` if it cannot be read."""
    with open(path, "rb") as f:
        raw = f.read()
    try:
        return json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise ScenarioError(f"not UTF-8 text (byte {exc.start})") from None
    except json.JSONDecodeError as exc:
        raise ScenarioError(f"not JSON: {exc}") from None
    except RecursionError:
        raise ScenarioError("not a scenario: JSON nested too deep") from None


def main(argv: Sequence[str] | None = None) -> int:
    """The command line; returns the exit status."""
    return run_command(_main, argv)


def _main(argv: Sequence[str] | None) -> int:
    parser = Parser(
        prog="python -m protocol.judge",
        description=__doc__.splitlines()[0],
        exit_codes="exit codes: 0 played and every check held, 1 a step was illegal, "
        "2 usage error or unreadable scenario, 3 a check failed",
    )
    parser.add_argument("scenario", help="scenario JSON file (see docs/SCENARIOS.md)")
    parser.add_argument("--seat", type=int, choices=range(4), help="print this seat's view")
    args = parser.parse_args(argv)
    try:
        report = run_scenario(_load(args.scenario))
    except (OSError, ScenarioError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
        print(f"judge: {args.scenario}: {reason}", file=sys.stderr)
        return 2
    print(dumps_report(report.to_json(args.seat)))
    if report.error is not None:
        e = report.error
        print(
            f"judge: step {e['step']}: seat {e['seat']} may not {Action.from_json(e['action'])}:"
            f" {e['reason']}",
            file=sys.stderr,
        )
        return 1
    if report.failures:
        for failure in report.failures:
            print(f"judge: check failed: {failure}", file=sys.stderr)
        return 3
    return 0


if __name__ == "__main__":
    sys.exit(main())
