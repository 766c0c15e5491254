"""``python -m sdk.server``: the local tournament server.

    python -m sdk.server --port 8765 --db league.db --line-port 9999 \\
        --seat "cmd:./mybot --flag" --lobby-wait 5

Serves protocol v1 (``ws://HOST:PORT/v1/ws``) and REST (``http://HOST:PORT/v1/...``) on
127.0.0.1; with ``--line-port`` also the tournament line protocol over TCP. Each
``--seat`` puts a bot in the lobby at start-up: ``cmd:PROGRAM ARGS`` (a line-protocol
program run on stdin/stdout, like the official wrapper) or a house bot name.
"""

from __future__ import annotations

import argparse
import ipaddress
import logging
import socket
import sqlite3
import sys
from collections.abc import Sequence

from protocol.cli import CommandError, Parser, run_command
from sdk.arena.loader import BotLoadError, load_bot
from sdk.botspec import canonical_spec
from sdk.server.config import ServerConfig
from sdk.server.core import seat_spec, timing_problem
from sdk.server.runner import serve

__all__ = ["build_config", "main", "parser"]


def parser() -> argparse.ArgumentParser:
    """The command line's options."""
    p = Parser(
        prog="python -m sdk.server",
        description=__doc__.split("\n")[0],
        exit_codes="exit codes: 0 stopped, 1 failure (the port is taken...), 2 usage error",
    )
    d = ServerConfig()
    p.add_argument("--host", default=d.host, help="interface to bind (default %(default)s)")
    p.add_argument(
        "--port", type=int, default=d.port, help="HTTP/WebSocket port (default %(default)s)"
    )
    p.add_argument(
        "--line-port",
        type=int,
        default=None,
        help="TCP port for line-protocol programs (off unless given)",
    )
    p.add_argument("--db", default=d.db_path, help="SQLite file (default %(default)s)")
    p.add_argument(
        "--seat",
        action="append",
        default=[],
        metavar="SPEC",
        help='a bot for the lobby: "cmd:PROGRAM ARGS" or a house bot name (repeatable)',
    )
    p.add_argument(
        "--lobby-wait",
        type=float,
        default=d.lobby_wait,
        help="seconds before house bots fill a lobby table",
    )
    p.add_argument(
        "--lobby-house",
        default=d.lobby_house,
        help="house bot of lobby tables (default %(default)s)",
    )
    p.add_argument(
        "--hands",
        type=int,
        default=d.lobby_hands,
        help="hands per lobby match (default %(default)s)",
    )
    p.add_argument(
        "--seed",
        type=int,
        default=None,
        help="base of lobby seeds, hashed with --seed-key per table (default: random)",
    )
    p.add_argument(
        "--seed-key",
        default=None,
        metavar="HEX",
        help="secret key lobby seeds are derived from (default: random per start)",
    )
    p.add_argument(
        "--decision-ms",
        type=int,
        default=d.lobby_decision_ms,
        help="decision budget of lobby matches",
    )
    p.add_argument(
        "--startup-ms",
        type=int,
        default=d.lobby_startup_ms,
        help="start-up budget of lobby matches",
    )
    p.add_argument(
        "--house",
        action="append",
        default=[],
        metavar="NAME=SPEC",
        help="add a house bot: a module, module:Class, a file ./mybot.py[:Class] (sdk.botspec), "
        "or a line-protocol program cmd:PROGRAM ARGS / tcp:PROGRAM ARGS {host} {port}",
    )
    p.add_argument(
        "--allow-commands", action="store_true", help="let POST /v1/tables start programs"
    )
    p.add_argument(
        "--admin-token", default=None, help="require this bearer token for POST /v1/tables"
    )
    p.add_argument("--max-tables", type=int, default=d.max_tables)
    p.add_argument(
        "--min-hands",
        type=int,
        default=d.leaderboard_min_hands,
        help="hands a bot must play to be ranked on the leaderboard (default %(default)s)",
    )
    p.add_argument(
        "--connect-wait",
        type=float,
        default=d.connect_wait,
        help="seconds a table waits for its bots",
    )
    p.add_argument(
        "--unattended-wait",
        type=float,
        default=d.unattended_wait,
        help="seconds a table with no remote seat connected waits before it is aborted",
    )
    seating = p.add_mutually_exclusive_group()
    seating.add_argument(
        "--open-line-seats",
        action="store_true",
        help="a TCP line program without a /token line takes the first open line seat "
        "(first come, first seated; default: only with its token)",
    )
    seating.add_argument(
        "--line-tokens",
        action="store_true",
        help="TCP line seats can only be taken with their token (the default)",
    )
    p.add_argument(
        "--max-db-mb",
        type=int,
        default=d.max_db_mb,
        help="the database's size limit in MiB: past 90%% of it the oldest match logs are "
        "pruned; 0: none (default %(default)s)",
    )
    p.add_argument(
        "--keep-days",
        type=float,
        default=d.keep_days,
        help="prune the logs of matches finished longer ago than this; 0: keep them "
        "(default %(default)s)",
    )
    p.add_argument("--max-connections", type=int, default=d.max_connections)
    p.add_argument("--max-per-address", type=int, default=d.max_per_address)
    p.add_argument(
        "--shared-networks",
        nargs="*",
        metavar="CIDR",
        default=d.shared_networks,
        help="networks whose addresses many clients share, so limits go by connection and"
        " seat there (default: loopback; none given: per address everywhere)",
    )
    p.add_argument(
        "--rest-rate", type=float, default=d.rest_rate, help="REST requests/s per address"
    )
    p.add_argument("--rest-burst", type=int, default=d.rest_burst)
    p.add_argument(
        "--rest-body-timeout",
        type=float,
        default=d.rest_body_timeout,
        help="seconds a client has to send a whole REST body, else 408 (default %(default)s)",
    )
    p.add_argument(
        "--api-docs", action="store_true", help="serve /docs and /openapi.json (off by default)"
    )
    p.add_argument("--log-level", default="info", choices=["debug", "info", "warning", "error"])
    return p


