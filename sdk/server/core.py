"""The tournament server's state: tables, seat tokens, the lobby, the line-protocol
listener and the store, independent of HTTP (the ASGI app in :mod:`sdk.server.app` and
the WebSocket shell in :mod:`sdk.server.wsconn` call into it).

Every table runs as its own task; an exception in one aborts that table only.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import logging
import secrets
import shlex
import tempfile
from collections import OrderedDict, deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from protocol.line.adapter import LineTable
from protocol.line.codec import StartLine
from protocol.line.tile_ids import LineError
from protocol.wall import hand_seed, physical_wall
from protocol.wire.common import ErrorCode
from protocol.wire.messages import MatchConfig, Timing
from protocol.wire.rest import (
    SEED_MAX,
    Leaderboard,
    MatchLog,
    SeatStatus,
    TableCreate,
    TableCreated,
    TableStatus,
)
from sdk.arena.loader import BotFactory, BotLoadError, load_bot
from sdk.budget import Budget
from sdk.programs import ProgramSpec, command_name
from sdk.records import Record
from sdk.server.banner import banner
from sdk.server.config import ServerConfig
from sdk.server.guard import ConnectionGuard
from sdk.server.housepool import HousePool
from sdk.server.linechan import (
    LineChannel,
    LineTooLongError,
    spawn_program,
    spawn_tcp_program,
)
from sdk.server.lobby import Entrant, Lobby, LobbyFullError
from sdk.server.ratings import leaderboard as rank_bots
from sdk.server.recordlog import record_of
from sdk.server.records import Clock
from sdk.server.seats import HouseSeat, LineSeat, Seat, WsSeat
from sdk.server.security import new_token, same_token
from sdk.server.store import Retention, Store, StoredMatch
from sdk.server.table import Table, TableSpec

__all__ = [
    "RULES",
    "RequestError",
    "TournamentServer",
    "house_seed",
    "parse_seat_spec",
    "seat_spec",
]

log = logging.getLogger("sdk.server")

T = TypeVar("T")

RULES = ("tcga-2024",)
"""Rule sets this server plays."""
KEEP_FINISHED = 500
"""Statuses of finished tables kept in memory (small; older ones come from the store)."""
KEEP_ENDED_TOKENS = 4 * KEEP_FINISHED
"""Protocol v1 tokens of forgotten finished tables remembered, so that a bot presenting
one hears that its match has ended rather than that its token is unknown."""
LINE_TOKEN = "/token"
"""The line a TCP line program may send first, with its seat's secret, to take that
seat (a server extension of the line protocol; see docs/SERVER.md)."""
LIST_LIMIT = 100
"""Tables per page of ``GET /v1/tables`` by default (at most ``LIST_MAX``)."""
LIST_MAX = 500
LEADERBOARD_TTL = 2.0
"""Seconds a computed leaderboard is served before it is computed again."""
_LOG_LINE_SEPARATORS = (",", ":")


def _socket_cap(wanted: int) -> int:
    """``max_connections``, lowered if the process may not open that many files (a
    margin is kept for the database, programs' pipes and the listeners)."""
    try:
        import resource

        soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    except (ImportError, OSError, ValueError):
        return wanted
    if soft == resource.RLIM_INFINITY or wanted <= soft - 128:
        return wanted
    cap = max(16, soft - 128)
    log.warning("max_connections %d lowered to %d: the file limit is %d", wanted, cap, soft)
    return cap


def derive_seed(key: bytes, base: int, n: int) -> int:
    """The seed of the ``n``-th lobby table: a keyed hash of ``(base, n)`` (63 bits),
    unpredictable without ``key`` and reproducible with it.

    >>> a = derive_seed(b"k", 5, 0); a == derive_seed(b"k", 5, 0), a == derive_seed(b"j", 5, 0)
    (True, False)
    >>> 0 <= derive_seed(b"k", 5, 1) <= SEED_MAX
    True
    """
    digest = hmac.new(key, f"lobby:{base}:{n}".encode(), hashlib.sha256).digest()
    return int.from_bytes(digest[:8], "big") & SEED_MAX


def house_seed(table_seed: int, seat: int) -> int:
    """The seed of the house bot at ``seat`` (so a table replays in-process)."""
    return table_seed * 4 + seat


class RequestError(Exception):
    """A REST request the server refuses: HTTP ``status`` and a protocol error code."""

    def __init__(self, status: int, code: ErrorCode, message: str) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message


@dataclass(frozen=True, slots=True)
class _SeatPlan:
    """What sits at a seat of a table being built."""

    seat: int
    name: str
    kind: str  # ws | line | cmd | house
    command: list[str] | None = None
    channel: LineChannel | None = None
    program: ProgramSpec | None = None
    """A ``--house`` program: its kind (``tcp:`` connects) and working folder."""


def program_log_dir(config: ServerConfig) -> Path:
    """Where started programs' standard error files go (``config.program_log_dir``, else
    ``program-logs`` next to the database, or in the temporary directory).

    >>> program_log_dir(ServerConfig(db_path="/srv/league.db"))
    PosixPath('/srv/program-logs')
    """
    if config.program_log_dir is not None:
        return Path(config.program_log_dir)
    if config.db_path == ":memory:":
        return Path(tempfile.gettempdir()) / "taimahjong-program-logs"
    return Path(config.db_path).resolve().parent / "program-logs"


DECISION_MS = (10, 600_000)
"""The decision budgets a table may have, in milliseconds (REST and the command line)."""
STARTUP_MS_MAX = 3_600_000
"""The longest start-up budget a table may have, in milliseconds."""


def timing_problem(decision_ms: int, startup_ms: int) -> str | None:
    """What is wrong with a table's budgets, or ``None``.

    >>> timing_problem(3000, 30000), timing_problem(1, 30000)
    (None, 'decision_ms must be 10..600000, not 1')
    """
    if not DECISION_MS[0] <= decision_ms <= DECISION_MS[1]:
        return f"decision_ms must be {DECISION_MS[0]}..{DECISION_MS[1]}, not {decision_ms}"
    if not 0 <= startup_ms <= STARTUP_MS_MAX:
        return f"startup_ms must be 0..{STARTUP_MS_MAX}, not {startup_ms}"
    return None


def seat_spec(spec: str) -> tuple[str, str, list[str] | None]:
    """A ``--seat`` option read: ``cmd:PROGRAM ARGS...`` (a line-protocol program the
    server starts) or ``house:NAME`` / ``NAME`` (a house bot), as (kind, seat name,
    command). Raises ``ValueError`` naming what is wrong; the command line checks every
    ``--seat`` with it before serving.

    >>> seat_spec("cmd:./my_bot --level 3"), seat_spec("greedy")
    (('cmd', 'my_bot', ['./my_bot', '--level', '3']), ('house', 'greedy', None))
    """
    if spec.startswith("cmd:"):
        try:
            command = shlex.split(spec[4:])
        except ValueError as exc:  # an unclosed quotation
            raise ValueError(f"--seat {spec!r}: {exc}") from None
        if not command:
            raise ValueError(f"--seat {spec!r}: no program after cmd:")
        return "cmd", command_name(command), command
    name = spec.removeprefix("house:")
    if not name:
        raise ValueError(f"--seat {spec!r}: no house bot name")
    return "house", name, None


def parse_seat_spec(spec: str) -> Entrant:
    """The lobby entrant of a ``--seat`` option (:func:`seat_spec`). Needs a running
    event loop."""
    kind, name, command = seat_spec(spec)
    return Entrant(kind, name, command=command)


class TournamentServer:
    """Tables, lobby, tokens, line listener and store (see the module doc)."""

    def __init__(self, config: ServerConfig, seats: Sequence[str] = ()) -> None:
        self.config = config
        self.store = Store(
            config.db_path,
            Retention(config.max_db_mb << 20, config.keep_days, config.compress_records),
        )
        self.tables: dict[str, Table] = {}
        self.tokens: dict[str, WsSeat] = {}
        self.line_port: int | None = None
        self.lobby = Lobby(
            self._form_lobby_table, config.lobby_wait, room=self.room, capacity=config.max_lobby
        )
        self._seat_specs = list(seats)
        self._tasks: dict[str, asyncio.Task[None]] = {}
        self._finished: OrderedDict[str, TableStatus] = OrderedDict()
        """Final statuses of finished tables (their tables are dropped from memory)."""
        self._ended_tokens: OrderedDict[str, None] = OrderedDict()
        """Tokens of the finished tables already forgotten (bounded, oldest out)."""
        self._board: tuple[float, Leaderboard] | None = None
        self._open_line_seats: deque[tuple[Table, LineSeat]] = deque()
        self.line_tokens: dict[str, tuple[Table, LineSeat]] = {}
        """Secrets of TCP line seats (a ``/token`` line picks the seat)."""
        self._line_token_of: dict[int, str] = {}
        self._factories: dict[str, BotFactory] = {}
        self._serial = 0
        self._lobby_tables = 0
        self._line_server: asyncio.Server | None = None
        self.http_port: int | None = None
        """The HTTP/WebSocket port, once bound (set by :mod:`sdk.server.runner`)."""
        self._seed_key = (
            bytes.fromhex(config.seed_key) if config.seed_key else secrets.token_bytes(32)
        )
        """Secret: lobby seeds come from it, so a finished match's seed tells nothing
        about the deals of the others."""
        self._lobby_base = (
            config.lobby_seed if config.lobby_seed is not None else secrets.randbelow(1 << 63)
        )
        self.house_pool = HousePool(config.house_workers, config.house_share)
        """House bots decide here, off the event loop, paced and at a lower priority."""
        self.guard = ConnectionGuard(
            _socket_cap(config.max_connections),
            config.max_per_address,
            config.abuse_cooldown,
            shared_networks=config.shared_networks,
        )
        """Open sockets, total and per address (HTTP, WebSocket and line TCP)."""

    # -- life cycle --

    async def start(self) -> None:
        """Open the store, start the line listener, seat the command-line bots."""
        await asyncio.to_thread(self.store.start)
        self._serial = self.store.last_serial
        config = self.config
        if config.line_port is not None:
            self._line_server = await asyncio.start_server(
                self._on_line_client, config.host, config.line_port, limit=config.max_line_bytes
            )
            self.line_port = self._line_server.sockets[0].getsockname()[1]
        for spec in self._seat_specs:
            self.lobby.join(parse_seat_spec(spec))
        log.info("\n".join(banner(config, self.http_port, self.line_port)))

    async def stop(self) -> None:
        """Stop the lobby and the listener, abort running tables, close the store."""
        self.lobby.close()
        if self._line_server is not None:
            self._line_server.close()
        tasks = list(self._tasks.values())
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        self.house_pool.shutdown(wait=False, cancel_futures=True)
        await asyncio.to_thread(self.store.close)

    # -- building tables --

    def _next_ids(self) -> tuple[int, str, str]:
        self._serial += 1
        self.store.reserve_serial(self._serial)
        return self._serial, f"t-{self._serial}", f"m-{self._serial}"

    def _factory(self, name: str) -> BotFactory:
        factory = self._factories.get(name)
        if factory is None:
            spec = self.config.house_bots.get(name)
            if spec is None:
                raise BotLoadError(
                    f"no house bot {name!r} (known: {sorted(self.config.house_bots)})"
                )
            factory = self._factories[name] = load_bot(spec)
        return factory

    def _program_plan(self, plan: _SeatPlan) -> _SeatPlan:
        """A house seat whose ``--house NAME=SPEC`` is a program (``cmd:`` / ``tcp:``)
        is started like a ``--seat cmd:`` program; other plans are unchanged."""
        if plan.kind != "house":
            return plan
        program = self._factory(plan.name).program
        if program is None:
            return plan
        return _SeatPlan(plan.seat, plan.name, "cmd", list(program.command), program=program)

    def _build(self, spec: TableSpec, plans: Sequence[_SeatPlan]) -> Table:
        config = self.config
        timing = Timing(decision_ms=spec.decision_ms, startup_ms=spec.startup_ms)
        match_config = MatchConfig(
            rules=spec.rules, hands=spec.hands, first_dealer=spec.first_dealer, timing=timing
        )
        plans = [self._program_plan(p) for p in plans]  # a house "bot" that is a program
        line_table = None
        if any(p.kind in ("line", "cmd") for p in plans):  # physical tile ids from the seed
            line_table = LineTable(lambda k, seed=spec.seed: physical_wall(hand_seed(seed, k)))
        decision = spec.decision_ms / 1000
        budget = Budget(decision=decision, safety_margin=min(0.2, decision / 4))
        seats: list[Seat] = []
        for plan in plans:
            if plan.kind == "ws":
                seat: Seat = WsSeat(
                    plan.seat, plan.name, new_token(), spec.match_id, spec.table_id, match_config
                )
            elif plan.kind == "house":
                bot = self._factory(plan.name).make(house_seed(spec.seed, plan.seat))
                seat = HouseSeat(plan.seat, plan.name, bot, spec.hands, budget, self.house_pool)
            else:
                assert line_table is not None
                spawn = None
                if plan.command is not None:
                    command, label = plan.command, f"seat {plan.seat} ({plan.name})"
                    stderr = program_log_dir(config) / f"{spec.match_id}-seat{plan.seat}.stderr"

                    def spawn(
                        command: list[str] = command,
                        label: str = label,
                        stderr_path: Path = stderr,
                        program: ProgramSpec | None = plan.program,
                    ) -> Any:
                        common: dict[str, Any] = {
                            "limit": config.max_line_bytes,
                            "rate": config.rate_per_second,
                            "burst": config.rate_burst,
                            "flood_seconds": config.flood_seconds,
                            "grace": config.subprocess_grace,
                            "stderr_path": stderr_path,
                            "stderr_bytes": config.program_stderr_bytes,
                            "startup_lines": config.startup_lines,
                            "cwd": None if program is None else program.cwd,
                        }
                        if program is not None and program.kind == "tcp":
                            wait = spec.startup_ms / 1000
                            return spawn_tcp_program(command, label, connect_seconds=wait, **common)
                        return spawn_program(command, label, **common)

                seat = LineSeat(
                    plan.seat, plan.name, line_table.add_seat(plan.seat, plan.name), spawn
                )
            seats.append(seat)
        table = Table(
            spec,
            seats,
            self.store,
            line_table=line_table,
            connect_wait=config.connect_wait,
            unattended_wait=config.unattended_wait,
        )
        now = Clock.now()
        for plan, seat in zip(plans, table.seats, strict=True):
            if isinstance(seat, WsSeat):
                self.tokens[seat.token] = seat
            elif isinstance(seat, LineSeat) and plan.channel is not None:
                seat.attach(plan.channel, now)
            elif isinstance(seat, LineSeat) and plan.command is None:
                token = new_token()
                self.line_tokens[token] = (table, seat)
                self._line_token_of[id(seat)] = token
                if not self.config.line_tokens:
                    self._open_line_seats.append((table, seat))
        return table

    def _launch(self, table: Table) -> None:
        table_id = table.spec.table_id
        self.tables[table_id] = table
        task = asyncio.get_running_loop().create_task(table.run(), name=f"table {table_id}")
        self._tasks[table_id] = task
        task.add_done_callback(lambda _: self._done(table))
        seats = ", ".join(f"{s.seat} {s.name}" for s in table.seats)
        log.info("table %s opened for match %s (%s): %s", table_id, table.spec.match_id,
                 table.spec.origin, seats)  # fmt: skip

    def room(self) -> bool:
        """Whether another table may start (``max_tables``, whoever creates it, and a
        database that can be written)."""
        return len(self._tasks) < self.config.max_tables and self.store.failing is None

    def may_create(self, authorization: str | None) -> bool:
        """Whether a client that sent this ``Authorization`` header may make a table
        (REST or the lobby: one policy): always without ``--admin-token``."""
        admin = self.config.admin_token
        if admin is None:
            return True
        given = (authorization or "").removeprefix("Bearer ")
        return same_token(given, admin)

    def _done(self, table: Table) -> None:
        """A table's task ended: keep its final status, drop the table (and its match)
        from memory after ``finished_grace`` seconds (late resumes still get ``bye``)."""
        table_id = table.spec.table_id
        self._tasks.pop(table_id, None)
        self._finished[table_id] = table.release()
        while len(self._finished) > KEEP_FINISHED:
            self._finished.popitem(last=False)
        self.lobby.poke()
        loop = asyncio.get_running_loop()
        loop.call_later(self.config.finished_grace, self._forget, table)

    def _forget(self, table: Table) -> None:
        if self.tables.get(table.spec.table_id) is table:
            del self.tables[table.spec.table_id]
        for seat in table.seats:
            if isinstance(seat, WsSeat) and self.tokens.pop(seat.token, None) is not None:
                self._ended_tokens[seat.token] = None
        while len(self._ended_tokens) > KEEP_ENDED_TOKENS:
            self._ended_tokens.popitem(last=False)
        self._open_line_seats = deque((t, s) for t, s in self._open_line_seats if t is not table)
        for seat in table.seats:
            self.line_tokens.pop(self._line_token_of.pop(id(seat), ""), None)
        table.dispose()

    def create_table(self, body: TableCreate) -> TableCreated:
        """``POST /v1/tables``: validate, build and start a table. Seats not listed get
        the lobby's house bot. Raises :class:`RequestError`."""
        config = self.config
        failing = self.store.failing
        if failing is not None:
            raise RequestError(
                503,
                ErrorCode.INTERNAL,
                f"no new tables while the database cannot be written ({failing}); running "
                "matches go on, and tables are made again once there is room",
            )
        if not self.room():
            raise RequestError(503, ErrorCode.INTERNAL, f"{config.max_tables} tables are running")
        if body.rules not in RULES:
            raise RequestError(422, ErrorCode.MALFORMED, f"rules: unknown {body.rules!r} ({RULES})")
        if timing_problem(body.timing.decision_ms, body.timing.startup_ms):
            raise RequestError(
                422,
                ErrorCode.MALFORMED,
                f"timing: decision_ms {DECISION_MS[0]}..{DECISION_MS[1]}, "
                f"startup_ms up to {STARTUP_MS_MAX}",
            )
        plans = {s: _SeatPlan(s, config.lobby_house, "house") for s in range(4)}
        for a in body.seats:
            plans[a.seat] = self._plan(a.seat, a.bot_name, a.transport, a.command)
        serial, table_id, match_id = self._next_ids()
        spec = TableSpec(
            table_id,
            match_id,
            serial,
            body.seed,
            body.hands,
            body.first_dealer,
            body.rules,
            body.timing.decision_ms,
            body.timing.startup_ms,
            "rest",
        )
        try:
            table = self._build(spec, [plans[s] for s in range(4)])
        except BotLoadError as exc:
            raise RequestError(422, ErrorCode.MALFORMED, str(exc)) from None
        self._launch(table)
        tokens = {str(s.seat): s.token for s in table.seats if isinstance(s, WsSeat)}
        for s in table.seats:
            if id(s) in self._line_token_of:
                tokens[str(s.seat)] = self._line_token_of[id(s)]
        return TableCreated(table_id=table_id, match_id=match_id, tokens=tokens)

    def _plan(self, seat: int, name: str, transport: str, command: list[str] | None) -> _SeatPlan:
        if transport == "builtin":
            if name not in self.config.house_bots:
                known = ", ".join(sorted(self.config.house_bots))
                raise RequestError(
                    422, ErrorCode.MALFORMED, f"seat {seat}: no house bot {name!r} ({known})"
                )
            return _SeatPlan(seat, name, "house")
        if transport == "line":
            try:
                StartLine(seat, name)
            except LineError:
                raise RequestError(
                    422,
                    ErrorCode.MALFORMED,
                    f"seat {seat}: a line-protocol seat's bot_name is its name in "
                    f"'/start MJ <seat> <name>', one ASCII word, not {name!r}",
                ) from None
            if command:
                if not self.config.allow_commands:
                    raise RequestError(
                        403,
                        ErrorCode.MALFORMED,
                        "this server does not start programs for REST tables (--allow-commands)",
                    )
                return _SeatPlan(seat, name, "cmd", command=list(command))
            if self._line_server is None:
                raise RequestError(
                    422,
                    ErrorCode.MALFORMED,
                    f"seat {seat}: no line-protocol listener (--line-port)",
                )
            return _SeatPlan(seat, name, "line")
        return _SeatPlan(seat, name, "ws")

    def _form_lobby_table(self, entrants: Sequence[Entrant | None]) -> None:
        """Build and start a lobby table (seat order given); hand out the seats."""
        config = self.config
        serial, table_id, match_id = self._next_ids()
        seed = derive_seed(self._seed_key, self._lobby_base, self._lobby_tables)
        self._lobby_tables += 1
        plans = []
        for seat, entrant in enumerate(entrants):
            if entrant is None:
                plans.append(_SeatPlan(seat, config.lobby_house, "house"))
            else:
                plans.append(
                    _SeatPlan(seat, entrant.name, entrant.kind, entrant.command, entrant.channel)
                )
        spec = TableSpec(
            table_id,
            match_id,
            serial,
            seed,
            config.lobby_hands,
            0,
            RULES[0],
            config.lobby_decision_ms,
            config.lobby_startup_ms,
            "lobby",
        )
        table = self._build(spec, plans)
        self._launch(table)
        for seat, entrant in zip(table.seats, entrants, strict=True):
            if entrant is not None and not entrant.seat.done():
                entrant.seat.set_result(seat)

    # -- connections --

    def seat_for_token(self, token: str) -> WsSeat | None:
        """The protocol v1 seat whose secret is ``token``."""
        return self.tokens.get(token)

    def token_ended(self, token: str) -> bool:
        """Whether ``token`` was a seat's of a finished table this server has since
        dropped from memory (the last :data:`KEEP_ENDED_TOKENS` of them)."""
        return token in self._ended_tokens

    async def _on_line_client(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        """A line-protocol program connected over TCP: give it a table's open line seat,
        else send it to the lobby."""
        if not self.guard.admit(writer.transport):
            writer.transport.abort()
            return
        peer = writer.get_extra_info("peername")
        label = f"line client {peer[0]}:{peer[1]}" if peer else "line client"
        config = self.config
        channel = LineChannel(
            reader,
            writer,
            label,
            rate=config.rate_per_second,
            burst=config.rate_burst,
            flood_seconds=config.flood_seconds,
        )
        token = await self._line_token(channel)
        if channel.gone:  # it left, or was cut off: no seat, no lobby place
            log.info("%s: gone before it was seated", label)
            await channel.close()
            return
        self.guard.settle(writer.transport)  # a program, not a stray connection
        if token is not None:
            table, seat = self.line_tokens.get(token, (None, None))
            if table is None or seat is None or table.state != "waiting" or seat.channel:
                log.info("%s: unknown or used line seat token; closing", label)
                await channel.close()
                return
            seat.attach(channel, Clock.now())
            return
        while self._open_line_seats:
            table, seat = self._open_line_seats.popleft()
            if table.state == "waiting" and seat.channel is None:
                seat.attach(channel, Clock.now())
                return
        if not self.may_create(None):
            log.info("%s: no open line seat, and the lobby needs the admin token", label)
            writer.transport.abort()
            return
        try:
            self.lobby.join(Entrant("line", "tcp-line", channel=channel))
        except LobbyFullError as exc:
            log.info("%s: %s", label, exc)
            writer.transport.abort()

    async def _line_token(self, channel: LineChannel) -> str | None:
        """The seat token a TCP line program sends first (``/token <secret>``), if it
        sends one within ``line_token_wait`` seconds; programs that know nothing of
        tokens say nothing before ``/start``."""
        try:
            line = await asyncio.wait_for(channel.read_line(), self.config.line_token_wait)
        except TimeoutError:
            return None
        except LineTooLongError:  # not a program that lost its token: no seat for it
            log.info("%s: its first line is over the limit; closing", channel.label)
            await channel.close()
            return None
        if line is None or not line.startswith(LINE_TOKEN + " "):
            return None
        return line[len(LINE_TOKEN) + 1 :].strip()

    # -- queries --

    def table_status(self, table_id: str) -> TableStatus | None:
        """A live table's status, or ``None``."""
        table = self.tables.get(table_id)
        if table is not None:  # also just over: its final status, kept when it ended
            return table.status()
        return self._finished.get(table_id)

    async def stored_table(self, table_id: str) -> TableStatus | None:
        """A table no longer in memory, from the store."""
        rows = await asyncio.wrap_future(
            self.store.call(
                lambda db: db.execute(
                    "SELECT match_id FROM matches WHERE table_id=?", (table_id,)
                ).fetchone()
            )
        )
        if rows is None:
            return None
        stored = await asyncio.wrap_future(self.store.load_match(rows[0], with_log=False))
        return None if stored is None else _stored_status(stored)

    async def list_tables(
        self, limit: int = LIST_LIMIT, before: int | None = None
    ) -> tuple[list[TableStatus], int | None]:
        """One page of tables, newest first: at most ``limit`` whose serial is below
        ``before``; and the ``before`` of the next page (``None``: this is the last)."""
        limit = max(1, min(limit, LIST_MAX))
        top = (1 << 62) if before is None else before
        page: dict[int, TableStatus] = {}
        for table in self.tables.values():
            serial = table.spec.serial
            if serial < top:
                page[serial] = self.table_status(table.spec.table_id) or table.status()
        stored = await asyncio.wrap_future(self.store.load_matches(limit, top))
        for match in stored:
            page.setdefault(
                match.row.serial, self._finished.get(match.row.table_id) or _stored_status(match)
            )
        serials = sorted(page, reverse=True)[:limit]
        more = len(serials) == limit and (len(page) > limit or len(stored) == limit)
        return [page[s] for s in serials], (serials[-1] if more else None)

    async def load_log(self, match_id: str) -> StoredMatch:
        """A finished (or aborted) match with its log; :class:`RequestError` otherwise.
        The log shows every concealed tile, so it is never served while the match runs."""
        for table in self.tables.values():
            if table.spec.match_id == match_id and not table.over:
                raise RequestError(409, ErrorCode.CONFLICT, "the log is served after the match")
        stored = await asyncio.wrap_future(self.store.load_match(match_id))
        if stored is None:
            raise RequestError(404, ErrorCode.NOT_FOUND, f"no match {match_id!r}")
        if stored.status == "running":
            raise RequestError(409, ErrorCode.CONFLICT, "the log is served after the match")
        if stored.status == "incomplete":
            raise RequestError(
                410,
                ErrorCode.NOT_FOUND,
                f"match {match_id!r} has no record: it was played while the database could "
                "not be written, so its record is incomplete",
            )
        if stored.log == "pruned":
            raise RequestError(
                410,
                ErrorCode.NOT_FOUND,
                f"the record of match {match_id!r} was pruned by the server's retention "
                "policy (--keep-days, --max-db-mb); its result is still listed",
            )
        return stored

    async def off_loop(self, work: Callable[[], T]) -> T:
        """Run CPU work of a REST answer (building and encoding a long record) in a
        worker thread rather than on the event loop."""
        return await asyncio.to_thread(work)

    async def load_record(self, match_id: str) -> Record:
        """The game record of a finished (or aborted) match (:mod:`sdk.records`);
        :class:`RequestError` as :meth:`load_log`. Built off the event loop (it replays
        the match on the referee)."""
        stored = await self.load_log(match_id)
        return await self.off_loop(lambda: record_of(stored))

    async def leaderboard(self) -> Leaderboard:
        """Computed at most every ``LEADERBOARD_TTL`` seconds (it reads every match)."""
        now = Clock.now()
        if self._board is not None and now - self._board[0] < LEADERBOARD_TTL:
            return self._board[1]
        board = await self._compute_leaderboard()
        self._board = (now, board)
        return board

    async def _compute_leaderboard(self) -> Leaderboard:
        """The leaderboard of finished matches (:mod:`sdk.server.ratings`)."""
        matches = await asyncio.wrap_future(self.store.finished_matches())
        return await asyncio.to_thread(rank_bots, matches, self.config.leaderboard_min_hands)


def _stored_status(stored: StoredMatch) -> TableStatus:
    row = stored.row
    seats = [
        SeatStatus(
            seat=s["seat"],
            bot_name=s["bot_name"],
            transport=s["transport"],
            connected=False,
            ready=False,
        )
        for s in row.config.get("seats", [])
    ]
    return TableStatus(
        table_id=row.table_id,
        match_id=row.match_id,
        status=stored.status if stored.status != "running" else "aborted",  # type: ignore[arg-type]
        hand_no=max(0, min(stored.hands_played, row.hands) - 1),
        hands=row.hands,
        seats=seats,
        scores=stored.scores,
    )


def match_log_body(stored: StoredMatch) -> MatchLog:
    """The ``MatchLog`` REST body of a stored match."""
    row = stored.row
    return MatchLog(
        match_id=row.match_id,
        table_id=row.table_id,
        seed=row.seed,
        hands=row.hands,
        seat_names=row.seat_names,
        events=stored.events,
        scores=stored.scores,
    )
