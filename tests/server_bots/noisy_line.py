"""A line-protocol program with the habits of programs built from public tournament code:

* it prints ``--noise`` lines of its own on standard output before the first ask;
* it writes ``--stderr-bytes`` bytes to standard error;
* it starts a child process that sleeps, and writes both pids to ``--pids``;
* with ``--detach``, also a daemon: a grandchild in a session of its own (``setsid``)
  whose parent exits at once, so it is re-parented away from the program; it writes its
  pid once in its session;
* after ``/exit`` it busy-loops instead of exiting (``--then-exit``: it exits).

In between it plays with :mod:`tests.server_bots.line_bot`'s loop (``bots.random``).

    python tests/server_bots/noisy_line.py --pids pids.txt --noise 300 --stderr-bytes 3000000
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from line_bot import _lines_stdio, play

from sdk.arena.loader import load_bot

_DAEMON = """
import os, sys, time
if os.fork():
    os._exit(0)
os.setsid()
with open(sys.argv[1], "a") as f:
    f.write(f"{os.getpid()}\\n")
time.sleep(600)
"""
"""A daemon's double fork: the intermediate exits at once, the grandchild makes a session
of its own, then writes its pid."""


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pids", required=True)
    parser.add_argument("--noise", type=int, default=300)
    parser.add_argument("--stderr-bytes", type=int, default=0)
    parser.add_argument("--detach", action="store_true")
    parser.add_argument("--then-exit", action="store_true")
    args = parser.parse_args()
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    Path(args.pids).write_text(f"{child.pid}\n")
    if args.detach:
        quiet = subprocess.DEVNULL
        subprocess.run([sys.executable, "-c", _DAEMON, args.pids], stdin=quiet, stdout=quiet)
    for n in range(args.noise):
        print(f"MCTS client v0.{n}: loading tables... ok", flush=True)
    chunk = b"x" * 65536
    written = 0
    while written < args.stderr_bytes:
        sys.stderr.buffer.write(chunk)
        written += len(chunk)
    sys.stderr.flush()
    with Path(args.pids).open("a") as f:
        f.write(f"{__import__('os').getpid()}\n")
    lines, write = _lines_stdio()
    play(load_bot("bots.random").make(5), lines, write, "play")
    if args.then_exit:
        return
    while True:  # busy-loop after the game, as some public clients do
        pass


if __name__ == "__main__":
    main()