def build_config(args: argparse.Namespace) -> ServerConfig:
    """A :class:`ServerConfig` from parsed options."""
    config = ServerConfig(
        host=args.host,
        port=args.port,
        line_port=args.line_port,
        db_path=args.db,
        lobby_wait=args.lobby_wait,
        lobby_house=args.lobby_house,
        lobby_hands=args.hands,
        lobby_decision_ms=args.decision_ms,
        lobby_startup_ms=args.startup_ms,
        lobby_seed=args.seed,
        seed_key=args.seed_key,
        allow_commands=args.allow_commands,
        connect_wait=args.connect_wait,
        max_tables=args.max_tables,
        admin_token=args.admin_token,
        leaderboard_min_hands=args.min_hands,
        api_docs=args.api_docs,
        unattended_wait=args.unattended_wait,
        line_tokens=not args.open_line_seats,
        max_db_mb=args.max_db_mb,
        keep_days=args.keep_days,
        max_connections=args.max_connections,
        max_per_address=args.max_per_address,
        shared_networks=list(args.shared_networks),
        rest_rate=args.rest_rate,
        rest_burst=args.rest_burst,
        rest_body_timeout=args.rest_body_timeout,
    )
    for item in args.house:
        name, sep, spec = item.partition("=")
        if not sep or not name or not spec:
            raise ValueError(f"--house {item!r}: expected NAME=SPEC, e.g. me=./mybot.py")
        config.house_bots[name] = canonical_spec(spec)  # the one naming rule: sdk.botspec
    return config


def main(argv: Sequence[str] | None = None) -> int:
    """Parse the command line and serve until interrupted; returns the exit code."""
    return run_command(_main, argv)


def _main(argv: Sequence[str] | None) -> int:
    p = parser()
    args = p.parse_args(argv)
    try:
        config = build_config(args)
        _check(config)
        for spec in args.seat:
            _check_seat(config, spec)
    except (ValueError, BotLoadError) as exc:
        p.error(str(exc))
    _check_line_port(config)
    logging.basicConfig(
        level=args.log_level.upper(), format="%(asctime)s %(name)s %(levelname)s %(message)s"
    )
    try:
        serve(config, args.seat, log_level=args.log_level)
    except OSError as exc:  # binding the port
        raise CommandError(
            f"cannot listen on {config.host}:{config.port} ({exc.strerror or exc}): is "
            "another server running there? pick another port with --port"
        ) from None
    return 0


def _check(config: ServerConfig) -> None:
    """Usage errors found before serving: ports, budgets, counts, the database file can
    be opened, and every house bot loads."""
    for option, port in (("--port", config.port), ("--line-port", config.line_port)):
        if port is not None and not 0 <= port <= 65535:
            raise ValueError(f"{option} must be 0..65535, not {port}")
    if config.max_db_mb < 0 or not config.keep_days >= 0:
        raise ValueError("--max-db-mb and --keep-days must be 0 (no limit) or more")
    if not config.rest_body_timeout > 0:
        raise ValueError(f"--rest-body-timeout must be positive, not {config.rest_body_timeout}")
    problem = timing_problem(config.lobby_decision_ms, config.lobby_startup_ms)
    if problem is not None:
        raise ValueError(
            "--" + problem.replace("decision_ms", "decision-ms").replace("startup_ms", "startup-ms")
        )
    for network in config.shared_networks:
        try:
            ipaddress.ip_network(network)
        except ValueError:
            raise ValueError(f"--shared-networks: {network!r} is not a network (CIDR)") from None
    _check_database(config.db_path)
    if config.seed_key is not None:
        try:
            bytes.fromhex(config.seed_key)
        except ValueError:
            raise ValueError("--seed-key: expected hexadecimal digits") from None
    if config.lobby_hands < 1:
        raise ValueError(f"--hands must be at least 1, not {config.lobby_hands}")
    if config.lobby_house not in config.house_bots:
        known = ", ".join(sorted(config.house_bots))
        raise ValueError(f"--lobby-house {config.lobby_house!r} is not a house bot ({known})")
    for name, spec in config.house_bots.items():
        try:
            load_bot(spec)
        except BotLoadError as exc:
            raise BotLoadError(f"house bot {name!r}: {exc}") from None


def _check_database(path: str) -> None:
    """The SQLite file opens (it is made if new): a bad ``--db`` is a usage error here,
    not a failed start-up with a traceback."""
    if path == ":memory:":
        return
    try:
        sqlite3.connect(path).close()
    except sqlite3.Error as exc:
        raise ValueError(f"--db {path}: {exc}") from None


def _check_line_port(config: ServerConfig) -> None:
    """The line port can be bound (the listener starts with the app: a port taken there
    was a traceback); raises :class:`CommandError` like a taken ``--port``."""
    if not config.line_port:
        return
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            probe.bind((config.host, config.line_port))
    except OSError as exc:
        raise CommandError(
            f"cannot listen on {config.host}:{config.line_port} ({exc.strerror or exc}): "
            "is another server running there? pick another port with --line-port"
        ) from None


def _check_seat(config: ServerConfig, spec: str) -> None:
    """A ``--seat`` option reads, and names a house bot the server has."""
    kind, name, _ = seat_spec(spec)
    if kind == "house" and name not in config.house_bots:
        known = ", ".join(sorted(config.house_bots))
        raise ValueError(f"--seat {spec!r}: no house bot {name!r} ({known})")


if __name__ == "__main__":
    sys.exit(main())
