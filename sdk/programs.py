"""A line-protocol program named where a bot is: ``cmd:PROGRAM ARGS`` or ``tcp:TEMPLATE``.

Everywhere a bot spec is read (:mod:`sdk.botspec`), a program in any language can stand
instead of a Python bot:

* ``cmd:./mybot --level 3``: started with pipes on its standard input and output, as the
  official tournament wrapper runs it;
* ``tcp:./MctsPlayer {host} {port}``: the runner listens on a loopback port of its own,
  starts the program with the address filled in, and seats what connects.

A program is started once per match in a process group of its own (in ``cwd`` if
given), speaks exactly what the public referee sends (:mod:`protocol.line.referee`, as
for the server's line seats) and is stopped, its whole group, when the match ends.
:func:`parse_program` checks a spec before anything plays: a spec naming no program, a
template without ``{port}``, a program that does not exist or cannot be executed raise
:class:`ProgramSpecError`, one line.

>>> spec = parse_program("cmd:sh -c 'read x'")
>>> spec.kind, spec.command, spec.name
('cmd', ('sh', '-c', 'read x'), 'sh')
>>> parse_program("tcp:sh -c 'exit' {host}").kind
Traceback (most recent call last):
  ...
sdk.programs.ProgramSpecError: tcp:sh -c 'exit' {host}: the template has no {port} to fill in
>>> is_program("cmd:./x"), is_program("greedy")
(True, False)
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from sdk.botspec import PROGRAM_PREFIXES, BotLoadError

__all__ = [
    "PROGRAM_FORMS",
    "ProgramSpec",
    "ProgramSpecError",
    "command_name",
    "is_program",
    "parse_program",
    "program_name",
]

PROGRAM_FORMS = "cmd:PROGRAM ARGS (stdin/stdout) or tcp:PROGRAM ARGS {host} {port} (it connects)"
"""The program forms, for help texts."""

_PREFIXES = PROGRAM_PREFIXES


class ProgramSpecError(BotLoadError):
    """A program spec names nothing that can run; the message says why in one line."""


@dataclass(frozen=True, slots=True)
class ProgramSpec:
    """A checked program spec: ``kind`` is ``cmd`` or ``tcp``; ``command`` the words to
    run (for ``tcp``, with ``{host}`` and ``{port}`` still to fill in)."""

    spec: str
    kind: str
    command: tuple[str, ...]
    cwd: str | None = None

    @property
    def name(self) -> str:
        """The seat name: the program's file name, or what an interpreter runs."""
        return command_name([w for w in self.command if "{" not in w])


def program_name(path: str) -> str:
    """The seat name of a program the server starts: its file name, made one ASCII word
    (what ``/start MJ <seat> <name>`` can carry), at most 64 characters.

    >>> program_name("/opt/bots/my bot v2"), program_name("./機器人.py")
    ('my_bot_v2', '___.py')
    """
    name = "".join(c if c.isascii() and not c.isspace() else "_" for c in os.path.basename(path))
    return name[:64] or "program"


_INTERPRETER = re.compile(r"(python|pypy|node|ruby|perl|php|java|sh|bash)[\d.]*(\.exe)?")
"""Programs that run another: a seat is named after what they run, not after them."""


def command_name(command: Sequence[str]) -> str:
    """The seat name of a command the server starts: the program's file name, or for an
    interpreter (``python``, ``node``, ``java``...) what it runs: its script, its
    ``-m`` module or its ``-jar`` archive (else every Python bot would be "python").

    >>> command_name(["./my_bot", "--level", "3"]), command_name(["python3", "bots/x.py"])
    ('my_bot', 'x.py')
    >>> command_name(["python", "-u", "-m", "bots.greedy", "--line"])
    'bots.greedy'
    >>> command_name(["java", "-Xmx1g", "-jar", "bot.jar"]), command_name(["python"])
    ('bot.jar', 'python')
    """
    program = command[0]
    if not _INTERPRETER.fullmatch(os.path.basename(program)):
        return program_name(program)
    args = iter(command[1:])
    for arg in args:
        if arg in ("-m", "-jar"):
            return program_name(next(args, program))
        if arg == "-c":  # a program given inline has no name of its own
            break
        if not arg.startswith("-"):
            return program_name(arg)
    return program_name(program)


def is_program(spec: object) -> bool:
    """Whether ``spec`` names a line-protocol program rather than a Python bot."""
    return isinstance(spec, str) and spec.strip().startswith(_PREFIXES)


def parse_program(spec: str, cwd: str | Path | None = None) -> ProgramSpec:
    """Read and check a program spec (see the module doc); raises
    :class:`ProgramSpecError`. A relative program path is found from ``cwd`` (the folder
    the program will run in), else from the current folder."""
    text = spec.strip()
    kind, rest = text[:3], text[4:]
    if not is_program(text):
        raise ProgramSpecError(f"{spec!r} is not a program: give {PROGRAM_FORMS}")
    try:
        words = tuple(shlex.split(rest))
    except ValueError as exc:  # an unclosed quotation
        raise ProgramSpecError(f"{text}: {exc}") from None
    if not words:
        raise ProgramSpecError(f"{text}: no program after {kind}: (give {PROGRAM_FORMS})")
    if kind == "tcp" and not any("{port}" in w for w in words):
        raise ProgramSpecError(f"{text}: the template has no {{port}} to fill in")
    folder = None if cwd is None else str(Path(cwd).resolve())
    if folder is not None and not Path(folder).is_dir():
        raise ProgramSpecError(f"{text}: the working folder {cwd} does not exist")
    _check_runnable(text, words[0], folder)
    return ProgramSpec(text, kind, words, folder)


def _check_runnable(spec: str, program: str, cwd: str | None) -> None:
    """Refuse a program that does not exist or cannot be executed, before anything plays."""
    if os.sep not in program and "/" not in program:
        if shutil.which(program) is None:
            raise ProgramSpecError(f"{spec}: no program {program!r} on the PATH")
        return
    path = Path(cwd or ".") / program
    if not path.exists():
        raise ProgramSpecError(f"{spec}: no such program {program}")
    if path.is_dir() or not os.access(path, os.X_OK):
        raise ProgramSpecError(f"{spec}: {program} is not executable (chmod +x?)")
