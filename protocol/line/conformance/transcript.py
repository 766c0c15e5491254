"""Scripted referee sessions (transcripts) of the line protocol, as text.

One step per line: ``<`` a line the referee sends, ``>`` the line the program is
expected to write, ``?`` the legal actions the bot is offered at that ask, ``!`` the
bot's choice, ``@`` an event (JSON) the client adapter must emit; ``#`` starts a comment.
The conformance kit plays the ``<`` lines against a program and checks its replies
against the rules model; the test suite also checks every step against our own adapter.

>>> t = parse_transcript("# demo\\n< /start MJ 1 x\\n< /ready\\n> /ready\\n", "demo")
>>> t.name, t.comment, [s.kind for s in t.steps]
('demo', 'demo', ['<', '<', '>'])
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["STEP_KINDS", "Step", "Transcript", "parse_transcript"]

STEP_KINDS = {"<": "referee line", ">": "expected reply", "?": "legal", "!": "choice", "@": "event"}


@dataclass(frozen=True, slots=True)
class Step:
    """One step: its kind (a key of :data:`STEP_KINDS`), its text and its line number."""

    kind: str
    text: str
    line_no: int


@dataclass(frozen=True, slots=True)
class Transcript:
    """A named script; ``comment`` is its leading ``#`` block (what it shows)."""

    name: str
    comment: str
    steps: tuple[Step, ...]

    @property
    def referee_lines(self) -> list[str]:
        """The lines the referee sends, in order."""
        return [s.text for s in self.steps if s.kind == "<"]


def parse_transcript(text: str, name: str) -> Transcript:
    """Read a transcript; raise :class:`ValueError` naming a line that is not a step."""
    steps: list[Step] = []
    comment: list[str] = []
    for n, raw in enumerate(text.splitlines(), start=1):
        line = raw.rstrip("\n")
        if not line.strip():
            continue
        if line.startswith("#"):
            if not steps:
                comment.append(line[1:].strip())
            continue
        kind = line[0]
        if kind not in STEP_KINDS or (len(line) > 1 and line[1] != " "):
            raise ValueError(f"{name} line {n}: {line!r} is not a step ('<', '>', '?', '!', '@')")
        body = line[2:]
        steps.append(Step(kind, body if kind == "<" else body.strip(), n))
    return Transcript(name, " ".join(comment), tuple(steps))
