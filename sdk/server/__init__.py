"""The local tournament server: protocol v1 over WebSocket, REST, and the tournament line
protocol over TCP and subprocess pipes, with the R17 clock, SQLite persistence and a
lobby.

Start it with ``python -m sdk.server`` (see ``docs/SERVER.md``), or embed it:

* :class:`~sdk.server.config.ServerConfig`: every limit and default, a dataclass;
* :class:`~sdk.server.core.TournamentServer`: tables, lobby, store and line listener;
* :func:`~sdk.server.app.create_app`: the ASGI app (REST under ``/v1`` and ``/v1/ws``);
* :func:`~sdk.server.runner.running_server`: an async context manager that serves on
  loopback sockets (tests, benchmarks, embedding).
"""

from sdk.server.config import ServerConfig

__all__ = ["ServerConfig"]
