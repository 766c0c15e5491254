"""Play scripted referee transcripts against any line-protocol program and check it.

The program is started with pipes on its standard input and output (as the official
wrapper runs it); its standard error is left alone. Each transcript's referee lines are
written one by one; at every ``/ask`` and ``/ready`` one reply is read (within the time
limit plus a margin) and checked by :class:`~protocol.line.conformance.ProgramChecker`.
Lines the program prints before its first ask are start-up noise (counted, not faults);
a line it prints when no reply is due afterwards is a fault.

When the program answers differently from the script (another tile to throw, another
pair to chow with), the referee's echo of that move is rewritten with the program's
ids; when it takes another kind of decision (passes where the script claims), the rest
of the transcript no longer applies and it stops there: a divergence, not a fault.
After a faulty reply the script goes on as written, its move standing in for the R17
default a referee would apply and echo.

A program that dies is reported as what happened, not as a late reply: ``crash`` when
it exited (its exit code, or the signal that killed it) and ``closed`` when it closed
its standard output but still runs, each with the referee line it had just been sent
and how long after it. The program runs under :mod:`sdk.procs` (its whole process tree
ends with the transcript).
"""

from __future__ import annotations

import queue
import signal
import subprocess
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from protocol.line.conformance import Fault, ProgramChecker, Transcript
from sdk.procs import end_process, session_command

__all__ = ["LineProgram", "ProgramRun", "StepReport", "run_transcript"]

_MARGIN = 1.0
"""Seconds past the limit a reply is still waited for (then it is reported late)."""
_SINCE = 6
"""Referee lines sent since the program's last line, kept to say what it died on."""
_EXIT_WAIT = 1.0
"""Seconds a program that closed its output is given to exit (then: ``closed``)."""


@dataclass(slots=True)
class StepReport:
    """One ask and the program's reply."""

    ask: str
    reply: str | None
    seconds: float
    fault: Fault | None


@dataclass(slots=True)
class ProgramRun:
    """What happened when one transcript was played."""

    name: str
    steps: list[StepReport] = field(default_factory=list)
    faults: list[Fault] = field(default_factory=list)
    noise: int = 0
    diverged: str = ""
    error: str = ""

    @property
    def passed(self) -> bool:
        """Whether the program showed no fault and no error."""
        return not self.faults and not self.error


class LineProgram:
    """A started line-protocol program, driven without an event loop: lines in, lines
    out through a reader thread (the conformance kit's and the reviewer's runner; the
    tables' is :mod:`sdk.server.linechan`). Its own process group, in ``cwd`` if given;
    :meth:`stop` ends the group."""

    def __init__(self, command: Sequence[str], cwd: str | None = None) -> None:
        self.proc = subprocess.Popen(
            session_command(command),
            cwd=cwd,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            encoding="ascii",
            errors="replace",
            bufsize=1,
            start_new_session=True,
        )
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.last_sent: tuple[str, float] = ("", time.monotonic())
        """The last referee line written, and when."""
        self.unanswered: list[str] = []
        """The referee lines written since the program's last line (the last few)."""
        self.closed: tuple[str, float] | None = None
        """Once the program's output ended: the last line it had been sent, and when
        its output ended."""
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.unanswered = []
            self.lines.put(line.rstrip("\r\n"))
        self.closed = (self.last_sent[0], time.monotonic())
        self.lines.put(None)

    def send(self, line: str) -> None:
        """Write one line (a program that has gone is not an error here)."""
        assert self.proc.stdin is not None
        self.last_sent = (line, time.monotonic())
        self.unanswered = [*self.unanswered[-(_SINCE - 1) :], line]
        try:
            self.proc.stdin.write(line + "\n")
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            pass

    def read(self, timeout: float) -> str | None:
        """The next line, or ``None`` (no line in time, or none will come: see
        :attr:`closed`)."""
        if self.closed is not None and self.lines.empty():
            return None
        try:
            return self.lines.get(timeout=max(timeout, 0.0))
        except queue.Empty:
            return None

    def death(self) -> Fault:
        """What ended the program's output: a ``crash`` (its exit code or signal) or a
        ``closed`` output; when (how long after the last referee line it was sent), and
        the lines it was sent since its last line (one of them is what it died on)."""
        assert self.closed is not None
        after, ended = self.closed
        when = f"{(ended - self.last_sent[1]) * 1000:.0f} ms after the referee's {after!r}"
        if after != self.last_sent[0]:
            when = f"after the referee's {after!r}"
        since = ", ".join(map(repr, self.unanswered))
        when += f" (sent since its last line: {since})"
        try:
            code = self.proc.wait(_EXIT_WAIT)
        except subprocess.TimeoutExpired:
            return Fault("closed", "", f"the program closed its standard output {when}")
        if code < 0:
            try:
                name = signal.Signals(-code).name
            except ValueError:
                name = f"signal {-code}"
            return Fault("crash", "", f"the program was killed by {name}; its output ended {when}")
        return Fault("crash", "", f"the program exited with code {code}; its output ended {when}")

    def pending(self) -> list[str]:
        """The lines already read and not yet taken (drained)."""
        out = []
        while True:
            try:
                line = self.lines.get_nowait()
            except queue.Empty:
                return out
            if line is not None:
                out.append(line)

    def stop(self) -> None:
        """Close its input, give it a second to exit, then end its process group."""
        try:
            assert self.proc.stdin is not None
            self.proc.stdin.close()
        except OSError:
            pass
        end_process(self.proc, grace=1.0)  # the program and every process it left


