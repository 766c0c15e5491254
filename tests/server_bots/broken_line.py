"""A deliberately broken line-protocol program, for the conformance kit's tests
(standard library only). It answers ``/ready`` properly, then its n-th ``/ask``:

1. with a tile id it does not hold (``/throw 999`` is not even an id; it sends 473,
   a tile nobody dealt it);
2. late (after ``--sleep`` seconds);
3. with garbage (``/dance 42``);
4. and from then on ``/pass``.
"""

from __future__ import annotations

import argparse
import sys
import time


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sleep", type=float, default=4.0)
    args = parser.parse_args()
    asks = 0
    for raw in sys.stdin:
        line = raw.strip()
        if line == "/ready":
            reply = "/ready"
        elif line.startswith("/ask"):
            asks += 1
            if asks == 1:
                reply = "/throw 473"
            elif asks == 2:
                time.sleep(args.sleep)
                reply = "/pass"
            elif asks == 3:
                reply = "/dance 42"
            else:
                reply = "/pass"
        elif line.startswith("/exit"):
            return
        else:
            continue
        sys.stdout.write(reply + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
