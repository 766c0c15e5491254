"""Every form of a referee line the shipped transcripts use, and the public source that
says a public referee sends it (``/work/shared/protocol/tcga-line-protocol.md`` sums the
sources up: the 2014 ICGA Journal paper and its protocol appendix as quoted, a 2019
thesis, and the open-source client of the 2023 Computer Olympiad winner with its
referee simulator and logs).

A transcript that models the public referee uses only :data:`PUBLIC_FORMS`.
:data:`NOT_SENT` lists forms our codec reads (other referees, logs) that no public
referee sends to a program, with the reason; a transcript must not script them. An
``/eat`` echo must also put the taken tile (the last discard) in the middle with the
three ids sorted: the paper puts the taken tile in the middle, the simulator's logs list
the three sorted (``/eat 4 270 280 293``), and the public client reads the middle one
as the taken tile (it aborted on an echo listing the taken tile first).

>>> form_of("/initGame East East 1 1 0").name
'initGame'
>>> form_of("/draw 150") is None, NOT_SENT["/draw"][:30]
(True, "the public simulator's logs wr")
>>> unsent_forms(["/throw 1 121", "/eat 2 110 121 130", "/mo 470"])
[]
>>> unsent_forms(["/throw 1 130", "/eat 2 130 120 110"])
["'/eat 2 130 120 110': an /eat echo lists its ids sorted with the taken tile 130 in the middle"]
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

__all__ = ["NOT_SENT", "PUBLIC_FORMS", "Form", "form_of", "unsent_forms"]

_PAPER = "the protocol as published (ICGA Journal 2014, its appendix as quoted)"
_SIM = "the public simulator's logs"
_CLIENT = "the public client's parser"
_ID = r"[1-4][1-9][0-3]"
_SEAT = r"[1-4]"
_WIND = r"(?:[Ee]ast|[Ss]outh|[Ww]est|[Nn]orth)"


@dataclass(frozen=True, slots=True)
class Form:
    """One line form: its ``name``, a regular expression of the whole line, and the
    public ``source`` that says a public referee sends it."""

    name: str
    pattern: str
    source: str

    def matches(self, line: str) -> bool:
        """Whether ``line`` has this form."""
        return re.fullmatch(self.pattern, line) is not None


PUBLIC_FORMS: tuple[Form, ...] = (
    Form("start", rf"/start MJ {_SEAT} \S+", _PAPER),
    Form("start, no name", rf"/start MJ {_SEAT} ", f"{_SIM}; {_CLIENT} reads only the seat"),
    Form("ready", r"/ready", f"{_PAPER} (the readiness probe)"),
    Form(
        "initGame",
        rf"/initGame {_WIND} {_WIND} {_SEAT} {_SEAT} 0",
        f"{_PAPER} (lower case); {_SIM} (capitalised); {_CLIENT} reads only the dealer",
    ),
    Form("initCard", rf"/initCard(?: {_ID}){{16,17}}", _PAPER),
    Form("mo", rf"/mo {_ID}", f"{_PAPER}; {_CLIENT} reads a draw only as /mo"),
    Form("ask", r"/ask (?:throw|eat|pong|gong|hu)", _PAPER),
    Form("throw", rf"/throw {_SEAT} {_ID}", f"{_PAPER} (to every seat, the discarder too)"),
    Form("eat", rf"/eat {_SEAT}(?: {_ID}){{3}}", f"{_PAPER}; {_SIM} (see the module doc)"),
    Form("pong", rf"/pong {_SEAT}(?: {_ID}){{3}}", f"{_PAPER}; {_SIM} (claimed tile first)"),
    Form("gong, exposed", rf"/gong {_SEAT} 4(?: {_ID}){{4}}", _PAPER),
    Form("gong, added", rf"/gong {_SEAT} 1 {_ID}", _PAPER),
    Form("gong, concealed", rf"/gong {_SEAT} 0(?:(?: {_ID}){{4}})?", _PAPER),
    Form("hu", rf"/hu {_SEAT}(?: {_ID})+", _PAPER),
    Form("exit", r"/exit(?: \S+)*", f"{_PAPER}; an older referee sends /exit 0 0 0 0"),
    Form("close", r"/close", _PAPER),
)
"""The referee lines a public referee sends, with their sources."""

NOT_SENT: dict[str, str] = {
    "/draw": f"{_SIM} write /draw for a draw, but {_CLIENT} aborts on a /draw sent as its "
    "own draw, so no public referee sends it (our client reads it all the same)",
    "/eat taken first": f"{_CLIENT} aborts on an /eat echo listing the taken tile first; "
    "the public sources put it in the middle",
}
"""Forms our codec reads that no public referee sends to a program, and why."""


def form_of(line: str) -> Form | None:
    """The public form of a referee ``line``, or ``None``."""
    return next((f for f in PUBLIC_FORMS if f.matches(line)), None)


def unsent_forms(lines: Iterable[str]) -> list[str]:
    """The referee lines of a script that no public referee sends, each with why."""
    problems = []
    discard: str | None = None
    for line in lines:
        form = form_of(line)
        if form is None:
            command = line.split(" ", 1)[0]
            why = NOT_SENT.get(command, "no public source has this form")
            problems.append(f"{line!r}: {why}")
            continue
        words = line.split()
        if form.name == "throw":
            discard = words[2]
        elif form.name == "eat":
            ids = words[2:]
            if discard is None or ids != sorted(ids) or ids[1] != discard:
                problems.append(
                    f"{line!r}: an /eat echo lists its ids sorted with the taken tile "
                    f"{discard} in the middle"
                )
    return problems
