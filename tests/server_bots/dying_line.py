"""A line-protocol program that dies at its first ``/ask``, for the conformance kit's
tests (standard library only): it answers ``/ready``, then at the first ask

* ``--how segv``: kills itself with ``SIGSEGV`` (a crash by signal);
* ``--how exit``: exits with code 3;
* ``--how close``: closes its standard output and sleeps (alive, but nothing more will
  come).
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import time


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--how", choices=["segv", "exit", "close"], required=True)
    args = parser.parse_args()
    for raw in sys.stdin:
        line = raw.strip()
        if line == "/ready":
            sys.stdout.write("/ready\n")
            sys.stdout.flush()
        elif line.startswith("/ask"):
            if args.how == "segv":
                os.kill(os.getpid(), signal.SIGSEGV)
            if args.how == "exit":
                sys.exit(3)
            sys.stdout.close()
            os.close(1)
            time.sleep(60)


if __name__ == "__main__":
    main()
