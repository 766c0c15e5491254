"""``python -m sdk.arena``: see :mod:`sdk.arena.cli`."""

import sys

from sdk.arena.cli import main

if __name__ == "__main__":
    sys.exit(main())
