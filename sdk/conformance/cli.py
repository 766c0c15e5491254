"""``taimahjong-conformance`` (also ``python -m sdk.conformance`` and
``python -m protocol.line.conformance``, the same command): check a line-protocol
program or referee. The program to check and its arguments come last, after ``--``:

    taimahjong-conformance program -- ./my_client --flag       # the shipped transcripts
    taimahjong-conformance program --transcript game.txt -- python mybot.py --line
    taimahjong-conformance program --match --matches 4 -- python -m bots.greedy --line
    taimahjong-conformance referee --tcp 127.0.0.1:9999 --bot bots.greedy
    taimahjong-conformance list                                # the shipped transcripts

Exit codes: 0 every check passed, 1 a fault was found (or the program cannot run, or a
transcript file is not a transcript), 2 usage (a bad option, a transcript that does not
exist, an unknown house bot), 130 interrupted. Errors are one line on stderr
(:mod:`protocol.cli`).
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

from protocol.cli import EXIT_FAILED, EXIT_USAGE, CommandError, Parser, run_command
from protocol.line.conformance import Transcript, parse_transcript
from sdk.conformance.program import ProgramRun, run_transcript

if TYPE_CHECKING:
    from sdk.rest import RestError

__all__ = ["main", "shipped_transcripts"]


def shipped_transcripts() -> list[Transcript]:
    """The transcripts that ship with the kit (each reproduces a documented behaviour of
    the public referee; written from the description, not copied from any log)."""
    folder = resources.files("protocol.line.conformance") / "transcripts"
    found = sorted((p for p in folder.iterdir() if p.name.endswith(".txt")), key=lambda p: p.name)
    return [parse_transcript(p.read_text(encoding="ascii"), p.name[:-4]) for p in found]


def _transcripts(names: Sequence[str]) -> list[Transcript]:
    """The transcripts ``--transcript`` names (shipped names or files; all shipped ones
    when none). A name that is neither is a usage error."""
    shipped = {t.name: t for t in shipped_transcripts()}
    if not names:
        return list(shipped.values())
    out = []
    for name in names:
        if name in shipped:
            out.append(shipped[name])
        elif Path(name).is_file():
            out.append(_read_transcript(Path(name)))
        else:
            _usage(f"no transcript {name!r}: no such file or shipped name ({', '.join(shipped)})")
    return out


def _read_transcript(path: Path) -> Transcript:
    """A transcript file, named by its stem in the report. A file that cannot be read is
    a usage error (exit 2); one that is not a transcript is bad data (exit 1), reported
    with its path and line."""
    try:
        text = path.read_text(encoding="ascii")
    except UnicodeDecodeError as exc:
        raise CommandError(f"{path}: not a transcript: byte {exc.start} is not ASCII") from None
    except OSError as exc:
        _usage(f"cannot read transcript {path}: {exc.strerror or exc}")
    try:
        transcript = parse_transcript(text, str(path))
    except ValueError as exc:
        raise CommandError(str(exc), EXIT_FAILED) from None
    return dataclasses.replace(transcript, name=path.stem)


def _usage(message: str) -> NoReturn:
    """End the command with a one-line usage error (exit 2)."""
    raise CommandError(message, EXIT_USAGE)


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
    from sdk.conformance.match import MatchSetupError, play_matches
    from sdk.rest import RestError

    try:
        runs = play_matches(
            command,
            matches=args.matches,
            hands=args.hands,
            seed=args.seed,
            house=args.house,
            decision_ms=int(args.limit * 1000),
        )
    except MatchSetupError as exc:
        _usage(f"no valid match with these options: {exc}")
    except RestError as exc:
        raise _refused(exc) from None
    for run in runs:
        shown = ", ".join(f"{k} {v}" for k, v in sorted(run.outcomes.items()))
        print(f"== match seed {run.seed}, program at seat {run.seat}: {run.status}")
        print(f"  decisions: {sum(run.outcomes.values())} ({shown}); defaults: {run.defaults}")
        print(f"  scores: {_scores(run.scores, run.seat)}")
        for fault in run.faults[:20]:
            print(f"  FAULT {fault}")
    failed = [r for r in runs if not r.passed]
    verdict = "FAIL" if failed else "PASS"
    print(f"{verdict}: {len(runs)} matches, {sum(r.defaults for r in runs)} defaults")
    return 1 if failed else 0


def _scores(scores: Sequence[int], program: int) -> str:
    """Scores by seat, the program's marked: ``seat 0 -1000, seat 1 +500 (the program), ...``.

    >>> _scores([-1000, 500, 0, 500], 1)
    'seat 0 -1000, seat 1 +500 (the program), seat 2 +0, seat 3 +500'
    """
    if not scores:
        return "-"
    mark = {program: " (the program)"}
    return ", ".join(f"seat {s} {v:+d}{mark.get(s, '')}" for s, v in enumerate(scores))


def _refused(exc: RestError) -> CommandError:
    """The local server's own reason for refusing a match, in one line: a client error
    (4xx: the options asked for something it does not have, e.g. an unknown house bot)
    is a usage error, anything else a failure."""
    reason = exc.error.message if exc.error is not None else str(exc)
    code = EXIT_USAGE if 400 <= exc.status < 500 else EXIT_FAILED
    return CommandError(f"the local server refused the match: {reason}", code)


def _referee(args: argparse.Namespace) -> int:
    from sdk.arena.loader import BotLoadError, load_bot
    from sdk.conformance.referee import check_referee, connect_tcp, stdio

    try:
        bot = load_bot(args.bot).make(args.seed)
    except BotLoadError as exc:
        _usage(str(exc))
    if args.tcp:
        host, _, port = args.tcp.rpartition(":")
        if not host or not port.isdigit():
            _usage(f"--tcp wants HOST:PORT, not {args.tcp!r}")
        try:
            lines, write = connect_tcp(host, int(port))
        except OSError as exc:
            raise CommandError(f"cannot connect to {args.tcp}: {exc}", EXIT_FAILED) from None
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


PROG = "taimahjong-conformance"
"""The command's name in its help and messages (``python -m sdk.conformance`` and
``python -m protocol.line.conformance`` run the same command)."""

_EXIT_CODES = (
    "exit codes: 0 every check passed, 1 a fault was found (or the program cannot run, "
    "or a transcript file is not a transcript), 2 usage error, 130 interrupted"
)
_PROGRAM_USAGE = "%(prog)s [options] -- CMD [ARGS...]"
_PROGRAM_HELP = (
    "Check a line-protocol program against the shipped transcripts, --transcript files "
    "or (--match) full matches against house bots. CMD [ARGS...], the program and its "
    "arguments, come last, after the options and --."
)


def _parser() -> argparse.ArgumentParser:
    """The options; the program to check is not among them (it follows ``--``, split
    off before parsing so that its own options are never read as ours)."""
    parser = Parser(
        prog=PROG,
        description="Check a tournament line-protocol program or referee against the rules "
        "(also: python -m sdk.conformance, python -m protocol.line.conformance).",
        exit_codes=_EXIT_CODES,
    )
    sub = parser.add_subparsers(dest="mode", required=True)
    program = sub.add_parser(
        "program",
        help="check a program: program [options] -- CMD [ARGS...]",
        usage=_PROGRAM_USAGE,
        description=_PROGRAM_HELP,
        exit_codes=_EXIT_CODES,
    )
    program.add_argument("--transcript", action="append", default=[], help="name or file")
    program.add_argument("--limit", type=float, default=3.0, help="seconds per reply (3)")
    program.add_argument("--match", action="store_true", help="full matches vs house bots")
    program.add_argument("--matches", type=int, default=1)
    program.add_argument("--hands", type=int, default=4)
    program.add_argument("--seed", type=int, default=1)
    program.add_argument("--house", default="greedy", help="house bot (random, greedy...)")
    referee = sub.add_parser(
        "referee", help="check a referee with one of our bots", exit_codes=_EXIT_CODES
    )
    where = referee.add_mutually_exclusive_group(required=True)
    where.add_argument("--tcp", metavar="HOST:PORT")
    where.add_argument("--stdio", action="store_true", help="be the program on stdin/stdout")
    referee.add_argument("--bot", default="bots.greedy")
    referee.add_argument("--seed", type=int, default=0)
    referee.add_argument("--limit", type=float, default=3.0)
    sub.add_parser("list", help="list the shipped transcripts", exit_codes=_EXIT_CODES)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """The command line; returns the exit code (one-line errors, never a traceback:
    :func:`protocol.cli.run_command`)."""
    return run_command(_main, argv)


def _main(argv: Sequence[str] | None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    command: list[str] = []
    if "--" in argv:
        at = argv.index("--")
        argv, command = argv[:at], argv[at + 1 :]
    args = _parser().parse_args(argv)
    if args.mode != "program" and command:
        _usage(f"{args.mode} takes no program after --")
    if args.mode == "list":
        for t in shipped_transcripts():
            print(f"{t.name}: {t.comment}")
        return 0
    if args.mode == "program":
        if not command:
            _usage("give the program after --, e.g. program -- python mybot.py --line")
        return _program(args, command)
    return _referee(args)


if __name__ == "__main__":
    sys.exit(main())
