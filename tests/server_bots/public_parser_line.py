"""A line-protocol program that reads the referee's lines as strictly as the public
client of the 2023 Computer Olympiad winner does (``tcga-line-protocol.md``, "What the
public software actually does"; issue #32), and answers as a transcript says, for the
conformance kit's tests (standard library only):

* a draw is ``/mo <id>``; any command it does not know (``/draw``) aborts it;
* the echo of its own chow is read with the taken tile in the middle: if the middle id
  is not the tile just discarded, or the other two are not the ones it chowed with, it
  aborts (``abort()``, ``SIGABRT``, as a failed C++ assertion would);
* ``/start`` may end after the seat; ``/initGame`` is read for its dealer only; any
  ``/exit`` ends it.

    python tests/server_bots/public_parser_line.py TRANSCRIPT
"""

from __future__ import annotations

import os
import sys


def _replies(path: str) -> list[str]:
    """The transcript's replies (``>`` steps), in order."""
    with open(path, encoding="ascii") as f:
        return [line[2:].strip() for line in f if line.startswith("> ")]


def _abort(why: str) -> None:
    sys.stderr.write(f"public parser: {why}\n")
    sys.stderr.flush()
    os.abort()


def main() -> None:
    replies = iter(_replies(sys.argv[1]))
    seat, discard, chowed = "", "", ()
    for raw in sys.stdin:
        words = raw.rstrip("\r\n").split(" ")
        command = words[0]
        if command == "/start":
            seat = words[2]
        elif command == "/initGame":
            int(words[4])  # the dealer
        elif command in ("/initCard", "/mo", "/pong", "/gong", "/hu"):
            pass
        elif command == "/throw":
            discard = words[2]
        elif command == "/eat":
            if words[1] == seat and (words[3] != discard or {words[2], words[4]} != set(chowed)):
                _abort(f"chow echo {' '.join(words)!r}: expected the taken {discard} in the middle")
        elif command in ("/ask", "/ready"):
            reply = next(replies)
            if reply.startswith("/eat"):
                chowed = tuple(reply.split()[1:])
            sys.stdout.write(reply + "\n")
            sys.stdout.flush()
        elif command in ("/exit", "/close"):
            return
        else:
            _abort(f"unknown command {command!r}")


if __name__ == "__main__":
    main()