def run_transcript(command: Sequence[str], transcript: Transcript, limit: float) -> ProgramRun:
    """Start ``command``, play ``transcript`` to it and check every reply."""
    run = ProgramRun(transcript.name)
    try:
        program = LineProgram(command)
    except OSError as exc:
        run.error = f"cannot start {command[0]!r}: {exc}"
        return run
    try:
        _play(program, transcript, limit, run)
    finally:
        program.stop()
    return run


def _play(program: LineProgram, transcript: Transcript, limit: float, run: ProgramRun) -> None:
    checker = ProgramChecker(limit)
    steps = list(transcript.steps)
    asked = False
    i = 0
    while i < len(steps):
        step = steps[i]
        i += 1
        if step.kind != "<":
            continue
        line = step.text
        try:
            due = checker.referee_line(line)
        except Exception as exc:  # the script no longer fits what the program did
            run.diverged = f"line {step.line_no} {line!r} no longer fits the game: {exc}"
            return
        extra = program.pending()
        if extra:
            if asked:
                for text in extra:
                    run.faults.append(Fault("unsolicited", text, "no reply was due"))
            else:
                run.noise += len(extra)
        program.send(line)
        if not due:
            continue
        asked = asked or line.startswith("/ask")
        wait = (limit if asked else checker.startup_limit) + _MARGIN
        start = time.monotonic()
        reply = program.read(wait)
        while reply is not None and not asked and not reply.startswith("/"):
            run.noise += 1  # start-up noise before the first ask
            reply = program.read(wait - (time.monotonic() - start))
        seconds = time.monotonic() - start
        if reply is None and program.closed is not None:  # not late: gone
            death = program.death()
            run.steps.append(StepReport(line, None, seconds, death))
            run.faults.append(death)
            run.error = death.message
            return
        fault = checker.reply(reply, seconds)
        run.steps.append(StepReport(line, reply, seconds, fault))
        if fault is not None:
            run.faults.append(fault)
        at = _expected_reply(steps, i)  # after a fault the script's move stands in for
        # the default a referee would apply (and echo) instead
        if at is not None and fault is None and reply is not None and reply != steps[at].text:
            why = _follow(steps, at, steps[at].text, reply)
            if why:
                run.diverged = f"at line {steps[at].line_no}: {why}"
                return


def _expected_reply(steps: list, i: int) -> int | None:
    """The index of the script's reply (``>``) to the referee line before ``i``."""
    while i < len(steps) and steps[i].kind != "<":
        if steps[i].kind == ">":
            return i
        i += 1
    return None


def _follow(steps: list, at: int, expected: str, reply: str) -> str:
    """Rewrite the echo of the program's move with its own ids; or say why the rest of
    the script no longer applies."""
    want, got = expected.split(), reply.split()
    if want[0] != got[0] or want[0] in ("/pass", "/hu") or len(want) != len(got):
        return f"the script answers {expected!r}, the program {reply!r}"
    swap = dict(zip(want[1:], got[1:], strict=True))
    for j in range(at + 1, len(steps)):
        step = steps[j]
        if step.kind == "<" and step.text.split()[0] == want[0] and len(step.text.split()) > 2:
            words = step.text.split()
            steps[j] = type(step)(step.kind, " ".join(swap.get(w, w) for w in words), step.line_no)
            return ""
    return ""
