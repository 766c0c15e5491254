"""The command line every bot gets: ``python -m bots.<name> [mode] [options]``.

A bot module needs one line for it::

    if __name__ == "__main__":
        run(MyBot)        # MyBot: a Bot subclass, or any callable returning a Bot

Modes (one of them; ``--local`` when none is given):

* ``--url ws://HOST:PORT/v1/ws [--token T]`` — play a match on a protocol v1 server (the
  local server, or a tournament server). Without a token the server's lobby seats the
  bot. The token may also come from the environment variable ``TAIMAHJONG_TOKEN``.
* ``--line`` — speak the tournament line protocol on stdin/stdout, as the official
  wrapper runs programs. Stdout is reserved for the protocol: anything the bot prints
  goes to stderr instead.
* ``--tcp HOST:PORT`` — the line protocol over TCP, connecting to a referee.
* ``--local`` — play a match in this process against house bots (``--opponents``) and
  print the standings.

Options: ``--seed``, ``--hands`` (local matches), ``--opponents SPEC[,SPEC,SPEC]`` (bots
named as everywhere, see :mod:`sdk.botspec`: a house name such as ``greedy``, a module,
``module:Class`` or a file ``./mybot.py[:Class]``; one spec fills the three seats), ``--name``, ``--safety-margin`` (seconds kept back from each
3 s decision; default 0.2, sized for a LAN), ``--process-pool [N]`` (run a plain bot's
``choose`` in N worker processes), ``--strict`` (a mirror mismatch or an unreadable
frame stops the session), ``--json`` (print the result as JSON), ``--log-level``,
``--log-file``, ``--reconnect-attempts``, ``--save-log PATH`` (``--local``: save the game
record, ``docs/RECORDS.md``, and print where it is), ``--save-transcript PATH`` (``--line``,
``--tcp``: keep the session's lines, :mod:`sdk.transports.transcript`), ``--no-clock``.

A bot with options of its own passes them as :class:`BotOptions`: they are parsed,
checked and listed in ``--help`` with every bot's (``bots.search`` does, for
``--samples``, ``--think-ms``...)::

    def add(parser):
        parser.add_argument("--depth", type=int, default=2)

    run(MyBot, options=BotOptions(add, lambda args: functools.partial(MyBot, depth=args.depth)))

``--local`` keeps the tournament clock of the server and the arena: an answer later than
the budget (3 s less the safety margin) is replaced by the fallback, with a warning
naming the decision, and the standings count it; ``--no-clock`` lets late answers stand
(for a debugger).

Exit codes:

====  =================================================================================
0     the match was played to its end
1     the session failed: the server could not be reached, the connection was lost for
      good, or the server refused the session (bad token, seat taken, ...)
2     usage error (bad options, a bot or opponent that cannot be loaded)
3     protocol error: a mirror mismatch or an unreadable frame in strict mode, a
      protocol version mismatch, or referee lines the session cannot go on from
130   interrupted (Ctrl-C)
====  =================================================================================

>>> parse_hostport("127.0.0.1:7000"), parse_hostport("[::1]:7000")
(('127.0.0.1', 7000), ('::1', 7000))
>>> opponent_specs("random"), opponent_specs("bots.greedy,random,./mybot.py:Bot")
(['random', 'random', 'random'], ['bots.greedy', 'random', './mybot.py:Bot'])
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import errno
import json
import logging
import os
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

from protocol.cli import (
    EXIT_FAILED,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_PROTOCOL,
    EXIT_USAGE,
    CommandError,
    Parser,
    run_command,
)
from protocol.line.tile_ids import LineError
from protocol.wire import VersionMismatchError, WireDecodeError
from sdk.arena.loader import BotFactory, BotLoadError, load_bot
from sdk.bot import Bot
from sdk.botspec import house_names
from sdk.budget import Budget, Outcome
from sdk.local import MatchResult, play_match
from sdk.mirror import MirrorMismatchError
from sdk.records import Origin
from sdk.replay.source import match_record_url
from sdk.session import (
    ConnectionLost,
    ProcessExecutor,
    Reconnect,
    ServerRefused,
    SessionError,
    SessionResult,
)
from sdk.transports import ConnectFailed
from sdk.transports.transcript import TranscriptWriter, open_transcript

__all__ = [
    "EXIT_FAILED",
    "EXIT_INTERRUPTED",
    "EXIT_OK",
    "EXIT_PROTOCOL",
    "EXIT_USAGE",
    "BotOptions",
    "build_parser",
    "main",
    "run",
]


TOKEN_ENV = "TAIMAHJONG_TOKEN"

log = logging.getLogger("sdk.cli")

BotSource = type[Bot] | Callable[..., Bot]


@dataclass(frozen=True)
class BotOptions:
    """A bot's own command-line options, parsed and listed in ``--help`` with every
    bot's. ``add`` adds them to the parser (an option of the same name as a common one
    replaces it); ``make`` turns the parsed arguments into the bot to play (a class or a
    callable taking the seed), raising ``ValueError`` with the fix for a bad value: a
    usage error, exit 2."""

    add: Callable[[argparse.ArgumentParser], None]
    make: Callable[[argparse.Namespace], BotSource]


def run(
    bot_factory: BotSource,
    argv: Sequence[str] | None = None,
    *,
    options: BotOptions | None = None,
) -> NoReturn:
    """Parse the command line, play, and exit with the documented code. With
    ``options`` the bot played is ``options.make(args)`` (``bot_factory`` names it in
    the help and the messages).

    A bot that is still computing a discarded answer when the match ends cannot stop
    the program from exiting: if bot threads are still alive, the process ends at once.
    """
    code = main(bot_factory, argv, options=options)
    if any(t.name.startswith("sdk-bot") and t.is_alive() for t in threading.enumerate()):
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    raise SystemExit(code)


def main(
    bot_factory: BotSource,
    argv: Sequence[str] | None = None,
    *,
    options: BotOptions | None = None,
) -> int:
    """:func:`run` without exiting: returns the exit code (for tests and wrappers)."""
    return run_command(lambda a: _main(bot_factory, a, options), argv)


def _main(bot_factory: BotSource, argv: Sequence[str] | None, options: BotOptions | None) -> int:
    label = _label(bot_factory)
    parser = build_parser(label, None if options is None else options.add)
    args = parser.parse_args(argv)
    try:
        _check_args(args)
        if options is not None:
            bot_factory = options.make(args)
        budget = Budget(safety_margin=args.safety_margin)
        factory = BotFactory(bot_factory, label, bot_factory)
        bot = factory.make(args.seed)
        if args.name:
            bot.name = args.name  # type: ignore[misc]
        opponents = _opponents(args) if _mode(args) == "local" else []
    except (ValueError, BotLoadError) as exc:
        parser.error(str(exc))
    args.protocol_fd = _reserve_stdout() if args.line else 1
    with _logging(args.log_level, args.log_file):
        return _play(args, bot, budget, opponents)


def _check_args(args: argparse.Namespace) -> None:
    """Usage errors that argparse cannot see, as ``ValueError`` with the fix."""
    if args.url:
        from sdk.transports.ws import check_url

        try:
            check_url(args.url)
        except ValueError:
            raise ValueError(
                f"--url wants a WebSocket URL such as ws://127.0.0.1:8765/v1/ws, not {args.url!r}"
            ) from None
    if args.tcp:
        parse_hostport(args.tcp)
        if args.token is not None:
            from sdk.transports.line import token_line

            token_line(args.token)
    if args.log_file:
        try:
            with open(args.log_file, "a"):
                pass
        except OSError as exc:
            raise ValueError(f"--log-file {args.log_file}: {exc.strerror or exc}") from None
    if args.save_log is not None and _mode(args) != "local":
        raise ValueError(
            "--save-log works with --local only: a server keeps the record of its matches "
            "(--url prints where it is served); over the line protocol the referee keeps "
            "the log, and --save-transcript PATH keeps this program's side"
        )
    if args.save_transcript is not None and _mode(args) not in ("line", "tcp"):
        raise ValueError(
            "--save-transcript is for the line protocol (--line, --tcp); "
            "a --local match saves its record with --save-log"
        )
    if args.hands < 1:
        raise ValueError(f"--hands must be at least 1, not {args.hands}")
    if args.reconnect_attempts < 0:
        raise ValueError(f"--reconnect-attempts must be 0 or more, not {args.reconnect_attempts}")
    if not args.connect_wait >= 0:
        raise ValueError(f"--connect-wait must be 0 or more seconds, not {args.connect_wait}")


def build_parser(
    label: str = "bot", add: Callable[[argparse.ArgumentParser], None] | None = None
) -> argparse.ArgumentParser:
    """The options of every bot's command line, and the bot's own (``add``, see
    :class:`BotOptions`) after them."""
    parser = Parser(
        conflict_handler="resolve",  # a bot's own option replaces a common one of its name
        prog=f"python -m {label}" if "." in label else label,
        description=f"Play {label}: on a server (--url), over the tournament line "
        "protocol (--line, --tcp), or in a local match (--local, the default).",
        exit_codes="exit codes: 0 match played, 1 session failed (server unreachable, "
        "refused token...), 2 usage error, 3 protocol error, 130 interrupted",
    )
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--url", help="protocol v1 server, e.g. ws://127.0.0.1:8765/v1/ws")
    mode.add_argument("--line", action="store_true", help="line protocol on stdin/stdout")
    mode.add_argument("--tcp", metavar="HOST:PORT", help="line protocol over TCP")
    mode.add_argument("--local", action="store_true", help="a local match (default)")
    parser.add_argument(
        "--token",
        default=os.environ.get(TOKEN_ENV),
        help=f"the seat's token for --url, or for --tcp the line seat's token sent as a "
        f"/token line (default: ${TOKEN_ENV}; none: the lobby, or the first open line "
        "seat of a server run with --open-line-seats)",
    )
    parser.add_argument(
        "--opponents",
        default=_default_house(),
        help="opponents for --local, one or three comma-separated: a house bot "
        f"({', '.join(house_names())}), a module, module:Class, a file ./mybot.py[:Class] "
        "or a line-protocol program cmd:./prog ARGS / tcp:./prog {host} {port} "
        "(default: %(default)s)",
    )
    parser.add_argument("--seed", type=int, default=0, help="match seed (--local) and bot seed")
    parser.add_argument("--hands", type=int, default=16, help="hands in a --local match")
    parser.add_argument(
        "--save-log",
        metavar="PATH",
        help="--local: save the game record there (docs/RECORDS.md; replay with python -m sdk.replay)",
    )
    parser.add_argument(
        "--save-transcript",
        metavar="PATH",
        help="--line, --tcp: keep every line of the session there as it happens "
        "(the conformance kit's transcript; replay it with python -m sdk.conformance "
        "program --transcript PATH -- CMD)",
    )
    parser.add_argument("--name", help="the bot's name (sent to the server)")
    parser.add_argument(
        "--safety-margin",
        type=float,
        default=0.2,
        help="seconds kept back from every decision for the network (default: %(default)s)",
    )
    parser.add_argument(
        "--process-pool",
        type=int,
        nargs="?",
        const=1,
        default=0,
        metavar="N",
        help="run a plain bot's choose() in N worker processes (default without N: 1)",
    )
    parser.add_argument(
        "--reconnect-attempts", type=int, default=10, help="for --url (default: %(default)s)"
    )
    parser.add_argument(
        "--connect-wait", type=float, default=Reconnect().first_connect, metavar="SECONDS",
        help="for --url: how long to keep trying to reach a server that is not up yet, "
        "quietly (default: %(default)s)",
    )  # fmt: skip
    parser.add_argument(
        "--no-clock",
        action="store_true",
        help="--local: let late answers stand (by default the server's clock applies: an "
        "answer later than the budget is replaced by the fallback, with a warning)",
    )
    parser.add_argument("--strict", action="store_true", help="stop on a mirror mismatch")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    parser.add_argument(
        "--log-level",
        default="WARNING",
        choices=["DEBUG", "INFO", "WARNING", "ERROR"],
        type=str.upper,
    )
    parser.add_argument("--log-file", help="log here instead of stderr")
    if add is not None:
        add(parser)
    return parser


# -- playing --


def _mode(args: argparse.Namespace) -> str:
    if args.url:
        return "ws"
    if args.line:
        return "line"
    if args.tcp:
        return "tcp"
    return "local"


def _local_match(
    args: argparse.Namespace, bot: Bot, budget: Budget, opponents: list[BotFactory]
) -> MatchResult:
    """The ``--local`` match: in this process, or on a table when an opponent is a
    line-protocol program (``--opponents cmd:./prog``, :mod:`sdk.arena.programs`)."""
    made = [f.program or f.make(args.seed * 4 + i) for i, f in enumerate(opponents, 1)]
    origin = Origin("local", match_id=f"local-{args.seed}")
    if any(f.program is not None for f in opponents):
        from sdk.arena.program_settings import ProgramSettings
        from sdk.arena.programs import play_table_match

        return play_table_match(
            [bot, *made], seed=args.seed, hands=args.hands, seats=(0, 1, 2, 3),
            budget=budget, settings=ProgramSettings(), match_id=origin.match_id,
            origin=origin, record=args.save_log is not None,
        )  # fmt: skip
    return play_match(
        [bot, *made],  # type: ignore[list-item]
        seed=args.seed,
        hands=args.hands,
        budget=budget,
        strict=args.strict,
        clock=not args.no_clock,
        record=args.save_log is not None,
        origin=origin,
    )


def _play(args: argparse.Namespace, bot: Bot, budget: Budget, opponents: list[BotFactory]) -> int:
    mode = _mode(args)
    if mode == "local":
        if args.save_log is not None and not _writable(args.save_log):
            return EXIT_USAGE
        result = _local_match(args, bot, budget, opponents)
        _print_local(result, args.json)
        _warn_late(result, budget, args)
        if result.record_bytes is not None:
            return _save_log(result.record_bytes, args.save_log, f"local-{args.seed}")
        return EXIT_OK
    transcript = _open_transcript(args.save_transcript, bot.name)
    executor = ProcessExecutor(args.process_pool) if args.process_pool > 0 else None
    try:
        session = asyncio.run(_remote(mode, args, bot, budget, executor, transcript))
    except (ConnectionLost, ServerRefused, SessionError) as exc:
        raise CommandError(_failure(mode, args, exc), EXIT_FAILED) from None
    except (MirrorMismatchError, VersionMismatchError, WireDecodeError, LineError) as exc:
        raise CommandError(f"protocol error: {exc}", EXIT_PROTOCOL) from None
    finally:
        if executor is not None:
            executor.shutdown(wait=False, cancel_futures=True)
        if transcript is not None:
            _close_transcript(transcript, args.save_transcript)
    _print_session(session, args.json)
    if mode == "ws" and session.match_id:
        url = match_record_url(args.url, session.match_id)
        print(f"record: {url} (match {session.match_id}, served once it is over)", file=sys.stderr)
    return EXIT_OK


def _failure(mode: str, args: argparse.Namespace, exc: Exception) -> str:
    """One line for a failed session: what happened and what to do."""
    if isinstance(exc.__cause__, ConnectFailed):
        where = args.url if mode == "ws" else args.tcp
        start = "python -m sdk.server" + (" --line-port PORT" if mode == "tcp" else "")
        return f"cannot connect to {where}: is the server running? start it with {start}"
    if isinstance(exc, ServerRefused) and exc.code == "bad_token":
        if not args.token:  # the lobby is closed to bots without a seat: no token to check
            return (
                f"{exc}; a bot without a seat is not seated here: ask the server's "
                f"operator for your seat's token and pass --token (or ${TOKEN_ENV})"
            )
        return f"{exc}; check --token (or ${TOKEN_ENV}), or omit it to be seated by the lobby"
    return str(exc)


async def _remote(
    mode: str,
    args: argparse.Namespace,
    bot: Bot,
    budget: Budget,
    executor: Any,
    transcript: TranscriptWriter | None = None,
) -> SessionResult:
    from sdk.transports.line import run_stdio, run_tcp
    from sdk.transports.ws import run_ws

    common: dict[str, Any] = {"budget": budget, "strict": args.strict, "executor": executor}
    if mode == "ws":
        reconnect = Reconnect(attempts=args.reconnect_attempts, first_connect=args.connect_wait)
        return await run_ws(bot, args.url, args.token, reconnect=reconnect, **common)
    if mode == "line":
        return await run_stdio(bot, stdout_fd=args.protocol_fd, transcript=transcript, **common)
    host, port = parse_hostport(args.tcp)
    return await run_tcp(bot, host, port, token=args.token, transcript=transcript, **common)


def _close_transcript(transcript: TranscriptWriter, path: str) -> None:
    """Close the transcript and say where it is; a session that never began (the
    referee unreachable) leaves no file, and the error says why."""
    transcript.close()
    if transcript.steps == 0:
        Path(path).unlink(missing_ok=True)
        return
    print(
        f"transcript: {path}; watch it with python -m sdk.replay {path}, replay it "
        f"against a program with python -m sdk.conformance program --transcript "
        f"{path} -- CMD",
        file=sys.stderr,
    )


def _open_transcript(path: str | None, bot_name: str) -> TranscriptWriter | None:
    """The transcript of ``--save-transcript`` (``None`` without it), opened before the
    session so that a bad path is a usage error that costs no game."""
    if path is None:
        return None
    try:
        return open_transcript(path, bot_name)
    except OSError as exc:
        raise CommandError(f"--save-transcript {path}: {exc.strerror or exc}", EXIT_USAGE) from None


# -- output --


def _print_local(result: MatchResult, as_json: bool) -> None:
    if as_json:
        print(json.dumps(result.to_json()))
        return
    from rich.console import Console
    from rich.table import Table

    wins = [sum(1 for h in result.hand_results if h.winner == s) for s in result.seats]
    table = Table(title=f"{len(result.hand_results)} hands, seed {result.seed}")
    for column in ("rank", "player", "seat", "score", "wins", "p50 ms", "p99 ms", "fallbacks"):
        table.add_column(column, justify="left" if column == "player" else "right")
    order = sorted(range(4), key=lambda p: -result.scores[p])
    for rank, p in enumerate(order, 1):
        timing = result.stats[p].to_json()
        table.add_row(
            str(rank),
            result.names[p] + (" (you)" if p == 0 else ""),
            str(result.seats[p]),
            str(result.scores[p]),
            str(wins[p]),
            f"{timing['p50_ms']:.2f}",
            f"{timing['p99_ms']:.2f}",
            str(timing["fallbacks"]),
        )
    Console(width=100).print(table)


def _warn_late(result: MatchResult, budget: Budget, args: argparse.Namespace) -> None:
    """One line when the own bot's answers were late, so the clock is not a surprise
    online (each late decision was named in a warning as it happened)."""
    late = result.stats[0].outcomes.get(Outcome.LATE, 0)
    if late:
        print(
            f"warning: {late} of your decisions took longer than {budget.reply_within:g} s and "
            "were answered by the fallback, as a server would; --no-clock lets them stand",
            file=sys.stderr,
        )


def _print_session(result: SessionResult, as_json: bool) -> None:
    if as_json:
        print(json.dumps(result.to_json()))
        return
    timing, sdk = result.stats.to_json(), result.overhead.to_json()
    scores = "unknown" if result.scores is None else " ".join(map(str, result.scores))
    print(f"{result.name}: seat {result.seat}, {result.hands} hands, scores by seat {scores}")
    print(
        f"decisions {timing['decisions']}: p50 {timing['p50_ms']} ms, p99 {timing['p99_ms']} "
        f"ms, max {timing['max_ms']} ms, fallbacks {timing['fallbacks']}; SDK overhead p99 "
        f"{sdk['p99_ms']} ms; reconnects {result.reconnects}"
    )


def _writable(path: str) -> bool:
    """Whether the record can be written to ``path`` (checked before the match, so that
    a typo does not cost a whole match); says why not on stderr."""
    try:
        target = Path(path)
        if target.is_dir():
            raise IsADirectoryError(errno.EISDIR, "is a directory; give a file name")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.touch()
    except OSError as exc:
        print(f"error: --save-log {path}: {exc.strerror or exc}", file=sys.stderr)
        return False
    return True


def _save_log(record: bytes, path: str, match_id: str) -> int:
    """Write the game record and say where it is (on stderr: stdout may carry JSON)."""
    try:
        target = Path(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(record)
    except OSError as exc:
        print(f"error: cannot write the record to {path}: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_FAILED
    print(
        f"record: {path} (match {match_id}); replay it with: python -m sdk.replay {path}",
        file=sys.stderr,
    )
    return EXIT_OK


# -- helpers --


def parse_hostport(text: str) -> tuple[str, int]:
    """``HOST:PORT`` (``[v6]:PORT`` for IPv6) as a pair; ``ValueError`` otherwise."""
    host, sep, port = text.rpartition(":")
    host = host.strip("[]")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError(f"--tcp wants HOST:PORT, not {text!r}")
    return host, int(port)


def opponent_specs(text: str) -> list[str]:
    """Three bot specs from ``--opponents`` (one spec fills the three seats)."""
    specs = [s.strip() for s in text.split(",") if s.strip()]
    if len(specs) == 1:
        specs *= 3
    if len(specs) != 3:
        raise ValueError(f"--opponents wants one spec or three, not {len(specs)}")
    return specs


def _opponents(args: argparse.Namespace) -> list[BotFactory]:
    return [load_bot(spec) for spec in opponent_specs(args.opponents)]


def _default_house() -> str:
    return "greedy" if "greedy" in house_names() else "random"


def _label(bot_factory: BotSource) -> str:
    """The bot's module path (``bots.greedy``), also under ``python -m``."""
    module = getattr(bot_factory, "__module__", "")
    if module == "__main__":
        spec = getattr(sys.modules.get("__main__"), "__spec__", None)
        module = spec.name if spec is not None else ""
    return module or getattr(bot_factory, "__name__", "bot")


def _reserve_stdout() -> int:
    """Keep stdout for the line protocol: return a new descriptor for it (the stdio
    channel writes there) and point descriptor 1, hence ``print``, at stderr, so that
    nothing the bot prints can corrupt the protocol."""
    sys.stdout.flush()
    protocol_fd = os.dup(1)
    os.dup2(2, 1)
    return protocol_fd


@contextlib.contextmanager
def _logging(level: str, path: str | None) -> Iterator[None]:
    """The run's log handler (stderr, or ``--log-file``) on the root logger at ``level``;
    afterwards the root logger's handlers and level as they were. :func:`main` runs
    in-process too (tests, wrappers, notebooks), where a handler left behind would write
    to a stream since closed, each record then printing a traceback."""
    handler: logging.Handler = (
        logging.FileHandler(path) if path else logging.StreamHandler(sys.stderr)
    )
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    handler.set_name("sdk.cli")
    root = logging.getLogger()
    handlers, old_level = root.handlers[:], root.level
    root.handlers[:] = [h for h in handlers if h.get_name() != "sdk.cli"] + [handler]
    root.setLevel(level)
    try:
        yield
    finally:
        root.handlers[:] = handlers
        root.setLevel(old_level)
        handler.close()
