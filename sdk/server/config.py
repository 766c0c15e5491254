"""Limits and defaults of the tournament server, in one dataclass.

Everything a league organiser may tune lives here, so the rest of the server reads plain
attributes instead of parsing options. The command line (:mod:`sdk.server.__main__`)
builds one of these.

>>> ServerConfig().host, ServerConfig().max_frame_bytes
('127.0.0.1', 65536)
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["DEFAULT_HOUSE_BOTS", "SERVER_VERSION", "ServerConfig"]

SERVER_VERSION = "0.1.0"
"""Reported by ``GET /v1/health``."""

DEFAULT_HOUSE_BOTS: dict[str, str] = {
    "random": "bots.random",
    "greedy": "bots.greedy",
    "defensive": "bots.defensive",
}
"""House bot names a table may ask for, and the loader spec of each
(:func:`sdk.arena.loader.load_bot`). Only names listed here are accepted over REST, so a
client cannot make the server import arbitrary modules."""


@dataclass(slots=True)
class ServerConfig:
    """The server's network endpoints, persistence, lobby, clock and abuse limits."""

    host: str = "127.0.0.1"
    """Interface to bind (loopback by default; the server has no TLS)."""
    port: int = 8765
    """HTTP and WebSocket port (0: any free port)."""
    line_port: int | None = None
    """TCP port for line-protocol programs (``None``: no listener; 0: any free port)."""
    db_path: str = "taimahjong-server.db"
    """SQLite file (``":memory:"`` keeps nothing across restarts)."""
    max_db_mb: int = 4096
    """The database's size limit in MiB (0: none). Past 90 % of it the logs of the
    oldest matches are pruned until it is under 80 % (their rows and results stay); a
    write past the limit fails like a full disk (new tables refused until there is room)."""
    keep_days: float = 0.0
    """Logs of matches finished longer ago than this many days are pruned (0: kept
    until the size limit needs their room)."""
    compress_records: bool = True
    """Pack a finished match's hands into one compressed row (about 12x smaller)."""

    # -- lobby --
    lobby_wait: float = 5.0
    """Seconds the oldest waiting bot waits before empty seats get house bots."""
    lobby_house: str = "greedy"
    """The house bot that fills lobby tables."""
    lobby_hands: int = 16
    lobby_decision_ms: int = 3000
    lobby_startup_ms: int = 30000
    max_lobby: int = 64
    """Bots waiting in the lobby at once; more are refused (``rate_limited``)."""
    lobby_seed: int | None = None
    """Base of lobby seeds: table ``n`` gets a keyed hash of ``(lobby_seed, n)`` with
    ``seed_key``, published with its record after the match. ``None``: a random base."""
    seed_key: str | None = None
    """Secret key (hex) lobby seeds are derived from; ``None``: a random key per start.
    Give it (with ``lobby_seed``) to replay a league's lobby tables; keep it secret."""

    # -- tables --
    house_bots: dict[str, str] = field(default_factory=lambda: dict(DEFAULT_HOUSE_BOTS))
    house_workers: int = 1
    """Threads house bots decide in (off the event loop; a slow house bot delays other
    house bots, never a connection). One: house bots share the interpreter's lock with
    the event loop, so more threads would take more of the loop's time, not add any."""
    house_share: float = 0.25
    """Most of the time house bots may spend thinking: after a decision that took ``t``
    of CPU a worker rests ``t * (1 / house_share - 1)`` before its next one, so house
    tables cannot take the interpreter from the connections (1: no rest)."""
    allow_commands: bool = False
    """Whether ``POST /v1/tables`` may start programs (``line`` seats with a
    ``command``). Off by default: anyone who can reach the port could run anything.
    Commands given on the server's own command line (``--seat cmd:...``) always run."""
    line_tokens: bool = True
    """Bind TCP line seats to their tokens (the default): a program must send
    ``/token <secret>`` first to take its seat, so no other client can take it first;
    a program that sends no token goes to the lobby. Off (``--open-line-seats``): a
    program that sends no token takes the first open line seat (a token, when sent,
    still picks the seat, unless a tokenless program took it first)."""
    line_token_wait: float = 0.5
    """Seconds a new TCP line connection has to send its ``/token`` line."""
    connect_wait: float = 300.0
    """Seconds a created table waits for its remote bots before it starts without them
    (absent seats are played by the R17 default until they connect)."""
    unattended_wait: float = 60.0
    """A table whose remote seats (``ws``, ``line``) are all disconnected pauses; after
    this many seconds it is aborted (its finished hands are kept). A table of house bots
    only is always attended."""
    finished_grace: float = 10.0
    """Seconds a finished table stays in memory (a bot that resumes late still gets
    ``bye``); then only its final status is kept, and its record is on disk."""
    max_tables: int = 512
    """Tables running or waiting at once; more are refused (HTTP 503)."""
    leaderboard_min_hands: int = 64
    """Hands a bot must have played to be ranked on the leaderboard (listed before)."""
    admin_token: str | None = None
    """If set, making a table needs it: ``POST /v1/tables`` and a lobby ``hello``
    (without a seat token) need ``Authorization: Bearer <admin_token>`` (on the
    WebSocket handshake for the lobby); TCP line clients cannot join the lobby."""

    api_docs: bool = False
    """Serve ``/docs``, ``/redoc`` and ``/openapi.json`` (off: a public server need not
    describe itself to anyone who asks)."""

    # -- abuse limits --
    rest_rate: float = 20.0
    """REST requests a second per client address (WebSocket frames are metered apart)..."""
    rest_burst: int = 40
    """...with bursts of this many; beyond, ``429`` with code ``rate_limited``."""
    rest_concurrency: int = 8
    """REST requests one client address may have in progress at once; beyond, ``429``."""
    max_body_bytes: int = 65536
    """Largest REST request body; a larger one is refused (``413``) while it is read."""
    rest_body_timeout: float = 5.0
    """Seconds a REST request has to send its whole body; then ``408``, closed. A request
    still sending its body does not count against ``rest_concurrency``."""
    max_frame_bytes: int = 65536
    """Largest client WebSocket frame accepted (client frames are under 1 KiB)."""
    max_line_bytes: int = 1024
    """Longest line a line-protocol program may send (the protocol's are under 255)."""
    rate_per_second: float = 20.0
    """Frames (or lines) per second a connection may send on average, on top of one
    per answer the server asked for..."""
    rate_burst: int = 50
    """...with bursts of this many; beyond, reading slows down to the rate (throttling)..."""
    flood_seconds: float = 2.0
    """...and a connection that stays over the rate this long is disconnected."""
    max_outbox: int = 10000
    """Frames queued for a client that does not read; beyond, it is disconnected..."""
    max_outbox_bytes: int = 1 << 20
    """...or bytes of them, whichever comes first (it may reconnect and resume)."""
    max_write_buffer: int = 1 << 20
    """Bytes the socket may hold unsent for a WebSocket peer (frames, pongs); a peer
    that lets more pile up (it never reads) is disconnected."""
    max_connections: int = 2048
    """Open sockets at once (HTTP, WebSocket, line-protocol TCP); more are closed at
    once. Keep it under the process's file-descriptor limit."""
    max_per_address: int = 512
    """Open sockets from one address (a table needs four; the lobby one per bot)."""
    shared_networks: list[str] = field(default_factory=lambda: ["127.0.0.0/8", "::1/128"])
    """Networks whose addresses many clients share (loopback: every local client; add a
    NAT's or a proxy's): there the per-address limits above tell clients apart instead.
    The REST rate and at-once limits are per connection, an abuse bar falls on the seat
    token of the connection cut off, and a connection over ``max_per_address`` closes
    the address's oldest unsettled one rather than being refused. Empty: every address
    is one client (the per-address limits everywhere)."""
    handshake_timeout: float = 10.0
    """Seconds a new connection has to send its request headers (then, for a
    WebSocket, its ``hello``); one that does not is closed."""
    abuse_cooldown: float = 2.0
    """Seconds an address is barred (its new connections closed on accept) after one of
    its WebSocket connections was cut off for sending too many pings or not reading what
    it is sent (a flooder of frames is throttled and cut, its address not barred)."""
    accept_log_interval: float = 10.0
    """Failed ``accept()`` calls (descriptors exhausted) are logged once per interval."""
    subprocess_grace: float = 2.0
    """Seconds a program gets to exit after ``/exit`` before its process group is killed."""
    program_log_dir: str | None = None
    """Where started programs' standard error goes, one file per match and seat
    (``None``: ``program-logs`` next to the database, or in the temporary directory)."""
    program_stderr_bytes: int = 1 << 20
    """Bytes of a started program's standard error kept in its file."""
    startup_lines: int = 10000
    """Lines a program may print before its first ``/ask`` (start-up noise, ignored)."""
