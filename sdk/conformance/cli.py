"""``taimahjong-conformance`` / ``python -m sdk.conformance`` (also
``python -m protocol.line.conformance``): check a line-protocol program or referee.

    taimahjong-conformance program -- ./my_client --flag       # the shipped transcripts
    taimahjong-conformance program --match --matches 4 -- python -m bots.greedy --line
    taimahjong-conformance referee --tcp 127.0.0.1:9999 --bot bots.greedy
    taimahjong-conformance list                                # the shipped transcripts

Exit codes: 0 every check passed, 1 a fault was found (or the program cannot run),
2 usage.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from importlib import resources
from pathlib import Path

from protocol.line.conformance import Transcript, parse_transcript
from sdk.conformance.program import ProgramRun, run_transcript

__all__ = ["main", "shipped_transcripts"]


def shipped_transcripts() -> list[Transcript]:
    """The transcripts that ship with the kit (each reproduces a documented behaviour of
    the public referee; written from the description, not copied from any log)."""
    folder = resources.files("protocol.line.conformance") / "transcripts"
    found = sorted((p for p in folder.iterdir() if p.name.endswith(".txt")), key=lambda p: p.name)
    return [parse_transcript(p.read_text(encoding="ascii"), p.name[:-4]) for p in found]


def _transcripts(names: Sequence[str]) -> list[Transcript]:
    shipped = {t.name: t for t in shipped_transcripts()}
    if not names:
        return list(shipped.values())
    out = []
    for name in names:
        if name in shipped:
            out.append(shipped[name])
        elif Path(name).is_file():
            out.append(parse_transcript(Path(name).read_text(encoding="ascii"), Path(name).stem))
        else:
            raise SystemExit(_usage(f"no transcript {name!r} (shipped: {', '.join(shipped)})"))
    return out


def _usage(message: str) -> int:
    print(f"taimahjong-conformance: {message}", file=sys.stderr)
    return 2


def _report_program(run: ProgramRun) -> None:
    print(f"== {run.name}")
    for step in run.steps:
        mark = "ok   " if step.fault is None else "FAULT"
        reply = "(no reply)" if step.reply is None else step.reply
        line = f"  {mark} {step.ask:<12} -> {reply:<24} {step.seconds * 1000:7.1f} ms"
        print(line + ("" if step.fault is None else f"  {step.fault.reason}: {step.fault.message}"))
    for fault in run.faults:
        if fault.reason == "unsolicited":
            print(f"  FAULT {fault}")
    if run.noise:
        print(f"  note: {run.noise} line(s) of start-up noise before the first ask (ignored)")
    if run.diverged:
        print(f"  note: stopped where the program chose differently: {run.diverged}")
    if run.error:
        print(f"  ERROR {run.error}")
    print(
        f"  {'PASS' if run.passed else 'FAIL'}: {len(run.steps)} replies, {len(run.faults)} faults"
    )


def _program(args: argparse.Namespace, command: list[str]) -> int:
    if args.match:
        return _match(args, command)
    runs = [run_transcript(command, t, args.limit) for t in _transcripts(args.transcript)]
    for run in runs:
        _report_program(run)
    failed = [r.name for r in runs if not r.passed]
    replies, faults = sum(len(r.steps) for r in runs), sum(len(r.faults) for r in runs)
    verdict = "FAIL" if failed else "PASS"
    print(f"{verdict}: {len(runs)} transcripts, {replies} replies checked, {faults} faults")
    return 1 if failed else 0


def _match(args: argparse.Namespace, command: list[str]) -> int:
    from sdk.conformance.match import play_matches

    runs = play_matches(
        command,
        matches=args.matches,
        hands=args.hands,
        seed=args.seed,
        house=args.house,
        decision_ms=int(args.limit * 1000),
    )
    for run in runs:
        shown = ", ".join(f"{k} {v}" for k, v in sorted(run.outcomes.items()))
        print(f"== match seed {run.seed}, program at seat {run.seat + 1}: {run.status}")
        print(f"  decisions: {sum(run.outcomes.values())} ({shown}); defaults: {run.defaults}")
        print(
            f"  scores: {run.scores} (the program's: {run.scores[run.seat] if run.scores else '-'})"
        )
        for fault in run.faults[:20]:
            print(f"  FAULT {fault}")
    failed = [r for r in runs if not r.passed]
    verdict = "FAIL" if failed else "PASS"
    print(f"{verdict}: {len(runs)} matches, {sum(r.defaults for r in runs)} defaults")
    return 1 if failed else 0


def _referee(args: argparse.Namespace) -> int:
    from sdk.arena.loader import BotLoadError, load_bot
    from sdk.conformance.referee import check_referee, connect_tcp, stdio

    try:
        bot = load_bot(args.bot).make(args.seed)
    except BotLoadError as exc:
        return _usage(str(exc))
    if args.tcp:
        host, _, port = args.tcp.rpartition(":")
        if not host or not port.isdigit():
            return _usage(f"--tcp wants HOST:PORT, not {args.tcp!r}")
        try:
            lines, write = connect_tcp(host, int(port))
        except OSError as exc:
            print(f"taimahjong-conformance: cannot connect to {args.tcp}: {exc}", file=sys.stderr)
            return 1
        out = sys.stdout
    else:
        lines, write = stdio()
        out = sys.stderr
    run = check_referee(bot, lines, write, args.limit)
    for fault in run.faults:
        print(f"FAULT {fault}", file=out)
    verdict = "PASS" if run.passed else "FAIL"
    ended = "" if run.ended else "; the session ended without /exit"
    print(
        f"{verdict}: {run.lines} lines received, {run.asks} decisions answered, "
        f"{len(run.faults)} faults{ended}",
        file=out,
    )
    return 0 if run.passed else 1


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="taimahjong-conformance",
        description="Check a tournament line-protocol program or referee against the rules.",
    )
    sub = parser.add_subparsers(dest="mode", required=True)
    program = sub.add_parser("program", help="check a program: program [options] -- CMD ARGS")
    program.add_argument("--transcript", action="append", default=[], help="name or file")
    program.add_argument("--limit", type=float, default=3.0, help="seconds per reply (3)")
    program.add_argument("--match", action="store_true", help="full matches vs house bots")
    program.add_argument("--matches", type=int, default=1)
    program.add_argument("--hands", type=int, default=4)
    program.add_argument("--seed", type=int, default=1)
    program.add_argument("--house", default="greedy", help="house bot (random, greedy...)")
    referee = sub.add_parser("referee", help="check a referee with one of our bots")
    where = referee.add_mutually_exclusive_group(required=True)
    where.add_argument("--tcp", metavar="HOST:PORT")
    where.add_argument("--stdio", action="store_true", help="be the program on stdin/stdout")
    referee.add_argument("--bot", default="bots.greedy")
    referee.add_argument("--seed", type=int, default=0)
    referee.add_argument("--limit", type=float, default=3.0)
    sub.add_parser("list", help="list the shipped transcripts")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    command: list[str] = []
    if "--" in argv:
        at = argv.index("--")
        argv, command = argv[:at], argv[at + 1 :]
    try:
        args = _parser().parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0)
    if args.mode == "list":
        for t in shipped_transcripts():
            print(f"{t.name}: {t.comment}")
        return 0
    if args.mode == "program":
        if not command:
            return _usage("give the program after --, e.g. program -- ./my_client")
        try:
            return _program(args, command)
        except SystemExit as exc:
            return int(exc.code or 0)
    if command:
        return _usage("referee mode takes no program after --")
    return _referee(args)


if __name__ == "__main__":
    sys.exit(main())
