"""What every command line of the project shares: exit codes and one-line errors.

See :mod:`protocol.cli.exits`. It lives in ``protocol`` so that the rules tools
(``protocol.analyze``, ``protocol.score``...) can use it; the SDK's commands do too.
"""

from protocol.cli.exits import (
    EXIT_CODES_HELP,
    EXIT_FAILED,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_PROTOCOL,
    EXIT_USAGE,
    CommandError,
    Parser,
    run_command,
)

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
