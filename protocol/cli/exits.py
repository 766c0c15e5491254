"""Exit codes and one-line errors, the same for every command of the project.

A person who mistypes an option, names a bot that does not exist or points a bot at a
server that is not running gets one line on stderr saying what is wrong and what to do,
never a traceback, and an exit code a script can test:

====  ======================================================================
0     done
1     failure: the work could not be done (a server unreachable, a refused
      session, a file that differs...)
2     usage: a bad option or argument, a bot that cannot be loaded
3     protocol: the other side broke the protocol (an unreadable frame, a
      mirror mismatch in strict mode, another protocol version)
130   interrupted (Ctrl-C)
====  ======================================================================

A command's ``main`` raises :class:`CommandError` (or lets argparse fail) and is called
through :func:`run_command`, which also ends quietly when its reader goes away
(``python -m protocol.analyze --json ... | head``):

>>> def main(argv):
...     if not argv:
...         raise CommandError("give a hand, e.g. '123m 456p'", EXIT_USAGE)
...     return EXIT_OK
>>> import contextlib, io
>>> with contextlib.redirect_stderr(io.StringIO()) as err:
...     code = run_command(main, [])
>>> code, err.getvalue()
(2, "error: give a hand, e.g. '123m 456p'\\n")
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any, NoReturn

__all__ = [
    "EXIT_CODES_HELP",
    "EXIT_FAILED",
    "EXIT_INTERRUPTED",
    "EXIT_OK",
    "EXIT_PROTOCOL",
    "EXIT_USAGE",
    "CommandError",
    "Parser",
    "run_command",
]

EXIT_OK = 0
"""The command did its work."""
EXIT_FAILED = 1
"""The work could not be done (environment, server, comparison)."""
EXIT_USAGE = 2
"""A bad option or argument (what argparse uses too)."""
EXIT_PROTOCOL = 3
"""The other side broke the protocol."""
EXIT_INTERRUPTED = 130
"""Stopped by Ctrl-C."""

EXIT_CODES_HELP = (
    "exit codes: 0 done, 1 failure (e.g. server unreachable), 2 usage error, "
    "3 protocol error, 130 interrupted"
)
"""The line every ``--help`` ends with."""


class CommandError(Exception):
    """End the command with ``message`` (one line: what is wrong and what to do) and
    ``code``."""

    def __init__(self, message: str, code: int = EXIT_FAILED) -> None:
        super().__init__(message)
        self.message = message
        self.code = code


class Parser(argparse.ArgumentParser):
    """An :class:`argparse.ArgumentParser` whose errors are one line (``PROG: error:
    MESSAGE (see --help)``, exit 2) and whose help ends with the exit codes.

    >>> import contextlib, io
    >>> p = Parser(prog="tool")
    >>> _ = p.add_argument("--hands", type=int)
    >>> with contextlib.redirect_stderr(io.StringIO()) as err:
    ...     try:
    ...         p.parse_args(["--hands", "x"])
    ...     except SystemExit as exc:
    ...         print(exc.code)
    2
    >>> err.getvalue()
    "tool: error: argument --hands: invalid int value: 'x' (see --help)\\n"
    """

    def __init__(self, *args: Any, exit_codes: str = EXIT_CODES_HELP, **kwargs: Any) -> None:
        """``exit_codes`` replaces the standard exit-code line for a tool whose codes
        mean more (it must still use 2 for usage errors)."""
        epilog = kwargs.get("epilog")
        kwargs["epilog"] = f"{epilog} {exit_codes}." if epilog else f"{exit_codes}."
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message} (see --help)\n")


def run_command(main: Callable[[Any], int | None], argv: Sequence[str] | None = None) -> int:
    """``main(argv)`` with the house conventions: :class:`CommandError` prints ``error:
    MESSAGE`` and returns its code; argparse's exit (``--help``, a usage error) returns
    its code; Ctrl-C returns 130; a reader that closed the output pipe (``| head``) ends
    the command quietly with 0. Returns the exit code, never raises ``SystemExit``."""
    try:
        code = main(argv)
        sys.stdout.flush()
    except SystemExit as exc:
        if exc.code is None or isinstance(exc.code, int):
            return exc.code or EXIT_OK
        print(f"error: {exc.code}", file=sys.stderr)
        return EXIT_FAILED
    except CommandError as exc:
        print(f"error: {exc.message}", file=sys.stderr)
        return exc.code
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        _silence_stdout()
        return EXIT_OK
    return EXIT_OK if code is None else code


def _silence_stdout() -> None:
    """Point stdout at /dev/null so the interpreter's last flush cannot fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):
        pass
