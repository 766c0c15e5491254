"""A line-protocol program that misbehaves on purpose, for the arena and league tests.

    python tests/line_programs/faulty.py --faults late@2,illegal@4,malformed@6,crash@9

It plays the R17 default of every decision (through
:class:`~protocol.line.client.LineClientAdapter`) except at the decisions named in
``--faults`` (counted from 1 in each match): ``late@K`` answers K after ``--late``
seconds, ``illegal@K`` throws a tile it does not hold, ``malformed@K`` answers a line
that is not the protocol, ``silent@K`` stops answering from K on (a hung program),
``crash@K`` exits with code 3 at K. ``--flood N`` writes N bytes to standard error at
start; ``--child FILE`` leaves a child process behind (its pid written to FILE).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time

from protocol.line.client import LineClientAdapter
from protocol.line.tile_ids import ALL_TILE_IDS
from protocol.wire.common import ActionRequest, SessionEnd


def write(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def answer(adapter: LineClientAdapter, request: ActionRequest, fault: str, late: float) -> None:
    line = adapter.send_action(request.default)
    if fault == "silent":
        time.sleep(3600)
    if fault == "crash":
        sys.exit(3)
    if fault == "late":
        time.sleep(late)
    elif fault == "malformed":
        line = "/dance 42"
    elif fault == "illegal" and line.startswith("/throw"):
        line = "/throw " + str(next(t for t in ALL_TILE_IDS if t not in adapter.hand_ids))
    write(line)


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--faults", default="")
    p.add_argument("--late", type=float, default=1.0)
    p.add_argument("--flood", type=int, default=0)
    p.add_argument("--child", default=None)
    args = p.parse_args()
    faults = {int(k): name for name, k in (f.split("@") for f in args.faults.split(",") if f)}
    if args.flood:
        sys.stderr.write("x" * args.flood)
        sys.stderr.flush()
    if args.child:
        child = subprocess.Popen(["sleep", "600"])
        with open(args.child, "a") as out:
            out.write(f"{child.pid}\n")
    adapter = LineClientAdapter()
    decisions = 0
    for raw in sys.stdin:
        for item in adapter.receive_line(raw.rstrip("\r\n")):
            if isinstance(item, SessionEnd):
                return
            if isinstance(item, ActionRequest):
                decisions += 1
                answer(adapter, item, faults.get(decisions, ""), args.late)
        for line in adapter.lines_to_send():
            write(line)


if __name__ == "__main__":
    main()
