"""A scripted line-protocol program that behaves like the public tournament client:
standard library only, it keeps its own tile ids and removes the tiles of a claim from
its hand the moment it answers ``/eat``, ``/pong`` or ``/gong``, before the referee
confirms. It claims whenever asked, throws its newest tile otherwise.

    python tests/server_bots/eager_line.py --report out.json     # stdin/stdout

Every echo that does not match what it did (a claim answered but not applied, or ids
it does not hold) is a mismatch; at ``/exit`` it writes ``{"mismatches": n, "asks": n,
"claims": n}`` to the report file.
"""

from __future__ import annotations

import argparse
import json
import sys


class EagerClient:
    def __init__(self) -> None:
        self.seat = 0
        self.hand: list[int] = []
        self.my_turn = False
        self.last: tuple[int, int] | None = None  # (seat, id) of the latest discard
        self.answered: tuple[str, tuple[int, ...]] | None = None  # claim awaiting its echo
        self.banned: int | None = None  # the kind we may not throw now (R6)
        self.mismatches, self.asks, self.claims = 0, 0, 0
        self.notes: list[str] = []

    def mismatch(self, why: str) -> None:
        self.mismatches += 1
        self.notes.append(why)

    def on_line(self, line: str) -> list[str]:
        words = line.split()
        if not words:
            return []
        cmd, args = words[0], words[1:]
        if cmd == "/ask":
            self.asks += 1
            return [self.ask(args[0])]
        if cmd == "/ready":
            return ["/ready"]
        if self.answered is not None and not self.is_my_echo(cmd, args):
            self.mismatch(f"claim {self.answered} answered but {line!r} came next")
            self.answered = None
        if cmd == "/start":
            self.seat = int(args[1])
        elif cmd == "/initGame":
            self.hand, self.last, self.banned = [], None, None
        elif cmd == "/initCard":
            self.hand = [int(a) for a in args]
            self.my_turn = len(args) == 17
        elif cmd in ("/mo", "/draw"):
            self.hand.append(int(args[0]))
            self.my_turn = True
        elif cmd == "/throw":
            self.my_turn = False
            seat, tid = int(args[0]), int(args[1])
            self.last = (seat, tid)
            if seat == self.seat and tid in self.hand:
                self.mismatch(f"{line!r}: we still hold {tid}")
        return []

    def is_my_echo(self, cmd: str, args: list[str]) -> bool:
        assert self.answered is not None
        word, own = self.answered
        if cmd != word or int(args[0]) != self.seat:
            return False
        ids = [int(a) for a in args[2 if cmd == "/gong" else 1 :]]
        if not set(own) <= set(ids):
            self.mismatch(f"echo {cmd} {args} does not name our ids {own}")
        self.answered = None
        self.my_turn = True
        return True

    def ask(self, what: str) -> str:
        if what == "hu":
            return "/hu"
        if what == "throw":
            return self.throw()
        if what == "gong" and self.my_turn:
            return "/pass"  # no kong of our own
        assert self.last is not None
        tid = self.last[1]
        kind = tid // 10
        same = [t for t in self.hand if t // 10 == kind]
        if what == "gong":
            return self.claim("/gong", same[:3], "/gong 4")
        if what == "pong":
            return self.claim("/pong", same[:2], "/pong") if len(same) >= 2 else "/pass"
        if what == "eat":
            pair = self.chow_pair(kind)
            return self.claim("/eat", pair, "/eat") if pair else "/pass"
        return "/pass"

    def claim(self, word: str, ids: list[int], reply: str) -> str:
        for t in ids:  # as the public client does: out of the hand at once
            self.hand.remove(t)
        self.answered = (word, tuple(ids))
        self.claims += 1
        if word != "/gong" and self.last:
            self.banned = self.last[1] // 10
        return " ".join([reply, *map(str, ids)])

    def chow_pair(self, kind: int) -> list[int] | None:
        if kind // 10 > 3:
            return None
        for a, b in ((-2, -1), (-1, 1), (1, 2)):
            x = [t for t in self.hand if t // 10 == kind + a]
            y = [t for t in self.hand if t // 10 == kind + b]
            if x and y and (kind + a) // 10 == (kind + b) // 10 == kind // 10:
                rest = [t for t in self.hand if t not in (x[0], y[0])]
                if any(t // 10 != kind for t in rest):  # R6: a discard must remain
                    return [x[0], y[0]]
        return None

    def throw(self) -> str:
        allowed = [t for t in self.hand if t // 10 != self.banned] or self.hand
        tid = allowed[-1]
        self.hand.remove(tid)
        self.banned = None
        return f"/throw {tid}"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--report", required=True)
    args = parser.parse_args()
    client = EagerClient()
    for raw in sys.stdin:
        line = raw.strip()
        if line.startswith(("/exit", "/close")):
            break
        for reply in client.on_line(line):
            sys.stdout.write(reply + "\n")
            sys.stdout.flush()
    report = {"mismatches": client.mismatches, "asks": client.asks, "claims": client.claims}
    report["notes"] = client.notes[:20]
    with open(args.report, "w") as f:
        json.dump(report, f)


if __name__ == "__main__":
    main()
