"""What the server tells the person who started it: its front page, where to connect,
the lobby's rules and where records are served. (Tables log when they open, matches when they start and
end, with their ids and record path: :mod:`sdk.server.core`, :mod:`sdk.server.table`.)

>>> config = ServerConfig(port=8765, line_port=None)
>>> print("\\n".join(banner(config, 8765, None)))
taimahjong server 0.1.0
  pages      http://127.0.0.1:8765/   matches (watch them live) and the leaderboard
  WebSocket  ws://127.0.0.1:8765/v1/ws   bots: python mybot.py --url ws://127.0.0.1:8765/v1/ws
  REST       http://127.0.0.1:8765/v1/   tables, logs, leaderboard (docs/SERVER.md)
  line port  off (--line-port PORT lets line-protocol programs connect over TCP)
  lobby      a bot without a token waits; after 5 s house bots (greedy) fill its table; 16 hands, 3000 ms a decision
  records    http://127.0.0.1:8765/v1/matches/{match_id}/log.jsonl (once a match is over)
  database   taimahjong-server.db
>>> record_url("127.0.0.1", 8765, "m-3")
'http://127.0.0.1:8765/v1/matches/m-3/log.jsonl'
"""

from __future__ import annotations

from sdk.server.config import SERVER_VERSION, ServerConfig

__all__ = ["banner", "record_url"]


def record_url(host: str, port: int | None, match_id: str) -> str:
    """Where a match's record is served once it is over (``GET .../log.jsonl``)."""
    base = f"http://{host}:{port}" if port else ""
    return f"{base}/v1/matches/{match_id}/log.jsonl"


def banner(config: ServerConfig, http_port: int | None, line_port: int | None) -> list[str]:
    """The start-up lines: the front page, the WebSocket URL, REST, the line port, the lobby policy."""
    host = config.host
    ws = f"ws://{host}:{http_port}/v1/ws"
    line = (
        f"{host}:{line_port}   programs: python mybot.py --tcp {host}:{line_port}"
        if line_port is not None
        else "off (--line-port PORT lets line-protocol programs connect over TCP)"
    )
    lobby = (
        f"a bot without a token waits; after {config.lobby_wait:g} s house bots "
        f"({config.lobby_house}) fill its table; {config.lobby_hands} hands, "
        f"{config.lobby_decision_ms} ms a decision"
    )
    return [
        f"taimahjong server {SERVER_VERSION}",
        f"  pages      http://{host}:{http_port}/   matches (watch them live) and the leaderboard",
        f"  WebSocket  {ws}   bots: python mybot.py --url {ws}",
        f"  REST       http://{host}:{http_port}/v1/   tables, logs, leaderboard (docs/SERVER.md)",
        f"  line port  {line}",
        f"  lobby      {lobby}",
        f"  records    {record_url(host, http_port, '{match_id}')} (once a match is over)",
        f"  database   {config.db_path}",
    ]
