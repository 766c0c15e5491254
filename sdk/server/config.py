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

    # -- lobby --
    lobby_wait: float = 5.0
    """Seconds the oldest waiting bot waits before empty seats get house bots."""
    lobby_house: str = "greedy"
    """The house bot that fills lobby tables."""
    lobby_hands: int = 16
    lobby_decision_ms: int = 3000
    lobby_startup_ms: int = 30000
    lobby_seed: int | None = None
    """Seed of the first lobby table (then +1 per table); ``None``: random seeds."""

    # -- tables --
    house_bots: dict[str, str] = field(default_factory=lambda: dict(DEFAULT_HOUSE_BOTS))
    allow_commands: bool = False
    """Whether ``POST /v1/tables`` may start programs (``line`` seats with a
    ``command``). Off by default: anyone who can reach the port could run anything.
    Commands given on the server's own command line (``--seat cmd:...``) always run."""
    connect_wait: float = 300.0
    """Seconds a created table waits for its remote bots before it starts without them
    (absent seats are played by the R17 default until they connect)."""
    max_tables: int = 512
    """Tables running or waiting at once; more are refused (HTTP 503)."""
    admin_token: str | None = None
    """If set, ``POST /v1/tables`` needs ``Authorization: Bearer <admin_token>``."""

    # -- abuse limits --
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
    """Frames queued for a client that does not read; beyond, it is disconnected."""
    subprocess_grace: float = 2.0
    """Seconds a program gets to exit after ``/exit`` before its process group is killed."""
    program_log_dir: str | None = None
    """Where started programs' standard error goes, one file per match and seat
    (``None``: ``program-logs`` next to the database, or in the temporary directory)."""
    program_stderr_bytes: int = 1 << 20
    """Bytes of a started program's standard error kept in its file."""
    startup_lines: int = 10000
    """Lines a program may print before its first ``/ask`` (start-up noise, ignored)."""
