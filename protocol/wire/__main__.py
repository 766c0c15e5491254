"""``python -m protocol.wire --schema [--check] [PATH]``: write (or check) the JSON Schema."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from protocol.wire.schema import SCHEMA_PATH, schema_text


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m protocol.wire", description=__doc__)
    parser.add_argument("--schema", action="store_true", help="write the JSON Schema")
    parser.add_argument("--check", action="store_true", help="exit 1 if the file differs")
    parser.add_argument("path", nargs="?", type=Path, default=SCHEMA_PATH)
    args = parser.parse_args(argv)
    if not args.schema:
        parser.print_help()
        return 2
    text = schema_text()
    if args.check:
        current = args.path.read_text() if args.path.exists() else ""
        if current != text:
            print(
                f"{args.path} is out of date: run python -m protocol.wire --schema", file=sys.stderr
            )
            return 1
        return 0
    args.path.parent.mkdir(parents=True, exist_ok=True)
    args.path.write_text(text)
    print(f"wrote {args.path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
