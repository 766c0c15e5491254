"""What a competitor runs: the Bot base class, runners, transports, arena and server."""
