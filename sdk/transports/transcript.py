"""A line-protocol session kept as a transcript: the record of a tournament game.

Over the line protocol the referee keeps the game's log, not the program. With
``--save-transcript PATH`` (``--line`` or ``--tcp``) the SDK writes every line of the
session as it happens, in the transcript format of the conformance kit
(:mod:`protocol.line.conformance.transcript`): ``<`` a line the referee sent, ``?`` the
legal actions the bot was offered at an ask, ``!`` what it answered (followed by a
comment with the milliseconds from the ask to the answer, as the program measured them),
``>`` each line the program wrote. Each line is flushed as it is written, so a session
cut short (a crash, a lost connection) keeps everything up to that moment.

Such a transcript replays the session against any program, yours after a fix included::

    python -m sdk.conformance program --transcript game.txt -- python mybot.py --line

and every step of it can be checked against the rules model (the test suite plays the
transcripts it saves through :class:`~protocol.line.adapter.LineClientAdapter`).

>>> import io
>>> out = io.StringIO()
>>> t = TranscriptWriter(out, "demo")
>>> t.received("/ready"); t.sent("/ready")
>>> print(out.getvalue().splitlines()[-2:])
['< /ready', '> /ready']
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable
from pathlib import Path
from typing import TextIO

from protocol.actions import Action

__all__ = ["TranscriptWriter", "open_transcript"]


class TranscriptWriter:
    """Writes one session's steps to ``out`` (a text file), each line flushed."""

    def __init__(self, out: TextIO, bot_name: str) -> None:
        self.out = out
        self.steps = 0
        """Steps written so far (0: the session never began; the header is not a step)."""
        started = datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
        self._write(f"# {bot_name}: a line-protocol session, started {started}")
        self._write("# watch it: python -m sdk.replay FILE")
        self._write("# replay it: python -m sdk.conformance program --transcript FILE -- CMD")

    def received(self, line: str) -> None:
        """A line the referee sent."""
        self.steps += 1
        self._write(f"< {line}")

    def offered(self, legal: Iterable[Action]) -> None:
        """The legal actions the bot was offered at the ask just received."""
        self._write(f"? {', '.join(map(str, legal))}")

    def chose(self, action: Action, ms: float | None = None) -> None:
        """What the bot answered (its fallback, if that went out), and how many
        milliseconds after the ask (a ``#`` comment: every reader of transcripts skips
        it, :func:`sdk.records.transcript.record_from_transcript` reads it)."""
        self._write(f"! {action}")
        if ms is not None:
            self._write(f"# {ms:.1f} ms")

    def sent(self, line: str) -> None:
        """A line the program wrote."""
        self._write(f"> {line}")

    def close(self) -> None:
        """Close the file."""
        self.out.close()

    def _write(self, text: str) -> None:
        self.out.write(text + "\n")
        self.out.flush()


def open_transcript(path: str | Path, bot_name: str) -> TranscriptWriter:
    """A :class:`TranscriptWriter` on a new file at ``path`` (its folder created);
    raises :class:`OSError` if it cannot be written."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    return TranscriptWriter(target.open("w", encoding="ascii", errors="replace"), bot_name)
