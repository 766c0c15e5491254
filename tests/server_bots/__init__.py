"""Bots that play against the local server in its tests: a protocol v1 client
(:mod:`server_bots.wsbot`) and a line-protocol program (``line_bot.py``, run as a
subprocess on stdin/stdout or connected over TCP)."""
