"""``python -m protocol.wire --schema [PATH]`` writes the JSON Schema; ``--check`` compares."""

from __future__ import annotations

import sys
from pathlib import Path

from protocol.cli import CommandError, Parser, run_command
from protocol.wire.schema import SCHEMA_PATH, schema_text


def main(argv: list[str] | None = None) -> int:
    """The command line; returns the exit code (1: ``--check`` found a difference)."""
    return run_command(_main, argv)


def _main(argv: list[str] | None) -> int:
    parser = Parser(prog="python -m protocol.wire", description=__doc__)
    parser.add_argument("--schema", action="store_true", help="write the JSON Schema")
    parser.add_argument(
        "--check", action="store_true", help="only compare (exit 1 if the file differs)"
    )
    parser.add_argument("path", nargs="?", type=Path, default=SCHEMA_PATH)
    args = parser.parse_args(argv)
    if not (args.schema or args.check):
        parser.error("say --schema to write the JSON Schema, or --check to compare it")
    text = schema_text()
    if args.check:
        current = args.path.read_text() if args.path.exists() else ""
        if current != text:
            raise CommandError(
                f"{args.path} is out of date: run python -m protocol.wire --schema to rewrite it"
            )
        print(f"{args.path} is up to date")
        return 0
    args.path.parent.mkdir(parents=True, exist_ok=True)
    args.path.write_text(text)
    print(f"wrote {args.path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
